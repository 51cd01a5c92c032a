//! A GPU engine whose stream holds exactly `MAX_STREAM_OPS` operations (two frames in flight)
//! passes `Schedule::check` and runs every task of every frame on SIL CUDA without a fault or
//! a hang; one wait more is refused with the typed `StreamOps` error, before anything starts.
//!
//! Covers: REQ-PERF-002

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Storage, TaskFault};
use orin_exec::limits::{MAX_STREAM_OPS, STREAM_OPS_PER_TASK};
use orin_exec::table::*;

const PERIOD_NS: u64 = 10_000_000;
const FILL_N: u32 = 16;
/// GPU tasks: with one CPU task, 64 in all (`MAX_TASKS`).
const GPU_TASKS: usize = 63;

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

/// Waits of each GPU task, all on the CPU task 0 (lags 0, 1, 2: distinct fences the stream
/// must wait for), so that the engine holds `per_frame` operations per frame.
fn wait_counts(per_frame: usize) -> Vec<usize> {
    let waits = per_frame - GPU_TASKS * STREAM_OPS_PER_TASK;
    (0..GPU_TASKS)
        .map(|i| waits / GPU_TASKS + usize::from(i < waits % GPU_TASKS))
        .collect()
}

/// CPU `src`, then 63 `fill_pattern_u32` tasks on gpu0 waiting for it; `extra` waits more than
/// the limit allows.
fn tables(extra: usize) -> &'static ScheduleTables {
    let counts = wait_counts(MAX_STREAM_OPS / 2 + extra);
    assert!(counts.iter().all(|&c| (1..=3).contains(&c)), "{counts:?}");
    let buffers = leak(
        (0..GPU_TASKS)
            .map(|i| BufferDesc {
                name: Box::leak(format!("b{i}").into_boxed_str()),
                kind: BufferKind::Raw {
                    size: u64::from(FILL_N) * 4,
                    align: 256,
                },
                multiplicity: 1,
                cpu_access: true,
            })
            .collect(),
    );
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
    let task = |name: String, engine, work, writes, waits| TaskDesc {
        name: Box::leak(name.into_boxed_str()),
        engine: EngineId(engine),
        work,
        wcet_ns: 20_000,
        budget_ns: PERIOD_NS,
        deadline_ns: PERIOD_NS,
        release_ns: 0,
        reads: &[],
        writes,
        waits,
        modes: ModeMask::ALL,
    };
    let mut tasks = vec![task("src".into(), 0, Work::Cpu, &[][..], &[][..])];
    for (i, &c) in counts.iter().enumerate() {
        let waits = leak(
            (0..c)
                .map(|lag| Wait {
                    task: TaskId(0),
                    lag: lag as u8,
                })
                .collect(),
        );
        let work = Work::Gpu(GpuWork {
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
        });
        let writes = leak(vec![BufferId(i as u16)]);
        tasks.push(task(format!("g{i}"), 1, work, writes, waits));
    }
    Box::leak(Box::new(ScheduleTables {
        name: "stream_limit",
        profile: "sil",
        period_ns: PERIOD_NS,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines: leak(vec![
            EngineDesc {
                name: "cpu0",
                kind: EngineKind::Cpu,
                instance: 0,
                queue_capacity: 64,
                graph: false,
                vpu: None,
            },
            EngineDesc {
                name: "gpu0",
                kind: EngineKind::Gpu,
                instance: 0,
                queue_capacity: 64,
                graph: false,
                vpu: None,
            },
        ]),
        buffers,
        tasks: leak(tasks),
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: &[],
        cubins: leak(vec![CubinDesc {
            name: "selftest",
            variants,
        }]),
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }))
}

struct Nothing;

impl CpuTask for Nothing {
    fn run(&mut self, _ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        Ok(())
    }
}

#[test]
fn a_stream_at_the_limit_runs_and_one_past_it_is_refused() {
    // The 64-task storage is built by value: a thread with room for it.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(at_the_limit)
        .expect("spawn")
        .join()
        .expect("the run passes");
}

fn at_the_limit() {
    // One wait more: two operations more (both frames in flight), refused by the check.
    let Err(e) = Schedule::check(tables(1)) else {
        panic!("a schedule past MAX_STREAM_OPS passed the check")
    };
    assert_eq!(
        e,
        TableError::StreamOps {
            engine: EngineId(1),
            engine_name: "gpu0",
            ops: MAX_STREAM_OPS + 2,
        }
    );

    // Exactly at the limit: it runs, every task in every frame, without a fault.
    let s: &'static Schedule =
        Box::leak(Box::new(Schedule::check(tables(0)).expect("at the limit")));
    orin_exec_kernels::register_models(s.tables(), orin_exec::sil::register_kernel_model)
        .expect("kernel models");
    let storage = Box::leak(Box::new(Storage::<64, 63, 63, 1>::new()));
    let mut exec = Builder::new(s, storage)
        .config(Config {
            virtual_clock: true,
            realtime_priority: None,
            // A lost signal shows as a fault within a second, not as a hang.
            virtual_wait_cap_us: 300_000,
            ..Config::default()
        })
        .bind(TaskId(0), Box::leak(Box::new(Nothing)))
        .init()
        .expect("init")
        .seal()
        .expect("seal");
    let frames = 5;
    for _ in 0..frames {
        let r = exec.step().expect("step");
        assert_eq!(r.faults, 0, "frame {}", r.frame);
    }
    for i in 0..s.tasks.len() {
        let runs = exec.counters(TaskId(i as u16)).runs;
        assert_eq!(runs, frames, "task {}", s.tasks[i].name);
    }
    exec.shutdown().expect("shutdown");
}
