//! Requirements traceability for orin-exec: which tests cover which requirement, and how
//! they did in the last test run.
//!
//! * `docs/requirements.toml` lists the requirements with stable ids ([`requirements`]);
//! * each test names the requirements it covers with a doc line `Covers: REQ-…` on the
//!   function, an enclosing module or its file's header ([`scan`]);
//! * a `cargo test --workspace` log gives each test's last result ([`log`]);
//! * [`Trace::render`] writes `docs/traceability.md` (requirement → tests → result), and
//!   [`Trace::problems`] lists what `traceability --check` fails on.
//!
//! ```no_run
//! use std::path::Path;
//! let root = Path::new(".");
//! let trace = orin_exec_traceability::Trace::load(root, None)?;
//! let committed = std::fs::read_to_string(root.join("docs/traceability.md"))?;
//! for p in trace.problems(Some(&committed)) {
//!     eprintln!("{p}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crate also summarises `cargo llvm-cov` exports per crate ([`coverage`]).

pub mod coverage;
pub mod log;
pub mod requirements;
pub mod scan;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use log::{Outcome, TestLog};
use requirements::{Requirements, group_of};
use scan::{Scan, TargetKind};

/// Where the requirements live, from the workspace root.
pub const REQUIREMENTS: &str = "docs/requirements.toml";
/// Where the generated document goes, from the workspace root.
pub const DOCUMENT: &str = "docs/traceability.md";
/// The CI script whose steps requirements may name.
pub const CI_SCRIPT: &str = ".ci/run";

/// The results of a test log, mapped to the scanned tests.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// Per test of [`Scan::tests`]: its outcome, or `None` when the log does not show it.
    pub outcomes: Vec<Option<Outcome>>,
    /// Tests of the log that match no test of the sources (`binary: path`).
    pub unmatched: Vec<String>,
    /// Binaries of the log that match no target.
    pub unknown_binaries: Vec<String>,
}

/// Maps a log's test lines to the scanned tests: a binary is the target with its name and
/// root file (when several packages have one, e.g. `tests/api.rs`, the one whose tests the
/// binary ran), and a test line is the test with that module path and name.
pub fn results(scan: &Scan, log: &TestLog) -> Results {
    let mut out = Results {
        outcomes: vec![None; scan.tests.len()],
        ..Results::default()
    };
    let mut taken = std::collections::HashSet::new();
    for b in &log.binaries {
        let candidates: Vec<usize> = scan
            .targets
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                t.name == b.stem
                    && t.src_in_package == b.src
                    && (t.kind == TargetKind::Test) != b.unit
            })
            .map(|(i, _)| i)
            .collect();
        let by_target: Vec<HashMap<&str, usize>> =
            candidates.iter().map(|&t| scan.tests_of(t)).collect();
        // The candidate with the most of the binary's test names; on a tie, the first one
        // no earlier binary took (cargo runs the binaries of a name in package order, which
        // is `cargo metadata`'s order).
        let best = (0..candidates.len()).max_by_key(|&k| {
            let hits = b
                .tests
                .iter()
                .filter(|(n, _)| by_target[k].contains_key(n.as_str()))
                .count();
            (hits, !taken.contains(&candidates[k]), std::cmp::Reverse(k))
        });
        let Some(k) = best else {
            out.unknown_binaries.push(format!("{} ({})", b.src, b.stem));
            continue;
        };
        taken.insert(candidates[k]);
        let tests = &by_target[k];
        if !scan.targets[candidates[k]].harness {
            if let Some(&i) = tests.get("") {
                out.outcomes[i] = b.whole;
            }
            continue;
        }
        for (name, outcome) in &b.tests {
            if !is_test_path(name) {
                continue; // not libtest's: e.g. trybuild's `test tests/ui/x.rs ... ok`
            }
            match tests.get(name.as_str()) {
                Some(&i) => out.outcomes[i] = Some(*outcome),
                None => out
                    .unmatched
                    .push(format!("{} ({}): {name}", b.src, b.stem)),
            }
        }
    }
    out
}

/// A libtest test path: identifiers joined by `::`.
fn is_test_path(name: &str) -> bool {
    name.split("::").all(|part| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Everything the document is made of.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The workspace root.
    pub root: PathBuf,
    /// `docs/requirements.toml`.
    pub requirements: Requirements,
    /// The tests and tags.
    pub scan: Scan,
    /// The log's results, when a log was given.
    pub results: Option<Results>,
    /// The step titles of `.ci/run`.
    pub ci_steps: Vec<String>,
}

/// Why a trace could not be built.
#[derive(Debug)]
pub enum TraceError {
    /// A file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// `docs/requirements.toml` was refused.
    Requirements(requirements::RequirementsError),
    /// The workspace could not be scanned.
    Scan(scan::ScanError),
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Read { path, error } => write!(f, "{}: {error}", path.display()),
            Self::Requirements(e) => write!(f, "{REQUIREMENTS}: {e}"),
            Self::Scan(e) => write!(f, "scanning the workspace: {e}"),
        }
    }
}

impl std::error::Error for TraceError {}

fn read(path: &Path) -> Result<String, TraceError> {
    std::fs::read_to_string(path).map_err(|error| TraceError::Read {
        path: path.to_path_buf(),
        error,
    })
}

/// The `step "title"` titles of a CI script.
pub fn ci_steps(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in script.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("step \"")
            && let Some((title, _)) = rest.split_once('"')
        {
            out.push(title.to_string());
        }
    }
    out
}

impl Trace {
    /// Reads the requirements, scans the workspace at `root` and, when given, the log.
    pub fn load(root: &Path, log: Option<&Path>) -> Result<Self, TraceError> {
        let requirements = Requirements::parse(&read(&root.join(REQUIREMENTS))?)
            .map_err(TraceError::Requirements)?;
        let scan = scan::scan(root).map_err(TraceError::Scan)?;
        let results = match log {
            Some(p) => Some(results(&scan, &TestLog::parse(&read(p)?))),
            None => None,
        };
        let ci = root.join(CI_SCRIPT);
        let ci_steps = if ci.is_file() {
            ci_steps(&read(&ci)?)
        } else {
            Vec::new()
        };
        Ok(Trace {
            root: root.to_path_buf(),
            requirements,
            scan,
            results,
            ci_steps,
        })
    }

    /// Indices of the tests that cover `id`, in document order.
    pub fn tests_of(&self, id: &str) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.scan.tests.len())
            .filter(|&i| self.scan.tests[i].covers.contains(id))
            .collect();
        v.sort_by(|&a, &b| {
            let (x, y) = (&self.scan.tests[a], &self.scan.tests[b]);
            (&x.file, &x.in_file, x.target).cmp(&(&y.file, &y.in_file, y.target))
        });
        v
    }

    fn outcome(&self, test: usize) -> &'static str {
        match &self.results {
            None => "—",
            Some(r) => match r.outcomes[test] {
                Some(Outcome::Ok) => "ok",
                Some(Outcome::Failed) => "FAILED",
                Some(Outcome::Ignored) => "ignored",
                None => "not run",
            },
        }
    }

    /// The result cell of a requirement.
    fn requirement_result(&self, id: &str, tests: &[usize]) -> String {
        let q = self.requirements.get(id);
        if tests.is_empty() {
            return match q {
                Some(q) if !q.ci.is_empty() => "CI step".into(),
                Some(q) if !q.records.is_empty() => "record".into(),
                _ => "NO TEST".into(),
            };
        }
        if self.results.is_none() {
            return "—".into();
        }
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for &t in tests {
            *counts.entry(self.outcome(t)).or_default() += 1;
        }
        if counts.len() == 1 && counts.contains_key("ok") {
            return "ok".into();
        }
        let order = ["FAILED", "ok", "ignored", "not run"];
        order
            .iter()
            .filter_map(|k| counts.get(k).map(|n| format!("{k} {n}")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The document (`docs/traceability.md`).
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Requirements → tests\n\n\
             <!-- Generated by `traceability` (tools/traceability) from {REQUIREMENTS}, the \
             `Covers:` tags of the tests and a test log. Do not edit: CI fails when this file \
             is out of date. -->\n\n\
             Each requirement of the project's issues (`{REQUIREMENTS}`, stable ids), the tests \
             that cover it and their result in the last `cargo test --workspace` log. A test \
             names what it covers with a doc line `Covers: REQ-…` on the test function, on an \
             enclosing module, or in its file's header; the C conformance clients and the \
             shell checks are traced through the Rust tests that run them. A requirement that \
             no test can show names the `.ci/run` step that checks it (\"CI step\") or the \
             record a reviewer reads (\"record\": results on real hardware, a manual). Doc \
             tests are run by the test command but not traced.\n\n\
             Regenerate after changing tests or requirements, and check:\n\n\
             ```sh\n\
             mkdir -p target/orin-exec\n\
             cargo test --workspace 2>&1 | tee target/orin-exec/test.log\n\
             cargo run -p orin-exec-traceability -- --log target/orin-exec/test.log\n\
             cargo run -p orin-exec-traceability -- --check --log target/orin-exec/test.log\n\
             ```\n"
        );
        let _ = writeln!(s, "{}\n", self.log_line());

        let _ = writeln!(
            s,
            "## Summary\n\n| requirement | text | tests | result |\n|---|---|---:|---|"
        );
        for q in &self.requirements.requirements {
            let tests = self.tests_of(&q.id);
            let _ = writeln!(
                s,
                "| [{}](#{}) | {} | {} | {} |",
                q.id,
                q.id.to_lowercase(),
                cell(&q.text),
                tests.len(),
                self.requirement_result(&q.id, &tests)
            );
        }
        s.push('\n');

        for g in &self.requirements.groups {
            let reqs: Vec<_> = self
                .requirements
                .requirements
                .iter()
                .filter(|q| group_of(&q.id) == Some(g.code.as_str()))
                .collect();
            if reqs.is_empty() {
                continue;
            }
            let _ = writeln!(s, "## {}\n", g.title);
            for q in reqs {
                let _ = writeln!(s, "### {}\n\n{}", q.id, q.text.trim());
                if !q.issues.is_empty() {
                    let issues: Vec<String> = q.issues.iter().map(|i| format!("#{i}")).collect();
                    let _ = writeln!(s, "\nIssue: {}.", issues.join(", "));
                }
                if !q.evidence.is_empty() {
                    let _ = writeln!(s, "\nAlso: {}.", q.evidence.join("; "));
                }
                if !q.ci.is_empty() {
                    let steps: Vec<String> = q.ci.iter().map(|c| format!("\"{c}\"")).collect();
                    let _ = writeln!(s, "\nCI step (`{CI_SCRIPT}`): {}.", steps.join(", "));
                }
                if !q.records.is_empty() {
                    let recs: Vec<String> = q.records.iter().map(|r| format!("`{r}`")).collect();
                    let _ = writeln!(s, "\nRecord: {}.", recs.join(", "));
                }
                let tests = self.tests_of(&q.id);
                if tests.is_empty() {
                    let _ = writeln!(
                        s,
                        "\nNo test; result: {}.\n",
                        self.requirement_result(&q.id, &tests)
                    );
                    continue;
                }
                let _ = writeln!(s, "\n| test | file | result |\n|---|---|---|");
                for t in tests {
                    let test = &self.scan.tests[t];
                    let _ = writeln!(
                        s,
                        "| `{}` | `{}` | {} |",
                        test.in_file,
                        test.file,
                        self.outcome(t)
                    );
                }
                s.push('\n');
            }
        }
        s
    }

    fn log_line(&self) -> String {
        let Some(r) = &self.results else {
            return "Test log: none given, so no results are shown.".into();
        };
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for i in 0..r.outcomes.len() {
            *counts.entry(self.outcome(i)).or_default() += 1;
        }
        let get = |k| counts.get(k).copied().unwrap_or(0);
        format!(
            "Test log: {} traced tests: {} ok, {} failed, {} ignored, {} not run (not in \
             the log: behind a `#[cfg]` or a feature the test command does not enable).",
            r.outcomes.len(),
            get("ok"),
            get("FAILED"),
            get("ignored"),
            get("not run")
        )
    }

    /// What `--check` fails on; `committed` is the committed document (`None`: not there).
    pub fn problems(&self, committed: Option<&str>) -> Vec<String> {
        let mut p = Vec::new();
        for (file, why) in &self.scan.unreadable {
            p.push(format!("{file}: {why}"));
        }
        for t in &self.scan.tags {
            if group_of(&t.id).is_none() {
                p.push(format!(
                    "{}: `Covers: {}` is not a requirement id (REQ-<GROUP>-<NNN>)",
                    loc(t),
                    t.id
                ));
            } else if self.requirements.get(&t.id).is_none() {
                p.push(format!(
                    "{}: `Covers:` names unknown requirement {} (not in {REQUIREMENTS})",
                    loc(t),
                    t.id
                ));
            }
        }
        for t in &self.scan.dangling {
            if self.requirements.get(&t.id).is_some() {
                p.push(format!(
                    "{}: `Covers: {}` is on no test (put it on a #[test] function, its \
                     module, or the test file's header)",
                    loc(t),
                    t.id
                ));
            }
        }
        for t in &self.scan.tests {
            if t.covers.is_empty() {
                p.push(format!(
                    "{}: test `{}` names no requirement (add `/// Covers: REQ-…` above it)",
                    t.file, t.in_file
                ));
            }
        }
        for q in &self.requirements.requirements {
            let tests = self.tests_of(&q.id);
            if tests.is_empty() && q.ci.is_empty() && q.records.is_empty() {
                p.push(format!(
                    "{}: no test covers it, and it names no CI step or record",
                    q.id
                ));
            }
            for step in &q.ci {
                if !self.ci_steps.contains(step) {
                    p.push(format!(
                        "{}: CI step \"{step}\" is not in {CI_SCRIPT}",
                        q.id
                    ));
                }
            }
            for r in &q.records {
                if !self.root.join(r).exists() {
                    p.push(format!("{}: record `{r}` does not exist", q.id));
                }
            }
            for e in &q.evidence {
                for path in evidence_paths(e) {
                    let first = path.split('/').next().unwrap_or_default();
                    if self.root.join(first).is_dir() && !self.root.join(&path).exists() {
                        p.push(format!(
                            "{}: evidence names `{path}`, which does not exist",
                            q.id
                        ));
                    }
                }
            }
        }
        if let Some(r) = &self.results {
            for q in &self.requirements.requirements {
                let tests = self.tests_of(&q.id);
                let passed = tests.iter().any(|&t| r.outcomes[t] == Some(Outcome::Ok));
                if !tests.is_empty() && !passed && q.ci.is_empty() && q.records.is_empty() {
                    p.push(format!(
                        "{}: none of its {} tests passed in the log ({})",
                        q.id,
                        tests.len(),
                        self.requirement_result(&q.id, &tests)
                    ));
                }
            }
            for (i, o) in r.outcomes.iter().enumerate() {
                if *o == Some(Outcome::Failed) {
                    let t = &self.scan.tests[i];
                    p.push(format!(
                        "{}: test `{}` FAILED in the log",
                        t.file, t.in_file
                    ));
                }
            }
        }
        let generated = self.render();
        match committed {
            None => p.push(format!("{DOCUMENT} does not exist; generate it")),
            Some(c) => {
                let (a, b) = if self.results.is_some() {
                    (c.to_string(), generated)
                } else {
                    (mask_results(c), mask_results(&generated))
                };
                if let Some((line, old, new)) = first_difference(&a, &b) {
                    p.push(format!(
                        "{DOCUMENT} is out of date (line {line}: committed `{old}`, generated \
                         `{new}`); regenerate it (see its header)"
                    ));
                }
            }
        }
        p
    }
}

/// `file:line`, or `file` for a tag written as `#[doc = "…"]` (no `///` line to point at).
fn loc(t: &scan::Tag) -> String {
    if t.line == 0 {
        t.file.clone()
    } else {
        format!("{}:{}", t.file, t.line)
    }
}

/// Escapes a table cell.
fn cell(s: &str) -> String {
    s.trim().replace('|', "\\|").replace('\n', " ")
}

/// The document with every result hidden: the last cell of each table row and the
/// `Test log:` line (what a check without a log compares).
pub fn mask_results(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    for line in doc.lines() {
        if line.starts_with("Test log:") {
            out.push_str("Test log: …");
        } else if line.starts_with('|') && line.ends_with('|') && line.len() > 1 {
            let body = &line[..line.len() - 1];
            match body.rsplit_once('|') {
                Some((head, last)) if !last.trim().chars().all(|c| c == '-' || c == ':') => {
                    out.push_str(head);
                    out.push_str("| … |");
                }
                _ => out.push_str(line),
            }
        } else if line.starts_with("No test; result:") {
            out.push_str("No test; result: …");
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn first_difference(a: &str, b: &str) -> Option<(usize, String, String)> {
    let (mut la, mut lb) = (a.lines(), b.lines());
    let mut n = 0;
    loop {
        n += 1;
        match (la.next(), lb.next()) {
            (None, None) => return None,
            (x, y) if x == y => continue,
            (x, y) => {
                let show =
                    |l: Option<&str>| l.unwrap_or("(end of file)").chars().take(120).collect();
                return Some((n, show(x), show(y)));
            }
        }
    }
}

/// Paths named in backticks in an evidence text (`src/exec/health.rs`, the file of
/// `tests/misuse.rs::name`); commands, globs and placeholders are skipped.
fn evidence_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let span = span
            .split("::")
            .next()
            .unwrap_or_default()
            .trim_end_matches('/');
        if !span.contains('/')
            || span.contains(char::is_whitespace)
            || span.contains(['*', '<', '>', '{', '$', '(', '#'])
            || span.starts_with('-')
            || span.starts_with('/')
            || span.starts_with("target/")
        {
            continue;
        }
        out.push(span.to_string());
    }
    out
}

#[cfg(test)]
/// Covers: REQ-TRC-005
mod tests {
    use super::*;

    #[test]
    fn masking_hides_only_results() {
        let doc = "Test log: 3 ok\n| a | b | result |\n|---|---|---|\n| `x` | `f.rs` | ok |\ntext | not a row\n";
        let masked = mask_results(doc);
        assert_eq!(
            masked,
            "Test log: …\n| a | b | … |\n|---|---|---|\n| `x` | `f.rs` | … |\ntext | not a row\n"
        );
        assert_eq!(masked, mask_results(&doc.replace("| ok |", "| FAILED |")));
        assert_ne!(masked, mask_results(&doc.replace("`x`", "`y`")));
    }

    #[test]
    fn evidence_paths_skip_commands_and_globs() {
        assert_eq!(
            evidence_paths(
                "`tests/misuse.rs::name`; `cargo check -p x`; `sil/*/Cargo.toml`; `src/mem/`; \
                 `<target>/x.rs`; `Executive::holder`; `target/orin-exec/a.json`"
            ),
            vec!["tests/misuse.rs".to_string(), "src/mem".to_string()]
        );
    }

    #[test]
    fn ci_step_titles_are_read() {
        let script = "step \"format and lints\"\ncargo fmt\n    step \"tests (the README's test command)\"\n";
        assert_eq!(
            ci_steps(script),
            vec!["format and lints", "tests (the README's test command)"]
        );
    }
}
