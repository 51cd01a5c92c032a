//! `cupvaError_t` values the SIL reports, by number (the enumeration of
//! https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__System__C.html),
//! so that the internals do not depend on how the bindings spell them.

/// `CUPVA_ERROR_NONE`.
pub const NONE: u32 = 0;
/// `CUPVA_UNSUPPORTED_FEATURE`.
pub const UNSUPPORTED_FEATURE: u32 = 1;
/// `CUPVA_INVALID_STATE`.
pub const INVALID_STATE: u32 = 3;
/// `CUPVA_INVALID_ARGUMENT`.
pub const INVALID_ARGUMENT: u32 = 4;
/// `CUPVA_UNINITIALIZED_OBJECT`.
pub const UNINITIALIZED_OBJECT: u32 = 5;
/// `CUPVA_DRIVER_API_ERROR`.
pub const DRIVER_API_ERROR: u32 = 6;
/// `CUPVA_COMMAND_EXECUTION_TIMEOUT`.
pub const COMMAND_EXECUTION_TIMEOUT: u32 = 7;
/// `CUPVA_COMMAND_SUBMISSION_TIMEOUT`.
pub const COMMAND_SUBMISSION_TIMEOUT: u32 = 8;
/// `CUPVA_VPU_APPLICATION_ERROR`.
pub const VPU_APPLICATION_ERROR: u32 = 11;
/// `CUPVA_OPERATION_PENDING`.
pub const OPERATION_PENDING: u32 = 18;

/// A failed call's `cupvaError_t` value.
pub(crate) type Code = u32;
