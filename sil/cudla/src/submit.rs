//! `cudlaSubmitTask`: validation (no side effects) and commit (no allocation).

use std::sync::Arc;

use cudla_sys::{
    CUDLA_NVSCISYNC_FENCE, CUDLA_NVSCISYNC_FENCE_SOF, CUDLA_SUBMIT_DIAGNOSTICS_TASK,
    CUDLA_SUBMIT_NOOP, CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE, CudlaFence, cudlaErrorInvalidAddress,
    cudlaErrorInvalidModule, cudlaErrorInvalidParam, cudlaErrorOutOfResources,
    cudlaErrorUnsupportedOperation, cudlaStatus, cudlaSuccess, cudlaTask,
};
use nvsci_sys::NvSciSyncFence;

use crate::device::{DevState, Device, Entry, Mem, Module, Sem, Signal, lock};
use crate::limits::*;
use crate::nvsci;

/// A validated signal event.
struct SignalSpec {
    sem: Arc<Sem>,
    sof: bool,
    /// The application's fence to write, or NULL (allowed for deterministic semaphores).
    fence: *mut NvSciSyncFence,
}

/// A task with NULL input and output tensor arrays only carries events.
fn is_event_only(t: &cudlaTask) -> bool {
    t.inputTensor.is_null() && t.outputTensor.is_null()
}

/// Validates the wait events; returns the pre-fence array and its length.
///
/// # Safety
/// The pointers in `t` must be NULL or valid for the lengths they declare.
unsafe fn check_waits(t: &cudlaTask) -> Result<(*const CudlaFence, usize), cudlaStatus> {
    if t.waitEvents.is_null() {
        return Ok((core::ptr::null(), 0));
    }
    // SAFETY: non-NULL, valid by the caller's contract.
    let we = unsafe { *t.waitEvents };
    let n = we.numEvents as usize;
    if n == 0 {
        return Ok((core::ptr::null(), 0));
    }
    if n > MAX_WAIT_EVENTS || we.preFences.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    for i in 0..n {
        // SAFETY: `preFences` holds `numEvents` entries by contract.
        let f = unsafe { *we.preFences.add(i) };
        if f.fence.is_null() || f.r#type != CUDLA_NVSCISYNC_FENCE {
            return Err(cudlaErrorInvalidParam);
        }
        // SAFETY: a non-NULL fence pointer supplied by the application.
        unsafe { nvsci::sync_fence_check(f.fence as *const NvSciSyncFence) }?;
    }
    // No duplicate fences (cuDLA 1.2.1 release notes). Cleared fences carry no identity.
    for i in 0..n {
        // SAFETY: as above.
        let a = unsafe { &*((*we.preFences.add(i)).fence as *const NvSciSyncFence) };
        if a.payload.iter().all(|&w| w == 0) {
            continue;
        }
        for j in i + 1..n {
            // SAFETY: as above.
            let b = unsafe { &*((*we.preFences.add(j)).fence as *const NvSciSyncFence) };
            if a.payload == b.payload {
                return Err(cudlaErrorInvalidParam);
            }
        }
    }
    Ok((we.preFences, n))
}

/// Validates the signal events.
///
/// # Safety
/// The pointers in `t` must be NULL or valid for the lengths they declare.
unsafe fn check_signal(t: &cudlaTask, st: &DevState) -> Result<Option<SignalSpec>, cudlaStatus> {
    if t.signalEvents.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, valid by the caller's contract.
    let se = unsafe { *t.signalEvents };
    match se.numEvents {
        0 => return Ok(None),
        1 => {}
        _ => return Err(cudlaErrorInvalidParam),
    }
    if se.devPtrs.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    // SAFETY: `devPtrs` holds `numEvents` (= 1) entries by contract.
    let token = unsafe { *se.devPtrs } as u64;
    let sem = st.find_sem(token).ok_or(cudlaErrorInvalidAddress)?.clone();
    if se.eofFences.is_null() {
        return Ok(Some(SignalSpec {
            sem,
            sof: false,
            fence: core::ptr::null_mut(),
        }));
    }
    // SAFETY: `eofFences` holds `numEvents` (= 1) entries by contract.
    let f = unsafe { *se.eofFences };
    let sof = if f.r#type == CUDLA_NVSCISYNC_FENCE {
        false
    } else if f.r#type == CUDLA_NVSCISYNC_FENCE_SOF {
        true
    } else {
        return Err(cudlaErrorInvalidParam);
    };
    Ok(Some(SignalSpec {
        sem,
        sof,
        fence: f.fence as *mut NvSciSyncFence,
    }))
}

/// Resolves an array of tensor tokens against the imports.
///
/// # Safety
/// `arr` must be NULL or hold `n` pointers.
unsafe fn tensor_mem(
    st: &DevState,
    arr: *const *const u64,
    i: usize,
) -> Result<&Arc<Mem>, cudlaStatus> {
    // SAFETY: `i < n` and `arr` is non-NULL (checked by the caller).
    let token = unsafe { *arr.add(i) } as u64;
    st.find_mem(token).ok_or(cudlaErrorInvalidAddress)
}

/// Validates a real (non-event-only) task.
///
/// # Safety
/// The pointers in `t` must be NULL or valid for the lengths they declare.
unsafe fn check_real(t: &cudlaTask, st: &DevState) -> Result<Arc<Module>, cudlaStatus> {
    let module = st
        .module
        .as_ref()
        .filter(|m| std::ptr::addr_eq(Arc::as_ptr(m), t.moduleHandle))
        .ok_or(cudlaErrorInvalidModule)?
        .clone();
    let (n_in, n_out) = (t.numInputTensors as usize, t.numOutputTensors as usize);
    if n_in != module.inputs.len() || n_out != module.outputs.len() {
        return Err(cudlaErrorInvalidParam);
    }
    if (n_in > 0 && t.inputTensor.is_null()) || (n_out > 0 && t.outputTensor.is_null()) {
        return Err(cudlaErrorInvalidParam);
    }
    let outs = t.outputTensor as *const *const u64;
    for i in 0..n_in {
        // SAFETY: `inputTensor` holds `numInputTensors` entries by contract.
        let m = unsafe { tensor_mem(st, t.inputTensor, i) }?;
        if m.size < module.inputs[i].size {
            return Err(cudlaErrorInvalidParam);
        }
    }
    for i in 0..n_out {
        // SAFETY: `outputTensor` holds `numOutputTensors` entries by contract.
        let o = unsafe { tensor_mem(st, outs, i) }?;
        if o.size < module.outputs[i].size || o.read_only {
            return Err(cudlaErrorInvalidParam);
        }
        for j in 0..n_in {
            // SAFETY: as above.
            if o.overlaps(unsafe { tensor_mem(st, t.inputTensor, j) }?) {
                return Err(cudlaErrorInvalidParam);
            }
        }
        for j in 0..i {
            // SAFETY: as above.
            if o.overlaps(unsafe { tensor_mem(st, outs, j) }?) {
                return Err(cudlaErrorInvalidParam);
            }
        }
    }
    Ok(module)
}

/// Reserves the next value of a signal and writes the application's fence for it.
///
/// # Safety
/// `spec.fence` must be NULL or point to a writable `NvSciSyncFence`.
unsafe fn commit_signal(spec: SignalSpec) -> Result<Signal, cudlaStatus> {
    let value = spec.sem.reserve();
    if !spec.fence.is_null() {
        // SAFETY: our duplicate of the object; the caller vouches for the fence.
        if let Err(e) = unsafe { nvsci::sync_update_fence(spec.sem.obj, value, spec.fence) } {
            spec.sem.unreserve();
            return Err(e);
        }
    }
    Ok(Signal {
        sem: spec.sem,
        sof: spec.sof,
    })
}

/// Checks the submission flags; returns whether NOOP is set.
fn check_flags(flags: u32) -> Result<bool, cudlaStatus> {
    if flags & CUDLA_SUBMIT_DIAGNOSTICS_TASK.0 != 0 {
        return Err(cudlaErrorUnsupportedOperation);
    }
    if flags & !(CUDLA_SUBMIT_NOOP.0 | CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE.0) != 0 {
        return Err(cudlaErrorInvalidParam);
    }
    Ok(flags & CUDLA_SUBMIT_NOOP.0 != 0)
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
    let noop = check_flags(flags)?;
    let num = num as usize;
    let mut st = crate::device::lock(&dev.state);

    // SAFETY: `tasks` points to `num` tasks by contract.
    let first = unsafe { &*tasks };
    if is_event_only(first) {
        if num != 1 {
            return Err(cudlaErrorInvalidParam);
        }
        // SAFETY: contract.
        let (fences, n) = unsafe { check_waits(first) }?;
        // SAFETY: contract.
        let sig = unsafe { check_signal(first, &st) }?;
        if n + usize::from(sig.as_ref().is_some_and(|s| s.sof)) > MAX_WAIT_EVENTS {
            return Err(cudlaErrorInvalidParam);
        }
        // A later event-only submission replaces the queued lists.
        st.pending.reset();
        for i in 0..n {
            // SAFETY: validated in `check_waits`; `fences[i].fence` is an application fence.
            let src = unsafe { (*fences.add(i)).fence } as *const NvSciSyncFence;
            // SAFETY: as above; our slot is distinct from the application's fence.
            unsafe { st.pending.waits[i].dup_from(src) }?;
            st.pending.n_waits = i + 1;
        }
        if let Some(spec) = sig {
            // SAFETY: the fence pointer comes from the application's signal events.
            st.pending.signals[0] = Some(unsafe { commit_signal(spec) }?);
        }
        return Ok(());
    }

    // Pass 1: validate every task without side effects.
    for i in 0..num {
        // SAFETY: `i < num`.
        let t = unsafe { &*tasks.add(i) };
        if is_event_only(t) {
            return Err(cudlaErrorInvalidParam);
        }
        // SAFETY: contract.
        unsafe { check_real(t, &st) }?;
        // SAFETY: contract.
        let (_, n) = unsafe { check_waits(t) }?;
        // SAFETY: contract.
        let sig = unsafe { check_signal(t, &st) }?;
        if n + usize::from(sig.as_ref().is_some_and(|s| s.sof)) > MAX_WAIT_EVENTS {
            return Err(cudlaErrorInvalidParam);
        }
    }
    let mut ring = lock(&dev.queue.ring);
    if ring.free() < num {
        return Err(cudlaErrorOutOfResources);
    }

    // Pass 2: commit (cannot fail on the application's input any more).
    let submit_ns = nvsci::now_ns();
    let mut result = Ok(());
    for i in 0..num {
        // SAFETY: `i < num`.
        let t = unsafe { &*tasks.add(i) };
        let mut e = Entry::new();
        e.seq = st.next_seq;
        st.next_seq += 1;
        e.submit_ns = submit_ns;
        e.noop = noop;
        // SAFETY: validated in pass 1.
        let module = unsafe { check_real(t, &st) }?;
        e.n_in = module.inputs.len();
        e.n_out = module.outputs.len();
        for k in 0..e.n_in {
            // SAFETY: validated in pass 1.
            e.inputs[k] = Some(unsafe { tensor_mem(&st, t.inputTensor, k) }?.clone());
        }
        for k in 0..e.n_out {
            let outs = t.outputTensor as *const *const u64;
            // SAFETY: validated in pass 1.
            e.outputs[k] = Some(unsafe { tensor_mem(&st, outs, k) }?.clone());
        }
        e.module = Some(module);
        if i == 0 {
            let n = st.pending.n_waits;
            for k in 0..n {
                core::mem::swap(&mut e.waits[k], &mut st.pending.waits[k]);
            }
            st.pending.n_waits = 0;
            e.n_waits = n;
        }
        // SAFETY: validated in pass 1.
        let (fences, n) = unsafe { check_waits(t) }?;
        for k in 0..n {
            // SAFETY: validated application fence.
            let src = unsafe { (*fences.add(k)).fence } as *const NvSciSyncFence;
            let slot = e.n_waits;
            // SAFETY: as above; our slot is distinct from the application's fence.
            if let Err(err) = unsafe { e.waits[slot].dup_from(src) } {
                result = Err(err);
                continue;
            }
            e.n_waits += 1;
        }
        // SAFETY: validated in pass 1.
        if let Some(spec) = unsafe { check_signal(t, &st) }? {
            // SAFETY: the fence pointer comes from the application's signal events.
            match unsafe { commit_signal(spec) } {
                Ok(s) => e.signals[0] = Some(s),
                Err(err) => result = Err(err),
            }
        }
        if i + 1 == num {
            e.signals[1] = st.pending.signals[0].take();
        }
        e.fault = st.next_fault();
        if !ring.push(e) {
            result = Err(cudlaErrorOutOfResources);
        }
    }
    dev.queue.cv.notify_all();
    drop(ring);
    result
}
