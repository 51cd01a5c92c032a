//! Errors: small `Copy` values with enough context to act on.
//!
//! Every fallible call of the runtime returns [`Error`]. It never owns heap data: names come
//! from the static schedule, status codes keep their raw C value (unknown codes stay
//! readable as numbers).
//!
//! ```
//! use orin_exec::{Error, error::Holder};
//! let e = Error::BufferBusy { buffer: "image", holder: Holder::Dla(0), task: "detector" };
//! assert_eq!(
//!     e.to_string(),
//!     "buffer `image` is held by dla0 (task `detector`): its fence has not been reached"
//! );
//! ```

use core::fmt;

/// Which engine holds a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Holder {
    /// The CPU (no engine work pending).
    Cpu,
    /// GPU stream n.
    Gpu(u8),
    /// DLA core n.
    Dla(u8),
    /// PVA n.
    Pva(u8),
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Cpu => f.write_str("the CPU"),
            Holder::Gpu(n) => write!(f, "gpu stream {n}"),
            Holder::Dla(n) => write!(f, "dla{n}"),
            Holder::Pva(n) => write!(f, "pva{n}"),
        }
    }
}

/// What an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Context {
    /// Platform set-up (library, device, module open).
    Platform,
    /// A task.
    Task(&'static str),
    /// A buffer.
    Buffer(&'static str),
    /// An engine instance.
    Engine(&'static str),
    /// The completion semaphore of a task.
    Semaphore(&'static str),
    /// A GPU module.
    Cubin(&'static str),
    /// A DLA loadable.
    Loadable(&'static str),
    /// A tensor of a loadable.
    Tensor {
        /// The loadable.
        loadable: &'static str,
        /// The tensor.
        tensor: &'static str,
    },
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Platform => f.write_str("platform set-up"),
            Context::Task(t) => write!(f, "task `{t}`"),
            Context::Buffer(b) => write!(f, "buffer `{b}`"),
            Context::Engine(e) => write!(f, "engine `{e}`"),
            Context::Semaphore(t) => write!(f, "completion semaphore of task `{t}`"),
            Context::Cubin(c) => write!(f, "cubin `{c}`"),
            Context::Loadable(l) => write!(f, "loadable `{l}`"),
            Context::Tensor { loadable, tensor } => {
                write!(f, "tensor `{tensor}` of loadable `{loadable}`")
            }
        }
    }
}

/// A C library status that was not success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Status {
    /// An `NvSciError`.
    NvSci(i32),
    /// A `cudlaStatus`.
    Cudla(i32),
    /// A `CUresult`.
    Cuda(u32),
}

impl Status {
    /// `Ok` when the call succeeded, else the error naming the call, this status and its
    /// context.
    #[cfg(feature = "std")]
    pub(crate) fn check(self, success: bool, call: &'static str, context: Context) -> Result<()> {
        if success {
            Ok(())
        } else {
            Err(Error::Call {
                call,
                status: self,
                context,
            })
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Status::NvSci(v) => match nvsci_sys::NvSciError(v).name() {
                Some(name) => write!(f, "{name} ({v:#x})"),
                None => write!(f, "unknown NvSciError {v:#x}"),
            },
            Status::Cudla(v) => match cudla_sys::cudlaStatus(v).name() {
                Some(name) => write!(f, "{name} ({v})"),
                None => write!(f, "unknown cudlaStatus {v}"),
            },
            Status::Cuda(v) => match cuda_sys::CUresult(v).name() {
                Some(name) => write!(f, "{name} ({v})"),
                None => write!(f, "unknown CUresult {v}"),
            },
        }
    }
}

/// Why a loadable tensor does not fit the buffer bound to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TensorMismatch {
    /// The loadable has no tensor of that name.
    Missing,
    /// Size in bytes differs.
    Size {
        /// What the loadable wants.
        expected: u64,
        /// What the buffer has.
        found: u64,
    },
    /// The number of input or output tensors differs from the schedule's bindings.
    Count {
        /// What the loadable has.
        expected: u32,
        /// What the schedule binds.
        found: u32,
    },
    /// The tensor's shape or type differs from the loadables manifest.
    Shape,
}

impl fmt::Display for TensorMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorMismatch::Missing => f.write_str("the loadable has no such tensor"),
            TensorMismatch::Size { expected, found } => {
                write!(
                    f,
                    "the loadable needs {expected} bytes, the buffer has {found}"
                )
            }
            TensorMismatch::Count { expected, found } => {
                write!(
                    f,
                    "the loadable has {expected} tensors, the schedule binds {found}"
                )
            }
            TensorMismatch::Shape => {
                f.write_str("shape or type differs from the loadables manifest")
            }
        }
    }
}

/// Everything that can go wrong in orin-exec.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Error {
    /// A vendor (or SIL) library call failed.
    Call {
        /// The C function.
        call: &'static str,
        /// Its status.
        status: Status,
        /// What it was about.
        context: Context,
    },
    /// A GPU image is not an acceptable cubin.
    Cubin {
        /// The module.
        module: &'static str,
        /// What is wrong with it.
        cause: cubin_check::CubinError,
    },
    /// No cubin variant matches the device's SM.
    NoCubinForSm {
        /// The module.
        module: &'static str,
        /// The device's SM (e.g. 87).
        sm: u32,
    },
    /// An artifact's SHA-256 differs from its manifest entry.
    HashMismatch {
        /// What the artifact is.
        context: Context,
    },
    /// A loadable tensor does not match the buffer bound to it.
    Tensor {
        /// The loadable.
        loadable: &'static str,
        /// The tensor.
        tensor: &'static str,
        /// How it differs.
        mismatch: TensorMismatch,
    },
    /// A buffer is smaller than its consumer needs.
    BufferTooSmall {
        /// The buffer.
        buffer: &'static str,
        /// Bytes needed.
        need: u64,
        /// Bytes available.
        have: u64,
    },
    /// A buffer's base address is not aligned as an engine needs.
    BufferMisaligned {
        /// The buffer.
        buffer: &'static str,
        /// Required alignment in bytes.
        align: u64,
        /// The address found.
        addr: u64,
    },
    /// A buffer's declared alignment is smaller than an engine bound to it requires.
    AlignmentTooSmall {
        /// The buffer.
        buffer: &'static str,
        /// What the engine needs, in bytes.
        needed: u64,
        /// What the schedule declares.
        declared: u64,
    },
    /// The CPU tried to touch a buffer that engine work still holds.
    BufferBusy {
        /// The buffer.
        buffer: &'static str,
        /// Who holds it.
        holder: Holder,
        /// The task whose fence has not been reached.
        task: &'static str,
    },
    /// A CPU task touched a buffer it did not declare (or wrote one it only reads).
    BufferNotDeclared {
        /// The task.
        task: &'static str,
        /// The buffer.
        buffer: &'static str,
    },
    /// A fence was not reached before its deadline.
    FenceTimeout {
        /// The task whose completion fence it is.
        task: &'static str,
        /// The fence value waited for.
        value: u64,
    },
    /// A task finished after its deadline.
    DeadlineMissed {
        /// The task.
        task: &'static str,
        /// How late, in ns.
        late_ns: u64,
    },
    /// A task ran longer than its budget.
    BudgetExceeded {
        /// The task.
        task: &'static str,
        /// Measured execution time, ns.
        used_ns: u64,
        /// Its budget, ns.
        budget_ns: u64,
    },
    /// A CPU task reported a failure (with its code) or was refused a buffer (no code).
    TaskFailed {
        /// The task.
        task: &'static str,
        /// The code it reported, if it reported one.
        code: Option<u32>,
    },
    /// An engine reported an asynchronous error; it is failed until re-initialised.
    EngineFailed {
        /// The engine.
        engine: &'static str,
        /// The error it reported.
        status: Status,
    },
    /// A CPU task in the schedule has no function bound to it.
    UnboundTask {
        /// The task.
        task: &'static str,
    },
    /// A buffer id that is not in the schedule.
    NoSuchBuffer {
        /// The buffer index given.
        buffer: u16,
    },
    /// An engine id that is not a DLA engine of the schedule.
    NotADlaEngine {
        /// The engine index given.
        engine: u8,
    },
    /// A body was bound to a task that is not a CPU task of the schedule.
    NotACpuTask {
        /// The task index given.
        task: u16,
    },
    /// The bodies given were generated for another schedule.
    BodiesOfAnotherSchedule {
        /// The schedule they belong to.
        schedule: &'static str,
    },
    /// A static capacity was exceeded.
    Capacity {
        /// What ran out.
        what: &'static str,
        /// The limit.
        limit: u32,
    },
    /// The schedule tables are inconsistent (they should come from the validator).
    BadSchedule {
        /// What is wrong.
        what: &'static str,
        /// Where.
        context: Context,
    },
    /// A platform fact does not hold (e.g. JIT not disabled, feature unsupported).
    Platform {
        /// What does not hold.
        what: &'static str,
    },
    /// A call is not allowed in the current phase (e.g. after `shutdown`).
    Phase {
        /// What was attempted.
        what: &'static str,
    },
    /// Teardown could not finish cleanly; resources of this context may be leaked.
    Shutdown {
        /// What could not be torn down.
        context: Context,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Call {
                call,
                status,
                context,
            } => write!(f, "{call} failed with {status} ({context})"),
            Error::Cubin { module, cause } => write!(f, "cubin `{module}` rejected: {cause}"),
            Error::NoCubinForSm { module, sm } => {
                write!(
                    f,
                    "cubin `{module}` has no SASS for sm_{sm} (and PTX is never JIT-compiled)"
                )
            }
            Error::HashMismatch { context } => {
                write!(f, "{context}: SHA-256 differs from its manifest entry")
            }
            Error::Tensor {
                loadable,
                tensor,
                mismatch,
            } => {
                write!(f, "tensor `{tensor}` of loadable `{loadable}`: {mismatch}")
            }
            Error::BufferTooSmall { buffer, need, have } => {
                write!(
                    f,
                    "buffer `{buffer}` is too small: {need} bytes needed, {have} available"
                )
            }
            Error::BufferMisaligned {
                buffer,
                align,
                addr,
            } => {
                write!(
                    f,
                    "buffer `{buffer}` at {addr:#x} is not aligned to {align} bytes"
                )
            }
            Error::AlignmentTooSmall {
                buffer,
                needed,
                declared,
            } => write!(
                f,
                "buffer `{buffer}` is declared {declared}-byte aligned, but an engine bound to it needs {needed}"
            ),
            Error::BufferBusy {
                buffer,
                holder,
                task,
            } => write!(
                f,
                "buffer `{buffer}` is held by {holder} (task `{task}`): its fence has not been reached"
            ),
            Error::BufferNotDeclared { task, buffer } => {
                write!(
                    f,
                    "task `{task}` did not declare this access to buffer `{buffer}`"
                )
            }
            Error::FenceTimeout { task, value } => {
                write!(
                    f,
                    "fence {value} of task `{task}` was not reached before its deadline"
                )
            }
            Error::DeadlineMissed { task, late_ns } => {
                write!(f, "task `{task}` missed its deadline by {late_ns} ns")
            }
            Error::BudgetExceeded {
                task,
                used_ns,
                budget_ns,
            } => {
                write!(
                    f,
                    "task `{task}` ran {used_ns} ns, over its budget of {budget_ns} ns"
                )
            }
            Error::TaskFailed {
                task,
                code: Some(code),
            } => write!(f, "CPU task `{task}` reported failure code {code}"),
            Error::TaskFailed { task, code: None } => {
                write!(f, "CPU task `{task}` was refused a buffer and did not run")
            }
            Error::EngineFailed { engine, status } => {
                write!(
                    f,
                    "engine `{engine}` failed with {status}; it must be re-initialised"
                )
            }
            Error::UnboundTask { task } => {
                write!(f, "CPU task `{task}` has no function bound to it")
            }
            Error::NoSuchBuffer { buffer } => {
                write!(f, "buffer {buffer} is not in the schedule")
            }
            Error::NotADlaEngine { engine } => {
                write!(f, "engine {engine} is not a DLA engine of the schedule")
            }
            Error::NotACpuTask { task } => {
                write!(f, "task {task} is not a CPU task of the schedule")
            }
            Error::BodiesOfAnotherSchedule { schedule } => write!(
                f,
                "the task bodies were generated for schedule `{schedule}`, not this one"
            ),
            Error::Capacity { what, limit } => {
                write!(f, "capacity exceeded: at most {limit} {what}")
            }
            Error::BadSchedule { what, context } => {
                write!(f, "inconsistent schedule table: {what} ({context})")
            }
            Error::Platform { what } => write!(f, "platform check failed: {what}"),
            Error::Phase { what } => write!(f, "not allowed in this phase: {what}"),
            Error::Shutdown { context } => {
                write!(f, "shutdown incomplete: {context} could not be released")
            }
        }
    }
}

impl core::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T> = core::result::Result<T, Error>;
