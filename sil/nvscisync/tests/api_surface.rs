//! `header-functions.txt` (every function nvscisync.h declares, in header order) agrees
//! with what the library exports: each `exported` line is a `#[unsafe(no_mangle)]
//! extern "C"` function of this crate, and every NvSciSync export (the SIL extension calls
//! aside) is listed as `exported`.
//!
//! Covers: REQ-SIL-002

use std::collections::BTreeSet;

const LIST: &str = include_str!("../header-functions.txt");

/// The names of the `#[unsafe(no_mangle)]` `extern "C"` functions in `src/`.
fn exports() -> BTreeSet<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let mut armed = false;
        for line in text.lines() {
            let line = line.trim();
            if line == "#[unsafe(no_mangle)]" {
                armed = true;
                continue;
            }
            if armed && !line.starts_with("//") && !line.starts_with("#[") {
                let name = line
                    .split_once("extern \"C\" fn ")
                    .map(|(_, rest)| rest.split('(').next().unwrap_or("").to_string());
                assert!(
                    name.is_some(),
                    "no_mangle item is not an extern \"C\" fn: {line}"
                );
                out.insert(name.unwrap());
                armed = false;
            }
        }
    }
    out
}

#[test]
fn header_function_list_matches_the_exports() {
    let mut lines = LIST.lines();
    assert_eq!(
        lines.next(),
        Some("# nvscisync.h DRIVE OS 6.0.10 (NvSciSync 2.8)")
    );
    let exports = exports();
    let mut listed = BTreeSet::new();
    let mut exported = BTreeSet::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f[0].starts_with("NvSciSync"), "{line}");
        assert!(listed.insert(f[0]), "{} listed twice", f[0]);
        match f[1..] {
            ["exported"] => {
                assert!(exports.contains(f[0]), "{} is not exported", f[0]);
                exported.insert(f[0].to_string());
            }
            ["omitted", reason] => {
                assert!(!reason.is_empty());
                assert!(
                    !exports.contains(f[0]),
                    "{} is exported but listed omitted",
                    f[0]
                );
            }
            _ => panic!("bad line: {line:?}"),
        }
    }
    assert_eq!(listed.len(), 52, "nvscisync.h 6.0.10 declares 52 functions");
    // Every NvSciSync export is a header function (the SIL extension calls aside).
    let ours: BTreeSet<String> = exports
        .into_iter()
        .filter(|n| n.starts_with("NvSciSync") && !n.starts_with("NvSciSyncSil"))
        .collect();
    assert_eq!(ours, exported);
}
