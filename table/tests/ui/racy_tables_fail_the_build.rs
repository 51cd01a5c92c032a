//! A checked `static` is checked by the compiler: tables with a buffer race (`w` on cpu0
//! writes `buf`, `r` on cpu1 reads it, nothing orders them) fail the build with the message.
use orin_exec_table::*;

static TASKS: [TaskDesc; 2] = [
    task("w", 0, &[], &[BufferId(0)]),
    task("r", 1, &[BufferId(0)], &[]),
];

const fn task(
    name: &'static str,
    engine: u8,
    reads: &'static [BufferId],
    writes: &'static [BufferId],
) -> TaskDesc {
    TaskDesc {
        name,
        engine: EngineId(engine),
        work: Work::Cpu,
        wcet_ns: 1_000,
        budget_ns: 1_000,
        deadline_ns: 1_000_000,
        release_ns: 0,
        reads,
        writes,
        waits: &[],
        modes: ModeMask::ALL,
    }
}

static TABLES: ScheduleTables = ScheduleTables {
    name: "racy",
    profile: "sil",
    period_ns: 1_000_000,
    minor_frames_ns: &[0],
    lookahead: 0, threads: &[],
    engines: &[
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
    ],
    buffers: &[BufferDesc {
        name: "buf",
        kind: BufferKind::Raw {
            size: 64,
            align: 64,
        },
        multiplicity: 1,
        cpu_access: true,
    }],
    tasks: &TASKS,
    modes: &[ModeDesc { name: "normal" }],
    health: &[],
    cubins: &[],
    loadables: &[],
    pva_programs: &[],
    timeline: &[],
    cpu_waits: &[],
};

pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {
    Ok(s) => s,
    Err(e) => panic!("{}", e.message()),
};

fn main() {
    let _ = SCHEDULE;
}
