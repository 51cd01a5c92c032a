//! Events: recorded into a stream as an operation; the worker stamps them with the stream
//! clock when it reaches them.

use core::ffi::c_uint;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use cuda_sys::*;

use crate::driver::{out, require_ctx, require_init};
use crate::registry::Registry;
use crate::stream::{Op, stream_of};
use crate::{CuResult, ret};

/// One event.
pub(crate) struct Event {
    flags: c_uint,
    st: Mutex<EvState>,
    cv: Condvar,
}

#[derive(Clone, Copy, Default)]
struct EvState {
    /// Generation of the latest `cuEventRecord` (0: never recorded).
    recorded: u64,
    /// Highest generation completed.
    done: u64,
    /// Stream time of the completed generation.
    ts_ns: u64,
    /// Error of the completed generation (stream sticky error, or destroyed stream).
    err: Option<CUresult>,
}

impl Event {
    fn lock(&self) -> MutexGuard<'_, EvState> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a new record generation (called with the stream's queue locked).
    pub(crate) fn next_generation(&self) -> u64 {
        let mut s = self.lock();
        s.recorded += 1;
        s.recorded
    }

    /// Completes generation `gen` (the worker reached it, or discarded it with `err`).
    pub(crate) fn complete(&self, generation: u64, ts_ns: u64, err: Option<CUresult>) {
        let mut s = self.lock();
        if generation > s.done {
            s.done = generation;
            s.ts_ns = ts_ns;
            s.err = err;
        }
        drop(s);
        self.cv.notify_all();
    }

    fn status(s: &EvState) -> CuResult<()> {
        if s.done < s.recorded {
            return Err(CUDA_ERROR_NOT_READY);
        }
        match s.err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

static EVENTS: Registry<Event> = Registry::new();

fn event_of(h: CUevent) -> CuResult<Arc<Event>> {
    EVENTS.get(h as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

const EVENT_FLAGS: c_uint =
    CU_EVENT_BLOCKING_SYNC.0 | CU_EVENT_DISABLE_TIMING.0 | CU_EVENT_INTERPROCESS.0;

/// Creates an event. `CU_EVENT_BLOCKING_SYNC` and `CU_EVENT_DISABLE_TIMING` are accepted;
/// `CU_EVENT_INTERPROCESS` is `CUDA_ERROR_INVALID_VALUE` without `DISABLE_TIMING` and
/// `CUDA_ERROR_NOT_SUPPORTED` with it (no IPC in the SIL).
///
/// # Safety
/// `phEvent` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventCreate(phEvent: *mut CUevent, Flags: c_uint) -> CUresult {
    ret((|| {
        require_ctx()?;
        if phEvent.is_null() || Flags & !EVENT_FLAGS != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if Flags & CU_EVENT_INTERPROCESS.0 != 0 {
            return Err(if Flags & CU_EVENT_DISABLE_TIMING.0 == 0 {
                CUDA_ERROR_INVALID_VALUE
            } else {
                CUDA_ERROR_NOT_SUPPORTED
            });
        }
        let h = EVENTS.insert(Arc::new(Event {
            flags: Flags,
            st: Mutex::new(EvState::default()),
            cv: Condvar::new(),
        }));
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(phEvent, h as CUevent) }
    })())
}

/// Records the event at the current end of `hStream` (never the default stream). A stream
/// with a sticky error returns it and records nothing.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventRecord(hEvent: CUevent, hStream: CUstream) -> CUresult {
    ret((|| {
        require_init()?;
        let ev = event_of(hEvent)?;
        let s = stream_of(hStream)?;
        s.enqueue(1, |q| {
            let generation = ev.next_generation();
            q.push(Op::Event { ev, generation });
            Ok(())
        })
    })())
}

/// `CUDA_SUCCESS` if the latest record completed (or the event was never recorded),
/// `CUDA_ERROR_NOT_READY` if not, or the error of the stream that discarded it.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventQuery(hEvent: CUevent) -> CUresult {
    ret((|| {
        require_init()?;
        let ev = event_of(hEvent)?;
        Event::status(&ev.lock())
    })())
}

/// Blocks until the latest record completed (no timeout, like the real driver).
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventSynchronize(hEvent: CUevent) -> CUresult {
    ret((|| {
        require_init()?;
        let ev = event_of(hEvent)?;
        let mut s = ev.lock();
        while s.done < s.recorded {
            s = ev.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        Event::status(&s)
    })())
}

/// Milliseconds between the stream times of two completed events (exact in virtual time).
/// Either created with `CU_EVENT_DISABLE_TIMING` or never recorded: `CUDA_ERROR_INVALID_HANDLE`;
/// either not complete: `CUDA_ERROR_NOT_READY`.
///
/// # Safety
/// `pMilliseconds` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventElapsedTime(
    pMilliseconds: *mut f32,
    hStart: CUevent,
    hEnd: CUevent,
) -> CUresult {
    ret((|| {
        require_init()?;
        let (a, b) = (event_of(hStart)?, event_of(hEnd)?);
        if pMilliseconds.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if (a.flags | b.flags) & CU_EVENT_DISABLE_TIMING.0 != 0 {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        // One lock at a time (no lock-order issue between two concurrent calls).
        let sa = *a.lock();
        let sb = *b.lock();
        if sa.recorded == 0 || sb.recorded == 0 {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        Event::status(&sa)?;
        Event::status(&sb)?;
        let (t0, t1) = (sa.ts_ns, sb.ts_ns);
        let ms = (t1 as i128 - t0 as i128) as f64 / 1e6;
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(pMilliseconds, ms as f32) }
    })())
}

/// Destroys an event; records still queued complete harmlessly.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuEventDestroy_v2(hEvent: CUevent) -> CUresult {
    ret((|| {
        require_init()?;
        EVENTS
            .remove(hEvent as usize)
            .map(drop)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)
    })())
}
