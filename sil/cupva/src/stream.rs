//! Streams: one FIFO worker thread per stream (in-order execution) and a bounded queue of
//! [`QUEUE_CAPACITY`] commands, preallocated at creation; the worker waits for fences, runs
//! programs as their models, signals requested fences, ends programs at the execution
//! timeout and records each command's status.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use orin_exec_kernel_model::{Arg, Launch, MAX_PARAMS};
use sil_common::handle::lock;
use sil_common::thread::Ready;
use sil_common::timing::{TimingModel, TimingSampler};
use sil_common::wait::{sleep_counted, until_clock};

use crate::code::{self, Code};
use crate::limits::*;
use crate::mem;
use crate::models::{Model, Program};
use crate::nvsci;
use crate::sync::{SyncObj, Waited};

/// The timing model of each VPU: `[engine][vpu]`.
static SAMPLERS: [[Mutex<TimingSampler>; VPUS]; ENGINES] = [const {
    [const {
        Mutex::new(TimingSampler::new(
            TimingModel::Fixed(DEFAULT_EXEC_NS),
            DEFAULT_SEED,
        ))
    }; VPUS]
}; ENGINES];

/// Sets the timing model of VPU `vpu` of PVA `engine` (0-based).
pub(crate) fn set_timing(engine: usize, vpu: usize, s: TimingSampler) -> bool {
    match SAMPLERS.get(engine).and_then(|e| e.get(vpu)) {
        Some(m) => {
            *lock(m) = s;
            true
        }
        None => false,
    }
}

/// A fault kind (`CUPVA_SIL_FAULT_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FaultKind {
    /// The program never ends by itself: the execution timeout ends it.
    Hang,
    /// The program takes this much longer.
    Late(u64),
    /// The program's command status reports this error.
    Error(Code),
    /// The bytes of the program's first pointer parameter are flipped after it ran.
    Corrupt,
}

/// A queued fault rule.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FaultRule {
    /// What happens.
    pub kind: FaultKind,
    /// Programs still to pass before it applies.
    pub skip: u64,
    /// Programs still to affect (0 = unlimited).
    pub remaining: u64,
}

/// Fault effects resolved for one program at submit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FaultEffect {
    hang: bool,
    extra_ns: u64,
    error: Code,
    corrupt: bool,
}

/// A fence a command waits for.
#[derive(Clone, Default)]
pub(crate) struct FenceRef {
    /// Its sync object.
    pub sync: Option<Arc<SyncObj>>,
    /// Primitive id (imported objects).
    pub id: u64,
    /// Value to reach.
    pub value: u64,
}

/// A program run, fixed at submit.
pub(crate) struct Run {
    /// The program (`None` only in a spare box).
    pub prog: Option<Arc<Program>>,
    /// Its arguments, in the model's order.
    pub args: [Arg; MAX_PARAMS],
    /// Faults injected into it.
    pub fault: FaultEffect,
}

/// What a queued command does.
#[derive(Default)]
pub(crate) enum Op {
    /// Nothing (a free slot, or a barrier: in-order streams need no more).
    #[default]
    Barrier,
    /// Run a program.
    Program(Box<Run>),
    /// Wait for fences (first `n`).
    Wait([FenceRef; MAX_WAIT_FENCES], usize),
    /// Signal requested fences (first `n`).
    Signal([Option<Arc<SyncObj>>; MAX_REQUEST_FENCES], usize),
}

/// One queued command.
#[derive(Default)]
pub(crate) struct Entry {
    /// What it does.
    pub op: Op,
    /// Sequence number on the stream.
    pub seq: u64,
    /// SIL clock at submit.
    pub submit_ns: u64,
    /// Execution timeout in ns (`u64::MAX`: none).
    pub exec_timeout_ns: u64,
}

/// The bounded FIFO of a stream: its slots hold entries allocated at creation, and an entry
/// moves by value, so pushing and popping allocate nothing (a program's [`Run`] box is one
/// of the slots' own boxes, reused).
pub(crate) struct Ring {
    slots: Vec<Entry>,
    /// Spare program boxes (one per slot): boxed so that a program moves into and out of
    /// a queue entry (`Op::Program`) without allocating.
    #[allow(clippy::vec_box)]
    runs: Vec<Box<Run>>,
    head: usize,
    len: usize,
    /// Threads asleep on the stream's condition variable for a push or a free slot (the
    /// idle worker, a submitter waiting for space).
    pub sleepers: u32,
}

impl Ring {
    fn new() -> Self {
        let mut slots = Vec::with_capacity(QUEUE_CAPACITY);
        slots.resize_with(QUEUE_CAPACITY, Entry::default);
        let runs = (0..QUEUE_CAPACITY)
            .map(|_| {
                Box::new(Run {
                    prog: None,
                    args: [Arg::U32(0); MAX_PARAMS],
                    fault: FaultEffect::default(),
                })
            })
            .collect();
        Ring {
            slots,
            runs,
            head: 0,
            len: 0,
            sleepers: 0,
        }
    }

    /// Free entries.
    pub(crate) fn free(&self) -> usize {
        self.slots.len() - self.len
    }

    /// A spare program box (there is one per free slot).
    pub(crate) fn take_run(&mut self) -> Option<Box<Run>> {
        self.runs.pop()
    }

    /// Returns a program box.
    pub(crate) fn give_run(&mut self, r: Box<Run>) {
        if self.runs.len() < self.runs.capacity() {
            self.runs.push(r);
        }
    }

    /// Appends an entry (the caller checked [`Ring::free`]).
    pub(crate) fn push(&mut self, e: Entry) {
        let i = (self.head + self.len) % self.slots.len();
        self.slots[i] = e;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = std::mem::take(&mut self.slots[self.head]);
        self.head = (self.head + 1) % self.slots.len();
        self.len -= 1;
        Some(e)
    }
}

/// The status of one command: its sequence number and `cupvaError_t`.
struct StatusSlot {
    seq: AtomicU64,
    code: AtomicU32,
}

/// A stream (`cupvaStream_t` is its token).
pub(crate) struct Stream {
    /// Small id (in command status handles).
    pub id: u32,
    /// PVA instance (0-based).
    pub engine: usize,
    /// VPU whose timing model applies (0-based).
    pub vpu: usize,
    /// Queue.
    pub ring: Mutex<Ring>,
    /// Signalled on push, pop, completion and stop.
    pub cv: Condvar,
    /// Next sequence number (under the ring lock for submits).
    pub next_seq: AtomicU64,
    /// Commands finished.
    pub completed: AtomicU64,
    /// Non-zero once the stream is being destroyed.
    pub stop: AtomicU32,
    /// Whether the worker is inside a command.
    pub busy: AtomicBool,
    /// Fault rules.
    pub faults: Mutex<[Option<FaultRule>; MAX_FAULTS]>,
    statuses: Vec<StatusSlot>,
    /// The worker.
    pub worker: Mutex<Option<JoinHandle<()>>>,
}

impl Stream {
    /// A stream on PVA `engine`, timed as VPU `vpu`.
    pub(crate) fn new(id: u32, engine: usize, vpu: usize) -> Self {
        Stream {
            id,
            engine,
            vpu,
            ring: Mutex::new(Ring::new()),
            cv: Condvar::new(),
            next_seq: AtomicU64::new(1),
            completed: AtomicU64::new(0),
            stop: AtomicU32::new(0),
            busy: AtomicBool::new(false),
            faults: Mutex::new([None; MAX_FAULTS]),
            statuses: (0..STATUS_SLOTS)
                .map(|_| StatusSlot {
                    seq: AtomicU64::new(0),
                    code: AtomicU32::new(0),
                })
                .collect(),
            worker: Mutex::new(None),
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire) != 0
    }

    /// Resolves the faults for the next program (allocates nothing).
    pub(crate) fn next_fault(&self) -> FaultEffect {
        let mut eff = FaultEffect::default();
        for slot in lock(&self.faults).iter_mut() {
            let Some(r) = slot else { continue };
            if r.skip > 0 {
                r.skip -= 1;
                continue;
            }
            match r.kind {
                FaultKind::Hang => eff.hang = true,
                FaultKind::Late(ns) => eff.extra_ns = eff.extra_ns.saturating_add(ns),
                FaultKind::Error(c) => eff.error = c,
                FaultKind::Corrupt => eff.corrupt = true,
            }
            if r.remaining == 1 {
                *slot = None;
            } else if r.remaining > 1 {
                r.remaining -= 1;
            }
        }
        eff
    }

    /// Records the status of command `seq`.
    fn set_status(&self, seq: u64, c: Code) {
        let s = &self.statuses[(seq % STATUS_SLOTS as u64) as usize];
        s.code.store(c, Ordering::Release);
        s.seq.store(seq, Ordering::Release);
    }

    /// The status of command `seq` (low 32 bits): `OPERATION_PENDING` while queued or
    /// running, `INVALID_ARGUMENT` when the status is no longer kept or never existed.
    pub(crate) fn status(&self, seq32: u32) -> Code {
        let next = self.next_seq.load(Ordering::Acquire);
        // The newest command with these low bits.
        let high = (next.wrapping_sub(1)) & !0xffff_ffff;
        let mut seq = high | u64::from(seq32);
        if seq >= next {
            seq = seq.wrapping_sub(1 << 32);
        }
        if seq == 0 || seq >= next || next - seq > STATUS_SLOTS as u64 {
            return code::INVALID_ARGUMENT;
        }
        let s = &self.statuses[(seq % STATUS_SLOTS as u64) as usize];
        if s.seq.load(Ordering::Acquire) != seq {
            return code::OPERATION_PENDING;
        }
        let c = s.code.load(Ordering::Acquire);
        if s.seq.load(Ordering::Acquire) == seq {
            c
        } else {
            code::INVALID_ARGUMENT
        }
    }

    /// Stops the worker (also when it waits on a fence or a hung program) and drops queued
    /// commands, signalling nothing.
    pub(crate) fn shutdown(&self, syncs: &[Arc<SyncObj>]) {
        self.stop.store(1, Ordering::Release);
        {
            let _g = lock(&self.ring);
            self.cv.notify_all();
        }
        nvsci::wake_waiters();
        for s in syncs {
            s.wake();
        }
        let handle = lock(&self.worker).take();
        if let Some(h) = handle
            && h.thread().id() != std::thread::current().id()
        {
            let _ = h.join();
        }
        let mut r = lock(&self.ring);
        while let Some(e) = r.pop() {
            drop(e);
        }
    }
}

/// The longest real-time sleep of a worker waiting for the SIL clock in real time (a stop
/// wakes it early).
const REAL_NAP: Duration = Duration::from_millis(50);

/// Blocks until the SIL clock reaches `deadline`, re-reading it every `poll` of real time:
/// [`REAL_NAP`] in real time, [`VIRTUAL_POLL`] in virtual time (others move the clock).
/// Returns `false` when the stream stops.
fn until(s: &Stream, deadline: u64, poll: Duration) -> bool {
    until_clock(
        &s.ring,
        &s.cv,
        deadline,
        nvsci::now_ns,
        || s.stopping(),
        poll,
    )
}

fn next(s: &Stream) -> Option<Entry> {
    let mut g = lock(&s.ring);
    loop {
        if s.stopping() {
            return None;
        }
        if let Some(e) = g.pop() {
            s.busy.store(true, Ordering::Release);
            if g.sleepers > 0 {
                s.cv.notify_all();
            }
            return Some(e);
        }
        g = sleep_counted(&s.cv, g, |r| &mut r.sleepers, None);
    }
}

/// Runs the model of `run` over the PVA memory; flips its first buffer on a corrupt fault.
fn run_model(run: &Run, now_ns: u64) -> Code {
    let Some(prog) = &run.prog else {
        return code::VPU_APPLICATION_ERROR;
    };
    let kinds = prog.model.params();
    let args = &run.args[..kinds.len()];
    let regions = mem::read();
    // The ranges a corrupt-output fault flips: what a Rust model borrowed for writing; for
    // a C model, from its last pointer argument to the end of that buffer.
    let mut flip = [(0usize, 0usize); MAX_PARAMS];
    let mut n_flip = 0;
    let ok = match &prog.model {
        Model::Rust(m) => {
            let mut memory = mem::RegionMemory::new(&regions);
            let ok = Launch::new(args, &mut memory)
                .with_now_ns(now_ns)
                .run(*m)
                .is_ok();
            n_flip = memory.n_written;
            flip = memory.written;
            ok
        }
        Model::C { callback, user, .. } => {
            let mut kind_vals = [0u32; MAX_PARAMS];
            let mut values = [0u64; MAX_PARAMS];
            for (i, a) in args.iter().enumerate() {
                kind_vals[i] = a.kind() as u32;
                values[i] = match *a {
                    Arg::Ptr(p) | Arg::U64(p) => p,
                    Arg::U32(v) => v.into(),
                    Arg::I32(v) => u64::from(v as u32),
                    Arg::F32(v) => v.to_bits().into(),
                };
            }
            if let Some(Arg::Ptr(p)) = args.iter().rev().find(|a| matches!(a, Arg::Ptr(_)))
                && let Some(r) = regions.iter().find(|r| r.contains(*p as usize))
            {
                flip[0] = (*p as usize, r.end() - *p as usize);
                n_flip = 1;
            }
            let r = cupva_sys::sil::CupvaSilProgramRun {
                numArgs: args.len() as u32,
                kinds: kind_vals.as_ptr(),
                values: values.as_ptr(),
                nowNs: now_ns,
            };
            // SAFETY: the registrant vouches that the callback may run with its user
            // pointer on any thread; `r` and its arrays outlive the call.
            unsafe { callback(*user as *mut core::ffi::c_void, &r) == 0 }
        }
    };
    if !ok {
        return code::VPU_APPLICATION_ERROR;
    }
    if run.fault.corrupt {
        for &(p, len) in &flip[..n_flip] {
            // SAFETY: `[p, p + len)` lies in a live region (checked when it was handed out or
            // found above; the read lock is still held); the program's buffers are the
            // PVA's while it runs.
            let bytes = unsafe { core::slice::from_raw_parts_mut(p as *mut u8, len) };
            for b in bytes {
                *b ^= 0xff;
            }
        }
    }
    code::NONE
}

/// The worker thread body.
pub(crate) fn worker(s: Arc<Stream>, ready: Ready) {
    let mut free_at = 0u64;
    ready.done();
    while let Some(mut e) = next(&s) {
        let virt = nvsci::clock_is_virtual();
        let mut status = code::NONE;
        match &mut e.op {
            Op::Barrier => {}
            Op::Wait(fences, n) => {
                for f in &fences[..*n] {
                    let Some(sync) = &f.sync else { continue };
                    match sync.wait(f.id, f.value, -1, &s.stop) {
                        Waited::Reached(ts) => free_at = free_at.max(ts),
                        Waited::Aborted => return,
                        Waited::TimedOut => status = code::INVALID_STATE,
                    }
                }
            }
            Op::Signal(syncs, n) => {
                let at = if virt {
                    e.submit_ns.max(free_at)
                } else {
                    nvsci::now_ns()
                };
                free_at = free_at.max(at);
                // The status first: a waiter woken by the fence sees it.
                s.set_status(e.seq, code::NONE);
                for sync in syncs[..*n].iter().flatten() {
                    sync.signal(at);
                }
            }
            Op::Program(run) => {
                let start = if virt {
                    e.submit_ns.max(free_at)
                } else {
                    nvsci::now_ns()
                };
                let model_ns = lock(&SAMPLERS[s.engine][s.vpu]).sample();
                let duration = if run.fault.hang {
                    u64::MAX
                } else {
                    model_ns.saturating_add(run.fault.extra_ns)
                };
                let timed_out = duration > e.exec_timeout_ns;
                let duration = duration.min(e.exec_timeout_ns);
                if timed_out {
                    status = code::COMMAND_EXECUTION_TIMEOUT;
                } else {
                    status = run_model(run, start);
                    if status == code::NONE && run.fault.error != code::NONE {
                        status = run.fault.error;
                    }
                }
                // A hung program without an execution timeout ends only with the stream.
                let end = start.saturating_add(duration);
                let reached = if virt {
                    // Stamped ahead; only a timed-out program waits for the clock to reach
                    // its end (the timeout is observed, as on the engine).
                    !timed_out || until(&s, end, VIRTUAL_POLL)
                } else {
                    until(&s, end, REAL_NAP)
                };
                if !reached {
                    return;
                }
                free_at = if virt { end } else { nvsci::now_ns().max(end) };
            }
        }
        s.set_status(e.seq, status);
        if let Op::Program(mut run) = std::mem::take(&mut e.op) {
            run.prog = None;
            lock(&s.ring).give_run(run);
        }
        drop(e);
        s.completed.fetch_add(1, Ordering::AcqRel);
        s.busy.store(false, Ordering::Release);
        if lock(&s.ring).sleepers > 0 {
            s.cv.notify_all();
        }
    }
}
