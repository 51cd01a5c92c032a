//! The tool on a small workspace written here: two packages with a same-named integration
//! test file, unit tests in nested and out-of-line modules, a test without the libtest
//! harness, tags on functions, modules and file headers.

use std::path::{Path, PathBuf};
use std::process::Command;

use orin_exec_traceability::log::{Outcome, TestLog};
use orin_exec_traceability::{Trace, results};

const REQUIREMENTS: &str = r#"
[[group]]
code = "X"
title = "Group X"

[[requirement]]
id = "REQ-X-001"
issues = [1]
text = "One"

[[requirement]]
id = "REQ-X-002"
text = "Two | with a bar"
evidence = ["`a/src/m.rs`"]

[[requirement]]
id = "REQ-X-003"
text = "Three"

[[requirement]]
id = "REQ-X-004"
text = "Four, shown by a CI step"
ci = ["lint"]
"#;

/// Writes the fixture workspace under the test's own directory and returns its root.
fn workspace(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("traceability-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    let files: &[(&str, &str)] = &[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
        ),
        (
            "a/Cargo.toml",
            "[package]\nname = \"pkg-a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [[test]]\nname = \"own_main\"\nharness = false\n",
        ),
        (
            "a/src/lib.rs",
            "//! Package a.\npub mod m;\n\n/// Covers: REQ-X-001\n#[cfg(test)]\nmod tests {\n    \
             #[test]\n    fn t1() {}\n}\n",
        ),
        (
            "a/src/m.rs",
            "//! Module m.\npub mod inner;\n\n#[cfg(test)]\nmod tests {\n    \
             //! Covers: REQ-X-002\n    #[test]\n    fn t2() {}\n\n    \
             /// Covers: REQ-X-003\n    #[test]\n    fn t2b() {}\n}\n",
        ),
        (
            "a/src/m/inner.rs",
            "/// Covers: REQ-X-002\n#[cfg(test)]\nmod tests {\n    mod deeper {\n        \
             #[test]\n        fn t3() {}\n    }\n}\n",
        ),
        (
            "a/tests/api.rs",
            "//! Integration tests of a.\n//!\n//! Covers: REQ-X-001\n\n#[test]\nfn alpha() {}\n\n\
             /// A slow one.\n/// Covers: REQ-X-003\n#[test]\n#[ignore]\nfn slow() {}\n",
        ),
        (
            "a/tests/own_main.rs",
            "//! Without the harness.\n//!\n//! Covers: REQ-X-002\n\nfn main() {}\n",
        ),
        (
            "b/Cargo.toml",
            "[package]\nname = \"pkg-b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("b/src/lib.rs", "//! Package b.\n"),
        (
            "b/tests/api.rs",
            // A tag-like line inside a string is not a tag.
            "/// Covers: REQ-X-003\n#[test]\nfn beta() {\n    let _s = \"\n/// Covers: REQ-X-999\n\";\n}\n",
        ),
        ("docs/requirements.toml", REQUIREMENTS),
        (".ci/run", "step \"lint\"\ncargo clippy\n"),
    ];
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    root
}

/// A log as `cargo test --workspace 2>&1` prints it for the fixture.
fn log(beta: &str) -> String {
    format!(
        "   Compiling pkg-a v0.1.0\n\
         \x20   Finished `test` profile [unoptimized + debuginfo] target(s) in 1.00s\n\
         \x20    Running unittests src/lib.rs (target/debug/deps/pkg_a-0123456789abcdef)\n\n\
         running 4 tests\n\
         test m::inner::tests::deeper::t3 ... ok\n\
         test m::tests::t2 ... ok\n\
         test m::tests::t2b ... ok\n\
         test tests::t1 ... ok\n\n\
         test result: ok. 4 passed; 0 failed; 0 ignored\n\n\
         \x20    Running tests/api.rs (target/debug/deps/api-1111111111111111)\n\n\
         running 2 tests\n\
         test slow ... ignored\n\
         test alpha ... ok\n\n\
         \x20    Running tests/own_main.rs (target/debug/deps/own_main-2222222222222222)\n\
         \x20    Running unittests src/lib.rs (target/debug/deps/pkg_b-3333333333333333)\n\n\
         running 0 tests\n\
         \x20    Running tests/api.rs (target/debug/deps/api-4444444444444444)\n\n\
         running 1 test\n\
         test beta ... {beta}\n\n\
         \x20  Doc-tests pkg_a\n\n\
         running 0 tests\n"
    )
}

fn find<'a>(
    trace: &'a Trace,
    file: &str,
    in_file: &str,
) -> (usize, &'a orin_exec_traceability::scan::TestFn) {
    trace
        .scan
        .tests
        .iter()
        .enumerate()
        .find(|(_, t)| t.file == file && t.in_file == in_file)
        .unwrap_or_else(|| panic!("no test {file} {in_file}: {:#?}", trace.scan.tests))
}

fn covers(t: &orin_exec_traceability::scan::TestFn) -> Vec<&str> {
    t.covers.iter().map(String::as_str).collect()
}

/// Covers: REQ-TRC-002
#[test]
fn the_scan_finds_every_test_with_its_path_and_inherited_tags() {
    let root = workspace("scan");
    let trace = Trace::load(&root, None).unwrap();
    assert_eq!(trace.scan.tests.len(), 8, "{:#?}", trace.scan.tests);

    let (_, t1) = find(&trace, "a/src/lib.rs", "tests::t1");
    assert_eq!(t1.path, "tests::t1");
    assert_eq!(covers(t1), ["REQ-X-001"]);

    // An inner `//!` of an inline module applies to its tests; a function adds its own.
    let (_, t2b) = find(&trace, "a/src/m.rs", "tests::t2b");
    assert_eq!(t2b.path, "m::tests::t2b");
    assert_eq!(covers(t2b), ["REQ-X-002", "REQ-X-003"]);

    // `mod inner;` of the non-mod-rs file `m.rs` lives in `m/inner.rs`.
    let (_, t3) = find(&trace, "a/src/m/inner.rs", "tests::deeper::t3");
    assert_eq!(t3.path, "m::inner::tests::deeper::t3");
    assert_eq!(covers(t3), ["REQ-X-002"]);

    let (_, slow) = find(&trace, "a/tests/api.rs", "slow");
    assert!(slow.ignored);
    assert_eq!(covers(slow), ["REQ-X-001", "REQ-X-003"]);

    let (_, main) = find(&trace, "a/tests/own_main.rs", "(own main)");
    assert_eq!(main.path, "");
    assert_eq!(covers(main), ["REQ-X-002"]);

    let (_, beta) = find(&trace, "b/tests/api.rs", "beta");
    assert_eq!(covers(beta), ["REQ-X-003"]);

    assert!(trace.scan.dangling.is_empty(), "{:?}", trace.scan.dangling);
    assert_eq!(trace.scan.tags.len(), 8);
}

/// Covers: REQ-TRC-002, REQ-TRC-005
#[test]
fn tags_on_no_test_and_unknown_ids_are_reported_with_their_line() {
    let root = workspace("tags");
    std::fs::write(
        root.join("b/src/lib.rs"),
        "//! Package b.\n\n/// Covers: REQ-X-001\npub fn not_a_test() {}\n\n\
         #[cfg(test)]\nmod tests {\n    /// Covers: REQ-X-009, REQ-x-1\n    #[test]\n    fn t() {}\n}\n",
    )
    .unwrap();
    // A tag in a file that no target reaches.
    std::fs::write(root.join("b/src/orphan.rs"), "//! Covers: REQ-X-002\n").unwrap();
    let trace = Trace::load(&root, None).unwrap();
    let problems = trace.problems(None);
    let has = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(
        has("b/src/lib.rs:3: `Covers: REQ-X-001` is on no test"),
        "{problems:#?}"
    );
    assert!(
        has("b/src/orphan.rs:1: `Covers: REQ-X-002` is on no test"),
        "{problems:#?}"
    );
    assert!(
        has("b/src/lib.rs:8: `Covers:` names unknown requirement REQ-X-009"),
        "{problems:#?}"
    );
    assert!(
        has("b/src/lib.rs:8: `Covers: REQ-x-1` is not a requirement id"),
        "{problems:#?}"
    );
    assert!(has("docs/traceability.md does not exist"), "{problems:#?}");
}

/// Covers: REQ-TRC-003
#[test]
fn log_results_reach_the_right_test_of_the_right_package() {
    let root = workspace("log");
    let trace = Trace::load(&root, None).unwrap();
    let r = results(&trace.scan, &TestLog::parse(&log("FAILED")));
    assert!(r.unmatched.is_empty(), "{:?}", r.unmatched);
    assert!(r.unknown_binaries.is_empty(), "{:?}", r.unknown_binaries);
    let outcome = |file: &str, name: &str| r.outcomes[find(&trace, file, name).0];
    assert_eq!(
        outcome("a/src/m/inner.rs", "tests::deeper::t3"),
        Some(Outcome::Ok)
    );
    assert_eq!(outcome("a/tests/api.rs", "alpha"), Some(Outcome::Ok));
    assert_eq!(outcome("a/tests/api.rs", "slow"), Some(Outcome::Ignored));
    // Both packages have `tests/api.rs`; `beta` is b's, so its result goes there.
    assert_eq!(outcome("b/tests/api.rs", "beta"), Some(Outcome::Failed));
    assert_eq!(
        outcome("a/tests/own_main.rs", "(own main)"),
        Some(Outcome::Ok)
    );

    // A log cut short: what it does not show is not run.
    let cut: String = log("ok").lines().take(8).collect::<Vec<_>>().join("\n");
    let r = results(&trace.scan, &TestLog::parse(&cut));
    assert_eq!(
        r.outcomes[find(&trace, "a/src/lib.rs", "tests::t1").0],
        None
    );
    assert_eq!(
        r.outcomes[find(&trace, "a/src/m.rs", "tests::t2").0],
        Some(Outcome::Ok)
    );

    // A binary of no target, and a test of no source, are reported.
    let r = results(
        &trace.scan,
        &TestLog::parse(
            "     Running tests/gone.rs (target/debug/deps/gone-5555555555555555)\n\
             test x ... ok\n\
             \x20    Running tests/api.rs (target/debug/deps/api-1111111111111111)\n\
             test alpha ... ok\n\
             test renamed ... ok\n",
        ),
    );
    assert_eq!(r.unknown_binaries, ["tests/gone.rs (gone)"]);
    assert_eq!(r.unmatched, ["tests/api.rs (api): renamed"]);
}

/// Covers: REQ-TRC-004, REQ-TRC-005
#[test]
fn the_document_lists_requirements_tests_and_results_and_goes_stale() {
    let root = workspace("render");
    let log_ok = root.join("test.log");
    std::fs::write(&log_ok, log("ok")).unwrap();
    let trace = Trace::load(&root, Some(&log_ok)).unwrap();
    let doc = trace.render();
    for line in [
        "Test log: 8 traced tests: 7 ok, 0 failed, 1 ignored, 0 not run",
        "| [REQ-X-001](#req-x-001) | One | 3 | ok 2, ignored 1 |",
        "| [REQ-X-002](#req-x-002) | Two \\| with a bar | 4 | ok |",
        "| [REQ-X-004](#req-x-004) | Four, shown by a CI step | 0 | CI step |",
        "## Group X",
        "### REQ-X-002",
        "Also: `a/src/m.rs`.",
        "CI step (`.ci/run`): \"lint\".",
        "| `(own main)` | `a/tests/own_main.rs` | ok |",
        "| `tests::deeper::t3` | `a/src/m/inner.rs` | ok |",
        "| `slow` | `a/tests/api.rs` | ignored |",
        "| `beta` | `b/tests/api.rs` | ok |",
    ] {
        assert!(
            doc.lines().any(|l| l.starts_with(line)),
            "missing `{line}` in\n{doc}"
        );
    }
    std::fs::write(root.join("docs/traceability.md"), &doc).unwrap();
    assert_eq!(trace.problems(Some(&doc)), Vec::<String>::new());

    // Without a log the results are not compared.
    let no_log = Trace::load(&root, None).unwrap();
    assert_eq!(no_log.problems(Some(&doc)), Vec::<String>::new());
    assert!(
        no_log
            .render()
            .contains("| `beta` | `b/tests/api.rs` | — |")
    );

    // With a log where a test failed, that is a problem and the document is stale.
    let log_failed = root.join("failed.log");
    std::fs::write(&log_failed, log("FAILED")).unwrap();
    let failed = Trace::load(&root, Some(&log_failed)).unwrap();
    let problems = failed.problems(Some(&doc));
    assert!(
        problems
            .iter()
            .any(|p| p == "b/tests/api.rs: test `beta` FAILED in the log"),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("is out of date")),
        "{problems:#?}"
    );
    assert!(
        failed
            .render()
            .contains("| [REQ-X-003](#req-x-003) | Three | 3 | FAILED 1, ok 1, ignored 1 |")
    );

    // A renamed test makes the document stale even without a log.
    std::fs::write(
        root.join("b/tests/api.rs"),
        "/// Covers: REQ-X-003\n#[test]\nfn gamma() {}\n",
    )
    .unwrap();
    let renamed = Trace::load(&root, None).unwrap();
    let problems = renamed.problems(Some(&doc));
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0].starts_with("docs/traceability.md is out of date"),
        "{problems:#?}"
    );
}

/// Covers: REQ-TRC-005
#[test]
fn check_fails_on_a_requirement_without_test_an_untagged_test_and_missing_evidence() {
    let root = workspace("gaps");
    std::fs::write(
        root.join("docs/requirements.toml"),
        format!(
            "{REQUIREMENTS}\n[[requirement]]\nid = \"REQ-X-005\"\ntext = \"Nobody tests this\"\n\n\
             [[requirement]]\nid = \"REQ-X-006\"\ntext = \"Named steps and files\"\n\
             ci = [\"no such step\"]\nrecords = [\"docs/nowhere.md\"]\nevidence = [\"`a/src/gone.rs`\"]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("b/tests/api.rs"),
        "/// Covers: REQ-X-003\n#[test]\nfn beta() {}\n\n#[test]\nfn untagged() {}\n",
    )
    .unwrap();
    let trace = Trace::load(&root, None).unwrap();
    let problems = trace.problems(Some(&trace.render()));
    assert_eq!(
        problems,
        [
            "b/tests/api.rs: test `untagged` names no requirement (add `/// Covers: REQ-…` above it)",
            "REQ-X-005: no test covers it, and it names no CI step or record",
            "REQ-X-006: CI step \"no such step\" is not in .ci/run",
            "REQ-X-006: record `docs/nowhere.md` does not exist",
            "REQ-X-006: evidence names `a/src/gone.rs`, which does not exist",
        ]
    );
}

/// Covers: REQ-TRC-004, REQ-TRC-005
#[test]
fn the_command_writes_then_checks_and_exits_1_on_a_problem() {
    let root = workspace("cli");
    let log_ok = root.join("test.log");
    std::fs::write(&log_ok, log("ok")).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_traceability"))
            .arg("--root")
            .arg(&root)
            .args(args)
            .output()
            .unwrap()
    };
    let log_arg = log_ok.to_str().unwrap();
    let out = run(&["--check", "--log", log_arg]);
    assert_eq!(out.status.code(), Some(1), "no document yet");

    let out = run(&["--log", log_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(root.join("docs/traceability.md").is_file());

    let out = run(&["--check", "--log", log_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    std::fs::write(
        root.join("b/tests/api.rs"),
        "/// Covers: REQ-X-777\n#[test]\nfn beta() {}\n",
    )
    .unwrap();
    let out = run(&["--check", "--log", log_arg]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("b/tests/api.rs:1: `Covers:` names unknown requirement REQ-X-777"),
        "{stderr}"
    );

    let out = run(&["--list"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("b/tests/api.rs\tbeta\tREQ-X-777"));
}

/// Covers: REQ-TRC-003, REQ-TRC-005
#[test]
fn same_named_binaries_with_the_same_tests_go_to_each_package_in_turn() {
    let root = workspace("tie");
    std::fs::write(
        root.join("a/tests/api.rs"),
        "//! Covers: REQ-X-001\n#[test]\nfn alpha() {}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("b/tests/api.rs"),
        "/// Covers: REQ-X-003\n#[test]\nfn alpha() {}\n",
    )
    .unwrap();
    let log = "     Running tests/api.rs (target/debug/deps/api-1111111111111111)\n\
               test alpha ... ok\n\
               test tests/ui/not_libtest.rs ... ok\n\
               \x20    Running tests/api.rs (target/debug/deps/api-4444444444444444)\n\
               test alpha ... FAILED\n";
    let log_path = root.join("tie.log");
    std::fs::write(&log_path, log).unwrap();
    let trace = Trace::load(&root, Some(&log_path)).unwrap();
    let r = trace.results.as_ref().unwrap();
    assert!(
        r.unmatched.is_empty(),
        "trybuild's lines are not tests: {:?}",
        r.unmatched
    );
    assert_eq!(
        r.outcomes[find(&trace, "a/tests/api.rs", "alpha").0],
        Some(Outcome::Ok)
    );
    assert_eq!(
        r.outcomes[find(&trace, "b/tests/api.rs", "alpha").0],
        Some(Outcome::Failed)
    );

    // Requirements none of whose tests passed: a failure, or tests the log never ran.
    let problems = trace.problems(Some(&trace.render()));
    assert_eq!(
        problems,
        [
            "REQ-X-002: none of its 4 tests passed in the log (not run 4)",
            "REQ-X-003: none of its 2 tests passed in the log (FAILED 1, not run 1)",
            "b/tests/api.rs: test `alpha` FAILED in the log",
        ]
    );
}
