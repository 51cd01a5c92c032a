//! A PVA pipeline for the runtime's tests: CPU `input` writes frame-dependent bytes into
//! `src` -> PVA `scale` (a registered reference model of a VPU program) writes
//! `dst = src * 3` -> CPU `check` compares. `scale` waits on the CPU's semaphore and `check` on
//! the PVA's. With `Setup::gpu`, a GPU task `fill` (`fill_pattern_u32`, run by SIL CUDA's
//! model) writes `src` instead of `input`: the PVA waits on the GPU's semaphore, and `fill`
//! of the next frame on the PVA's.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::Error;
use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Executive, TaskFault};
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use orin_exec::table::*;

use super::{leak, sha256};

pub const SRC: BufferId = BufferId(0);
pub const DST: BufferId = BufferId(1);
pub const INPUT: TaskId = TaskId(0);
pub const SCALE: TaskId = TaskId(1);
pub const CHECK: TaskId = TaskId(2);
pub const N: usize = 256;
pub const FACTOR: u32 = 3;
pub const MS: u64 = 1_000_000;

pub type PvaStorage = orin_exec::exec::Storage<3, 2, 4, 1>;

/// `scale(const uint8_t* src, uint8_t* dst, uint32_t n, uint32_t k, uint32_t pad...)`:
/// `dst[i] = src[i] * k`; `WIDE` takes padding parameters up to `MAX_PARAMS`.
struct Scale<const WIDE: bool>;

/// The model's kinds: two pointers, then u32s.
const KINDS: [ParamKind; MAX_PARAMS] = {
    let mut k = [ParamKind::U32; MAX_PARAMS];
    k[0] = ParamKind::DevPtr;
    k[1] = ParamKind::DevPtr;
    k
};

impl<const WIDE: bool> KernelModel for Scale<WIDE> {
    fn params(&self) -> &[ParamKind] {
        if WIDE { &KINDS } else { &KINDS[..4] }
    }
    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let n = l.u32(2)? as usize;
        let k = l.u32(3)? as u8;
        let (src, dst) = l.buffers((read::<u8>(0, n), write::<u8>(1, n)))?;
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s.wrapping_mul(k);
        }
        Ok(())
    }
}

static SCALE_MODEL: Scale<false> = Scale;
static WIDE_MODEL: Scale<true> = Scale;

/// A program parameter name of `MAX_PVA_SYMBOL` (127) bytes.
pub const LONGEST_SYMBOL: &str = "padding_parameter_with_the_longest_symbol_name_the_runtime_takes_which_is_one_hundred_and_twenty_seven_bytes_long_xxxxxxxxxxxxx";

/// What a test's program is: its name and (fake) VPU ELF image, and whether the SIL PVA gets
/// a model for it and allowlists it.
#[derive(Clone, Copy)]
pub struct Program {
    pub name: &'static str,
    pub image: &'static [u8],
    pub model: bool,
    pub allowed: bool,
}

pub const GOOD: Program = Program {
    name: "scale",
    image: b"orin-exec test VPU program: scale v1",
    model: true,
    allowed: true,
};

/// A variant of the pipeline.
#[derive(Clone, Copy)]
pub struct Setup {
    pub program: Program,
    pub health: &'static [HealthRule],
    /// The manifest's name of the factor parameter (the model's is `k`).
    pub k_symbol: &'static str,
    /// Padding parameters after the four (the program is then the wide one, up to
    /// `MAX_PARAMS`; the last one is named `LONGEST_SYMBOL`, or one byte longer with
    /// `symbol_past`).
    pub padding: usize,
    pub symbol_past: bool,
    /// The PVA engine's queue capacity.
    pub queue_capacity: u16,
    /// A GPU task writes `src` (else the CPU task `input`).
    pub gpu: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            program: GOOD,
            health: &[],
            k_symbol: "k",
            padding: 0,
            symbol_past: false,
            queue_capacity: 4,
            gpu: false,
        }
    }
}

/// The names of the program's parameters, as the manifest declares them.
fn param_names(v: &Setup) -> Vec<&'static str> {
    let mut names = vec!["src", "dst", "n", v.k_symbol];
    for i in 0..v.padding {
        names.push(if i + 1 == v.padding {
            if v.symbol_past {
                Box::leak(format!("{LONGEST_SYMBOL}y").into_boxed_str())
            } else {
                LONGEST_SYMBOL
            }
        } else {
            Box::leak(format!("pad{i}").into_boxed_str())
        });
    }
    names
}

/// The pipeline, checked.
pub fn schedule(v: Setup) -> &'static Schedule {
    try_schedule(v).unwrap_or_else(|e| panic!("the PVA pipeline is rejected: {e}"))
}

/// The pipeline's tables and what `Schedule::check` says of them: `input` (CPU) writes `src`,
/// `scale` (PVA) writes `dst = src * 3`, `check` (CPU) compares. `check` waits for `scale`,
/// which waits for `input`; `input` of the next frame waits for `check` (single buffers).
/// Registers the program's model and allowlists it as `v.program` says.
pub fn try_schedule(v: Setup) -> Result<&'static Schedule, TableError> {
    let p = v.program;
    let hash = sha256(p.image);
    let names = param_names(&v);
    if p.model {
        let model: &'static dyn KernelModel = if v.padding > 0 {
            &WIDE_MODEL
        } else {
            &SCALE_MODEL
        };
        // The model has `k` where the manifest may say otherwise; its padding count is
        // fixed (MAX_PARAMS), so a shorter manifest registers the names it has.
        let mut model_names = names.clone();
        model_names[3] = "k";
        if v.padding > 0 {
            model_names.resize(MAX_PARAMS, "unused");
            for (i, n) in model_names.iter_mut().enumerate().skip(4 + v.padding) {
                *n = Box::leak(format!("unused{i}").into_boxed_str());
            }
        }
        orin_exec::sil::register_pva_program_model(p.name, &[hash], &model_names, model)
            .expect("the model registers");
    }
    if p.allowed {
        orin_exec::sil::allow_pva_program(hash);
    }
    let engine = |name, kind, vpu| EngineDesc {
        name,
        kind,
        instance: 0,
        queue_capacity: if kind == EngineKind::Pva {
            v.queue_capacity
        } else {
            4
        },
        graph: false,
        vpu,
    };
    let mut engines = vec![
        engine("cpu0", EngineKind::Cpu, None),
        engine("pva0", EngineKind::Pva, Some(VpuAffinity::Vpu0)),
    ];
    if v.gpu {
        engines.push(engine("gpu0", EngineKind::Gpu, None));
    }
    let engines = leak(engines);
    let buffer = |name| BufferDesc {
        name,
        kind: BufferKind::Raw {
            size: N as u64,
            align: 256,
        },
        multiplicity: 1,
        cpu_access: true,
    };
    let buffers = leak(vec![buffer("src"), buffer("dst")]);
    let kind = |i: usize| match i {
        0 => PvaParamKind::Pointer(PvaAccess::Read),
        1 => PvaParamKind::Pointer(PvaAccess::Write),
        _ => PvaParamKind::U32,
    };
    let specs = names
        .iter()
        .enumerate()
        .map(|(i, &name)| PvaParamSpec {
            name,
            kind: kind(i),
        })
        .collect();
    let programs = leak(vec![PvaProgramDesc {
        name: p.name,
        sha256: hash,
        image: p.image,
        params: leak(specs),
    }]);
    let mut values = vec![
        Param::Buffer(SRC),
        Param::Buffer(DST),
        Param::U32(N as u32),
        Param::U32(FACTOR),
    ];
    values.resize(4 + v.padding, Param::U32(7));
    let task = |name, engine: u8, work, reads, writes, waits| TaskDesc {
        name,
        engine: EngineId(engine),
        work,
        wcet_ns: 2 * MS,
        budget_ns: 4 * MS,
        deadline_ns: 8 * MS,
        release_ns: 0,
        reads: leak(reads),
        writes: leak(writes),
        waits: leak(waits),
        modes: ModeMask::ALL,
    };
    let w = |task, lag| Wait { task, lag };
    let first = if v.gpu {
        task(
            "fill",
            2,
            Work::Gpu(GpuWork {
                cubin: CubinId(0),
                kernel: "fill_pattern_u32",
                grid: [1, 1, 1],
                block: [64, 1, 1],
                shared_mem_bytes: 0,
                params: leak(vec![
                    Param::Buffer(SRC),
                    Param::U32((N / 4) as u32),
                    Param::U32(SEED),
                ]),
            }),
            vec![],
            vec![SRC],
            vec![w(CHECK, 1), w(SCALE, 1)],
        )
    } else {
        task("input", 0, Work::Cpu, vec![], vec![SRC], vec![w(CHECK, 1)])
    };
    let cubins = if v.gpu {
        let selftest = orin_exec_kernels::cubin_desc("selftest").expect("the selftest module");
        leak(vec![*selftest])
    } else {
        &[]
    };
    let tasks = leak(vec![
        first,
        task(
            "scale",
            1,
            Work::Pva(PvaWork {
                program: PvaProgramId(0),
                params: leak(values),
            }),
            vec![SRC],
            vec![DST],
            vec![w(INPUT, 0)],
        ),
        task(
            "check",
            0,
            Work::Cpu,
            vec![SRC, DST],
            vec![],
            vec![w(SCALE, 0)],
        ),
    ]);
    let tables = Box::leak(Box::new(ScheduleTables {
        name: "pva",
        profile: "sil",
        period_ns: 10 * MS,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines,
        buffers,
        tasks,
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: v.health,
        cubins,
        loadables: &[],
        pva_programs: programs,
        timeline: &[],
        cpu_waits: &[],
    }));
    let s: &'static Schedule = Box::leak(Box::new(Schedule::check(tables)?));
    orin_exec_kernels::register_models(s.tables(), orin_exec::sil::register_kernel_model)
        .expect("the project's kernel models");
    Ok(s)
}

/// Writes frame-dependent bytes into `src`.
pub struct Input;

pub fn frame_byte(frame: u64, i: usize) -> u8 {
    (frame as usize * 7 + i) as u8
}

/// The GPU's fill pattern seed.
pub const SEED: u32 = 0x5eed;

/// Byte `i` of `src` in frame `frame`: the CPU's frame bytes, or the GPU's pattern.
fn src_byte(gpu: bool, frame: u64, i: usize) -> u8 {
    if gpu {
        orin_exec_kernels::pattern_u32((i / 4) as u32, SEED).to_le_bytes()[i % 4]
    } else {
        frame_byte(frame, i)
    }
}

impl CpuTask for Input {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let f = ctx.frame();
        for (i, b) in ctx.write(SRC)?.iter_mut().enumerate() {
            *b = frame_byte(f, i);
        }
        Ok(())
    }
}

/// Counts frames whose `dst` is `src * FACTOR` for this frame's `src`; remembers the last bad
/// frame.
pub struct Check {
    pub good: &'static AtomicU64,
    pub bad: &'static AtomicU64,
    pub last_bad: &'static AtomicU64,
    /// `src` comes from the GPU's fill.
    pub gpu: bool,
}

impl CpuTask for Check {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let f = ctx.frame();
        let src = ctx.read(SRC)?;
        let dst = ctx.read(DST)?;
        let ok = (0..N).all(|i| {
            let want = src_byte(self.gpu, f, i);
            src[i] == want && dst[i] == want.wrapping_mul(FACTOR as u8)
        });
        if ok {
            self.good.fetch_add(1, Ordering::Relaxed);
            Ok(())
        } else {
            self.bad.fetch_add(1, Ordering::Relaxed);
            self.last_bad.store(f, Ordering::Relaxed);
            Err(TaskFault::App { code: 1 })
        }
    }
}

pub struct Counts {
    pub good: &'static AtomicU64,
    pub bad: &'static AtomicU64,
    pub last_bad: &'static AtomicU64,
}

pub fn counts() -> Counts {
    let c = || &*Box::leak(Box::new(AtomicU64::new(0)));
    Counts {
        good: c(),
        bad: c(),
        last_bad: c(),
    }
}

pub fn init(s: &'static Schedule, c: &Counts) -> Result<Executive, Error> {
    let storage = Box::leak(Box::new(PvaStorage::new()));
    let gpu = !matches!(s.task(INPUT).work, Work::Cpu);
    let check = Box::leak(Box::new(Check {
        good: c.good,
        bad: c.bad,
        last_bad: c.last_bad,
        gpu,
    }));
    let mut b = Builder::new(s, storage).config(Config {
        virtual_clock: true,
        realtime_priority: None,
        ..Config::default()
    });
    if !gpu {
        b = b.bind(INPUT, Box::leak(Box::new(Input)));
    }
    b.bind(CHECK, check).init()?.seal()
}
