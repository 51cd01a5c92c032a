//! The runtime takes a schedule at its limits: 64 tasks, 64 buffers of 4 copies, 32 modes, a
//! task waiting for 16 others and a dependency 6 frames back, all in one schedule, pass
//! `Schedule::check`, init on SIL and run frames without a fault; a DLA input aligned to
//! exactly 32 bytes inits, and one aligned below is refused by `Schedule::check` before init
//! could see it.
//!
//! Covers: REQ-ROB-005

mod common;

use common::{Variant, serial, try_schedule};
use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Storage, TaskFault};
use orin_exec::limits::{MAX_BUFFERS, MAX_COPIES, MAX_LAG, MAX_MODES, MAX_TASKS, MAX_WAITS};
use orin_exec::table::*;
use static_cell::ConstStaticCell;

const PERIOD_NS: u64 = 10_000_000;

struct Nop;

impl CpuTask for Nop {
    fn run(&mut self, _: &CpuCtx<'_>) -> Result<(), TaskFault> {
        Ok(())
    }
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn name(prefix: &str, i: usize) -> &'static str {
    String::leak(format!("{prefix}{i}"))
}

fn virtual_config() -> Config {
    Config {
        virtual_clock: true,
        realtime_priority: None,
        virtual_wait_cap_us: 200_000,
        ..Config::default()
    }
}

/// Task `i` writes buffer `i`; the last task waits for the first `MAX_WAITS` tasks, the one
/// before it for task 0 `MAX_LAG` frames back.
fn at_the_limits() -> &'static Schedule {
    let buffers = (0..MAX_BUFFERS)
        .map(|i| BufferDesc {
            name: name("b", i),
            kind: BufferKind::Raw {
                size: 64,
                align: 64,
            },
            multiplicity: MAX_COPIES as u8,
            cpu_access: true,
        })
        .collect();
    let tasks = (0..MAX_TASKS)
        .map(|i| {
            let waits = if i == MAX_TASKS - 1 {
                (0..MAX_WAITS)
                    .map(|t| Wait {
                        task: TaskId(t as u16),
                        lag: 0,
                    })
                    .collect()
            } else if i == MAX_TASKS - 2 {
                vec![Wait {
                    task: TaskId(0),
                    lag: MAX_LAG as u8,
                }]
            } else {
                vec![]
            };
            TaskDesc {
                name: name("t", i),
                engine: EngineId(0),
                work: Work::Cpu,
                wcet_ns: 10_000,
                budget_ns: 10_000,
                deadline_ns: PERIOD_NS,
                release_ns: 0,
                reads: &[],
                writes: leak(vec![BufferId(i as u16)]),
                waits: leak(waits),
                modes: ModeMask::ALL,
            }
        })
        .collect();
    let modes = (0..MAX_MODES).map(|m| ModeDesc { name: name("m", m) });
    let tables = Box::leak(Box::new(ScheduleTables {
        name: "limits",
        profile: "sil",
        period_ns: PERIOD_NS,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines: leak(vec![EngineDesc {
            name: "cpu0",
            kind: EngineKind::Cpu,
            instance: 0,
            queue_capacity: MAX_TASKS as u16,
            graph: false,
            vpu: None,
        }]),
        buffers: leak(buffers),
        tasks: leak(tasks),
        modes: leak(modes.collect()),
        health: &[],
        cubins: &[],
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }));
    Box::leak(Box::new(
        Schedule::check(tables).unwrap_or_else(|e| panic!("refused at the limits: {e}")),
    ))
}

/// Covers: REQ-ROB-005, REQ-ROB-001
#[test]
fn a_schedule_at_the_limits_inits_and_runs_on_sil() {
    let _serial = serial();
    let schedule = at_the_limits();
    // Storage sized to it: 64 tasks, 64 buffers of 4 copies, 1 CPU worker; built in static
    // memory, as an application does (it is too large for a test thread's stack).
    type AtTheLimits = Storage<MAX_TASKS, MAX_BUFFERS, { MAX_BUFFERS * MAX_COPIES }, 1>;
    static STORAGE: ConstStaticCell<AtTheLimits> = ConstStaticCell::new(AtTheLimits::new());
    let storage = STORAGE.take();
    let mut builder = Builder::new(schedule, storage).config(virtual_config());
    for i in 0..MAX_TASKS {
        builder = builder.bind(TaskId(i as u16), Box::leak(Box::new(Nop)));
    }
    let mut exec = builder
        .init()
        .unwrap_or_else(|e| panic!("init: {e}"))
        .seal()
        .expect("seal");
    // Past the fence history (8 frames) and the copies (4), so every index wraps.
    for _ in 0..20 {
        let report = exec.step().expect("step");
        assert_eq!(report.faults, 0, "frame {}", report.frame);
    }
    exec.shutdown().expect("shutdown");
}

/// Covers: REQ-ROB-005, REQ-ROB-004
#[test]
fn a_dla_input_aligned_to_32_bytes_inits_and_16_is_refused_before_init() {
    let _serial = serial();
    let at = Variant {
        image_align: DLA_ALIGN,
        ..Variant::default()
    };
    let schedule = try_schedule(at).unwrap_or_else(|e| panic!("refused at 32: {e}"));
    let runtime = Builder::new(schedule, Box::leak(Box::new(common::MiniStorage::new())))
        .config(virtual_config())
        .bind(common::INPUT, Box::leak(Box::new(Nop)))
        .bind(common::CHECK, Box::leak(Box::new(Nop)))
        .init()
        .unwrap_or_else(|e| panic!("init at 32: {e}"));
    runtime.seal().expect("seal").shutdown().expect("shutdown");
    let past = Variant {
        image_align: DLA_ALIGN / 2,
        ..Variant::default()
    };
    assert_eq!(
        try_schedule(past).err(),
        Some(TableError::Limit {
            limit: Limit::DlaAlign,
            name: "image",
            value: DLA_ALIGN / 2,
        })
    );
}
