//! The measured schedules, built in code: CPU-only independent tasks, a CPU chain, and a GPU
//! chain on one stream, each in any size up to the limits, run on the SIL virtual clock.

use std::fmt;

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Executive, Storage, TaskFault};
use orin_exec::limits::{MAX_BUFFERS, MAX_STREAM_OPS, MAX_TASKS, STREAM_OPS_PER_TASK};
use orin_exec::table::*;

/// The shape of a measured schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// Independent CPU tasks (no waits), alternating between two CPU workers.
    CpuIndependent,
    /// A chain of CPU tasks on one worker: each waits for the one before.
    CpuChain,
    /// A chain of GPU tasks on one stream (`fill_pattern_u32` each, SIL CUDA), each after the
    /// one before, with the runtime's GPU timestamps (a stamp kernel before and after each).
    GpuChain,
    /// The GPU chain with the GPU timestamps off (`Config::gpu_timestamps`).
    GpuChainNostamp,
}

impl Shape {
    /// Every shape, in the table's order.
    pub const ALL: [Shape; 4] = [
        Shape::CpuIndependent,
        Shape::CpuChain,
        Shape::GpuChain,
        Shape::GpuChainNostamp,
    ];

    /// Whether the shape's tasks are GPU kernels.
    pub const fn gpu(self) -> bool {
        matches!(self, Shape::GpuChain | Shape::GpuChainNostamp)
    }

    /// The largest size the limits allow for the shape: a task set is a 64-bit mask
    /// (`MAX_TASKS`); a GPU chain also needs a buffer per task and, with two frames in
    /// flight (lookahead 1), `STREAM_OPS_PER_TASK` + 1 wait per task (less the first task's)
    /// within `MAX_STREAM_OPS`, which `Schedule::check` enforces.
    pub const fn max_tasks(self) -> usize {
        if !self.gpu() {
            return MAX_TASKS;
        }
        let by_stream = (MAX_STREAM_OPS / 2 + 1) / (STREAM_OPS_PER_TASK + 1);
        let mut n = MAX_TASKS;
        if MAX_BUFFERS < n {
            n = MAX_BUFFERS;
        }
        if by_stream < n {
            n = by_stream;
        }
        n
    }

    /// The sizes measured: 4, 16 and the largest the limits allow.
    pub const fn sizes(self) -> [usize; 3] {
        [4, 16, self.max_tasks()]
    }

    /// The name used on the command line, in the table and in the ceiling file.
    pub const fn name(self) -> &'static str {
        match self {
            Shape::CpuIndependent => "cpu-independent",
            Shape::CpuChain => "cpu-chain",
            Shape::GpuChain => "gpu-chain",
            Shape::GpuChainNostamp => "gpu-chain-nostamp",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const PERIOD_NS: u64 = 10_000_000;
const WCET_NS: u64 = 20_000;
/// Elements `fill_pattern_u32` writes per GPU task (a small kernel: SIL CUDA's model runs it).
const FILL_N: u32 = 16;

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn task_name(i: usize) -> &'static str {
    Box::leak(format!("t{i}").into_boxed_str())
}

fn buffer_name(i: usize) -> &'static str {
    Box::leak(format!("b{i}").into_boxed_str())
}

/// The tables of `shape` with `n` tasks, checked.
///
/// # Errors
/// `n` is 0 or above the shape's limit, or `Schedule::check` refuses the tables.
pub fn schedule(shape: Shape, n: usize) -> Result<&'static Schedule, String> {
    if n == 0 || n > shape.max_tasks() {
        return Err(format!(
            "{shape} with {n} tasks: the size must be 1 to {} (the limits allow no more)",
            shape.max_tasks()
        ));
    }
    let cpu = |name, instance| EngineDesc {
        name,
        kind: EngineKind::Cpu,
        instance,
        queue_capacity: MAX_TASKS as u16,
        graph: false,
        vpu: None,
    };
    let engines = match shape {
        Shape::CpuIndependent => leak(vec![cpu("cpu0", 0), cpu("cpu1", 1)]),
        Shape::CpuChain => leak(vec![cpu("cpu0", 0)]),
        Shape::GpuChain | Shape::GpuChainNostamp => leak(vec![EngineDesc {
            name: "gpu0",
            kind: EngineKind::Gpu,
            instance: 0,
            queue_capacity: MAX_TASKS as u16,
            graph: false,
            vpu: None,
        }]),
    };
    let gpu = shape.gpu();
    let buffers = if gpu {
        leak(
            (0..n)
                .map(|i| BufferDesc {
                    name: buffer_name(i),
                    kind: BufferKind::Raw {
                        size: FILL_N as u64 * 4,
                        align: 256,
                    },
                    multiplicity: 1,
                    cpu_access: true,
                })
                .collect(),
        )
    } else {
        &[]
    };
    let cubins: &'static [CubinDesc] = if gpu {
        let variants = leak(
            orin_exec_kernels::CUBINS
                .iter()
                .filter(|c| c.name == "selftest")
                .map(|c| CubinVariant {
                    sm: c.sm,
                    sha256: c.sha256,
                    image: c.image,
                })
                .collect(),
        );
        leak(vec![CubinDesc {
            name: "selftest",
            variants,
        }])
    } else {
        &[]
    };
    let tasks = leak(
        (0..n)
            .map(|i| {
                let chained = shape != Shape::CpuIndependent && i > 0;
                let waits: &'static [Wait] = if chained {
                    leak(vec![Wait {
                        task: TaskId(i as u16 - 1),
                        lag: 0,
                    }])
                } else {
                    &[]
                };
                let (engine, work, writes) = match shape {
                    Shape::CpuIndependent => (EngineId((i % 2) as u8), Work::Cpu, &[][..]),
                    Shape::CpuChain => (EngineId(0), Work::Cpu, &[][..]),
                    Shape::GpuChain | Shape::GpuChainNostamp => (
                        EngineId(0),
                        Work::Gpu(GpuWork {
                            cubin: CubinId(0),
                            kernel: "fill_pattern_u32",
                            grid: [1, 1, 1],
                            block: [32, 1, 1],
                            shared_mem_bytes: 0,
                            params: leak(vec![
                                Param::Buffer(BufferId(i as u16)),
                                Param::U32(FILL_N),
                                Param::U32(i as u32),
                            ]),
                        }),
                        leak(vec![BufferId(i as u16)]),
                    ),
                };
                TaskDesc {
                    name: task_name(i),
                    engine,
                    work,
                    wcet_ns: WCET_NS,
                    budget_ns: PERIOD_NS,
                    deadline_ns: PERIOD_NS,
                    release_ns: 0,
                    reads: &[],
                    writes,
                    waits,
                    modes: ModeMask::ALL,
                }
            })
            .collect(),
    );
    let tables = Box::leak(Box::new(ScheduleTables {
        name: shape.name(),
        profile: "sil",
        period_ns: PERIOD_NS,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines,
        buffers,
        tasks,
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: &[],
        cubins,
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }));
    let s: &'static Schedule = Box::leak(Box::new(
        Schedule::check(tables).map_err(|e| format!("{shape} with {n} tasks: {e}"))?,
    ));
    if gpu {
        orin_exec_kernels::register_models(s.tables(), orin_exec::sil::register_kernel_model)
            .map_err(|e| format!("{shape}: the selftest kernel model: {e}"))?;
    }
    Ok(s)
}

/// A CPU task body that does nothing: only the runtime's work around it is of interest.
struct Nothing;

impl CpuTask for Nothing {
    fn run(&mut self, _ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        Ok(())
    }
}

/// Builds and seals the runtime of `shape` with `n` tasks, in storage sized exactly to it
/// (as the generator would emit it), on the virtual clock.
///
/// # Errors
/// The schedule is refused, or init or seal fails (the runtime's message).
pub fn executive(shape: Shape, n: usize) -> Result<Executive, String> {
    let s = schedule(shape, n)?;
    // Tasks, buffers, buffer copies, CPU workers.
    macro_rules! sized {
        ($($shape:ident $n:literal => [$b:literal, $c:literal, $w:literal]),* $(,)?) => {
            match (shape, n) {
                $((Shape::$shape, $n) => build(s, Box::leak(Box::new(Storage::<$n, $b, $c, $w>::new()))),)*
                _ => Err(format!("{shape} with {n} tasks: no storage instantiated for this size (sizes: {:?})", shape.sizes())),
            }
        };
    }
    sized! {
        CpuIndependent 4 => [0, 0, 2],
        CpuIndependent 16 => [0, 0, 2],
        CpuIndependent 64 => [0, 0, 2],
        CpuChain 4 => [0, 0, 1],
        CpuChain 16 => [0, 0, 1],
        CpuChain 64 => [0, 0, 1],
        GpuChain 4 => [4, 4, 0],
        GpuChain 16 => [16, 16, 0],
        GpuChain 64 => [64, 64, 0],
        GpuChainNostamp 4 => [4, 4, 0],
        GpuChainNostamp 16 => [16, 16, 0],
        GpuChainNostamp 64 => [64, 64, 0],
    }
}

fn build<const T: usize, const B: usize, const C: usize, const W: usize>(
    s: &'static Schedule,
    storage: &'static mut Storage<T, B, C, W>,
) -> Result<Executive, String> {
    let mut builder = Builder::new(s, storage).config(Config {
        virtual_clock: true,
        realtime_priority: None,
        // A lost signal shows as a fault within a second, not as a hang.
        virtual_wait_cap_us: 300_000,
        gpu_timestamps: s.name != Shape::GpuChainNostamp.name(),
        ..Config::default()
    });
    for (i, t) in s.tasks.iter().enumerate() {
        if matches!(t.work, Work::Cpu) {
            builder = builder.bind(TaskId(i as u16), Box::leak(Box::new(Nothing)));
        }
    }
    let runtime = builder
        .init()
        .map_err(|e| format!("{}: init: {e}", s.name))?;
    runtime.seal().map_err(|e| format!("{}: seal: {e}", s.name))
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-PERF-001
    use super::*;

    /// Every measured schedule passes `Schedule::check`, and runs every task in every frame
    /// without a fault (the SIL clock is process-wide: one test runs them all in turn).
    #[test]
    fn every_shape_and_size_runs_every_task_without_fault() {
        with_big_stack(every_shape_and_size_runs_every_task_without_fault_body);
    }

    fn every_shape_and_size_runs_every_task_without_fault_body() {
        for shape in Shape::ALL {
            for n in shape.sizes() {
                let mut exec = executive(shape, n).unwrap_or_else(|e| panic!("{e}"));
                let before = crate::runs(&exec);
                let faults = crate::icount_measured_frames(&mut exec, 3).expect("steps");
                assert_eq!(faults, 0, "{shape} with {n} tasks");
                assert_eq!(
                    crate::runs(&exec) - before,
                    3 * n as u64,
                    "{shape} with {n}"
                );
                exec.shutdown().expect("shutdown");
            }
        }
    }

    /// `executive` builds storages of every size by value: run `f` on a thread with room.
    fn with_big_stack(f: fn()) {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(f)
            .expect("spawn")
            .join()
            .expect("the checks pass");
    }

    #[test]
    fn sizes_beyond_the_limits_are_refused() {
        with_big_stack(sizes_beyond_the_limits_are_refused_body);
    }

    fn sizes_beyond_the_limits_are_refused_body() {
        for shape in Shape::ALL {
            let e = schedule(shape, shape.max_tasks() + 1).unwrap_err();
            assert!(e.contains(&shape.max_tasks().to_string()), "{e}");
            assert!(schedule(shape, 0).is_err());
        }
        // The GPU chain reaches the task limit: the stream bound of `Schedule::check` allows it.
        assert_eq!(Shape::GpuChain.max_tasks(), MAX_TASKS);
        assert_eq!(Shape::GpuChainNostamp.max_tasks(), MAX_TASKS);
        let Err(e) = executive(Shape::CpuChain, 5) else {
            panic!("5 tasks have no storage")
        };
        assert!(e.contains("no storage"), "{e}");
    }
}
