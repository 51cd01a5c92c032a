//! The runtime's capacities: one list that [`Schedule::check`](crate::Schedule::check), the
//! schedule validator (`orin-exec check`, an application's `build.rs`), the runtime's init and
//! the limits table of `docs/schedule.md` all take their values from.
//!
//! Tables the runtime sizes to the schedule (tasks per CPU worker, buffer copies, CPU workers,
//! the trace ring: the generated `Storage`) have no entry: they cannot overflow.

use crate::check::{MAX_BUFFERS, MAX_MODES, MAX_STREAM_OPS, MAX_TASKS};

/// Copies of one buffer (multiplicity): submission data is prepared per copy index
/// `frame % MAX_COPIES`, so a multiplicity must divide it.
pub const MAX_COPIES: usize = 4;
/// Fences one task waits for per frame (the runtime's per-task wait vectors; cuDLA allows 29
/// pre-fences).
pub const MAX_WAITS: usize = 16;
/// Kernel parameters per launch (the runtime's parameter blocks).
pub const MAX_PARAMS: usize = 16;
/// Input tensors, and output tensors, per loadable (the runtime's descriptor arrays).
pub const MAX_TENSORS: usize = 8;
/// Frames of fence history kept per task: it must exceed the largest dependency lag plus the
/// frame in flight and the frame being planned, hence [`MAX_LAG`].
pub const FENCE_HISTORY: usize = 8;
/// The largest dependency lag (`after = ["x@-N"]`): `FENCE_HISTORY - 2`.
pub const MAX_LAG: usize = FENCE_HISTORY - 2;
/// The alignment in bytes every buffer a DLA task uses must have at least (cuDLA's
/// requirement on registered memory).
pub const DLA_ALIGN: u64 = 32;
/// Nodes of one CUDA graph: a graph-mode GPU engine's tasks of one frame, each with its
/// waits (those its stream does not order already), two timer stamps, the launch and the
/// signal.
pub const MAX_GRAPH_NODES: usize = 64;
/// Bytes of a kernel's entry name (the runtime copies it into a NUL-terminated buffer).
pub const MAX_KERNEL_NAME: usize = 127;
/// Bytes of a PVA program parameter's symbol name (the runtime copies it into a
/// NUL-terminated buffer to look the parameter up in the VPU executable).
pub const MAX_PVA_SYMBOL: usize = 127;
/// Graph nodes of a GPU task besides its waits: two timer stamps, the launch, the signal.
pub const GRAPH_NODES_PER_TASK: usize = 4;
/// DLA device handles one buffer is imported into. The runtime opens one cuDLA device handle
/// per network and DLA core; a buffer is imported into each handle whose tasks use it.
pub const MAX_DLA_HANDLES_PER_BUFFER: usize = 4;
/// DLA device handles one task's completion semaphore is imported into: the task's own (a DLA
/// task) and those of the DLA tasks that wait for it.
pub const MAX_DLA_HANDLES_PER_SEMAPHORE: usize = 4;
/// Imports into one DLA device handle: every copy of each buffer its tasks use, the completion
/// semaphore of each task it signals or waits for, and one start semaphore per task it runs.
pub const MAX_DLA_IMPORTS: usize = 128;

/// How a [`Limit`] bounds its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Bound {
    /// At most this many.
    AtMost(u64),
    /// At least this much.
    AtLeast(u64),
    /// A divisor of this (and not 0).
    DivisorOf(u64),
}

impl Bound {
    /// Whether `value` is within the bound.
    ///
    /// ```
    /// use orin_exec_table::Bound;
    /// assert!(Bound::DivisorOf(4).admits(2));
    /// assert!(!Bound::DivisorOf(4).admits(3));
    /// assert!(!Bound::AtMost(6).admits(7));
    /// ```
    pub const fn admits(self, value: u64) -> bool {
        match self {
            Bound::AtMost(max) => value <= max,
            Bound::AtLeast(min) => value >= min,
            Bound::DivisorOf(n) => value != 0 && n % value == 0,
        }
    }
}

/// A capacity of the runtime that a schedule must fit.
///
/// ```
/// use orin_exec_table::{Bound, Limit};
/// assert_eq!(Limit::Lag.bound(), Bound::AtMost(6));
/// assert!(Limit::ALL.iter().all(|l| !l.counts().is_empty()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Limit {
    /// Tasks per schedule ([`MAX_TASKS`]).
    Tasks,
    /// Buffers per schedule ([`MAX_BUFFERS`]).
    Buffers,
    /// Modes per schedule ([`MAX_MODES`]).
    Modes,
    /// Frames submitted ahead (`lookahead`).
    Lookahead,
    /// Copies of one buffer ([`MAX_COPIES`]).
    Multiplicity,
    /// Waits of one task ([`MAX_WAITS`]).
    Waits,
    /// Frames one dependency looks back ([`MAX_LAG`]).
    Lag,
    /// Parameters of one kernel launch ([`MAX_PARAMS`]).
    KernelParams,
    /// Bytes of a kernel's name ([`MAX_KERNEL_NAME`]).
    KernelName,
    /// Input tensors of one loadable ([`MAX_TENSORS`]).
    LoadableInputs,
    /// Output tensors of one loadable ([`MAX_TENSORS`]).
    LoadableOutputs,
    /// Alignment of a buffer a DLA task uses ([`DLA_ALIGN`]).
    DlaAlign,
    /// Operations one GPU stream holds ([`MAX_STREAM_OPS`]).
    StreamOps,
    /// Nodes of one graph-mode GPU engine's graph ([`MAX_GRAPH_NODES`]).
    GraphNodes,
    /// DLA device handles one buffer is imported into ([`MAX_DLA_HANDLES_PER_BUFFER`]).
    DlaHandlesPerBuffer,
    /// DLA device handles one task's semaphore is imported into
    /// ([`MAX_DLA_HANDLES_PER_SEMAPHORE`]).
    DlaHandlesPerSemaphore,
    /// Imports into one DLA device handle ([`MAX_DLA_IMPORTS`]).
    DlaImports,
    /// Parameters of one PVA program launch ([`MAX_PARAMS`]).
    PvaParams,
    /// Bytes of a PVA program parameter's symbol name ([`MAX_PVA_SYMBOL`]).
    PvaSymbol,
}

impl Limit {
    /// Every limit, in the order of the docs table.
    pub const ALL: [Limit; 19] = [
        Limit::Tasks,
        Limit::Buffers,
        Limit::Modes,
        Limit::Lookahead,
        Limit::Multiplicity,
        Limit::Waits,
        Limit::Lag,
        Limit::KernelParams,
        Limit::KernelName,
        Limit::LoadableInputs,
        Limit::LoadableOutputs,
        Limit::DlaAlign,
        Limit::StreamOps,
        Limit::GraphNodes,
        Limit::DlaHandlesPerBuffer,
        Limit::DlaHandlesPerSemaphore,
        Limit::DlaImports,
        Limit::PvaParams,
        Limit::PvaSymbol,
    ];

    /// The bound, from the constants above.
    pub const fn bound(self) -> Bound {
        match self {
            Limit::Tasks => Bound::AtMost(MAX_TASKS as u64),
            Limit::Buffers => Bound::AtMost(MAX_BUFFERS as u64),
            Limit::Modes => Bound::AtMost(MAX_MODES as u64),
            Limit::Lookahead => Bound::AtMost(1),
            Limit::Multiplicity => Bound::DivisorOf(MAX_COPIES as u64),
            Limit::Waits => Bound::AtMost(MAX_WAITS as u64),
            Limit::Lag => Bound::AtMost(MAX_LAG as u64),
            Limit::KernelParams => Bound::AtMost(MAX_PARAMS as u64),
            Limit::KernelName => Bound::AtMost(MAX_KERNEL_NAME as u64),
            Limit::LoadableInputs | Limit::LoadableOutputs => Bound::AtMost(MAX_TENSORS as u64),
            Limit::DlaAlign => Bound::AtLeast(DLA_ALIGN),
            Limit::StreamOps => Bound::AtMost(MAX_STREAM_OPS as u64),
            Limit::GraphNodes => Bound::AtMost(MAX_GRAPH_NODES as u64),
            Limit::DlaHandlesPerBuffer => Bound::AtMost(MAX_DLA_HANDLES_PER_BUFFER as u64),
            Limit::DlaHandlesPerSemaphore => Bound::AtMost(MAX_DLA_HANDLES_PER_SEMAPHORE as u64),
            Limit::DlaImports => Bound::AtMost(MAX_DLA_IMPORTS as u64),
            Limit::PvaParams => Bound::AtMost(MAX_PARAMS as u64),
            Limit::PvaSymbol => Bound::AtMost(MAX_PVA_SYMBOL as u64),
        }
    }

    /// Whether `value` fits.
    pub const fn admits(self, value: u64) -> bool {
        self.bound().admits(value)
    }

    /// What the limit applies to: `schedule`, `buffer`, `task`, `network`, `engine` or
    /// `program` (a PVA program).
    pub const fn item(self) -> &'static str {
        match self {
            Limit::Tasks | Limit::Buffers | Limit::Modes | Limit::Lookahead => "schedule",
            Limit::Multiplicity | Limit::DlaAlign | Limit::DlaHandlesPerBuffer => "buffer",
            Limit::Waits
            | Limit::Lag
            | Limit::KernelParams
            | Limit::KernelName
            | Limit::DlaHandlesPerSemaphore
            | Limit::PvaParams => "task",
            Limit::LoadableInputs | Limit::LoadableOutputs | Limit::DlaImports => "network",
            Limit::StreamOps | Limit::GraphNodes => "engine",
            Limit::PvaSymbol => "program",
        }
    }

    /// The message for `value` of the item `name` beyond the limit: what `Schedule::check`
    /// and the validator both say.
    ///
    /// ```
    /// use orin_exec_table::Limit;
    /// assert_eq!(
    ///     Limit::Waits.exceeded("fuse", 17).to_string(),
    ///     "task `fuse`: 17 waits of one task (`after` entries); the runtime takes at most 16 \
    ///      (`MAX_WAITS`)"
    /// );
    /// ```
    pub const fn exceeded(self, name: &str, value: u64) -> Exceeded<'_> {
        Exceeded {
            limit: self,
            name,
            value,
        }
    }

    /// What is counted or measured, per what.
    pub const fn counts(self) -> &'static str {
        match self {
            Limit::Tasks => "tasks per schedule",
            Limit::Buffers => "buffers per schedule",
            Limit::Modes => "modes per schedule",
            Limit::Lookahead => "frames submitted ahead (`lookahead`)",
            Limit::Multiplicity => "copies of one buffer (`multiplicity`)",
            Limit::Waits => "waits of one task (`after` entries)",
            Limit::Lag => "frames one dependency looks back (`after = [\"x@-N\"]`)",
            Limit::KernelParams => "parameters of one GPU task (`params`)",
            Limit::KernelName => "bytes of a kernel's name (`kernel`)",
            Limit::LoadableInputs => "input tensors of one DLA network",
            Limit::LoadableOutputs => "output tensors of one DLA network",
            Limit::DlaAlign => "alignment in bytes of a buffer a DLA task uses (`align`)",
            Limit::StreamOps => {
                "operations one GPU stream holds: (4 + waits) per GPU task x (1 + lookahead)"
            }
            Limit::GraphNodes => {
                "nodes of a graph-mode GPU engine's graph: (4 + waits not ordered by the stream) per task"
            }
            Limit::DlaHandlesPerBuffer => {
                "DLA device handles (one per network and DLA core) whose tasks use one buffer"
            }
            Limit::DlaHandlesPerSemaphore => {
                "DLA device handles that signal or wait for one task's semaphore (its own, and those of the DLA tasks waiting for it)"
            }
            Limit::DlaImports => {
                "imports into the DLA device handle of a network on one core: buffer copies its tasks use, semaphores they signal or wait for, one start semaphore per task"
            }
            Limit::PvaParams => "parameters of one PVA task (`params`)",
            Limit::PvaSymbol => "bytes of a PVA program parameter's symbol name (`name`)",
        }
    }

    /// The constant that holds the value (in `orin_exec_table`, re-exported by
    /// `orin_exec::limits`).
    pub const fn constant(self) -> &'static str {
        match self {
            Limit::Tasks => "MAX_TASKS",
            Limit::Buffers => "MAX_BUFFERS",
            Limit::Modes => "MAX_MODES",
            Limit::Lookahead => "-",
            Limit::Multiplicity => "MAX_COPIES",
            Limit::Waits => "MAX_WAITS",
            Limit::Lag => "MAX_LAG",
            Limit::KernelParams => "MAX_PARAMS",
            Limit::KernelName => "MAX_KERNEL_NAME",
            Limit::LoadableInputs | Limit::LoadableOutputs => "MAX_TENSORS",
            Limit::DlaAlign => "DLA_ALIGN",
            Limit::StreamOps => "MAX_STREAM_OPS",
            Limit::GraphNodes => "MAX_GRAPH_NODES",
            Limit::DlaHandlesPerBuffer => "MAX_DLA_HANDLES_PER_BUFFER",
            Limit::DlaHandlesPerSemaphore => "MAX_DLA_HANDLES_PER_SEMAPHORE",
            Limit::DlaImports => "MAX_DLA_IMPORTS",
            Limit::PvaParams => "MAX_PARAMS",
            Limit::PvaSymbol => "MAX_PVA_SYMBOL",
        }
    }

    /// Why the runtime has the limit.
    pub const fn reason(self) -> &'static str {
        match self {
            Limit::Tasks => "task sets are 64-bit masks",
            Limit::Buffers => "per-buffer task sets are fixed arrays",
            Limit::Modes => "mode sets are 32-bit masks",
            Limit::Lookahead => "the executive plans one frame ahead at most",
            Limit::Multiplicity => "submission data is prepared per copy index `frame % 4`",
            Limit::Waits => "each task's wait vector is a fixed array",
            Limit::Lag => {
                "fences are kept for 8 frames: the lag, the frame in flight and the one being planned"
            }
            Limit::KernelParams => "parameter blocks are fixed arrays",
            Limit::KernelName => {
                "the name is passed to the driver NUL-terminated from a fixed buffer"
            }
            Limit::LoadableInputs | Limit::LoadableOutputs => "tensor descriptors are fixed arrays",
            Limit::DlaAlign => "cuDLA registers memory at 32-byte alignment",
            Limit::StreamOps => {
                "the CUDA driver blocks the enqueuer at about 1,000 pending operations"
            }
            Limit::GraphNodes => "a graph's node table is a fixed array",
            Limit::DlaHandlesPerBuffer | Limit::DlaHandlesPerSemaphore => {
                "each buffer copy and semaphore keeps its DLA imports in a fixed array"
            }
            Limit::DlaImports => "each DLA device handle keeps its imports in a fixed array",
            Limit::PvaParams => "parameter blocks are fixed arrays",
            Limit::PvaSymbol => "the name is passed to cuPVA NUL-terminated from a fixed buffer",
        }
    }
}

/// [`Limit::exceeded`]: the message for a value beyond a limit.
#[derive(Clone, Copy, Debug)]
pub struct Exceeded<'a> {
    limit: Limit,
    name: &'a str,
    value: u64,
}

impl core::fmt::Display for Exceeded<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let l = self.limit;
        write!(
            f,
            "{} `{}`: {} {}; ",
            l.item(),
            self.name,
            self.value,
            l.counts()
        )?;
        match l.bound() {
            Bound::AtMost(max) => write!(f, "the runtime takes at most {max}"),
            Bound::AtLeast(min) => write!(f, "the runtime needs at least {min}"),
            Bound::DivisorOf(n) => write!(f, "the runtime takes a divisor of {n}"),
        }?;
        match l.constant() {
            "-" => Ok(()),
            c => write!(f, " (`{c}`)"),
        }
    }
}
