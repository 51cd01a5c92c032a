//! A small checked schedule and a hand-written run of it, shared by the tests.

use orin_exec::table::*;
use orin_exec::trace::record::NO_TASK;
use orin_exec::trace::{Event, Record};

static ENGINES: [EngineDesc; 2] = [
    EngineDesc {
        name: "cpu0",
        kind: EngineKind::Cpu,
        instance: 0,
        queue_capacity: 4,
        graph: false,
        vpu: None,
    },
    EngineDesc {
        name: "cpu1",
        kind: EngineKind::Cpu,
        instance: 1,
        queue_capacity: 4,
        graph: false,
        vpu: None,
    },
];

const fn task(
    name: &'static str,
    engine: u8,
    release_ns: u64,
    waits: &'static [Wait],
    modes: ModeMask,
) -> TaskDesc {
    TaskDesc {
        name,
        engine: EngineId(engine),
        work: Work::Cpu,
        wcet_ns: 200_000,
        budget_ns: 250_000,
        deadline_ns: 900_000,
        release_ns,
        reads: &[],
        writes: &[],
        waits,
        modes,
    }
}

/// a (cpu0), b (cpu1, waits a, mode normal only), c (cpu0, waits b of the previous frame).
static TASKS: [TaskDesc; 3] = [
    task("a", 0, 100_000, &[], ModeMask::ALL),
    task(
        "b",
        1,
        0,
        &[Wait {
            task: TaskId(0),
            lag: 0,
        }],
        ModeMask(1),
    ),
    task(
        "c",
        0,
        0,
        &[Wait {
            task: TaskId(1),
            lag: 1,
        }],
        ModeMask::ALL,
    ),
];

const fn row(mode: u8, task: u16, start: u64, finish: u64) -> TimelineEntry {
    TimelineEntry {
        mode: ModeId(mode),
        task: TaskId(task),
        latest_start_ns: start,
        latest_finish_ns: finish,
        slack_ns: 900_000 - finish,
    }
}

/// The worst-case timeline of the fixture (values as a validator would give them).
pub static TIMELINE: [TimelineEntry; 5] = [
    row(0, 0, 100_000, 300_000),
    row(0, 1, 300_000, 500_000),
    row(0, 2, 300_000, 500_000),
    row(1, 0, 100_000, 300_000),
    row(1, 2, 300_000, 500_000),
];

static TABLES: ScheduleTables = ScheduleTables {
    name: "fixture",
    profile: "sil",
    period_ns: 1_000_000,
    minor_frames_ns: &[0],
    lookahead: 0,
    threads: &[],
    engines: &ENGINES,
    buffers: &[],
    tasks: &TASKS,
    modes: &[ModeDesc { name: "normal" }, ModeDesc { name: "degraded" }],
    health: &[],
    cubins: &[],
    loadables: &[],
    pva_programs: &[],
    timeline: &TIMELINE,
    cpu_waits: &[],
};

/// The fixture, checked at compile time.
pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {
    Ok(s) => s,
    Err(e) => panic!("{}", e.message()),
};

/// Frame `f` is released at `T0 + f * PERIOD + release error`.
pub const T0: u64 = 10_000_000;
/// Period of the fixture.
pub const PERIOD: u64 = 1_000_000;

fn rec(time_ns: u64, frame: u64, task: u16, event: Event, value: u64) -> Record {
    Record {
        time_ns,
        frame,
        task,
        event,
        value,
    }
}

/// A run of four frames, hand-written with known numbers:
///
/// * release errors 0, 1000, 2000, 3000 ns (frame `f`: `f * 1000`);
/// * frame f (relative to its planned release): a runs 100us..(300us + f us), b runs
///   400us..600us in frames 0..=1, c runs 300us + f us .. 450us;
/// * frame 1: b misses its deadline (a DeadlineMiss fault at 950us, reaction switch to
///   "degraded" at 960us); the mode switch is planned for frame 2, so b does not run in
///   frames 2 and 3;
/// * frame 3: c has a BudgetOverrun fault at 460us with a Log reaction.
pub fn run() -> Vec<Record> {
    let mut out = Vec::new();
    for f in 0..4u64 {
        let rel = T0 + f * PERIOD;
        let err = f * 1000;
        if f == 2 {
            out.push(rec(rel - 10_000, f, NO_TASK, Event::ModeSwitch, 1));
        }
        out.push(rec(rel + err, f, NO_TASK, Event::FrameRelease, err));
        let (a0, a1) = (rel + 100_000, rel + 300_000 + f * 1000);
        out.push(rec(a0, f, 0, Event::TaskStart, 0));
        out.push(rec(a1, f, 0, Event::TaskEnd, a1 - a0));
        if f < 2 {
            let (b0, b1) = (rel + 400_000, rel + 600_000);
            out.push(rec(b0, f, 1, Event::TaskStart, 0));
            out.push(rec(b1, f, 1, Event::TaskEnd, b1 - b0));
        }
        let (c0, c1) = (rel + 300_000 + f * 1000, rel + 450_000);
        out.push(rec(c0, f, 2, Event::TaskStart, 0));
        out.push(rec(c1, f, 2, Event::TaskEnd, c1 - c0));
        if f == 1 {
            out.push(rec(
                rel + 950_000,
                f,
                1,
                Event::Fault(FaultKind::DeadlineMiss),
                0,
            ));
            out.push(rec(
                rel + 960_000,
                f,
                1,
                Event::Reaction(Action::SwitchMode(ModeId(1))),
                1,
            ));
        }
        if f == 3 {
            out.push(rec(
                rel + 460_000,
                f,
                2,
                Event::Fault(FaultKind::BudgetOverrun),
                0,
            ));
            out.push(rec(rel + 470_000, f, 2, Event::Reaction(Action::Log), 0));
        }
    }
    out
}
