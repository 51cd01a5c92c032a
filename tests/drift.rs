//! No drift: frames are released at absolute times `t0 + f·P`, so the release error stays
//! bounded and does not grow, on the virtual clock over 10⁵ frames and in real time over
//! 3,000 frames at a 1 ms period.
//!
//! Covers: REQ-SCH-009

mod common;

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Storage, TaskFault};
use orin_exec::table::*;

struct Tick;

impl CpuTask for Tick {
    fn run(&mut self, _ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        Ok(())
    }
}

static ENGINES: [EngineDesc; 1] = [EngineDesc {
    name: "cpu0",
    kind: EngineKind::Cpu,
    instance: 0,
    queue_capacity: 4,
    graph: false,
    vpu: None,
}];
static TASKS: [TaskDesc; 1] = [TaskDesc {
    name: "tick",
    engine: EngineId(0),
    work: Work::Cpu,
    wcet_ns: 100_000,
    budget_ns: 500_000,
    deadline_ns: 1_000_000,
    release_ns: 0,
    reads: &[],
    writes: &[],
    waits: &[],
    modes: ModeMask::ALL,
}];
static TABLES: ScheduleTables = ScheduleTables {
    name: "tick",
    profile: "sil",
    period_ns: 1_000_000,
    minor_frames_ns: &[0],
    lookahead: 1,
    threads: &[],
    engines: &ENGINES,
    buffers: &[],
    tasks: &TASKS,
    modes: &[ModeDesc { name: "normal" }],
    health: &[],
    cubins: &[],
    loadables: &[],
    pva_programs: &[],
    timeline: &[],
    cpu_waits: &[],
};
static SCHEDULE: Schedule = match Schedule::check(&TABLES) {
    Ok(s) => s,
    Err(e) => panic!("{}", e.message()),
};

fn release_errors(frames: u64, virtual_clock: bool) -> Vec<i64> {
    let storage = Box::leak(Box::new(Storage::<1, 0, 0, 1>::new()));
    let exec = Builder::new(&SCHEDULE, storage)
        .config(Config {
            virtual_clock,
            realtime_priority: None,
            ..Config::default()
        })
        .bind(TaskId(0), Box::leak(Box::new(Tick)))
        .init()
        .expect("init");
    let mut exec = exec.seal().expect("seal");
    let mut errors = Vec::with_capacity(frames as usize);
    for _ in 0..frames {
        errors.push(exec.step().expect("step").release_error_ns);
    }
    let runs = exec.counters(TaskId(0)).runs;
    if virtual_clock {
        assert_eq!(runs, frames);
    } else {
        // Without SCHED_FIFO on a shared machine the worker can wake after a 1 ms deadline;
        // those frames are reported as faults. Release timing is what this test is about.
        println!("{runs} of {frames} tick tasks met their 1 ms deadline");
    }
    exec.shutdown().expect("shutdown");
    errors
}

fn median(v: &[i64]) -> i64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    v[v.len() / 2]
}

#[test]
fn no_drift_on_the_virtual_clock_over_100k_frames() {
    let _serial = common::serial();
    let errors = release_errors(100_000, true);
    assert!(errors.iter().all(|&e| e == 0), "virtual releases are exact");
}

#[test]
#[ignore = "real-time suite (wall-clock judgement; fails on a loaded host): `cargo test -- --ignored`"]
fn no_drift_in_real_time_over_3000_frames_at_1ms() {
    let _serial = common::serial();
    let errors = release_errors(3000, false);
    let mut sorted = errors.clone();
    sorted.sort_unstable();
    let p99 = sorted[sorted.len() * 99 / 100];
    let max = *sorted.last().unwrap();
    let (first, last) = (median(&errors[..1000]), median(&errors[2000..]));
    println!(
        "release error over 3000 frames at 1 ms: median first 1000 {first} ns, last 1000 {last} ns, p99 {p99} ns, max {max} ns"
    );
    assert!(sorted[0] >= 0, "never released early");
    // Bounded. A release scheme that slept relative to the previous frame would accumulate
    // the wake-up latency (tens of microseconds a frame: a hundred milliseconds by the end).
    assert!(p99 < 5_000_000, "p99 release error {p99} ns");
    // Not growing (medians: robust against the spikes of a shared machine).
    assert!(
        (last - first).abs() < 200_000,
        "release error grew from {first} to {last} ns"
    );
}
