//! The hand-written CPU -> GPU -> DLA -> GPU -> CPU baseline (`hil_tests::raw_dla`) on the SIL
//! libraries: every frame's detection is the reference models' (the run fails otherwise) and
//! each measured frame gives one sample of each kind. No timing is judged.
//!
//! Covers: REQ-GPU-016

use hil_tests::raw_dla::{Options, RawDlaError, run};

#[test]
fn thirty_frames_match_the_reference_and_give_one_sample_each() {
    let opts = Options {
        frames: 30,
        warmup: 3,
        // The SIL DLA's default timing model takes 2 ms per task.
        period_ns: 4_000_000,
    };
    let samples = run(&opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(samples.latency_ns.len(), 30);
    assert_eq!(samples.enqueue_ns.len(), 30);
    // Per frame: GPU wait, launch, signal for each kernel, and one DLA submit.
    assert_eq!(samples.stream_ops_per_frame, 7);
    assert!(samples.latency_ns.iter().all(|&ns| ns > 0));
    assert!(samples.enqueue_ns.iter().all(|&ns| ns > 0));
    // Run twice in one process: the first run released everything it made.
    let again = run(&Options { frames: 2, ..opts }).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.latency_ns.len(), 2);
}

#[test]
fn a_wrong_detection_names_the_frame_and_both_values() {
    let e = RawDlaError::WrongDetection {
        frame: 7,
        got: [0, -1, 0, -1],
        expected: [1, 20, 120, 12345],
    };
    let text = e.to_string();
    assert!(
        text.contains("frame 7") && text.contains("[1, 20, 120, 12345]"),
        "{text}"
    );
}
