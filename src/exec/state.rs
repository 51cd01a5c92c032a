//! The executive's state: what init builds and the run phase uses, in fixed-capacity tables.

use std::thread;

use crate::engine::dla::{DlaDevice, DlaPtr};
use crate::engine::gpu::{Function, Gpu, GpuMemory, GpuModule, GpuSemaphore, ParamBlock, Stream};
use crate::engine::nvsci::{BufModule, BufObj, CpuWaitContext, RawFence, SyncModule, SyncObj};
use crate::error::Result;
use crate::limits::*;
use crate::sync::SemaphoreLedger;
use crate::table::EngineId;

/// One copy of a buffer.
pub(crate) struct BufferCopy {
    pub obj: Option<BufObj>,
    pub gpu: Option<GpuMemory>,
    pub dla: heapless::Vec<(usize, DlaPtr), 4>,
}

pub(crate) struct DlaEntry {
    pub core: u8,
    pub loadable: u16,
    pub device: DlaDevice,
}

pub(crate) struct StreamEntry {
    pub engine: EngineId,
    pub stream: Stream,
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
}

/// The executive's per-task state.
pub(crate) struct TaskRt {
    pub ledger: SemaphoreLedger,
    pub dla_imports: heapless::Vec<(usize, DlaPtr), 4>,
    pub submit: Submit,
    pub waits: [RawFence; MAX_WAITS],
    pub eof: RawFence,
    pub monitor: RawFence,
    /// Per recent frame: when the task was submitted (accelerators) and when it ended.
    pub submitted_at: [u64; FENCE_HISTORY],
    pub ended_at: [(u64, u64); FENCE_HISTORY],
    pub failed_submit: Option<u64>,
}

pub(crate) struct WorkerHandle {
    pub join: thread::JoinHandle<Result<()>>,
    pub thread: thread::Thread,
}

/// GPU timer stamps: a `stamp_globaltimer` kernel writes the GPU time into pinned slots.
pub(crate) struct Stamps {
    pub module: GpuModule,
    pub function: Function,
    pub memory: GpuMemory,
    /// GPU time minus executive clock, ns.
    pub offset_ns: i64,
}

/// Executive-only state.
pub(crate) struct State {
    pub tasks: heapless::Vec<TaskRt, MAX_TASKS>,
    /// Completion semaphore of each task (same index).
    pub sems: heapless::Vec<SyncObj, MAX_TASKS>,
    /// How the GPU reaches each task's semaphore, if it does.
    pub gpu_sems: heapless::Vec<Option<GpuSemaphore>, MAX_TASKS>,
    pub buffers: heapless::Vec<heapless::Vec<BufferCopy, MAX_COPIES>, MAX_BUFFERS>,
    pub dlas: heapless::Vec<DlaEntry, MAX_LOADABLES>,
    pub streams: heapless::Vec<StreamEntry, 8>,
    pub modules: heapless::Vec<GpuModule, MAX_CUBINS>,
    pub workers: heapless::Vec<WorkerHandle, MAX_CPU_WORKERS>,
    pub gpu: Option<Gpu>,
    pub stamps: Option<Stamps>,
    pub sync_module: Option<SyncModule>,
    pub buf_module: Option<BufModule>,
    pub wait: Option<CpuWaitContext>,
}

impl State {
    pub(crate) const fn new() -> Self {
        State {
            tasks: heapless::Vec::new(),
            sems: heapless::Vec::new(),
            gpu_sems: heapless::Vec::new(),
            buffers: heapless::Vec::new(),
            dlas: heapless::Vec::new(),
            streams: heapless::Vec::new(),
            modules: heapless::Vec::new(),
            workers: heapless::Vec::new(),
            gpu: None,
            stamps: None,
            sync_module: None,
            buf_module: None,
            wait: None,
        }
    }
}
