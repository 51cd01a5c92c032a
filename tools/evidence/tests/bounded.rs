//! The report's bounded analysis (two passes, fixed-size structures) against the in-memory
//! analysis that keeps every sample, on seeded random runs: equal up to 4096 executions per
//! task, and beyond within the stated bounds (percentiles within 2^-10 of the exact value;
//! counts, min, max, histograms, the release plot's columns, envelopes, faults and mode
//! switches still exact).
//!
//! Covers: REQ-EVD-011

use orin_exec::table::{Action, FaultKind, ModeId};
use orin_exec::trace::record::NO_TASK;
use orin_exec::trace::{Event, Record};
use orin_exec_evidence::analysis::{Analysis, HIST_BINS, RELEASE_COLUMNS, ReleaseSeries};
use orin_exec_trace::analysis::{self, Percentiles, RunAnalysis};
use orin_exec_trace::quantiles::{EXACT_SAMPLES, RELATIVE_ERROR};
use orin_exec_trace::{TaskMeta, TimelineMeta, TraceMeta};
use sil_common::rng::SplitMix64;

const PERIOD: u64 = 1_000_000;
const T0: u64 = 50_000_000;

fn meta() -> TraceMeta {
    let task = |name: &str, engine: u8, deadline_ns: u64| TaskMeta {
        name: name.into(),
        engine,
        wcet_ns: 300_000,
        budget_ns: 350_000,
        deadline_ns,
        ..TaskMeta::default()
    };
    TraceMeta {
        name: "random".into(),
        period_ns: PERIOD,
        engines: vec![
            ("cpu0".into(), "cpu".into(), 0),
            ("gpu0".into(), "gpu".into(), 0),
        ],
        tasks: vec![
            task("a", 0, 600_000),
            task("b", 1, 800_000),
            task("c", 0, 900_000),
        ],
        modes: vec!["normal".into(), "degraded".into()],
        timeline: vec![TimelineMeta {
            mode: 0,
            task: 1,
            latest_start_ns: 300_000,
            latest_finish_ns: 700_000,
            slack_ns: 100_000,
        }],
        ..TraceMeta::default()
    }
}

/// A run of `frames` frames: signed release errors, durations with rare spikes, skipped
/// executions, deadline misses with reactions (some switch the mode) and budget overruns.
fn random_run(seed: u64, frames: u64) -> Vec<Record> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    let rec = |time_ns, frame, task, event, value| Record {
        time_ns,
        frame,
        task,
        event,
        value,
    };
    let mut mode = 0u16;
    for f in 0..frames {
        let planned = T0 + f * PERIOD;
        let err = rng.in_range(0, 40_000) as i64 - 10_000;
        if rng.in_range(0, 999) == 0 {
            mode ^= 1;
            out.push(rec(
                planned - 5_000,
                f,
                NO_TASK,
                Event::ModeSwitch,
                u64::from(mode),
            ));
        }
        out.push(rec(
            (planned as i64 + err) as u64,
            f,
            NO_TASK,
            Event::FrameRelease,
            err as u64,
        ));
        for task in 0..3u16 {
            let start = planned + 50_000 + 200_000 * u64::from(task) + rng.in_range(0, 30_000);
            let spike = rng.in_range(0, 499) == 0;
            let dur = if spike {
                rng.in_range(400_000, 2_000_000)
            } else {
                rng.in_range(1_000, 150_000)
            };
            let skipped = rng.in_range(0, 199) == 0;
            out.push(rec(start, f, task, Event::TaskStart, 0));
            let end_event = if skipped {
                Event::TaskSkipped
            } else {
                Event::TaskEnd
            };
            out.push(rec(start + dur, f, task, end_event, dur));
            if spike {
                out.push(rec(
                    start + dur + 10,
                    f,
                    task,
                    Event::Fault(FaultKind::DeadlineMiss),
                    0,
                ));
                let reaction = if rng.in_range(0, 3) == 0 {
                    Action::SwitchMode(ModeId(1))
                } else {
                    Action::Log
                };
                out.push(rec(start + dur + 20, f, task, Event::Reaction(reaction), 0));
            } else if dur > 140_000 {
                out.push(rec(
                    start + dur + 10,
                    f,
                    task,
                    Event::Fault(FaultKind::BudgetOverrun),
                    0,
                ));
            }
        }
    }
    out
}

/// `q` is within the stated error of the exact `e` (exact below 1024 ns).
fn near(q: u64, e: u64) -> bool {
    q.abs_diff(e) as f64 <= e as f64 * RELATIVE_ERROR
}

/// What the report's analysis must equal whatever the run's length.
fn check_exact_parts(
    meta: &TraceMeta,
    records: &[Record],
    bounded: &Analysis,
    exact: &RunAnalysis,
) {
    let releases = analysis::release_errors(records);
    assert_eq!(bounded.release.frames, releases.len() as u64);
    assert_eq!(bounded.last_release, releases.iter().map(|r| r.frame).max());
    // The release series: the min/max of every frame's error per column.
    let first = releases.iter().map(|r| r.frame).min().unwrap_or(0);
    let last = releases.iter().map(|r| r.frame).max().unwrap_or(0);
    let mut want = ReleaseSeries::new(first, last);
    for r in &releases {
        let c = want.column(r.frame);
        assert!(c <= RELEASE_COLUMNS);
        let v = want.columns[c].get_or_insert((r.error_ns, r.error_ns));
        *v = (v.0.min(r.error_ns), v.1.max(r.error_ns));
    }
    assert_eq!(bounded.releases, want);
    assert_eq!(bounded.releases.columns.len(), RELEASE_COLUMNS + 1);

    for (b, e) in bounded.tasks.iter().zip(&exact.tasks) {
        assert_eq!(b.task, e.task);
        assert_eq!((b.runs, b.skipped), (e.samples_ns.len() as u64, e.skipped));
        let s = &b.stats;
        assert_eq!(
            (s.samples, s.min_ns, s.max_ns, s.mean_ns),
            (
                e.stats.samples,
                e.stats.min_ns,
                e.stats.max_ns,
                e.stats.mean_ns
            )
        );
        // The histogram bins every sample, whatever the run's length.
        assert_eq!(b.histogram.len(), HIST_BINS);
        let mut hist = vec![0u64; HIST_BINS];
        for &d in &e.samples_ns {
            let bin = ((d as f64 / b.hist_max_ns) * HIST_BINS as f64) as usize;
            hist[bin.min(HIST_BINS - 1)] += 1;
        }
        assert_eq!(b.histogram, hist, "{}", b.task);
        assert_eq!(
            (b.deadline_misses, b.fence_timeouts, b.longest_miss_run),
            (
                e.misses.deadline_miss_frames.len() as u64,
                e.misses.fence_timeout_frames.len() as u64,
                e.misses.longest_run
            )
        );
    }
    assert_eq!(bounded.envelopes, exact.envelopes);
    let faults: Vec<(u64, Option<i64>, &str, &str)> = bounded
        .faults
        .iter()
        .map(|f| (f.frame, f.at_ns, f.task.as_str(), f.fault.as_str()))
        .collect();
    let want: Vec<(u64, Option<i64>, &str, &str)> = exact
        .incidents
        .iter()
        .map(|i| {
            (
                i.frame,
                i.detected_rel_ns,
                i.task.as_str(),
                i.fault.as_str(),
            )
        })
        .collect();
    assert_eq!(faults, want);
    let switches: Vec<(u64, &str)> = bounded
        .mode_switches
        .iter()
        .map(|m| (m.frame, m.mode.as_str()))
        .collect();
    let want: Vec<(u64, &str)> = exact
        .mode_switches
        .iter()
        .map(|m| (m.frame, m.to.as_str()))
        .collect();
    assert_eq!(switches, want);
    assert!(!meta.tasks.is_empty());
}

#[test]
fn bounded_analysis_equals_the_exact_one_up_to_4096_executions() {
    let meta = meta();
    for seed in 1..=4u64 {
        let frames = 500 + 900 * seed; // up to 4100 frames: below 4096 executions per task
        let records = random_run(seed, frames);
        let exact = analysis::analyze(&meta, &records);
        let bounded = Analysis::of(&meta, &records);
        check_exact_parts(&meta, &records, &bounded, &exact);
        for (b, e) in bounded.tasks.iter().zip(&exact.tasks) {
            assert!(b.stats.samples as usize <= EXACT_SAMPLES);
            assert_eq!(b.stats, e.stats, "seed {seed} task {}", b.task);
        }
        assert!(bounded.faults.len() > 2 && !bounded.mode_switches.is_empty());
    }
}

#[test]
fn bounded_analysis_beyond_4096_executions_stays_within_the_stated_error() {
    let meta = meta();
    let records = random_run(99, 12_000);
    let exact = analysis::analyze(&meta, &records);
    let bounded = Analysis::of(&meta, &records);
    check_exact_parts(&meta, &records, &bounded, &exact);
    for (b, e) in bounded.tasks.iter().zip(&exact.tasks) {
        let (s, x): (&Percentiles, &Percentiles) = (&b.stats, &e.stats);
        assert!(s.samples as usize > EXACT_SAMPLES && !s.exact && x.exact);
        for (q, w) in [
            (s.p50_ns, x.p50_ns),
            (s.p90_ns, x.p90_ns),
            (s.p99_ns, x.p99_ns),
            (s.p999_ns, x.p999_ns),
        ] {
            assert!(near(q, w), "{}: {q} vs exact {w}", b.task);
        }
    }
}

#[test]
fn bounded_analysis_memory_does_not_grow_with_the_run() {
    // Without faults the analysis is the same size for any length: fixed-size vectors only.
    let meta = meta();
    let calm = |frames| {
        let records: Vec<Record> = random_run(7, frames)
            .into_iter()
            .filter(|r| {
                !matches!(
                    r.event,
                    Event::Fault(_) | Event::Reaction(_) | Event::ModeSwitch
                )
            })
            .collect();
        Analysis::of(&meta, &records)
    };
    let (short, long) = (calm(1_000), calm(20_000));
    let sizes = |a: &Analysis| {
        (
            a.releases.columns.len(),
            a.tasks.iter().map(|t| t.histogram.len()).sum::<usize>(),
            a.faults.len() + a.mode_switches.len(),
            a.envelopes.len(),
        )
    };
    assert_eq!(sizes(&short), sizes(&long));
    assert_eq!(long.release.frames, 20_000);
}
