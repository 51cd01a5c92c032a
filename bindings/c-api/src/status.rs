//! Status codes, their names, and the message of the last failure on each thread.

use core::fmt::Write as _;

use orin_exec::Error;

/// The result of every `orin_exec_*` function that can fail: `ORIN_EXEC_OK` (0) or an error
/// code. `orin_exec_error_name` names a code; `orin_exec_last_error_message` describes the
/// last failure on the calling thread.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum orin_exec_status_t {
    /// Success.
    ORIN_EXEC_OK = 0,
    /// A pointer argument that must not be NULL was NULL.
    ORIN_EXEC_E_NULL = 1,
    /// The handle is not a live runtime (never created, destroyed, or forged).
    ORIN_EXEC_E_HANDLE = 2,
    /// The call is not allowed in the runtime's current phase (e.g. `orin_exec_bind` after
    /// `orin_exec_init`, `orin_exec_step` before `orin_exec_seal`).
    ORIN_EXEC_E_PHASE = 3,
    /// A task id is out of range or names a task of the wrong kind (e.g. binding a GPU task).
    ORIN_EXEC_E_TASK = 4,
    /// A buffer id or copy is out of range, or the task did not declare the access.
    ORIN_EXEC_E_BUFFER = 5,
    /// A CPU task is bound twice, or `orin_exec_init` found a CPU task without a binding.
    ORIN_EXEC_E_BINDING = 6,
    /// The C tables are malformed: a NULL array with a count, a bad enum value, a string that
    /// is not UTF-8.
    ORIN_EXEC_E_TABLES = 7,
    /// The tables were built for another `ORIN_EXEC_ABI_VERSION`.
    ORIN_EXEC_E_ABI = 8,
    /// `Schedule::check` refused the tables (ids, order, races, timeline: the validator's
    /// rules).
    ORIN_EXEC_E_SCHEDULE = 9,
    /// Too many runtimes at once, or a schedule larger than the C API's storage.
    ORIN_EXEC_E_CAPACITY = 10,
    /// The platform failed while building the runtime (driver, engine, memory, thread).
    ORIN_EXEC_E_INIT = 11,
    /// The runtime failed while running a frame (see the message).
    ORIN_EXEC_E_RUNTIME = 12,
    /// The health monitor made a safe stop: no more frames run.
    ORIN_EXEC_E_SAFE_STOPPED = 13,
    /// Another call is using the runtime (from another thread, or from inside a callback).
    ORIN_EXEC_E_BUSY = 14,
    /// Not available in this build (e.g. a SIL-only function on `orin`).
    ORIN_EXEC_E_UNSUPPORTED = 15,
    /// An argument is out of its range (e.g. a config field, a size).
    ORIN_EXEC_E_ARGUMENT = 16,
    /// Shutdown released everything but reported a failure on the way.
    ORIN_EXEC_E_SHUTDOWN = 17,
}

use orin_exec_status_t as S;

impl orin_exec_status_t {
    /// Every code, in order.
    pub const ALL: [orin_exec_status_t; 18] = [
        S::ORIN_EXEC_OK,
        S::ORIN_EXEC_E_NULL,
        S::ORIN_EXEC_E_HANDLE,
        S::ORIN_EXEC_E_PHASE,
        S::ORIN_EXEC_E_TASK,
        S::ORIN_EXEC_E_BUFFER,
        S::ORIN_EXEC_E_BINDING,
        S::ORIN_EXEC_E_TABLES,
        S::ORIN_EXEC_E_ABI,
        S::ORIN_EXEC_E_SCHEDULE,
        S::ORIN_EXEC_E_CAPACITY,
        S::ORIN_EXEC_E_INIT,
        S::ORIN_EXEC_E_RUNTIME,
        S::ORIN_EXEC_E_SAFE_STOPPED,
        S::ORIN_EXEC_E_BUSY,
        S::ORIN_EXEC_E_UNSUPPORTED,
        S::ORIN_EXEC_E_ARGUMENT,
        S::ORIN_EXEC_E_SHUTDOWN,
    ];

    /// The code's name as a NUL-terminated string.
    pub const fn name(self) -> &'static core::ffi::CStr {
        match self {
            S::ORIN_EXEC_OK => c"ORIN_EXEC_OK",
            S::ORIN_EXEC_E_NULL => c"ORIN_EXEC_E_NULL",
            S::ORIN_EXEC_E_HANDLE => c"ORIN_EXEC_E_HANDLE",
            S::ORIN_EXEC_E_PHASE => c"ORIN_EXEC_E_PHASE",
            S::ORIN_EXEC_E_TASK => c"ORIN_EXEC_E_TASK",
            S::ORIN_EXEC_E_BUFFER => c"ORIN_EXEC_E_BUFFER",
            S::ORIN_EXEC_E_BINDING => c"ORIN_EXEC_E_BINDING",
            S::ORIN_EXEC_E_TABLES => c"ORIN_EXEC_E_TABLES",
            S::ORIN_EXEC_E_ABI => c"ORIN_EXEC_E_ABI",
            S::ORIN_EXEC_E_SCHEDULE => c"ORIN_EXEC_E_SCHEDULE",
            S::ORIN_EXEC_E_CAPACITY => c"ORIN_EXEC_E_CAPACITY",
            S::ORIN_EXEC_E_INIT => c"ORIN_EXEC_E_INIT",
            S::ORIN_EXEC_E_RUNTIME => c"ORIN_EXEC_E_RUNTIME",
            S::ORIN_EXEC_E_SAFE_STOPPED => c"ORIN_EXEC_E_SAFE_STOPPED",
            S::ORIN_EXEC_E_BUSY => c"ORIN_EXEC_E_BUSY",
            S::ORIN_EXEC_E_UNSUPPORTED => c"ORIN_EXEC_E_UNSUPPORTED",
            S::ORIN_EXEC_E_ARGUMENT => c"ORIN_EXEC_E_ARGUMENT",
            S::ORIN_EXEC_E_SHUTDOWN => c"ORIN_EXEC_E_SHUTDOWN",
        }
    }
}

/// Longest message kept, in bytes (longer ones are cut at a character boundary).
const MESSAGE: usize = 255;

/// A message in fixed storage (building one never allocates).
///
/// cbindgen:ignore
pub(crate) type Message = heapless::String<MESSAGE>;

/// A failed call: its code and what to tell the caller.
///
/// cbindgen:ignore
#[derive(Debug)]
pub(crate) struct Fail {
    pub status: orin_exec_status_t,
    pub message: Message,
}

impl Fail {
    /// A failure with a formatted message (cut to [`MESSAGE`] bytes).
    pub(crate) fn new(status: orin_exec_status_t, args: core::fmt::Arguments<'_>) -> Fail {
        let mut w = Cut(Message::new());
        let _ = w.write_fmt(args);
        Fail {
            status,
            message: w.0,
        }
    }

    /// A malformed field of the C tables.
    pub(crate) fn tables(what: &str, why: &str) -> Fail {
        Fail::new(
            S::ORIN_EXEC_E_TABLES,
            format_args!("C tables: `{what}` {why}"),
        )
    }

    /// Tables of another ABI version.
    pub(crate) fn abi(found: u32) -> Fail {
        Fail::new(
            S::ORIN_EXEC_E_ABI,
            format_args!(
                "the tables have ABI version {found}, this library {}: regenerate them with \
                 the generator of this release",
                crate::tables::ORIN_EXEC_ABI_VERSION
            ),
        )
    }

    /// A runtime error, with the code of its kind.
    pub(crate) fn runtime(status: orin_exec_status_t, e: &Error) -> Fail {
        let status = match e {
            Error::Phase(orin_exec::error::Phase::SafeStopped) => S::ORIN_EXEC_E_SAFE_STOPPED,
            Error::BadSchedule { .. } => S::ORIN_EXEC_E_SCHEDULE,
            Error::Capacity { .. } => S::ORIN_EXEC_E_CAPACITY,
            Error::BufferNotDeclared { .. } | Error::NoSuchBuffer { .. } => S::ORIN_EXEC_E_BUFFER,
            Error::NotACpuTask { .. } => S::ORIN_EXEC_E_TASK,
            Error::UnboundTask { .. } => S::ORIN_EXEC_E_BINDING,
            _ => status,
        };
        Fail::new(status, format_args!("{e}"))
    }
}

/// A writer that keeps what fits.
struct Cut(Message);

impl core::fmt::Write for Cut {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for c in s.chars() {
            if self.0.push(c).is_err() {
                break;
            }
        }
        Ok(())
    }
}

std::thread_local! {
    // Plain bytes (no destructor, so a thread registers nothing and allocates nothing when it
    // first fails): the message and its NUL.
    static LAST: core::cell::RefCell<[u8; MESSAGE + 1]> = const {
        core::cell::RefCell::new([0; MESSAGE + 1])
    };
}

/// Records `fail` as the calling thread's last failure and returns its code.
pub(crate) fn record(fail: Fail) -> orin_exec_status_t {
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        let bytes = fail.message.as_bytes();
        // A NUL inside the message would cut it short in C: replaced by a space.
        for (dst, &b) in l.iter_mut().zip(bytes) {
            *dst = if b == 0 { b' ' } else { b };
        }
        l[bytes.len()] = 0;
    });
    fail.status
}

/// The calling thread's last failure message (NUL-terminated, in thread-local storage).
pub(crate) fn last() -> *const core::ffi::c_char {
    LAST.with(|l| l.as_ptr().cast())
}

/// `Ok(())` as `ORIN_EXEC_OK`, a failure recorded.
pub(crate) fn status(r: Result<(), Fail>) -> orin_exec_status_t {
    match r {
        Ok(()) => S::ORIN_EXEC_OK,
        Err(f) => record(f),
    }
}

/// `return Err(Fail::new(code, format_args!(..)))`.
macro_rules! fail {
    ($status:ident, $($arg:tt)*) => {
        return Err($crate::status::Fail::new(
            $crate::status::orin_exec_status_t::$status,
            format_args!($($arg)*),
        ))
    };
}
pub(crate) use fail;
