//! The frame in which the mode changes: two modes each race-free can still race on a shared
//! buffer at the switch, because a wait for a task its frame did not plan is dropped. The
//! validator analyses every switch a health rule can make, and every sequence of them
//! (switches in consecutive frames included), and names the tasks, modes and frames.
//!
//! Covers: REQ-ROB-022, REQ-ROB-120

mod common;

use std::path::Path;

use common::generated_deps;

use orin_exec_schedule::{Diagnostics, Report, check_str};

/// `modes`, three CPU engines, `body`, and one rule per `(fault, task, mode)` switching to
/// `mode`.
fn schedule_with(modes: &[&str], rules: &[(&str, &str, &str)], body: &str) -> String {
    let modes: Vec<String> = modes.iter().map(|m| format!("\"{m}\"")).collect();
    let mut text = format!(
        "name = \"t\"\nprofile = \"sil\"\nperiod = \"10ms\"\nlookahead = 1\nmodes = [{}]\n\n\
         [engines]\ncpu = [{{ name = \"cpu0\" }}, {{ name = \"cpu1\" }}, {{ name = \"cpu2\" }}]\n",
        modes.join(", ")
    );
    text += body;
    for (fault, task, mode) in rules {
        text += &format!(
            "\n[[health]]\nfault = \"{fault}\"\ntask = \"{task}\"\naction = \"switch_mode\"\nmode = \"{mode}\"\n"
        );
    }
    text
}

/// Modes `a` and `b`, a rule switching to `b` (and, with `back`, one switching to `a`), and
/// `body`.
fn schedule(back: bool, body: &str) -> String {
    let rules: &[(&str, &str, &str)] = if back {
        &[("task_error", "w", "b"), ("task_error", "v", "a")]
    } else {
        &[("task_error", "w", "b")]
    };
    schedule_with(&["a", "b"], rules, body)
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

/// docs/schedule.md (Mode switches) shows the message of `e` and its help.
fn assert_documented(e: &orin_exec_schedule::Diagnostic) {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schedule.md");
    let doc = std::fs::read_to_string(&doc).expect("docs/schedule.md");
    assert!(
        doc.contains(&format!("error: {}\n", e.message)),
        "{}",
        e.message
    );
    let help = e.help.as_deref().expect("a help");
    assert!(doc.contains(&format!("= help: {help}\n")), "{help}");
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
    assert_documented(e);
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
    // `a` waits for `r` of frame s-1, which did not run, so nothing orders it after `v`. And
    // so does `a, b, a`: `w` of frame f+2 waits for `r` of frame f+1 (mode `b`): dropped.
    let d = check(&schedule(true, &racy("after = [\"w@-1\"]\n"))).expect_err("b → a races");
    let s = d.to_string();
    assert_eq!(d.error_count(), 2, "{s}");
    assert!(
        s.contains("when mode `b` switches to `a`: `v` of frame s-1 (mode `b`) reads it and `w` of frame s (mode `a`) writes the same buffer"),
        "{s}"
    );
    assert!(s.contains("add `after = [\"v@-1\"]` to `w`"), "{s}");
    assert!(
        s.contains("buffer race on `buf` across the mode switches `a` → `b` → `a`: `r` of frame f (mode `a`) reads it and `w` of frame f+2 (mode `a`) writes the same buffer"),
        "{s}"
    );
    // `w` waiting for `v@-1` orders the single switch, and `v` waiting for `r@-1` carries the
    // order through any number of frames of `b` (see `a_b_a_is_rejected_with_the_frames_named`).
    let fixed = racy("after = [\"w@-1\", \"r@-1\"]\n")
        .replace("after = [\"r@-1\"]", "after = [\"r@-1\", \"v@-1\"]");
    check(&schedule(true, &fixed)).unwrap_or_else(|d| panic!("{d}"));
}

/// Mode `a`: `w` (cpu0) writes `buf`; mode `c`: `v` (cpu1) reads it, after `w@-1` (which
/// orders the direct switch `a` → `c`); mode `b` (cpu2) does not touch it.
fn three_modes(v_engine: &str) -> String {
    let body = [
        "\n[[buffer]]\nname = \"buf\"\nkind = \"raw\"\nsize = 64\n",
        &task("w", "cpu0", "\"a\"", "writes = [\"buf\"]\n"),
        &task("u", "cpu2", "\"b\"", ""),
        &task(
            "v",
            v_engine,
            "\"c\"",
            "reads = [\"buf\"]\nafter = [\"w@-1\"]\n",
        ),
    ]
    .concat();
    schedule_with(
        &["a", "b", "c"],
        &[("task_error", "w", "b"), ("deadline_miss", "w", "c")],
        &body,
    )
}

#[test]
fn a_b_a_is_rejected_with_the_frames_named() {
    // `w` (cpu0, mode `a`) writes `buf` after the previous frame's `r` (cpu1); `v` (cpu2,
    // mode `b`) reads it after `w@-1`, and `w` waits for `v@-1`: both single switches are
    // ordered. In `a, b, a` the wait of frame f+2's `w` on `r` names frame f+1, where `r`
    // did not run: `r` of frame f may still read while `w` of frame f+2 writes.
    let body =
        racy("after = [\"w@-1\"]\n").replace("after = [\"r@-1\"]", "after = [\"r@-1\", \"v@-1\"]");
    let text = schedule(true, &body);
    let d = check(&text).expect_err("a, b, a races");
    let s = d.to_string();
    assert_eq!(d.error_count(), 1, "{s}");
    let e = d.iter().next().expect("one error");
    assert_eq!(
        e.message,
        "buffer race on `buf` across the mode switches `a` → `b` → `a`: `r` of frame f (mode `a`) reads it and `w` of frame f+2 (mode `a`) writes the same buffer, and nothing orders them"
    );
    assert!(
        e.notes
            .iter()
            .any(|n| n.starts_with("the modes of frames f .. f+2: `a`, `b`, `a` (")),
        "{s}"
    );
    assert_eq!(
        e.help.as_deref(),
        Some(
            "order `r` before `w` whatever the modes between: run both on one engine instance, or chain them through tasks that run in those modes; `after = [\"r@-2\"]` on `w` orders this sequence of frames only"
        )
    );
    // At `w`'s access of the buffer.
    let at = text.find("writes = [\"buf\"]").expect("w's writes") + "writes = [".len();
    let line = text[..at].matches('\n').count() + 1;
    assert_eq!(e.line, line, "{s}");
    assert_documented(e);
    // The lag the help names orders this sequence only: `a, b, b, a` still races.
    let lagged = body.replace("\"v@-1\"]", "\"v@-1\", \"r@-2\"]");
    let d = check(&schedule(true, &lagged)).expect_err("a, b, b, a races");
    assert!(
        d.to_string()
            .contains("`r` of frame f (mode `a`) reads it and `w` of frame f+3 (mode `a`)"),
        "{d}"
    );
    // A chain through `b`'s task orders every sequence: `v` waits for `r@-1`, and each `v`
    // follows the previous one on cpu2.
    let chained = body.replace("after = [\"w@-1\"]\n", "after = [\"w@-1\", \"r@-1\"]\n");
    check(&schedule(true, &chained)).unwrap_or_else(|d| panic!("{d}"));
}

#[test]
fn a_b_c_is_rejected_and_one_engine_instance_orders_it() {
    // `a` → `c` alone is ordered by `v`'s wait for `w@-1`; in `a, b, c` that wait names the
    // frame of `b`, where `w` did not run, and nothing else orders the two.
    let d = check(&three_modes("cpu1")).expect_err("a, b, c races");
    let s = d.to_string();
    assert_eq!(d.error_count(), 1, "{s}");
    assert!(
        s.contains("buffer race on `buf` across the mode switches `a` → `b` → `c`: `w` of frame f (mode `a`) writes it and `v` of frame f+2 (mode `c`) reads the same buffer"),
        "{s}"
    );
    // A lag orders one length of `b` only: with `w@-2`, `a, b, b, c` races.
    assert!(
        s.contains("`after = [\"w@-2\"]` on `v` orders this sequence of frames only"),
        "{s}"
    );
    let d = check(&three_modes("cpu1").replace("\"w@-1\"]", "\"w@-1\", \"w@-2\"]"))
        .expect_err("a, b, b, c races");
    assert!(
        d.to_string()
            .contains("`w` of frame f (mode `a`) writes it and `v` of frame f+3 (mode `c`)"),
        "{d}"
    );
    // `v` behind `w` on cpu0: the worker runs them in frame order whatever the modes between.
    check(&three_modes("cpu0")).unwrap_or_else(|d| panic!("{d}"));
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

/// The modes of generated schedules (the first `n` of them).
const MODES: [&str; 3] = ["a", "b", "c"];

/// A generated task.
#[derive(Clone, Debug)]
struct Gen {
    engine: usize,
    /// Bit `i`: runs in `MODES[i]` (never empty).
    modes: u8,
    /// 0: no access, 1: reads `buf`, 2: writes it.
    access: u8,
    deps: Vec<(usize, u32)>,
}

/// A generated schedule: the number of modes, the modes rules switch to (bits, never
/// empty), the multiplicity of `buf`, the tasks.
#[derive(Clone, Debug)]
struct Case {
    n: usize,
    targets: u8,
    m: u32,
    tasks: Vec<Gen>,
}

impl Case {
    fn planned(&self, t: usize, mode: usize) -> bool {
        self.tasks[t].modes & (1 << mode) != 0
    }
}

fn gen_case() -> impl proptest::strategy::Strategy<Value = Case> {
    use proptest::prelude::*;
    (2..=3usize, 0..8u8, 0..3usize).prop_flat_map(|(n, targets, mi)| {
        let all = (1u8 << n) - 1;
        // Three modes with copies up to 2, two with up to 4: the oracle's window stays small.
        let m = if n == 3 { [1, 2, 2][mi] } else { [1, 2, 4][mi] };
        // Mostly every mode a target: sequences of switches need a way back.
        let targets = if targets < 6 {
            all
        } else {
            1 << (usize::from(targets) % n)
        };
        let task = (
            0..3usize,
            1..=all,
            0..3u8,
            prop::collection::vec((0..6usize, 0..=3u32), 0..3),
        );
        prop::collection::vec(task, 2..7).prop_map(move |raw| {
            let tasks = raw
                .into_iter()
                .enumerate()
                .map(|(i, (engine, modes, access, deps))| Gen {
                    engine,
                    modes,
                    access,
                    deps: generated_deps(i, deps),
                })
                .collect();
            Case {
                n,
                targets,
                m,
                tasks,
            }
        })
    })
}

fn render(c: &Case) -> String {
    let mut body = format!(
        "\n[[buffer]]\nname = \"buf\"\nkind = \"raw\"\nsize = 64\nmultiplicity = {}\n",
        c.m
    );
    for (i, t) in c.tasks.iter().enumerate() {
        let modes: Vec<String> = (0..c.n)
            .filter(|&m| t.modes & (1 << m) != 0)
            .map(|m| format!("\"{}\"", MODES[m]))
            .collect();
        let mut lines = match t.access {
            1 => "reads = [\"buf\"]\n".to_owned(),
            2 => "writes = [\"buf\"]\n".to_owned(),
            _ => String::new(),
        };
        if !t.deps.is_empty() {
            let deps: Vec<String> = t
                .deps
                .iter()
                .map(|&(d, lag)| match lag {
                    0 => format!("\"t{d}\""),
                    _ => format!("\"t{d}@-{lag}\""),
                })
                .collect();
            lines += &format!("after = [{}]\n", deps.join(", "));
        }
        body += &task(
            &format!("t{i}"),
            &format!("cpu{}", t.engine),
            &modes.join(", "),
            &lines,
        );
    }
    // One rule per target, each for its own fault kind of `t0`.
    let faults = ["task_error", "deadline_miss", "budget_overrun"];
    let rules: Vec<(&str, &str, &str)> = (0..c.n)
        .filter(|&m| c.targets & (1 << m) != 0)
        .map(|m| (faults[m], "t0", MODES[m]))
        .collect();
    schedule_with(&MODES[..c.n], &rules, &body)
}

/// Frames unrolled one at a time, exactly as the executive runs them: each engine runs its
/// planned tasks in declaration order, frame after frame; a wait is kept iff its task was
/// planned in the frame it names. Per planned instance, the tasks of frame 0 whose instance
/// precedes it (bit per task).
struct Unrolled<'a> {
    case: &'a Case,
    /// Per frame: its mode and, per task, `Some(preceded by)` if planned.
    frames: Vec<(usize, Vec<Option<u64>>)>,
}

impl Unrolled<'_> {
    /// Appends a frame in `mode`; returns the races it closes: `(x, y)` where `x` of frame 0
    /// and `y` of this frame share a copy of `buf`, one writes, and nothing orders them.
    fn push(&mut self, mode: usize) -> Vec<(usize, usize)> {
        let c = self.case;
        let h = self.frames.len();
        let mut row: Vec<Option<u64>> = vec![None; c.tasks.len()];
        for (t, g) in c.tasks.iter().enumerate() {
            if !c.planned(t, mode) {
                continue;
            }
            let mut by = if h == 0 { 1u64 << t } else { 0 };
            // The engine's previous instance: earlier in this frame, else the last planned
            // one of the latest frame before.
            let same = |u: usize| c.tasks[u].engine == g.engine;
            let prev = (0..t)
                .rev()
                .find(|&u| same(u) && row[u].is_some())
                .and_then(|u| row[u])
                .or_else(|| {
                    self.frames.iter().rev().find_map(|(_, r)| {
                        (0..c.tasks.len())
                            .rev()
                            .find(|&u| same(u) && r[u].is_some())
                            .and_then(|u| r[u])
                    })
                });
            by |= prev.unwrap_or(0);
            for &(d, lag) in &g.deps {
                let named = if lag == 0 {
                    row[d]
                } else {
                    (h as u32)
                        .checked_sub(lag)
                        .and_then(|f| self.frames[f as usize].1[d])
                };
                by |= named.unwrap_or(0);
            }
            row[t] = Some(by);
        }
        let mut races = Vec::new();
        if h > 0 && (h as u32).is_multiple_of(c.m) {
            let start = &self.frames[0].1;
            for (x, ax) in c.tasks.iter().enumerate() {
                for (y, ay) in c.tasks.iter().enumerate() {
                    let conflict =
                        ax.access > 0 && ay.access > 0 && (ax.access == 2 || ay.access == 2);
                    if let (true, Some(_), Some(by)) = (conflict, start[x], row[y])
                        && by & (1 << x) == 0
                    {
                        races.push((x, y));
                    }
                }
            }
        }
        self.frames.push((mode, row));
        races
    }
}

/// Every mode sequence of up to `window` frames the rules allow (frame 0 in any mode), as
/// the set of (`x`, `y`) that race in one of them after at least one switch.
fn oracle(c: &Case, window: usize) -> std::collections::BTreeSet<(usize, usize)> {
    fn walk(
        u: &mut Unrolled<'_>,
        window: usize,
        switched: bool,
        out: &mut std::collections::BTreeSet<(usize, usize)>,
    ) {
        if u.frames.len() == window {
            return;
        }
        let c = u.case;
        let cur = u.frames.last().map(|f| f.0);
        for mode in 0..c.n {
            let allowed = match cur {
                None => true,
                Some(cur) => mode == cur || c.targets & (1 << mode) != 0,
            };
            if !allowed {
                continue;
            }
            let switched = switched || cur.is_some_and(|cur| cur != mode);
            let races = u.push(mode);
            if switched {
                out.extend(races);
            }
            walk(u, window, switched, out);
            u.frames.pop();
        }
    }
    let mut out = Default::default();
    walk(
        &mut Unrolled {
            case: c,
            frames: Vec::new(),
        },
        window,
        false,
        &mut out,
    );
    out
}

/// The races of one mode sequence (by name), for a witness the validator names.
fn races_along(c: &Case, modes: &[usize]) -> Vec<(usize, usize)> {
    let mut u = Unrolled {
        case: c,
        frames: Vec::new(),
    };
    modes.iter().map(|&m| u.push(m)).last().unwrap_or_default()
}

/// `t3` in "`t3` of frame" (the first and the second such task of a message).
fn named_pair(message: &str) -> (usize, usize) {
    let ids: Vec<usize> = message
        .split("` of frame")
        .filter_map(|p| p.rsplit("`t").next()?.parse().ok())
        .collect();
    (ids[0], ids[1])
}

/// The validator's switch analysis (one switch, and sequences of switches) agrees with the
/// frames unrolled one at a time for every mode sequence of up to `2m + 6` frames (two
/// modes) or 8 (three): the same pairs of tasks race. Every sequence the validator names
/// races in the unrolled frames too. Schedules whose modes are each valid; both verdicts,
/// and races that need two switches, occur.
#[test]
fn switch_analysis_matches_the_unrolled_frames() {
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    // A fixed seed: the count of races after two switches (rare among random schedules)
    // is then the same in every run.
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 4000,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let counts = std::cell::Cell::new((0, 0, 0));
    runner
        .run(&gen_case(), |c| {
            let text = render(&c);
            let mut found = std::collections::BTreeSet::new();
            let mut sequences = 0;
            if let Err(d) = check(&text) {
                if d.iter()
                    .any(|e| e.is_error() && !e.message.contains("switch"))
                {
                    return Ok(()); // a mode alone is invalid: not this test's subject
                }
                for e in d.iter().filter(|e| e.is_error()) {
                    let pair = named_pair(&e.message);
                    found.insert(pair);
                    let Some(frames) = e
                        .notes
                        .iter()
                        .find_map(|n| n.strip_prefix("the modes of frames f .. f+"))
                    else {
                        continue;
                    };
                    sequences += 1;
                    let modes: Vec<usize> = frames
                        .split(" (")
                        .next()
                        .and_then(|f| f.split(": ").nth(1))
                        .expect("a list of modes")
                        .split(", ")
                        .map(|m| {
                            MODES
                                .iter()
                                .position(|x| format!("`{x}`") == m)
                                .expect("a mode")
                        })
                        .collect();
                    proptest::prop_assert!(
                        races_along(&c, &modes).contains(&pair),
                        "{} does not race along {:?}\n{}",
                        e.message,
                        modes,
                        text
                    );
                }
            }
            let window = if c.n == 2 { 2 * c.m as usize + 6 } else { 8 };
            let expected = oracle(&c, window);
            proptest::prop_assert_eq!(&found, &expected, "{}", text);
            let (races, safe, multi) = counts.get();
            counts.set(if found.is_empty() {
                (races, safe + 1, multi)
            } else {
                (races + 1, safe, multi + usize::from(sequences > 0))
            });
            Ok(())
        })
        .unwrap();
    let (races, safe, multi) = counts.get();
    assert!(
        races >= 100 && safe >= 100 && multi >= 10,
        "races {races}, safe {safe}, races after two switches {multi}"
    );
}
