//! Inputs the `trace` fuzz target (fuzz/fuzz_targets/trace.rs) crashed on, read the way
//! `orin-exec report` reads a trace: the reader, then the streaming summary. Each file in
//! `tests/data/fuzz-*.bin` is one such input; none may panic (tests build with overflow
//! checks, like the fuzz target).
//!
//! Covers: REQ-ROB-045

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use orin_exec::trace::Event;
use orin_exec_trace::{Summarizer, TraceReader};

/// Reads `path` to its end (or its first error); returns (records, release records, the
/// summary's release count).
fn report(path: &Path) -> (u64, u64, u64) {
    let file = BufReader::new(File::open(path).unwrap());
    let Ok(mut reader) = TraceReader::new(Box::new(file), &path.display().to_string()) else {
        return (0, 0, 0);
    };
    let mut summary = Summarizer::new(&reader.meta);
    let mut releases = 0;
    while let Ok(Some(r)) = reader.next_record() {
        releases += u64::from(r.event == Event::FrameRelease);
        summary.add(&r);
    }
    let (_, release) = summary.finish();
    (reader.records_read(), releases, release.frames)
}

/// A release record whose error (`value`, signed) is far larger than its time: computing
/// the planned release overflowed.
#[test]
fn a_release_error_larger_than_the_time_does_not_overflow() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz-release-error-overflow.bin");
    let (records, releases, frames) = report(&path);
    assert_eq!(records, 20);
    assert!(releases > 0);
    assert_eq!(frames, releases);
}

#[test]
fn every_committed_fuzz_input_reads_without_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("fuzz-")
        {
            report(&path);
            n += 1;
        }
    }
    assert!(n >= 1, "no fuzz inputs in {}", dir.display());
}
