//! The user's kernel of the integration tests (`tests/fixtures/user_kernel.cu`): its cubin
//! for both SMs, as a schedule generator would describe it, and its reference model, written
//! here as a user would (not in `orin-exec-kernels`).
#![allow(dead_code)]

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Storage, TaskFault};
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use orin_exec::table::{
    BufferDesc, BufferId, BufferKind, CpuWait, CubinDesc, CubinId, CubinVariant, EngineDesc,
    EngineId, EngineKind, GpuWork, ModeDesc, ModeMask, Param, Schedule, ScheduleTables, TaskDesc,
    TaskId, Wait, Work,
};

/// The user's kernel: `scale_index_i32(const int32_t* in, int32_t* out, int32_t k,
/// uint32_t n)`, `out[i] = in[i] * k + i`.
pub const KERNEL: &str = "scale_index_i32";
pub const N: u32 = 1000;
pub const K: i32 = -3;

#[repr(C, align(128))]
pub struct Aligned<T: ?Sized>(T);

pub static SM87: &Aligned<[u8]> = &Aligned(*include_bytes!("../fixtures/user_kernel.sm_87.cubin"));
pub static SM90: &Aligned<[u8]> = &Aligned(*include_bytes!("../fixtures/user_kernel.sm_90.cubin"));

/// The user's reference model of the kernel.
pub struct ScaleIndex;

impl KernelModel for ScaleIndex {
    fn params(&self) -> &[ParamKind] {
        &[
            ParamKind::DevPtr,
            ParamKind::DevPtr,
            ParamKind::I32,
            ParamKind::U32,
        ]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (k, n) = (l.i32(2)?, l.u32(3)? as usize);
        let (input, out) = l.buffers((read::<i32>(0, n), write::<i32>(1, n)))?;
        for (i, (o, x)) in out.iter_mut().zip(input).enumerate() {
            *o = x.wrapping_mul(k).wrapping_add(i as i32);
        }
        Ok(())
    }
}

/// The model, registered by each test for the user cubin.
pub static SCALE_INDEX: ScaleIndex = ScaleIndex;

pub fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// The user's cubin (both SMs).
pub fn user_cubin() -> &'static CubinDesc {
    Box::leak(Box::new(CubinDesc {
        name: "user",
        variants: leak(vec![
            CubinVariant {
                sm: 87,
                sha256: sha256(&SM87.0),
                image: &SM87.0,
            },
            CubinVariant {
                sm: 90,
                sha256: sha256(&SM90.0),
                image: &SM90.0,
            },
        ]),
    }))
}

/// The kernel's input: writes `in[i] = 13 f + 7 i - 300` in frame `f` into its buffer.
pub struct Produce(pub BufferId);

impl CpuTask for Produce {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let f = ctx.frame() as i32;
        for (i, v) in ctx.write_as::<i32>(self.0)?.iter_mut().enumerate() {
            *v = 13 * f + 7 * i as i32 - 300;
        }
        Ok(())
    }
}

/// The chain the stream tests run: `produce` (CPU) writes `in`; `first` and `second` (the
/// user's kernel on `gpu0`) make `mid` and `out`; `other_stream` (on `gpu1`) makes `last`;
/// `verify` (CPU) reads `in` and `last`. Period 10 ms, lookahead 1.
pub mod chain {
    use super::*;

    pub const IN: BufferId = BufferId(0);
    pub const MID: BufferId = BufferId(1);
    pub const OUT: BufferId = BufferId(2);
    pub const LAST: BufferId = BufferId(3);
    pub const PRODUCE: TaskId = TaskId(0);
    pub const FIRST: TaskId = TaskId(1);
    pub const SECOND: TaskId = TaskId(2);
    pub const OTHER_STREAM: TaskId = TaskId(3);
    pub const VERIFY: TaskId = TaskId(4);
    /// With `Options::fallback_mode`: a CPU task of a second mode, never entered.
    pub const FALLBACK: TaskId = TaskId(5);
    pub const MS: u64 = 1_000_000;

    /// What varies between the tests that run the chain.
    pub struct Options {
        pub name: &'static str,
        /// `gpu0` submits in graph mode.
        pub graph: bool,
        /// Copies of `mid` and `out` (the kernel parameters change per frame with 2).
        pub copies: u8,
        /// `first` also waits for the previous frame's `other_stream`.
        pub first_waits_last: bool,
        pub cpu_waits: &'static [CpuWait],
        /// The chain runs in mode `normal` only, and mode `fallback` (never entered) runs
        /// `FALLBACK`, a CPU task with a 10 µs deadline.
        pub fallback_mode: bool,
    }

    impl Default for Options {
        /// One copy of each buffer, the stream path, no extra waits, one mode.
        fn default() -> Self {
            Options {
                name: "chain",
                graph: false,
                copies: 1,
                first_waits_last: false,
                cpu_waits: &[],
                fallback_mode: false,
            }
        }
    }

    /// The user's kernel from `from` to `to`.
    pub fn gpu(from: BufferId, to: BufferId) -> Work {
        Work::Gpu(GpuWork {
            cubin: CubinId(0),
            kernel: KERNEL,
            grid: [4, 1, 1],
            block: [256, 1, 1],
            shared_mem_bytes: 0,
            params: leak(vec![
                Param::Buffer(from),
                Param::Buffer(to),
                Param::I32(K),
                Param::U32(N),
            ]),
        })
    }

    /// A task with a 1 ms WCET, a 4 ms budget and a 10 ms deadline.
    pub fn task(
        name: &'static str,
        engine: u8,
        work: Work,
        (reads, writes): (Vec<BufferId>, Vec<BufferId>),
        waits: Vec<Wait>,
    ) -> TaskDesc {
        TaskDesc {
            name,
            engine: EngineId(engine),
            work,
            wcet_ns: MS,
            budget_ns: 4 * MS,
            deadline_ns: 10 * MS,
            release_ns: 0,
            reads: leak(reads),
            writes: leak(writes),
            waits: leak(waits),
            modes: ModeMask::ALL,
        }
    }

    /// A CPU-visible buffer of `N` 32-bit values.
    pub fn buffer(name: &'static str, multiplicity: u8) -> BufferDesc {
        BufferDesc {
            name,
            kind: BufferKind::Raw {
                size: u64::from(N) * 4,
                align: 256,
            },
            multiplicity,
            cpu_access: true,
        }
    }

    /// `cpu0`, `gpu0` (in graph mode with `graph`) and `gpu1`.
    pub fn engines(graph: bool) -> &'static [EngineDesc] {
        let engine = |name, kind, instance, graph| EngineDesc {
            name,
            kind,
            instance,
            queue_capacity: 8,
            graph,
            vpu: None,
        };
        leak(vec![
            engine("cpu0", EngineKind::Cpu, 0, false),
            engine("gpu0", EngineKind::Gpu, 0, graph),
            engine("gpu1", EngineKind::Gpu, 1, false),
        ])
    }

    /// A builder of `schedule` (the chain's, or one with the same first task) in `storage`
    /// with the two clock options, `produce` bound, and `fallback` bound to a task that does
    /// nothing where the schedule has it (`Options::fallback_mode`).
    pub fn builder<const T: usize, const C: usize>(
        schedule: &'static Schedule,
        storage: Storage<T, 4, C, 1>,
        virtual_clock: bool,
        gpu_timestamps: bool,
    ) -> Builder {
        let builder = Builder::new(schedule, Box::leak(Box::new(storage)))
            .config(Config {
                virtual_clock,
                realtime_priority: None,
                gpu_timestamps,
                ..Config::default()
            })
            .bind(PRODUCE, Box::leak(Box::new(Produce(IN))));
        let fallback = schedule.tasks.get(FALLBACK.0 as usize);
        if fallback.is_some_and(|t| t.name == "fallback") {
            return builder.bind(FALLBACK, Box::leak(Box::new(Idle)));
        }
        builder
    }

    /// A CPU task that does nothing (the fallback mode's, or a `verify` that reads nothing).
    pub struct Idle;

    impl CpuTask for Idle {
        fn run(&mut self, _: &CpuCtx<'_>) -> Result<(), TaskFault> {
            Ok(())
        }
    }

    /// `tables`, checked (they must be valid).
    pub fn check(tables: ScheduleTables) -> &'static Schedule {
        let tables = Box::leak(Box::new(tables));
        Box::leak(Box::new(Schedule::check(tables).expect("valid tables")))
    }

    /// The chain's checked tables.
    pub fn schedule(o: Options) -> &'static Schedule {
        let w = |task, lag| Wait { task, lag };
        let mut first_waits = vec![w(PRODUCE, 0)];
        if o.first_waits_last {
            first_waits.push(w(OTHER_STREAM, 1));
        }
        let mut tasks = vec![
            task(
                "produce",
                0,
                Work::Cpu,
                (vec![], vec![IN]),
                vec![w(VERIFY, 1)],
            ),
            task("first", 1, gpu(IN, MID), (vec![IN], vec![MID]), first_waits),
            task(
                "second",
                1,
                gpu(MID, OUT),
                (vec![MID], vec![OUT]),
                vec![w(FIRST, 0)],
            ),
            task(
                "other_stream",
                2,
                gpu(OUT, LAST),
                (vec![OUT], vec![LAST]),
                vec![w(SECOND, 0)],
            ),
            task(
                "verify",
                0,
                Work::Cpu,
                (vec![IN, LAST], vec![]),
                vec![w(OTHER_STREAM, 0)],
            ),
        ];
        let mut modes = vec![ModeDesc { name: "normal" }];
        if o.fallback_mode {
            for t in &mut tasks {
                t.modes = ModeMask(1);
            }
            let mut fallback = task("fallback", 0, Work::Cpu, (vec![], vec![]), vec![]);
            (fallback.wcet_ns, fallback.budget_ns, fallback.deadline_ns) = (5_000, 10_000, 10_000);
            fallback.modes = ModeMask(2);
            tasks.push(fallback);
            modes.push(ModeDesc { name: "fallback" });
        }
        check(ScheduleTables {
            name: o.name,
            profile: "sil",
            period_ns: 10 * MS,
            minor_frames_ns: &[0],
            lookahead: 1,
            threads: &[],
            engines: engines(o.graph),
            buffers: leak(vec![
                buffer("in", 1),
                buffer("mid", o.copies),
                buffer("out", o.copies),
                buffer("last", 1),
            ]),
            tasks: leak(tasks),
            modes: leak(modes),
            health: &[],
            cubins: leak(vec![*user_cubin()]),
            loadables: &[],
            pva_programs: &[],
            timeline: &[],
            cpu_waits: o.cpu_waits,
        })
    }
}
