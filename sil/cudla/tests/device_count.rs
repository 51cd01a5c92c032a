//! `cudlaSilSetDeviceCount` before and after the first device (own process).
//!
//! Covers: REQ-DLA-001
#![allow(missing_docs)]

mod common;

use common::*;

#[test]
fn device_count_is_settable_until_the_first_device() {
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        assert_eq!(cudlaSilSetDeviceCount(0), cudlaErrorInvalidParam);
        assert_eq!(cudlaSilSetDeviceCount(17), cudlaErrorInvalidParam);
        ok(cudlaSilSetDeviceCount(4));
        let mut n = 0;
        ok(cudlaDeviceGetCount(&mut n));
        assert_eq!(n, 4);
        let dev = create(3);
        assert_eq!(cudlaSilSetDeviceCount(2), cudlaErrorUnsupportedOperation);
        let mut h = std::ptr::null_mut();
        assert_eq!(
            cudlaCreateDevice(4, &mut h, CUDLA_STANDALONE.0),
            cudlaErrorInvalidParam
        );
        ok(cudlaDestroyDevice(dev));
    }
}
