//! C code generation: `<schedule>_tables.h` and `<schedule>_tables.c` for the C API
//! (`bindings/c-api`, header `orin_exec.h`).
//!
//! The source holds the tables as `const` arrays of the C API's descriptor structs (artifacts
//! as byte arrays) and one `const orin_exec_schedule_tables_t <schedule>_tables`. The header
//! has the ids (tasks, buffers, modes, engines) and, per CPU task, a typed context struct with
//! a pointer and a size per declared buffer (`const` for reads) and a `static inline` accessor
//! that fills it from the generic task context. The tables are the same as the Rust
//! generator's (`codegen.rs`, same order, same values): the C API converts them into the
//! runtime's tables and `Schedule::check` judges them again at `orin_exec_create`.

use std::fmt::Write as _;

use crate::analysis::Analysis;
use crate::codegen::{cpu_wait, release_ns, thread_rows, timeline_rows};
use crate::manifest::{Artifact, DataType, Tensor};
use crate::model::{Action, BufKind, Kind, Model, Param, Scope, Work, const_name};
use crate::read::{MAX_BINARY_BYTES, read_file};
use orin_exec_table::{CpuWait, PvaAccess, PvaParamKind, VpuAffinity};

/// The generated pair of files.
#[derive(Clone, Debug)]
pub struct CTables {
    /// The file name stem: `<schedule>_tables` (`.h` and `.c`).
    pub stem: String,
    /// `<schedule>_tables.h`.
    pub header: String,
    /// `<schedule>_tables.c`.
    pub source: String,
}

/// A C identifier for a schedule name (`camera-fallback` -> `camera_fallback`).
fn c_ident(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// A C string literal.
fn c_str(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
    }
    out.push('"');
    out
}

fn bytes32(b: &[u8; 32]) -> String {
    let items: Vec<String> = b.iter().map(|v| format!("{v:#04x}")).collect();
    format!("{{{}}}", items.join(", "))
}

fn dims<const N: usize>(d: [u32; N]) -> String {
    let items: Vec<String> = d.iter().map(u32::to_string).collect();
    format!("{{{}}}", items.join(", "))
}

fn data_type(t: DataType) -> &'static str {
    match t {
        DataType::Int8 => "ORIN_EXEC_TENSOR_INT8",
        DataType::Uint8 => "ORIN_EXEC_TENSOR_UINT8",
        DataType::Float16 => "ORIN_EXEC_TENSOR_FLOAT16",
        DataType::Float32 => "ORIN_EXEC_TENSOR_FLOAT32",
    }
}

/// The element type of a typed context pointer for a buffer.
fn element(kind: BufKind) -> &'static str {
    match kind {
        BufKind::Tensor { data_type, .. } => match data_type {
            DataType::Int8 => "int8_t",
            DataType::Uint8 => "uint8_t",
            // IEEE half precision as its bits: C11 has no standard half type.
            DataType::Float16 => "uint16_t",
            DataType::Float32 => "float",
        },
        BufKind::Raw { .. } | BufKind::Pinned { .. } => "uint8_t",
    }
}

/// Collects the `static const` arrays of the source and hands back how a descriptor refers to
/// each: `(pointer, count)`, `NULL, 0` for an empty one (C has no empty arrays).
struct Arrays {
    prefix: String,
    decls: String,
}

impl Arrays {
    fn array(&mut self, name: &str, ty: &str, rows: &[String]) -> (String, String) {
        if rows.is_empty() {
            return ("NULL".into(), "0".into());
        }
        let name = format!("{}_{name}", self.prefix);
        let _ = writeln!(self.decls, "static const {ty} {name}[{}] = {{", rows.len());
        for r in rows {
            let _ = writeln!(self.decls, "    {r},");
        }
        let _ = writeln!(self.decls, "}};\n");
        (name, rows.len().to_string())
    }

    /// The bytes of an artifact as an array; `(pointer, size)`.
    fn blob(&mut self, name: &str, a: &Artifact) -> Result<(String, String), String> {
        let bytes = read_file(&a.file, MAX_BINARY_BYTES).map_err(|e| e.to_string())?;
        if bytes.is_empty() {
            return Ok(("NULL".into(), "0".into()));
        }
        let name = format!("{}_{name}", self.prefix);
        let _ = writeln!(
            self.decls,
            "static const uint8_t {name}[{}] = {{",
            bytes.len()
        );
        for chunk in bytes.chunks(16) {
            let line: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
            let _ = writeln!(self.decls, "    {},", line.join(", "));
        }
        let _ = writeln!(self.decls, "}};\n");
        Ok((name, bytes.len().to_string()))
    }
}

struct Emitter<'a> {
    m: &'a Model,
    analysis: &'a Analysis,
    /// Task id (submission order) of each model task.
    id: Vec<usize>,
    prefix: String,
    arrays: Arrays,
}

/// Renders the C tables of a checked schedule; `shown` names the schedule in the comments,
/// `summary` is the validation report.
pub(crate) fn render(
    m: &Model,
    analysis: &Analysis,
    shown: &str,
    summary: &str,
) -> Result<CTables, String> {
    let prefix = c_ident(&m.name);
    let mut id = vec![0; m.tasks.len()];
    for (i, &t) in analysis.order.iter().enumerate() {
        id[t] = i;
    }
    let mut e = Emitter {
        m,
        analysis,
        id,
        prefix: prefix.clone(),
        arrays: Arrays {
            prefix: prefix.clone(),
            decls: String::new(),
        },
    };
    let stem = format!("{prefix}_tables");
    let comment = comment_block(shown, summary);
    let tables = e.tables()?;
    let source = format!(
        "{comment}\n#include \"{stem}.h\"\n\n{}{tables}",
        e.arrays.decls
    );
    let header = e.header(&stem, &comment);
    Ok(CTables {
        stem,
        header,
        source,
    })
}

/// The `/* */` comment at the top of both files.
fn comment_block(shown: &str, summary: &str) -> String {
    let mut c = format!(
        "/* Generated by orin-exec-schedule (`orin-exec generate --lang c`) from {shown}; do not\n * edit. The C API (orin_exec.h) checks these tables again at orin_exec_create.\n *\n"
    );
    for l in summary.lines() {
        let l = l.replace("*/", "* /");
        let _ = if l.is_empty() {
            writeln!(c, " *")
        } else {
            writeln!(c, " * {l}")
        };
    }
    c.push_str(" */\n");
    c
}

impl Emitter<'_> {
    fn upper(&self, kind: &str, name: &str) -> String {
        format!(
            "{}_{kind}_{}",
            const_name(&self.prefix),
            c_ident(&const_name(name))
        )
    }

    fn tables(&mut self) -> Result<String, String> {
        let m = self.m;
        let threads: Vec<String> = thread_rows(m)
            .into_iter()
            .map(|(engine, t)| {
                let (thread, e) = match engine {
                    None => ("ORIN_EXEC_THREAD_EXECUTIVE", 0),
                    Some(i) => ("ORIN_EXEC_THREAD_WORKER", i),
                };
                format!(
                    "{{ .thread = {thread}, .engine = {e}, .priority = {}, .cpus = {:#x}u }}",
                    t.priority, t.cpus
                )
            })
            .collect();
        let engines: Vec<String> = m
            .engines
            .iter()
            .map(|e| {
                let kind = match e.kind {
                    Kind::Cpu => "ORIN_EXEC_ENGINE_CPU",
                    Kind::Gpu => "ORIN_EXEC_ENGINE_GPU",
                    Kind::Dla => "ORIN_EXEC_ENGINE_DLA",
                    Kind::Pva => "ORIN_EXEC_ENGINE_PVA",
                };
                let vpu = match e.vpu {
                    None => "ORIN_EXEC_VPU_NONE",
                    Some(VpuAffinity::Vpu0) => "ORIN_EXEC_VPU_0",
                    Some(VpuAffinity::Vpu1) => "ORIN_EXEC_VPU_1",
                    Some(VpuAffinity::Any) => "ORIN_EXEC_VPU_ANY",
                };
                format!(
                    "{{ .name = {}, .kind = {kind}, .instance = {}, .graph = {}, .queue_capacity = {}, .vpu = {vpu} }}",
                    c_str(&e.name),
                    e.instance,
                    e.graph,
                    e.queue_capacity
                )
            })
            .collect();
        let buffers: Vec<String> = m
            .buffers
            .iter()
            .map(|b| {
                let kind = match b.kind {
                    BufKind::Raw { size, align } => {
                        format!(".kind = ORIN_EXEC_BUFFER_RAW, .size = {size}u, .align = {align}u")
                    }
                    BufKind::Tensor {
                        data_type: t,
                        dims: d,
                        align,
                    } => format!(
                        ".kind = ORIN_EXEC_BUFFER_TENSOR, .data_type = {}, .dims = {}, .align = {align}u",
                        data_type(t),
                        dims(d)
                    ),
                    BufKind::Pinned { size } => {
                        format!(".kind = ORIN_EXEC_BUFFER_PINNED, .size = {size}u")
                    }
                };
                format!(
                    "{{ .name = {}, {kind}, .multiplicity = {}, .cpu_access = {} }}",
                    c_str(&b.name),
                    b.multiplicity,
                    b.cpu_access
                )
            })
            .collect();
        let order = self.analysis.order.clone();
        let mut tasks = Vec::new();
        for (i, &t) in order.iter().enumerate() {
            tasks.push(self.task(i, t));
        }
        let modes: Vec<String> = m
            .modes
            .iter()
            .map(|mode| format!("{{ .name = {} }}", c_str(&mode.name)))
            .collect();
        let health: Vec<String> = m
            .health
            .iter()
            .map(|r| {
                let fault = format!("ORIN_EXEC_FAULT_{}", const_name(r.fault.name()));
                let (scope, scope_id) = match r.scope {
                    Scope::Task(t) => ("ORIN_EXEC_SCOPE_TASK", self.id[t]),
                    Scope::Engine(e) => ("ORIN_EXEC_SCOPE_ENGINE", e),
                    Scope::Any => ("ORIN_EXEC_SCOPE_ANY", 0),
                };
                let (action, mode) = match r.action {
                    Action::Log => ("ORIN_EXEC_ACTION_LOG", 0),
                    Action::Skip => ("ORIN_EXEC_ACTION_SKIP", 0),
                    Action::SwitchMode(mode) => ("ORIN_EXEC_ACTION_SWITCH_MODE", mode),
                    Action::SafeStop => ("ORIN_EXEC_ACTION_SAFE_STOP", 0),
                };
                format!(
                    "{{ .fault = {fault}, .scope = {scope}, .scope_id = {scope_id}, .action = {action}, .mode = {mode} }}"
                )
            })
            .collect();
        let mut cubins = Vec::new();
        for (c, cubin) in m.cubins.iter().enumerate() {
            let mut variants = Vec::new();
            for (v, var) in cubin.variants.iter().enumerate() {
                let (ptr, len) = self
                    .arrays
                    .blob(&format!("cubin{c}_v{v}_sm{}", var.sm), &var.artifact)?;
                variants.push(format!(
                    "{{ .sm = {}, .sha256 = {}, .image = {ptr}, .image_len = {len} }}",
                    var.sm,
                    bytes32(&var.artifact.sha256)
                ));
            }
            let (vp, vl) = self.arrays.array(
                &format!("cubin{c}_variants"),
                "orin_exec_cubin_variant_t",
                &variants,
            );
            cubins.push(format!(
                "{{ .name = {}, .variants = {vp}, .variants_len = {vl} }}",
                c_str(&cubin.name)
            ));
        }
        let mut loadables = Vec::new();
        for (l, ld) in m.loadables.iter().enumerate() {
            let (op, ol) = self.arrays.blob(&format!("loadable{l}_onnx"), &ld.onnx)?;
            let real = match &ld.real {
                Some(a) => {
                    let (rp, rl) = self.arrays.blob(&format!("loadable{l}_real"), a)?;
                    format!(
                        ".loadable_sha256 = {}, .loadable = {rp}, .loadable_len = {rl}",
                        bytes32(&a.sha256)
                    )
                }
                None => ".loadable = NULL, .loadable_len = 0".into(),
            };
            let (ip, il) = self.tensor_specs(&format!("loadable{l}_inputs"), &ld.inputs);
            let (xp, xl) = self.tensor_specs(&format!("loadable{l}_outputs"), &ld.outputs);
            loadables.push(format!(
                "{{ .name = {}, .onnx_sha256 = {}, .onnx = {op}, .onnx_len = {ol}, {real}, .inputs = {ip}, .inputs_len = {il}, .outputs = {xp}, .outputs_len = {xl} }}",
                c_str(&ld.name),
                bytes32(&ld.onnx.sha256)
            ));
        }
        let mut programs = Vec::new();
        for (p, prog) in m.pva_programs.iter().enumerate() {
            let (ip, il) = self.arrays.blob(&format!("pva{p}_image"), &prog.elf)?;
            let params: Vec<String> = prog
                .params
                .iter()
                .map(|q| {
                    let kind = match q.kind {
                        PvaParamKind::Pointer(PvaAccess::Read) => "ORIN_EXEC_PVA_POINTER_READ",
                        PvaParamKind::Pointer(PvaAccess::Write) => "ORIN_EXEC_PVA_POINTER_WRITE",
                        PvaParamKind::Pointer(PvaAccess::ReadWrite) => {
                            "ORIN_EXEC_PVA_POINTER_READ_WRITE"
                        }
                        PvaParamKind::U32 => "ORIN_EXEC_PVA_U32",
                        PvaParamKind::I32 => "ORIN_EXEC_PVA_I32",
                        PvaParamKind::U64 => "ORIN_EXEC_PVA_U64",
                        PvaParamKind::F32 => "ORIN_EXEC_PVA_F32",
                    };
                    format!("{{ .name = {}, .kind = {kind} }}", c_str(&q.name))
                })
                .collect();
            let (pp, pl) = self.arrays.array(
                &format!("pva{p}_params"),
                "orin_exec_pva_param_spec_t",
                &params,
            );
            programs.push(format!(
                "{{ .name = {}, .sha256 = {}, .image = {ip}, .image_len = {il}, .params = {pp}, .params_len = {pl} }}",
                c_str(&prog.name),
                bytes32(&prog.elf.sha256)
            ));
        }
        let timeline: Vec<String> = timeline_rows(m, self.analysis)
            .into_iter()
            .map(|r| {
                format!(
                    "{{ .mode = {}, .task = {}, .latest_start_ns = {}u, .latest_finish_ns = {}u, .slack_ns = {}u }}",
                    r.mode, self.id[r.task], r.start, r.finish, r.slack
                )
            })
            .collect();
        let cpu_waits: Vec<String> = (0..m.tasks.len())
            .map(|t| match cpu_wait(m, self.analysis, t) {
                CpuWait::Block => "{ .kind = ORIN_EXEC_CPU_WAIT_BLOCK }".to_string(),
                CpuWait::Spin { from_ns, until_ns } => format!(
                    "{{ .kind = ORIN_EXEC_CPU_WAIT_SPIN, .from_ns = {from_ns}u, .until_ns = {until_ns}u }}"
                ),
            })
            .collect();
        let minor: Vec<String> = m.minor_frames.iter().map(|v| format!("{v}u")).collect();
        let a = &mut self.arrays;
        let fields = [
            ("minor_frames", a.array("minor_frames", "uint64_t", &minor)),
            (
                "threads",
                a.array("threads", "orin_exec_thread_desc_t", &threads),
            ),
            (
                "engines",
                a.array("engines", "orin_exec_engine_desc_t", &engines),
            ),
            (
                "buffers",
                a.array("buffers", "orin_exec_buffer_desc_t", &buffers),
            ),
            ("tasks", a.array("tasks", "orin_exec_task_desc_t", &tasks)),
            ("modes", a.array("modes", "orin_exec_mode_desc_t", &modes)),
            (
                "health",
                a.array("health", "orin_exec_health_rule_t", &health),
            ),
            (
                "cubins",
                a.array("cubins", "orin_exec_cubin_desc_t", &cubins),
            ),
            (
                "loadables",
                a.array("loadables", "orin_exec_loadable_desc_t", &loadables),
            ),
            (
                "pva_programs",
                a.array("pva_programs", "orin_exec_pva_program_desc_t", &programs),
            ),
            (
                "timeline",
                a.array("timeline", "orin_exec_timeline_entry_t", &timeline),
            ),
            (
                "cpu_waits",
                a.array("cpu_waits", "orin_exec_cpu_wait_t", &cpu_waits),
            ),
        ];
        let mut out = format!(
            "const orin_exec_schedule_tables_t {}_tables = {{\n    .abi_version = ORIN_EXEC_ABI_VERSION,\n    .name = {},\n    .profile = {},\n    .period_ns = {}u,\n    .lookahead = {},\n",
            self.prefix,
            c_str(&m.name),
            c_str(m.profile.name()),
            m.period,
            m.lookahead
        );
        for (field, (p, l)) in fields {
            let p_field = if field == "minor_frames" {
                "minor_frames_ns"
            } else {
                field
            };
            let _ = writeln!(out, "    .{p_field} = {p},\n    .{field}_len = {l},");
        }
        out.push_str("};\n");
        Ok(out)
    }

    fn tensor_specs(&mut self, name: &str, list: &[Tensor]) -> (String, String) {
        let rows: Vec<String> = list
            .iter()
            .map(|t| {
                format!(
                    "{{ .name = {}, .size = {}u, .dims = {}, .data_type = {} }}",
                    c_str(&t.name),
                    t.size,
                    dims(t.dims),
                    data_type(t.data_type)
                )
            })
            .collect();
        self.arrays.array(name, "orin_exec_tensor_spec_t", &rows)
    }

    fn params(&mut self, name: &str, params: &[Param]) -> (String, String) {
        let rows: Vec<String> = params
            .iter()
            .map(|p| match *p {
                Param::Buffer(b) => format!("{{ .kind = ORIN_EXEC_PARAM_BUFFER, .buffer = {b} }}"),
                Param::U32(v) => format!("{{ .kind = ORIN_EXEC_PARAM_U32, .bits = {v}u }}"),
                Param::I32(v) => format!(
                    "{{ .kind = ORIN_EXEC_PARAM_I32, .bits = {:#x}u /* {v} */ }}",
                    v as u32
                ),
                Param::U64(v) => format!("{{ .kind = ORIN_EXEC_PARAM_U64, .bits = {v}u }}"),
                Param::F32(v) => format!(
                    "{{ .kind = ORIN_EXEC_PARAM_F32, .bits = {:#x}u /* {v:?} */ }}",
                    v.to_bits()
                ),
            })
            .collect();
        self.arrays.array(name, "orin_exec_param_t", &rows)
    }

    fn task(&mut self, i: usize, t: usize) -> String {
        let m = self.m;
        let task = &m.tasks[t];
        let work = match &task.work {
            Work::Cpu => ".work = ORIN_EXEC_WORK_CPU".to_string(),
            Work::Gpu {
                cubin,
                kernel,
                grid,
                block,
                shared_mem,
                params,
            } => {
                let (pp, pl) = self.params(&format!("task{i}_params"), params);
                format!(
                    ".work = ORIN_EXEC_WORK_GPU, .artifact = {cubin}, .kernel = {}, .grid = {}, .block = {}, .shared_mem_bytes = {shared_mem}, .params = {pp}, .params_len = {pl}",
                    c_str(kernel),
                    dims(*grid),
                    dims(*block)
                )
            }
            Work::Dla {
                loadable,
                inputs,
                outputs,
            } => {
                let bindings = |list: &[(String, usize)]| -> Vec<String> {
                    list.iter()
                        .map(|(tensor, b)| {
                            format!("{{ .tensor = {}, .buffer = {b} }}", c_str(tensor))
                        })
                        .collect()
                };
                let (ip, il) = self.arrays.array(
                    &format!("task{i}_inputs"),
                    "orin_exec_tensor_binding_t",
                    &bindings(inputs),
                );
                let (op, ol) = self.arrays.array(
                    &format!("task{i}_outputs"),
                    "orin_exec_tensor_binding_t",
                    &bindings(outputs),
                );
                format!(
                    ".work = ORIN_EXEC_WORK_DLA, .artifact = {loadable}, .inputs = {ip}, .inputs_len = {il}, .outputs = {op}, .outputs_len = {ol}"
                )
            }
            Work::Pva { program, params } => {
                let (pp, pl) = self.params(&format!("task{i}_params"), params);
                format!(
                    ".work = ORIN_EXEC_WORK_PVA, .artifact = {program}, .params = {pp}, .params_len = {pl}"
                )
            }
        };
        let ids = |list: Vec<usize>| -> Vec<String> { list.iter().map(usize::to_string).collect() };
        let (rp, rl) = self
            .arrays
            .array(&format!("task{i}_reads"), "uint16_t", &ids(task.reads()));
        let (wp, wl) =
            self.arrays
                .array(&format!("task{i}_writes"), "uint16_t", &ids(task.writes()));
        let waits: Vec<String> = task
            .after
            .iter()
            .map(|d| format!("{{ .task = {}, .lag = {} }}", self.id[d.task], d.lag))
            .collect();
        let (ap, al) = self
            .arrays
            .array(&format!("task{i}_waits"), "orin_exec_wait_t", &waits);
        let modes = if task.modes == m.all_modes() {
            u32::MAX
        } else {
            (0..m.modes.len())
                .filter(|&mode| task.in_mode(mode))
                .fold(0u32, |acc, mode| acc | 1 << mode)
        };
        format!(
            "{{ .name = {}, .engine = {}, {work}, .wcet_ns = {}u, .budget_ns = {}u, .deadline_ns = {}u, .release_ns = {}u, .reads = {rp}, .reads_len = {rl}, .writes = {wp}, .writes_len = {wl}, .waits = {ap}, .waits_len = {al}, .modes = {modes:#x}u }}",
            c_str(&task.name),
            task.engine,
            task.wcet,
            task.budget,
            task.deadline,
            release_ns(task)
        )
    }

    /// The header: ids, the tables' declaration, the typed CPU task contexts.
    fn header(&self, stem: &str, comment: &str) -> String {
        let m = self.m;
        let guard = format!("{}_H", const_name(stem));
        let mut h = format!(
            "{comment}\n#ifndef {guard}\n#define {guard}\n\n#include \"orin_exec.h\"\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n"
        );
        let mut ids = |kind: &str, what: &str, names: Vec<&str>| {
            let _ = writeln!(h, "/** {what} */");
            for (i, n) in names.iter().enumerate() {
                let _ = writeln!(h, "#define {} {i}", self.upper(kind, n));
            }
            h.push('\n');
        };
        ids(
            "TASK",
            "Task ids (submission order): orin_exec_bind, orin_exec_task_counters.",
            self.analysis
                .order
                .iter()
                .map(|&t| m.tasks[t].name.as_str())
                .collect(),
        );
        ids(
            "BUFFER",
            "Buffer ids.",
            m.buffers.iter().map(|b| b.name.as_str()).collect(),
        );
        ids(
            "MODE",
            "Mode ids; the first is the initial mode.",
            m.modes.iter().map(|b| b.name.as_str()).collect(),
        );
        ids(
            "ENGINE",
            "Engine ids.",
            m.engines.iter().map(|b| b.name.as_str()).collect(),
        );
        let _ = writeln!(
            h,
            "/** The tables of the schedule `{}`: pass to orin_exec_create. */\nextern const orin_exec_schedule_tables_t {}_tables;\n",
            m.name, self.prefix
        );
        for &t in &self.analysis.order {
            let task = &m.tasks[t];
            if m.engines[task.engine].kind != Kind::Cpu {
                continue;
            }
            h.push_str(&self.context(task));
        }
        h.push_str("#ifdef __cplusplus\n}\n#endif\n\n");
        let _ = writeln!(h, "#endif /* {guard} */");
        h
    }

    /// A CPU task's typed context and its accessor. A buffer the task writes gets write
    /// access (even if it also reads it: one access per buffer and run).
    fn context(&self, task: &crate::model::Task) -> String {
        let m = self.m;
        let name = format!("{}_{}", self.prefix, c_ident(&task.name));
        let writes = task.writes();
        let reads: Vec<usize> = task
            .reads()
            .into_iter()
            .filter(|b| !writes.contains(b))
            .collect();
        let mut fields = String::new();
        let mut fill = String::new();
        let accesses = reads
            .iter()
            .map(|&b| (b, false))
            .chain(writes.iter().map(|&b| (b, true)));
        for (b, write) in accesses {
            let buf = &m.buffers[b];
            let (field, ty) = (c_ident(&buf.name), element(buf.kind));
            let (cnst, fun, what) = if write {
                ("", "orin_exec_ctx_write", "written")
            } else {
                ("const ", "orin_exec_ctx_read", "read")
            };
            let _ = writeln!(
                fields,
                "    /** `{}` ({what}): the frame's copy. */\n    {cnst}{ty} *{field};\n    /** Its size in bytes. */\n    size_t {field}_size;",
                buf.name
            );
            let _ = writeln!(
                fill,
                "    {{\n        {cnst}void *p = NULL;\n        orin_exec_status_t s = {fun}(ctx, {}, &p, &out->{field}_size);\n        if (s != ORIN_EXEC_OK) {{\n            return s;\n        }}\n        out->{field} = ({cnst}{ty} *)p;\n    }}",
                self.upper("BUFFER", &buf.name)
            );
        }
        if fields.is_empty() {
            fields = "    /** The task declares no buffer. */\n    uint8_t unused;\n".into();
        }
        format!(
            "/** The typed context of CPU task `{task}`: its declared buffers only. */\ntypedef struct {name}_ctx_t {{\n{fields}}} {name}_ctx_t;\n\n/** Fills the typed context of `{task}` from the context its function received (a buffer\n * access the runtime refuses returns its error code). */\nstatic inline orin_exec_status_t {name}_ctx(const orin_exec_task_ctx_t *ctx,\n                                          {name}_ctx_t *out) {{\n    if (out == NULL) {{\n        return ORIN_EXEC_E_NULL;\n    }}\n{fill}    return ORIN_EXEC_OK;\n}}\n\n",
            task = task.name
        )
    }
}
