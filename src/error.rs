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
//!
//! The kind of an error is always a value to match on, never text: which table ran out
//! ([`Table`]), how the schedule is inconsistent ([`ScheduleFault`]), which platform fact
//! does not hold ([`PlatformFact`]), what the current phase forbids ([`Phase`]) and which
//! contract of the engine layer a call broke ([`Misuse`]).
//!
//! ```
//! use orin_exec::{Error, error::Table};
//! let e = Error::Capacity { table: Table::CpuWorkers, limit: 4 };
//! let grow = match e {
//!     Error::Capacity { table: Table::CpuWorkers, limit } => Some(limit * 2),
//!     _ => None,
//! };
//! assert_eq!(grow, Some(8));
//! assert_eq!(e.to_string(), "capacity exceeded: at most 4 CPU workers");
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
    /// A `cupvaError_t`.
    Cupva(u32),
}

impl Status {
    /// The library's raw code (a `CUresult` or `cupvaError_t` as the bits of an `i32`).
    pub const fn raw(self) -> i32 {
        match self {
            Status::NvSci(code) | Status::Cudla(code) => code,
            Status::Cuda(code) | Status::Cupva(code) => code as i32,
        }
    }

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
            Status::Cupva(v) => match cupva_sys::cupvaError_t(v).name() {
                Some(name) => write!(f, "{name} ({v:#x})"),
                None => write!(f, "unknown cupvaError_t {v:#x}"),
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

/// A static table of the runtime whose capacity ran out (see [`Error::Capacity`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Table {
    /// Modes of the schedule.
    Modes,
    /// Tasks of the schedule (or of the tables given to hold them).
    Tasks,
    /// Waits (dependencies) of one task.
    WaitsPerTask,
    /// Frames a dependency may lag behind (bounded by the fence history).
    DependencyLag,
    /// Buffers of the schedule.
    Buffers,
    /// Copies of all buffers together.
    BufferCopies,
    /// CPU worker threads.
    CpuWorkers,
    /// Loaded GPU modules.
    Cubins,
    /// GPU streams.
    GpuStreams,
    /// Open DLA device handles.
    DlaDevices,
    /// DLA imports of one buffer copy.
    DlaImportsPerBuffer,
    /// DLA imports of one completion semaphore.
    DlaImportsPerSemaphore,
    /// DLA device handles that wait on or signal one semaphore.
    DlaHandlesPerSemaphore,
    /// Imports registered with one DLA device handle.
    ImportsPerDlaDevice,
    /// cuPVA streams (one per PVA engine).
    PvaStreams,
    /// cuPVA executables (one per PVA program the schedule runs).
    PvaExecutables,
    /// Input or output tensors of one DLA loadable.
    DlaTensors,
    /// Pre-fences of one DLA submission.
    DlaPreFences,
    /// NvSciSync attribute lists reconciled for one semaphore.
    AttributeListsPerSemaphore,
    /// NvSciBuf attributes of one buffer.
    BufferAttributes,
    /// Open engine objects that have children (modules, contexts, buffers).
    EngineParents,
    /// Bytes in a kernel name.
    KernelNameBytes,
    /// Parameters of one kernel.
    KernelParams,
    /// SM variants of one cubin (SIL kernel model registration).
    CubinVariants,
    /// Bins of a SIL timing model.
    TimingModelBins,
    /// Fault injections waiting for their frame.
    PendingInjections,
    /// Nodes of one stream's per-frame CUDA graph (`submit = "graph"`).
    GraphNodes,
    /// Runs of CPU tasks owing their signals (`limits::OWED_SIGNALS`).
    OwedSignals,
}

// The hosted runtime's init is the only user.
#[cfg(feature = "std")]
impl Table {
    /// `Ok` when `needed` entries fit a table of `limit`, else the capacity error naming it.
    pub(crate) fn fits(self, needed: usize, limit: usize) -> Result<()> {
        if needed > limit {
            Err(Error::Capacity {
                table: self,
                limit: limit as u32,
            })
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Table::Modes => "modes",
            Table::Tasks => "tasks",
            Table::WaitsPerTask => "waits per task",
            Table::DependencyLag => "frames of dependency lag",
            Table::Buffers => "buffers",
            Table::BufferCopies => "buffer copies",
            Table::CpuWorkers => "CPU workers",
            Table::Cubins => "cubins",
            Table::GpuStreams => "GPU streams",
            Table::DlaDevices => "DLA device handles",
            Table::DlaImportsPerBuffer => "DLA imports per buffer",
            Table::DlaImportsPerSemaphore => "DLA imports per semaphore",
            Table::DlaHandlesPerSemaphore => "DLA handles per semaphore",
            Table::ImportsPerDlaDevice => "imports per DLA device handle",
            Table::PvaStreams => "cuPVA streams",
            Table::PvaExecutables => "cuPVA executables",
            Table::DlaTensors => "input or output tensors per DLA loadable",
            Table::DlaPreFences => "DLA pre-fences",
            Table::AttributeListsPerSemaphore => "attribute lists per semaphore",
            Table::BufferAttributes => "buffer attributes",
            Table::EngineParents => {
                "open engine objects with children (modules, contexts, buffers)"
            }
            Table::KernelNameBytes => "bytes in a kernel name",
            Table::KernelParams => "kernel parameters",
            Table::CubinVariants => "SM variants of one cubin",
            Table::TimingModelBins => "timing model bins",
            Table::PendingInjections => "pending injections",
            Table::GraphNodes => "nodes of one stream's per-frame CUDA graph",
            Table::OwedSignals => "CPU runs owing their signals to late dependencies",
        })
    }
}

/// How the schedule tables are inconsistent (see [`Error::BadSchedule`]). The validator
/// rejects all of these; the runtime checks again rather than trust its input.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ScheduleFault {
    /// The period is zero or the schedule has no mode.
    ZeroPeriodOrNoMode,
    /// A task names an engine that is not in the engine table.
    EngineOutOfRange,
    /// A task waits on a later task in the same frame, or on one that does not exist.
    DependencyOutOfOrder,
    /// A task names a buffer that is not in the buffer table.
    BufferOutOfRange,
    /// A task's deadline lies beyond the period.
    DeadlineBeyondPeriod,
    /// A buffer's multiplicity is not 1, 2 or 4.
    BadMultiplicity,
    /// A DLA task names a loadable that is not in the loadable table.
    LoadableOutOfRange,
    /// A GPU task names a cubin that is not in the cubin table.
    CubinOutOfRange,
    /// A DLA task runs on an engine that has no DLA device.
    DlaTaskWithoutDevice,
    /// A GPU task runs on an engine that has no stream.
    GpuTaskWithoutStream,
    /// A buffer bound to a DLA tensor was not imported into that DLA.
    TensorBufferNotImported,
    /// A buffer passed as a kernel parameter is not mapped into the GPU.
    ParamBufferNotOnGpu,
    /// A GPU task depends on a task whose semaphore the GPU cannot see.
    DependencyNotOnGpu,
    /// A CPU worker has no semaphore handle for a dependency of its tasks.
    NoSemaphoreForDependency,
    /// A CPU worker has no semaphore handle for one of its own tasks.
    NoSemaphoreForCpuTask,
    /// The kernel is not an entry point of its cubin.
    KernelNotInCubin,
    /// A PVA task names a program that is not in the program table.
    PvaProgramOutOfRange,
    /// A PVA task runs on an engine that has no cuPVA stream.
    PvaTaskWithoutStream,
    /// A buffer passed to a PVA program is not imported into the PVA.
    ParamBufferNotOnPva,
    /// A PVA task depends on a task whose semaphore the PVA cannot see.
    DependencyNotOnPva,
}

impl fmt::Display for ScheduleFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScheduleFault::ZeroPeriodOrNoMode => "zero period or no mode",
            ScheduleFault::EngineOutOfRange => "engine index out of range",
            ScheduleFault::DependencyOutOfOrder => "dependency out of order",
            ScheduleFault::BufferOutOfRange => "buffer index out of range",
            ScheduleFault::DeadlineBeyondPeriod => "deadline beyond the period",
            ScheduleFault::BadMultiplicity => "buffer multiplicity must be 1, 2 or 4",
            ScheduleFault::LoadableOutOfRange => "loadable index out of range",
            ScheduleFault::CubinOutOfRange => "cubin index out of range",
            ScheduleFault::DlaTaskWithoutDevice => "DLA task without device",
            ScheduleFault::GpuTaskWithoutStream => "GPU task without stream",
            ScheduleFault::TensorBufferNotImported => "DLA tensor buffer not imported",
            ScheduleFault::ParamBufferNotOnGpu => "kernel parameter buffer not mapped into the GPU",
            ScheduleFault::DependencyNotOnGpu => "dependency not visible to the GPU",
            ScheduleFault::NoSemaphoreForDependency => "no semaphore handle for a dependency",
            ScheduleFault::NoSemaphoreForCpuTask => "no semaphore handle for a CPU task",
            ScheduleFault::KernelNotInCubin => "the kernel is not an entry point of its cubin",
            ScheduleFault::PvaProgramOutOfRange => "PVA program index out of range",
            ScheduleFault::PvaTaskWithoutStream => "PVA task without cuPVA stream",
            ScheduleFault::ParamBufferNotOnPva => "PVA parameter buffer not imported into the PVA",
            ScheduleFault::DependencyNotOnPva => "dependency not visible to the PVA",
        })
    }
}

/// A platform fact that does not hold (see [`Error::Platform`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PlatformFact {
    /// The OS refused to start a CPU worker thread.
    WorkerThreadNotStarted,
    /// `CUDA_DISABLE_PTX_JIT` has a value other than `1` (PTX could be JIT-compiled).
    PtxJitNotDisabled,
    /// `CUDA_MODULE_LOADING` has a value other than `EAGER` (modules could load lazily).
    ModuleLoadingNotEager,
    /// The CUDA variables are not both set and other threads run, so they cannot be set
    /// safely.
    CudaEnvironmentNotSet,
    /// Virtual time and the SIL extensions exist only on the `sil` platform.
    SilOnly,
    /// Semaphore counters are mapped into the GPU only on the `rig` platform.
    CountersOnlyOnRig,
    /// Buffers are host-registered only on the `rig` platform.
    HostRegistrationOnlyOnRig,
    /// The process's clock is held: a runtime on the virtual clock must be alone in its
    /// process, since the SIL libraries keep one clock per process.
    ClockInUse,
}

impl fmt::Display for PlatformFact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlatformFact::WorkerThreadNotStarted => "could not start a CPU worker thread",
            PlatformFact::PtxJitNotDisabled => {
                "CUDA_DISABLE_PTX_JIT is set to something other than 1"
            }
            PlatformFact::ModuleLoadingNotEager => {
                "CUDA_MODULE_LOADING is set to something other than EAGER"
            }
            PlatformFact::CudaEnvironmentNotSet => {
                "CUDA_DISABLE_PTX_JIT=1 and CUDA_MODULE_LOADING=EAGER are not both set and other \
                 threads run: set them in the environment, or call the unsafe \
                 os::enforce_cuda_environment before starting threads"
            }
            PlatformFact::SilOnly => {
                "virtual time and SIL extensions exist only on the sil platform"
            }
            PlatformFact::CountersOnlyOnRig => "semaphore counters are mapped only on the rig",
            PlatformFact::HostRegistrationOnlyOnRig => {
                "buffers are host-registered only on the rig"
            }
            PlatformFact::ClockInUse => {
                "another runtime of this process holds the clock: a runtime on the SIL virtual \
                 clock must be the only runtime in its process (the SIL keeps one clock per \
                 process); shut the other down first"
            }
        })
    }
}

/// Why a fault injection cannot take effect (see [`Error::InjectionRefused`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum InjectionRefusal {
    /// The task id is not in the schedule.
    NoSuchTask,
    /// A DLA fault aimed at a task that does not run on a DLA.
    NotADlaTask,
    /// A CPU overrun aimed at a task that does not run on a CPU worker.
    NotACpuTask,
    /// DLA faults are injected through the SIL cuDLA; this platform has none.
    NoDlaInjectionOnThisPlatform,
    /// A PVA fault aimed at a task that does not run on a PVA.
    NotAPvaTask,
    /// PVA faults are injected through the SIL cuPVA; this platform has none.
    NoPvaInjectionOnThisPlatform,
}

impl fmt::Display for InjectionRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InjectionRefusal::NoSuchTask => "no such task in the schedule",
            InjectionRefusal::NotADlaTask => "it does not run on a DLA (pick a DLA task)",
            InjectionRefusal::NotACpuTask => "it does not run on a CPU worker (pick a CPU task)",
            InjectionRefusal::NoDlaInjectionOnThisPlatform => {
                "DLA faults are injected only on the sil and rig platforms"
            }
            InjectionRefusal::NotAPvaTask => "it does not run on a PVA (pick a PVA task)",
            InjectionRefusal::NoPvaInjectionOnThisPlatform => {
                "PVA faults are injected only on the sil and rig platforms"
            }
        })
    }
}

/// What the runtime could not do in its current phase or state (see [`Error::Phase`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Phase {
    /// The NvSciSync module is not open (init has not opened it, or shutdown closed it).
    NvSciSyncNotOpen,
    /// The NvSciBuf module is not open.
    NvSciBufNotOpen,
    /// The GPU is not open.
    GpuNotOpen,
    /// The executive's CPU wait context is not allocated.
    NoWaitContext,
    /// The executive made a safe stop: it runs no more frames.
    SafeStopped,
    /// A fault injection names a frame that is already planned.
    InjectionIntoPlannedFrame,
    /// A task is submitted in a frame for which it has no planned fence value.
    TaskNotPlanned,
    /// A CPU task's fence was reached but its worker posted no result for the frame.
    CpuResultMissing,
    /// A DLA task's completion semaphore was not imported into its DLA.
    DlaSemaphoreNotImported,
    /// A GPU task's completion semaphore was not imported into the GPU.
    GpuSemaphoreMissing,
    /// A CPU worker fell more than `PLAN_HISTORY` frames behind: the plan of its frame is gone.
    WorkerLostStep,
    /// A fence was built before the semaphore's primitive id was taken from a fence of its
    /// signaler (init does that first).
    FenceIdUnknown,
    /// A frame was launched as a graph on a stream (or for a task) that has none.
    NoGraph,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::NvSciSyncNotOpen => "NvSciSync module not open",
            Phase::NvSciBufNotOpen => "NvSciBuf module not open",
            Phase::GpuNotOpen => "GPU not open",
            Phase::NoWaitContext => "no wait context",
            Phase::SafeStopped => "the executive made a safe stop",
            Phase::InjectionIntoPlannedFrame => "injection into a frame that is already planned",
            Phase::TaskNotPlanned => "task not planned",
            Phase::CpuResultMissing => "CPU result missing",
            Phase::DlaSemaphoreNotImported => "DLA semaphore not imported",
            Phase::GpuSemaphoreMissing => "GPU semaphore missing",
            Phase::WorkerLostStep => {
                "a CPU worker fell more than PLAN_HISTORY frames behind and lost step"
            }
            Phase::FenceIdUnknown => {
                "fence built before the semaphore's primitive id was known (init learns it)"
            }
            Phase::NoGraph => "no CUDA graph for this stream or task",
        })
    }
}

/// The part of a fence that [`Error::FenceDisagrees`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FenceField {
    /// The primitive id.
    Id,
    /// The value.
    Value,
}

impl fmt::Display for FenceField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenceField::Id => "primitive id",
            FenceField::Value => "value",
        })
    }
}

/// A call of the engine layer that breaks its contract (see [`Error::Misuse`]).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Misuse {
    /// A DLA token that is not a live import of this DLA device (forged, foreign or
    /// unregistered).
    NotALiveDlaImport,
    /// A semaphore import bound as a DLA tensor.
    SemaphoreAsTensor,
    /// A buffer import given as the semaphore a DLA task signals.
    BufferAsSignal,
    /// A kernel parameter's value does not match the kernel's parameter list.
    ParamValueMismatch,
    /// A parameter block was finished before every kernel parameter had a value.
    ParamMissing,
    /// A parameter block launched with a kernel it was not built for.
    ParamBlockMismatch,
    /// Reconciling NvSciSync attributes with no attribute list.
    NoAttributeList,
    /// Host copies into or out of GPU memory that is not pinned host memory.
    NotPinnedHost,
    /// A histogram timing model without bins.
    EmptyTimingHistogram,
    /// A graph node set with parameters of another kind (or not a node of that graph).
    GraphNodeMismatch,
}

impl fmt::Display for Misuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Misuse::NotALiveDlaImport => "not a live import of this DLA device",
            Misuse::SemaphoreAsTensor => "a semaphore import bound as a DLA tensor",
            Misuse::BufferAsSignal => "a DLA task signals a semaphore import, not a buffer import",
            Misuse::ParamValueMismatch => {
                "a kernel parameter's value does not match the kernel's parameter list"
            }
            Misuse::ParamMissing => "a kernel parameter has no value",
            Misuse::ParamBlockMismatch => {
                "the parameter block does not fit the kernel's parameter list"
            }
            Misuse::NoAttributeList => "no attribute list to reconcile",
            Misuse::NotPinnedHost => "not pinned host memory",
            Misuse::EmptyTimingHistogram => "a histogram timing model needs at least one bin",
            Misuse::GraphNodeMismatch => "not a graph node of this kind in this graph",
        })
    }
}

/// How a kernel's parameters given by the schedule (or declared to
/// [`crate::engine::gpu::GpuModule::function_with_kinds`]) disagree with the kernel (see
/// [`Error::KernelParam`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ParamMismatch {
    /// The cubin's kernel has another number of parameters.
    Count {
        /// Parameters in the cubin (`EIATTR_KPARAM_INFO`).
        cubin: u8,
        /// Parameters given.
        given: u8,
    },
    /// The value's size differs from the cubin's parameter size.
    Size {
        /// The parameter's size in the cubin, in bytes.
        cubin: u16,
        /// The kind given (`ptr` for a buffer, `u32`, `i32`, `u64`, `f32`).
        given: &'static str,
    },
    /// The cubin's parameter is neither 4 nor 8 bytes (structs by value are not supported).
    Unsupported {
        /// Its size in bytes.
        size: u16,
    },
    /// The kernel model registered with SIL CUDA declares another kind.
    Kind {
        /// What the model declares (`none` past its last parameter).
        model: &'static str,
        /// What is given (`none` past the last value).
        given: &'static str,
    },
}

impl fmt::Display for ParamMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamMismatch::Count { cubin, given } => write!(
                f,
                "the cubin's kernel has {cubin} parameters, {given} are given"
            ),
            ParamMismatch::Size { cubin, given } => write!(
                f,
                "the cubin's parameter is {cubin} bytes, but a `{given}` is given"
            ),
            ParamMismatch::Unsupported { size } => write!(
                f,
                "the cubin's parameter is {size} bytes; only 4- and 8-byte parameters are supported"
            ),
            ParamMismatch::Kind { model, given } => write!(
                f,
                "the kernel model declares `{model}`, but `{given}` is given (a buffer is `ptr`)"
            ),
        }
    }
}

/// Why SIL CUDA does not hand a kernel out (`cuSilGetKernelModelStatus`; see
/// [`Error::NoKernelModel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ModelStatus {
    /// No model of a kernel of this name is registered.
    NotRegistered,
    /// Models of the kernel are registered, but bound to other cubins (another SHA-256).
    OtherCubins,
    /// The registered model's parameter kinds disagree with the cubin's parameters.
    KindsDisagree,
    /// The cubin does not export the kernel.
    NotInCubin,
}

impl fmt::Display for ModelStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModelStatus::NotRegistered => "no model is registered for it",
            ModelStatus::OtherCubins => {
                "its models are bound to other cubins (another SHA-256: was the cubin rebuilt?)"
            }
            ModelStatus::KindsDisagree => {
                "the registered model's parameter kinds disagree with the cubin's parameter sizes"
            }
            ModelStatus::NotInCubin => "the cubin does not export it",
        })
    }
}

/// Why SIL CUDA refused to register a kernel model (see [`Error::KernelModelRefused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RegisterFault {
    /// The module or kernel name is empty or holds a NUL byte.
    BadName,
    /// The cubin has no variant, so there is no SHA-256 to bind the model to.
    NoCubinHash,
    /// The model declares more parameters than SIL CUDA decodes.
    TooManyParams,
    /// Another model is registered for this module and kernel and a function of it was
    /// already handed out.
    InUse,
    /// Another module registered a model of this kernel for one of these cubins.
    HashTaken,
}

impl fmt::Display for RegisterFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RegisterFault::BadName => "the module or kernel name is empty or holds a NUL byte",
            RegisterFault::NoCubinHash => "the cubin has no SM variant to bind the model to",
            RegisterFault::TooManyParams => "the model declares more than 16 parameters",
            RegisterFault::InUse => {
                "another model was registered for it and is in use; register models before init"
            }
            RegisterFault::HashTaken => {
                "another module registered a model of this kernel for the same cubin"
            }
        })
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
    /// `orin` runs a DLA network's real loadable, and the loadables manifest names none.
    NoRealLoadable {
        /// The network.
        network: &'static str,
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
    /// A fault injection that cannot take effect (`Executive::inject`): refused at once
    /// rather than dropped later.
    InjectionRefused {
        /// The task (`"?"` when the id is not in the schedule).
        task: &'static str,
        /// The injection (`Injection::name`: `dla-hang`, `cpu-overrun`, ...).
        injection: &'static str,
        /// Why it cannot take effect.
        reason: InjectionRefusal,
    },
    /// The bodies given were generated for another schedule.
    BodiesOfAnotherSchedule {
        /// The schedule they belong to.
        schedule: &'static str,
    },
    /// A static capacity was exceeded.
    Capacity {
        /// The table that ran out.
        table: Table,
        /// Its capacity.
        limit: u32,
    },
    /// The schedule tables are inconsistent (they should come from the validator).
    BadSchedule {
        /// What is wrong.
        fault: ScheduleFault,
        /// Where.
        context: Context,
    },
    /// A platform fact does not hold (e.g. JIT not disabled, feature unsupported).
    Platform(PlatformFact),
    /// A call is not allowed in the current phase (e.g. after a safe stop).
    Phase(Phase),
    /// A call of the engine layer breaks its contract (a stale DLA token, a parameter block
    /// of another kernel, ...).
    Misuse {
        /// Which contract.
        misuse: Misuse,
        /// What it was about.
        context: Context,
    },
    /// An NvSciSync object is not a deterministic semaphore. The runtime builds the fence of
    /// every task and frame ahead from the frame number (+1 per signal), which only a
    /// deterministic 64-bit semaphore allows; a sync point's values move with its signaler.
    NotDeterministic {
        /// The semaphore.
        context: Context,
        /// Whether the reconciled list has `RequireDeterministicFences`.
        requested: bool,
        /// The reconciled primitive type (`NvSciSyncAttrValPrimitiveType`; 0 if none).
        primitive: u32,
    },
    /// A fence an engine returned differs from what the runtime computed.
    FenceDisagrees {
        /// Whose fence.
        context: Context,
        /// Which part differs.
        field: FenceField,
        /// What the runtime computed (or adopted earlier).
        expected: u64,
        /// What the fence holds.
        got: u64,
    },
    /// Teardown could not finish cleanly; resources of this context may be leaked.
    Shutdown {
        /// What could not be torn down.
        context: Context,
    },
    /// A kernel's parameters do not fit the kernel: the schedule's `params` against the
    /// cubin's parameter table (and, on SIL, the registered model's kinds).
    KernelParam {
        /// Where (the task, at init).
        context: Context,
        /// The kernel.
        kernel: &'static str,
        /// The parameter index.
        index: u8,
        /// How it differs.
        mismatch: ParamMismatch,
    },
    /// SIL CUDA has no usable kernel model for a kernel: register one before init.
    NoKernelModel {
        /// The cubin (module) name.
        module: &'static str,
        /// The kernel.
        kernel: &'static str,
        /// Why it is not usable.
        why: ModelStatus,
    },
    /// SIL CUDA refused to register a kernel model.
    KernelModelRefused {
        /// The cubin (module) name.
        module: &'static str,
        /// The kernel.
        kernel: &'static str,
        /// Why.
        why: RegisterFault,
    },
    /// The PVA refused a program's VPU executable because its image is not in the PVA
    /// allowlist (PVA authentication, `CupvaExecutableCreate` failed with
    /// `CUPVA_DRIVER_API_ERROR`).
    PvaProgramNotAllowed {
        /// The program (PVA programs manifest).
        program: &'static str,
    },
    /// The SIL PVA has no reference model for a program (`CupvaExecutableCreate` failed with
    /// `CUPVA_UNSUPPORTED_FEATURE`): register one before init.
    NoPvaProgramModel {
        /// The program.
        program: &'static str,
    },
    /// cuPVA refused a program's VPU executable image for another reason (a bad image).
    PvaImage {
        /// The program.
        program: &'static str,
        /// What `CupvaExecutableCreate` returned.
        status: Status,
    },
    /// A PVA program's parameter, as the programs manifest declares it, is not what the VPU
    /// executable (on SIL: its registered model) has: an unknown symbol name or another kind.
    PvaParam {
        /// The program.
        program: &'static str,
        /// The parameter's symbol name.
        param: &'static str,
        /// What cuPVA returned (`CupvaCmdProgramGetParameter` or
        /// `CupvaParameterSetValue*`).
        status: Status,
    },
    /// The SIL PVA refused to register a program model
    /// (`orin_exec::sil::register_pva_program_model`).
    PvaModelRefused {
        /// The program.
        program: &'static str,
        /// Why.
        why: PvaRegisterFault,
    },
}

/// Why the SIL PVA refused a program model (see [`Error::PvaModelRefused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PvaRegisterFault {
    /// The program name or a parameter name is empty, holds a NUL byte, or two parameters
    /// share a name.
    BadName,
    /// No ELF SHA-256 was given.
    NoElfHash,
    /// The number of parameter names differs from the model's parameters (or exceeds 16).
    ParamCount {
        /// Names given.
        names: u8,
        /// Parameters the model declares.
        params: u8,
    },
    /// Another program's model is bound to one of these images.
    HashTaken,
}

impl fmt::Display for PvaRegisterFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PvaRegisterFault::BadName => f.write_str(
                "the program or a parameter name is empty, holds a NUL byte or is given twice",
            ),
            PvaRegisterFault::NoElfHash => {
                f.write_str("no VPU ELF SHA-256 given to bind the model to")
            }
            PvaRegisterFault::ParamCount { names, params } => write!(
                f,
                "{names} parameter names for a model of {params} parameters (one name per \
                 parameter, at most 16)"
            ),
            PvaRegisterFault::HashTaken => {
                f.write_str("another program's model is bound to one of these VPU ELF images")
            }
        }
    }
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
            Error::NoRealLoadable { network } => write!(
                f,
                "network `{network}` has no real DLA loadable, which orin runs: build it from \
                 its ONNX model with TensorRT (loadables/build_real_loadable.sh on an Orin) and \
                 register it in the loadables manifest (`loadable`, `loadable_sha256`, \
                 `loadable_build_command`; loadables/README.md)"
            ),
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
            Error::InjectionRefused {
                task,
                injection,
                reason,
            } => write!(f, "cannot inject {injection} into task `{task}`: {reason}"),
            Error::NotACpuTask { task } => {
                write!(f, "task {task} is not a CPU task of the schedule")
            }
            Error::BodiesOfAnotherSchedule { schedule } => write!(
                f,
                "the task bodies were generated for schedule `{schedule}`, not this one"
            ),
            Error::Capacity { table, limit } => {
                write!(f, "capacity exceeded: at most {limit} {table}")
            }
            Error::BadSchedule { fault, context } => {
                write!(f, "inconsistent schedule table: {fault} ({context})")
            }
            Error::Platform(fact) => write!(f, "platform check failed: {fact}"),
            Error::Phase(phase) => write!(f, "not allowed in this phase: {phase}"),
            Error::Misuse { misuse, context } => {
                write!(f, "engine API misuse: {misuse} ({context})")
            }
            Error::NotDeterministic {
                context,
                requested,
                primitive,
            } => write!(
                f,
                "{context}: the NvSciSync object is not a deterministic semaphore \
                 (RequireDeterministicFences {}, primitive type {primitive}; needed: true and \
                 4 = SysmemSemaphorePayload64b), so its fences cannot be built ahead from frame \
                 numbers",
                if *requested { "set" } else { "not set" }
            ),
            Error::FenceDisagrees {
                context,
                field,
                expected,
                got,
            } => write!(
                f,
                "{context}: the engine's fence has {field} {got}, the runtime expected {expected}"
            ),
            Error::Shutdown { context } => {
                write!(f, "shutdown incomplete: {context} could not be released")
            }
            Error::KernelParam {
                context,
                kernel,
                index,
                mismatch,
            } => write!(
                f,
                "{context}: kernel `{kernel}` parameter {index}: {mismatch}"
            ),
            Error::NoKernelModel {
                module,
                kernel,
                why,
            } => write!(
                f,
                "SIL CUDA cannot run kernel `{kernel}` of cubin `{module}`: {why}. Register its \
                 reference model before init: orin_exec::sil::register_kernel_model(&cubin, \
                 \"{kernel}\", &MODEL) in Rust (a KernelModel), cuSilRegisterKernelModel in C \
                 (see sil/README.md, \"Kernel models\")"
            ),
            Error::KernelModelRefused {
                module,
                kernel,
                why,
            } => write!(
                f,
                "SIL CUDA refused the model of kernel `{kernel}` of cubin `{module}`: {why}"
            ),
            Error::PvaProgramNotAllowed { program } => write!(
                f,
                "PVA program `{program}`: its VPU executable is not in the PVA allowlist (PVA \
                 authentication): on a target add its image with `nvidia-pva-allow` or the PVA \
                 SDK's pvasdkAllowlist.py; on sil call \
                 orin_exec::sil::allow_pva_program(<its sha256>) before init"
            ),
            Error::NoPvaProgramModel { program } => write!(
                f,
                "PVA program `{program}`: the SIL PVA has no model for its VPU executable: call \
                 orin_exec::sil::register_pva_program_model(\"{program}\", ..) before init"
            ),
            Error::PvaImage { program, status } => write!(
                f,
                "PVA program `{program}`: cuPVA refused its VPU executable ({status}): rebuild \
                 it with the PVA SDK and update the programs manifest"
            ),
            Error::PvaParam {
                program,
                param,
                status,
            } => write!(
                f,
                "PVA program `{program}`: parameter `{param}` of the programs manifest is not a \
                 parameter of that kind of its VPU executable (on sil: of its registered model) \
                 ({status}): make the manifest and the program agree"
            ),
            Error::PvaModelRefused { program, why } => {
                write!(
                    f,
                    "the SIL PVA refused the model of program `{program}`: {why}"
                )
            }
        }
    }
}

impl core::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T> = core::result::Result<T, Error>;

/// Covers: REQ-RT-010, REQ-API-008
#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::ToString;

    use super::*;

    /// What a caller does with an error: the kind is matched, never a string.
    fn retryable_after_init(e: Error) -> bool {
        matches!(
            e,
            Error::Phase(Phase::NvSciSyncNotOpen | Phase::NvSciBufNotOpen | Phase::GpuNotOpen)
        )
    }

    #[test]
    fn kinds_are_matched_and_displayed() {
        let full = Error::Capacity {
            table: Table::BufferCopies,
            limit: 8,
        };
        assert!(matches!(
            full,
            Error::Capacity {
                table: Table::BufferCopies,
                limit: 8
            }
        ));
        assert_ne!(
            full,
            Error::Capacity {
                table: Table::Buffers,
                limit: 8
            }
        );
        assert_eq!(
            full.to_string(),
            "capacity exceeded: at most 8 buffer copies"
        );

        let bad = Error::BadSchedule {
            fault: ScheduleFault::DeadlineBeyondPeriod,
            context: Context::Task("planner"),
        };
        assert!(matches!(
            bad,
            Error::BadSchedule {
                fault: ScheduleFault::DeadlineBeyondPeriod,
                context: Context::Task("planner"),
            }
        ));
        assert_eq!(
            bad.to_string(),
            "inconsistent schedule table: deadline beyond the period (task `planner`)"
        );

        let stopped = Error::Phase(Phase::SafeStopped);
        assert!(!retryable_after_init(stopped));
        assert!(retryable_after_init(Error::Phase(Phase::GpuNotOpen)));
        assert_eq!(
            stopped.to_string(),
            "not allowed in this phase: the executive made a safe stop"
        );

        let jit = Error::Platform(PlatformFact::PtxJitNotDisabled);
        assert_eq!(
            jit.to_string(),
            "platform check failed: CUDA_DISABLE_PTX_JIT is set to something other than 1"
        );

        let stale = Error::Misuse {
            misuse: Misuse::NotALiveDlaImport,
            context: Context::Engine("dla0"),
        };
        assert!(matches!(
            stale,
            Error::Misuse {
                misuse: Misuse::NotALiveDlaImport,
                ..
            }
        ));
        assert_eq!(
            stale.to_string(),
            "engine API misuse: not a live import of this DLA device (engine `dla0`)"
        );
    }

    /// Every kind has a message of its own (a copy-paste slip would give two the same text).
    #[test]
    fn kind_messages_are_distinct() {
        fn distinct<T: fmt::Display>(kinds: &[T]) {
            let texts: std::vec::Vec<_> = kinds.iter().map(T::to_string).collect();
            for (i, t) in texts.iter().enumerate() {
                assert!(!t.is_empty());
                assert!(!texts[..i].contains(t), "`{t}` twice");
            }
        }
        use Table as T;
        distinct(&[
            T::Modes,
            T::Tasks,
            T::WaitsPerTask,
            T::DependencyLag,
            T::Buffers,
            T::BufferCopies,
            T::CpuWorkers,
            T::Cubins,
            T::GpuStreams,
            T::DlaDevices,
            T::DlaImportsPerBuffer,
            T::DlaImportsPerSemaphore,
            T::DlaHandlesPerSemaphore,
            T::ImportsPerDlaDevice,
            T::PvaStreams,
            T::PvaExecutables,
            T::DlaTensors,
            T::DlaPreFences,
            T::AttributeListsPerSemaphore,
            T::BufferAttributes,
            T::EngineParents,
            T::KernelNameBytes,
            T::KernelParams,
            T::CubinVariants,
            T::TimingModelBins,
            T::PendingInjections,
            T::GraphNodes,
            T::OwedSignals,
        ]);
        use ScheduleFault as S;
        distinct(&[
            S::ZeroPeriodOrNoMode,
            S::EngineOutOfRange,
            S::DependencyOutOfOrder,
            S::BufferOutOfRange,
            S::DeadlineBeyondPeriod,
            S::BadMultiplicity,
            S::LoadableOutOfRange,
            S::CubinOutOfRange,
            S::DlaTaskWithoutDevice,
            S::GpuTaskWithoutStream,
            S::TensorBufferNotImported,
            S::ParamBufferNotOnGpu,
            S::DependencyNotOnGpu,
            S::NoSemaphoreForDependency,
            S::NoSemaphoreForCpuTask,
            S::KernelNotInCubin,
            S::PvaProgramOutOfRange,
            S::PvaTaskWithoutStream,
            S::ParamBufferNotOnPva,
            S::DependencyNotOnPva,
        ]);
        use PlatformFact as F;
        distinct(&[
            F::WorkerThreadNotStarted,
            F::PtxJitNotDisabled,
            F::ModuleLoadingNotEager,
            F::CudaEnvironmentNotSet,
            F::SilOnly,
            F::CountersOnlyOnRig,
            F::HostRegistrationOnlyOnRig,
        ]);
        use Phase as P;
        distinct(&[
            P::NvSciSyncNotOpen,
            P::NvSciBufNotOpen,
            P::GpuNotOpen,
            P::NoWaitContext,
            P::SafeStopped,
            P::InjectionIntoPlannedFrame,
            P::TaskNotPlanned,
            P::CpuResultMissing,
            P::DlaSemaphoreNotImported,
            P::GpuSemaphoreMissing,
            P::WorkerLostStep,
            P::NoGraph,
        ]);
        use InjectionRefusal as IR;
        distinct(&[
            IR::NoSuchTask,
            IR::NotADlaTask,
            IR::NotACpuTask,
            IR::NoDlaInjectionOnThisPlatform,
            IR::NotAPvaTask,
            IR::NoPvaInjectionOnThisPlatform,
        ]);
        use ModelStatus as MS;
        distinct(&[
            MS::NotRegistered,
            MS::OtherCubins,
            MS::KindsDisagree,
            MS::NotInCubin,
        ]);
        use RegisterFault as R;
        distinct(&[
            R::BadName,
            R::NoCubinHash,
            R::TooManyParams,
            R::InUse,
            R::HashTaken,
        ]);
        use ParamMismatch as PM;
        distinct(&[
            PM::Count { cubin: 4, given: 3 },
            PM::Size {
                cubin: 4,
                given: "ptr",
            },
            PM::Unsupported { size: 16 },
            PM::Kind {
                model: "ptr",
                given: "u64",
            },
        ]);
        use Misuse as M;
        distinct(&[
            M::NotALiveDlaImport,
            M::SemaphoreAsTensor,
            M::BufferAsSignal,
            M::ParamValueMismatch,
            M::ParamMissing,
            M::ParamBlockMismatch,
            M::NoAttributeList,
            M::NotPinnedHost,
            M::EmptyTimingHistogram,
            M::GraphNodeMismatch,
        ]);
    }
}
