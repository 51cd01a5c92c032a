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
    // docs/schedule.md (Mode switches) shows this message and its help.
    let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schedule.md");
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

/// A generated task of a two-mode schedule (modes `a`, `b`, a rule switching to `b`).
#[derive(Clone, Debug)]
struct Gen {
    engine: usize,
    /// In `a`, in `b`.
    modes: (bool, bool),
    /// 0: no access, 1: reads `buf`, 2: writes it.
    access: u8,
    deps: Vec<(usize, u32)>,
}

fn gen_schedule() -> impl proptest::strategy::Strategy<Value = (u32, Vec<Gen>)> {
    use proptest::prelude::*;
    let task = (
        0..3usize,
        prop_oneof![Just((true, false)), Just((false, true)), Just((true, true))],
        0..3u8,
        prop::collection::vec((0..6usize, 0..=3u32), 0..3),
    );
    (1..=3u32, prop::collection::vec(task, 2..7)).prop_map(|(m, raw)| {
        let tasks = raw
            .into_iter()
            .enumerate()
            .map(|(i, (engine, modes, access, deps))| {
                let mut deps: Vec<(usize, u32)> = deps
                    .into_iter()
                    .filter_map(|(t, lag)| match lag {
                        0 if i > 0 => Some((t % i, 0)),
                        0 => None,
                        _ => Some((t % (i + 1), lag)),
                    })
                    .collect();
                deps.sort_unstable();
                deps.dedup();
                Gen {
                    engine,
                    modes,
                    access,
                    deps,
                }
            })
            .collect();
        (m, tasks)
    })
}

fn render(m: u32, tasks: &[Gen]) -> String {
    let mut body =
        format!("\n[[buffer]]\nname = \"buf\"\nkind = \"raw\"\nsize = 64\nmultiplicity = {m}\n");
    for (i, t) in tasks.iter().enumerate() {
        let modes = match t.modes {
            (true, false) => "\"a\"",
            (false, true) => "\"b\"",
            _ => "\"a\", \"b\"",
        };
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
        body += &task(&format!("t{i}"), &format!("cpu{}", t.engine), modes, &lines);
    }
    // The rule's task must exist: `w` is renamed `t0`.
    schedule(false, &body).replace("task = \"w\"", "task = \"t0\"")
}

/// The switch from `a` to `b` unrolled (frames `-m..m`, `a` before 0), ordered exactly as the
/// executive orders it: each engine runs its planned tasks in declaration order, frame after
/// frame; a wait is kept iff its task was planned in the frame it names. Whether some `x` of
/// frame `-k` and `y` of frame `m - k` (`1 ≤ k ≤ m`, one writing) are unordered.
fn unrolled_race(m: u32, tasks: &[Gen]) -> bool {
    let m = m as i64;
    let planned = |t: usize, f: i64| {
        if f < 0 {
            tasks[t].modes.0
        } else {
            tasks[t].modes.1
        }
    };
    // Every planned instance in execution order per engine, then edges.
    let frames: Vec<i64> = (-m..m).collect();
    let mut succ: std::collections::HashMap<(usize, i64), Vec<(usize, i64)>> = Default::default();
    for e in 0..3 {
        let seq: Vec<(usize, i64)> = frames
            .iter()
            .flat_map(|&f| (0..tasks.len()).map(move |t| (t, f)))
            .filter(|&(t, f)| tasks[t].engine == e && planned(t, f))
            .collect();
        for w in seq.windows(2) {
            succ.entry(w[0]).or_default().push(w[1]);
        }
    }
    for (y, t) in tasks.iter().enumerate() {
        for &f in &frames {
            for &(x, lag) in &t.deps {
                let g = f - i64::from(lag);
                if planned(y, f) && g >= -m && planned(x, g) {
                    succ.entry((x, g)).or_default().push((y, f));
                }
            }
        }
    }
    let reaches = |from: (usize, i64), to: (usize, i64)| {
        let mut seen = std::collections::HashSet::from([from]);
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            if n == to {
                return true;
            }
            for &s in succ.get(&n).into_iter().flatten() {
                if seen.insert(s) {
                    todo.push(s);
                }
            }
        }
        false
    };
    (1..=m).any(|k| {
        (0..tasks.len()).any(|x| {
            (0..tasks.len()).any(|y| {
                let (ax, ay) = (tasks[x].access, tasks[y].access);
                planned(x, -k)
                    && planned(y, m - k)
                    && ax > 0
                    && ay > 0
                    && (ax == 2 || ay == 2)
                    && !reaches((x, -k), (y, m - k))
            })
        })
    })
}

/// The validator's switch analysis (lag distances and crossing edges) agrees with the
/// switch unrolled frame by frame, on generated two-mode schedules whose modes are each
/// valid; both verdicts occur.
#[test]
fn switch_analysis_matches_the_unrolled_frames() {
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config {
        cases: 1500,
        ..Config::default()
    });
    let counts = std::cell::Cell::new((0, 0));
    runner
        .run(&gen_schedule(), |(m, tasks)| {
            let text = render(m, &tasks);
            let found = match check(&text) {
                Ok(_) => false,
                Err(d) => {
                    if d.iter()
                        .any(|e| e.is_error() && !e.message.contains("switches to"))
                    {
                        return Ok(()); // a mode alone is invalid: not this test's subject
                    }
                    true
                }
            };
            let expected = unrolled_race(m, &tasks);
            proptest::prop_assert_eq!(found, expected, "{}", text);
            let (races, safe) = counts.get();
            counts.set(if found {
                (races + 1, safe)
            } else {
                (races, safe + 1)
            });
            Ok(())
        })
        .unwrap();
    let (races, safe) = counts.get();
    assert!(races >= 20 && safe >= 20, "races {races}, safe {safe}");
}
