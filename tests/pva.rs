//! The PVA engine on the SIL cuPVA, on the virtual clock: a CPU -> PVA -> CPU pipeline whose
//! PVA program (a registered reference model) scales the CPU's frame data, checked by a CPU
//! task every frame; the PVA waits on the CPU's semaphore and the CPU on the PVA's.
//!
//! Covers: REQ-PVA-072

use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::Error;
use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Executive, TaskFault};
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use orin_exec::table::*;

const SRC: BufferId = BufferId(0);
const DST: BufferId = BufferId(1);
const INPUT: TaskId = TaskId(0);
const SCALE: TaskId = TaskId(1);
const CHECK: TaskId = TaskId(2);
const N: usize = 256;
const FACTOR: u32 = 3;
const MS: u64 = 1_000_000;

type PvaStorage = orin_exec::exec::Storage<3, 2, 4, 1>;

/// The SIL clock and the cuPVA registry are process-wide.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// `scale(const uint8_t* src, uint8_t* dst, uint32_t n, uint32_t k)`: `dst[i] = src[i] * k`.
struct Scale;

impl KernelModel for Scale {
    fn params(&self) -> &[ParamKind] {
        &[
            ParamKind::DevPtr,
            ParamKind::DevPtr,
            ParamKind::U32,
            ParamKind::U32,
        ]
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

static SCALE_MODEL: Scale = Scale;

/// What a test's program is: its name and (fake) VPU ELF image, and whether the SIL PVA gets
/// a model for it and allowlists it.
#[derive(Clone, Copy)]
struct Program {
    name: &'static str,
    image: &'static [u8],
    model: bool,
    allowed: bool,
}

const GOOD: Program = Program {
    name: "scale",
    image: b"orin-exec test VPU program: scale v1",
    model: true,
    allowed: true,
};

/// The pipeline's tables: `input` (CPU) writes `src`, `scale` (PVA) writes `dst = src * 3`,
/// `check` (CPU) compares. `check` waits for `scale`, which waits for `input`; `input` of the
/// next frame waits for `check` (the buffers are single).
fn schedule(p: Program, health: &'static [HealthRule]) -> &'static Schedule {
    let hash = sha256(p.image);
    if p.model {
        orin_exec::sil::register_pva_program_model(
            p.name,
            &[hash],
            &["src", "dst", "n", "k"],
            &SCALE_MODEL,
        )
        .expect("the model registers");
    }
    if p.allowed {
        orin_exec::sil::allow_pva_program(hash);
    }
    let engine = |name, kind, vpu| EngineDesc {
        name,
        kind,
        instance: 0,
        queue_capacity: 4,
        graph: false,
        vpu,
    };
    let engines = leak(vec![
        engine("cpu0", EngineKind::Cpu, None),
        engine("pva0", EngineKind::Pva, Some(VpuAffinity::Vpu0)),
    ]);
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
    let programs = leak(vec![PvaProgramDesc {
        name: p.name,
        sha256: hash,
        image: p.image,
        params: leak(vec![
            PvaParamSpec {
                name: "src",
                kind: PvaParamKind::Pointer(PvaAccess::Read),
            },
            PvaParamSpec {
                name: "dst",
                kind: PvaParamKind::Pointer(PvaAccess::Write),
            },
            PvaParamSpec {
                name: "n",
                kind: PvaParamKind::U32,
            },
            PvaParamSpec {
                name: "k",
                kind: PvaParamKind::U32,
            },
        ]),
    }]);
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
    let tasks = leak(vec![
        task("input", 0, Work::Cpu, vec![], vec![SRC], vec![w(CHECK, 1)]),
        task(
            "scale",
            1,
            Work::Pva(PvaWork {
                program: PvaProgramId(0),
                params: leak(vec![
                    Param::Buffer(SRC),
                    Param::Buffer(DST),
                    Param::U32(N as u32),
                    Param::U32(FACTOR),
                ]),
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
        health,
        cubins: &[],
        loadables: &[],
        pva_programs: programs,
        timeline: &[],
        cpu_waits: &[],
    }));
    Box::leak(Box::new(
        Schedule::check(tables).unwrap_or_else(|e| panic!("the PVA pipeline is rejected: {e}")),
    ))
}

/// Writes frame-dependent bytes into `src`.
struct Input;

fn frame_byte(frame: u64, i: usize) -> u8 {
    (frame as usize * 7 + i) as u8
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
struct Check {
    good: &'static AtomicU64,
    bad: &'static AtomicU64,
    last_bad: &'static AtomicU64,
}

impl CpuTask for Check {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let f = ctx.frame();
        let src = ctx.read(SRC)?;
        let dst = ctx.read(DST)?;
        let ok = (0..N).all(|i| {
            src[i] == frame_byte(f, i) && dst[i] == frame_byte(f, i).wrapping_mul(FACTOR as u8)
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

struct Counts {
    good: &'static AtomicU64,
    bad: &'static AtomicU64,
    last_bad: &'static AtomicU64,
}

fn counts() -> Counts {
    let c = || &*Box::leak(Box::new(AtomicU64::new(0)));
    Counts {
        good: c(),
        bad: c(),
        last_bad: c(),
    }
}

fn init(s: &'static Schedule, c: &Counts) -> Result<Executive, Error> {
    let storage = Box::leak(Box::new(PvaStorage::new()));
    let check = Box::leak(Box::new(Check {
        good: c.good,
        bad: c.bad,
        last_bad: c.last_bad,
    }));
    Builder::new(s, storage)
        .config(Config {
            virtual_clock: true,
            realtime_priority: None,
            ..Config::default()
        })
        .bind(INPUT, Box::leak(Box::new(Input)))
        .bind(CHECK, check)
        .init()?
        .seal()
}

#[test]
fn the_pva_pipeline_matches_the_model_over_many_frames() {
    let _serial = serial();
    let c = counts();
    let mut exec = init(schedule(GOOD, &[]), &c).expect("init");
    let frames = 300;
    let mut faults = 0;
    for _ in 0..frames {
        faults += exec.step().expect("step").faults;
    }
    for f in exec.recent_faults() {
        eprintln!("fault: {f:?}");
    }
    assert_eq!(faults, 0);
    assert_eq!(c.good.load(Ordering::Relaxed), frames);
    assert_eq!(c.bad.load(Ordering::Relaxed), 0);
    assert_eq!(exec.counters(SCALE).runs, frames);
    let stats = exec.submit_stats();
    assert_eq!(stats.pva_tasks, frames + 1); // + the lookahead frame already queued
    assert_eq!(stats.dla_tasks, 0);
    exec.shutdown().expect("shutdown");
}
