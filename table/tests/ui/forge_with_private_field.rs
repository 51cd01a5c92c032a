//! The field of a checked schedule is private: a literal cannot wrap unchecked tables.
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

static FORGED: Schedule = Schedule { tables: &TABLES };

fn main() {
    let _ = FORGED;
}
