//! Device handles, their imports, the loaded module, the task queue and the fault table.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use cudla_sys::{cudlaModuleTensorDescriptor, cudlaStatus};
use nvsci_sys::{NvSciBufObj, NvSciSyncObj};
use sil_common::timing::{TimingModel, TimingSampler};
use sil_onnx::{Model, OnnxError, Scratch, dla};

use crate::limits::*;
use crate::nvsci::{self, OwnedFence};

/// Locks a mutex, ignoring poisoning (a panic elsewhere must not take the library down).
pub(crate) use sil_common::handle::lock;

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

/// A fresh, process-unique device pointer token (4 KiB aligned, never a CPU address).
pub(crate) fn new_token() -> u64 {
    TOKEN_BASE + NEXT_TOKEN.fetch_add(1, Ordering::Relaxed) * TOKEN_STRIDE
}

/// An imported NvSciBuf object.
pub(crate) struct Mem {
    /// The device pointer token handed to the application.
    pub token: u64,
    /// Our duplicate of the application's handle (freed on drop).
    obj: NvSciBufObj,
    /// Backing memory (from `NvSciBufSilObjGetMemory`).
    pub ptr: *mut u8,
    /// Bytes usable by the DLA: the `size` given at import.
    pub size: u64,
    /// Imported with `CUDLA_READ_ONLY_PERM`.
    pub read_only: bool,
    /// Imported with `CUDLA_TASK_STATISTICS` (a layer-statistics buffer).
    pub stats: bool,
}

// SAFETY: `obj` is an NvSciBuf handle (thread-safe by NvSciBuf's contract) and `ptr` points
// to memory owned by that object, which our duplicate keeps alive; this type never hands out
// references to the memory itself.
unsafe impl Send for Mem {}
// SAFETY: as above; all fields are read-only after construction.
unsafe impl Sync for Mem {}

impl Mem {
    /// Wraps an imported buffer.
    pub(crate) fn new(
        obj: NvSciBufObj,
        ptr: *mut u8,
        size: u64,
        read_only: bool,
        stats: bool,
    ) -> Self {
        Mem {
            token: new_token(),
            obj,
            ptr,
            size,
            read_only,
            stats,
        }
    }

    /// Whether `[ptr, ptr + size)` overlaps another import's range.
    pub(crate) fn overlaps(&self, other: &Mem) -> bool {
        let (a0, a1) = (self.ptr as usize, self.ptr as usize + self.size as usize);
        let (b0, b1) = (other.ptr as usize, other.ptr as usize + other.size as usize);
        a0 < b1 && b0 < a1
    }
}

impl Drop for Mem {
    fn drop(&mut self) {
        // SAFETY: `obj` is the duplicate made at import; this is its only free.
        unsafe { nvsci::buf_obj_free(self.obj) };
    }
}

/// The primitive behind an imported NvSciSync object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncKind {
    /// A sync point (at most one per task's signal events).
    Syncpoint,
    /// A semaphore whose list requires deterministic fences (needs no fence placeholder).
    DeterministicSemaphore,
}

/// An imported NvSciSync object: a sync point or a deterministic semaphore.
pub(crate) struct Sem {
    /// The device pointer token handed to the application.
    pub token: u64,
    /// Our duplicate of the application's handle (freed on drop).
    pub obj: NvSciSyncObj,
    /// Identity of the object (its reconciled attribute list, shared by every duplicate).
    pub identity: usize,
    /// What the object is.
    pub kind: SyncKind,
}

// SAFETY: `obj` is an NvSciSync handle (thread-safe by NvSciSync's contract); the other
// fields are plain values.
unsafe impl Send for Sem {}
// SAFETY: as above.
unsafe impl Sync for Sem {}

impl Sem {
    /// Wraps an imported object.
    pub(crate) fn new(obj: NvSciSyncObj, identity: usize, kind: SyncKind) -> Self {
        Sem {
            token: new_token(),
            obj,
            identity,
            kind,
        }
    }
}

impl Drop for Sem {
    fn drop(&mut self) {
        // SAFETY: `obj` is the duplicate made at import; this is its only free.
        unsafe { nvsci::sync_obj_free(self.obj) };
    }
}

/// One entry of a handle's import registry.
pub(crate) enum Import {
    /// Memory from `cudlaImportExternalMemory`.
    Mem(Arc<Mem>),
    /// A semaphore from `cudlaImportExternalSemaphore`.
    Sem(Arc<Sem>),
}

impl Import {
    /// The device pointer token.
    pub(crate) fn token(&self) -> u64 {
        match self {
            Import::Mem(m) => m.token,
            Import::Sem(s) => s.token,
        }
    }
}

/// The buffers a run of the network uses, allocated at load: the interpreter's scratch and
/// the dense tensors between the DLA's strided buffers and the interpreter.
pub(crate) struct Exec {
    /// The interpreter's run-time tensors.
    pub scratch: Scratch,
    /// Dense copies of the inputs.
    pub inputs: Vec<Vec<u8>>,
    /// Dense outputs.
    pub outputs: Vec<Vec<u8>>,
}

/// A loaded ONNX network and the memory it runs in.
pub(crate) struct Net {
    /// The validated network.
    pub model: Model,
    /// Its inputs' DLA descriptors (int8 `kDLA_LINEAR`).
    pub inputs: Vec<dla::DlaTensorDesc>,
    /// Its outputs' DLA descriptors.
    pub outputs: Vec<dla::DlaTensorDesc>,
    /// Run-time memory (one task at a time per handle; the mutex is uncontended).
    pub exec: Mutex<Exec>,
}

/// Why an image is not a module.
#[derive(Debug)]
pub(crate) enum LoadError {
    /// Not an ONNX model (e.g. a real, TensorRT-built loadable, which only a real DLA runs).
    NotOnnx,
    /// An ONNX model the SIL DLA refuses.
    Onnx(OnnxError),
}

/// A loaded module: a SIL loadable, or the internal fault-diagnostics module.
pub(crate) struct Module {
    /// The module handle handed to the application.
    pub token: u64,
    /// The network (None for the diagnostics module).
    pub net: Option<Net>,
    /// Input descriptors as cuDLA reports them.
    pub inputs: Vec<cudlaModuleTensorDescriptor>,
    /// Output descriptors as cuDLA reports them.
    pub outputs: Vec<cudlaModuleTensorDescriptor>,
    /// Task-statistics descriptors as cuDLA reports them.
    pub stats: Vec<cudlaModuleTensorDescriptor>,
}

fn to_desc(d: &dla::DlaTensorDesc) -> cudlaModuleTensorDescriptor {
    let mut name = [0u8; 81];
    for (dst, &src) in name.iter_mut().zip(d.name.as_bytes().iter().take(80)) {
        *dst = src;
    }
    let [n, c, h, w] = d.dims;
    cudlaModuleTensorDescriptor {
        name: c_name(&name),
        size: d.size,
        n: n.into(),
        c: c.into(),
        h: h.into(),
        w: w.into(),
        dataFormat: d.data_format,
        dataType: d.data_type,
        dataCategory: d.data_category,
        pixelFormat: d.pixel_format,
        pixelMapping: d.pixel_mapping,
        stride: d.strides,
    }
}

/// A `char name[81]` from NUL-padded bytes.
pub(crate) fn c_name(bytes: &[u8; 81]) -> [core::ffi::c_char; 81] {
    let mut name = [0 as core::ffi::c_char; 81];
    for (dst, src) in name.iter_mut().zip(bytes.iter()) {
        *dst = *src as core::ffi::c_char;
    }
    name
}

/// A statistics buffer as a descriptor: `size` bytes of raw records, reported as a
/// 1 × 1 × 1 × size uint8 buffer (the fields are the SIL's choice; see `sil/README.md`).
pub(crate) fn byte_buffer_desc(name: &[u8; 81], size: u64) -> cudlaModuleTensorDescriptor {
    let s = u32::try_from(size).unwrap_or(u32::MAX);
    cudlaModuleTensorDescriptor {
        name: c_name(name),
        size,
        n: 1,
        c: 1,
        h: 1,
        w: size,
        dataFormat: cudla_sys::CUDLA_DATA_FORMAT_UNKNOWN,
        dataType: cudla_sys::CUDLA_DATA_TYPE_UINT8,
        dataCategory: cudla_sys::CUDLA_DATA_CATEGORY_FEATURE,
        pixelFormat: cudla_sys::CUDLA_PIXEL_FORMAT_UNKNOWN,
        pixelMapping: cudla_sys::CUDLA_PIXEL_MAPPING_PITCH_LINEAR,
        stride: [1, s, s, s, 0, 0, 0, 0],
    }
}

impl Module {
    /// Loads an ONNX network (recognised by content: a protobuf `ModelProto` with a graph),
    /// validating it completely, and allocates everything its runs need.
    pub(crate) fn load(image: &[u8], token: u64) -> Result<Self, LoadError> {
        if !sil_onnx::is_onnx(image) {
            return Err(LoadError::NotOnnx);
        }
        let model = Model::load(image).map_err(LoadError::Onnx)?;
        let in_descs: Vec<_> = model.inputs().iter().map(dla::linear_desc).collect();
        let out_descs: Vec<_> = model.outputs().iter().map(dla::linear_desc).collect();
        let exec = Exec {
            scratch: model.scratch(),
            inputs: model.inputs().iter().map(|t| vec![0; t.len()]).collect(),
            outputs: model.outputs().iter().map(|t| vec![0; t.len()]).collect(),
        };
        let stats = model
            .statistics()
            .iter()
            .map(|s| {
                let mut name = [0u8; 81];
                for (d, &b) in name.iter_mut().zip(s.name.as_bytes().iter().take(80)) {
                    *d = b;
                }
                byte_buffer_desc(&name, crate::stats::raw_size(s) as u64)
            })
            .collect();
        Ok(Module {
            token,
            inputs: in_descs.iter().map(to_desc).collect(),
            outputs: out_descs.iter().map(to_desc).collect(),
            stats,
            net: Some(Net {
                model,
                inputs: in_descs,
                outputs: out_descs,
                exec: Mutex::new(exec),
            }),
        })
    }

    /// The internal fault-diagnostics module: no inputs, one result output.
    pub(crate) fn diagnostics(token: u64) -> Self {
        Module {
            token,
            net: None,
            inputs: Vec::new(),
            outputs: vec![crate::diag::descriptor()],
            stats: Vec::new(),
        }
    }

    /// Whether this is the fault-diagnostics module.
    pub(crate) fn is_diagnostics(&self) -> bool {
        self.net.is_none()
    }
}

/// An object a task signals, and when.
pub(crate) struct Signal {
    /// The imported object.
    pub sem: Arc<Sem>,
    /// Signal at start of frame (`CUDLA_NVSCISYNC_FENCE_SOF`) instead of at the end.
    pub sof: bool,
}

/// Fault effects resolved for one task at submit time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FaultEffect {
    /// Never completes (until the device is destroyed).
    pub hang: bool,
    /// Extra execution time.
    pub extra_ns: u64,
    /// Asynchronous error to report after completion (0 = none).
    pub async_status: i32,
    /// Flip the bytes of output tensor 0 after the run.
    pub corrupt: bool,
    /// Permanent fault: diagnostics report this failed-check mask (0 = none).
    pub permanent_mask: u32,
}

/// An injected fault rule (`cudlaSilFault`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FaultRule {
    /// `CUDLA_SIL_FAULT_*`.
    pub kind: u32,
    /// Status for the async-error kind.
    pub status: i32,
    /// Tasks still to pass before the rule applies.
    pub skip: u64,
    /// Tasks still to affect (0 = unlimited).
    pub remaining: u64,
    /// Delay for the late kind.
    pub extra_ns: u64,
}

/// What a queue entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A regular task (or a NOOP task).
    Task,
    /// A fault-diagnostics task (`CUDLA_SUBMIT_DIAGNOSTICS_TASK`).
    Diagnostics,
    /// Signals promised by an event-only submission that a later one replaced: they are
    /// kept in FIFO order and signalled when the worker gets here (no work, no faults).
    Release,
}

/// One queued task.
pub(crate) struct Entry {
    /// What it is.
    pub kind: EntryKind,
    /// Submission sequence number on this handle.
    pub seq: u64,
    /// SIL clock at submission.
    pub submit_ns: u64,
    /// `CUDLA_SUBMIT_NOOP`.
    pub noop: bool,
    /// The module to run.
    pub module: Option<Arc<Module>>,
    /// Input buffers (first `n_in`).
    pub inputs: [Option<Arc<Mem>>; MAX_IO],
    /// Output buffers (first `n_out`).
    pub outputs: [Option<Arc<Mem>>; MAX_IO],
    /// Statistics buffers (first `n_stats`).
    pub stats: [Option<Arc<Mem>>; MAX_STATS],
    /// Number of inputs.
    pub n_in: usize,
    /// Number of outputs.
    pub n_out: usize,
    /// Number of statistics buffers (0: no layer statistics for this task).
    pub n_stats: usize,
    /// Pre-fences (our duplicates; first `n_waits`).
    pub waits: [OwnedFence; MAX_PRE_AND_SOF],
    /// Number of pre-fences.
    pub n_waits: usize,
    /// Objects to signal (first `n_signals`).
    pub signals: [Option<Signal>; MAX_SIGNALS],
    /// Number of signals.
    pub n_signals: usize,
    /// Injected faults.
    pub fault: FaultEffect,
}

impl Entry {
    /// An empty entry.
    pub(crate) fn new(kind: EntryKind) -> Self {
        Entry {
            kind,
            seq: 0,
            submit_ns: 0,
            noop: false,
            module: None,
            inputs: [const { None }; MAX_IO],
            outputs: [const { None }; MAX_IO],
            stats: [const { None }; MAX_STATS],
            n_in: 0,
            n_out: 0,
            n_stats: 0,
            waits: [const { OwnedFence::CLEARED }; MAX_PRE_AND_SOF],
            n_waits: 0,
            signals: [const { None }; MAX_SIGNALS],
            n_signals: 0,
            fault: FaultEffect::default(),
        }
    }

    /// Appends a signal (the caller keeps within [`MAX_SIGNALS`]).
    pub(crate) fn push_signal(&mut self, s: Signal) {
        if let Some(slot) = self.signals.get_mut(self.n_signals) {
            *slot = Some(s);
            self.n_signals += 1;
        }
    }
}

/// Waits and signals queued by an event-only submission for the next real task.
pub(crate) struct Pending {
    /// Pre-fences for the first task of the next submission.
    pub waits: [OwnedFence; MAX_PRE_AND_SOF],
    /// Number of queued pre-fences.
    pub n_waits: usize,
    /// Signals for the last task of the next submission (their values are reserved).
    pub signals: [Option<Signal>; MAX_SIGNALS],
    /// Number of queued signals.
    pub n_signals: usize,
}

impl Pending {
    fn new() -> Self {
        Pending {
            waits: [const { OwnedFence::CLEARED }; MAX_PRE_AND_SOF],
            n_waits: 0,
            signals: [const { None }; MAX_SIGNALS],
            n_signals: 0,
        }
    }

    /// Drops the queued pre-fences.
    pub(crate) fn clear_waits(&mut self) {
        for w in &mut self.waits[..self.n_waits] {
            w.clear();
        }
        self.n_waits = 0;
    }

    /// Queued signals: (number, SOF among them, sync points among them).
    pub(crate) fn signal_counts(&self) -> (usize, usize, usize) {
        let mut sof = 0;
        let mut sp = 0;
        for s in self.signals[..self.n_signals].iter().flatten() {
            sof += usize::from(s.sof);
            sp += usize::from(s.sem.kind == SyncKind::Syncpoint);
        }
        (self.n_signals, sof, sp)
    }

    /// Moves the queued signals into `e` (appended to its own).
    pub(crate) fn take_signals_into(&mut self, e: &mut Entry) {
        for s in &mut self.signals[..self.n_signals] {
            if let Some(sig) = s.take() {
                e.push_signal(sig);
            }
        }
        self.n_signals = 0;
    }

    /// Drops everything queued (device destroyed: the promised values are never reached).
    pub(crate) fn reset(&mut self) {
        self.clear_waits();
        for s in &mut self.signals {
            *s = None;
        }
        self.n_signals = 0;
    }
}

/// State changed by API calls (under the device lock).
pub(crate) struct DevState {
    /// The loaded module.
    pub module: Option<Arc<Module>>,
    /// A module was loaded at some point (only one load per handle lifetime).
    pub module_loaded_once: bool,
    /// Imported memory and semaphores.
    pub imports: Vec<Import>,
    /// Event-only submission state.
    pub pending: Pending,
    /// Injected fault rules.
    pub faults: [Option<FaultRule>; MAX_FAULTS],
    /// Next submission sequence number.
    pub next_seq: u64,
}

impl DevState {
    /// Finds an imported memory token.
    pub(crate) fn find_mem(&self, token: u64) -> Option<&Arc<Mem>> {
        self.imports.iter().find_map(|i| match i {
            Import::Mem(m) if m.token == token => Some(m),
            _ => None,
        })
    }

    /// Finds an imported semaphore token.
    pub(crate) fn find_sem(&self, token: u64) -> Option<&Arc<Sem>> {
        self.imports.iter().find_map(|i| match i {
            Import::Sem(s) if s.token == token => Some(s),
            _ => None,
        })
    }

    /// Resolves the fault rules for the next submitted task and advances them.
    pub(crate) fn next_fault(&mut self) -> FaultEffect {
        let mut eff = FaultEffect::default();
        for slot in &mut self.faults {
            let Some(rule) = slot else { continue };
            if rule.skip > 0 {
                rule.skip -= 1;
                continue;
            }
            match rule.kind {
                cudla_sys::sil::CUDLA_SIL_FAULT_HANG => eff.hang = true,
                cudla_sys::sil::CUDLA_SIL_FAULT_LATE => {
                    eff.extra_ns = eff.extra_ns.saturating_add(rule.extra_ns)
                }
                cudla_sys::sil::CUDLA_SIL_FAULT_ASYNC_ERROR => eff.async_status = rule.status,
                cudla_sys::sil::CUDLA_SIL_FAULT_CORRUPT_OUTPUT => eff.corrupt = true,
                cudla_sys::sil::CUDLA_SIL_FAULT_PERMANENT => {
                    eff.permanent_mask |= if rule.status == 0 {
                        1
                    } else {
                        rule.status as u32
                    }
                }
                _ => {}
            }
            if rule.remaining > 0 {
                rule.remaining -= 1;
                if rule.remaining == 0 {
                    *slot = None;
                }
            }
        }
        eff
    }
}

/// The bounded FIFO between `cudlaSubmitTask` and the worker.
pub(crate) struct Ring {
    slots: Box<[Option<Entry>]>,
    head: usize,
    len: usize,
    /// Threads asleep on the queue's condition variable for a push (the worker, idle).
    pub sleepers: u32,
}

impl Ring {
    fn new(cap: usize) -> Self {
        Ring {
            slots: (0..cap).map(|_| None).collect(),
            head: 0,
            len: 0,
            sleepers: 0,
        }
    }

    /// Free slots.
    pub(crate) fn free(&self) -> usize {
        self.slots.len() - self.len
    }

    /// Appends; `false` (dropping the entry) when full (the caller checks [`Ring::free`]).
    pub(crate) fn push(&mut self, e: Entry) -> bool {
        if self.len == self.slots.len() {
            return false;
        }
        let i = (self.head + self.len) % self.slots.len();
        self.slots[i] = Some(e);
        self.len += 1;
        true
    }

    /// Whether no task is queued.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes the oldest entry.
    pub(crate) fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = self.slots[self.head].take();
        self.head = (self.head + 1) % self.slots.len();
        self.len -= 1;
        e
    }
}

/// The worker's view of the queue.
pub(crate) struct Queue {
    /// The ring.
    pub ring: Mutex<Ring>,
    /// Signalled on push, on stop, and when the worker finishes a task.
    pub cv: Condvar,
}

/// A device handle (`cudlaDevHandle` is its token).
pub(crate) struct Device {
    /// The handle value handed to the application (never reused).
    pub token: u64,
    /// The DLA instance (0-based).
    pub dla: u64,
    /// API-side state.
    pub state: Mutex<DevState>,
    /// Task queue.
    pub queue: Queue,
    /// Non-zero once `cudlaDestroyDevice` was called (a `u32`: the NvSciSync SIL's
    /// abortable waits read it through the C ABI).
    pub stop: AtomicU32,
    /// Execution-time sampler.
    pub sampler: Mutex<TimingSampler>,
    /// Task timeout in ms.
    pub timeout_ms: AtomicU32,
    /// Latched asynchronous error (`cudlaSuccess` = none).
    pub last_error: AtomicI32,
    /// Tasks the worker has finished (completed or timed out).
    pub completed: AtomicU64,
    /// Whether the worker is running a task right now.
    pub busy: AtomicBool,
    /// The worker thread.
    pub worker: Mutex<Option<JoinHandle<()>>>,
}

impl Device {
    /// A new handle on DLA `dla` (the worker is started by the caller).
    pub(crate) fn new(token: u64, dla: u64) -> Self {
        let mut imports = Vec::new();
        imports.reserve_exact(MAX_IMPORTS);
        Device {
            token,
            dla,
            state: Mutex::new(DevState {
                module: None,
                module_loaded_once: false,
                imports,
                pending: Pending::new(),
                faults: [None; MAX_FAULTS],
                next_seq: 0,
            }),
            queue: Queue {
                ring: Mutex::new(Ring::new(QUEUE_CAPACITY)),
                cv: Condvar::new(),
            },
            stop: AtomicU32::new(0),
            sampler: Mutex::new(TimingSampler::new(
                TimingModel::Fixed(DEFAULT_EXEC_NS),
                DEFAULT_SEED,
            )),
            timeout_ms: AtomicU32::new(DEFAULT_TIMEOUT_MS),
            last_error: AtomicI32::new(0),
            completed: AtomicU64::new(0),
            busy: AtomicBool::new(false),
            worker: Mutex::new(None),
        }
    }

    /// Whether the device is being destroyed.
    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire) != 0
    }

    /// Latches an asynchronous error.
    pub(crate) fn set_error(&self, s: cudlaStatus) {
        self.last_error.store(s.0, Ordering::Release);
    }

    /// Stops the worker and waits for it (never blocks on a hung task).
    pub(crate) fn shutdown(&self) {
        self.stop.store(1, Ordering::Release);
        {
            let _g = lock(&self.queue.ring);
            self.queue.cv.notify_all();
        }
        // A worker asleep in a pre-fence wait sees the flag once woken.
        nvsci::wake_waiters();
        let handle = lock(&self.worker).take();
        if let Some(h) = handle
            && h.thread().id() != std::thread::current().id()
        {
            let _ = h.join();
        }
        // Drop queued tasks (clears their fence duplicates) and the handle's imports.
        while lock(&self.queue.ring).pop().is_some() {}
        let mut st = lock(&self.state);
        st.pending.reset();
        st.imports.clear();
        st.module = None;
    }
}
