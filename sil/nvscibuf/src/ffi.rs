//! Checked access to the pointers C callers pass in (`sil_common::ffi`).
//!
//! NULL and misaligned pointers are refused (the callers turn that into
//! `NvSciError_BadParameter`); a non-NULL pointer must be valid, as in C.

use nvsci_sys::{NvSciError, NvSciError_BadParameter, NvSciError_Success};
use sil_common::ffi::Status;
pub(crate) use sil_common::ffi::{array, array_mut, bytes, read, slice, usable, write};

/// `Success` / `BadParameter`.
pub(crate) const STATUS: Status<NvSciError> = Status {
    ok: NvSciError_Success,
    bad: NvSciError_BadParameter,
};
