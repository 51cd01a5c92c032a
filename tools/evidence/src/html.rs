//! The report of one run: a self-contained HTML file (inline CSS and SVG, no script, readable
//! offline and printable), the same facts as text or JSON, and the run's verdict.
//!
//! A report is made from a run directory (its `run.json` when present, and its `trace.bin`)
//! or from a trace file alone. A killed run works: without an end, the manifest says
//! `running` and the report states where the trace ends.
//!
//! ```no_run
//! use orin_exec_evidence::html::Report;
//! let report = Report::load(std::path::Path::new("target/orin-exec/runs/latest"))?;
//! std::fs::write("report.html", report.html())?;
//! println!("{}", report.trace_state());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every section has a stable `id` ([`SECTIONS`]); per-task rows carry `data-task`, and
//! numeric cells `data-field` and, for times, `data-ns` with the exact value, so that tools
//! and tests can read the numbers back.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use orin_exec_trace::analysis::{Observed, WorstCase};

use crate::analysis::{Analysis, RELEASE_COLUMNS, TaskAnalysis, Trace};
use crate::run::{MANIFEST_FILE, RunManifest, RunStatus, TRACE_FILE};

/// Exit status of `orin-exec report`: the report was made and no recorded criterion failed
/// (a run without criteria, e.g. killed, or a bare trace file, is reported with exit 0).
pub const EXIT_OK: u8 = 0;
/// Exit status of `orin-exec report`: the report was made and a recorded criterion failed.
pub const EXIT_CRITERION_FAILED: u8 = 1;
/// Exit status of `orin-exec report`: no report (not a run directory or trace file, an
/// unreadable trace, an output that cannot be written).
pub const EXIT_ERROR: u8 = 2;

/// What `orin-exec report` is asked to do.
#[derive(Clone, Debug, Default)]
pub struct ReportArgs {
    /// A run directory or a trace file.
    pub run: PathBuf,
    /// Write the HTML report here.
    pub html: Option<PathBuf>,
    /// Print JSON instead of text.
    pub json: bool,
    /// Write a Perfetto / Chrome JSON trace here.
    pub perfetto: Option<PathBuf>,
}

/// What `orin-exec report` did.
#[derive(Clone, Debug)]
pub struct ReportOutcome {
    /// [`EXIT_OK`] or [`EXIT_CRITERION_FAILED`].
    pub exit: u8,
    /// What it prints on stdout (text or JSON).
    pub stdout: String,
    /// What it prints on stderr (the files it wrote).
    pub stderr: String,
    /// The report.
    pub report: Report,
}

/// `orin-exec report`: load the run, print text or JSON, write the HTML report and the
/// Perfetto trace when asked. Errors (exit [`EXIT_ERROR`]) name the file.
pub fn report_command(args: &ReportArgs) -> Result<ReportOutcome, Box<dyn std::error::Error>> {
    let report = Report::load(&args.run)?;
    let stdout = if args.json {
        serde_json::to_string_pretty(&report.json())? + "\n"
    } else {
        report.text()
    };
    let mut stderr = String::new();
    if let Some(path) = &args.html {
        orin_exec_trace::write_file(path, report.html().as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let _ = writeln!(stderr, "html report: {}", path.display());
    }
    if let Some(path) = &args.perfetto {
        orin_exec_trace::perfetto::export_file(&report.trace_path, path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let _ = writeln!(stderr, "perfetto trace: {}", path.display());
    }
    Ok(ReportOutcome {
        exit: if report.verdict() == Verdict::Fail {
            EXIT_CRITERION_FAILED
        } else {
            EXIT_OK
        },
        stdout,
        stderr,
        report,
    })
}

/// The ids of the report's sections, in order.
pub const SECTIONS: &[&str] = &[
    "verdict",
    "tasks",
    "release-jitter",
    "timeline",
    "faults",
    "mode-switches",
    "artifacts",
    "environment",
    "audits",
    "coverage",
];

/// Where a run's coverage summary is looked for, relative to the run directory and its
/// parents (`target/orin-exec/coverage.json`, written by `ci/coverage.sh`).
pub const COVERAGE_FILE: &str = "coverage.json";

/// Coverage of one measure (lines or regions).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageCount {
    /// Covered.
    pub covered: u64,
    /// Total.
    pub total: u64,
    /// Percent covered.
    pub percent: f64,
}

/// Coverage of one crate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CrateCoverage {
    /// Crate name.
    pub name: String,
    /// Lines.
    pub lines: CoverageCount,
    /// Regions.
    pub regions: CoverageCount,
}

/// `coverage.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// The tool and its version (`cargo llvm-cov <version>`).
    pub tool: String,
    /// Per crate.
    pub crates: Vec<CrateCoverage>,
}

/// Why a report could not be made.
#[derive(Debug)]
pub enum ReportError {
    /// The directory holds no trace file.
    NoTrace(PathBuf),
    /// The trace file cannot be read (or is not a trace).
    Trace(PathBuf, io::Error),
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::NoTrace(d) => write!(
                f,
                "{}: no {TRACE_FILE} in this directory (not a run directory?)",
                d.display()
            ),
            ReportError::Trace(p, e) => {
                let text = e.to_string();
                if text.contains(&p.display().to_string()) {
                    write!(f, "{text}")
                } else {
                    write!(f, "{}: {text}", p.display())
                }
            }
        }
    }
}

impl std::error::Error for ReportError {}

/// The verdict of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every recorded criterion passed.
    Pass,
    /// At least one recorded criterion failed.
    Fail,
    /// No criteria to judge by (why).
    None(String),
}

/// A run's report: what was read and what was computed from it.
#[derive(Clone, Debug)]
pub struct Report {
    /// The run directory, when the report was made from one (or from its trace file).
    pub dir: Option<PathBuf>,
    /// The trace file read.
    pub trace_path: PathBuf,
    /// The run manifest, when there is one for this trace.
    pub manifest: Option<RunManifest>,
    /// Things the reader should know (a manifest that could not be read, a run id mismatch).
    pub notes: Vec<String>,
    /// The trace.
    pub trace: Trace,
    /// What the report computes from it.
    pub analysis: Analysis,
    /// The coverage summary and where it was found.
    pub coverage: Option<(PathBuf, Coverage)>,
}

impl Report {
    /// The report of `path`: a run directory or a trace file. A trace file named by path
    /// gets the `run.json` beside it when that manifest's run id is the trace's. The coverage
    /// summary is looked for in the run directory and its two parents.
    pub fn load(path: &Path) -> Result<Report, ReportError> {
        let (dir, trace_path) = if path.is_dir() {
            let t = path.join(TRACE_FILE);
            if !t.exists() {
                return Err(ReportError::NoTrace(path.to_path_buf()));
            }
            (Some(path.to_path_buf()), t)
        } else {
            let parent = path
                .parent()
                .filter(|p| p.join(MANIFEST_FILE).exists())
                .map(Path::to_path_buf);
            (parent, path.to_path_buf())
        };
        // Two passes over the file, record by record: the report's memory does not grow with
        // the run.
        let (trace, analysis) =
            Analysis::read(&trace_path).map_err(|e| ReportError::Trace(trace_path.clone(), e))?;
        let mut notes = Vec::new();
        let manifest = match &dir {
            Some(d) if d.join(MANIFEST_FILE).exists() => {
                match RunManifest::read(&d.join(MANIFEST_FILE)) {
                    Ok(m) if m.run_id == trace.meta.run_id => Some(m),
                    Ok(m) if trace.meta.run_id.is_empty() => {
                        notes.push(format!(
                            "the trace carries no run id: {} (run {}) is assumed to be its \
                             run's manifest",
                            d.join(MANIFEST_FILE).display(),
                            m.run_id
                        ));
                        Some(m)
                    }
                    Ok(m) => {
                        notes.push(format!(
                            "{} belongs to run {}, the trace to run {}: the manifest is not used",
                            d.join(MANIFEST_FILE).display(),
                            m.run_id,
                            trace.meta.run_id
                        ));
                        None
                    }
                    Err(e) => {
                        notes.push(format!("{e}"));
                        None
                    }
                }
            }
            _ => None,
        };
        let coverage = dir
            .as_deref()
            .or(trace_path.parent())
            .and_then(find_coverage);
        Ok(Report {
            dir,
            trace_path,
            manifest,
            notes,
            trace,
            analysis,
            coverage,
        })
    }

    /// The run id (the manifest's, else the trace's; empty for traces without one).
    pub fn run_id(&self) -> &str {
        self.manifest
            .as_ref()
            .map_or(self.trace.meta.run_id.as_str(), |m| m.run_id.as_str())
    }

    /// The verdict from the manifest's criteria.
    pub fn verdict(&self) -> Verdict {
        match &self.manifest {
            None => Verdict::None("no run manifest (run.json): the trace carries no pass criteria".into()),
            Some(m) if m.status == RunStatus::Running => Verdict::None(
                "the run did not end (status `running`: killed, crashed or still running); no criteria were recorded".into(),
            ),
            Some(m) if m.criteria.is_empty() => Verdict::None("the run recorded no criteria".into()),
            Some(m) if m.criteria.iter().all(|c| c.pass) => Verdict::Pass,
            Some(_) => Verdict::Fail,
        }
    }

    /// Frames released in the trace.
    pub fn frames_recorded(&self) -> u64 {
        self.analysis.release.frames
    }

    /// One sentence on how complete the trace is: `trace complete: ...` or `trace ends at
    /// frame N ...`.
    pub fn trace_state(&self) -> String {
        let frames = self.frames_recorded();
        let planned = self
            .manifest
            .as_ref()
            .map(|m| format!(" of {} planned", m.frames_planned))
            .unwrap_or_default();
        match (self.trace.truncated, self.trace.last_frame) {
            (true, Some(f)) => format!(
                "trace ends at frame {f}: the file is cut off (the run was killed or crashed); \
                 {frames} frames released{planned}, {} records",
                self.trace.records
            ),
            (true, None) => "trace ends before the first frame: the file is cut off after its \
                             header (the run was killed or crashed); no records"
                .to_string(),
            (false, Some(f)) => format!(
                "trace complete: {frames} frames released{planned} (the last: frame {}), {} \
                 records",
                self.analysis.last_release.unwrap_or(f),
                self.trace.records
            ),
            (false, None) => "trace complete, with no records".to_string(),
        }
    }

    /// The report as JSON: run, trace state, verdict, per-task statistics (without the
    /// samples), release statistics, faults, mode switches, the manifest.
    pub fn json(&self) -> serde_json::Value {
        let tasks: Vec<serde_json::Value> = self
            .analysis
            .tasks
            .iter()
            .map(|t| {
                serde_json::json!({
                    "task": t.task, "engine": t.engine, "runs": t.runs, "skipped": t.skipped,
                    "samples": t.stats.samples, "min_ns": t.stats.min_ns, "p50_ns": t.stats.p50_ns,
                    "p99_ns": t.stats.p99_ns, "p999_ns": t.stats.p999_ns, "max_ns": t.stats.max_ns,
                    "wcet_ns": t.wcet_ns, "budget_ns": t.budget_ns, "deadline_ns": t.deadline_ns,
                    "max_finish_ns": t.max_finish_ns, "deadline_misses": t.deadline_misses,
                    "fence_timeouts": t.fence_timeouts, "budget_overruns": t.budget_overruns,
                    "errors": t.errors, "longest_miss_run": t.longest_miss_run,
                })
            })
            .collect();
        let verdict = match self.verdict() {
            Verdict::Pass => serde_json::json!("pass"),
            Verdict::Fail => serde_json::json!("fail"),
            Verdict::None(_) => serde_json::Value::Null,
        };
        serde_json::json!({
            "run_id": self.run_id(),
            "schedule": self.trace.meta.name,
            "platform": self.trace.meta.platform,
            "trace": {
                "path": self.trace_path.display().to_string(),
                "truncated": self.trace.truncated,
                "last_frame": self.trace.last_frame,
                "records": self.trace.records,
                "lost_records": self.analysis.lost_records,
                "state": self.trace_state(),
            },
            "verdict": verdict,
            "tasks": tasks,
            "release": self.analysis.release,
            "faults": self.analysis.faults,
            "mode_switches": self.analysis.mode_switches,
            "envelopes": self.analysis.envelopes,
            "notes": self.notes,
            "manifest": self.manifest,
        })
    }

    /// The report as text: run, trace state, verdict, the per-task table with units, faults
    /// and mode switches.
    pub fn text(&self) -> String {
        let mut o = String::new();
        let m = &self.trace.meta;
        let _ = writeln!(
            o,
            "run {} — schedule `{}` on `{}`, period {:.3} ms",
            if self.run_id().is_empty() {
                "(no run id)"
            } else {
                self.run_id()
            },
            m.name,
            m.platform,
            m.period_ns as f64 / 1e6
        );
        let _ = writeln!(o, "{}", self.trace_state());
        if let Some(man) = &self.manifest {
            let _ = writeln!(
                o,
                "status {}, {} clock, host {}, commit {}{}",
                man.status.name(),
                match man.clock {
                    crate::run::Clock::Real => "real",
                    crate::run::Clock::Virtual => "virtual",
                },
                man.host,
                man.git.commit,
                if man.git.dirty == Some(true) {
                    " (dirty)"
                } else {
                    ""
                }
            );
            for c in &man.criteria {
                let _ = writeln!(
                    o,
                    "[{}] {}: {}",
                    if c.pass { "PASS" } else { "FAIL" },
                    c.name,
                    c.detail
                );
            }
        }
        for n in &self.notes {
            let _ = writeln!(o, "note: {n}");
        }
        let _ = writeln!(
            o,
            "verdict: {}",
            match self.verdict() {
                Verdict::Pass => "PASS".to_string(),
                Verdict::Fail => "FAIL".to_string(),
                Verdict::None(why) => format!("none ({why})"),
            }
        );
        let w = self
            .analysis
            .tasks
            .iter()
            .map(|t| t.task.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            o,
            "\nexecution time per task, ms (p99.9 marked * with fewer than 1000 samples; misses: deadline misses + fence timeouts, longest consecutive run)"
        );
        let _ = writeln!(
            o,
            "{:<w$} {:<7} {:>6} {:>5} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>6}",
            "task",
            "engine",
            "runs",
            "skip",
            "min",
            "p50",
            "p99",
            "p99.9",
            "max",
            "wcet",
            "budget",
            "deadline",
            "misses",
            "longest",
            "faults"
        );
        for t in &self.analysis.tasks {
            let s = &t.stats;
            let _ = writeln!(
                o,
                "{:<w$} {:<7} {:>6} {:>5} {:>8} {:>8} {:>8} {:>8}{} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>6}",
                t.task,
                t.engine,
                t.runs,
                t.skipped,
                ms3(s.min_ns),
                ms3(s.p50_ns),
                ms3(s.p99_ns),
                ms3(s.p999_ns),
                if s.samples > 0 && s.samples < 1000 {
                    "*"
                } else {
                    " "
                },
                ms3(s.max_ns),
                ms3(t.wcet_ns),
                ms3(t.budget_ns),
                ms3(t.deadline_ns),
                t.deadline_misses + t.fence_timeouts,
                t.longest_miss_run,
                task_faults(t)
            );
        }
        let r = &self.analysis.release;
        let _ = writeln!(
            o,
            "release error over {} frames: min {:.1} us, mean {:.1} us, p99 {:.1} us, max {:.1} us",
            r.frames,
            r.min_error_ns as f64 / 1e3,
            r.mean_error_ns as f64 / 1e3,
            r.p99_error_ns as f64 / 1e3,
            r.max_error_ns as f64 / 1e3
        );
        let _ = writeln!(o, "faults: {}", self.analysis.faults.len());
        for f in &self.analysis.faults {
            let _ = writeln!(
                o,
                "  frame {:>5}: {} on `{}` -> {}",
                f.frame, f.fault, f.task, f.reaction
            );
        }
        let _ = writeln!(o, "mode switches: {}", self.analysis.mode_switches.len());
        for s in &self.analysis.mode_switches {
            let _ = writeln!(o, "  from frame {:>5}: mode `{}`", s.frame, s.mode);
        }
        if self.analysis.lost_records > 0 {
            let _ = writeln!(
                o,
                "WARNING: {} trace records were lost to ring overflow",
                self.analysis.lost_records
            );
        }
        o
    }

    /// The self-contained HTML report.
    pub fn html(&self) -> String {
        let mut h = String::with_capacity(256 * 1024);
        let meta = &self.trace.meta;
        let id = self.run_id();
        let _ = write!(
            h,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <link rel=\"icon\" href=\"data:,\">\n\
             <title>orin-exec run {} — {}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
            esc(if id.is_empty() { "(no run id)" } else { id }),
            esc(&meta.name)
        );
        let _ = write!(
            h,
            "<header id=\"run\"><h1>orin-exec run report</h1>\n<p class=\"sub\">schedule \
             <code>{}</code> on <code>{}</code> · run id <code id=\"run-id\">{}</code> · \
             period {} · generated by orin-exec-evidence {}</p>\n<p id=\"trace-state\" \
             class=\"{}\">{}</p>\n",
            esc(&meta.name),
            esc(&meta.platform),
            esc(if id.is_empty() { "(none recorded)" } else { id }),
            ms(meta.period_ns),
            env!("CARGO_PKG_VERSION"),
            if self.trace.truncated { "warn" } else { "ok" },
            esc(&self.trace_state())
        );
        for n in &self.notes {
            let _ = writeln!(h, "<p class=\"warn\">{}</p>", esc_code(n));
        }
        if self.analysis.lost_records > 0 {
            let _ = writeln!(
                h,
                "<p class=\"warn\">{} trace records were lost to ring overflow: counts below \
                 miss them.</p>",
                self.analysis.lost_records
            );
        }
        h.push_str("</header>\n");
        self.verdict_section(&mut h);
        self.tasks_section(&mut h);
        self.release_section(&mut h);
        self.timeline_section(&mut h);
        self.faults_section(&mut h);
        self.mode_switch_section(&mut h);
        self.artifacts_section(&mut h);
        self.environment_section(&mut h);
        self.audits_section(&mut h);
        self.coverage_section(&mut h);
        h.push_str("</body>\n</html>\n");
        h
    }

    fn verdict_section(&self, h: &mut String) {
        h.push_str("<section id=\"verdict\">\n<h2>1. Verdict per pass criterion</h2>\n");
        let (class, word) = match self.verdict() {
            Verdict::Pass => ("pass", "PASS".to_string()),
            Verdict::Fail => ("fail", "FAIL".to_string()),
            Verdict::None(why) => ("warn", format!("NO VERDICT — {why}")),
        };
        let _ = writeln!(
            h,
            "<p class=\"verdict {class}\" id=\"overall\">{}</p>",
            esc(&word)
        );
        if let Some(m) = &self.manifest {
            let _ = writeln!(
                h,
                "<p>Status <b id=\"status\">{}</b>; started {}, ended {}; {} of {} planned \
                 frames released.</p>",
                m.status.name(),
                esc(&m.started_utc),
                esc(m.ended_utc.as_deref().unwrap_or("— (not recorded)")),
                self.frames_recorded(),
                m.frames_planned
            );
            if !m.criteria.is_empty() {
                h.push_str(
                    "<table class=\"criteria\"><thead><tr><th>criterion</th><th>verdict</th>\
                     <th>measured</th></tr></thead><tbody>\n",
                );
                for c in &m.criteria {
                    let _ = writeln!(
                        h,
                        "<tr class=\"{}\"><td>{}</td><td data-field=\"pass\">{}</td><td>{}</td></tr>",
                        if c.pass { "pass" } else { "fail" },
                        esc_code(&c.name),
                        if c.pass { "PASS" } else { "FAIL" },
                        esc_code(&c.detail)
                    );
                }
                h.push_str("</tbody></table>\n");
            }
        }
        h.push_str("</section>\n");
    }

    fn tasks_section(&self, h: &mut String) {
        h.push_str(
            "<section id=\"tasks\">\n<h2>2. Execution time per task</h2>\n<p>Nearest-rank \
             percentiles over every execution, exact up to 4096 executions of a task, beyond \
             within 1/1024 of the exact value (<span class=\"flag\">≈</span>). Times in ms. p99.9 is marked \
             <span class=\"flag\">few samples</span> below 1000 samples, where it is the \
             maximum or next to it. <i>latest end</i>: the latest end after the frame's \
             release; <i>dl. miss</i>: deadline misses; <i>fence t/o</i>: fence timeouts (the \
             task had not finished at its deadline); <i>longest</i>: the longest run of \
             consecutive frames with either; <i>overruns</i>: budget overruns; <i>errors</i>: \
             engine and task errors.</p>\n",
        );
        h.push_str(
            "<table id=\"task-table\"><thead><tr><th>task</th><th>engine</th><th>runs</th>\
             <th>skip</th><th>min</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th>\
             <th>WCET</th><th>budget</th><th>dead&shy;line</th><th>latest end</th>\
             <th>dl. miss</th><th>fence t/o</th><th>long&shy;est</th>\
             <th>over&shy;runs</th><th>errors</th></tr></thead><tbody>\n",
        );
        for t in &self.analysis.tasks {
            let s = &t.stats;
            let few = s.samples > 0 && s.samples < 1000;
            // No samples: no statistics (a dash, no `data-ns`).
            let stat = |field: &str, ns: u64| {
                if s.samples == 0 {
                    format!("<td data-field=\"{field}\">—</td>")
                } else {
                    time(field, ns)
                }
            };
            // A percentile from the fixed-size histogram (more than 4096 samples): marked.
            let pct = |field: &str, ns: u64| {
                if s.samples == 0 || s.exact {
                    stat(field, ns)
                } else {
                    format!(
                        "<td data-field=\"{field}\" data-ns=\"{ns}\" title=\"within 1/1024\">{}≈</td>",
                        ms3(ns)
                    )
                }
            };
            let p999 = if s.samples == 0 {
                "<td data-field=\"p999\">—</td>".to_string()
            } else {
                format!(
                    "<td data-field=\"p999\" data-ns=\"{}\"{}>{}{}</td>",
                    s.p999_ns,
                    if few { " class=\"flag\"" } else { "" },
                    ms3(s.p999_ns),
                    if few {
                        "*"
                    } else if !s.exact {
                        "≈"
                    } else {
                        ""
                    }
                )
            };
            let _ = writeln!(
                h,
                "<tr data-task=\"{}\"><td><a href=\"#task-{}\">{}</a></td><td>{}</td>{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}{}</tr>",
                esc(&t.task),
                esc(&t.task),
                esc(&t.task),
                esc(&t.engine),
                num("runs", t.runs),
                num("skipped", t.skipped),
                stat("min", s.min_ns),
                pct("p50", s.p50_ns),
                pct("p99", s.p99_ns),
                p999,
                stat("max", s.max_ns),
                time("wcet", t.wcet_ns),
                time("budget", t.budget_ns),
                time("deadline", t.deadline_ns),
                stat("max_finish", t.max_finish_ns),
                num_flag("deadline_misses", t.deadline_misses),
                num_flag("fence_timeouts", t.fence_timeouts),
                num_flag("longest_miss_run", t.longest_miss_run),
                num_flag("budget_overruns", t.budget_overruns),
                num_flag("errors", t.errors),
            );
        }
        h.push_str("</tbody></table>\n<div class=\"grid\">\n");
        for t in &self.analysis.tasks {
            let s = &t.stats;
            let _ = writeln!(
                h,
                "<figure id=\"task-{}\" class=\"task\"><figcaption><b>{}</b> on {} — {} runs, \
                 {} skipped</figcaption>",
                esc(&t.task),
                esc(&t.task),
                esc(&t.engine),
                t.runs,
                t.skipped
            );
            if t.runs == 0 {
                h.push_str(
                    "<p class=\"muted\">No execution recorded (the task's mode did not run).</p>\n",
                );
            } else {
                h.push_str(&histogram(t));
                let _ = writeln!(
                    h,
                    "<p class=\"stats\">{} samples{}: min {}, p50 {}, p99 {}, p99.9 {}{}, max {}; \
                     WCET {}, budget {}, deadline {}; {} deadline misses, {} fence timeouts, \
                     longest run {}.</p>",
                    s.samples,
                    if s.exact {
                        ""
                    } else {
                        " (<span class=\"flag\">≈</span> percentiles within 1/1024)"
                    },
                    ms(s.min_ns),
                    ms(s.p50_ns),
                    ms(s.p99_ns),
                    ms(s.p999_ns),
                    if s.samples < 1000 {
                        " <span class=\"flag\">(fewer than 1000 samples)</span>"
                    } else {
                        ""
                    },
                    ms(s.max_ns),
                    ms(t.wcet_ns),
                    ms(t.budget_ns),
                    ms(t.deadline_ns),
                    t.deadline_misses,
                    t.fence_timeouts,
                    t.longest_miss_run
                );
            }
            h.push_str("</figure>\n");
        }
        h.push_str("</div>\n</section>\n");
    }

    fn release_section(&self, h: &mut String) {
        let r = &self.analysis.release;
        let _ = writeln!(
            h,
            "<section id=\"release-jitter\">\n<h2>3. Release jitter per frame</h2>\n<p>Actual \
             minus planned release of each major frame, µs, over {} frames: min {}, mean {}, \
             p99 {}, max {}. Red ticks at the top: frames with a fault; dashed: mode \
             switches.</p>",
            r.frames,
            us(r.min_error_ns),
            us(r.mean_error_ns),
            us(r.p99_error_ns),
            us(r.max_error_ns)
        );
        if r.frames > 0 && r.min_error_ns == 0 && r.max_error_ns == 0 {
            h.push_str(
                "<p class=\"muted\">Every frame was released exactly on time (on the virtual \
                 clock releases are not measured).</p>\n",
            );
        }
        if r.frames > RELEASE_COLUMNS as u64 + 1 {
            let _ = writeln!(
                h,
                "<p class=\"muted\">Downsampled: the {} frames are drawn as the min and max \
                 release error of each of {} columns (about {} frames per column).</p>",
                r.frames,
                RELEASE_COLUMNS + 1,
                r.frames.div_ceil(RELEASE_COLUMNS as u64 + 1)
            );
        }
        h.push_str(&release_plot(&self.analysis));
        h.push_str("</section>\n");
    }

    fn timeline_section(&self, h: &mut String) {
        let meta = &self.trace.meta;
        h.push_str(
            "<section id=\"timeline\">\n<h2>4. Worst-case timeline and observed envelope</h2>\n\
             <p>One major frame per mode that ran. Per task, the upper bar is the validator's \
             worst case (latest start to latest finish, each engine a FIFO, each task at its \
             WCET); the lower bar is what the run observed (earliest start to latest end \
             relative to the frame's release; ticks at the latest start and earliest end). The \
             red line is the deadline; the margin is deadline minus the latest observed \
             end.</p>\n",
        );
        if meta.timeline.is_empty() {
            h.push_str("<p class=\"warn\">The trace carries no worst-case timeline (written before timelines were recorded): observed envelopes only.</p>\n");
        }
        if self.analysis.modes_run.is_empty() {
            h.push_str("<p class=\"muted\">No frame was released.</p>\n");
        }
        for &mode in &self.analysis.modes_run {
            let name = crate::analysis::mode_name(meta, mode);
            let _ = writeln!(
                h,
                "<figure id=\"timeline-{}\" class=\"wide\"><figcaption>mode <b>{}</b></figcaption>",
                esc(&name),
                esc(&name)
            );
            let rows: Vec<Row> = meta
                .tasks
                .iter()
                .enumerate()
                .filter_map(|(i, t)| {
                    let env = self
                        .analysis
                        .envelopes
                        .iter()
                        .find(|e| e.mode_index == mode && e.index as usize == i);
                    (t.in_mode(mode) || env.is_some()).then(|| Row {
                        task: &t.name,
                        worst: env.and_then(|e| e.worst_case),
                        seen: env.and_then(|e| e.observed),
                        deadline: t.deadline_ns,
                    })
                })
                .collect();
            h.push_str(&gantt(&rows, meta.period_ns));
            h.push_str(
                "<table class=\"timeline\"><thead><tr><th>task</th><th>worst-case start</th>\
                 <th>worst-case finish</th><th>slack</th><th>observed start</th>\
                 <th>observed end</th><th>deadline</th><th>margin</th></tr></thead><tbody>\n",
            );
            for r in &rows {
                let (ws, wf, sl) =
                    r.worst.map_or(("—".into(), "—".into(), "—".into()), |w| {
                        (
                            ms3(w.latest_start_ns),
                            ms3(w.latest_finish_ns),
                            ms3(w.slack_ns),
                        )
                    });
                let (os, oe, margin) = match r.seen {
                    Some(e) => (
                        format!("{} – {}", sms3(e.min_start_ns), sms3(e.max_start_ns)),
                        format!("{} – {}", sms3(e.min_end_ns), sms3(e.max_end_ns)),
                        signed_ms(r.deadline as i64 - e.max_end_ns),
                    ),
                    None => ("not run".into(), "—".into(), "—".into()),
                };
                let _ = writeln!(
                    h,
                    "<tr data-task=\"{}\"><td>{}</td><td>{ws}</td><td>{wf}</td><td>{sl}</td>\
                     <td>{os}</td><td>{oe}</td><td>{}</td><td>{margin}</td></tr>",
                    esc(r.task),
                    esc(r.task),
                    ms3(r.deadline)
                );
            }
            h.push_str("</tbody></table></figure>\n");
        }
        h.push_str("</section>\n");
    }

    fn faults_section(&self, h: &mut String) {
        let _ = writeln!(
            h,
            "<section id=\"faults\">\n<h2>5. Faults, detections and reactions</h2>\n<p><span \
             id=\"fault-count\" data-field=\"faults\">{}</span> fault{} detected by the \
             health monitor{}.</p>",
            self.analysis.faults.len(),
            if self.analysis.faults.len() == 1 {
                ""
            } else {
                "s"
            },
            if self.analysis.faults.is_empty() {
                ""
            } else {
                ", each with the reaction its rule prescribed"
            }
        );
        if !self.analysis.faults.is_empty() {
            h.push_str(
                "<table id=\"fault-table\"><thead><tr><th>frame</th><th>detected</th>\
                 <th>task</th><th>fault</th><th>reaction</th></tr></thead><tbody>\n",
            );
            for f in &self.analysis.faults {
                let _ = writeln!(
                    h,
                    "<tr data-frame=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    f.frame,
                    f.frame,
                    f.at_ns.map_or("—".into(), |t| format!(
                        "{} ms after the planned release",
                        sms3(t)
                    )),
                    esc(&f.task),
                    esc(&f.fault),
                    esc_code(&f.reaction)
                );
            }
            h.push_str("</tbody></table>\n");
        }
        h.push_str("</section>\n");
    }

    fn mode_switch_section(&self, h: &mut String) {
        let _ = writeln!(
            h,
            "<section id=\"mode-switches\">\n<h2>6. Mode switches</h2>\n<p><span \
             data-field=\"mode_switches\">{}</span> mode switch{}; the run started in mode \
             <code>{}</code>.</p>",
            self.analysis.mode_switches.len(),
            if self.analysis.mode_switches.len() == 1 {
                ""
            } else {
                "es"
            },
            esc(&crate::analysis::mode_name(&self.trace.meta, 0))
        );
        if !self.analysis.mode_switches.is_empty() {
            h.push_str(
                "<table><thead><tr><th>first frame in the new mode</th><th>from</th>\
                 <th>mode</th><th>requested by</th></tr></thead><tbody>\n",
            );
            for s in &self.analysis.mode_switches {
                let _ = writeln!(
                    h,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    s.frame,
                    esc(&s.from),
                    esc(&s.mode),
                    s.requested_by.as_ref().map_or_else(
                        || "—".to_string(),
                        |(task, frame)| format!(
                            "a fault of <code>{}</code> in frame {frame}",
                            esc(task)
                        )
                    )
                );
            }
            h.push_str("</tbody></table>\n");
        }
        h.push_str("</section>\n");
    }

    fn artifacts_section(&self, h: &mut String) {
        h.push_str("<section id=\"artifacts\">\n<h2>7. Artifacts</h2>\n");
        match &self.manifest {
            None => h.push_str("<p class=\"warn\">Not recorded: no run manifest.</p>\n"),
            Some(m) => {
                let _ = writeln!(
                    h,
                    "<p>Schedule <code>{}</code> from <code>{}</code>, SHA-256 of the TOML the \
                     tables were generated from: <code class=\"hash\">{}</code>. The SHA-256 is \
                     that of the bytes this run used (the copy compiled into the binary; for \
                     ONNX models and the binary, the file); the reference is the manifest's \
                     hash (for the schedule, the TOML file on disk now).</p>",
                    esc(&m.schedule.name),
                    esc(&m.schedule.path),
                    esc(&m.schedule.sha256)
                );
                h.push_str(
                    "<table id=\"artifact-table\"><thead><tr><th>kind</th><th>name</th>\
                     <th>file</th><th>SHA-256</th><th>reference</th><th>matches</th></tr>\
                     </thead><tbody>\n",
                );
                for a in &m.artifacts {
                    let kind = serde_json::to_value(a.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    let (class, verdict) = match (&a.manifest_sha256, a.matches) {
                        (None, _) => ("", "no manifest".to_string()),
                        (Some(_), true) => ("pass", "yes".to_string()),
                        (Some(_), false) => ("fail", "NO".to_string()),
                    };
                    let _ = writeln!(
                        h,
                        "<tr class=\"{class}\"><td>{}</td><td>{}</td><td><code>{}</code></td>\
                         <td><code class=\"hash\">{}</code></td><td>{}</td><td>{}</td></tr>",
                        esc(&kind),
                        esc(&a.name),
                        esc(&a.path),
                        esc(&a.sha256),
                        match (&a.manifest_sha256, &a.manifest) {
                            (Some(sha), Some(src)) => format!(
                                "<code class=\"hash\">{}</code><br><small>{}</small>",
                                esc(sha),
                                esc(src)
                            ),
                            (Some(sha), None) =>
                                format!("<code class=\"hash\">{}</code>", esc(sha)),
                            (None, _) => "—".to_string(),
                        },
                        verdict
                    );
                }
                h.push_str("</tbody></table>\n");
            }
        }
        h.push_str("</section>\n");
    }

    fn environment_section(&self, h: &mut String) {
        h.push_str("<section id=\"environment\">\n<h2>8. Toolchain, platform and run</h2>\n<table class=\"kv\"><tbody>\n");
        let meta = &self.trace.meta;
        let mut kv = |k: &str, v: String| {
            let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", esc(k), v);
        };
        kv(
            "run id",
            format!(
                "<code>{}</code>",
                esc(if self.run_id().is_empty() {
                    "(none recorded)"
                } else {
                    self.run_id()
                })
            ),
        );
        kv(
            "trace",
            format!(
                "<code>{}</code> (run id in the trace: <code>{}</code>)",
                esc(&self.trace_path.display().to_string()),
                esc(if meta.run_id.is_empty() {
                    "none"
                } else {
                    &meta.run_id
                })
            ),
        );
        kv("platform", format!("<code>{}</code>", esc(&meta.platform)));
        match &self.manifest {
            None => kv(
                "run manifest",
                "<span class=\"warn\">not found: toolchain, git commit and host were not recorded</span>".into(),
            ),
            Some(m) => {
                kv("host", esc(&m.host));
                kv(
                    "clock",
                    match m.clock {
                        crate::run::Clock::Real => "real (CLOCK_MONOTONIC): timing is measured".into(),
                        crate::run::Clock::Virtual => {
                            "virtual (SIL): timing is the engines' models, not measured".into()
                        }
                    },
                );
                kv(
                    "started / ended (UTC)",
                    format!(
                        "{} / {}",
                        esc(&m.started_utc),
                        esc(m.ended_utc.as_deref().unwrap_or("—"))
                    ),
                );
                kv(
                    "command",
                    format!("<code>{}</code>", esc(&m.command.join(" "))),
                );
                kv(
                    "git commit",
                    format!(
                        "<code>{}</code>{}",
                        esc(&m.git.commit),
                        match m.git.dirty {
                            Some(true) => " <span class=\"warn\">(uncommitted changes at build time)</span>",
                            Some(false) => " (clean at build time)",
                            None => " (working-tree state unknown)",
                        }
                    ),
                );
                kv("rustc", format!("<code>{}</code>", esc(&m.toolchain.rustc)));
                kv(
                    "nvcc (cubins)",
                    m.toolchain.nvcc.as_deref().map_or_else(
                        || "not recorded".to_string(),
                        |v| format!("<code>{}</code>", esc(v)),
                    ),
                );
                kv(
                    "driver and libraries",
                    if m.platform_report.is_empty() {
                        "not recorded".into()
                    } else {
                        format!("<pre>{}</pre>", esc(m.platform_report.trim_end()))
                    },
                );
            }
        }
        h.push_str("</tbody></table>\n</section>\n");
    }

    fn audits_section(&self, h: &mut String) {
        h.push_str("<section id=\"audits\">\n<h2>9. Audits of the binary that ran</h2>\n");
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.iter()
                    .map(|s| format!("<code>{}</code>", esc(s)))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        match self.manifest.as_ref().and_then(|m| m.audit.as_ref()) {
            None => h.push_str("<p class=\"warn\">No audit recorded.</p>\n"),
            Some(a) => {
                let x = &a.audit;
                let _ = writeln!(
                    h,
                    "<table class=\"kv\"><tbody>\n<tr><th>binary</th><td><code>{}</code></td></tr>\n\
                     <tr class=\"{}\"><th>forbidden imports</th><td id=\"forbidden-imports\">{}</td></tr>\n\
                     <tr class=\"{}\"><th>embedded PTX</th><td id=\"embedded-ptx\">{}</td></tr>\n\
                     <tr class=\"{}\"><th>embedded fatbins</th><td>{}</td></tr>\n\
                     <tr><th>embedded cubins (SASS, allowed)</th><td>{}</td></tr>\n\
                     <tr><th>needed libraries</th><td>{}</td></tr>\n\
                     <tr><th>vendor imports</th><td>{}</td></tr>\n\
                     <tr><th>dynamic lookups (allowed without dlopen)</th><td>{}</td></tr>\n\
                     <tr><th>audit</th><td class=\"{}\">{}</td></tr>\n</tbody></table>",
                    esc(&x.binary),
                    if x.forbidden_imports.is_empty() {
                        "pass"
                    } else {
                        "fail"
                    },
                    list(&x.forbidden_imports),
                    if x.embedded_ptx_offsets.is_empty() {
                        "pass"
                    } else {
                        "fail"
                    },
                    if x.embedded_ptx_offsets.is_empty() {
                        "none".to_string()
                    } else {
                        format!("at offsets {:x?}", x.embedded_ptx_offsets)
                    },
                    if x.embedded_fatbin_offsets.is_empty() {
                        "pass"
                    } else {
                        "fail"
                    },
                    if x.embedded_fatbin_offsets.is_empty() {
                        "none".to_string()
                    } else {
                        format!("at offsets {:x?}", x.embedded_fatbin_offsets)
                    },
                    x.embedded_cubins,
                    list(&x.needed),
                    list(&x.vendor_imports),
                    list(&x.dynamic_lookups),
                    if a.pass { "pass" } else { "fail" },
                    if a.pass { "PASS" } else { "FAIL" },
                );
                if let Some(s) = &a.sil_statement {
                    let _ = writeln!(
                        h,
                        "<p class=\"note\" id=\"sil-statement\">{}</p>",
                        esc_code(s)
                    );
                }
            }
        }
        let alloc = self
            .manifest
            .as_ref()
            .and_then(|m| m.allocations_after_seal);
        let _ = writeln!(
            h,
            "<p id=\"allocations\">Heap allocations after <code>seal()</code> (every thread, \
             first frame to last): <b class=\"{}\">{}</b>.</p>",
            match alloc {
                Some(0) => "pass",
                Some(_) => "fail",
                None => "muted",
            },
            alloc.map_or_else(|| "not measured".to_string(), |n| n.to_string())
        );
        h.push_str("</section>\n");
    }

    fn coverage_section(&self, h: &mut String) {
        h.push_str("<section id=\"coverage\">\n<h2>Appendix: test coverage</h2>\n");
        match &self.coverage {
            None => h.push_str(
                "<p class=\"muted\">Coverage: not measured (no <code>coverage.json</code>; \
                 <code>ci/coverage.sh</code> writes <code>target/orin-exec/coverage.json</code>).</p>\n",
            ),
            Some((path, c)) => {
                let _ = writeln!(
                    h,
                    "<p>Measured separately from this run with {} (<code>{}</code>): line and \
                     region coverage of the crates' tests.</p>\n<table><thead><tr><th>crate</th>\
                     <th>lines</th><th>line %</th><th>regions</th><th>region %</th></tr></thead><tbody>",
                    esc(&c.tool),
                    esc(&path.display().to_string())
                );
                for k in &c.crates {
                    let _ = writeln!(
                        h,
                        "<tr><td>{}</td><td>{} / {}</td><td>{:.1}</td><td>{} / {}</td><td>{:.1}</td></tr>",
                        esc(&k.name),
                        k.lines.covered,
                        k.lines.total,
                        k.lines.percent,
                        k.regions.covered,
                        k.regions.total,
                        k.regions.percent
                    );
                }
                h.push_str("</tbody></table>\n");
            }
        }
        h.push_str("</section>\n");
    }
}

/// The coverage summary in `dir`, its parent or its grandparent.
fn find_coverage(dir: &Path) -> Option<(PathBuf, Coverage)> {
    dir.ancestors().take(3).find_map(|d| {
        let p = d.join(COVERAGE_FILE);
        let c = serde_json::from_str(&std::fs::read_to_string(&p).ok()?).ok()?;
        Some((p, c))
    })
}

fn task_faults(t: &TaskAnalysis) -> u64 {
    t.deadline_misses + t.fence_timeouts + t.budget_overruns + t.errors
}

/// Tick values from 0 to at least `max` in steps of 1, 2, 2.5 or 5 × 10^k (about `n` of
/// them); the last tick is the axis end.
fn nice_ticks(max: f64, n: usize) -> Vec<f64> {
    let max = if max > 0.0 { max } else { 1.0 };
    let raw = max / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999_999)
        .unwrap_or(10.0 * mag);
    let count = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=count).map(|i| step * i as f64).collect()
}

/// The execution-time histogram's axis for samples up to `top_ns`: its ticks, ms, and its
/// range, ns (the last tick).
pub(crate) fn hist_range(top_ns: u64) -> (Vec<f64>, f64) {
    let ticks = nice_ticks(top_ns as f64 / 1e6 * 1.02, 5);
    let xmax = (ticks.last().copied().unwrap_or(1.0) * 1e6).max(1.0);
    (ticks, xmax)
}

/// A tick label with as many decimals as the step needs.
fn tick_label(v: f64, step: f64) -> String {
    let decimals = (0..6)
        .find(|d| {
            let scaled = step * 10f64.powi(*d);
            (scaled - scaled.round()).abs() < 1e-6
        })
        .unwrap_or(6) as usize;
    format!("{v:.decimals$}")
}

/// HTML-escape text, and show `code` spans (text between backticks) as code.
pub fn esc_code(s: &str) -> String {
    if s.matches('`').count() % 2 == 1 {
        return esc(s);
    }
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

/// HTML-escape text.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// ns as ms with three decimals (no unit).
pub fn ms3(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn ms(ns: u64) -> String {
    format!("{} ms", ms3(ns))
}

/// Signed ns as ms with three decimals (no unit).
fn sms3(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn signed_ms(ns: i64) -> String {
    format!("{:+.3} ms", ns as f64 / 1e6)
}

fn us(ns: i64) -> String {
    format!("{:.1} µs", ns as f64 / 1e3)
}

fn num(field: &str, v: u64) -> String {
    format!("<td data-field=\"{field}\">{v}</td>")
}

fn num_flag(field: &str, v: u64) -> String {
    format!(
        "<td data-field=\"{field}\"{}>{v}</td>",
        if v > 0 { " class=\"fail\"" } else { "" }
    )
}

fn time(field: &str, ns: u64) -> String {
    format!(
        "<td data-field=\"{field}\" data-ns=\"{ns}\">{}</td>",
        ms3(ns)
    )
}

/// A histogram of a task's execution times: linear time axis from 0 to past the deadline
/// (so the margin shows), logarithmic count axis, budget, WCET and deadline marked.
fn histogram(t: &TaskAnalysis) -> String {
    const W: f64 = 460.0;
    const H: f64 = 180.0;
    const L: f64 = 46.0;
    const R: f64 = 18.0;
    const T: f64 = 26.0;
    const B: f64 = 34.0;
    const BINS: usize = crate::analysis::HIST_BINS;
    let (ticks, xmax) = hist_range(
        t.deadline_ns
            .max(t.budget_ns)
            .max(t.wcet_ns)
            .max(t.stats.max_ns),
    );
    let step = ticks.get(1).copied().unwrap_or(1.0);
    // The analysis binned the executions over the same range (`hist_max_ns`).
    let counts = &t.histogram;
    let maxc = counts.iter().copied().max().unwrap_or(1).max(1);
    let decades = (maxc as f64).log10().ceil().max(1.0);
    // Count axis: log10 from 0.5 (the baseline) to 10^decades.
    let (pw, ph) = (W - L - R, H - T - B);
    let y = |c: f64| T + ph - ph * ((c / 0.5).log10() / (10f64.powf(decades) / 0.5).log10());
    let x = |ns: f64| L + pw * ns / xmax;
    // Sized for the largest histogram: its allocations do not depend on the numbers in it.
    let mut s = String::with_capacity(32 * 1024);
    let _ = writeln!(
        s,
        "<svg class=\"hist\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" \
         aria-label=\"execution time histogram of {}\"><title>Execution time of {} \
         (ms, log count)</title>",
        esc(&t.task),
        esc(&t.task)
    );
    // Axes and count gridlines.
    let _ = writeln!(
        s,
        "<line class=\"axis\" x1=\"{L}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><line class=\"axis\" \
         x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{}\"/>",
        T + ph,
        L + pw,
        T + ph,
        T + ph
    );
    for d in 0..=decades as u32 {
        let c = 10f64.powi(d as i32);
        let yy = y(c);
        let _ = writeln!(
            s,
            "<line class=\"grid\" x1=\"{L}\" y1=\"{yy:.1}\" x2=\"{:.1}\" y2=\"{yy:.1}\"/>\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            L + pw,
            L - 4.0,
            yy + 3.5,
            c as u64
        );
    }
    for v in &ticks {
        let _ = writeln!(
            s,
            "<line class=\"grid\" x1=\"{0:.1}\" y1=\"{T}\" x2=\"{0:.1}\" y2=\"{1:.1}\"/>\
             <text class=\"tick\" x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{3}</text>",
            x(v * 1e6),
            T + ph,
            T + ph + 13.0,
            tick_label(*v, step)
        );
    }
    let _ = writeln!(
        s,
        "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">execution time, ms</text>\
         <text class=\"tick\" x=\"12\" y=\"{:.1}\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">count (log)</text>",
        L + pw / 2.0,
        H - 4.0,
        T + ph / 2.0,
        T + ph / 2.0
    );
    let bw = pw / BINS as f64;
    for (i, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let top = y(c as f64);
        let _ = writeln!(
            s,
            "<rect class=\"bar\" x=\"{:.2}\" y=\"{top:.2}\" width=\"{:.2}\" height=\"{:.2}\"><title>{} executions in [{:.3}, {:.3}) ms</title></rect>",
            L + bw * i as f64,
            (bw - 0.6).max(0.6),
            T + ph - top,
            c,
            xmax * i as f64 / BINS as f64 / 1e6,
            xmax * (i + 1) as f64 / BINS as f64 / 1e6
        );
    }
    // Markers, with labels staggered so they do not overlap.
    let marks = [
        ("wcet", "WCET", t.wcet_ns, 0.0),
        ("budget", "budget", t.budget_ns, 9.0),
        ("deadline", "deadline", t.deadline_ns, 18.0),
    ];
    for (class, label, ns, dy) in marks {
        let xx = x(ns as f64);
        // Labels end at their line, or start there when the line is near the left edge.
        let (lx, anchor) = if xx - L < 70.0 {
            (xx + 2.0, "start")
        } else {
            (xx - 2.0, "end")
        };
        let _ = writeln!(
            s,
            "<line class=\"mark {class}\" x1=\"{xx:.1}\" y1=\"{:.1}\" x2=\"{xx:.1}\" y2=\"{:.1}\"/>\
             <text class=\"mlabel {class}\" x=\"{lx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{label} {:.3}</text>",
            T - 2.0,
            T + ph,
            T - 16.0 + dy,
            ns as f64 / 1e6
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Release error per frame: a line through every frame (min/max per pixel column for long
/// runs: the analysis keeps one (min, max) per column, not every frame).
fn release_plot(a: &Analysis) -> String {
    const W: f64 = 960.0;
    const H: f64 = 220.0;
    const L: f64 = 64.0;
    const R: f64 = 14.0;
    const T: f64 = 12.0;
    const B: f64 = 34.0;
    let series = &a.releases;
    if a.release.frames == 0 {
        return "<p class=\"muted\">No frame was released.</p>\n".into();
    }
    let (f0, f1) = (series.first_frame, series.last_frame);
    let lo = a.release.min_error_ns.min(0) as f64;
    let hi = (a.release.max_error_ns as f64).max(lo + 1000.0);
    let (pw, ph) = (W - L - R, H - T - B);
    debug_assert_eq!(pw as usize, RELEASE_COLUMNS);
    let x = |f: u64| L + pw * (f - f0) as f64 / (f1 - f0) as f64;
    let y = |e: f64| T + ph - ph * (e - lo) / (hi - lo);
    // Sized for a full plot: one allocation whatever the run's length.
    let mut s = String::with_capacity(128 * 1024);
    let _ = writeln!(
        s,
        "<svg class=\"release\" viewBox=\"0 0 {W} {H}\" width=\"100%\" role=\"img\" \
         aria-label=\"release error per frame\"><title>Release error per frame (µs)</title>\n\
         <line class=\"axis\" x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{}\"/>\
         <line class=\"axis\" x1=\"{L}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        T + ph,
        T + ph,
        L + pw,
        T + ph
    );
    for i in 0..=4 {
        let e = lo + (hi - lo) * i as f64 / 4.0;
        let _ = writeln!(
            s,
            "<line class=\"grid\" x1=\"{L}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>\
             <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{:.1}</text>",
            y(e),
            L + pw,
            y(e),
            L - 4.0,
            y(e) + 3.5,
            e / 1e3
        );
    }
    let mut frame_ticks: Vec<u64> = nice_ticks((f1 - f0) as f64, 8)
        .into_iter()
        .map(|v| f0 + v as u64)
        .filter(|f| *f <= f1)
        .collect();
    frame_ticks.dedup();
    for f in frame_ticks {
        let _ = writeln!(
            s,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{f}</text>",
            x(f),
            T + ph + 13.0
        );
    }
    let _ = writeln!(
        s,
        "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">frame</text>\
         <text class=\"tick\" x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">release error, µs</text>",
        L + pw / 2.0,
        H - 4.0,
        T + ph / 2.0,
        T + ph / 2.0
    );
    if lo < 0.0 {
        let _ = writeln!(
            s,
            "<line class=\"zero\" x1=\"{L}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
            y(0.0),
            L + pw,
            y(0.0)
        );
    }
    // Faults (red ticks along the top) and mode switches (dashed, labelled).
    let mut fault_frames: Vec<u64> = a.faults.iter().map(|f| f.frame).collect();
    fault_frames.dedup();
    for f in fault_frames.into_iter().filter(|f| (f0..=f1).contains(f)) {
        let _ = writeln!(
            s,
            "<line class=\"mark deadline\" x1=\"{0:.1}\" y1=\"{T}\" x2=\"{0:.1}\" y2=\"{1:.1}\"><title>fault in frame {f}</title></line>",
            x(f),
            T + 8.0
        );
    }
    for m in a
        .mode_switches
        .iter()
        .filter(|m| (f0..=f1).contains(&m.frame))
    {
        let _ = writeln!(
            s,
            "<line class=\"period\" x1=\"{0:.1}\" y1=\"{T}\" x2=\"{0:.1}\" y2=\"{1:.1}\"/>\
             <text class=\"tick\" x=\"{2:.1}\" y=\"{3:.1}\">→ {4} (frame {5})</text>",
            x(m.frame),
            T + ph,
            x(m.frame) + 3.0,
            T + 20.0,
            esc(&m.mode),
            m.frame
        );
    }
    // One column per pixel: the min and max of its frames.
    let mut line = String::with_capacity(16 * (RELEASE_COLUMNS + 1));
    let mut spans = String::with_capacity(32 * (RELEASE_COLUMNS + 1));
    for (c, v) in series.columns.iter().enumerate() {
        let Some((mn, mx)) = v else { continue };
        let xx = L + c as f64;
        let _ = write!(line, "{xx:.1},{:.1} ", y(*mx as f64));
        if mn != mx {
            let _ = write!(spans, "M{xx:.1} {:.1}V{:.1}", y(*mn as f64), y(*mx as f64));
        }
    }
    let _ = writeln!(
        s,
        "<polyline class=\"series\" points=\"{}\"/>",
        line.trim_end()
    );
    if !spans.is_empty() {
        let _ = writeln!(s, "<path class=\"series\" d=\"{spans}\"/>");
    }
    s.push_str("</svg>\n");
    s
}

struct Row<'a> {
    task: &'a str,
    worst: Option<WorstCase>,
    seen: Option<Observed>,
    deadline: u64,
}

/// A Gantt chart of one major frame: per task the validator's worst case above the observed
/// envelope, with the deadline.
fn gantt(rows: &[Row<'_>], period_ns: u64) -> String {
    const W: f64 = 960.0;
    const L: f64 = 170.0;
    const R: f64 = 14.0;
    const T: f64 = 10.0;
    const ROW: f64 = 34.0;
    const B: f64 = 34.0;
    let h = T + ROW * rows.len() as f64 + B;
    let xmax = rows
        .iter()
        .flat_map(|r| {
            [
                r.deadline,
                r.worst.map_or(0, |w| w.latest_finish_ns),
                r.seen.map_or(0, |e| e.max_end_ns.max(0) as u64),
            ]
        })
        .max()
        .unwrap_or(0)
        .max(period_ns)
        .max(1) as f64;
    let pw = W - L - R;
    let x = |ns: u64| L + pw * ns as f64 / xmax;
    // Observed times are signed (before the planned release: drawn at 0).
    let xs = |ns: i64| x(ns.max(0) as u64);
    let mut s = format!(
        "<svg class=\"gantt\" viewBox=\"0 0 {W} {h}\" width=\"100%\" role=\"img\" \
         aria-label=\"worst-case timeline and observed envelope\"><title>Worst case (upper bar) \
         and observed (lower bar) per task; red: deadline</title>\n"
    );
    let ticks = nice_ticks(xmax / 1e6, 10);
    let step = ticks.get(1).copied().unwrap_or(1.0);
    for v in ticks.iter().filter(|v| **v * 1e6 <= xmax + 1.0) {
        let ns = (v * 1e6) as u64;
        let _ = writeln!(
            s,
            "<line class=\"grid\" x1=\"{0:.1}\" y1=\"{T}\" x2=\"{0:.1}\" y2=\"{1:.1}\"/>\
             <text class=\"tick\" x=\"{0:.1}\" y=\"{2:.1}\" text-anchor=\"middle\">{3}</text>",
            x(ns),
            h - B,
            h - B + 13.0,
            tick_label(*v, step)
        );
    }
    let _ = writeln!(
        s,
        "<line class=\"period\" x1=\"{:.1}\" y1=\"{T}\" x2=\"{:.1}\" y2=\"{:.1}\"/>\
         <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">ms after the frame release (dashed: end of the major frame)</text>",
        x(period_ns),
        x(period_ns),
        h - B,
        L + pw / 2.0,
        h - 4.0
    );
    for (i, r) in rows.iter().enumerate() {
        let y0 = T + ROW * i as f64;
        let _ = writeln!(
            s,
            "<text class=\"task\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            L - 6.0,
            y0 + ROW / 2.0 + 4.0,
            esc(r.task)
        );
        if let Some(w) = r.worst {
            let (st, fi) = (w.latest_start_ns, w.latest_finish_ns);
            let _ = writeln!(
                s,
                "<rect class=\"worst\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"11\"><title>{}: worst case {:.3} – {:.3} ms</title></rect>",
                x(st),
                y0 + 4.0,
                (x(fi) - x(st)).max(1.0),
                esc(r.task),
                st as f64 / 1e6,
                fi as f64 / 1e6
            );
        }
        match r.seen {
            Some(e) => {
                let _ = writeln!(
                    s,
                    "<rect class=\"seen\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"11\"><title>{}: observed start {:.3} – {:.3} ms, end {:.3} – {:.3} ms ({} executions)</title></rect>\
                     <line class=\"tickmark\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>\
                     <line class=\"tickmark\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
                    xs(e.min_start_ns),
                    y0 + 17.0,
                    (xs(e.max_end_ns) - xs(e.min_start_ns)).max(1.0),
                    esc(r.task),
                    e.min_start_ns as f64 / 1e6,
                    e.max_start_ns as f64 / 1e6,
                    e.min_end_ns as f64 / 1e6,
                    e.max_end_ns as f64 / 1e6,
                    e.executions,
                    xs(e.max_start_ns),
                    y0 + 15.0,
                    xs(e.max_start_ns),
                    y0 + 30.0,
                    xs(e.min_end_ns),
                    y0 + 15.0,
                    xs(e.min_end_ns),
                    y0 + 30.0,
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\">not run</text>",
                    L + 4.0,
                    y0 + 27.0
                );
            }
        }
        let _ = writeln!(
            s,
            "<line class=\"mark deadline\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"><title>deadline {:.3} ms</title></line>",
            x(r.deadline),
            y0 + 2.0,
            x(r.deadline),
            y0 + ROW - 2.0,
            r.deadline as f64 / 1e6
        );
    }
    s.push_str("</svg>\n");
    s
}

const CSS: &str = r#"
:root { --fg:#1b1f24; --muted:#5b636d; --line:#d0d5db; --pass:#17753a; --fail:#b3261e; --warn:#8a5a00;
        --worst:#3d6fb6; --seen:#e08a1e; --bar:#4a7fbf; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       color: var(--fg); max-width: 1100px; margin: 0 auto; padding: 16px 22px 40px; }
h1 { font-size: 22px; margin: 4px 0; } h2 { font-size: 18px; margin: 26px 0 8px;
     border-bottom: 2px solid var(--line); padding-bottom: 3px; }
.sub { color: var(--muted); margin: 2px 0 6px; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; }
code.hash { font-size: 11px; word-break: break-all; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
th, td { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
thead th { background: #f1f3f5; }
#task-table { font-size: 12px; width: 100%; }
#task-table th, #task-table td { padding: 3px 4px; }
#task-table td[data-field], #task-table td[data-ns] { text-align: right; font-variant-numeric: tabular-nums; }
table.kv th { width: 230px; background: #f7f8f9; }
.pass { color: var(--pass); } .fail { color: var(--fail); font-weight: 600; }
.warn { color: var(--warn); } .muted { color: var(--muted); } .ok { color: var(--muted); }
tr.pass td:first-child { border-left: 4px solid var(--pass); }
tr.fail td:first-child { border-left: 4px solid var(--fail); }
.verdict { font-size: 20px; font-weight: 700; margin: 6px 0; }
.flag { color: var(--warn); }
.note { background: #f7f8f9; border-left: 4px solid var(--line); padding: 6px 10px; }
.grid { display: flex; flex-wrap: wrap; gap: 10px 16px; }
figure { margin: 6px 0; break-inside: avoid; page-break-inside: avoid; }
figure.task { width: 470px; }
figcaption { font-size: 13px; margin-bottom: 2px; }
p.stats { font-size: 12px; color: var(--muted); margin: 2px 0; }
svg text { font-family: system-ui, "DejaVu Sans", sans-serif; }
svg .axis { stroke: #333; stroke-width: 1; }
svg .grid { stroke: #e3e6ea; stroke-width: 1; }
svg .tick { font-size: 10px; fill: #444; }
svg .task { font-size: 12px; fill: var(--fg); }
svg .bar { fill: var(--bar); }
svg .mark { stroke-width: 1.6; }
svg .mark.wcet { stroke: var(--worst); stroke-dasharray: 4 3; }
svg .mark.budget { stroke: var(--seen); stroke-dasharray: 2 2; }
svg .mark.deadline { stroke: var(--fail); }
svg .mlabel { font-size: 9.5px; } svg .mlabel.wcet { fill: var(--worst); }
svg .mlabel.budget { fill: #9a5a00; } svg .mlabel.deadline { fill: var(--fail); }
svg .series { fill: none; stroke: var(--bar); stroke-width: 1.2; }
svg .zero { stroke: #999; stroke-dasharray: 3 3; }
svg .worst { fill: var(--worst); fill-opacity: 0.75; }
svg .seen { fill: var(--seen); fill-opacity: 0.8; }
svg .tickmark { stroke: #222; stroke-width: 1.4; }
svg .period { stroke: #555; stroke-dasharray: 6 4; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table, svg { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
"#;
