//! The task table of a checked schedule is a shared `'static` slice: no task can be edited
//! after the check (here: a WCET the timeline was proved with).
use orin_exec_table::*;

static TABLES: ScheduleTables = ScheduleTables {
    name: "s",
    profile: "sil",
    period_ns: 1_000_000,
    minor_frames_ns: &[0],
    lookahead: 0, threads: &[],
    engines: &[],
    buffers: &[],
    tasks: &[],
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

fn main() {
    SCHEDULE.tasks[0].wcet_ns = 0;
}
