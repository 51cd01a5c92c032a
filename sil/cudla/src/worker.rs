//! The per-handle FIFO worker: waits for pre-fences, runs the network (or the diagnostics),
//! writes layer statistics, signals SOF and EOF fences, ends tasks at the task timeout.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use cudla_sys::{
    cudlaErrorDlaErrEngineTimeout, cudlaErrorDlaErrInvalidInput, cudlaErrorDlaErrInvalidPreAction,
    cudlaStatus,
};
use nvsci_sys::NvSciError_InterruptedCall;
use sil_common::thread::Ready;
use sil_common::usage::{ThreadMeter, ThreadTotals};
use sil_common::wait::{sleep_counted, until_clock};
use sil_onnx::dla;

use crate::device::{Device, Entry, EntryKind, lock};
use crate::diag;
use crate::limits::*;
use crate::nvsci;
use crate::stats::{self, TaskTiming};

/// What every DLA worker used, exited ones included (`cudlaSilGetThreadStats`).
pub(crate) static TOTALS: ThreadTotals = ThreadTotals::new();

/// The longest real-time sleep of a worker waiting for the SIL clock in real time (a stop
/// wakes it early).
const REAL_NAP: Duration = Duration::from_millis(50);

/// Blocks until the SIL clock reaches `deadline`, re-reading it every `poll` of real time:
/// [`REAL_NAP`] in real time, [`VIRTUAL_POLL`] in virtual time (others move the clock).
/// Returns `false` when the device is being destroyed.
fn until(dev: &Device, deadline: u64, poll: Duration) -> bool {
    until_clock(
        &dev.queue.ring,
        &dev.queue.cv,
        deadline,
        nvsci::now_ns,
        || dev.stopping(),
        poll,
    )
}

/// Takes the next task, or `None` when the device is being destroyed.
fn next(dev: &Device) -> Option<Entry> {
    let mut g = lock(&dev.queue.ring);
    loop {
        if dev.stopping() {
            return None;
        }
        if let Some(e) = g.pop() {
            dev.busy.store(true, Ordering::Release);
            return Some(e);
        }
        g = sleep_counted(&dev.queue.cv, g, |r| &mut r.sleepers, None);
    }
}

/// Signals the objects of `entry` selected by `sof`, with timestamp `ts` (ns of the SIL
/// clock, which is the SIL's DLA clock).
fn signal(entry: &Entry, sof: bool, ts: u64) {
    for s in entry.signals[..entry.n_signals].iter().flatten() {
        if s.sof == sof {
            // SAFETY: `s.sem.obj` is our duplicate of an imported sync object, alive while
            // the Arc is.
            let _ = unsafe { nvsci::sync_signal_engine(s.sem.obj, ts) };
        }
    }
}

/// Runs the network of `entry` over its imported buffers (each input unpacked from its
/// `kDLA_LINEAR` buffer, each output packed into one, padding written as 0) and writes its
/// layer statistics. Allocates nothing: the dense tensors and scratch are the module's.
fn run_network(entry: &Entry, timing: &TaskTiming) -> Result<(), cudlaStatus> {
    let Some(net) = entry.module.as_ref().and_then(|m| m.net.as_ref()) else {
        return Err(cudlaErrorDlaErrInvalidInput);
    };
    let mut guard = lock(&net.exec);
    let exec = &mut *guard;
    for (i, m) in entry.inputs[..entry.n_in].iter().enumerate() {
        let (Some(m), Some(d), Some(dense)) = (m, net.inputs.get(i), exec.inputs.get_mut(i)) else {
            return Err(cudlaErrorDlaErrInvalidInput);
        };
        // SAFETY: `m.ptr` points to at least `m.size >= d.size` bytes of the imported
        // buffer (checked at submission), kept alive by our duplicate handle inside `m`.
        // Submission checked that no output or statistics buffer of this task overlaps an
        // input, so nothing writes these bytes while we read them (the application must not
        // write inputs while the task runs, as on the real DLA).
        let src = unsafe { std::slice::from_raw_parts(m.ptr, d.size as usize) };
        dla::unpack(d, src, dense);
    }
    let (n_in, n_out) = (exec.inputs.len(), exec.outputs.len());
    let mut ins: [&[u8]; MAX_IO] = [&[]; MAX_IO];
    for (dst, src) in ins.iter_mut().zip(&exec.inputs) {
        *dst = src;
    }
    let mut outs: [&mut [u8]; MAX_IO] = Default::default();
    for (dst, src) in outs.iter_mut().zip(exec.outputs.iter_mut()) {
        *dst = src;
    }
    net.model
        .run(&ins[..n_in], &mut outs[..n_out], &mut exec.scratch)
        .map_err(|_| cudlaErrorDlaErrInvalidInput)?;
    for (i, m) in entry.outputs[..entry.n_out].iter().enumerate() {
        let (Some(m), Some(d), Some(dense)) = (m, net.outputs.get(i), exec.outputs.get(i)) else {
            return Err(cudlaErrorDlaErrInvalidInput);
        };
        // SAFETY: as above; submission checked that outputs overlap neither each other nor
        // any input or statistics buffer, so this is the only view of these bytes here.
        let dst = unsafe { std::slice::from_raw_parts_mut(m.ptr, d.size as usize) };
        dla::pack(d, dense, dst);
        if entry.fault.corrupt && i == 0 {
            for b in dst.iter_mut() {
                *b ^= 0xff;
            }
        }
    }
    for (k, m) in entry.stats[..entry.n_stats].iter().enumerate() {
        let (Some(m), Some(d)) = (m, net.model.statistics().get(k)) else {
            return Err(cudlaErrorDlaErrInvalidInput);
        };
        // SAFETY: `m.ptr` points to at least `m.size >= raw_size(d)` bytes (checked at
        // submission), kept alive by `m`; statistics buffers overlap nothing else of the task.
        let out = unsafe { std::slice::from_raw_parts_mut(m.ptr, stats::raw_size(d)) };
        stats::write_raw(&net.model, k, timing, out).map_err(|_| cudlaErrorDlaErrInvalidInput)?;
    }
    Ok(())
}

/// Writes the diagnostics result of `entry` into its output.
fn run_diagnostics(dev: &Device, entry: &Entry, timing: &TaskTiming) -> Result<(), cudlaStatus> {
    let Some(Some(m)) = entry.outputs.first() else {
        return Err(cudlaErrorDlaErrInvalidInput);
    };
    // SAFETY: the output import holds at least `RESULT_LEN` bytes (checked at submission
    // against the diagnostics descriptor), kept alive by `m`; it is the task's only buffer.
    let out = unsafe { std::slice::from_raw_parts_mut(m.ptr, diag::RESULT_LEN) };
    diag::write_result(
        &diag::Run {
            dla: u32::try_from(dev.dla).unwrap_or(u32::MAX),
            failed_mask: entry.fault.permanent_mask,
            seq: timing.seq,
            start_ns: timing.start_ns,
            end_ns: timing.end_ns,
        },
        out,
    );
    if entry.fault.corrupt {
        for b in out.iter_mut() {
            *b ^= 0xff;
        }
    }
    Ok(())
}

/// The worker thread body.
pub(crate) fn run(dev: Arc<Device>, ready: Ready) {
    let mut free_at = 0u64;
    // Dropped on exit, which adds this thread's last figures to the totals.
    let mut meter = ThreadMeter::start(&TOTALS);
    ready.done();
    while let Some(mut entry) = next(&dev) {
        meter.op();
        let virt = nvsci::clock_is_virtual();

        // Replaced event-only signals: reached in FIFO order, no work.
        if entry.kind == EntryKind::Release {
            let at = if virt {
                entry.submit_ns.max(free_at)
            } else {
                nvsci::now_ns()
            };
            free_at = free_at.max(at);
            publish_if_idle(&dev, &mut meter);
            signal(&entry, true, at);
            signal(&entry, false, at);
            finish(&dev, entry);
            continue;
        }

        // 1. Pre-fences: asleep until reached, or woken by `cudlaDestroyDevice`.
        let mut reached = 0u64;
        let mut status = cudla_sys::cudlaSuccess;
        for w in &mut entry.waits[..entry.n_waits] {
            match w.wait_engine(&dev.stop) {
                Ok(ts) => reached = reached.max(ts),
                Err(e) if e == NvSciError_InterruptedCall => return,
                Err(_) => status = cudlaErrorDlaErrInvalidPreAction,
            }
            w.clear();
        }

        // 2. Start (SOF).
        let start = if virt {
            entry.submit_ns.max(reached).max(free_at)
        } else {
            nvsci::now_ns()
        };
        signal(&entry, true, start);

        // 3. Modelled time, cut at the task timeout. A hung task never ends by itself: the
        // timeout ends it (in virtual time once the clock has reached start + timeout).
        let timeout_ns = u64::from(dev.timeout_ms.load(Ordering::Relaxed)) * 1_000_000;
        let (duration, hung) = if entry.fault.hang {
            (timeout_ns, true)
        } else {
            let model_ns = if entry.noop {
                0
            } else if entry.kind == EntryKind::Diagnostics {
                DIAG_EXEC_NS
            } else {
                lock(&dev.sampler).sample()
            };
            (model_ns.saturating_add(entry.fault.extra_ns), false)
        };
        let duration = if hung || duration > timeout_ns {
            status = cudlaErrorDlaErrEngineTimeout;
            timeout_ns
        } else {
            duration
        };
        let end = start.saturating_add(duration);
        let timing = TaskTiming {
            seq: entry.seq,
            start_ns: start,
            end_ns: end,
        };

        // 4. Execute (a timed-out task writes nothing).
        if !entry.noop && status.is_success() {
            let r = meter.compute(|| match entry.kind {
                EntryKind::Diagnostics => run_diagnostics(&dev, &entry, &timing),
                _ => run_network(&entry, &timing),
            });
            if let Err(e) = r {
                status = e;
            }
        }
        let stamp = if virt {
            if hung && !until(&dev, end, VIRTUAL_POLL) {
                return;
            }
            end
        } else {
            if !until(&dev, end, REAL_NAP) {
                return;
            }
            nvsci::now_ns().max(end)
        };
        free_at = end;

        // 5. Complete (EOF): latch the error first, so a waiter woken by the fence sees it.
        if !status.is_success() {
            dev.set_error(status);
        } else if entry.fault.async_status != 0 {
            dev.set_error(cudlaStatus(entry.fault.async_status));
        }
        publish_if_idle(&dev, &mut meter);
        signal(&entry, false, stamp);
        finish(&dev, entry);
    }
}

/// When no task is queued behind the one ending, adds the thread's figures to the totals
/// before its EOF is signalled, so they include all work once the application sees the
/// last fence (two system calls per idle period, not per task).
fn publish_if_idle(dev: &Device, meter: &mut ThreadMeter) {
    if lock(&dev.queue.ring).is_empty() {
        meter.publish();
    }
}

/// Drops a finished entry (its references) and wakes anyone waiting for progress.
fn finish(dev: &Device, entry: Entry) {
    drop(entry);
    dev.completed.fetch_add(1, Ordering::AcqRel);
    dev.busy.store(false, Ordering::Release);
    if lock(&dev.queue.ring).sleepers > 0 {
        dev.queue.cv.notify_all();
    }
}
