//! The generated tables of the repository's schedules, committed in `ci/expected/` so that a
//! change to the generator or to a schedule shows up in review as a diff of Rust code.
//!
//! Each test renders a schedule as its package's build script does and compares the result
//! with the committed file; on a mismatch it prints a unified-style diff of the first
//! difference. `ORIN_EXEC_BLESS=1 cargo test -p orin-exec-schedule --test expected` writes the
//! new output instead (then review and commit it).
//!
//! Covers: REQ-API-007

mod common;

use std::path::Path;

use common::{options, repo_root};
use orin_exec_schedule::{Options, render};

/// Lines of context around a difference.
const CONTEXT: usize = 3;
/// At most this many changed lines are shown per side.
const SHOWN: usize = 40;

/// Renders `schedule` (relative to the repository) for the package `package` with `options`
/// and compares it with `ci/expected/<expected>`, or writes it there under `ORIN_EXEC_BLESS=1`.
fn check_expected(schedule: &str, package: &str, options: Options, expected: &str) {
    let root = repo_root();
    // The build scripts generate the runtime items (storage, typed binding) too.
    let options = Options {
        runtime_path: Some(orin_exec_schedule::DEFAULT_RUNTIME_PATH.into()),
        package_dir: Some(root.join(package)),
        ..options
    };
    let actual = render(&root.join(schedule), &options)
        .unwrap_or_else(|d| panic!("{d}"))
        .source;
    let root_text = root.display().to_string();
    assert!(
        !actual.contains(&root_text),
        "the generated code names the checkout ({root_text}):\n{actual}"
    );
    let path = root.join("ci/expected").join(expected);
    if std::env::var_os("ORIN_EXEC_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if let Some(diff) = first_difference(&committed, &actual) {
        panic!(
            "the generated code of {schedule} differs from {}:\n{diff}\n\
             If the change is intended: ORIN_EXEC_BLESS=1 cargo test -p orin-exec-schedule \
             --test expected, then review and commit the file.",
            relative(&path, &root)
        );
    }
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A unified-style diff (`-` committed, `+` generated) of the first differing region of
/// `old` and `new`, between their common first and last lines; `None` if they are equal.
fn first_difference(old: &str, new: &str) -> Option<String> {
    if old == new {
        return None;
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    let start = prefix.saturating_sub(CONTEXT);
    let (a_after, b_after) = (
        (a_end + CONTEXT).min(a.len()),
        (b_end + CONTEXT).min(b.len()),
    );
    let mut out = format!(
        "--- committed\n+++ generated\n@@ -{},{} +{},{} @@\n",
        start + 1,
        a_after - start,
        start + 1,
        b_after - start
    );
    let mut push = |sign: char, lines: &[&str]| {
        for line in lines.iter().take(SHOWN) {
            out.push(sign);
            out.push_str(line);
            out.push('\n');
        }
        if lines.len() > SHOWN {
            out.push_str(&format!("{sign}... ({} more lines)\n", lines.len() - SHOWN));
        }
    };
    push(' ', &a[start..prefix]);
    push('-', &a[prefix..a_end]);
    push('+', &b[prefix..b_end]);
    push(' ', &a[a_end..a_after]);
    if old.ends_with('\n') != new.ends_with('\n') {
        out.push_str("\\ the files differ in their final newline\n");
    }
    Some(out)
}

/// Covers: REQ-API-002
#[test]
fn aeb_schedule_matches_ci_expected() {
    // The AEB demo's build script: the default table path.
    check_expected(
        "examples/aeb/schedule.toml",
        "examples/aeb",
        options(),
        "aeb-schedule.rs",
    );
}

#[test]
fn gpu_bench_schedule_matches_ci_expected() {
    // hil-tests/build.rs: the default table path.
    check_expected(
        "hil-tests/schedules/gpu_bench.toml",
        "hil-tests",
        options(),
        "gpu_bench-schedule.rs",
    );
}

#[test]
fn the_diff_shows_the_first_difference_with_context() {
    let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
    let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
    let diff = first_difference(old, new).unwrap();
    assert_eq!(
        diff,
        "--- committed\n+++ generated\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
    );
    assert_eq!(first_difference(old, old), None);
    let appended = first_difference("a\n", "a\nb\n").unwrap();
    assert!(
        appended.ends_with("@@ -1,1 +1,2 @@\n a\n+b\n"),
        "{appended}"
    );
    let newline = first_difference("a\n", "a").unwrap();
    assert!(newline.ends_with("final newline\n"), "{newline}");
}
