//! Checked access to the pointers C callers pass in (`sil_common::ffi`).
//!
//! NULL and misaligned pointers are refused (the callers turn that into
//! `NvSciError_BadParameter`); a non-NULL pointer must be valid, as in C.

use nvsci_sys::{
    NvSciError, NvSciError_BadParameter, NvSciError_Success, NvSciSyncFenceMaxTimeout,
};
use sil_common::ffi::Status;
pub(crate) use sil_common::ffi::{bytes, read, usable, write};

/// `Success` / `BadParameter`.
pub(crate) const STATUS: Status<NvSciError> = Status {
    ok: NvSciError_Success,
    bad: NvSciError_BadParameter,
};

/// A fence-wait timeout in µs as ns (`u64::MAX` for −1), or `BadParameter` outside
/// `[-1, NvSciSyncFenceMaxTimeout]`.
pub(crate) fn timeout_ns(timeout_us: i64) -> Result<u64, NvSciError> {
    if timeout_us == -1 {
        Ok(u64::MAX)
    } else if (0..=NvSciSyncFenceMaxTimeout).contains(&timeout_us) {
        Ok(timeout_us as u64 * 1000)
    } else {
        Err(NvSciError_BadParameter)
    }
}
