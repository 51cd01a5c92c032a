//! The SIL clock: `CLOCK_MONOTONIC` in ns, or a virtual clock that only moves when told to.
//!
//! In virtual time nothing sleeps for modelled durations: engines compute start and end times
//! from their inputs and stamp those, so a run is reproducible bit for bit. Timeouts of waits
//! always count real time, in both modes.
//!
//! ```
//! use sil_common::clock;
//! let t = clock::now_ns();
//! assert!(clock::now_ns() >= t);
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

static VIRTUAL: AtomicBool = AtomicBool::new(false);
static VIRTUAL_NOW: AtomicU64 = AtomicU64::new(0);

/// Real `CLOCK_MONOTONIC` time in ns (never virtual): the clock the runtime's executive uses.
pub fn real_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux and QNX.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    debug_assert_eq!(rc, 0);
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The SIL time in ns: virtual when virtual time is on, else real monotonic time.
pub fn now_ns() -> u64 {
    if VIRTUAL.load(Ordering::Acquire) {
        VIRTUAL_NOW.load(Ordering::Acquire)
    } else {
        real_ns()
    }
}

/// Whether virtual time is on.
pub fn is_virtual() -> bool {
    VIRTUAL.load(Ordering::Acquire)
}

/// Turn virtual time on, starting at `start_ns`, or off.
pub fn set_virtual(enable: bool, start_ns: u64) {
    VIRTUAL_NOW.store(start_ns, Ordering::Release);
    VIRTUAL.store(enable, Ordering::Release);
}

/// Move the virtual clock forward to `ns` (never backwards). Returns `false` when virtual time
/// is off.
pub fn advance_to(ns: u64) -> bool {
    if !is_virtual() {
        return false;
    }
    VIRTUAL_NOW.fetch_max(ns, Ordering::AcqRel);
    true
}

/// Sleep until the real clock reaches `ns`; return at once in virtual time.
pub fn sleep_until(ns: u64) {
    if is_virtual() {
        return;
    }
    loop {
        let now = real_ns();
        if now >= ns {
            return;
        }
        std::thread::sleep(Duration::from_nanos(ns - now));
    }
}

/// Covers: REQ-DLA-011
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_time_moves_only_forward_and_only_when_told() {
        // Tests in this crate share the process-wide clock; keep the virtual test in one place.
        set_virtual(true, 5_000);
        assert_eq!(now_ns(), 5_000);
        assert!(advance_to(7_000));
        assert!(advance_to(6_000));
        assert_eq!(now_ns(), 7_000);
        sleep_until(u64::MAX); // returns at once
        set_virtual(false, 0);
        assert!(!advance_to(9_000));
        let a = now_ns();
        sleep_until(a + 1_000_000);
        assert!(now_ns() >= a + 1_000_000);
    }
}
