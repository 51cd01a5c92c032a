//! `NvSciError`, the status code of every NvSci call (`nvscierror.h`).
//!
//! Values from DRIVE OS 6.0.10 (api-facts §3). Codes marked "6.0.x" are absent from the
//! DRIVE OS 5.2.6 header. The NvSciStream, NvSciIpc and NvSciEvent ranges are declared
//! only by their first and last codes; [`NvSciError::name`] returns `None` for the
//! codes inside them.

use core::fmt;

// sdk-check: except ^NvSciError_(Stream\w*|NoStreamPacket|Pcie\w*)$
/// Status code returned by NvSci calls (a C enum, 4 bytes).
///
/// A newtype, not a Rust enum: a library may return a code this crate does not know.
/// The individual NvSciStream and NvSciIpc codes (0x03xxxxxx, 0x04xxxxxx) are not
/// declared.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvSciError(pub i32);

// sdk-check: codes NvSciError
macro_rules! nvsci_error_codes {
    ($($(#[$m:meta])* $name:ident = $val:expr;)*) => {
        $(
            $(#[$m])*
            #[doc = concat!("\n\n`", stringify!($name), "` = `", stringify!($val), "`.")]
            pub const $name: NvSciError = NvSciError($val);
        )*

        impl NvSciError {
            /// Every code this crate declares, in declaration order.
            pub const KNOWN: &'static [NvSciError] = &[$($name),*];

            /// The vendor name of this code (e.g. `"NvSciError_Timeout"`), or `None`
            /// for a code this crate does not declare.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $(v if v == $val => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}

nvsci_error_codes! {
    /// The call succeeded.
    NvSciError_Success = 0x0000_0000;
    /// Unspecified failure.
    NvSciError_Unknown = 0x0000_0001;
    /// The operation is not implemented.
    NvSciError_NotImplemented = 0x0000_0010;
    /// The operation is not supported.
    NvSciError_NotSupported = 0x0000_0011;
    /// Access denied.
    NvSciError_AccessDenied = 0x0000_0020;
    /// The operation is not permitted.
    NvSciError_NotPermitted = 0x0000_0021;
    /// The object is in the wrong state (also: init-mode check failed in safety builds).
    NvSciError_InvalidState = 0x0000_0022;
    /// The operation is invalid.
    NvSciError_InvalidOperation = 0x0000_0023;
    /// The module is not initialised.
    NvSciError_NotInitialized = 0x0000_0024;
    /// The resource is already in use (6.0.x).
    NvSciError_AlreadyInUse = 0x0000_0025;
    /// The operation was already done (6.0.x).
    NvSciError_AlreadyDone = 0x0000_0026;
    /// The data is not available yet (6.0.x).
    NvSciError_NotYetAvailable = 0x0000_0027;
    /// The data is no longer available (6.0.x).
    NvSciError_NoLongerAvailable = 0x0000_0028;
    /// Out of memory.
    NvSciError_InsufficientMemory = 0x0000_0030;
    /// Out of some other resource.
    NvSciError_InsufficientResource = 0x0000_0031;
    /// A resource (e.g. a signal) failed.
    NvSciError_ResourceError = 0x0000_0032;
    /// A parameter is invalid (also: the caller lacks the required permission).
    NvSciError_BadParameter = 0x0000_0100;
    /// An address is invalid.
    NvSciError_BadAddress = 0x0000_0101;
    /// A value is too big.
    NvSciError_TooBig = 0x0000_0102;
    /// An arithmetic overflow or an out-of-range fence id/value.
    NvSciError_Overflow = 0x0000_0103;
    /// Inconsistent data (6.0.x).
    NvSciError_InconsistentData = 0x0000_0104;
    /// Not enough data (6.0.x).
    NvSciError_InsufficientData = 0x0000_0105;
    /// Index out of range (6.0.x).
    NvSciError_IndexOutOfRange = 0x0000_0106;
    /// Value out of range (6.0.x).
    NvSciError_ValueOutOfRange = 0x0000_0107;
    /// A wait timed out.
    NvSciError_Timeout = 0x0000_0200;
    /// Temporary failure; try again.
    NvSciError_TryItAgain = 0x0000_0201;
    /// The resource is busy.
    NvSciError_Busy = 0x0000_0202;
    /// The call was interrupted.
    NvSciError_InterruptedCall = 0x0000_0203;
    /// No such device.
    NvSciError_NoSuchDevice = 0x0000_1000;
    /// No space left on the device.
    NvSciError_NoSpace = 0x0000_1001;
    /// No such device or address.
    NvSciError_NoSuchDevAddr = 0x0000_1002;
    /// I/O error.
    NvSciError_IO = 0x0000_1003;
    /// Invalid ioctl number.
    NvSciError_InvalidIoctlNum = 0x0000_1004;
    /// No such file or directory.
    NvSciError_NoSuchEntry = 0x0000_1100;
    /// Bad file descriptor.
    NvSciError_BadFileDesc = 0x0000_1101;
    /// Corrupted file system.
    NvSciError_CorruptedFileSys = 0x0000_1102;
    /// The file already exists.
    NvSciError_FileExists = 0x0000_1103;
    /// The path is a directory.
    NvSciError_IsDirectory = 0x0000_1104;
    /// Read-only file system.
    NvSciError_ReadOnlyFileSys = 0x0000_1105;
    /// Text file busy.
    NvSciError_TextFileBusy = 0x0000_1106;
    /// File name too long.
    NvSciError_FileNameTooLong = 0x0000_1107;
    /// File too big.
    NvSciError_FileTooBig = 0x0000_1108;
    /// Too many levels of symbolic links.
    NvSciError_TooManySymbolLinks = 0x0000_1109;
    /// Too many open files in the process.
    NvSciError_TooManyOpenFiles = 0x0000_110A;
    /// The system file table is full.
    NvSciError_FileTableOverflow = 0x0000_110B;
    /// End of file.
    NvSciError_EndOfFile = 0x0000_110C;
    /// The connection was reset.
    NvSciError_ConnectionReset = 0x0000_1200;
    /// The operation is already in progress.
    NvSciError_AlreadyInProgress = 0x0000_1201;
    /// No data available.
    NvSciError_NoData = 0x0000_1202;
    /// No message of the desired type.
    NvSciError_NoDesiredMessage = 0x0000_1203;
    /// The message is too large.
    NvSciError_MessageSize = 0x0000_1204;
    /// The remote end is gone.
    NvSciError_NoRemote = 0x0000_1205;
    /// No such process.
    NvSciError_NoSuchProcess = 0x0000_2000;
    /// The mutex is not recoverable.
    NvSciError_MutexNotRecoverable = 0x0000_2100;
    /// The owner of a lock died.
    NvSciError_LockOwnerDead = 0x0000_2101;
    /// A deadlock was detected.
    NvSciError_ResourceDeadlock = 0x0000_2102;
    /// Attribute lists could not be reconciled.
    NvSciError_ReconciliationFailed = 0x0001_0100;
    /// An attribute list failed validation.
    NvSciError_AttrListValidationFailed = 0x0001_0101;
    /// An object failed validation (6.0.x).
    NvSciError_ObjValidationFailed = 0x0001_0102;
    /// Last code of the common range.
    NvSciError_CommonEnd = 0x00FF_FFFF;
    /// Unspecified NvSciBuf failure (start of the NvSciBuf range).
    NvSciError_NvSciBufUnknown = 0x0100_0000;
    /// Last code of the NvSciBuf range.
    NvSciError_NvSciBufEnd = 0x01FF_FFFF;
    /// Unspecified NvSciSync failure (start of the NvSciSync range).
    NvSciError_NvSciSyncUnknown = 0x0200_0000;
    /// The requested NvSciSync configuration is not supported.
    NvSciError_UnsupportedConfig = 0x0200_0001;
    /// The fence is cleared (all zeros).
    NvSciError_ClearedFence = 0x0200_0002;
    /// Last code of the NvSciSync range.
    NvSciError_NvSciSyncEnd = 0x02FF_FFFF;
    /// Start of the NvSciStream range (0x03xxxxxx).
    NvSciError_NvSciStreamUnknown = 0x0300_0000;
    /// Last code of the NvSciStream range.
    NvSciError_NvSciStreamEnd = 0x03FF_FFFF;
    /// Start of the NvSciIpc range (0x04xxxxxx).
    NvSciError_NvSciIpcUnknown = 0x0400_0000;
    /// Last code of the NvSciIpc range.
    NvSciError_NvSciIpcEnd = 0x04FF_FFFF;
    /// Start of the NvSciEvent range (0x05xxxxxx).
    NvSciError_NvSciEventUnknown = 0x0500_0000;
    /// Last code of the NvSciEvent range.
    NvSciError_NvSciEventEnd = 0x05FF_FFFF;
}

impl NvSciError {
    /// `true` for [`NvSciError_Success`].
    #[inline]
    pub const fn is_success(self) -> bool {
        self.0 == NvSciError_Success.0
    }

    /// `Ok(())` for success, `Err(self)` otherwise.
    #[inline]
    pub const fn ok(self) -> Result<(), NvSciError> {
        if self.is_success() { Ok(()) } else { Err(self) }
    }
}

impl fmt::Debug for NvSciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:#x})", self.0),
            None => write!(f, "NvSciError({:#x})", self.0),
        }
    }
}

impl fmt::Display for NvSciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown NvSciError {:#x}", self.0),
        }
    }
}

/// Covers: REQ-FND-003
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(NvSciError_Success.name(), Some("NvSciError_Success"));
        assert_eq!(NvSciError_Timeout.name(), Some("NvSciError_Timeout"));
        assert_eq!(NvSciError(0x200), NvSciError_Timeout);
        assert_eq!(NvSciError_ClearedFence.0, 0x0200_0002);
        assert_eq!(NvSciError_ReconciliationFailed.0, 0x10100);
        assert_eq!(NvSciError(0x0300_0005).name(), None);
        for (i, a) in NvSciError::KNOWN.iter().enumerate() {
            assert!(a.name().unwrap().starts_with("NvSciError_"));
            for b in &NvSciError::KNOWN[i + 1..] {
                assert_ne!(a, b, "duplicate value");
            }
        }
    }

    #[test]
    fn success_helpers() {
        assert!(NvSciError_Success.is_success());
        assert!(!NvSciError_BadParameter.is_success());
        assert_eq!(NvSciError_Success.ok(), Ok(()));
        assert_eq!(NvSciError_Busy.ok(), Err(NvSciError_Busy));
    }

    #[test]
    fn formatting() {
        struct Buf([u8; 128], usize);
        impl fmt::Write for Buf {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                let end = self.1 + s.len();
                self.0
                    .get_mut(self.1..end)
                    .ok_or(fmt::Error)?
                    .copy_from_slice(s.as_bytes());
                self.1 = end;
                Ok(())
            }
        }
        let mut b = Buf([0; 128], 0);
        fmt::write(
            &mut b,
            format_args!(
                "{} {:?} {}",
                NvSciError_Timeout,
                NvSciError_Timeout,
                NvSciError(7)
            ),
        )
        .unwrap();
        assert_eq!(
            core::str::from_utf8(&b.0[..b.1]).unwrap(),
            "NvSciError_Timeout NvSciError_Timeout(0x200) unknown NvSciError 0x7"
        );
    }
}
