//! The per-handle FIFO worker: waits for pre-fences, runs the network, signals.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use cudla_sys::{
    cudlaErrorDlaErrEngineTimeout, cudlaErrorDlaErrInvalidInput, cudlaErrorDlaErrInvalidPreAction,
    cudlaStatus,
};
use nvsci_sys::NvSciError_Timeout;

use crate::device::{Device, Entry, lock};
use crate::limits::*;
use crate::nvsci;

/// Sleeps (real time) until `deadline` on the SIL clock, waking early on stop.
/// Returns `false` when the device is being destroyed.
fn pause_until(dev: &Device, deadline: u64) -> bool {
    loop {
        if dev.stop.load(Ordering::Acquire) {
            return false;
        }
        let now = nvsci::now_ns();
        if now >= deadline {
            return true;
        }
        let nap = (deadline - now).min(50_000_000);
        let g = lock(&dev.queue.ring);
        if dev.stop.load(Ordering::Acquire) {
            return false;
        }
        let _ = dev.queue.cv.wait_timeout(g, Duration::from_nanos(nap));
    }
}

/// Blocks until the device is being destroyed.
fn hang(dev: &Device) {
    let mut g = lock(&dev.queue.ring);
    while !dev.stop.load(Ordering::Acquire) {
        g = match dev.queue.cv.wait_timeout(g, Duration::from_millis(50)) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
    }
}

/// Takes the next task, or `None` when the device is being destroyed.
fn next(dev: &Device) -> Option<Entry> {
    let mut g = lock(&dev.queue.ring);
    loop {
        if dev.stop.load(Ordering::Acquire) {
            return None;
        }
        if let Some(e) = g.pop() {
            dev.busy.store(true, Ordering::Release);
            return Some(e);
        }
        g = match dev.queue.cv.wait(g) {
            Ok(g) => g,
            Err(e) => e.into_inner(),
        };
    }
}

/// Signals the semaphores of `entry` selected by `sof`.
fn signal(entry: &Entry, sof: bool, ts: u64) {
    for s in entry.signals.iter().flatten() {
        if s.sof == sof {
            // SAFETY: `s.sem.obj` is our duplicate of an imported sync object, alive while
            // the Arc is.
            let _ = unsafe { nvsci::sync_signal_engine(s.sem.obj, ts) };
        }
    }
}

/// Runs the network of `entry` over its imported buffers.
fn run_network(entry: &Entry) -> Result<(), cudlaStatus> {
    let Some(module) = entry.module.as_ref() else {
        return Err(cudlaErrorDlaErrInvalidInput);
    };
    let l = module.loadable();
    let mut ins: [&[u8]; MAX_IO] = [&[]; MAX_IO];
    let mut outs: [&mut [u8]; MAX_IO] = Default::default();
    for (i, m) in entry.inputs[..entry.n_in].iter().enumerate() {
        let (Some(m), Some(d)) = (m, l.input(i)) else {
            return Err(cudlaErrorDlaErrInvalidInput);
        };
        // SAFETY: `m.ptr` points to at least `m.size >= d.size` bytes of the imported
        // buffer, kept alive by our duplicate handle inside `m`. Submission checked that no
        // output of this task overlaps an input, so this shared view is not aliased by the
        // mutable views below (the application must not write inputs while the task runs,
        // as on the real DLA).
        ins[i] = unsafe { std::slice::from_raw_parts(m.ptr, d.size as usize) };
    }
    for (i, m) in entry.outputs[..entry.n_out].iter().enumerate() {
        let (Some(m), Some(d)) = (m, l.output(i)) else {
            return Err(cudlaErrorDlaErrInvalidInput);
        };
        // SAFETY: as above; submission checked that outputs overlap neither each other nor
        // any input, so this is the only view of these bytes inside the library.
        outs[i] = unsafe { std::slice::from_raw_parts_mut(m.ptr, d.size as usize) };
    }
    let mut scratch = lock(&module.scratch);
    l.run(&ins[..entry.n_in], &mut outs[..entry.n_out], &mut scratch)
        .map_err(|_| cudlaErrorDlaErrInvalidInput)?;
    if entry.fault.corrupt
        && let Some(o) = outs[..entry.n_out].first_mut()
    {
        for b in o.iter_mut() {
            *b ^= 0xff;
        }
    }
    Ok(())
}

/// The worker thread body.
pub(crate) fn run(dev: Arc<Device>) {
    let mut free_at = 0u64;
    while let Some(mut entry) = next(&dev) {
        // 1. Pre-fences (re-checking the stop flag between slices).
        let mut reached = 0u64;
        let mut status = cudla_sys::cudlaSuccess;
        for w in &mut entry.waits[..entry.n_waits] {
            loop {
                if dev.stop.load(Ordering::Acquire) {
                    return;
                }
                match w.wait_engine(FENCE_POLL_US) {
                    Ok(ts) => {
                        reached = reached.max(ts);
                        break;
                    }
                    Err(e) if e == NvSciError_Timeout => continue,
                    Err(_) => {
                        status = cudlaErrorDlaErrInvalidPreAction;
                        break;
                    }
                }
            }
            w.clear();
        }

        // 2. Start.
        let virt = nvsci::clock_is_virtual();
        let start = if virt {
            entry.submit_ns.max(reached).max(free_at)
        } else {
            nvsci::now_ns()
        };
        signal(&entry, true, start);
        if entry.fault.hang {
            hang(&dev);
            return;
        }

        // 3. Execute.
        let model_ns = if entry.noop {
            0
        } else {
            lock(&dev.sampler).sample()
        };
        let mut duration = model_ns.saturating_add(entry.fault.extra_ns);
        let timeout_ns = u64::from(dev.timeout_ms.load(Ordering::Relaxed)) * 1_000_000;
        if duration > timeout_ns {
            duration = timeout_ns;
            status = cudlaErrorDlaErrEngineTimeout;
        }
        if !entry.noop
            && status.is_success()
            && let Err(e) = run_network(&entry)
        {
            status = e;
        }
        let end = start.saturating_add(duration);
        let stamp = if virt {
            end
        } else {
            if !pause_until(&dev, end) {
                return;
            }
            nvsci::now_ns().max(end)
        };
        free_at = end;

        // 4. Complete: latch the error first, so a waiter woken by the fence sees it.
        if !status.is_success() {
            dev.set_error(status);
        } else if entry.fault.async_status != 0 {
            dev.set_error(cudlaStatus(entry.fault.async_status));
        }
        signal(&entry, false, stamp);
        drop(entry);
        dev.completed.fetch_add(1, Ordering::AcqRel);
        dev.busy.store(false, Ordering::Release);
        let _g = lock(&dev.queue.ring);
        dev.queue.cv.notify_all();
    }
}
