//! `cudlaSubmitTask`: validation (no side effects) and commit (no allocation).
//!
//! The rules follow `cudla.h` 1.5 (`cudlaSubmitTask`); where the header gives no status code
//! or contradicts itself, `sil/README.md` ("cuDLA") records the choice.

use std::sync::Arc;

use cudla_sys::{
    CUDLA_NVSCISYNC_FENCE, CUDLA_NVSCISYNC_FENCE_SOF, CUDLA_SUBMIT_DIAGNOSTICS_TASK,
    CUDLA_SUBMIT_NOOP, CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE, CudlaFence, cudlaErrorInvalidAddress,
    cudlaErrorInvalidModule, cudlaErrorInvalidParam, cudlaErrorOutOfResources,
    cudlaErrorUnsupportedOperation, cudlaStatus, cudlaSuccess, cudlaTask,
};
use nvsci_sys::NvSciSyncFence;

use crate::device::{DevState, Device, Entry, EntryKind, Mem, Module, Sem, Signal, SyncKind, lock};
use crate::limits::*;
use crate::nvsci::{self, OwnedFence};

/// A validated signal event.
struct SignalSpec {
    sem: Arc<Sem>,
    sof: bool,
    /// The application's fence to write, or NULL (allowed for deterministic semaphores).
    fence: *mut NvSciSyncFence,
}

/// A validated signal-event list.
struct SignalList {
    items: [Option<SignalSpec>; MAX_SIGNALS],
    n: usize,
    sof: usize,
    syncpoints: usize,
    /// The task gave a (non-NULL) signal-event list.
    present: bool,
}

impl SignalList {
    fn empty(present: bool) -> Self {
        SignalList {
            items: [const { None }; MAX_SIGNALS],
            n: 0,
            sof: 0,
            syncpoints: 0,
            present,
        }
    }

    fn eof(&self) -> usize {
        self.n - self.sof
    }
}

/// A validated wait-event list: the application's pre-fence array.
struct WaitList {
    fences: *const CudlaFence,
    n: usize,
    /// The task gave a (non-NULL) wait-event list.
    present: bool,
}

impl WaitList {
    /// Pre-fence `i` (`i < n`).
    ///
    /// # Safety
    /// The list was validated by [`check_waits`] and the application's array is still valid.
    unsafe fn fence(&self, i: usize) -> *const NvSciSyncFence {
        // SAFETY: `i < n` entries, validated non-NULL.
        unsafe { (*self.fences.add(i)).fence as *const NvSciSyncFence }
    }
}

/// Whether `a` and `b` are the same (non-cleared) fence.
fn same_fence(a: &NvSciSyncFence, b: &NvSciSyncFence) -> bool {
    a.payload.iter().any(|&w| w != 0) && a.payload == b.payload
}

/// Validates the wait events of `t`.
///
/// # Safety
/// The pointers in `t` must be NULL or valid for the lengths they declare.
unsafe fn check_waits(t: &cudlaTask) -> Result<WaitList, cudlaStatus> {
    let none = |present| WaitList {
        fences: core::ptr::null(),
        n: 0,
        present,
    };
    if t.waitEvents.is_null() {
        return Ok(none(false));
    }
    // SAFETY: non-NULL, valid by the caller's contract.
    let we = unsafe { *t.waitEvents };
    let n = we.numEvents as usize;
    if n == 0 {
        return Ok(none(true));
    }
    if n > MAX_PRE_AND_SOF {
        return Err(cudlaErrorUnsupportedOperation);
    }
    if we.preFences.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    for i in 0..n {
        // SAFETY: `preFences` holds `numEvents` entries by contract.
        let f = unsafe { *we.preFences.add(i) };
        if f.fence.is_null() {
            return Err(cudlaErrorInvalidParam);
        }
        if f.r#type != CUDLA_NVSCISYNC_FENCE {
            return Err(cudlaErrorUnsupportedOperation);
        }
        // SAFETY: a non-NULL fence pointer supplied by the application.
        unsafe { nvsci::sync_fence_check(f.fence as *const NvSciSyncFence) }?;
    }
    let list = WaitList {
        fences: we.preFences,
        n,
        present: true,
    };
    // No duplicate fences (cuDLA release notes). Cleared fences carry no identity.
    for i in 0..n {
        for j in i + 1..n {
            // SAFETY: both validated above.
            let (a, b) = unsafe { (&*list.fence(i), &*list.fence(j)) };
            if same_fence(a, b) {
                return Err(cudlaErrorInvalidParam);
            }
        }
    }
    Ok(list)
}

/// Validates the signal events of `t` against the handle's imports.
///
/// # Safety
/// The pointers in `t` must be NULL or valid for the lengths they declare.
unsafe fn check_signals(t: &cudlaTask, st: &DevState) -> Result<SignalList, cudlaStatus> {
    if t.signalEvents.is_null() {
        return Ok(SignalList::empty(false));
    }
    // SAFETY: non-NULL, valid by the caller's contract.
    let se = unsafe { *t.signalEvents };
    let n = se.numEvents as usize;
    let mut list = SignalList::empty(true);
    if n == 0 {
        return Ok(list);
    }
    if n > MAX_SIGNALS {
        return Err(cudlaErrorUnsupportedOperation);
    }
    if se.devPtrs.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    for i in 0..n {
        // SAFETY: `devPtrs` holds `numEvents` entries by contract.
        let token = unsafe { *se.devPtrs.add(i) } as u64;
        let sem = st.find_sem(token).ok_or(cudlaErrorInvalidAddress)?.clone();
        let (sof, fence) = if se.eofFences.is_null() {
            (false, core::ptr::null_mut())
        } else {
            // SAFETY: `eofFences` holds `numEvents` entries by contract.
            let f = unsafe { *se.eofFences.add(i) };
            let sof = if f.r#type == CUDLA_NVSCISYNC_FENCE {
                false
            } else if f.r#type == CUDLA_NVSCISYNC_FENCE_SOF {
                true
            } else {
                return Err(cudlaErrorUnsupportedOperation);
            };
            (sof, f.fence as *mut NvSciSyncFence)
        };
        if fence.is_null() {
            // Only deterministic semaphores may go without a fence (cudla.h 1.5).
            if sem.kind != SyncKind::DeterministicSemaphore {
                return Err(cudlaErrorInvalidParam);
            }
        } else {
            // The placeholder must be a cleared or valid fence (it is overwritten).
            // SAFETY: a non-NULL fence pointer supplied by the application.
            unsafe { nvsci::sync_fence_check(fence) }?;
        }
        list.sof += usize::from(sof);
        list.syncpoints += usize::from(sem.kind == SyncKind::Syncpoint);
        list.items[i] = Some(SignalSpec { sem, sof, fence });
        list.n += 1;
    }
    Ok(list)
}

/// Checks the per-task fence limits of `cudla.h` 1.5: pre-fences + SOF fences ≤ 29,
/// EOF fences ≤ 29 (both `cudlaErrorUnsupportedOperation`), at most one sync point to
/// signal (`cudlaErrorInvalidParam`).
fn check_limits(
    waits: usize,
    sof: usize,
    eof: usize,
    syncpoints: usize,
) -> Result<(), cudlaStatus> {
    if syncpoints > MAX_SYNCPOINT_SIGNALS {
        return Err(cudlaErrorInvalidParam);
    }
    if waits + sof > MAX_PRE_AND_SOF || eof > MAX_EOF {
        return Err(cudlaErrorUnsupportedOperation);
    }
    Ok(())
}

/// Resolves tensor `i` of a token array against the imports.
///
/// # Safety
/// `arr` must hold more than `i` pointers.
unsafe fn tensor_mem(
    st: &DevState,
    arr: *const *const u64,
    i: usize,
) -> Result<&Arc<Mem>, cudlaStatus> {
    // SAFETY: the caller checked `i` against the array's declared length.
    let token = unsafe { *arr.add(i) } as u64;
    st.find_mem(token).ok_or(cudlaErrorInvalidAddress)
}

/// The shape of a task: what its tensor arrays say it is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Input and output arrays NULL: an event-only submission.
    EventOnly,
    /// A task that runs.
    Real,
}

/// `cudla.h` 1.5 rules for the tensor arrays (standalone mode), all
/// `cudlaErrorUnsupportedOperation`: exactly one of input/output NULL (without the
/// diagnostics flag); with the diagnostics flag, input not NULL or output NULL.
fn shape(t: &cudlaTask, diag: bool) -> Result<Shape, cudlaStatus> {
    let (in_null, out_null) = (t.inputTensor.is_null(), t.outputTensor.is_null());
    if diag {
        return if in_null && !out_null {
            Ok(Shape::Real)
        } else {
            Err(cudlaErrorUnsupportedOperation)
        };
    }
    match (in_null, out_null) {
        (true, true) => Ok(Shape::EventOnly),
        (false, false) => Ok(Shape::Real),
        _ => Err(cudlaErrorUnsupportedOperation),
    }
}

/// A validated task that runs.
struct RealSpec {
    module: Arc<Module>,
    /// Statistics buffers given (0 or the module's count).
    n_stats: usize,
}

/// Validates a task that runs.
///
/// # Safety
/// The pointers in `t` must be NULL or valid for the lengths they declare.
unsafe fn check_real(t: &cudlaTask, st: &DevState, diag: bool) -> Result<RealSpec, cudlaStatus> {
    let module = st
        .module
        .as_ref()
        .filter(|m| m.token == t.moduleHandle as u64)
        .ok_or(cudlaErrorInvalidModule)?
        .clone();
    if module.is_diagnostics() != diag {
        return Err(cudlaErrorInvalidModule);
    }
    let (n_in, n_out) = (t.numInputTensors as usize, t.numOutputTensors as usize);
    let outs_needed = module.outputs.len();
    let n_stats = if n_out == outs_needed {
        0
    } else if !module.stats.is_empty() && n_out == outs_needed + module.stats.len() {
        module.stats.len()
    } else {
        return Err(cudlaErrorInvalidParam);
    };
    if n_in != module.inputs.len() {
        return Err(cudlaErrorInvalidParam);
    }
    let ins = t.inputTensor;
    let outs = t.outputTensor as *const *const u64;
    // Every buffer the task touches, to check that written ones overlap nothing.
    let mut seen: [Option<&Arc<Mem>>; 2 * MAX_IO + MAX_STATS] = [None; 2 * MAX_IO + MAX_STATS];
    let mut n_seen = 0usize;
    for i in 0..n_in {
        // SAFETY: `inputTensor` holds `numInputTensors` entries by contract.
        let m = unsafe { tensor_mem(st, ins, i) }?;
        if m.stats || m.size < module.inputs[i].size {
            return Err(cudlaErrorInvalidParam);
        }
        seen[n_seen] = Some(m);
        n_seen += 1;
    }
    for i in 0..n_out {
        // SAFETY: `outputTensor` holds `numOutputTensors` entries by contract.
        let m = unsafe { tensor_mem(st, outs, i) }?;
        let ok = if i < outs_needed {
            !m.stats && !m.read_only && m.size >= module.outputs[i].size
        } else {
            m.stats && m.size >= module.stats[i - outs_needed].size
        };
        if !ok || seen[..n_seen].iter().flatten().any(|o| m.overlaps(o)) {
            return Err(cudlaErrorInvalidParam);
        }
        seen[n_seen] = Some(m);
        n_seen += 1;
    }
    Ok(RealSpec { module, n_stats })
}

/// Reserves the next signal of an object and writes the application's fence for it (for a
/// deterministic semaphore without a placeholder, into a scratch fence that is dropped).
///
/// # Safety
/// `spec.fence` must be NULL or point to a writable, cleared or valid `NvSciSyncFence`.
unsafe fn commit_signal(spec: &SignalSpec) -> Result<Signal, cudlaStatus> {
    if spec.fence.is_null() {
        let mut scratch = OwnedFence::CLEARED;
        // SAFETY: our own cleared fence; `sem.obj` is our duplicate of the object.
        unsafe { nvsci::sync_engine_fence(spec.sem.obj, &mut scratch.0) }?;
    } else {
        // SAFETY: the caller vouches for the fence; `sem.obj` is our duplicate.
        unsafe { nvsci::sync_engine_fence(spec.sem.obj, spec.fence) }?;
    }
    Ok(Signal {
        sem: spec.sem.clone(),
        sof: spec.sof,
    })
}

/// Checks the submission flags; returns (NOOP, diagnostics).
fn check_flags(flags: u32) -> Result<(bool, bool), cudlaStatus> {
    let known =
        CUDLA_SUBMIT_NOOP.0 | CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE.0 | CUDLA_SUBMIT_DIAGNOSTICS_TASK.0;
    if flags & !known != 0 {
        return Err(cudlaErrorInvalidParam);
    }
    Ok((
        flags & CUDLA_SUBMIT_NOOP.0 != 0,
        flags & CUDLA_SUBMIT_DIAGNOSTICS_TASK.0 != 0,
    ))
}

/// `cudlaSubmitTask` on a live device.
///
/// # Safety
/// `tasks` must be NULL or point to `num` tasks whose pointers are valid as cuDLA documents.
pub(crate) unsafe fn submit(
    dev: &Device,
    tasks: *const cudlaTask,
    num: u32,
    stream: *mut core::ffi::c_void,
    flags: u32,
) -> cudlaStatus {
    // SAFETY: forwarded contract.
    match unsafe { submit_inner(dev, tasks, num, stream, flags) } {
        Ok(()) => cudlaSuccess,
        Err(e) => e,
    }
}

/// # Safety
/// As for [`submit`].
unsafe fn submit_inner(
    dev: &Device,
    tasks: *const cudlaTask,
    num: u32,
    stream: *mut core::ffi::c_void,
    flags: u32,
) -> Result<(), cudlaStatus> {
    if tasks.is_null() || num == 0 || !stream.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    let (noop, diag) = check_flags(flags)?;
    let num = num as usize;
    // More tasks than the whole queue holds can never be accepted (the same answer as a
    // full queue below); refused before `tasks` is read, so a huge count reads nothing.
    if num > QUEUE_CAPACITY {
        return Err(cudlaErrorOutOfResources);
    }
    let mut st = lock(&dev.state);

    let mut event_only = false;
    for i in 0..num {
        // SAFETY: `tasks` points to `num` tasks by contract.
        if shape(unsafe { &*tasks.add(i) }, diag)? == Shape::EventOnly {
            event_only = true;
        }
    }
    if event_only {
        if num != 1 {
            return Err(cudlaErrorUnsupportedOperation);
        }
        // SAFETY: contract.
        return unsafe { submit_events(dev, &mut st, &*tasks) };
    }

    // Pass 1: validate every task without side effects.
    let last = num - 1;
    let (p_sig, p_sof, p_sp) = st.pending.signal_counts();
    for i in 0..num {
        // SAFETY: `i < num`.
        let t = unsafe { &*tasks.add(i) };
        // SAFETY: contract.
        unsafe { check_real(t, &st, diag) }?;
        // SAFETY: contract.
        let waits = unsafe { check_waits(t) }?;
        // SAFETY: contract.
        let sigs = unsafe { check_signals(t, &st) }?;
        check_limits(waits.n, sigs.sof, sigs.eof(), sigs.syncpoints)?;
        // The combined lists: queued waits go to the first task, queued signals to the last.
        let (qw, (qn, qsof, qsp)) = (
            if i == 0 { st.pending.n_waits } else { 0 },
            if i == last {
                (p_sig, p_sof, p_sp)
            } else {
                (0, 0, 0)
            },
        );
        check_limits(
            waits.n + qw,
            sigs.sof + qsof,
            sigs.eof() + (qn - qsof),
            sigs.syncpoints + qsp,
        )?;
        if i == 0 {
            for k in 0..waits.n {
                // SAFETY: validated.
                let f = unsafe { &*waits.fence(k) };
                if st.pending.waits[..st.pending.n_waits]
                    .iter()
                    .any(|q| same_fence(f, &q.0))
                {
                    return Err(cudlaErrorInvalidParam);
                }
            }
        }
    }
    let mut ring = lock(&dev.queue.ring);
    if ring.free() < num {
        return Err(cudlaErrorOutOfResources);
    }

    // Pass 2: commit. Only NvSciSync itself can still fail (it cannot on validated input).
    let submit_ns = nvsci::now_ns();
    let mut result = Ok(());
    let kind = if diag {
        EntryKind::Diagnostics
    } else {
        EntryKind::Task
    };
    for i in 0..num {
        // SAFETY: `i < num`.
        let t = unsafe { &*tasks.add(i) };
        let mut e = Entry::new(kind);
        e.seq = st.next_seq;
        st.next_seq += 1;
        e.submit_ns = submit_ns;
        e.noop = noop;
        // SAFETY: validated in pass 1.
        let spec = unsafe { check_real(t, &st, diag) }?;
        e.n_in = spec.module.inputs.len();
        e.n_out = spec.module.outputs.len();
        e.n_stats = spec.n_stats;
        let outs = t.outputTensor as *const *const u64;
        for k in 0..e.n_in {
            // SAFETY: validated in pass 1.
            e.inputs[k] = Some(unsafe { tensor_mem(&st, t.inputTensor, k) }?.clone());
        }
        for k in 0..e.n_out {
            // SAFETY: validated in pass 1.
            e.outputs[k] = Some(unsafe { tensor_mem(&st, outs, k) }?.clone());
        }
        for k in 0..e.n_stats {
            // SAFETY: validated in pass 1.
            e.stats[k] = Some(unsafe { tensor_mem(&st, outs, e.n_out + k) }?.clone());
        }
        e.module = Some(spec.module);
        if i == 0 {
            let n = st.pending.n_waits;
            for k in 0..n {
                core::mem::swap(&mut e.waits[k], &mut st.pending.waits[k]);
            }
            st.pending.n_waits = 0;
            e.n_waits = n;
        }
        // SAFETY: validated in pass 1.
        let waits = unsafe { check_waits(t) }?;
        for k in 0..waits.n {
            let slot = e.n_waits;
            // SAFETY: validated application fence; our slot is distinct from it.
            match unsafe { e.waits[slot].dup_from(waits.fence(k)) } {
                Ok(()) => e.n_waits += 1,
                Err(err) => result = Err(err),
            }
        }
        // SAFETY: validated in pass 1.
        let sigs = unsafe { check_signals(t, &st) }?;
        for spec in sigs.items[..sigs.n].iter().flatten() {
            // SAFETY: the fence pointer comes from the application's signal events.
            match unsafe { commit_signal(spec) } {
                Ok(s) => e.push_signal(s),
                Err(err) => result = Err(err),
            }
        }
        if i == last {
            st.pending.take_signals_into(&mut e);
        }
        e.fault = st.next_fault();
        if !ring.push(e) {
            result = Err(cudlaErrorOutOfResources);
        }
    }
    if ring.sleepers > 0 {
        dev.queue.cv.notify_all();
    }
    drop(ring);
    result
}

/// An event-only submission: its non-NULL lists replace the queued ones. Signals queued
/// before and replaced now keep their promised values: they go to the queue as a release
/// entry, signalled in FIFO order when the worker reaches it.
///
/// # Safety
/// `t`'s pointers must be NULL or valid for the lengths they declare.
unsafe fn submit_events(dev: &Device, st: &mut DevState, t: &cudlaTask) -> Result<(), cudlaStatus> {
    // SAFETY: contract.
    let waits = unsafe { check_waits(t) }?;
    // SAFETY: contract.
    let sigs = unsafe { check_signals(t, st) }?;
    check_limits(waits.n, sigs.sof, sigs.eof(), sigs.syncpoints)?;
    // What stays queued after this call, checked as one task would be.
    let (qn, qsof, qsp) = st.pending.signal_counts();
    let eff_waits = if waits.present {
        waits.n
    } else {
        st.pending.n_waits
    };
    let (eff_sof, eff_eof, eff_sp) = if sigs.present {
        (sigs.sof, sigs.eof(), sigs.syncpoints)
    } else {
        (qsof, qn - qsof, qsp)
    };
    check_limits(eff_waits, eff_sof, eff_eof, eff_sp)?;
    let release = sigs.present && qn > 0;
    let mut ring = lock(&dev.queue.ring);
    if release && ring.free() < 1 {
        return Err(cudlaErrorOutOfResources);
    }

    let mut result = Ok(());
    if waits.present {
        st.pending.clear_waits();
        for i in 0..waits.n {
            // SAFETY: validated application fence; our slot is distinct from it.
            match unsafe { st.pending.waits[i].dup_from(waits.fence(i)) } {
                Ok(()) => st.pending.n_waits += 1,
                Err(e) => result = Err(e),
            }
        }
    }
    if sigs.present {
        if release {
            let mut e = Entry::new(EntryKind::Release);
            e.submit_ns = nvsci::now_ns();
            st.pending.take_signals_into(&mut e);
            ring.push(e);
            if ring.sleepers > 0 {
                dev.queue.cv.notify_all();
            }
        }
        for spec in sigs.items[..sigs.n].iter().flatten() {
            // SAFETY: the fence pointer comes from the application's signal events.
            match unsafe { commit_signal(spec) } {
                Ok(s) => {
                    let k = st.pending.n_signals;
                    st.pending.signals[k] = Some(s);
                    st.pending.n_signals += 1;
                }
                Err(e) => result = Err(e),
            }
        }
    }
    result
}
