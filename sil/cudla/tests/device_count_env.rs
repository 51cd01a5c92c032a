//! `CUDLA_SIL_DEVICE_COUNT` (own process).
//!
//! Covers: REQ-DLA-001
#![allow(missing_docs)]

mod common;

use common::*;

#[test]
fn device_count_from_the_environment() {
    // SAFETY: the only test of this process; nothing else reads the environment yet.
    unsafe { std::env::set_var("CUDLA_SIL_DEVICE_COUNT", "3") };
    let mut n = 0;
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaDeviceGetCount(&mut n)) };
    assert_eq!(n, 3);
    let dev = create(2);
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaDestroyDevice(dev)) };
}
