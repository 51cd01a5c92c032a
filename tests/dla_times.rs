//! DLA task times come from the SOF and EOF fences cuDLA returns (their timestamps, µs of the
//! DLA clock), moved onto the executive's clock by the offset init calibrates: on the SIL
//! virtual clock the measured execution time of every frame is the modelled one.
//!
//! Covers: REQ-RT-005

mod common;

use common::*;
use orin_exec::engine::platform::dla_sil::TimingModel;
use orin_exec::exec::{Builder, Config, Injection};
use orin_exec::table::EngineId;
use orin_exec::trace::ring::Pop;
use orin_exec::trace::{Event, Record};

const DLA0: EngineId = EngineId(1);
const MODELLED_NS: u64 = 2_345_678;
const LATE_NS: u64 = 1_000_000;

#[test]
fn dla_execution_times_are_the_fence_timestamps() {
    let _serial = serial();
    let check = Box::leak(Box::new(Check {
        good: Box::leak(Box::new(0.into())),
        bad: Box::leak(Box::new(0.into())),
        expected: expected_detection(),
    }));
    let runtime = Builder::new(
        schedule(Variant::default()),
        Box::leak(Box::new(MiniStorage::new())),
    )
    .config(Config {
        virtual_clock: true,
        realtime_priority: None,
        virtual_wait_cap_us: 200_000,
        ..Config::default()
    })
    .bind(INPUT, Box::leak(Box::new(Input)))
    .bind(CHECK, check)
    .init()
    .expect("init");
    // On the virtual clock the DLA starts the warm-up task when it is submitted: the
    // calibrated offset is below the timestamps' 1 µs resolution.
    let (offset, window) = runtime.dla_clock_offset_ns().expect("a DLA task");
    assert!((0..1000).contains(&offset), "{offset}");
    assert_eq!(window, 0);
    runtime
        .set_dla_timing(DLA0, &TimingModel::fixed(MODELLED_NS, 1))
        .unwrap();
    let mut exec = runtime.seal().expect("seal");
    exec.inject(DETECTOR, 6, Injection::DlaLate { extra_ns: LATE_NS })
        .unwrap();
    let mut ends: Vec<Record> = Vec::new();
    while exec.next_frame() < 12 {
        exec.step().expect("step");
        loop {
            match exec.trace().pop() {
                Pop::Record(r) if r.task == DETECTOR.0 && r.event == Event::TaskEnd => ends.push(r),
                Pop::Record(_) => {}
                Pop::Lost(n) => panic!("trace lost {n} records"),
                Pop::Empty => break,
            }
        }
    }
    assert!(ends.len() >= 10, "{} DLA task ends", ends.len());
    for r in &ends {
        let want = MODELLED_NS + if r.frame == 6 { LATE_NS } else { 0 };
        // SOF and EOF are each truncated to whole µs.
        assert!(
            r.value.abs_diff(want) < 1000,
            "frame {}: {} ns measured, {want} ns modelled",
            r.frame,
            r.value
        );
    }
    exec.shutdown().expect("shutdown");
}
