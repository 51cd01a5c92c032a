//! The executive's state: what init builds and the run phase uses, in tables that live in the
//! application's [`Storage`](crate::exec::Storage), sized to its schedule.

use std::thread;

use heapless::vec::VecView;

use crate::engine::dla::{DlaDevice, DlaPtr};
use crate::engine::gpu::{
    Function, Gpu, GpuMemory, GpuModule, GpuSemaphore, ParamBlock, SlotKernel, Stream,
};
use crate::engine::nvsci::{BufModule, BufObj, CpuWaitContext, RawFence, SyncModule, SyncObj};
use crate::engine::pva::{PvaExecutable, PvaMem, PvaStream, PvaSync, PvaTask};
use crate::error::Result;
use crate::limits::*;
use crate::sync::SemaphoreLedger;
use crate::table::{EngineId, Schedule};

/// One copy of a buffer.
pub(crate) struct BufferCopy {
    pub obj: Option<BufObj>,
    pub gpu: Option<GpuMemory>,
    pub dla: heapless::Vec<(usize, DlaPtr), { crate::limits::MAX_DLA_HANDLES_PER_BUFFER }>,
    /// The PVA's import, when a PVA task passes the buffer to its program.
    pub pva: Option<PvaMem>,
}

/// The cuPVA stream of one PVA engine.
pub(crate) struct PvaStreamEntry {
    pub engine: EngineId,
    pub stream: PvaStream,
}

/// The executable of one PVA program.
pub(crate) struct PvaExecEntry {
    pub program: u16,
    pub exec: PvaExecutable,
}

pub(crate) struct DlaEntry {
    pub core: u8,
    pub loadable: u16,
    pub device: DlaDevice,
}

pub(crate) struct StreamEntry {
    pub engine: EngineId,
    pub stream: Stream,
    /// Graph-mode streams: the per-frame graph (built after the warm-up).
    pub graph: Option<crate::exec::graphs::StreamGraph>,
}

pub(crate) enum Submit {
    Cpu,
    Dla {
        device: usize,
        inputs: [[DlaPtr; MAX_TENSORS]; MAX_COPIES],
        outputs: [[DlaPtr; MAX_TENSORS]; MAX_COPIES],
        n_in: usize,
        n_out: usize,
    },
    Gpu {
        stream: usize,
        function: Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: [ParamBlock; MAX_COPIES],
        stamp: usize,
    },
    Pva {
        /// Index in the PVA task table.
        task: usize,
    },
}

/// The executive's per-task state.
pub(crate) struct TaskRt {
    pub ledger: SemaphoreLedger,
    pub dla_imports:
        heapless::Vec<(usize, DlaPtr), { crate::limits::MAX_DLA_HANDLES_PER_SEMAPHORE }>,
    pub submit: Submit,
    pub waits: [RawFence; MAX_WAITS],
    /// Per recent frame (`frame % FENCE_HISTORY`): the completion fence the engine returned.
    pub eof: [RawFence; FENCE_HISTORY],
    /// DLA tasks: the semaphore cuDLA signals when the task starts.
    pub start: Option<StartSignal>,
    pub monitor: RawFence,
    /// Per recent frame: when the task was submitted (accelerators) and when it ended.
    pub submitted_at: [u64; FENCE_HISTORY],
    pub ended_at: [(u64, u64); FENCE_HISTORY],
    pub failed_submit: Option<u64>,
    /// The semaphore as a cuPVA sync object, when a PVA task signals or waits on it.
    pub pva_sync: Option<PvaSync>,
    /// A task the monitor looks at only when due: how long after the release it may sleep
    /// for it (the earliest deadline of it and the tasks monitored after it).
    pub due_sleep_ns: u64,
}

/// A DLA task's start-of-frame semaphore: cuDLA signals it as the task starts, and the
/// timestamp of its SOF fence is the task's start on the DLA clock (CUDA for Tegra app note,
/// cuDLA timestamps; cudla.h `CUDLA_NVSCISYNC_FENCE_SOF`).
pub(crate) struct StartSignal {
    pub sem: SyncObj,
    /// The import on the task's DLA handle.
    pub import: DlaPtr,
    /// Per recent frame: the SOF fence cuDLA returned.
    pub fences: [RawFence; FENCE_HISTORY],
}

pub(crate) struct WorkerHandle {
    pub join: thread::JoinHandle<Result<()>>,
    pub thread: thread::Thread,
    /// What the OS granted the worker's thread at its start.
    pub grant: crate::engine::os::ThreadGrant,
}

/// GPU timer stamps: a `stamp_globaltimer` kernel writes the GPU time into pinned slots.
pub(crate) struct Stamps {
    pub module: GpuModule,
    /// `stamp_globaltimer` on `memory`'s slots (dropped before `memory` is released).
    pub kernel: SlotKernel,
    pub memory: GpuMemory,
    /// GPU time minus executive clock, ns.
    pub offset_ns: i64,
}

/// Executive-only state: views of the storage's tables, plus the library handles.
pub(crate) struct State {
    pub tasks: &'static mut VecView<TaskRt>,
    /// Completion semaphore of each task (same index).
    pub sems: &'static mut VecView<SyncObj>,
    /// How the GPU reaches each task's semaphore, if it does.
    pub gpu_sems: &'static mut VecView<Option<GpuSemaphore>>,
    /// Every copy of every buffer, buffer by buffer ([`copy_index`]).
    pub copies: &'static mut VecView<BufferCopy>,
    pub dlas: &'static mut VecView<DlaEntry>,
    pub pva_streams: &'static mut VecView<PvaStreamEntry>,
    pub pva_execs: &'static mut VecView<PvaExecEntry>,
    /// The PVA tasks' commands and fences (they stay where init put them).
    pub pva_tasks: &'static mut VecView<PvaTask>,
    pub streams: &'static mut VecView<StreamEntry>,
    pub modules: &'static mut VecView<GpuModule>,
    pub workers: &'static mut VecView<WorkerHandle>,
    pub gpu: Option<Gpu>,
    pub stamps: Option<Stamps>,
    /// DLA clock minus executive clock, ns (calibrated at init from the warm-up tasks).
    pub dla_offset_ns: i64,
    /// How far below `dla_offset_ns` the true offset may be, ns.
    pub dla_offset_window_ns: i64,
    pub sync_module: Option<SyncModule>,
    pub buf_module: Option<BufModule>,
    pub wait: Option<CpuWaitContext>,
}

/// The index of copy `copy` of buffer `buffer` in the per-copy tables: the copies of all
/// earlier buffers come first.
pub(crate) fn copy_index(offsets: &[u16], buffer: usize, copy: usize) -> usize {
    offsets
        .get(buffer)
        .map_or(usize::MAX, |&o| o as usize + copy)
}

/// Fill `offsets` with each buffer's first copy index.
pub(crate) fn copy_offsets(s: &Schedule, offsets: &mut [u16]) {
    let mut next = 0usize;
    for (o, b) in offsets.iter_mut().zip(s.buffers.iter()) {
        *o = next as u16;
        next += b.multiplicity as usize;
    }
}
