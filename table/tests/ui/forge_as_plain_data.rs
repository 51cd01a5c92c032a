//! `Schedule` is no longer the plain-data struct: its fields are `ScheduleTables`'.
use orin_exec_table::*;

static FORGED: Schedule = Schedule {
    name: "s",
    profile: "sil",
    period_ns: 1_000_000,
};

fn main() {
    let _ = FORGED;
}
