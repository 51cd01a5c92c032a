//! A checked schedule reads like its tables, but they cannot be changed through it.
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
    let s = SCHEDULE;
    s.period_ns = 1;
}
