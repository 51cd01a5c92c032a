//! The frame in which the mode changes: two modes each race-free can still race on a shared
//! buffer at the switch, because a wait for a task its frame did not plan is dropped. The
//! validator analyses every switch a health rule can make and names the tasks and modes.
//!
//! Covers: REQ-ROB-022

use std::path::Path;

use orin_exec_schedule::{Diagnostics, Report, check_str};

/// Modes `a` and `b`, a rule switching to `b` (and, with `back`, one switching to `a`), and
/// `body`.
fn schedule(back: bool, body: &str) -> String {
    let mut text = String::from(
        "name = \"t\"\nprofile = \"sil\"\nperiod = \"10ms\"\nlookahead = 1\nmodes = [\"a\", \"b\"]\n\n\
         [engines]\ncpu = [{ name = \"cpu0\" }, { name = \"cpu1\" }, { name = \"cpu2\" }]\n",
    );
    text += body;
    text += "\n[[health]]\nfault = \"task_error\"\ntask = \"w\"\naction = \"switch_mode\"\nmode = \"b\"\n";
    if back {
        text += "\n[[health]]\nfault = \"task_error\"\ntask = \"v\"\naction = \"switch_mode\"\nmode = \"a\"\n";
    }
    text
}

fn check(text: &str) -> Result<Report, Diagnostics> {
    check_str(Path::new("/nonexistent/app/schedule.toml"), text)
}

fn task(name: &str, engine: &str, modes: &str, lines: &str) -> String {
    format!(
        "\n[[task]]\nname = \"{name}\"\nengine = \"{engine}\"\nmodes = [{modes}]\nwcet = \"1ms\"\n{lines}"
    )
}

/// Mode `a`: `w` (cpu0) writes `buf`, `r` (cpu1) reads it after `w`, and `w` waits for the
/// previous frame's `r`; mode `b`: `v` (cpu2, then `v_lines`) reads it. Each mode alone is
/// race-free. At the switch, `w` of the last frame of `a` writes the buffer that `v` of the
/// first frame of `b` reads, and nothing orders them.
fn racy(v_lines: &str) -> String {
    [
        "\n[[buffer]]\nname = \"buf\"\nkind = \"raw\"\nsize = 64\n",
        &task(
            "w",
            "cpu0",
            "\"a\"",
            "writes = [\"buf\"]\nafter = [\"r@-1\"]\n",
        ),
        &task("r", "cpu1", "\"a\"", "reads = [\"buf\"]\nafter = [\"w\"]\n"),
        &task(
            "v",
            "cpu2",
            "\"b\"",
            &format!("reads = [\"buf\"]\n{v_lines}"),
        ),
    ]
    .concat()
}

#[test]
fn each_mode_alone_is_race_free() {
    // Without a switch (the rule only logs), the same tasks are accepted: the race is the
    // switch's.
    let text = schedule(false, &racy(""))
        .replace("action = \"switch_mode\"\nmode = \"b\"", "action = \"log\"");
    check(&text).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_race_only_at_the_switch_is_rejected_naming_tasks_and_modes() {
    let text = schedule(false, &racy(""));
    let d = check(&text).expect_err("a switch race is rejected");
    let s = d.to_string();
    assert_eq!(d.error_count(), 1, "{s}");
    assert!(
        s.contains("buffer race on `buf` when mode `a` switches to `b`: `w` of frame s-1 (mode `a`) writes it and `v` of frame s (mode `b`) reads the same buffer, and nothing orders them"),
        "{s}"
    );
    assert!(s.contains("add `after = [\"w@-1\"]` to `v`"), "{s}");
    // It points at `v`'s access of the buffer (the last `reads` of the file).
    let at = text.rfind("reads = [\"buf\"]").expect("v's reads") + "reads = [".len();
    let line = text[..at].matches('\n').count() + 1;
    let column = at - text[..at].rfind('\n').expect("a line");
    let e = d.iter().next().expect("one error");
    assert_eq!((e.line, e.column), (line, column), "{s}");
}

#[test]
fn the_suggested_wait_is_kept_across_the_switch_and_makes_it_safe() {
    // `v` waits for `w` of the previous frame: in mode `b` alone `w` is never planned and the
    // wait is dropped; at the switch `w` ran in frame s-1 and the wait orders the two.
    check(&schedule(false, &racy("after = [\"w@-1\"]\n"))).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_chain_through_the_previous_mode_orders_and_a_dropped_wait_does_not() {
    // `v` waits for `r` of the previous frame, and `r` for `w`: at the switch `r` of frame
    // s-1 ran, so `w`(s-1) → `r`(s-1) → `v`(s) orders them.
    check(&schedule(false, &racy("after = [\"r@-1\"]\n"))).unwrap_or_else(|d| panic!("{d}"));
    // Waiting for `u`, a task of `b` only, does not: in the first frame of `b` the wait names
    // frame s-1, where `u` did not run, and it is dropped.
    let body = racy("after = [\"u@-1\"]\n") + &task("u", "cpu0", "\"b\"", "");
    let d = check(&schedule(false, &body)).expect_err("still a race");
    assert!(
        d.to_string()
            .contains("`w` of frame s-1 (mode `a`) writes it and `v` of frame s (mode `b`)"),
        "{d}"
    );
}

#[test]
fn one_engine_instance_orders_the_switch() {
    // `v` on cpu0 behind `w`: the worker runs frame s-1's `w` before frame s's `v`.
    let body = racy("").replace(
        "name = \"v\"\nengine = \"cpu2\"",
        "name = \"v\"\nengine = \"cpu0\"",
    );
    check(&schedule(false, &body)).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn each_switch_direction_is_analysed_and_named() {
    // With a rule back to `a`, the switch from `b` to `a` races too: `w` of the first frame of
    // `a` waits for `r` of frame s-1, which did not run, so nothing orders it after `v`.
    let d = check(&schedule(true, &racy("after = [\"w@-1\"]\n"))).expect_err("b → a races");
    let s = d.to_string();
    assert_eq!(d.error_count(), 1, "{s}");
    assert!(
        s.contains("when mode `b` switches to `a`: `v` of frame s-1 (mode `b`) reads it and `w` of frame s (mode `a`) writes the same buffer"),
        "{s}"
    );
    assert!(s.contains("add `after = [\"v@-1\"]` to `w`"), "{s}");
    let fixed =
        racy("after = [\"w@-1\"]\n").replace("after = [\"r@-1\"]", "after = [\"r@-1\", \"v@-1\"]");
    check(&schedule(true, &fixed)).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn multiple_copies_race_further_from_the_switch() {
    // Double-buffered: frame s-1's `w` and frame s+1's `v` share a copy (so do s-2 and s).
    let body = racy("").replace("size = 64\n", "size = 64\nmultiplicity = 2\n");
    let d = check(&schedule(false, &body)).expect_err("a switch race");
    let s = d.to_string();
    assert_eq!(d.error_count(), 1, "{s}");
    assert!(
        s.contains("`w` of frame s-1 (mode `a`) writes it and `v` of frame s+1 (mode `b`) reads the same copy (multiplicity 2)"),
        "{s}"
    );
    assert!(s.contains("add `after = [\"w@-2\"]` to `v`"), "{s}");
    let fixed =
        racy("after = [\"w@-2\"]\n").replace("size = 64\n", "size = 64\nmultiplicity = 2\n");
    check(&schedule(false, &fixed)).unwrap_or_else(|d| panic!("{d}"));
}
