//! Every route to a `Schedule` that skips `Schedule::check` is a compile error: a struct
//! literal (the field is private, and the plain-data fields belong to `ScheduleTables`), and
//! changing the tables of a checked schedule through its `Deref` (there is no `DerefMut`, and
//! the tables are behind shared `'static` references).
//!
//! Covers: REQ-API-005, REQ-API-004

#[test]
fn forging_a_schedule_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
