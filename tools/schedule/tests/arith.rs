//! Overflow-free analysis: durations, sizes, lags and the worst-case timeline near the `u64`
//! edge are diagnostics with a position, never a wrap or a panic, in debug and release builds
//! (run these with and without `--release`). The cases of issue 15 first, then property tests
//! over generated schedules.

mod common;

use std::path::Path;

use common::generated_deps;

use orin_exec_schedule::{Diagnostics, Report, check_str};
use proptest::prelude::*;

/// A CPU-only schedule: no manifests, so no files are read.
fn schedule(period: &str, lookahead: u8, body: &str) -> String {
    format!(
        "name = \"t\"\nprofile = \"sil\"\nperiod = \"{period}\"\nlookahead = {lookahead}\n\n\
         [engines]\ncpu = [{{ name = \"cpu0\" }}, {{ name = \"cpu1\" }}]\n{body}"
    )
}

fn check(text: &str) -> Result<Report, Diagnostics> {
    check_str(Path::new("/nonexistent/app/schedule.toml"), text)
}

/// The diagnostics of a schedule that must be rejected.
fn rejected(text: &str) -> Diagnostics {
    match check(text) {
        Ok(r) => panic!("accepted:\n{r}\n--- schedule ---\n{text}"),
        Err(d) => d,
    }
}

/// 1-based (line, column) of the first `needle` in `text`.
fn pos(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("needle in text");
    let line = text[..at].matches('\n').count() + 1;
    (line, at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1)
}

/// Covers: REQ-ROB-020
mod issue_cases {
    use super::*;

    /// Two 10^10 s tasks on one worker in a period of `u64::MAX` ns: the frame ends at
    /// 2·10^19 ns, beyond `u64`. The timeline used to wrap to 0 and pass.
    #[test]
    fn period_near_u64_max_overrun_is_rejected() {
        let body = "\n[[task]]\nname = \"a\"\nengine = \"cpu0\"\nwcet = \"10000000000s\"\n\
                    \n[[task]]\nname = \"b\"\nengine = \"cpu0\"\nwcet = \"10000000000s\"\n";
        let text = schedule("18446744073709551615ns", 1, body);
        let d = rejected(&text);
        let s = d.to_string();
        assert!(
            s.contains("task `b` can finish at 20000000000000.000ms"),
            "{s}"
        );
        assert!(
            s.contains("after its deadline 18446744073709.551615ms"),
            "{s}"
        );
        let b = d
            .iter()
            .find(|d| d.message.contains("task `b`"))
            .expect("a diagnostic for b");
        // Points at b (it has no `deadline` of its own).
        assert_eq!((b.line, b.column), pos(&text, "\"b\""));
        // The same tasks in a period that holds them are accepted: the overflow, not the
        // shape, is what is refused.
        let ok = schedule(
            "18446744073709551615ns",
            1,
            &body.replace("10000000000s", "9000000000s"),
        );
        let report = check(&ok).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(
            report.modes[0].tasks[1].latest_finish_ns,
            18_000_000_000_000_000_000
        );
    }

    /// `after = ["a@-(2^64-1)"]` used to panic in debug (`lag + lookahead + 1`).
    #[test]
    fn huge_lag_is_a_diagnostic() {
        let entry = "\"a@-18446744073709551615\"";
        let body = format!(
            "\n[[task]]\nname = \"a\"\nengine = \"cpu0\"\nwcet = \"1ms\"\n\
             \n[[task]]\nname = \"b\"\nengine = \"cpu1\"\nwcet = \"1ms\"\nafter = [{entry}]\n"
        );
        let text = schedule("10ms", 1, &body);
        let d = rejected(&text);
        let e = d
            .iter()
            .find(|d| {
                d.message
                    .contains("18446744073709551615 frames one dependency looks back")
            })
            .unwrap_or_else(|| panic!("no lag diagnostic in:\n{d}"));
        assert_eq!((e.line, e.column), pos(&text, entry));
    }

    /// dims 2^22 x 2^22 x 2^22 x 1 of int8 = 2^66 bytes: panicked in debug, wrapped to 0 (and
    /// was accepted) in release.
    #[test]
    fn tensor_of_2_pow_66_bytes_is_a_diagnostic() {
        let dims = "[4194304, 4194304, 4194304, 1]";
        let body = format!(
            "\n[[buffer]]\nname = \"t\"\nkind = \"tensor\"\ndims = {dims}\ndata_type = \"int8\"\n\
             \n[[task]]\nname = \"a\"\nengine = \"cpu0\"\nwcet = \"1ms\"\nwrites = [\"t\"]\n"
        );
        let text = schedule("10ms", 1, &body);
        let d = rejected(&text);
        let e = d
            .iter()
            .find(|d| d.message.contains("larger than 2^64 bytes"))
            .unwrap_or_else(|| panic!("no size diagnostic in:\n{d}"));
        assert!(e.message.contains("tensor buffer `t`"), "{}", e.message);
        assert_eq!((e.line, e.column), pos(&text, dims));
        // Just below 2^64 bytes the size is representable (whatever other limits say).
        let fits = text.replace(dims, "[4194304, 4194304, 1048575, 1]");
        let s = check(&fits)
            .err()
            .map(|d| d.to_string())
            .unwrap_or_default();
        assert!(!s.contains("larger than 2^64 bytes"), "{s}");
    }
}

// ------------------------------------------------------------------------ property tests

/// A generated CPU task: engine, WCET, optional deadline and release, same-frame
/// dependencies on earlier tasks and lagged ones on any task.
#[derive(Clone, Debug)]
struct GenTask {
    engine: usize,
    wcet: u64,
    deadline: Option<u64>,
    release: Option<u64>,
    deps: Vec<(usize, u8)>,
}

/// Durations that sit on the `u64` edges and around the period.
fn edge_ns(period: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        1..=1_000_000u64,
        Just(u64::MAX),
        (0..=1_000u64).prop_map(|k| u64::MAX - k),
        (1..=u64::MAX),
        (0..=4u64).prop_map(move |k| (period / 2).saturating_add(k).max(1)),
        (0..=4u64).prop_map(move |k| period.saturating_sub(k).max(1)),
    ]
}

fn period() -> impl Strategy<Value = u64> {
    prop_oneof![
        1_000..=100_000_000u64,
        (0..=1_000u64).prop_map(|k| u64::MAX - k),
        (1u64 << 62..=u64::MAX),
    ]
}

fn tasks(period: u64) -> impl Strategy<Value = Vec<GenTask>> {
    prop::collection::vec(
        (
            0..2usize,
            edge_ns(period),
            prop::option::of(edge_ns(period)),
            prop::option::of(edge_ns(period)),
            prop::collection::vec((0..8usize, 0..=3u8), 0..3),
        ),
        1..7,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (engine, wcet, deadline, release, deps))| GenTask {
                engine,
                wcet,
                deadline,
                release,
                deps: generated_deps(i, deps),
            })
            .collect()
    })
}

fn render(period: u64, tasks: &[GenTask]) -> String {
    let mut body = String::new();
    for (i, t) in tasks.iter().enumerate() {
        body += &format!(
            "\n[[task]]\nname = \"t{i}\"\nengine = \"cpu{}\"\nwcet = \"{}ns\"\n",
            t.engine, t.wcet
        );
        if let Some(d) = t.deadline {
            body += &format!("deadline = \"{d}ns\"\n");
        }
        if let Some(r) = t.release {
            body += &format!("release = \"{r}ns\"\n");
        }
        if !t.deps.is_empty() {
            let deps: Vec<String> = t
                .deps
                .iter()
                .map(|&(d, lag)| match lag {
                    0 => format!("\"t{d}\""),
                    _ => format!("\"t{d}@-{lag}\""),
                })
                .collect();
            body += &format!("after = [{}]\n", deps.join(", "));
        }
    }
    schedule(&format!("{period}ns"), 1, &body)
}

/// The first frame's timeline, exactly (`u128`, no history): each task starts at its release,
/// after its same-frame dependencies and after the previous task of its worker. The
/// validator's worst case is never earlier, so a first frame that ends after a deadline or
/// the period must be rejected. When it fits, every cross-frame constraint (a finish within
/// the period, shifted back by at least one period) lands before the release, so the worst
/// case is this frame and the schedule is accepted (unless a field is out of range).
fn first_frame_fits(period: u64, tasks: &[GenTask]) -> bool {
    let mut finish = vec![0u128; tasks.len()];
    let mut last_on = [None::<usize>; 2];
    for (i, t) in tasks.iter().enumerate() {
        let mut start = u128::from(t.release.unwrap_or(0));
        for &(d, lag) in &t.deps {
            if lag == 0 {
                start = start.max(finish[d]);
            }
        }
        if let Some(p) = last_on[t.engine] {
            start = start.max(finish[p]);
        }
        finish[i] = start + u128::from(t.wcet);
        last_on[t.engine] = Some(i);
        let deadline = u128::from(t.deadline.unwrap_or(period));
        if finish[i] > deadline || finish[i] > u128::from(period) {
            return false;
        }
    }
    true
}

/// Fields the validator refuses whatever the timeline: a deadline after the period, a
/// release at or after the deadline.
fn fields_valid(period: u64, tasks: &[GenTask]) -> bool {
    tasks.iter().all(|t| {
        let deadline = t.deadline.unwrap_or(period);
        deadline <= period && t.release.is_none_or(|r| r < deadline)
    })
}

fn case() -> impl Strategy<Value = (u64, Vec<GenTask>)> {
    period().prop_flat_map(|p| (Just(p), tasks(p)))
}

/// Covers: REQ-ROB-021
mod properties {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Validation never panics, never accepts a schedule whose first frame overruns
        /// (computed here without overflow), and accepts every one that fits; an accepted
        /// timeline lies within the period and each deadline.
        #[test]
        fn timeline_verdict_is_exact((period, tasks) in case()) {
            let text = render(period, &tasks);
            let fits = first_frame_fits(period, &tasks);
            let valid = fields_valid(period, &tasks);
            match check(&text) {
                Ok(report) => {
                    prop_assert!(fits && valid, "accepted an overrun:\n{report}\n{text}");
                    for t in &report.modes[0].tasks {
                        prop_assert!(t.latest_finish_ns <= period && t.latest_finish_ns <= t.deadline_ns);
                        prop_assert!(t.latest_start_ns <= t.latest_finish_ns);
                    }
                }
                Err(d) => {
                    prop_assert!(!(fits && valid), "rejected a schedule that fits:\n{d}\n{text}");
                    for e in d.iter() {
                        prop_assert!(e.line > 0 && e.column > 0, "no position: {e}");
                    }
                }
            }
        }

        /// Lags, durations and tensor dimensions anywhere in their type's range: no panic,
        /// and every diagnostic has a position.
        #[test]
        fn edge_values_never_panic(
            lag in prop_oneof![1..=600u64, Just(u64::MAX), (0..=8u64).prop_map(|k| u64::MAX - k)],
            wcet in edge_ns(u64::MAX),
            period in period(),
            dims in prop::array::uniform4(prop_oneof![1..=8u32, Just(u32::MAX), (1u32 << 16..=u32::MAX)]),
            data_type in prop::sample::select(vec!["int8", "float16", "float32"]),
            multiplicity in 1..=4u8,
        ) {
            let dims = format!("[{}, {}, {}, {}]", dims[0], dims[1], dims[2], dims[3]);
            let body = format!(
                "\n[[buffer]]\nname = \"t\"\nkind = \"tensor\"\ndims = {dims}\n\
                 data_type = \"{data_type}\"\nmultiplicity = {multiplicity}\n\
                 \n[[task]]\nname = \"a\"\nengine = \"cpu0\"\nwcet = \"{wcet}ns\"\nwrites = [\"t\"]\n\
                 \n[[task]]\nname = \"b\"\nengine = \"cpu0\"\nwcet = \"{wcet}ns\"\nreads = [\"t\"]\n\
                 after = [\"a\", \"a@-{lag}\"]\n"
            );
            let text = schedule(&format!("{period}ns"), 1, &body);
            if let Err(d) = check(&text) {
                for e in d.iter() {
                    prop_assert!(e.line > 0 && e.column > 0, "no position: {e}");
                }
            }
        }
    }
}
