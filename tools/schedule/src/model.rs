//! The schedule model: the TOML document read into resolved, checked values.
//!
//! Everything that can be checked locally (types, ranges, names, field/engine-kind fit,
//! manifest look-ups) is checked here; the graph and timing checks are in `analysis`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use orin_exec_table::{Limit, MAX_MODES, PvaAccess, PvaParamKind, VpuAffinity};

use crate::diag::{Diagnostic, Source};
use crate::limits;
use crate::manifest::{self, CubinVariant, DataType, ParamKind};
use crate::node::{self, Fields, Node, Span, Value};
use crate::read::{self, quoted, relative_to};
use crate::units::ms;

/// Facts of a platform profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Profile {
    Orin,
    Rig,
    Sil,
}

impl Profile {
    pub const NAMES: [&'static str; 3] = ["orin", "rig", "sil"];

    fn parse(s: &str) -> Option<Profile> {
        match s {
            "orin" => Some(Profile::Orin),
            "rig" => Some(Profile::Rig),
            "sil" => Some(Profile::Sil),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Orin => "orin",
            Profile::Rig => "rig",
            Profile::Sil => "sil",
        }
    }

    /// DLA cores: two on Orin; the SIL cuDLA (used by `rig` and `sil`) defaults to two.
    pub fn dla_cores(self) -> u8 {
        2
    }

    /// PVA engines available to a schedule.
    pub fn pva_engines(self) -> u8 {
        2
    }

    /// CPU cores a thread may be pinned to: Jetson AGX Orin has 12 Cortex-A78AE cores
    /// (<https://developer.nvidia.com/embedded/jetson-modules>); `rig` and `sil` run on
    /// whatever host they are given, so only the 64-bit mask bounds them.
    pub fn cpu_cores(self) -> Option<u8> {
        match self {
            Profile::Orin => Some(12),
            Profile::Rig | Profile::Sil => None,
        }
    }

    /// The SM a cubin must have a variant for (`sil` runs reference models: any SM).
    pub fn required_sm(self) -> Option<u32> {
        match self {
            Profile::Orin => Some(87),
            Profile::Rig => Some(90),
            Profile::Sil => None,
        }
    }
}

/// Engine kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    Cpu,
    Gpu,
    Dla,
    Pva,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Cpu, Kind::Gpu, Kind::Dla, Kind::Pva];

    pub fn key(self) -> &'static str {
        match self {
            Kind::Cpu => "cpu",
            Kind::Gpu => "gpu",
            Kind::Dla => "dla",
            Kind::Pva => "pva",
        }
    }

    pub fn upper(self) -> &'static str {
        match self {
            Kind::Cpu => "CPU",
            Kind::Gpu => "GPU",
            Kind::Dla => "DLA",
            Kind::Pva => "PVA",
        }
    }

    pub fn variant(self) -> &'static str {
        match self {
            Kind::Cpu => "Cpu",
            Kind::Gpu => "Gpu",
            Kind::Dla => "Dla",
            Kind::Pva => "Pva",
        }
    }

    /// The key naming the instance (`worker`, `stream`, `core`, `index`).
    pub fn instance_key(self) -> &'static str {
        match self {
            Kind::Cpu => "worker",
            Kind::Gpu => "stream",
            Kind::Dla => "core",
            Kind::Pva => "index",
        }
    }

    /// Default queue capacity (submitted but unfinished tasks).
    pub fn default_queue_capacity(self) -> u16 {
        match self {
            Kind::Cpu => 8,
            Kind::Gpu => 16,
            Kind::Dla => 8,
            Kind::Pva => 8,
        }
    }

    /// Whether work is submitted `lookahead` frames ahead on this kind.
    pub fn is_accelerator(self) -> bool {
        self != Kind::Cpu
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Engine {
    pub name: String,
    pub kind: Kind,
    pub instance: u8,
    pub queue_capacity: u16,
    /// How CPU threads wait for its tasks (`cpu_wait`; `None`: block).
    pub cpu_wait: Option<CpuWaitSpec>,
    /// GPU engines: each frame's work goes out as one CUDA graph (`submit = "graph"`).
    pub graph: bool,
    /// PVA engines: the VPUs its stream may use (`vpu`, default any); `None` elsewhere.
    pub vpu: Option<VpuAffinity>,
    /// CPU engines: the worker thread's `priority` and `cpus`.
    pub thread: ThreadSpec,
    pub span: Span,
    pub capacity_span: Option<Span>,
}

/// A runtime thread's real-time settings (`priority`, `cpus`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ThreadSpec {
    /// `SCHED_FIFO` priority (`0`: the runtime's default).
    pub priority: u8,
    /// Allowed CPUs, bit n for CPU n (`0`: any).
    pub cpus: u64,
    /// Each CPU with where it is written, for the shared-CPU warning.
    pub cpu_spans: Vec<(u8, Span)>,
}

impl ThreadSpec {
    /// `, SCHED_FIFO 70, CPUs {1,2}` for the report (empty for the defaults).
    pub fn describe(&self) -> String {
        let mut s = String::new();
        if self.priority != 0 {
            s += &format!(", SCHED_FIFO {}", self.priority);
        }
        if self.cpus != 0 {
            let cpus: Vec<String> = self.cpu_spans.iter().map(|(c, _)| c.to_string()).collect();
            s += &format!(", CPUs {{{}}}", cpus.join(","));
        }
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BufKind {
    Raw {
        size: u64,
        align: u64,
    },
    Tensor {
        data_type: DataType,
        dims: [u32; 4],
        align: u64,
    },
    Pinned {
        size: u64,
    },
}

impl BufKind {
    /// The alignment in bytes (pinned host memory is page-aligned), as the tables give it.
    pub fn align(self) -> u64 {
        match self {
            BufKind::Raw { align, .. } | BufKind::Tensor { align, .. } => align,
            BufKind::Pinned { .. } => 4096,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Buffer {
    pub name: String,
    pub kind: BufKind,
    pub multiplicity: u8,
    pub cpu_access: bool,
    /// Its `name` and its `align` in the schedule (where the limits point).
    pub span: Span,
    pub align_span: Option<Span>,
}

#[derive(Clone, Debug)]
pub(crate) struct Mode {
    pub name: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Dep {
    pub task: usize,
    pub lag: u8,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Param {
    Buffer(usize),
    U32(u32),
    I32(i32),
    U64(u64),
    F32(f32),
}

impl Param {
    /// Bytes the value occupies in the kernel's parameter buffer (a buffer is its 8-byte
    /// device address).
    pub fn size(self) -> u64 {
        match self {
            Param::Buffer(_) | Param::U64(_) => 8,
            Param::U32(_) | Param::I32(_) | Param::F32(_) => 4,
        }
    }

    /// How a message names it: the schedule's spelling with the value.
    pub fn describe(self) -> String {
        match self {
            Param::Buffer(_) => "a buffer address".to_owned(),
            Param::U32(v) => format!("`{{ u32 = {v} }}`"),
            Param::I32(v) => format!("`{{ i32 = {v} }}`"),
            Param::U64(v) => format!("`{{ u64 = {v} }}`"),
            Param::F32(v) => format!("`{{ f32 = {v:?} }}`"),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Work {
    Cpu,
    Gpu {
        cubin: usize,
        kernel: String,
        grid: [u32; 3],
        block: [u32; 3],
        shared_mem: u32,
        params: Vec<Param>,
    },
    Dla {
        loadable: usize,
        inputs: Vec<(String, usize)>,
        outputs: Vec<(String, usize)>,
    },
    Pva {
        /// Index into `Model::pva_programs`.
        program: usize,
        /// One value per program parameter, in the program's order.
        params: Vec<Param>,
    },
}

/// A buffer access: which buffer, whether it writes, where it is declared.
#[derive(Clone, Debug)]
pub(crate) struct Access {
    pub buffer: usize,
    pub write: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct Task {
    pub name: String,
    pub span: Span,
    pub engine: usize,
    pub work: Work,
    pub wcet: u64,
    pub budget: u64,
    pub deadline: u64,
    pub deadline_span: Option<Span>,
    pub release: u64,
    pub accesses: Vec<Access>,
    pub after: Vec<Dep>,
    /// Bit `m` = runs in mode `m`.
    pub modes: u32,
    /// How CPU threads wait for it (`cpu_wait`; `None`: its engine's).
    pub cpu_wait: Option<CpuWaitSpec>,
}

/// A `cpu_wait` as the schedule writes it: how CPU threads wait for a task's completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CpuWaitSpec {
    /// `"block"`: sleep until the signal wakes the waiter.
    Block,
    /// `"spin"`: spin for the whole wait.
    Spin,
    /// `{ spin_around = "50us" }`: spin within this much either side of the task's
    /// finish in the worst-case timeline, block before and after.
    SpinAround(u64),
}

/// Reads a `cpu_wait` value.
/// An engine's `submit` (`"stream"` or `"graph"`): `Some(true)` for graph submission. Only
/// a GPU engine has a choice; anywhere else the key is refused.
fn parse_submit(p: &mut Parser, n: &Node, kind: Kind, what: &str) -> Option<bool> {
    let mode = p.ok(read::string(&p.src, n, &format!("`submit` of {what}")))?;
    if kind != Kind::Gpu {
        p.err(
            &n.span,
            format!(
                "`submit` of {what}: only GPU engines choose how their work is submitted, this is a {} engine",
                kind.upper()
            ),
        )
        .notes
        .push("remove `submit`, or move the engine to `engines.gpu`".into());
        return None;
    }
    match mode {
        "stream" => Some(false),
        "graph" => Some(true),
        other => {
            p.err(
                &n.span,
                format!("`submit` of {what}: unknown mode `{other}`"),
            )
            .notes
            .push("write `submit = \"stream\"` (the default) or `submit = \"graph\"`".into());
            None
        }
    }
}

fn parse_cpu_wait(p: &mut Parser, n: &Node, what: &str) -> Option<CpuWaitSpec> {
    let help = "write `cpu_wait = \"block\"`, `\"spin\"` or `{ spin_around = \"50us\" }`";
    if let Value::Str(s) = &n.value {
        return match s.as_str() {
            "block" => Some(CpuWaitSpec::Block),
            "spin" => Some(CpuWaitSpec::Spin),
            other => {
                p.err(
                    &n.span,
                    format!("`cpu_wait` of {what}: unknown policy `{other}`"),
                )
                .notes
                .push(help.into());
                None
            }
        };
    }
    let mut f = p.ok(read::table(&p.src, n, &format!("`cpu_wait` of {what}")))?;
    let window = f.value("spin_around");
    p.unknown(&f, &["spin_around"], &format!("`cpu_wait` of {what}"));
    let Some(window) = window else {
        p.err(
            &n.span,
            format!("`cpu_wait` of {what} has no `spin_around`"),
        )
        .notes
        .push(help.into());
        return None;
    };
    p.ok(read::duration(
        &p.src,
        window,
        &format!("`spin_around` of {what}"),
    ))
    .map(CpuWaitSpec::SpinAround)
}

impl Task {
    pub fn reads(&self) -> Vec<usize> {
        self.accessed(false)
    }

    pub fn writes(&self) -> Vec<usize> {
        self.accessed(true)
    }

    /// The buffers it writes (`write`) or reads, in the order listed.
    fn accessed(&self, write: bool) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .accesses
            .iter()
            .filter(|a| a.write == write)
            .map(|a| a.buffer)
            .collect();
        v.dedup();
        v
    }

    pub fn in_mode(&self, mode: usize) -> bool {
        self.modes & (1 << mode) != 0
    }
}

/// The fault kinds of the health table: the runtime's own type, so names never drift.
pub(crate) use orin_exec_table::FaultKind as Fault;

/// The names of every fault kind, as schedules write them.
const FAULT_NAMES: [&str; Fault::ALL.len()] = {
    let mut names = [""; Fault::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Fault::ALL[i].name();
        i += 1;
    }
    names
};

fn parse_fault(s: &str) -> Option<Fault> {
    Fault::ALL.into_iter().find(|k| k.name() == s)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Task(usize),
    Engine(usize),
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Log,
    Skip,
    SwitchMode(usize),
    SafeStop,
}

#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub fault: Fault,
    pub scope: Scope,
    pub action: Action,
    pub span: Span,
}

/// A referenced GPU module.
#[derive(Clone, Debug)]
pub(crate) struct Cubin {
    pub name: String,
    pub variants: Vec<CubinVariant>,
}

/// The resolved schedule.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub src: Source,
    pub name: String,
    pub profile: Profile,
    pub period: u64,
    pub minor_frames: Vec<u64>,
    pub lookahead: u8,
    pub engines: Vec<Engine>,
    /// The executive thread's settings (`[executive]`).
    pub executive: ThreadSpec,
    pub buffers: Vec<Buffer>,
    pub modes: Vec<Mode>,
    pub tasks: Vec<Task>,
    pub health: Vec<Rule>,
    pub cubins: Vec<Cubin>,
    pub loadables: Vec<manifest::Loadable>,
    pub pva_programs: Vec<manifest::PvaProgram>,
    /// Every file read (schedule, manifests, cubins, loadables), for `rerun-if-changed`.
    pub files: Vec<PathBuf>,
}

impl Model {
    /// The mask of all modes.
    pub fn all_modes(&self) -> u32 {
        all_modes(self.modes.len())
    }
}

/// The mask of `count` modes.
fn all_modes(count: usize) -> u32 {
    if count >= 32 {
        u32::MAX
    } else {
        (1u32 << count) - 1
    }
}

const TOP_KEYS: &[&str] = &[
    "name",
    "profile",
    "period",
    "minor_frames",
    "lookahead",
    "kernels_manifest",
    "loadables_manifest",
    "pva_programs_manifest",
    "modes",
    "executive",
    "engines",
    "buffer",
    "task",
    "health",
];

const TASK_KEYS: &[&str] = &[
    "name",
    "engine",
    "cpu_wait",
    "wcet",
    "budget",
    "deadline",
    "release",
    "minor_frame",
    "reads",
    "writes",
    "after",
    "modes",
    "cubin",
    "kernel",
    "grid",
    "block",
    "shared_mem",
    "params",
    "loadable",
    "inputs",
    "outputs",
    "program",
];

const CPU_KEYS: &[&str] = &["release", "minor_frame"];
const GPU_KEYS: &[&str] = &["cubin", "kernel", "grid", "block", "shared_mem", "params"];
const DLA_KEYS: &[&str] = &["network", "loadable", "inputs", "outputs"];
const PVA_KEYS: &[&str] = &["program", "params"];

/// What a buffer entry said before tasks were seen (tensor facts may come from a loadable).
#[derive(Clone, Debug)]
struct BufferDecl {
    kind: String,
    size: Option<u64>,
    dims: Option<([u32; 4], Span)>,
    data_type: Option<(DataType, Span)>,
    align: Option<(u64, Span)>,
    multiplicity: u8,
    span: Span,
}

struct Parser {
    src: Source,
    diags: Vec<Diagnostic>,
}

impl Parser {
    fn ok<T>(&mut self, r: Result<T, Diagnostic>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(d) => {
                self.diags.push(d);
                None
            }
        }
    }

    fn err(&mut self, span: &Span, msg: impl Into<String>) -> &mut Diagnostic {
        let d = self.src.error(span, msg);
        self.diags.push(d);
        self.diags.last_mut().expect("just pushed")
    }

    fn unknown(&mut self, fields: &Fields<'_>, known: &[&str], what: &str) {
        read::unknown_keys(&self.src, fields, known, what, &mut self.diags);
    }

    /// Resolves a name against a list, with a "did you mean" hint.
    fn resolve<'a>(
        &mut self,
        names: impl Iterator<Item = &'a str> + Clone,
        name: &str,
        span: &Span,
        what: &str,
    ) -> Option<usize> {
        if let Some(i) = names.clone().position(|n| n == name) {
            return Some(i);
        }
        let all: Vec<&str> = names.clone().collect();
        self.err(span, format!("unknown {what} `{name}`"))
            .did_you_mean(name, names, || {
                if all.is_empty() {
                    format!("no {what} is declared")
                } else {
                    format!("declared: {}", quoted(&all))
                }
            });
        None
    }

    /// A string at `n` naming one of `names` (a `what`: `task`, `engine`, `mode`).
    fn named<'a>(
        &mut self,
        n: &Node,
        what: &str,
        names: impl Iterator<Item = &'a str> + Clone,
    ) -> Option<usize> {
        let name = self.ok(read::string(&self.src, n, &format!("`{what}`")))?;
        self.resolve(names, name, &n.span, what)
    }

    /// An integer at `n` in `min..=max`, or `default` when there is none.
    fn int_or(
        &mut self,
        n: Option<&Node>,
        what: &str,
        (min, max): (i64, i64),
        default: i64,
    ) -> Option<i64> {
        match n {
            Some(n) => self.ok(read::int_in(&self.src, n, what, min, max)),
            None => Some(default),
        }
    }
}

/// Reads and checks a schedule. `Err` holds the diagnostics when any of them is an error;
/// `Ok` carries the warnings.
pub(crate) fn parse(
    path: &Path,
    text: String,
) -> Result<(Model, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut p = Parser {
        src: Source::new(path.to_path_buf(), text),
        diags: Vec::new(),
    };
    let root = match node::parse(&p.src.text) {
        Ok(root) => root,
        Err((msg, span)) => {
            let d = p
                .src
                .error(&span.unwrap_or(0..0), format!("TOML syntax: {msg}"));
            return Err(vec![d]);
        }
    };
    let model = parse_root(&mut p, &root);
    let has_errors = p.diags.iter().any(Diagnostic::is_error);
    match model {
        Some(m) if !has_errors => Ok((m, p.diags)),
        _ => Err(p.diags),
    }
}

fn parse_root(p: &mut Parser, root: &[(node::Key, Node)]) -> Option<Model> {
    let mut top = Fields::from_entries(root);
    let mut files = vec![p.src.path.clone()];

    let name = match top.value("name") {
        Some(n) => p.ok(read::check_name(&p.src, n, "`name`")),
        None => {
            p.err(&(0..0), "the schedule has no `name`");
            None
        }
    };
    let profile = match top.value("profile") {
        Some(n) => match p.ok(read::string(&p.src, n, "`profile`")) {
            Some(s) => {
                let prof = Profile::parse(s);
                if prof.is_none() {
                    p.err(&n.span, format!("unknown profile `{s}`"))
                        .notes
                        .push(format!("expected one of: {}", quoted(&Profile::NAMES)));
                }
                prof
            }
            None => None,
        },
        None => {
            p.err(&(0..0), "the schedule has no `profile`")
                .notes
                .push(format!("expected one of: {}", quoted(&Profile::NAMES)));
            None
        }
    };
    let period = match top.value("period") {
        Some(n) => match p.ok(read::duration(&p.src, n, "`period`")) {
            Some(0) => {
                p.err(&n.span, "`period` must be positive");
                None
            }
            v => v,
        },
        None => {
            p.err(&(0..0), "the schedule has no `period`");
            None
        }
    };
    let minor_frames = match (top.value("minor_frames"), period) {
        (None, _) => Some(vec![0]),
        (Some(n), Some(period)) => parse_minor_frames(p, n, period),
        (Some(_), None) => None,
    };
    let lookahead = p
        .int_or(top.value("lookahead"), "`lookahead`", (0, 1), 1)
        .map(|v| v as u8);

    let kernels = read_manifest(p, &mut top, &mut files, manifest::kernels);
    let loadables = read_manifest(p, &mut top, &mut files, manifest::loadables);
    let programs = read_manifest(p, &mut top, &mut files, manifest::pva_programs);

    let modes = parse_modes(p, top.value("modes"), name.as_deref().unwrap_or("?"));
    let engines = parse_engines(p, top.value("engines"), profile);
    let executive = parse_executive(p, top.value("executive"), profile);
    warn_shared_cpus(p, &executive, &engines);
    let buffer_nodes = array_of_tables(p, &mut top, "buffer");
    let mut buffer_decls: Vec<(String, Option<BufferDecl>)> = Vec::new();
    for n in buffer_nodes {
        if let Some(decl) = parse_buffer(p, n) {
            if buffer_decls.iter().any(|(b, _)| *b == decl.0) {
                p.err(
                    &decl.1.as_ref().map_or(n.span.clone(), |d| d.span.clone()),
                    format!("buffer `{}` is declared twice", decl.0),
                );
            } else {
                buffer_decls.push(decl);
            }
        }
    }
    check_const_names(
        p,
        buffer_decls
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_ref().map(|d| d.span.clone()))),
        "buffer",
    );

    let task_nodes = array_of_tables(p, &mut top, "task");
    let health_nodes = array_of_tables(p, &mut top, "health");
    p.unknown(&top, TOP_KEYS, "the schedule");

    // Task names first, so that `after` can refer to tasks declared later.
    let mut task_names: Vec<(String, Span)> = Vec::new();
    for n in task_nodes {
        let Some(mut f) = Fields::of(n) else {
            p.err(&n.span, "each `[[task]]` must be a table");
            task_names.push((String::new(), n.span.clone()));
            continue;
        };
        let name = match f.value("name") {
            Some(v) => p
                .ok(read::check_name(&p.src, v, "task `name`"))
                .map(|s| (s, v.span.clone())),
            None => {
                p.err(&n.span, "a `[[task]]` has no `name`");
                None
            }
        };
        let name = name.unwrap_or_else(|| (String::new(), n.span.clone()));
        if !name.0.is_empty() && task_names.iter().any(|(t, _)| *t == name.0) {
            p.err(&name.1, format!("task `{}` is declared twice", name.0));
        }
        task_names.push(name);
    }
    check_const_names(
        p,
        task_names
            .iter()
            .map(|(n, s)| (n.as_str(), Some(s.clone()))),
        "task",
    );

    // Without a valid period, tasks are still checked (against no period).
    let mut cx = TaskCx {
        period: period.unwrap_or(u64::MAX),
        minor_frames: minor_frames.clone().unwrap_or_else(|| vec![0]),
        engines: &engines,
        buffers: &buffer_decls,
        modes: &modes,
        task_names: &task_names,
        kernels: kernels.as_ref(),
        loadables: loadables.as_ref(),
        programs: programs.as_ref(),
        used_cubins: Vec::new(),
        used_loadables: Vec::new(),
        used_programs: Vec::new(),
    };
    let mut tasks = Vec::new();
    for (i, n) in task_nodes.iter().enumerate() {
        if let Some(t) = parse_task(p, &mut cx, n, i) {
            tasks.push(t);
        }
    }
    let used_cubins = std::mem::take(&mut cx.used_cubins);
    let used_loadables = std::mem::take(&mut cx.used_loadables);
    let used_programs = std::mem::take(&mut cx.used_programs);

    // Referenced artifacts: check the profile's SM and the file hashes.
    let mut cubins = Vec::new();
    if let Some((km, _)) = &kernels {
        for (name, span) in &used_cubins {
            let Some(module) = km.items.iter().find(|m| &m.name == name) else {
                continue;
            };
            if let Some(sm) = profile.and_then(Profile::required_sm)
                && !module.variants.iter().any(|v| v.sm == sm)
            {
                let have: Vec<String> = module
                    .variants
                    .iter()
                    .map(|v| format!("sm_{}", v.sm))
                    .collect();
                p.err(
                    span,
                    format!(
                        "cubin `{name}` has no sm_{sm} variant, which profile `{}` needs",
                        profile.map_or("", Profile::name)
                    ),
                )
                .notes
                .push(format!("the kernels manifest has: {}", have.join(", ")));
            }
            for v in &module.variants {
                verify_artifact(p, &mut files, &km.src, &v.artifact);
            }
            cubins.push(Cubin {
                name: name.clone(),
                variants: module.variants.clone(),
            });
        }
    }
    let mut loadable_descs = Vec::new();
    if let Some((lm, _)) = &loadables {
        for (name, span) in &used_loadables {
            let Some(l) = lm.items.iter().find(|l| &l.name == name) else {
                continue;
            };
            check_network(p, &mut files, &lm.src, l, span, profile);
            loadable_descs.push(l.clone());
        }
    }

    // Referenced PVA programs: the VPU ELF must match its hash.
    let mut pva_programs = Vec::new();
    if let Some((pm, _)) = &programs {
        for (name, _) in &used_programs {
            if let Some(prog) = pm.items.iter().find(|x| &x.name == name) {
                verify_artifact(p, &mut files, &pm.src, &prog.elf);
                pva_programs.push(prog.clone());
            }
        }
    }

    let buffers = finish_buffers(p, &buffer_decls, &tasks, &loadable_descs, &engines);
    let health = parse_health(p, health_nodes, &task_names, &engines, &modes, &tasks);

    // Warnings: declared but unused (only meaningful when every task was read).
    let clean = !p.diags.iter().any(Diagnostic::is_error);
    for (b, (name, decl)) in buffer_decls.iter().enumerate() {
        if let Some(decl) = decl
            && !tasks
                .iter()
                .any(|t| t.accesses.iter().any(|a| a.buffer == b))
        {
            let d = p.src.warning(
                &decl.span,
                format!("buffer `{name}` is not used by any task"),
            );
            p.diags.push(d);
        }
    }
    for (e, engine) in engines.iter().enumerate() {
        if clean && !tasks.iter().any(|t| t.engine == e) {
            let d = p.src.warning(
                &engine.span,
                format!("engine `{}` runs no task", engine.name),
            );
            p.diags.push(d);
        }
    }

    if tasks.len() > usize::from(u16::MAX) {
        p.err(
            &(0..0),
            format!(
                "{} tasks declared; at most 65535 fit a `TaskId`",
                tasks.len()
            ),
        );
    }
    Some(Model {
        src: p.src.clone(),
        name: name?,
        profile: profile?,
        period: period?,
        minor_frames: minor_frames?,
        lookahead: lookahead?,
        engines,
        executive,
        buffers: buffers?,
        modes,
        tasks,
        health,
        cubins,
        loadables: loadable_descs,
        pva_programs,
        files,
    })
}

/// The manifest the schedule names at its `T::MANIFEST_KEY` (relative to the schedule), read
/// with `load`, and where it is named; its path goes to `files`.
fn read_manifest<T: manifest::Item>(
    p: &mut Parser,
    top: &mut Fields<'_>,
    files: &mut Vec<PathBuf>,
    load: fn(&Path, &mut Vec<Diagnostic>) -> Option<manifest::Manifest<T>>,
) -> Option<(manifest::Manifest<T>, Span)> {
    let key = T::MANIFEST_KEY;
    let (_, n) = top.take(key)?;
    let rel = p.ok(read::string(&p.src, n, &format!("`{key}`")))?;
    let path = relative_to(&p.src.path, rel);
    files.push(path.clone());
    load(&path, &mut p.diags).map(|m| (m, n.span.clone()))
}

/// The entries of the top-level `[[key]]` array (none if it is absent or not an array).
fn array_of_tables<'n>(p: &mut Parser, top: &mut Fields<'n>, key: &str) -> &'n [Node] {
    match top.value(key) {
        Some(n) => p
            .ok(read::array(
                &p.src,
                n,
                &format!("`{key}` (write `[[{key}]]` tables)"),
            ))
            .unwrap_or(&[]),
        None => &[],
    }
}

/// Adds a referenced file to `files` and checks its hash; `src` is its manifest.
fn verify_artifact(
    p: &mut Parser,
    files: &mut Vec<PathBuf>,
    src: &Source,
    artifact: &manifest::Artifact,
) {
    files.push(artifact.file.clone());
    if let Err(d) = artifact.verify(src) {
        p.diags.push(d);
    }
}

/// Checks a DLA network the schedule uses: the hashes of its ONNX model and real loadable,
/// the model against its descriptors (`manifest::Loadable::check_onnx`), and, for `orin`,
/// that a real loadable is registered (a warning: init fails without one).
fn check_network(
    p: &mut Parser,
    files: &mut Vec<PathBuf>,
    src: &Source,
    l: &manifest::Loadable,
    used_at: &Span,
    profile: Option<Profile>,
) {
    verify_artifact(p, files, src, &l.onnx);
    let hash_ok = l.onnx.verify(src).is_ok();
    if let Some(real) = &l.real {
        verify_artifact(p, files, src, real);
    }
    if hash_ok {
        p.diags.extend(l.check_onnx(src));
    }
    if profile == Some(Profile::Orin) && l.real.is_none() {
        let d = p
            .src
            .warning(
                used_at,
                format!(
                    "network `{}` has no real DLA loadable in the loadables manifest; `orin` runs \
                     one and its init fails without it",
                    l.name
                ),
            )
            .note(
                "build it from the ONNX model with loadables/build_real_loadable.sh on an Orin \
                 and register `loadable`, `loadable_sha256` and `loadable_build_command`",
            );
        p.diags.push(d);
    }
}

/// Reports names that differ but map to the same Rust constant.
fn check_const_names<'a>(
    p: &mut Parser,
    names: impl Iterator<Item = (&'a str, Option<Span>)>,
    what: &str,
) {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for (name, span) in names {
        if name.is_empty() {
            continue;
        }
        let c = const_name(name);
        match seen.get(c.as_str()) {
            Some(prev) if *prev != name => {
                let span = span.unwrap_or(0..0);
                p.err(
                    &span,
                    format!("{what} names `{prev}` and `{name}` both become the constant `{c}`"),
                );
            }
            _ => {
                seen.insert(c, name);
            }
        }
    }
}

/// The Rust constant for a name: upper case, `-` → `_`.
pub(crate) fn const_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect()
}

fn parse_minor_frames(p: &mut Parser, n: &Node, period: u64) -> Option<Vec<u64>> {
    match &n.value {
        Value::Int(_) => {
            let count = p.ok(read::int_in(&p.src, n, "`minor_frames`", 1, 1 << 16))? as u64;
            if !period.is_multiple_of(count) {
                p.err(
                    &n.span,
                    format!(
                        "{count} minor frames do not divide the period {} evenly",
                        ms(period)
                    ),
                );
                return None;
            }
            Some((0..count).map(|k| k * (period / count)).collect())
        }
        Value::Array(items) => {
            let mut out: Vec<u64> = Vec::new();
            let mut ok = true;
            for (k, item) in items.iter().enumerate() {
                let Some(v) = p.ok(read::duration(&p.src, item, "a minor frame offset")) else {
                    ok = false;
                    continue;
                };
                if k == 0 && v != 0 {
                    p.err(&item.span, "the first minor frame must start at 0");
                    ok = false;
                } else if out.last().is_some_and(|&prev| v <= prev) {
                    p.err(&item.span, "minor frame offsets must increase");
                    ok = false;
                } else if v >= period {
                    p.err(
                        &item.span,
                        format!(
                            "minor frame offset {} is not within the period {}",
                            ms(v),
                            ms(period)
                        ),
                    );
                    ok = false;
                }
                out.push(v);
            }
            if out.is_empty() {
                p.err(&n.span, "`minor_frames` must not be empty");
                ok = false;
            }
            ok.then_some(out)
        }
        other => {
            p.err(
                &n.span,
                format!(
                    "`minor_frames` must be a count or an array of offsets, found {}",
                    other.type_name()
                ),
            );
            None
        }
    }
}

fn parse_modes(p: &mut Parser, n: Option<&Node>, schedule: &str) -> Vec<Mode> {
    let Some(n) = n else {
        return vec![Mode {
            name: "normal".into(),
        }];
    };
    let Some(items) = p.ok(read::array(&p.src, n, "`modes`")) else {
        return vec![Mode {
            name: "normal".into(),
        }];
    };
    let mut modes: Vec<Mode> = Vec::new();
    let mut spans = Vec::new();
    for item in items {
        let Some(name) = p.ok(read::check_name(&p.src, item, "mode")) else {
            continue;
        };
        if modes.iter().any(|m| m.name == name) {
            p.err(&item.span, format!("mode `{name}` is declared twice"));
            continue;
        }
        spans.push(item.span.clone());
        modes.push(Mode { name });
    }
    if modes.is_empty() {
        p.err(&n.span, "`modes` must name at least one mode");
        modes.push(Mode {
            name: "normal".into(),
        });
    }
    if !Limit::Modes.admits(modes.len() as u64) {
        p.err(
            &n.span,
            Limit::Modes
                .exceeded(schedule, modes.len() as u64)
                .to_string(),
        )
        .help = Some(limits::help(Limit::Modes).into());
        modes.truncate(MAX_MODES);
    }
    check_const_names(
        p,
        modes
            .iter()
            .zip(&spans)
            .map(|(m, s)| (m.name.as_str(), Some(s.clone())))
            .collect::<Vec<_>>()
            .into_iter(),
        "mode",
    );
    modes
}

fn parse_engines(p: &mut Parser, n: Option<&Node>, profile: Option<Profile>) -> Vec<Engine> {
    let mut engines: Vec<Engine> = Vec::new();
    let Some(n) = n else {
        p.err(&(0..0), "the schedule has no `[engines]` table");
        return engines;
    };
    let Some(mut f) = p.ok(read::table(&p.src, n, "`engines`")) else {
        return engines;
    };
    for kind in Kind::ALL {
        let Some(list) = f.value(kind.key()) else {
            continue;
        };
        let Some(items) = p.ok(read::array(
            &p.src,
            list,
            &format!("`engines.{}`", kind.key()),
        )) else {
            continue;
        };
        for (pos, item) in items.iter().enumerate() {
            let Some(mut ef) = p.ok(read::table(&p.src, item, "an engine")) else {
                continue;
            };
            let Some(name_node) = ef.value("name") else {
                p.err(
                    &item.span,
                    format!("a `{}` engine has no `name`", kind.key()),
                );
                continue;
            };
            let Some(name) = p.ok(read::check_name(&p.src, name_node, "engine `name`")) else {
                continue;
            };
            let instance_node = ef.value(kind.instance_key());
            let instance = p.int_or(
                instance_node,
                &format!("`{}`", kind.instance_key()),
                (0, 255),
                pos as i64,
            );
            let capacity_node = ef.value("queue_capacity");
            let capacity = p
                .int_or(
                    capacity_node,
                    "`queue_capacity`",
                    (1, i64::from(u16::MAX)),
                    i64::from(kind.default_queue_capacity()),
                )
                .map(|c| c as u16);
            let what = format!("engine `{name}`");
            let cpu_wait = ef
                .value("cpu_wait")
                .and_then(|n| parse_cpu_wait(p, n, &what));
            let graph = ef
                .value("submit")
                .and_then(|n| parse_submit(p, n, kind, &what));
            let vpu_node = ef.value("vpu");
            let vpu = parse_vpu(p, vpu_node, kind, &what);
            let thread = parse_thread(p, &mut ef, kind, &what, profile);
            p.unknown(
                &ef,
                &[
                    "name",
                    kind.instance_key(),
                    "queue_capacity",
                    "cpu_wait",
                    "submit",
                    "vpu",
                    "priority",
                    "cpus",
                ],
                &what,
            );
            let (Some(instance), Some(queue_capacity)) = (instance, capacity) else {
                continue;
            };
            let instance = instance as u8;
            let inst_span = instance_node.map_or(name_node.span.clone(), |n| n.span.clone());
            if let Some(prof) = profile {
                let limit = match kind {
                    Kind::Dla => Some(prof.dla_cores()),
                    Kind::Pva => Some(prof.pva_engines()),
                    _ => None,
                };
                if let Some(limit) = limit
                    && instance >= limit
                {
                    p.err(
                        &inst_span,
                        format!(
                            "{} engine `{name}`: {} {instance} does not exist on profile `{}` ({limit} available)",
                            kind.upper(),
                            kind.instance_key(),
                            prof.name()
                        ),
                    );
                }
            }
            if engines.iter().any(|e| e.name == name) {
                p.err(
                    &name_node.span,
                    format!("engine `{name}` is declared twice"),
                );
                continue;
            }
            // Two PVA engines share a PVA when their VPUs differ; one VPU is one FIFO.
            if let Some(other) = engines.iter().find(|e| {
                e.kind == kind
                    && e.instance == instance
                    && e.vpu.zip(vpu).is_none_or(|(a, b)| a.overlaps(b))
            }) && kind == Kind::Pva
            {
                p.err(
                    &vpu_node.map_or(inst_span.clone(), |n| n.span.clone()),
                    format!(
                        "PVA engines `{}` and `{name}` can both run on a VPU of PVA {instance} ({} and {})",
                        other.name,
                        other.vpu.map_or("", vpu_text),
                        vpu.map_or("", vpu_text)
                    ),
                )
                .notes
                .push(
                    "the validator treats each engine as the only user of its VPUs (its FIFO order and WCETs bound the timeline); the PVA firmware's order between two streams on one VPU is not documented, so it cannot bound their contention"
                        .into(),
                );
                p.diags.last_mut().expect("just pushed").help = Some(
                    "give them different VPUs (`vpu = \"vpu0\"` and `vpu = \"vpu1\"`), or put both tasks on one engine"
                        .into(),
                );
                continue;
            }
            if let Some(other) = engines
                .iter()
                .find(|e| e.kind == kind && e.instance == instance && kind != Kind::Pva)
            {
                p.err(
                    &inst_span,
                    format!(
                        "engines `{}` and `{name}` are both {} {} {instance}",
                        other.name,
                        kind.upper(),
                        kind.instance_key()
                    ),
                )
                .notes
                .push("each engine instance is one FIFO queue; declare it once and put both tasks on it".into());
                continue;
            }
            engines.push(Engine {
                name,
                kind,
                instance,
                queue_capacity,
                cpu_wait,
                graph: graph.unwrap_or(false),
                vpu,
                thread,
                span: name_node.span.clone(),
                capacity_span: capacity_node.map(|n| n.span.clone()),
            });
        }
    }
    p.unknown(&f, &["cpu", "gpu", "dla", "pva"], "`[engines]`");
    if engines.len() > 256 {
        p.err(
            &n.span,
            format!(
                "{} engines declared; at most 256 fit an `EngineId`",
                engines.len()
            ),
        );
    }
    let names: Vec<(String, Span)> = engines
        .iter()
        .map(|e| (e.name.clone(), e.span.clone()))
        .collect();
    check_const_names(
        p,
        names.iter().map(|(n, s)| (n.as_str(), Some(s.clone()))),
        "engine",
    );
    engines
}

/// How messages and reports name a VPU affinity.
pub(crate) fn vpu_text(vpu: VpuAffinity) -> &'static str {
    match vpu {
        VpuAffinity::Vpu0 => "vpu0",
        VpuAffinity::Vpu1 => "vpu1",
        VpuAffinity::Any => "any VPU",
    }
}

/// `, vpu0` (how reports add a PVA engine's affinity to its index), empty for other engines.
pub(crate) fn vpu_suffix(vpu: Option<VpuAffinity>) -> String {
    vpu.map_or(String::new(), |v| format!(", {}", vpu_text(v)))
}

/// A PVA engine's `vpu` (`"vpu0"`, `"vpu1"` or `"any"`, the default): `Some` on every PVA
/// engine, `None` on the others (where the key is refused).
fn parse_vpu(p: &mut Parser, n: Option<&Node>, kind: Kind, what: &str) -> Option<VpuAffinity> {
    if kind != Kind::Pva {
        if let Some(n) = n {
            p.err(
                &n.span,
                format!(
                    "`vpu` of {what}: only PVA engines have a VPU affinity, this is a {} engine",
                    kind.upper()
                ),
            );
        }
        return None;
    }
    let Some(n) = n else {
        return Some(VpuAffinity::Any);
    };
    match p.ok(read::string(&p.src, n, &format!("`vpu` of {what}")))? {
        "vpu0" => Some(VpuAffinity::Vpu0),
        "vpu1" => Some(VpuAffinity::Vpu1),
        "any" => Some(VpuAffinity::Any),
        other => {
            p.err(&n.span, format!("unknown VPU `{other}` for {what}"))
                .notes
                .push("expected one of: `vpu0`, `vpu1`, `any` (each PVA has two VPUs)".into());
            // Read as `any`, so that the contention check still sees the engine.
            Some(VpuAffinity::Any)
        }
    }
}

/// The top-level `[executive]` table: the executive thread's `priority` and `cpus`.
fn parse_executive(p: &mut Parser, n: Option<&Node>, profile: Option<Profile>) -> ThreadSpec {
    let Some(n) = n else {
        return ThreadSpec::default();
    };
    let Some(mut f) = p.ok(read::table(&p.src, n, "`executive`")) else {
        return ThreadSpec::default();
    };
    let thread = parse_thread(p, &mut f, Kind::Cpu, "`[executive]`", profile);
    p.unknown(&f, &["priority", "cpus"], "`[executive]`");
    thread
}

/// `priority` (`SCHED_FIFO`, 1..=`MAX_FIFO_PRIORITY`) and `cpus` (distinct CPU numbers below
/// the profile's core count) of a thread: the executive (`kind` CPU) or a CPU engine's
/// worker; other engines have no thread of their own.
fn parse_thread(
    p: &mut Parser,
    f: &mut Fields<'_>,
    kind: Kind,
    what: &str,
    profile: Option<Profile>,
) -> ThreadSpec {
    let mut spec = ThreadSpec::default();
    let max = orin_exec_table::MAX_FIFO_PRIORITY;
    for key in ["priority", "cpus"] {
        if kind != Kind::Cpu
            && let Some(n) = f.value(key)
        {
            p.err(
                &n.span,
                format!("{what}: `{key}` applies to CPU engines and the executive only"),
            )
            .notes
            .push(format!(
                "a {} engine is driven by the executive's thread; set the executive's `{key}` in `[executive]`",
                kind.upper()
            ));
        }
    }
    if kind != Kind::Cpu {
        return spec;
    }
    if let Some(n) = f.value("priority") {
        let what = format!("{what}: `priority`");
        match read::int_in(&p.src, n, &what, 1, i64::from(max)) {
            Ok(v) => spec.priority = v as u8,
            Err(mut d) => {
                d.notes.push(format!(
                    "a SCHED_FIFO priority valid on Linux (1..=99) and QNX 7.1 (1..=255, above 63 with PROCMGR_AID_PRIORITY): 1..={max}"
                ));
                p.diags.push(d);
            }
        }
    }
    let Some(n) = f.value("cpus") else {
        return spec;
    };
    let Some(items) = p.ok(read::array(&p.src, n, &format!("{what}: `cpus`"))) else {
        return spec;
    };
    if items.is_empty() {
        p.err(
            &n.span,
            format!("{what}: `cpus` is empty; list at least one CPU, or leave `cpus` out to run on any CPU"),
        );
    }
    let cores = profile.and_then(Profile::cpu_cores);
    let limit = cores.map_or(63, |c| i64::from(c) - 1);
    for item in items {
        let Some(cpu) = p.ok(read::int_in(
            &p.src,
            item,
            &format!("{what}: each CPU of `cpus`"),
            0,
            limit,
        )) else {
            if let (Some(c), Some(prof)) = (cores, profile) {
                let last = p.diags.len() - 1;
                p.diags[last].notes.push(format!(
                    "profile `{}` has {c} CPU cores, numbered 0..={}",
                    prof.name(),
                    c - 1
                ));
            }
            continue;
        };
        let cpu = cpu as u8;
        if spec.cpus & (1 << cpu) != 0 {
            p.err(
                &item.span,
                format!("{what}: CPU {cpu} is listed twice in `cpus`"),
            );
            continue;
        }
        spec.cpus |= 1 << cpu;
        spec.cpu_spans.push((cpu, item.span.clone()));
    }
    spec
}

/// Two runtime threads pinned to a common CPU: allowed, but the worst-case timeline treats
/// every CPU engine and the executive as running on a CPU of its own.
fn warn_shared_cpus(p: &mut Parser, executive: &ThreadSpec, engines: &[Engine]) {
    let threads: Vec<(String, &ThreadSpec)> =
        std::iter::once(("the executive".to_owned(), executive))
            .chain(
                engines
                    .iter()
                    .filter(|e| e.kind == Kind::Cpu)
                    .map(|e| (format!("worker `{}`", e.name), &e.thread)),
            )
            .collect();
    for (i, (b_name, b)) in threads.iter().enumerate() {
        for (a_name, a) in &threads[..i] {
            let shared = a.cpus & b.cpus;
            // Only a thread pinned to shared CPUs alone is sure to compete for them.
            if shared == 0 || (a.cpus != shared && b.cpus != shared) {
                continue;
            }
            let Some((cpu, span)) = b.cpu_spans.iter().find(|(c, _)| shared & (1 << c) != 0) else {
                continue;
            };
            let mut d = p.src.warning(
                span,
                format!("{a_name} and {b_name} are both pinned to CPU {cpu}"),
            );
            d.notes.push(
                "the worst-case timeline gives every CPU worker and the executive a CPU of its own: \
                 on a shared CPU a task also waits while the other thread runs (under SCHED_FIFO, \
                 for all of a higher-priority thread's work), so include that in the WCETs or pin \
                 them to different CPUs"
                    .into(),
            );
            p.diags.push(d);
        }
    }
}

fn parse_buffer(p: &mut Parser, n: &Node) -> Option<(String, Option<BufferDecl>)> {
    let mut f = p.ok(read::table(&p.src, n, "each `[[buffer]]`"))?;
    let Some(name_node) = f.value("name") else {
        p.err(&n.span, "a `[[buffer]]` has no `name`");
        return None;
    };
    let name = p.ok(read::check_name(&p.src, name_node, "buffer `name`"))?;
    let what = format!("buffer `{name}`");
    let kind_node = f.value("kind");
    let kind = match kind_node {
        Some(k) => p.ok(read::string(&p.src, k, "`kind`")).map(str::to_owned),
        None => {
            p.err(
                &name_node.span,
                format!("{what} has no `kind` (\"raw\", \"tensor\" or \"pinned\")"),
            );
            None
        }
    };
    let has_size = f.rest().any(|(k, _)| k.name == "size");
    let size = match f.take("size") {
        Some((_, v)) => p
            .ok(read::int_in(
                &p.src,
                v,
                &format!("`size` of {what}"),
                1,
                i64::MAX,
            ))
            .map(|s| (s as u64, v.span.clone())),
        None => None,
    };
    let dims = match f.take("dims") {
        Some((_, v)) => p.ok(manifest::dims(&p.src, v)).map(|d| (d, v.span.clone())),
        None => None,
    };
    let data_type = match f.value("data_type") {
        Some(v) => match p.ok(read::string(&p.src, v, "`data_type`")) {
            Some(s) => match DataType::parse(s) {
                Some(dt) => Some((dt, v.span.clone())),
                None => {
                    p.err(&v.span, format!("unknown data type `{s}`"))
                        .notes
                        .push("expected one of: `int8`, `uint8`, `float16`, `float32`".into());
                    None
                }
            },
            None => None,
        },
        None => None,
    };
    let align = match f.value("align") {
        Some(v) => match p.ok(read::int_in(
            &p.src,
            v,
            &format!("`align` of {what}"),
            1,
            1 << 30,
        )) {
            Some(a) if (a as u64).is_power_of_two() => Some((a as u64, v.span.clone())),
            Some(a) => {
                p.err(
                    &v.span,
                    format!("`align` of {what} must be a power of two, found {a}"),
                );
                None
            }
            None => None,
        },
        None => None,
    };
    let multiplicity = p
        .int_or(
            f.value("multiplicity"),
            &format!("`multiplicity` of {what}"),
            (1, 255),
            1,
        )
        .map(|m| m as u8);
    if let (Some(m), Some(node)) = (multiplicity, f.value("multiplicity"))
        && !Limit::Multiplicity.admits(u64::from(m))
    {
        p.err(
            &node.span,
            Limit::Multiplicity
                .exceeded(&name, u64::from(m))
                .to_string(),
        )
        .help = Some(limits::help(Limit::Multiplicity).into());
    }
    p.unknown(
        &f,
        &[
            "name",
            "kind",
            "size",
            "dims",
            "data_type",
            "align",
            "multiplicity",
        ],
        &what,
    );
    let kind = kind?;
    let kind_span = kind_node
        .map(|k| k.span.clone())
        .unwrap_or_else(|| name_node.span.clone());
    match kind.as_str() {
        "raw" | "pinned" => {
            if !has_size {
                p.err(
                    &name_node.span,
                    format!("{kind} {what} has no `size` (bytes)"),
                );
            }
            if kind == "pinned"
                && let Some((_, span)) = &align
            {
                p.err(
                    span,
                    format!("pinned {what} is always page-aligned (4096); remove `align`"),
                );
            }
            for (key, span) in [
                ("dims", dims.as_ref().map(|d| &d.1)),
                ("data_type", data_type.as_ref().map(|d| &d.1)),
            ] {
                if let Some(span) = span {
                    p.err(
                        span,
                        format!("`{key}` is for tensor buffers; {what} is {kind} (use `size`)"),
                    );
                }
            }
        }
        "tensor" => {
            if let Some((_, span)) = &size {
                p.err(
                    span,
                    format!("tensor {what} takes `dims` and `data_type`, not `size`"),
                );
            }
        }
        other => {
            p.err(&kind_span, format!("unknown buffer kind `{other}`"))
                .notes
                .push("expected one of: `raw`, `tensor`, `pinned`".into());
            return Some((name, None));
        }
    }
    Some((
        name,
        Some(BufferDecl {
            kind,
            size: size.map(|s| s.0),
            dims,
            data_type,
            align,
            multiplicity: multiplicity.unwrap_or(1),
            span: name_node.span.clone(),
        }),
    ))
}

struct TaskCx<'a> {
    period: u64,
    minor_frames: Vec<u64>,
    engines: &'a [Engine],
    buffers: &'a [(String, Option<BufferDecl>)],
    modes: &'a [Mode],
    task_names: &'a [(String, Span)],
    kernels: Option<&'a (manifest::Manifest<manifest::Module>, Span)>,
    loadables: Option<&'a (manifest::Manifest<manifest::Loadable>, Span)>,
    programs: Option<&'a (manifest::Manifest<manifest::PvaProgram>, Span)>,
    /// Referenced modules, loadables and PVA programs (name, first reference), in order of
    /// first use.
    used_cubins: Vec<(String, Span)>,
    used_loadables: Vec<(String, Span)>,
    used_programs: Vec<(String, Span)>,
}

fn parse_task(p: &mut Parser, cx: &mut TaskCx<'_>, n: &Node, index: usize) -> Option<Task> {
    let mut f = Fields::of(n)?;
    let (name, name_span) = cx.task_names[index].clone();
    if name.is_empty() {
        return None;
    }
    let _ = f.take("name");
    let what = format!("task `{name}`");
    let mut ok = true;
    let cpu_wait = match f.value("cpu_wait") {
        Some(n) => {
            let w = parse_cpu_wait(p, n, &what);
            ok &= w.is_some();
            w
        }
        None => None,
    };

    // Engine.
    let engine = match f.value("engine") {
        Some(v) => p.named(v, "engine", cx.engines.iter().map(|e| e.name.as_str())),
        None => {
            p.err(&name_span, format!("{what} has no `engine`"));
            None
        }
    };
    let kind = engine.map(|e| cx.engines[e].kind);

    // Which kind-specific keys are present (before any is taken).
    let owners = [
        (CPU_KEYS, Kind::Cpu),
        (GPU_KEYS, Kind::Gpu),
        (DLA_KEYS, Kind::Dla),
        (PVA_KEYS, Kind::Pva),
    ];
    // Each kind-specific key with its first owner, unless the task's own kind has it too
    // (`params` is a GPU and a PVA key).
    let own_keys = owners
        .iter()
        .find(|(_, owner)| Some(*owner) == kind)
        .map_or(&[][..], |(keys, _)| *keys);
    let mut misplaced: Vec<(node::Key, Kind)> = Vec::new();
    for (keys, owner) in owners {
        for (key, _) in f.rest() {
            let k = key.name.as_str();
            if keys.contains(&k)
                && !own_keys.contains(&k)
                && !misplaced.iter().any(|(m, _)| m.name == k)
            {
                misplaced.push((key.clone(), owner));
            }
        }
    }

    // Times.
    let mut time = |p: &mut Parser, key: &str| -> Option<(u64, Span)> {
        let v = f.value(key)?;
        let d = p.ok(read::duration(&p.src, v, &format!("`{key}` of {what}")));
        if d.is_none() {
            ok = false;
        }
        d.map(|d| (d, v.span.clone()))
    };
    let wcet = time(p, "wcet");
    let budget = time(p, "budget");
    let deadline = time(p, "deadline");
    let release = time(p, "release");
    let wcet = match wcet {
        Some((0, span)) => {
            p.err(&span, format!("`wcet` of {what} must be positive"));
            ok = false;
            0
        }
        Some((w, _)) => w,
        None => {
            if ok {
                p.err(&name_span, format!("{what} has no `wcet`"));
            }
            ok = false;
            0
        }
    };
    let budget = match budget {
        Some((b, span)) if b < wcet => {
            p.err(
                &span,
                format!(
                    "`budget` {} of {what} is below its `wcet` {}",
                    ms(b),
                    ms(wcet)
                ),
            )
            .notes
            .push("a task running for its WCET would be reported as a budget overrun".into());
            b
        }
        Some((b, _)) => b,
        None => wcet,
    };
    let (deadline, deadline_span) = match deadline {
        Some((0, span)) => {
            p.err(&span, format!("`deadline` of {what} must be positive"));
            (cx.period, Some(span))
        }
        Some((d, span)) if d > cx.period => {
            p.err(
                &span,
                format!(
                    "`deadline` {} of {what} is after the end of the period {}",
                    ms(d),
                    ms(cx.period)
                ),
            );
            (d, Some(span))
        }
        Some((d, span)) => (d, Some(span)),
        None => (cx.period, None),
    };

    let mut release_ns = 0;
    if let Some(kind) = kind {
        for (key, owner) in &misplaced {
            if *owner != kind {
                let engine = &cx.engines[engine.unwrap_or(0)];
                let d = p.err(
                    &key.span,
                    format!(
                        "`{}` is a {} task field, but {what} runs on {} engine `{}`",
                        key.name,
                        owner.upper(),
                        kind.upper(),
                        engine.name
                    ),
                );
                if *owner == Kind::Cpu {
                    d.notes.push(
                        "accelerator tasks have no release offset: they start when their dependencies and their queue allow"
                            .into(),
                    );
                }
                ok = false;
            }
        }
        if kind == Kind::Cpu {
            let minor = match f.value("minor_frame") {
                Some(v) => {
                    let max = cx.minor_frames.len() as i64 - 1;
                    match p.ok(read::int_in(&p.src, v, "`minor_frame`", 0, i64::MAX)) {
                        Some(k) if k > max => {
                            p.err(
                                &v.span,
                                format!("{what}: minor frame {k} does not exist (the period has {} minor frames, numbered from 0)", max + 1),
                            );
                            ok = false;
                            None
                        }
                        Some(k) => Some(k as usize),
                        None => {
                            ok = false;
                            None
                        }
                    }
                }
                None => None,
            };
            let base = minor.map_or(0, |k| cx.minor_frames[k]);
            let offset = release.as_ref().map_or(0, |r| r.0);
            if let Some(k) = minor {
                let end = cx.minor_frames.get(k + 1).copied().unwrap_or(cx.period);
                if offset >= end - base
                    && let Some((_, span)) = &release
                {
                    p.err(
                        span,
                        format!(
                            "`release` {} of {what} is beyond minor frame {k} ({}..{})",
                            ms(offset),
                            ms(base),
                            ms(end)
                        ),
                    );
                    ok = false;
                }
            }
            release_ns = base.saturating_add(offset);
            if release_ns >= deadline && (release.is_some() || minor.is_some()) {
                let span = release
                    .as_ref()
                    .map(|r| r.1.clone())
                    .unwrap_or_else(|| name_span.clone());
                p.err(
                    &span,
                    format!(
                        "{what} is released at {} but its deadline is {}",
                        ms(release_ns),
                        ms(deadline)
                    ),
                );
                ok = false;
            }
        }
    }
    for key in GPU_KEYS
        .iter()
        .chain(DLA_KEYS)
        .chain(CPU_KEYS)
        .chain(PVA_KEYS)
    {
        let _ = f.take(key);
    }

    // Modes.
    let modes = match f.value("modes") {
        Some(v) => {
            let mut mask = 0u32;
            match p.ok(read::strings(&p.src, v, "`modes`")) {
                Some(list) => {
                    for (m, node) in list {
                        match p.resolve(
                            cx.modes.iter().map(|m| m.name.as_str()),
                            m,
                            &node.span,
                            "mode",
                        ) {
                            Some(i) if mask & (1 << i) != 0 => {
                                p.err(&node.span, format!("mode `{m}` is listed twice"));
                            }
                            Some(i) => mask |= 1 << i,
                            None => ok = false,
                        }
                    }
                    if list_is_empty(v) {
                        p.err(
                            &v.span,
                            format!("{what} runs in no mode (`modes` is empty)"),
                        );
                    }
                }
                None => ok = false,
            }
            mask
        }
        None => all_modes(cx.modes.len()),
    };

    // Buffer accesses.
    let mut accesses: Vec<Access> = Vec::new();
    for (key, write) in [("reads", false), ("writes", true)] {
        let Some(v) = f.value(key) else { continue };
        let Some(list) = p.ok(read::strings(&p.src, v, &format!("`{key}`"))) else {
            ok = false;
            continue;
        };
        for (b, node) in list {
            match p.resolve(
                cx.buffers.iter().map(|(n, _)| n.as_str()),
                b,
                &node.span,
                "buffer",
            ) {
                Some(i) if accesses.iter().any(|a| a.buffer == i && a.write == write) => {
                    p.err(
                        &node.span,
                        format!("buffer `{b}` is listed twice in `{key}` of {what}"),
                    );
                }
                Some(i) => accesses.push(Access {
                    buffer: i,
                    write,
                    span: node.span.clone(),
                }),
                None => ok = false,
            }
        }
    }

    // Dependencies.
    let mut after: Vec<Dep> = Vec::new();
    if let Some(v) = f.value("after") {
        match p.ok(read::strings(&p.src, v, "`after`")) {
            Some(list) => {
                for (text, node) in list {
                    let (target, lag) = match text.split_once('@') {
                        Some((t, l)) => {
                            let lag = l
                                .strip_prefix('-')
                                .and_then(|k| k.parse::<u64>().ok())
                                .filter(|&k| k >= 1);
                            let Some(lag) = lag else {
                                p.err(
                                    &node.span,
                                    format!("`{text}`: the frame offset must be `@-k` with k ≥ 1 (e.g. `{t}@-1` = the previous frame)"),
                                );
                                ok = false;
                                continue;
                            };
                            (t, lag)
                        }
                        None => (text, 0),
                    };
                    // Within it, the `u8` of `Wait::lag` and the 512 timestamps a semaphore
                    // keeps (lag + lookahead + 1 values outstanding) hold too.
                    if !Limit::Lag.admits(lag) {
                        p.err(&node.span, Limit::Lag.exceeded(&name, lag).to_string())
                            .help = Some(limits::help(Limit::Lag).into());
                        ok = false;
                        continue;
                    }
                    match p.resolve(
                        cx.task_names.iter().map(|(n, _)| n.as_str()),
                        target,
                        &node.span,
                        "task",
                    ) {
                        Some(t) if after.iter().any(|d| d.task == t && u64::from(d.lag) == lag) => {
                            p.err(
                                &node.span,
                                format!("`{text}` is listed twice in `after` of {what}"),
                            );
                        }
                        Some(t) => after.push(Dep {
                            task: t,
                            lag: lag as u8,
                            span: node.span.clone(),
                        }),
                        None => ok = false,
                    }
                }
            }
            None => ok = false,
        }
    }

    // The work item.
    let work = match kind {
        Some(Kind::Cpu) => Some(Work::Cpu),
        Some(Kind::Gpu) => parse_gpu(p, cx, n, &what, &accesses),
        Some(Kind::Dla) => parse_dla(p, cx, n, &what, &mut accesses),
        Some(Kind::Pva) => parse_pva(p, cx, n, &what, &mut accesses),
        None => None,
    };
    p.unknown(&f, TASK_KEYS, &what);
    let (Some(engine), Some(work), true) = (engine, work, ok) else {
        return None;
    };
    Some(Task {
        name,
        span: name_span,
        engine,
        work,
        wcet,
        budget,
        deadline,
        deadline_span,
        release: release_ns,
        accesses,
        after,
        modes,
        cpu_wait,
    })
}

fn list_is_empty(n: &Node) -> bool {
    matches!(&n.value, Value::Array(a) if a.is_empty())
}

/// Grid or block dimensions: an integer or an array of 1 to 3 positive integers.
fn dim3(p: &mut Parser, n: &Node, what: &str, limits: [i64; 3]) -> Option<[u32; 3]> {
    let items: Vec<&Node> = match &n.value {
        Value::Int(_) => vec![n],
        Value::Array(items) if (1..=3).contains(&items.len()) => items.iter().collect(),
        _ => {
            p.err(
                &n.span,
                format!("{what} must be an integer or an array of 1 to 3 integers"),
            );
            return None;
        }
    };
    let mut out = [1u32; 3];
    for (i, item) in items.iter().enumerate() {
        let axis = ["x", "y", "z"][i];
        match &item.value {
            Value::Int(0) => {
                p.err(&item.span, format!("{what}: dimension {axis} is 0"));
                return None;
            }
            _ => {
                out[i] = p.ok(read::int_in(
                    &p.src,
                    item,
                    &format!("{what} {axis}"),
                    1,
                    limits[i],
                ))? as u32
            }
        }
    }
    Some(out)
}

/// The manifest item `name` that `what` (a task) names at `v`; the first use of each goes to
/// `used`.
fn use_item<'m, T: manifest::Item>(
    p: &mut Parser,
    manifest: Option<&'m (manifest::Manifest<T>, Span)>,
    used: &mut Vec<(String, Span)>,
    name: &str,
    v: &Node,
    what: &str,
) -> Option<&'m T> {
    let Some((m, _)) = manifest else {
        p.err(
            &v.span,
            format!(
                "{what} uses {} `{name}`, but the schedule has no `{}`",
                T::NOUN,
                T::MANIFEST_KEY
            ),
        );
        return None;
    };
    let i = p.resolve(m.items.iter().map(|x| x.name()), name, &v.span, T::KIND)?;
    if !used.iter().any(|(u, _)| u == name) {
        used.push((name.to_owned(), v.span.clone()));
    }
    Some(&m.items[i])
}

fn parse_gpu(
    p: &mut Parser,
    cx: &mut TaskCx<'_>,
    n: &Node,
    what: &str,
    accesses: &[Access],
) -> Option<Work> {
    let mut f = Fields::of(n)?;
    let mut ok = true;
    let cubin_node = f.value("cubin");
    let kernel_node = f.value("kernel");
    let module = match cubin_node {
        None => {
            p.err(
                &n.span,
                format!("GPU {what} has no `cubin` (module name from the kernels manifest)"),
            );
            None
        }
        Some(v) => {
            let name = p.ok(read::string(&p.src, v, "`cubin`"))?;
            use_item(p, cx.kernels, &mut cx.used_cubins, name, v, what)
        }
    };
    let kernel = match kernel_node {
        None => {
            p.err(&n.span, format!("GPU {what} has no `kernel`"));
            None
        }
        Some(v) => p
            .ok(read::string(&p.src, v, "`kernel`"))
            .map(|k| (k.to_owned(), v)),
    };
    let mut signature: Option<Vec<Option<ParamKind>>> = None;
    if let (Some(m), Some((k, v))) = (module, &kernel) {
        match m.kernels.iter().find(|x| &x.name == k) {
            Some(info) => signature = info.params.clone(),
            None if m.kernels.is_empty() => {}
            None => {
                let names: Vec<&str> = m.kernels.iter().map(|x| x.name.as_str()).collect();
                p.err(
                    &v.span,
                    format!("unknown kernel `{k}` in cubin `{}`", m.name),
                )
                .did_you_mean(k, names.iter().copied(), || {
                    format!("cubin `{}` has: {}", m.name, quoted(&names))
                });
                ok = false;
            }
        }
    }
    // The parameter layout recorded in the cubin itself (every SM variant must agree).
    let mut layout: Option<Vec<manifest::CubinParam>> = None;
    if let (Some(m), Some((k, v))) = (module, &kernel) {
        match m.cubin_kernel(k) {
            Ok(found) => layout = found.map(|c| c.params.clone()),
            Err(msg) => {
                p.err(&v.span, msg);
                ok = false;
            }
        }
    }
    let grid = match f.value("grid") {
        Some(v) => dim3(p, v, "`grid`", [i64::from(i32::MAX), 65535, 65535]),
        None => {
            p.err(&n.span, format!("GPU {what} has no `grid`"));
            None
        }
    };
    let block = match f.value("block") {
        Some(v) => {
            let b = dim3(p, v, "`block`", [1024, 1024, 64]);
            if let Some(b) = b
                && b.iter().map(|&d| u64::from(d)).product::<u64>() > 1024
            {
                p.err(
                    &v.span,
                    format!(
                        "`block` of {what} has {} threads; at most 1024",
                        b.iter().map(|&d| u64::from(d)).product::<u64>()
                    ),
                );
                ok = false;
            }
            b
        }
        None => {
            p.err(&n.span, format!("GPU {what} has no `block`"));
            None
        }
    };
    let shared_mem = p
        .int_or(
            f.value("shared_mem"),
            "`shared_mem` (bytes)",
            (0, i64::from(u32::MAX)),
            0,
        )
        .map(|s| s as u32);
    let mut params = Vec::new();
    let mut param_spans = Vec::new();
    let params_node = f.value("params");
    if let Some(v) = params_node {
        match p.ok(read::array(&p.src, v, "`params`")) {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    let expected = signature.as_ref().and_then(|s| s.get(i).copied().flatten());
                    match parse_param(p, cx, item, what, accesses, expected) {
                        Some(param) => {
                            params.push(param);
                            param_spans.push(item.span.clone());
                        }
                        None => ok = false,
                    }
                }
            }
            None => ok = false,
        }
    }
    if let (Some(sig), Some((k, v))) = (&signature, &kernel)
        && sig.len() != params.len()
        && ok
    {
        let span = params_node.map_or(v.span.clone(), |n| n.span.clone());
        let kinds: Vec<&str> = sig.iter().map(|k| k.map_or("?", ParamKind::key)).collect();
        p.err(
            &span,
            format!(
                "kernel `{k}` takes {} parameters, but {what} passes {}",
                sig.len(),
                params.len()
            ),
        )
        .notes
        .push(format!("signature: ({})", kinds.join(", ")));
        ok = false;
    }
    if let (Some(layout), Some((k, v)), true) = (&layout, &kernel, ok) {
        ok = check_layout(p, k, v, params_node, what, layout, &params, &param_spans);
    }
    let (Some(module), Some((kernel, _)), Some(grid), Some(block), Some(shared_mem), true) =
        (module, kernel, grid, block, shared_mem, ok)
    else {
        return None;
    };
    Some(Work::Gpu {
        cubin: cx.used_cubins.iter().position(|(c, _)| *c == module.name)?,
        kernel,
        grid,
        block,
        shared_mem,
        params,
    })
}

/// Checks the parameters a task passes against the layout its kernel's cubin records
/// (`.nv.info.<kernel>`): the count, then each value's size, with the kernel and the
/// parameter index. True when they agree.
#[allow(clippy::too_many_arguments)]
fn check_layout(
    p: &mut Parser,
    kernel: &str,
    kernel_node: &Node,
    params_node: Option<&Node>,
    what: &str,
    layout: &[manifest::CubinParam],
    params: &[Param],
    spans: &[Span],
) -> bool {
    let describe = || {
        let slots: Vec<String> = layout
            .iter()
            .enumerate()
            .map(|(i, c)| format!("#{i}: {} bytes at offset {}", c.size, c.offset))
            .collect();
        format!(
            "the cubin's `.nv.info.{kernel}` records: {}",
            slots.join(", ")
        )
    };
    if layout.len() != params.len() {
        let span = params_node.map_or(kernel_node.span.clone(), |n| n.span.clone());
        p.err(
            &span,
            format!(
                "kernel `{kernel}` takes {} parameters (from its cubin), but {what} passes {}",
                layout.len(),
                params.len()
            ),
        )
        .notes
        .push(describe());
        return false;
    }
    let mut ok = true;
    for (i, ((param, cubin), span)) in params.iter().zip(layout).zip(spans).enumerate() {
        let size = param.size();
        if u64::from(cubin.size) != size {
            p.err(
                span,
                format!(
                    "parameter {i} of kernel `{kernel}` is {} bytes in the cubin (offset {}), but {what} passes {} ({size} bytes)",
                    cubin.size,
                    cubin.offset,
                    param.describe()
                ),
            )
            .notes
            .push(describe());
            ok = false;
        }
    }
    ok
}

/// A GPU kernel parameter: [`read_param`], and a buffer must be in the task's lists.
fn parse_param(
    p: &mut Parser,
    cx: &TaskCx<'_>,
    n: &Node,
    what: &str,
    accesses: &[Access],
    expected: Option<ParamKind>,
) -> Option<Param> {
    let declared = expected.map(|k| (k, "the kernel's signature"));
    let param = read_param(p, cx, n, what, "kernel parameter", declared)?;
    if let Param::Buffer(b) = param
        && !accesses.iter().any(|a| a.buffer == b)
    {
        let (name, span) = (&cx.buffers[b].0, &param_value(n).span);
        p.err(
            span,
            format!("{what} passes buffer `{name}` to its kernel but lists it in neither `reads` nor `writes`"),
        )
        .help = Some(format!("add `\"{name}\"` to `reads` or `writes`"));
        return None;
    }
    Some(param)
}

/// The value node of a one-key parameter table (the table itself when it is not one).
fn param_value(n: &Node) -> &Node {
    match &n.value {
        Value::Table(e) if e.len() == 1 => &e[0].1,
        _ => n,
    }
}

/// A parameter value `{ buffer = "name" }`, `{ u32 = 1 }`, ... of `what` (a task); `param`
/// names it in messages, `declared` is the kind its kernel or program declares and where.
fn read_param(
    p: &mut Parser,
    cx: &TaskCx<'_>,
    n: &Node,
    what: &str,
    param: &str,
    declared: Option<(ParamKind, &str)>,
) -> Option<Param> {
    let entries = match &n.value {
        Value::Table(e) if e.len() == 1 => e,
        _ => {
            p.err(&n.span, format!("each {param} must be a table with one key: `{{ buffer = \"name\" }}`, `{{ u32 = 1 }}`, `{{ i32 = -1 }}`, `{{ u64 = 1 }}` or `{{ f32 = 1.0 }}`"));
            return None;
        }
    };
    let (key, v) = &entries[0];
    let Some(kind) = ParamKind::parse(&key.name).filter(|k| k.key() == key.name) else {
        p.err(&key.span, format!("unknown parameter kind `{}`", key.name))
            .notes
            .push("expected one of: `buffer`, `u32`, `i32`, `u64`, `f32`".into());
        return None;
    };
    if let Some((exp, source)) = declared
        && exp != kind
    {
        p.err(
            &key.span,
            format!(
                "{param} is `{}` in {source}, but {what} passes `{}`",
                exp.key(),
                kind.key()
            ),
        );
        return None;
    }
    let param = match kind {
        ParamKind::Buffer => {
            let name = p.ok(read::string(&p.src, v, "a buffer parameter"))?;
            let b = p.resolve(
                cx.buffers.iter().map(|(n, _)| n.as_str()),
                name,
                &v.span,
                "buffer",
            )?;
            Param::Buffer(b)
        }
        ParamKind::U32 => Param::U32(p.ok(read::int_in(
            &p.src,
            v,
            "a u32 parameter",
            0,
            i64::from(u32::MAX),
        ))? as u32),
        ParamKind::I32 => Param::I32(p.ok(read::int_in(
            &p.src,
            v,
            "an i32 parameter",
            i64::from(i32::MIN),
            i64::from(i32::MAX),
        ))? as i32),
        ParamKind::U64 => {
            Param::U64(p.ok(read::int_in(&p.src, v, "a u64 parameter", 0, i64::MAX))? as u64)
        }
        ParamKind::F32 => {
            let f = match &v.value {
                Value::Float(f) => *f,
                Value::Int(i) => *i as f64,
                other => {
                    p.err(
                        &v.span,
                        format!(
                            "an f32 parameter must be a number, found {}",
                            other.type_name()
                        ),
                    );
                    return None;
                }
            };
            let f32v = f as f32;
            if !f32v.is_finite() {
                p.err(&v.span, "an f32 parameter must be finite");
                return None;
            }
            Param::F32(f32v)
        }
    };
    Some(param)
}

fn parse_dla(
    p: &mut Parser,
    cx: &mut TaskCx<'_>,
    n: &Node,
    what: &str,
    accesses: &mut Vec<Access>,
) -> Option<Work> {
    let mut f = Fields::of(n)?;
    // `network` names the DLA network; `loadable` is its older spelling.
    let loadable_node = match (f.value("network"), f.value("loadable")) {
        (Some(v), Some(_)) => {
            p.err(
                &v.span,
                format!("DLA {what} has both `network` and `loadable` (write `network` only)"),
            );
            None
        }
        (Some(v), None) | (None, Some(v)) => Some(v),
        (None, None) => {
            p.err(
                &n.span,
                format!("DLA {what} has no `network` (a network of the loadables manifest)"),
            );
            None
        }
    };
    let loadable = match loadable_node {
        None => None,
        Some(v) => {
            let name = p.ok(read::string(&p.src, v, "`network`"))?;
            use_item(p, cx.loadables, &mut cx.used_loadables, name, v, what)
        }
    };
    // Explicit reads/writes of a DLA task must be bound tensors.
    let explicit: Vec<Access> = std::mem::take(accesses);
    let mut ok = true;
    let mut bind = |p: &mut Parser,
                    key: &str,
                    write: bool,
                    tensors: Option<&[manifest::Tensor]>|
     -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize, Span)> = Vec::new();
        let Some(v) = f.value(key) else {
            if let Some(t) = tensors
                && !t.is_empty()
            {
                p.err(
                    &n.span,
                    format!("DLA {what} has no `{key}` (tensor = \"buffer\")"),
                );
                ok = false;
            }
            return Vec::new();
        };
        let Some(entries) = p.ok(read::table(&p.src, v, &format!("`{key}`"))) else {
            ok = false;
            return Vec::new();
        };
        let entries: Vec<&(node::Key, Node)> = entries.rest().collect();
        let named: Vec<&str> = entries.iter().map(|(k, _)| k.name.as_str()).collect();
        for (tk, tv) in entries {
            let Some(bname) = p.ok(read::string(&p.src, tv, "a tensor binding")) else {
                ok = false;
                continue;
            };
            let Some(b) = p.resolve(
                cx.buffers.iter().map(|(n, _)| n.as_str()),
                bname,
                &tv.span,
                "buffer",
            ) else {
                ok = false;
                continue;
            };
            if let Some(tensors) = tensors
                && !tensors.iter().any(|t| t.name == tk.name)
            {
                let lname = loadable.map_or("", |l| l.name.as_str());
                let names: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
                p.err(
                    &tk.span,
                    format!(
                        "network `{lname}` has no {} tensor `{}`",
                        &key[..key.len() - 1],
                        tk.name
                    ),
                )
                .did_you_mean(&tk.name, names.iter().copied(), || {
                    format!("its {key}: {}", quoted(&names))
                });
                ok = false;
                continue;
            }
            out.push((tk.name.clone(), b, tv.span.clone()));
        }
        if let Some(tensors) = tensors {
            for t in tensors {
                if !named.contains(&t.name.as_str()) {
                    p.err(
                        &v.span,
                        format!(
                            "DLA {what} binds no buffer to {} tensor `{}`",
                            &key[..key.len() - 1],
                            t.name
                        ),
                    );
                    ok = false;
                }
            }
            out.sort_by_key(|(n, _, _)| tensors.iter().position(|t| t.name == *n));
        }
        for (_, b, span) in &out {
            accesses.push(Access {
                buffer: *b,
                write,
                span: span.clone(),
            });
        }
        out.into_iter().map(|(n, b, _)| (n, b)).collect()
    };
    let inputs = bind(p, "inputs", false, loadable.map(|l| l.inputs.as_slice()));
    let outputs = bind(p, "outputs", true, loadable.map(|l| l.outputs.as_slice()));
    for a in &explicit {
        if !accesses
            .iter()
            .any(|b| b.buffer == a.buffer && b.write == a.write)
        {
            let name = &cx.buffers[a.buffer].0;
            let (list, map) = if a.write {
                ("writes", "outputs")
            } else {
                ("reads", "inputs")
            };
            p.err(
                &a.span,
                format!(
                    "DLA {what} lists `{name}` in `{list}` but binds it to none of its `{map}`"
                ),
            )
            .notes
            .push("a DLA task touches exactly the buffers bound to its network's tensors".into());
            ok = false;
        }
    }
    let loadable = loadable?;
    let index = cx
        .used_loadables
        .iter()
        .position(|(l, _)| *l == loadable.name)?;
    ok.then_some(Work::Dla {
        loadable: index,
        inputs,
        outputs,
    })
}

/// A PVA task: `program` (from the PVA programs manifest) and `params = { symbol = value }`,
/// one value per program parameter, checked against the program's kinds. A pointer
/// parameter's buffer is read, written or both as the program declares (implied `reads` and
/// `writes`); a PVA task touches no other buffer.
fn parse_pva(
    p: &mut Parser,
    cx: &mut TaskCx<'_>,
    n: &Node,
    what: &str,
    accesses: &mut Vec<Access>,
) -> Option<Work> {
    let mut f = Fields::of(n)?;
    let program = match f.value("program") {
        None => {
            p.err(
                &n.span,
                format!("PVA {what} has no `program` (a program of the PVA programs manifest)"),
            );
            None
        }
        Some(v) => {
            let name = p.ok(read::string(&p.src, v, "`program`"))?;
            use_item(p, cx.programs, &mut cx.used_programs, name, v, what)
        }
    };
    let explicit: Vec<Access> = std::mem::take(accesses);
    let params_node = f.value("params");
    let entries: Vec<&(node::Key, Node)> = match params_node {
        Some(v) => match p.ok(read::table(
            &p.src,
            v,
            &format!("`params` of PVA {what} (`{{ symbol = {{ u32 = 1 }}, ... }}`)"),
        )) {
            Some(t) => t.rest().collect(),
            None => return None,
        },
        None => Vec::new(),
    };
    let program = program?;
    let mut ok = true;
    let mut values: Vec<Option<Param>> = vec![None; program.params.len()];
    let names: Vec<&str> = program.params.iter().map(|q| q.name.as_str()).collect();
    for (key, v) in entries {
        let Some(i) = names.iter().position(|n| *n == key.name) else {
            p.err(
                &key.span,
                format!(
                    "PVA program `{}` has no parameter `{}`",
                    program.name, key.name
                ),
            )
            .did_you_mean(&key.name, names.iter().copied(), || {
                format!("its parameters: {}", quoted(&names))
            });
            ok = false;
            continue;
        };
        let spec = &program.params[i];
        let expected = match spec.kind {
            PvaParamKind::Pointer(_) => ParamKind::Buffer,
            PvaParamKind::U32 => ParamKind::U32,
            PvaParamKind::I32 => ParamKind::I32,
            PvaParamKind::U64 => ParamKind::U64,
            PvaParamKind::F32 => ParamKind::F32,
        };
        let source = format!("PVA program `{}`", program.name);
        let Some(value) = read_param(
            p,
            cx,
            v,
            what,
            &format!("parameter `{}`", spec.name),
            Some((expected, &source)),
        ) else {
            ok = false;
            continue;
        };
        if let (Param::Buffer(b), PvaParamKind::Pointer(access)) = (value, spec.kind) {
            let span = param_value(v).span.clone();
            for write in [false, true] {
                let wanted = match access {
                    PvaAccess::Read => !write,
                    PvaAccess::Write => write,
                    PvaAccess::ReadWrite => true,
                };
                if wanted && !accesses.iter().any(|a| a.buffer == b && a.write == write) {
                    accesses.push(Access {
                        buffer: b,
                        write,
                        span: span.clone(),
                    });
                }
            }
        }
        values[i] = Some(value);
    }
    for (spec, value) in program.params.iter().zip(&values) {
        if value.is_none() && ok {
            p.err(
                params_node.map_or(&n.span, |v| &v.span),
                format!(
                    "PVA {what} passes no value for parameter `{}` of program `{}`",
                    spec.name, program.name
                ),
            )
            .notes
            .push(format!("the program's parameters: {}", quoted(&names)));
            ok = false;
        }
    }
    for a in &explicit {
        if !accesses
            .iter()
            .any(|b| b.buffer == a.buffer && b.write == a.write)
        {
            let name = &cx.buffers[a.buffer].0;
            let list = if a.write { "writes" } else { "reads" };
            p.err(
                &a.span,
                format!(
                    "PVA {what} lists `{name}` in `{list}`, but no pointer parameter of program `{}` {} it",
                    program.name,
                    if a.write { "writes" } else { "reads" }
                ),
            )
            .notes
            .push("a PVA task touches exactly the buffers its pointer parameters name, with the access the programs manifest declares".into());
            ok = false;
        }
    }
    let index = cx
        .used_programs
        .iter()
        .position(|(u, _)| *u == program.name)?;
    ok.then(|| Work::Pva {
        program: index,
        params: values.into_iter().flatten().collect(),
    })
}

fn finish_buffers(
    p: &mut Parser,
    decls: &[(String, Option<BufferDecl>)],
    tasks: &[Task],
    loadables: &[manifest::Loadable],
    engines: &[Engine],
) -> Option<Vec<Buffer>> {
    let mut out = Vec::new();
    let mut ok = true;
    for (b, (name, decl)) in decls.iter().enumerate() {
        let Some(decl) = decl else {
            ok = false;
            continue;
        };
        let what = format!("buffer `{name}`");
        // Tensors bound to this buffer: (task, tensor).
        let mut bound: Vec<(&Task, &manifest::Tensor)> = Vec::new();
        for t in tasks {
            if let Work::Dla {
                loadable,
                inputs,
                outputs,
            } = &t.work
            {
                let l = &loadables[*loadable];
                for (bindings, specs) in [(inputs, &l.inputs), (outputs, &l.outputs)] {
                    for (tensor, buf) in bindings {
                        if *buf == b
                            && let Some(spec) = specs.iter().find(|s| s.name == *tensor)
                        {
                            bound.push((t, spec));
                        }
                    }
                }
            }
        }
        let cpu_access = tasks.iter().any(|t| {
            engines[t.engine].kind == Kind::Cpu && t.accesses.iter().any(|a| a.buffer == b)
        });
        let dla_align = bound
            .iter()
            .filter_map(|(_, s)| s.align)
            .max()
            .unwrap_or(1)
            .max(512);
        let default_align = if bound.is_empty() { 256 } else { dla_align };
        let kind = match decl.kind.as_str() {
            "raw" => {
                let size = decl.size.unwrap_or(0);
                for (t, spec) in &bound {
                    if size < spec.size {
                        p.err(
                            &decl.span,
                            format!(
                                "{what} has {size} bytes, but task `{}` binds it to tensor `{}` of {} bytes",
                                t.name, spec.name, spec.size
                            ),
                        );
                        ok = false;
                    }
                }
                BufKind::Raw {
                    size,
                    align: align_for(p, decl, &bound, default_align, &what, &mut ok),
                }
            }
            "pinned" => {
                if let Some((t, spec)) = bound.first() {
                    p.err(
                        &decl.span,
                        format!(
                            "{what} is pinned host memory, but DLA task `{}` binds it to tensor `{}`",
                            t.name, spec.name
                        ),
                    )
                    .help = Some("DLA tensors must be NvSciBuf buffers: use kind = \"tensor\" or \"raw\"".into());
                    ok = false;
                }
                BufKind::Pinned {
                    size: decl.size.unwrap_or(0),
                }
            }
            _ => {
                // Tensor: explicit dims/type, or derived from the first binding; all must agree.
                let dims = decl
                    .dims
                    .as_ref()
                    .map(|d| d.0)
                    .or_else(|| bound.first().map(|(_, s)| s.dims));
                let data_type = decl
                    .data_type
                    .as_ref()
                    .map(|d| d.0)
                    .or_else(|| bound.first().map(|(_, s)| s.data_type));
                let (Some(dims), Some(data_type)) = (dims, data_type) else {
                    p.err(
                        &decl.span,
                        format!("tensor {what} needs `dims` and `data_type` (or a DLA tensor bound to it to take them from)"),
                    );
                    ok = false;
                    continue;
                };
                let Some(bytes) = dims
                    .iter()
                    .try_fold(data_type.size(), |acc, &d| acc.checked_mul(u64::from(d)))
                else {
                    let span = decl.dims.as_ref().map_or(&decl.span, |d| &d.1);
                    p.err(
                        span,
                        format!(
                            "tensor {what} of {} {} elements is larger than 2^64 bytes",
                            dims.iter()
                                .map(u32::to_string)
                                .collect::<Vec<_>>()
                                .join("x"),
                            data_type.name()
                        ),
                    )
                    .help = Some("check the dimensions: no memory holds it".into());
                    ok = false;
                    continue;
                };
                for (t, spec) in &bound {
                    if spec.size > bytes && spec.dims == dims && spec.data_type == data_type {
                        p.err(
                            &decl.span,
                            format!(
                                "tensor {what} holds {bytes} bytes ({}), but tensor `{}` of task `{}` takes {} bytes (its layout pads lines)",
                                dims.iter().map(u32::to_string).collect::<Vec<_>>().join("x"),
                                spec.name,
                                t.name,
                                spec.size
                            ),
                        )
                        .help = Some(format!("declare it as kind = \"raw\", size = {}", spec.size));
                        ok = false;
                    }
                    if spec.dims != dims || spec.data_type != data_type {
                        p.err(
                            &decl.span,
                            format!(
                                "{what} is {} {:?}, but task `{}` binds it to tensor `{}`, which is {} {:?}",
                                data_type.name(),
                                dims,
                                t.name,
                                spec.name,
                                spec.data_type.name(),
                                spec.dims
                            ),
                        );
                        ok = false;
                    }
                }
                BufKind::Tensor {
                    data_type,
                    dims,
                    align: align_for(p, decl, &bound, default_align, &what, &mut ok),
                }
            }
        };
        out.push(Buffer {
            name: name.clone(),
            kind,
            multiplicity: decl.multiplicity,
            cpu_access,
            span: decl.span.clone(),
            align_span: decl.align.as_ref().map(|a| a.1.clone()),
        });
    }
    if out.len() > usize::from(u16::MAX) {
        p.err(&(0..0), "too many buffers (at most 65535)");
        ok = false;
    }
    ok.then_some(out)
}

fn align_for(
    p: &mut Parser,
    decl: &BufferDecl,
    bound: &[(&Task, &manifest::Tensor)],
    default: u64,
    what: &str,
    ok: &mut bool,
) -> u64 {
    match &decl.align {
        None => default,
        Some((a, span)) => {
            for (t, spec) in bound {
                if let Some(need) = spec.align
                    && a % need != 0
                {
                    p.err(
                        span,
                        format!(
                            "{what} is aligned to {a}, but tensor `{}` of task `{}` needs {need}",
                            spec.name, t.name
                        ),
                    );
                    *ok = false;
                }
            }
            *a
        }
    }
}

fn parse_health(
    p: &mut Parser,
    nodes: &[Node],
    task_names: &[(String, Span)],
    engines: &[Engine],
    modes: &[Mode],
    tasks: &[Task],
) -> Vec<Rule> {
    let mut rules: Vec<Rule> = Vec::new();
    for n in nodes {
        let Some(mut f) = p.ok(read::table(&p.src, n, "each `[[health]]`")) else {
            continue;
        };
        let mut ok = true;
        let fault = match f.value("fault") {
            Some(v) => match p.ok(read::string(&p.src, v, "`fault`")) {
                Some(s) => {
                    let fault = parse_fault(s);
                    if fault.is_none() {
                        p.err(&v.span, format!("unknown fault `{s}`")).did_you_mean(
                            s,
                            FAULT_NAMES,
                            || format!("expected one of: {}", quoted(&FAULT_NAMES)),
                        );
                    }
                    fault
                }
                None => None,
            },
            None => {
                p.err(&n.span, "a `[[health]]` rule has no `fault`");
                None
            }
        };
        let task = f.take("task");
        let engine = f.take("engine");
        let scope = match (task, engine) {
            (Some(_), Some((ek, _))) => {
                p.err(
                    &ek.span,
                    "a `[[health]]` rule names a `task` or an `engine`, not both",
                );
                None
            }
            (Some((_, t)), None) => p
                .named(t, "task", task_names.iter().map(|(n, _)| n.as_str()))
                .map(Scope::Task),
            (None, Some((_, e))) => p
                .named(e, "engine", engines.iter().map(|e| e.name.as_str()))
                .map(Scope::Engine),
            (None, None) => Some(Scope::Any),
        };
        let scope = scope.unwrap_or_else(|| {
            ok = false;
            Scope::Any
        });
        let mode = f.take("mode");
        const ACTIONS: [&str; 4] = ["log", "skip", "switch_mode", "safe_stop"];
        let action = match f.value("action") {
            Some(v) => match p.ok(read::string(&p.src, v, "`action`")) {
                Some("log") => Some(Action::Log),
                Some("skip") => Some(Action::Skip),
                Some("safe_stop") => Some(Action::SafeStop),
                Some("switch_mode") => match mode {
                    Some((_, m)) => p
                        .named(m, "mode", modes.iter().map(|m| m.name.as_str()))
                        .map(Action::SwitchMode),
                    None => {
                        p.err(&v.span, "`switch_mode` needs `mode = \"...\"`");
                        None
                    }
                },
                Some(other) => {
                    p.err(&v.span, format!("unknown action `{other}`"))
                        .did_you_mean(other, ACTIONS, || {
                            format!("expected one of: {}", quoted(&ACTIONS))
                        });
                    None
                }
                None => None,
            },
            None => {
                p.err(&n.span, "a `[[health]]` rule has no `action`");
                None
            }
        };
        if let (Some(a), Some((mk, _))) = (action, mode)
            && !matches!(a, Action::SwitchMode(_))
        {
            p.err(&mk.span, "`mode` is only for `action = \"switch_mode\"`");
            ok = false;
        }
        p.unknown(
            &f,
            &["fault", "task", "engine", "action", "mode"],
            "a `[[health]]` rule",
        );
        let (Some(fault), Some(action), true) = (fault, action, ok) else {
            continue;
        };
        // First match wins: a rule covered by an earlier one never applies.
        let engine_of = |t: usize| {
            tasks
                .iter()
                .find(|x| x.name == task_names[t].0)
                .map(|x| x.engine)
        };
        let covered = rules.iter().find(|r| {
            r.fault == fault
                && match (r.scope, scope) {
                    (Scope::Any, _) => true,
                    (Scope::Engine(a), Scope::Engine(b)) => a == b,
                    (Scope::Engine(a), Scope::Task(t)) => engine_of(t) == Some(a),
                    (Scope::Task(a), Scope::Task(b)) => a == b,
                    _ => false,
                }
        });
        if let Some(r) = covered {
            let (line, _) = p.src.line_col(r.span.start);
            p.err(&n.span, format!("this `{}` rule never applies: the rule at line {line} matches the same faults first", fault.name()))
                .help = Some("the first matching rule wins: put the more specific rule first".into());
            continue;
        }
        rules.push(Rule {
            fault,
            scope,
            action,
            span: n.span.clone(),
        });
    }
    rules
}
