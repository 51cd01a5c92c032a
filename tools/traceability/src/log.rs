//! Test results from the output of `cargo test` (`cargo test --workspace 2>&1 | tee LOG`).
//!
//! Cargo announces each test binary (`Running unittests src/lib.rs (…/deps/sil_common-…)`,
//! `Running tests/misuse.rs (…/deps/misuse-…)`), then libtest prints one line per test:
//! `test path::to::name ... ok|FAILED|ignored`. Doc tests (`Doc-tests crate`) are skipped.
//! A binary without the libtest harness prints no test lines: it passed when cargo went on to
//! the next binary and no `error: … --test NAME` names it.

use std::fmt;

/// The result of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Passed.
    Ok,
    /// Failed.
    Failed,
    /// `#[ignore]`d (not run).
    Ignored,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Ok => "ok",
            Self::Failed => "FAILED",
            Self::Ignored => "ignored",
        })
    }
}

/// One test binary of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// The root file as cargo prints it (relative to the package).
    pub src: String,
    /// The binary's name without the hash (`sil_common`, `misuse`).
    pub stem: String,
    /// `Running unittests …` (a lib's or bin's unit tests) rather than an integration test.
    pub unit: bool,
    /// Each test line, in order.
    pub tests: Vec<(String, Outcome)>,
    /// For a binary without test lines: its result, when the log shows it.
    pub whole: Option<Outcome>,
}

/// A parsed log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestLog {
    /// The binaries, in order.
    pub binaries: Vec<Binary>,
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `Running [unittests ]PATH (BINARY)` → (unit, path, stem).
fn running(line: &str) -> Option<(bool, String, String)> {
    let rest = line.trim().strip_prefix("Running ")?;
    let (unit, rest) = match rest.strip_prefix("unittests ") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (src, bin) = rest.rsplit_once(" (")?;
    let bin = bin.strip_suffix(')')?;
    let file = bin.rsplit(['/', '\\']).next()?;
    let file = file.strip_suffix(".exe").unwrap_or(file);
    let stem = match file.rsplit_once('-') {
        Some((s, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => s,
        _ => file,
    };
    Some((unit, src.trim().to_string(), stem.to_string()))
}

/// A libtest result line, found anywhere in `line` (output of other threads may precede
/// it): `test NAME[ - should panic] ... RESULT`.
fn test_line(line: &str) -> Option<(String, Outcome)> {
    let mut from = 0;
    while let Some(i) = line[from..].find("test ") {
        let at = from + i;
        if let Some(r) = test_at(&line[at..]) {
            return Some(r);
        }
        from = at + 5;
    }
    None
}

fn test_at(s: &str) -> Option<(String, Outcome)> {
    let rest = s.strip_prefix("test ")?;
    let (name, result) = rest.split_once(" ... ")?;
    let name = name.strip_suffix(" - should panic").unwrap_or(name);
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let result = result.trim_start();
    let outcome = if result.starts_with("ok") {
        Outcome::Ok
    } else if result.starts_with("FAILED") {
        Outcome::Failed
    } else if result.starts_with("ignored") {
        Outcome::Ignored
    } else {
        return None;
    };
    Some((name.to_string(), outcome))
}

impl TestLog {
    /// Parses the text of a log.
    ///
    /// ```
    /// let log = orin_exec_traceability::log::TestLog::parse(
    ///     "     Running unittests src/lib.rs (target/debug/deps/demo-0123456789abcdef)\n\
    ///      test tests::works ... ok\n",
    /// );
    /// assert_eq!(log.binaries[0].stem, "demo");
    /// assert_eq!(log.binaries[0].tests[0].0, "tests::works");
    /// ```
    pub fn parse(text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(strip_ansi).collect();
        let mut binaries: Vec<Binary> = Vec::new();
        // Index of the binary whose output we are in (None: outside, e.g. doc tests).
        let mut current: Option<usize> = None;
        // Index of the line where each binary's section starts.
        let mut starts: Vec<usize> = Vec::new();
        // Whether a later section header follows each binary.
        let mut followed: Vec<bool> = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            let trimmed = line.trim();
            if let Some((unit, src, stem)) = running(trimmed) {
                if let Some(c) = current {
                    followed[c] = true;
                }
                binaries.push(Binary {
                    src,
                    stem,
                    unit,
                    tests: Vec::new(),
                    whole: None,
                });
                starts.push(n);
                followed.push(false);
                current = Some(binaries.len() - 1);
                continue;
            }
            if trimmed.starts_with("Doc-tests ") {
                if let Some(c) = current {
                    followed[c] = true;
                }
                current = None;
                continue;
            }
            if let Some(c) = current
                && let Some(t) = test_line(line)
            {
                binaries[c].tests.push(t);
            }
        }
        for (i, b) in binaries.iter_mut().enumerate() {
            if !b.tests.is_empty() {
                continue;
            }
            let needle = format!("--test {}`", b.stem);
            let failed = lines[starts[i]..]
                .iter()
                .any(|l| l.contains(&needle) && (l.contains("error") || l.trim().starts_with('`')));
            b.whole = if failed {
                Some(Outcome::Failed)
            } else if followed[i] {
                Some(Outcome::Ok)
            } else {
                None
            };
        }
        TestLog { binaries }
    }
}

#[cfg(test)]
/// Covers: REQ-TRC-003
mod tests {
    use super::*;

    #[test]
    fn binaries_tests_and_outcomes_are_read() {
        let log = TestLog::parse(
            "   Compiling x v0.1.0\n\
             \x20    Running unittests src/lib.rs (/t/debug/deps/sil_common-061d672abba043a7)\n\
             \n\
             running 3 tests\n\
             test attr::tests::a ... ok\n\
             test attr::tests::b ... FAILED\n\
             test c - should panic ... ok\n\
             test d ... ignored, needs a GPU\n\
             stray output from a C library test e ... ok\n\
             test result: FAILED. 2 passed; 1 failed\n\
             \x20    Running tests/api.rs (/t/debug/deps/api-0123456789abcdef)\n\
             test f ... ok\n\
             \x20  Doc-tests sil_common\n\
             test sil/common/src/attr.rs - attr (line 10) ... ok\n",
        );
        assert_eq!(log.binaries.len(), 2);
        let b = &log.binaries[0];
        assert!(b.unit);
        assert_eq!(
            (b.src.as_str(), b.stem.as_str()),
            ("src/lib.rs", "sil_common")
        );
        assert_eq!(
            b.tests,
            vec![
                ("attr::tests::a".into(), Outcome::Ok),
                ("attr::tests::b".into(), Outcome::Failed),
                ("c".into(), Outcome::Ok),
                ("d".into(), Outcome::Ignored),
                ("e".into(), Outcome::Ok),
            ]
        );
        let api = &log.binaries[1];
        assert!(!api.unit);
        assert_eq!(api.stem, "api");
        // The doc test is not attributed to the integration test before it.
        assert_eq!(api.tests, vec![("f".into(), Outcome::Ok)]);
    }

    #[test]
    fn a_binary_without_harness_passes_only_when_cargo_went_on() {
        let passed = TestLog::parse(
            "     Running tests/no_alloc.rs (/t/deps/no_alloc-0123456789abcdef)\n\
             0 allocations\n\
             \x20    Running tests/other.rs (/t/deps/other-0123456789abcdef)\n",
        );
        assert_eq!(passed.binaries[0].whole, Some(Outcome::Ok));
        // The last binary of a log: nothing shows it finished.
        assert_eq!(passed.binaries[1].whole, None);
        let failed = TestLog::parse(
            "     Running tests/no_alloc.rs (/t/deps/no_alloc-0123456789abcdef)\n\
             3 allocations\n\
             error: test failed, to rerun pass `-p orin-exec --test no_alloc`\n",
        );
        assert_eq!(failed.binaries[0].whole, Some(Outcome::Failed));
    }

    #[test]
    fn colours_are_ignored() {
        let log = TestLog::parse(
            "\x1b[1m\x1b[92m     Running\x1b[0m tests/a.rs (/t/deps/a-0123456789abcdef)\n\
             test x ... \x1b[32mok\x1b[0m\n",
        );
        assert_eq!(log.binaries[0].tests, vec![("x".into(), Outcome::Ok)]);
    }
}
