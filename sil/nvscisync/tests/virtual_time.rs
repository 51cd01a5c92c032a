//! Virtual time (one test: the SIL clock is process-wide).
//!
//! Covers: REQ-SYNC-007

mod common;

use common::*;

#[test]
fn cpu_signals_stamp_the_virtual_clock() {
    let m = module();
    let ctx = context(m);
    let o = object(m, true, true, true);
    // SAFETY: locals and handles.
    unsafe {
        assert_eq!(NvSciSilClockAdvanceTo(5), NvSciError_InvalidState);
        ok(NvSciSilClockSetVirtual(true, 1_000_000));
        assert_eq!(NvSciSilClockNowNs(), 1_000_000);
        let f1 = generate(o);
        signal(o);
        ok(NvSciSilClockAdvanceTo(5_000_000));
        ok(NvSciSilClockAdvanceTo(4_000_000)); // never backwards
        assert_eq!(NvSciSilClockNowNs(), 5_000_000);
        let f2 = generate(o);
        signal(o);
        ok(wait(&f2, ctx, 0));
        let mut us = 0;
        ok(NvSciSyncFenceGetTimestamp(&f1, &mut us));
        assert_eq!(us, 1_000);
        ok(NvSciSyncFenceGetTimestamp(&f2, &mut us));
        assert_eq!(us, 5_000);
        assert_eq!(signal_ts(o, 2), Ok(5_000_000));
        // Engines pass explicit timestamps, in the future of the clock if they like.
        ok(NvSciSyncSilObjSignalEngine(o, 7_500_000));
        let f3 = update(o, 3);
        let mut reached = 0;
        ok(NvSciSyncSilFenceWaitEngine(&f3, 0, &mut reached));
        assert_eq!(reached, 7_500_000);
        // Two runs of the same sequence give the same stamps.
        let o2 = object(m, true, true, true);
        ok(NvSciSilClockSetVirtual(true, 1_000_000));
        signal(o2);
        ok(NvSciSilClockAdvanceTo(5_000_000));
        signal(o2);
        assert_eq!(signal_ts(o2, 1), Ok(1_000_000));
        assert_eq!(signal_ts(o2, 2), Ok(5_000_000));
        ok(NvSciSilClockSetVirtual(false, 0));
        assert_eq!(NvSciSilClockAdvanceTo(9), NvSciError_InvalidState);
        assert!(NvSciSilClockNowNs() > 5_000_000);
    }
}
