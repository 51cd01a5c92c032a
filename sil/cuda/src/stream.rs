//! Streams: one FIFO worker thread per stream with a bounded, preallocated operation queue;
//! kernel launches, stream memory operations, and the sticky error model.
//!
//! Nothing here allocates after `cuStreamCreate`: the queue is a `VecDeque` created with
//! [`QUEUE_CAPACITY`] and never grows, operations are plain values (an event operation holds
//! a counted reference), and waiting uses futex-based locks and condition variables.
//!
//! A worker blocks without polling: on its queue, and in the NvSciSync SIL's abortable
//! waits, which a signal or counter write wakes and `cuStreamDestroy` interrupts (abort
//! flag + `NvSciSyncSilWakeWaiters`). Only waits on memory that is not a SIL semaphore
//! counter (32-bit, AND, plain memory) poll, since nothing announces writes to it. Each
//! worker accounts its CPU time, kernel-model time, wake-ups and operations
//! (`cuSilGetThreadStats`).

use core::ffi::{c_uint, c_void};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use cuda_sys::*;
use nvsci_sys::sil::{
    NvSciSyncSilCounterWait, NvSciSyncSilCounterWaitAbortable, NvSciSyncSilCounterWritten,
    NvSciSyncSilFenceWaitEngineAbortable, NvSciSyncSilObjSignalEngine, NvSciSyncSilWakeWaiters,
};
use nvsci_sys::{
    NvSciError, NvSciError_InterruptedCall, NvSciError_Success, NvSciError_Timeout, NvSciSyncFence,
    NvSciSyncObj,
};
use sil_common::clock;
use sil_common::thread::{Ready, spawn_started};
use sil_common::usage::{ThreadMeter, ThreadTotals};
use sil_common::wait::sleep_counted;

use crate::driver::{attribute, out, require_ctx, require_init};
use crate::event::Event;
use crate::graph::{Capture, Graph, Step};
use crate::kernel::{self, Args, Shape};
use crate::memory;
use crate::module::{FUNCTIONS, Function};
use crate::registry::Registry;
use crate::{CuResult, ret};

/// Operations a stream holds at most (queued, not counting the one executing): above
/// orin-exec's `MAX_STREAM_OPS` (768), about the depth at which the driver was seen to block
/// (sil/README.md, "Streams").
pub(crate) const QUEUE_CAPACITY: usize = 1024;
/// Poll period of waits the NvSciSync SIL cannot do (32-bit, AND): nothing announces
/// writes to that memory (sil/README.md, "Stream memory operations").
const POLL: Duration = Duration::from_micros(50);
/// What every stream worker used, exited ones included (`cuSilGetThreadStats`).
pub(crate) static TOTALS: ThreadTotals = ThreadTotals::new();
/// Sticky error of a stream destroyed while an operation waited (and of the events it
/// discards).
const DESTROYED: CUresult = CUDA_ERROR_INVALID_HANDLE;

/// Condition of a wait-value operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitCond {
    /// Cyclic `(int)(*addr - value) >= 0`.
    Geq,
    /// `*addr == value`.
    Eq,
    /// `(*addr & value) != 0`.
    And,
}

impl WaitCond {
    /// Whether the condition holds for the current value `cur` (32-bit: low halves only).
    pub(crate) fn holds(self, cur: u64, value: u64, wide: bool) -> bool {
        if wide {
            match self {
                WaitCond::Geq => cur.wrapping_sub(value) as i64 >= 0,
                WaitCond::Eq => cur == value,
                WaitCond::And => cur & value != 0,
            }
        } else {
            let (c, v) = (cur as u32, value as u32);
            match self {
                WaitCond::Geq => c.wrapping_sub(v) as i32 >= 0,
                WaitCond::Eq => c == v,
                WaitCond::And => c & v != 0,
            }
        }
    }
}

/// One stream operation.
#[derive(Clone)]
pub(crate) enum Op {
    /// A kernel launch: the function (with its model), its raw arguments, its shape, its
    /// execution time.
    Kernel {
        func: Arc<Function>,
        args: Args,
        shape: Shape,
        dur_ns: u64,
    },
    /// `cuStreamWaitValue32/64`.
    WaitValue {
        addr: u64,
        value: u64,
        cond: WaitCond,
        wide: bool,
    },
    /// `cuStreamWriteValue32/64`.
    WriteValue { addr: u64, value: u64, wide: bool },
    /// Signal of an imported NvSciSync object (its address).
    ExtSignal { obj: usize },
    /// Wait on a copy of an NvSciSync fence.
    ExtWait { fence: NvSciSyncFence },
    /// An event record.
    Event { ev: Arc<Event>, generation: u64 },
}

struct Queued {
    op: Op,
    /// SIL clock at enqueue ("clock at submit").
    enq_ns: u64,
}

struct State {
    queue: VecDeque<Queued>,
    /// `cuStreamBeginCapture` was called: work goes into this graph instead of the queue.
    capture: Option<Capture>,
    /// The worker executes an operation it popped.
    running: bool,
    /// First error of an operation; every later call on the stream returns it.
    sticky: Option<CUresult>,
    /// `cuStreamDestroy` was called: finish the queue, then exit.
    shutdown: bool,
    /// Threads asleep on `work` (the idle worker) and on `idle` (synchronizers): each is
    /// woken only when one sleeps there (`sleep_counted`).
    work_sleepers: u32,
    idle_sleepers: u32,
}

/// One stream.
pub(crate) struct Stream {
    st: Mutex<State>,
    /// The worker waits here for work.
    work: Condvar,
    /// Synchronizers wait here for the stream to become idle.
    idle: Condvar,
    /// Non-zero: waits give up (the stream is being destroyed). A `u32` because the
    /// NvSciSync SIL's abortable waits read it through the C ABI.
    abort: AtomicU32,
    worker: Mutex<Option<JoinHandle<()>>>,
}

/// Appends operations while the queue is locked (see [`Stream::enqueue`]).
pub(crate) struct Pusher<'a> {
    q: &'a mut VecDeque<Queued>,
    enq_ns: u64,
}

impl Pusher<'_> {
    /// Appends one operation (the capacity was checked by `enqueue`).
    pub(crate) fn push(&mut self, op: Op) {
        debug_assert!(self.q.len() < QUEUE_CAPACITY);
        self.q.push_back(Queued {
            op,
            enq_ns: self.enq_ns,
        });
    }
}

static STREAMS: Registry<Stream> = Registry::new();

/// True for the handles of the default stream: NULL, `CU_STREAM_LEGACY` (0x1) and
/// `CU_STREAM_PER_THREAD` (0x2).
pub(crate) fn is_default_stream(h: CUstream) -> bool {
    (h as usize) <= 2
}

/// The stream behind a handle; the default stream and unknown handles are
/// `CUDA_ERROR_INVALID_HANDLE`.
pub(crate) fn stream_of(h: CUstream) -> CuResult<Arc<Stream>> {
    if is_default_stream(h) {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    STREAMS.get(h as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// The stream behind a handle, ready to take work: the driver is initialised, the handle
/// is a live non-default stream ([`stream_of`]) and it has no sticky error.
pub(crate) fn ready_stream(h: CUstream) -> CuResult<Arc<Stream>> {
    require_init()?;
    let s = stream_of(h)?;
    s.sticky()?;
    Ok(s)
}

impl Stream {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The sticky error, if any.
    pub(crate) fn sticky(&self) -> CuResult<()> {
        match self.lock().sticky {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs `f` with the queue locked after checking the sticky error and that `n` more
    /// operations fit (else `CUDA_ERROR_OUT_OF_MEMORY`, nothing enqueued), then wakes the
    /// worker. `f` must push at most `n` operations.
    pub(crate) fn enqueue<R>(
        &self,
        n: usize,
        f: impl FnOnce(&mut Pusher<'_>) -> CuResult<R>,
    ) -> CuResult<R> {
        let mut st = self.lock();
        if let Some(e) = st.sticky {
            return Err(e);
        }
        if st.shutdown {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        if let Some(c) = st.capture.as_mut() {
            // Work this SIL cannot capture (an event record, a graph launch) invalidates the
            // capture, as an unsupported operation does in the driver.
            c.invalidate();
            return Err(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        }
        if st.queue.len() + n > QUEUE_CAPACITY {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        let mut p = Pusher {
            q: &mut st.queue,
            enq_ns: clock::now_ns(),
        };
        let r = f(&mut p);
        let wake = st.work_sleepers > 0;
        drop(st);
        if wake {
            self.work.notify_one();
        }
        r
    }

    /// Submits `n` steps (`step(i)` makes step `i`): enqueues their operations in order, or,
    /// while the stream captures, appends them to the capture graph (one node each, each after
    /// the previous one) without running anything.
    pub(crate) fn submit(
        &self,
        n: usize,
        mut step: impl FnMut(usize) -> CuResult<Step>,
    ) -> CuResult<()> {
        {
            let mut st = self.lock();
            if let Some(c) = st.capture.as_mut() {
                for i in 0..n {
                    c.append(step(i)?)?;
                }
                return Ok(());
            }
        }
        self.enqueue(n, |q| {
            for i in 0..n {
                q.push(step(i)?.op()?);
            }
            Ok(())
        })
    }

    /// Starts capturing into a new graph; a stream that already captures is
    /// `CUDA_ERROR_ILLEGAL_STATE`.
    pub(crate) fn begin_capture(&self, mode: CUstreamCaptureMode) -> CuResult<()> {
        let mut st = self.lock();
        if let Some(e) = st.sticky {
            return Err(e);
        }
        if st.capture.is_some() {
            return Err(CUDA_ERROR_ILLEGAL_STATE);
        }
        st.capture = Some(Capture::new(mode));
        Ok(())
    }

    /// Ends the capture and returns its graph (see [`Capture::end`]); a stream that does not
    /// capture is `CUDA_ERROR_ILLEGAL_STATE`.
    pub(crate) fn end_capture(&self) -> CuResult<Arc<Graph>> {
        let mut st = self.lock();
        let c = st.capture.take().ok_or(CUDA_ERROR_ILLEGAL_STATE)?;
        match c.check_thread() {
            Ok(()) => c.end(),
            Err(e) => {
                st.capture = Some(c);
                Err(e)
            }
        }
    }

    /// While capturing: invalidates the capture and returns
    /// `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED` (a synchronize or query of a capturing stream).
    fn refuse_if_capturing(&self) -> CuResult<()> {
        match self.lock().capture.as_mut() {
            Some(c) => {
                c.invalidate();
                Err(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
            }
            None => Ok(()),
        }
    }

    fn query(&self) -> CuResult<()> {
        let st = self.lock();
        if let Some(e) = st.sticky {
            return Err(e);
        }
        if st.running || !st.queue.is_empty() {
            return Err(CUDA_ERROR_NOT_READY);
        }
        Ok(())
    }

    /// Blocks until the queue is empty and the worker idle; then the sticky error or `Ok`.
    pub(crate) fn synchronize(&self) -> CuResult<()> {
        let mut st = self.lock();
        while st.running || !st.queue.is_empty() {
            st = sleep_counted(&self.idle, st, |st| &mut st.idle_sleepers, None);
        }
        match st.sticky {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether the stream is being destroyed.
    fn aborting(&self) -> bool {
        self.abort.load(Ordering::Acquire) != 0
    }

    /// Runs `attempt(timeout_us, abort)`, which waits without a timeout (`-1`) until it
    /// reports the reached timestamp or `cuStreamDestroy` interrupts it through the abort
    /// flag; then one last non-blocking attempt (`0`, no flag), else [`DESTROYED`].
    fn wait_abortable(
        &self,
        mut attempt: impl FnMut(i64, *const u32) -> CuResult<Option<u64>>,
    ) -> CuResult<u64> {
        if let Some(ts) = attempt(-1, self.abort.as_ptr())? {
            return Ok(ts);
        }
        attempt(0, core::ptr::null())?.ok_or(DESTROYED)
    }
}

/// An engine wait's status: the timestamp, `None` when interrupted or timed out.
fn waited(r: NvSciError, ts: u64) -> CuResult<Option<u64>> {
    match r {
        NvSciError_Success => Ok(Some(ts)),
        NvSciError_Timeout | NvSciError_InterruptedCall => Ok(None),
        _ => Err(CUDA_ERROR_LAUNCH_FAILED),
    }
}

// ---------------------------------------------------------------------------------------
// The worker
// ---------------------------------------------------------------------------------------

fn worker(s: Arc<Stream>, ready: Ready) {
    // The stream clock ("free at") used in virtual time.
    let mut clock_ns = 0u64;
    // Dropped on exit, which adds this thread's last figures to the totals.
    let mut meter = ThreadMeter::start(&TOTALS);
    ready.done();
    loop {
        let (q, sticky) = {
            let mut st = s.lock();
            loop {
                if let Some(q) = st.queue.pop_front() {
                    st.running = true;
                    break (q, st.sticky);
                }
                if st.shutdown {
                    return;
                }
                st = sleep_counted(&s.work, st, |st| &mut st.work_sleepers, None);
            }
        };
        let result = match sticky {
            Some(e) => {
                discard(q.op, e);
                Ok(())
            }
            None => execute(&s, q.op, q.enq_ns, &mut clock_ns, &mut meter),
        };
        meter.op();
        // Publish before going idle, so the totals are complete once a synchronize
        // returns (two system calls per idle period, not per operation).
        if s.lock().queue.is_empty() {
            meter.publish();
        }
        let mut st = s.lock();
        st.running = false;
        if let Err(e) = result {
            st.sticky.get_or_insert(e);
        }
        let waiters = st.idle_sleepers;
        drop(st);
        if waiters > 0 {
            s.idle.notify_all();
        }
    }
}

/// An operation skipped because of a sticky error: events complete with the error.
fn discard(op: Op, e: CUresult) {
    if let Op::Event { ev, generation } = op {
        ev.complete(generation, 0, Some(e));
    }
}

/// The start time of an operation: virtual time `max(clock at submit, stream clock)`, real
/// time the SIL clock now.
fn start_of(enq_ns: u64, clock_ns: u64) -> u64 {
    if clock::is_virtual() {
        enq_ns.max(clock_ns)
    } else {
        clock::now_ns()
    }
}

/// The stream clock after a wait that was satisfied by a signal stamped `reached`.
fn after_wait(enq_ns: u64, clock_ns: u64, reached: u64) -> u64 {
    if clock::is_virtual() {
        enq_ns.max(clock_ns).max(reached)
    } else {
        clock::now_ns()
    }
}

fn execute(
    s: &Stream,
    op: Op,
    enq_ns: u64,
    clock_ns: &mut u64,
    meter: &mut ThreadMeter,
) -> CuResult<()> {
    match op {
        Op::Kernel {
            func,
            args,
            shape,
            dur_ns,
        } => {
            let start = start_of(enq_ns, *clock_ns);
            let end = start.saturating_add(dur_ns);
            meter.compute(|| kernel::run(&func.reg, &args, shape, start))?;
            clock::sleep_until(end);
            *clock_ns = end;
        }
        Op::WaitValue {
            addr,
            value,
            cond,
            wide,
        } => {
            let reached = wait_value(s, addr, value, cond, wide)?;
            *clock_ns = after_wait(enq_ns, *clock_ns, reached);
        }
        Op::WriteValue { addr, value, wide } => {
            let ts = start_of(enq_ns, *clock_ns);
            write_value(addr, value, wide, ts)?;
            *clock_ns = ts;
        }
        Op::ExtSignal { obj } => {
            let ts = start_of(enq_ns, *clock_ns);
            // SAFETY: `obj` is an imported NvSciSync object, which the application keeps
            // alive while it is imported (CUDA's rule).
            let r = unsafe { NvSciSyncSilObjSignalEngine(obj as NvSciSyncObj, ts) };
            if r != NvSciError_Success {
                return Err(CUDA_ERROR_LAUNCH_FAILED);
            }
            *clock_ns = ts;
        }
        Op::ExtWait { fence } => {
            let reached = s.wait_abortable(|timeout_us, abort| {
                let mut ts = 0u64;
                // SAFETY: `fence` is a local copy; `abort` is NULL or the stream's flag,
                // alive for the wait; `ts` is writable.
                let r = unsafe {
                    NvSciSyncSilFenceWaitEngineAbortable(&fence, timeout_us, abort, &mut ts)
                };
                waited(r, ts)
            })?;
            *clock_ns = after_wait(enq_ns, *clock_ns, reached);
        }
        Op::Event { ev, generation } => {
            let ts = start_of(enq_ns, *clock_ns);
            ev.complete(generation, ts, None);
            *clock_ns = ts;
        }
    }
    Ok(())
}

/// Loads the value at a checked, aligned address.
///
/// # Safety
/// `addr` is aligned for the width and lies in known memory.
unsafe fn load(addr: u64, wide: bool) -> u64 {
    // SAFETY: caller contract; other threads access it only atomically or not at all.
    unsafe {
        if wide {
            AtomicU64::from_ptr(addr as usize as *mut u64).load(Ordering::Acquire)
        } else {
            u64::from(AtomicU32::from_ptr(addr as usize as *mut u32).load(Ordering::Acquire))
        }
    }
}

/// The timestamp of a wait satisfied at `addr` by polling: the signal timestamp if the 8-byte
/// word at `addr` is a SIL semaphore counter, else the SIL clock now.
fn polled_timestamp(addr: u64) -> u64 {
    if addr.is_multiple_of(8) && memory::check_access(&memory::read(), addr, 8, 8, false).is_ok() {
        // SAFETY: aligned and in known memory (checked just above).
        let v = unsafe { load(addr, true) };
        let mut ts = 0u64;
        // SAFETY: as above; `ts` is writable; timeout 0 never blocks.
        let r = unsafe { NvSciSyncSilCounterWait(addr as usize as *const u64, v, 0, 0, &mut ts) };
        if r == NvSciError_Success {
            return ts;
        }
    }
    clock::now_ns()
}

fn wait_value(s: &Stream, addr: u64, value: u64, cond: WaitCond, wide: bool) -> CuResult<u64> {
    let size = if wide { 8 } else { 4 };
    memory::check_access(&memory::read(), addr, size, size, false)?;
    if wide && cond != WaitCond::And {
        let mode = u32::from(cond == WaitCond::Eq);
        return s.wait_abortable(|timeout_us, abort| {
            let mut ts = 0u64;
            // SAFETY: `addr` is 8-aligned and in known memory; `abort` is NULL or the
            // stream's flag, alive for the wait; `ts` is writable.
            let r = unsafe {
                NvSciSyncSilCounterWaitAbortable(
                    addr as usize as *const u64,
                    value,
                    mode,
                    timeout_us,
                    abort,
                    &mut ts,
                )
            };
            waited(r, ts)
        });
    }
    // Polled: nothing announces a write of this memory (see [`POLL`]); the abort flag is
    // seen within one period.
    s.wait_abortable(|timeout_us, _| {
        loop {
            // SAFETY: aligned (checked at enqueue) and in known memory (checked above).
            let cur = unsafe { load(addr, wide) };
            if cond.holds(cur, value, wide) {
                return Ok(Some(polled_timestamp(addr)));
            }
            if timeout_us == 0 || s.aborting() {
                return Ok(None);
            }
            std::thread::sleep(POLL);
        }
    })
}

fn write_value(addr: u64, value: u64, wide: bool, ts: u64) -> CuResult<()> {
    let size = if wide { 8 } else { 4 };
    {
        let regions = memory::read();
        memory::check_access(&regions, addr, size, size, true)?;
        // SAFETY: aligned and in known writable memory, which cannot be freed while the
        // region table is read-locked; the write is atomic.
        unsafe {
            if wide {
                AtomicU64::from_ptr(addr as usize as *mut u64).store(value, Ordering::Release);
            } else {
                AtomicU32::from_ptr(addr as usize as *mut u32)
                    .store(value as u32, Ordering::Release);
            }
        }
    }
    // Tell the NvSciSync SIL (a semaphore counter records `ts` and wakes its waiters); any
    // other address is BadParameter, which is expected and ignored.
    // SAFETY: the function only looks the address up.
    let _ = unsafe { NvSciSyncSilCounterWritten((addr & !7) as usize as *const u64, ts) };
    Ok(())
}

/// Synchronizes every stream; the first sticky error (all streams are waited for).
pub(crate) fn synchronize_all() -> CuResult<()> {
    let mut first = Ok(());
    for s in STREAMS.snapshot() {
        let r = s.synchronize();
        if first.is_ok() {
            first = r;
        }
    }
    first
}

// ---------------------------------------------------------------------------------------
// C API
// ---------------------------------------------------------------------------------------

/// Creates a stream and its worker thread. `CU_STREAM_DEFAULT` and `CU_STREAM_NON_BLOCKING`
/// are accepted (there is no default stream to synchronise with); other flags are
/// `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `phStream` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamCreate(phStream: *mut CUstream, Flags: c_uint) -> CUresult {
    ret((|| {
        require_ctx()?;
        if phStream.is_null() || Flags & !CU_STREAM_NON_BLOCKING.0 != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let s = Arc::new(Stream {
            st: Mutex::new(State {
                queue: VecDeque::with_capacity(QUEUE_CAPACITY),
                capture: None,
                running: false,
                sticky: None,
                shutdown: false,
                work_sleepers: 0,
                idle_sleepers: 0,
            }),
            work: Condvar::new(),
            idle: Condvar::new(),
            abort: AtomicU32::new(0),
            worker: Mutex::new(None),
        });
        let w = s.clone();
        let jh = spawn_started("sil-cuda-stream".into(), move |ready| worker(w, ready))
            .map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
        *s.worker.lock().unwrap_or_else(|e| e.into_inner()) = Some(jh);
        let h = STREAMS.insert(s);
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(phStream, h as CUstream) }
    })())
}

/// Destroys a stream without hanging: the handle is invalid at once; queued operations still
/// run, except that a wait that is not satisfied is abandoned, after which every later
/// operation is discarded (their events complete with `CUDA_ERROR_INVALID_HANDLE`). Returns
/// after the worker thread has exited, so no operation touches memory afterwards.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamDestroy_v2(hStream: CUstream) -> CUresult {
    ret((|| {
        require_init()?;
        if is_default_stream(hStream) {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let s = STREAMS
            .remove(hStream as usize)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        s.lock().shutdown = true;
        s.abort.store(1, Ordering::Release);
        s.work.notify_all();
        // Wakes a worker asleep in an NvSciSync wait to see the flag.
        // SAFETY: no arguments.
        let _ = unsafe { NvSciSyncSilWakeWaiters() };
        let jh = s.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(jh) = jh {
            let _ = jh.join();
        }
        Ok(())
    })())
}

/// Blocks until the stream is idle (no timeout, like the real driver); returns its sticky
/// error if it has one. A capturing stream: `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`, and the
/// capture is invalidated.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamSynchronize(hStream: CUstream) -> CUresult {
    ret((|| {
        require_init()?;
        let s = stream_of(hStream)?;
        s.refuse_if_capturing()?;
        s.synchronize()
    })())
}

/// The sticky error, else `CUDA_ERROR_NOT_READY` while operations are pending, else success.
/// A capturing stream: `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`, and the capture is
/// invalidated.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamQuery(hStream: CUstream) -> CUresult {
    ret((|| {
        require_init()?;
        let s = stream_of(hStream)?;
        s.refuse_if_capturing()?;
        s.query()
    })())
}

fn launch_dims_ok(grid: [c_uint; 3], block: [c_uint; 3], shared: c_uint) -> bool {
    let lim = |a: i32| attribute(CUdevice_attribute(a as u32)).unwrap_or(0) as u64;
    let g = grid.map(u64::from);
    let b = block.map(u64::from);
    g.iter().chain(&b).all(|&d| d > 0)
        && g[0] <= lim(5)
        && g[1] <= lim(6)
        && g[2] <= lim(7)
        && b[0] <= lim(2)
        && b[1] <= lim(3)
        && b[2] <= lim(4)
        && b[0] * b[1] * b[2] <= lim(1)
        && u64::from(shared) <= lim(8)
}

/// A validated kernel launch: the function, its decoded arguments and its shape; what
/// `cuLaunchKernel` enqueues and what a graph's kernel node holds.
#[derive(Clone)]
pub(crate) struct KernelLaunch {
    func: Arc<Function>,
    args: Args,
    shape: Shape,
}

impl KernelLaunch {
    /// Checks a launch of `func` (`extra` must be NULL; grid and block dimensions non-zero
    /// and within the device limits) and decodes its arguments by its model's parameter
    /// kinds. Allocates nothing.
    ///
    /// # Safety
    /// `kernel_params` must hold one valid pointer per kernel parameter (see `cuda.h`).
    pub(crate) unsafe fn new(
        func: Arc<Function>,
        grid: [c_uint; 3],
        block: [c_uint; 3],
        shared: c_uint,
        kernel_params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CuResult<KernelLaunch> {
        if !extra.is_null() || !launch_dims_ok(grid, block, shared) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: forwarded caller contract.
        let args = unsafe { kernel::decode(func.reg.model.params(), kernel_params) }?;
        Ok(KernelLaunch {
            func,
            args,
            shape: Shape { grid, block },
        })
    }

    /// The stream operation of one launch; its execution time is drawn now (enqueue order).
    pub(crate) fn op(&self) -> Op {
        Op::Kernel {
            func: self.func.clone(),
            args: self.args,
            shape: self.shape,
            dur_ns: self.func.sample_ns(),
        }
    }
}

/// The function behind a handle, `CUDA_ERROR_INVALID_HANDLE` if it is not live.
pub(crate) fn function_of(f: CUfunction) -> CuResult<Arc<Function>> {
    FUNCTIONS.get(f as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// Enqueues a kernel (or, while the stream captures, adds a kernel node): its arguments are
/// decoded now (by its model's parameter kinds) and its execution time drawn now; the worker
/// runs the model. `extra` must be NULL; grid and block dimensions must be non-zero and within
/// the device limits.
///
/// # Safety
/// `kernelParams` must hold one valid pointer per kernel parameter (see `cuda.h`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLaunchKernel(
    f: CUfunction,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    hStream: CUstream,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    ret((|| {
        require_init()?;
        let func = function_of(f)?;
        let s = stream_of(hStream)?;
        s.sticky()?;
        // SAFETY: forwarded caller contract.
        let k = unsafe {
            KernelLaunch::new(
                func,
                [gridDimX, gridDimY, gridDimZ],
                [blockDimX, blockDimY, blockDimZ],
                sharedMemBytes,
                kernelParams,
                extra,
            )
        }?;
        let mut k = Some(k);
        s.submit(1, |_| k.take().map(Step::Kernel).ok_or(CUDA_ERROR_UNKNOWN))
    })())
}

/// A stream memory operation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MemOp {
    /// `cuStreamWaitValue*`.
    Wait,
    /// `cuStreamWriteValue*`.
    Write,
}

impl MemOp {
    /// Enqueues the operation on the 32-bit (or, `wide`, 64-bit) value at `addr` (or, while
    /// the stream captures, adds it as a node): once the stream is ready, checked by
    /// [`MemOp::op`].
    fn enqueue(
        self,
        hStream: CUstream,
        addr: CUdeviceptr,
        value: u64,
        flags: c_uint,
        wide: bool,
    ) -> CuResult<()> {
        let s = ready_stream(hStream)?;
        let op = self.op(addr, value, flags, wide)?;
        let mut op = Some(op);
        s.submit(1, |_| op.take().map(Step::Op).ok_or(CUDA_ERROR_UNKNOWN))
    }

    /// The stream operation on the 32-bit (or, `wide`, 64-bit) value at `addr`: the flags are
    /// checked (NOR and FLUSH waits: `CUDA_ERROR_NOT_SUPPORTED`); `addr` must be non-zero and
    /// aligned to the operand size.
    pub(crate) fn op(
        self,
        addr: CUdeviceptr,
        value: u64,
        flags: c_uint,
        wide: bool,
    ) -> CuResult<Op> {
        let op = match self {
            MemOp::Wait => {
                if flags & CU_STREAM_WAIT_VALUE_FLUSH.0 != 0 {
                    return Err(CUDA_ERROR_NOT_SUPPORTED);
                }
                let cond = match flags {
                    0 => WaitCond::Geq,
                    1 => WaitCond::Eq,
                    2 => WaitCond::And,
                    3 => return Err(CUDA_ERROR_NOT_SUPPORTED),
                    _ => return Err(CUDA_ERROR_INVALID_VALUE),
                };
                Op::WaitValue {
                    addr,
                    value,
                    cond,
                    wide,
                }
            }
            MemOp::Write => {
                if flags & !CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER.0 != 0 {
                    return Err(CUDA_ERROR_INVALID_VALUE);
                }
                Op::WriteValue { addr, value, wide }
            }
        };
        let size = if wide { 8 } else { 4 };
        if addr == 0 || !addr.is_multiple_of(size) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(op)
    }
}

/// Enqueues a wait until the 32-bit value at `addr` satisfies `flags` (GEQ: cyclic
/// `(int32_t)(*addr - value) >= 0`, EQ, AND). NOR and FLUSH: `CUDA_ERROR_NOT_SUPPORTED`.
/// `addr` must be 4-byte aligned; it must lie in known memory when the wait executes, else
/// the stream gets a sticky `CUDA_ERROR_ILLEGAL_ADDRESS`.
///
/// # Safety
/// Always safe to call (the address is checked when the operation executes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamWaitValue32_v2(
    stream: CUstream,
    addr: CUdeviceptr,
    value: cuuint32_t,
    flags: c_uint,
) -> CUresult {
    ret(MemOp::Wait.enqueue(stream, addr, u64::from(value), flags, false))
}

/// Enqueues a write of a 32-bit value (atomic), then tells the NvSciSync SIL
/// (`NvSciSyncSilCounterWritten` on the enclosing 8-byte word) with the stream time.
///
/// # Safety
/// Always safe to call (the address is checked when the operation executes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamWriteValue32_v2(
    stream: CUstream,
    addr: CUdeviceptr,
    value: cuuint32_t,
    flags: c_uint,
) -> CUresult {
    ret(MemOp::Write.enqueue(stream, addr, u64::from(value), flags, false))
}

/// Enqueues a wait until the 64-bit value at `addr` satisfies `flags` (GEQ: cyclic
/// `(int64_t)(*addr - value) >= 0`, EQ, AND). GEQ and EQ wait through
/// `NvSciSyncSilCounterWait`, so a SIL semaphore counter reports its signal timestamp.
///
/// # Safety
/// Always safe to call (the address is checked when the operation executes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamWaitValue64_v2(
    stream: CUstream,
    addr: CUdeviceptr,
    value: cuuint64_t,
    flags: c_uint,
) -> CUresult {
    ret(MemOp::Wait.enqueue(stream, addr, value, flags, true))
}

/// Enqueues a write of a 64-bit value (atomic), then `NvSciSyncSilCounterWritten(addr, t)`
/// with the stream time `t` (a SIL semaphore counter records it and wakes its waiters).
///
/// # Safety
/// Always safe to call (the address is checked when the operation executes).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamWriteValue64_v2(
    stream: CUstream,
    addr: CUdeviceptr,
    value: cuuint64_t,
    flags: c_uint,
) -> CUresult {
    ret(MemOp::Write.enqueue(stream, addr, value, flags, true))
}

/// Copies what the stream workers used (summed over every worker started, exited ones
/// included) into `*stats`, whose `size` the caller sets to `sizeof(cuSilThreadStats)`;
/// `size` comes back as the bytes written. NULL, misaligned or a `size` below 40:
/// `CUDA_ERROR_INVALID_VALUE`, nothing written. Works before `cuInit`.
///
/// ```c
/// cuSilThreadStats st = { .size = sizeof st };
/// cuStreamSynchronize(s);
/// cuSilGetThreadStats(&st);   /* st.cpuNs - st.computeNs: the workers' own overhead */
/// ```
///
/// # Safety
/// `stats` is NULL or readable and writable for `stats->size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilGetThreadStats(
    stats: *mut cuda_sys::sil::cuSilThreadStats,
) -> CUresult {
    use cuda_sys::sil::cuSilThreadStats;
    const SIZE: u32 = core::mem::size_of::<cuSilThreadStats>() as u32;
    ret((|| {
        if stats.is_null() || !stats.is_aligned() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: non-NULL and aligned; the caller passes a readable struct (its `size`).
        if unsafe { stats.read().size } < SIZE {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let t = TOTALS.snapshot();
        let v = cuSilThreadStats {
            size: SIZE,
            threads: u32::try_from(t.threads).unwrap_or(u32::MAX),
            cpuNs: t.cpu_ns,
            computeNs: t.compute_ns,
            wakeups: t.wakeups,
            ops: t.ops,
        };
        // SAFETY: checked non-NULL, aligned and at least `SIZE` bytes per the caller.
        unsafe { out(stats, v) }
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-GPU-006
    #[test]
    fn geq_is_cyclic() {
        use WaitCond::*;
        assert!(Geq.holds(5, 5, true));
        assert!(Geq.holds(6, 5, true));
        assert!(!Geq.holds(4, 5, true));
        // Wraparound: 2 is "after" u64::MAX - 1.
        assert!(Geq.holds(2, u64::MAX - 1, true));
        assert!(!Geq.holds(u64::MAX - 1, 2, true));
        assert!(Geq.holds(0x0000_0001, 0xFFFF_FFF0, false));
        assert!(!Geq.holds(0xFFFF_FFF0, 0x0000_0001, false));
        // Exactly half the range apart: (int)(a - b) = INT_MIN < 0.
        assert!(!Geq.holds(0, 1 << 63, true));
        assert!(Geq.holds((1 << 63) - 1, 0, true));
        // 32-bit compares ignore the high half.
        assert!(Geq.holds(0xFFFF_FFFF_0000_0005, 5, false));
        assert!(Eq.holds(7, 7, true) && !Eq.holds(7, 8, true));
        assert!(Eq.holds(0x1_0000_0007, 7, false));
        assert!(And.holds(0b0110, 0b0100, true) && !And.holds(0b0110, 0b1001, true));
    }

    /// Covers: REQ-GPU-005
    #[test]
    fn default_stream_handles() {
        assert!(is_default_stream(core::ptr::null_mut()));
        assert!(is_default_stream(1 as CUstream));
        assert!(is_default_stream(2 as CUstream));
        assert!(!is_default_stream(0x1000 as CUstream));
    }

    /// Covers: REQ-GPU-008
    #[test]
    fn launch_limits() {
        assert!(launch_dims_ok([1, 1, 1], [256, 1, 1], 0));
        assert!(!launch_dims_ok([0, 1, 1], [256, 1, 1], 0));
        assert!(!launch_dims_ok([1, 1, 1], [1, 0, 1], 0));
        assert!(!launch_dims_ok([1, 1, 1], [32, 32, 2], 0));
        assert!(!launch_dims_ok([1, 65536, 1], [1, 1, 1], 0));
        assert!(!launch_dims_ok([1, 1, 1], [1, 1, 1], 49153));
    }
}
