//! CPU workers: one thread per CPU engine instance, running its tasks in schedule order.
//!
//! For each released frame, a worker takes its tasks in order; for each task planned in the
//! frame it sleeps until the task's release offset, waits for the task's dependencies (with
//! the task's deadline as the limit), runs it (or not, when skipped), records the result on
//! the board and signals the task's completion semaphore exactly once. Nothing here
//! allocates: the thread, its semaphore handles and its wait context are made at init.
//!
//! A signal never overtakes the task's dependencies. The validator orders buffer hazards
//! through chains of waits (a GPU task of frame f + 1 may be ordered after a GPU reader of
//! frame f only through a CPU task between them), so a CPU signal must mean "and everything
//! this run waited for has ended". A run that did not see its dependencies end (skipped
//! because the worker reached it after its deadline, or run after a dependency timed out)
//! records its result at once but *owes* its signal: the worker gives it when the
//! dependencies reach their values, checking between tasks and while idle, in frame order.

use std::thread;

use crate::engine::cpu::{AccessGate, BufferView, CpuCtx};
use crate::engine::nvsci::{CpuWaitContext, RawFence, SyncObj, Waited};
use crate::engine::platform::{self, Clock};
use crate::error::{Context, Error, Phase, Result, ScheduleFault};
use crate::exec::board::{Board, CpuResult, RunStatus};
use crate::exec::state::copy_index;
use crate::exec::wait::{Until, WaitResult, wait_for};
use crate::limits::{MAX_WAITS, OWED_SIGNALS};
use crate::mem::AccessLedger;
use crate::table::{BufferId, Schedule, TaskId};
use crate::trace::{Event, Record, TraceLog};

/// A CPU task body as the executive calls it: with the run-time-checked [`CpuCtx`].
///
/// Applications do not implement it by hand: the schedule generator emits one typed trait per
/// CPU task (its context exposes only the task's declared buffers) and implements `CpuTask`
/// for it. Tests with hand-written tables implement it directly; every buffer access is then
/// checked at run time against the schedule's declarations.
///
/// ```
/// use orin_exec::exec::{CpuTask, TaskFault};
/// use orin_exec::engine::cpu::CpuCtx;
/// struct Count(u64);
/// impl CpuTask for Count {
///     fn run(&mut self, _ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
///         self.0 += 1;
///         Ok(())
///     }
/// }
/// ```
pub trait CpuTask: Send {
    /// Run once for the current frame.
    fn run(&mut self, ctx: &CpuCtx<'_>) -> core::result::Result<(), TaskFault>;
}

/// Why a CPU task run failed (it becomes a `task_error` fault that keeps this cause).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TaskFault {
    /// The task's own verdict (e.g. an implausible result), with an application-defined code.
    App {
        /// Application-defined code.
        code: u32,
    },
    /// A runtime call of the task failed (a buffer not admitted, a misaligned typed view).
    Runtime(Error),
}

impl From<Error> for TaskFault {
    fn from(e: Error) -> Self {
        TaskFault::Runtime(e)
    }
}

impl core::fmt::Display for TaskFault {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TaskFault::App { code } => write!(f, "the task reported failure code {code}"),
            TaskFault::Runtime(e) => write!(f, "{e}"),
        }
    }
}

/// The cause of one CPU task's most recent failure, with its frame: written by its worker
/// before it signals, read by the executive when it reports the fault (a short critical
/// section each).
pub(crate) struct CauseSlot(critical_section::Mutex<core::cell::Cell<Option<(u64, TaskFault)>>>);

impl CauseSlot {
    pub(crate) const fn new() -> Self {
        CauseSlot(critical_section::Mutex::new(core::cell::Cell::new(None)))
    }

    fn record(&self, frame: u64, fault: TaskFault) {
        critical_section::with(|cs| self.0.borrow(cs).set(Some((frame, fault))));
    }

    /// The cause recorded in `frame`, if any.
    pub(crate) fn get(&self, frame: u64) -> Option<TaskFault> {
        critical_section::with(|cs| self.0.borrow(cs).get())
            .filter(|(f, _)| *f == frame)
            .map(|(_, fault)| fault)
    }
}

/// Trace ring capacity (records) of a [`Storage`](crate::exec::Storage) that does not say.
pub const TRACE_CAPACITY: usize = 1 << 13;

/// Everything a worker shares with the executive.
#[derive(Clone, Copy)]
pub(crate) struct Shared {
    pub schedule: &'static Schedule,
    pub board: &'static Board<'static>,
    pub trace: &'static TraceLog,
    pub ledger: AccessLedger<'static>,
    /// Each buffer's first copy in `views`.
    pub offsets: &'static [u16],
    /// CPU mapping of every buffer copy.
    pub views: &'static [BufferView],
    pub clock: Clock,
    /// Virtual execution time of each CPU task (virtual clock only).
    pub virtual_costs: &'static [u64],
    pub causes: &'static [CauseSlot],
    pub virtual_wait_cap_us: u64,
}

pub(crate) struct WorkerTask {
    pub id: TaskId,
    pub body: &'static mut dyn CpuTask,
}

/// A run that owes its signal: the first run of a task whose dependencies had not reached
/// their values when it ended, with the later runs of the task that ended while it was owed
/// (signals stay in frame order).
#[derive(Clone, Copy)]
pub(crate) struct OwedRun {
    /// The task's index in the worker's `tasks`.
    task: usize,
    /// Signals to give: this run's and those of the later runs behind it.
    count: u32,
    /// Per wait of the task, the value its dependency must reach first (0: none): this
    /// run's own, so a later run's dependency (which may wait for this run) never holds it.
    need: [u64; MAX_WAITS],
    /// When the latest of its runs ended (the time its signals carry on the virtual clock).
    end_ns: u64,
}

pub(crate) struct Worker {
    pub shared: Shared,
    /// Wait for each frame's release spinning rather than parked (on the real clock): one of
    /// its tasks spins on a dependency from the release on (`cpu_wait = "spin"`).
    pub spin_for_release: bool,
    /// Its tasks in schedule order, then `None`.
    pub tasks: &'static mut [Option<WorkerTask>],
    /// Its handles of every semaphore it signals or checks, indexed by task.
    pub sems: &'static mut [Option<SyncObj>],
    pub wait: CpuWaitContext,
    pub fence: RawFence,
    /// The runs that owe their signals, oldest first.
    pub owed: heapless::Vec<OwedRun, OWED_SIGNALS>,
    /// Stop was requested: the frames left are skipped.
    pub stopped: bool,
}

struct Gate<'w> {
    shared: Shared,
    frame: u64,
    sems: &'w [Option<SyncObj>],
    wait: core::cell::RefCell<&'w mut CpuWaitContext>,
    fence: core::cell::RefCell<&'w mut RawFence>,
    refused: core::cell::Cell<bool>,
}

impl Gate<'_> {
    fn sem(&self, task: TaskId) -> Option<&SyncObj> {
        self.sems.get(task.0 as usize)?.as_ref()
    }

    /// Whether `task` has reached `value` (checked, never waited for).
    fn reached(&self, task: TaskId, value: u64) -> Result<bool> {
        let context = Context::Semaphore(self.shared.schedule.task(task).name);
        let mut fence = self.fence.borrow_mut();
        self.fence_of(task, value, &mut fence, context)?;
        Ok(self.wait.borrow_mut().wait(&fence, 0, context)? == Waited::Reached)
    }

    /// Wait for `task` to reach `value` following its CPU wait policy, within `until`.
    fn wait(&self, task: TaskId, value: u64, until: Until) -> Result<WaitResult> {
        let context = Context::Semaphore(self.shared.schedule.task(task).name);
        let mut fence = self.fence.borrow_mut();
        self.fence_of(task, value, &mut fence, context)?;
        let policy = self.shared.schedule.cpu_wait(task);
        wait_for(&mut self.wait.borrow_mut(), &fence, policy, until, context)
    }

    fn fence_of(
        &self,
        task: TaskId,
        value: u64,
        fence: &mut RawFence,
        context: Context,
    ) -> Result<()> {
        let sem = self.sem(task).ok_or(Error::BadSchedule {
            fault: ScheduleFault::NoSemaphoreForDependency,
            context,
        })?;
        sem.fence_at(value, fence, context)
    }
}

impl AccessGate for Gate<'_> {
    fn admit(&self, task: TaskId, buffer: BufferId, write: bool) -> Result<BufferView> {
        let s = self.shared.schedule;
        let desc = s
            .buffers
            .get(buffer.0 as usize)
            .ok_or(Error::NoSuchBuffer { buffer: buffer.0 })?;
        if !self.shared.ledger.declared(task, buffer, write) {
            self.refused.set(true);
            return Err(Error::BufferNotDeclared {
                task: s.task(task).name,
                buffer: desc.name,
            });
        }
        for pre in self.shared.ledger.prerequisites(task, buffer, write) {
            let Some(frame) = self.frame.checked_sub(pre.lag as u64) else {
                continue;
            };
            let Some(value) = self.shared.board.fence(pre.task, frame) else {
                continue;
            };
            if !self.reached(pre.task, value)? {
                self.refused.set(true);
                let engine = s.engines.get(s.task(pre.task).engine.0 as usize);
                return Err(Error::BufferBusy {
                    buffer: desc.name,
                    holder: engine.map_or(crate::error::Holder::Cpu, holder_of),
                    task: s.task(pre.task).name,
                });
            }
        }
        let copy = (self.frame % desc.multiplicity.max(1) as u64) as usize;
        let index = copy_index(self.shared.offsets, buffer.0 as usize, copy);
        Ok(self
            .shared
            .views
            .get(index)
            .copied()
            .unwrap_or(BufferView::NONE))
    }

    fn buffer_name(&self, buffer: BufferId) -> &'static str {
        self.shared
            .schedule
            .buffers
            .get(buffer.0 as usize)
            .map_or("?", |b| b.name)
    }
}

fn make_gate<'w>(
    shared: Shared,
    frame: u64,
    sems: &'w [Option<SyncObj>],
    wait: &'w mut CpuWaitContext,
    fence: &'w mut RawFence,
) -> Gate<'w> {
    Gate {
        shared,
        frame,
        sems,
        wait: core::cell::RefCell::new(wait),
        fence: core::cell::RefCell::new(fence),
        refused: core::cell::Cell::new(false),
    }
}

pub(crate) fn holder_of(e: &crate::table::EngineDesc) -> crate::error::Holder {
    use crate::error::Holder;
    use crate::table::EngineKind;
    match e.kind {
        EngineKind::Cpu => Holder::Cpu,
        EngineKind::Gpu => Holder::Gpu(e.instance),
        EngineKind::Dla => Holder::Dla(e.instance),
        EngineKind::Pva => Holder::Pva(e.instance),
    }
}

fn spin_for(clock: Clock, ns: u64) {
    if clock == Clock::Real && ns > 0 {
        let end = clock.now_ns() + ns;
        while clock.now_ns() < end {
            core::hint::spin_loop();
        }
    }
}

impl Worker {
    /// The thread body: run frames until stopped, then release the worker's handles.
    pub fn run(mut self) -> Result<()> {
        let mut next = 0u64;
        while !self.shared.board.stopping() {
            // Every released frame, in order, even late: each planned task signals exactly
            // once per frame, or the fence values of all later frames would be off by one.
            if !self.owed.is_empty() {
                self.settle()?;
            }
            match self.shared.board.released() {
                Some(f) if f >= next => {
                    self.frame(next)?;
                    next += 1;
                }
                _ if self.spin_for_release && self.shared.clock == Clock::Real => {
                    core::hint::spin_loop()
                }
                // Owed signals hold accelerator work back: look again soon.
                _ if !self.owed.is_empty() => {
                    thread::park_timeout(std::time::Duration::from_millis(1))
                }
                _ => thread::park_timeout(std::time::Duration::from_millis(5)),
            }
        }
        // Stopped: the frames released but not reached are skipped (each task signals as a
        // no-op, after its dependencies), then the owed signals are given as their
        // dependencies end, for at most a second (a hung engine holds them for good).
        self.stopped = true;
        while self.shared.board.released().is_some_and(|f| f >= next) {
            self.frame(next)?;
            next += 1;
        }
        let give_up = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while !self.owed.is_empty() && std::time::Instant::now() < give_up {
            self.settle()?;
            thread::park_timeout(std::time::Duration::from_millis(1));
        }
        self.fence.clear();
        for s in self.sems.iter_mut().filter_map(Option::take) {
            let _ = s.free();
        }
        self.wait.free();
        Ok(())
    }

    fn frame(&mut self, frame: u64) -> Result<()> {
        let Some((plan, release)) = self.shared.board.plan(frame) else {
            return Err(Error::Phase(Phase::WorkerLostStep));
        };
        let shared = self.shared;
        for i in 0..self.tasks.len() {
            let Some(id) = self.tasks[i].as_ref().map(|t| t.id) else {
                break;
            };
            if !plan.planned(shared.schedule, id) {
                continue;
            }
            if !self.owed.is_empty() {
                self.settle()?;
            }
            let desc = *shared.schedule.task(id);
            let deadline = release + desc.deadline_ns;
            let virtual_clock = shared.clock == Clock::Virtual;
            if !virtual_clock && !self.stopped {
                shared.clock.sleep_until(release + desc.release_ns);
            }
            // A frame that ended before the worker got to it, or one left when it stopped:
            // signal without running.
            let missed = self.stopped || (!virtual_clock && shared.clock.now_ns() > deadline);
            let mut status_bits = if missed {
                RunStatus::SKIPPED | RunStatus::MISSED
            } else {
                RunStatus::empty()
            };
            let mut ready_at = release + desc.release_ns;
            let mut spin_ns = 0;
            // Dependencies are waited for until the latest start that still meets the
            // deadline at WCET: a task whose inputs are late still gets its WCET to react
            // (e.g. to brake) before its deadline.
            let latest_start = deadline
                .saturating_sub(desc.wcet_ns)
                .max(release + desc.release_ns);
            // The dependencies that had not reached their values (bit k: `desc.waits[k]`).
            let mut unreached = 0u32;
            for (k, w) in desc.waits.iter().enumerate() {
                let Some(dep_frame) = frame.checked_sub(w.lag as u64) else {
                    continue;
                };
                let Some(value) = shared.board.fence(w.task, dep_frame) else {
                    continue;
                };
                if missed {
                    // Not waited for, only looked at: the signal waits for them instead.
                    let gate = make_gate(shared, frame, self.sems, &mut self.wait, &mut self.fence);
                    if !gate.reached(w.task, value)? {
                        unreached |= 1 << k;
                    }
                    continue;
                }
                let until = Until {
                    clock: shared.clock,
                    release_ns: release,
                    limit_ns: latest_start,
                    virtual_cap_us: shared.virtual_wait_cap_us,
                };
                let gate = make_gate(shared, frame, self.sems, &mut self.wait, &mut self.fence);
                let waited = gate.wait(w.task, value, until).map(|r| {
                    spin_ns += r.spun_ns;
                    r.reached
                });
                match waited {
                    Ok(true) => {
                        if virtual_clock && let Some(ts) = self.signal_time(w.task, value) {
                            ready_at = ready_at.max(ts);
                        }
                    }
                    Ok(false) => {
                        status_bits |= RunStatus::DEPENDENCY_TIMEOUT;
                        unreached |= 1 << k;
                    }
                    Err(e) => return Err(e),
                }
            }
            let start = if virtual_clock {
                ready_at
            } else {
                shared.clock.now_ns()
            };
            shared.trace.push(Record {
                time_ns: start,
                frame,
                task: id.0,
                event: Event::TaskStart,
                value: 0,
            });
            let extra = shared.board.injected_overrun(id, frame);
            if plan.skipped(id) || missed {
                status_bits |= RunStatus::SKIPPED;
            } else {
                let gate = make_gate(shared, frame, self.sems, &mut self.wait, &mut self.fence);
                let ctx = CpuCtx::new(
                    &gate,
                    id,
                    desc.name,
                    frame,
                    !status_bits.contains(RunStatus::DEPENDENCY_TIMEOUT),
                );
                let body = self.tasks[i].as_mut().map(|t| &mut t.body);
                if let Some(Err(fault)) = body.map(|b| b.run(&ctx)) {
                    status_bits |= RunStatus::TASK_ERROR;
                    if let Some(cause) = shared.causes.get(id.0 as usize) {
                        cause.record(frame, fault);
                    }
                }
                if gate.refused.get() {
                    status_bits |= RunStatus::ACCESS_REFUSED;
                }
                spin_for(shared.clock, extra);
            }
            let end = if virtual_clock {
                let cost = if status_bits.contains(RunStatus::SKIPPED) {
                    0
                } else {
                    shared
                        .virtual_costs
                        .get(id.0 as usize)
                        .copied()
                        .unwrap_or(0)
                };
                start + cost + extra
            } else {
                shared.clock.now_ns()
            };
            // An earlier run of the task that still owes its signal.
            let earlier = self.owed.iter().rposition(|o| o.task == i);
            if unreached != 0 || earlier.is_some() {
                status_bits |= RunStatus::SIGNAL_OWED;
            }
            shared.board.record_result(
                id,
                frame,
                CpuResult {
                    start_ns: start,
                    end_ns: end,
                    status: status_bits,
                    spin_ns,
                },
            );
            let event = if status_bits.contains(RunStatus::SKIPPED) {
                Event::TaskSkipped
            } else {
                Event::TaskEnd
            };
            shared.trace.push(Record {
                time_ns: end,
                frame,
                task: id.0,
                event,
                value: end - start,
            });
            self.signal_or_owe(i, frame, end, unreached, earlier)?;
        }
        Ok(())
    }

    /// Signal task `i`'s run of `frame` that ended at `end`, or owe the signal: while the
    /// dependencies of the run in `unreached` (bit k: wait k) have not reached their values,
    /// or while an earlier run of the task owes its signal (`earlier`, its index in `owed`:
    /// it goes first).
    fn signal_or_owe(
        &mut self,
        i: usize,
        frame: u64,
        end: u64,
        unreached: u32,
        earlier: Option<usize>,
    ) -> Result<()> {
        let Some(id) = self.tasks.get(i).and_then(Option::as_ref).map(|t| t.id) else {
            return Ok(());
        };
        if unreached == 0 {
            let Some(k) = earlier else {
                return self.signal(id, end);
            };
            // Behind the earlier run: its own dependencies have ended.
            self.owed[k].count += 1;
            self.owed[k].end_ns = end;
            return Ok(());
        }
        let mut run = OwedRun {
            task: i,
            count: 1,
            need: [0; MAX_WAITS],
            end_ns: end,
        };
        let (board, schedule) = (self.shared.board, self.shared.schedule);
        let waits = schedule.task(id).waits.iter().zip(run.need.iter_mut());
        for (k, (w, need)) in waits.enumerate() {
            if unreached & (1 << k) == 0 {
                continue;
            }
            let dep_frame = frame.checked_sub(w.lag as u64);
            *need = dep_frame.and_then(|f| board.fence(w.task, f)).unwrap_or(0);
        }
        // Full: wait for the oldest runs to be given (a stopping worker gives up and
        // signals: nothing runs after it).
        while self.owed.is_full() && !self.stopped {
            self.settle()?;
            if self.owed.is_full() {
                thread::park_timeout(std::time::Duration::from_millis(1));
            }
        }
        if self.owed.push(run).is_err() {
            return self.signal(id, end);
        }
        Ok(())
    }

    /// Give the owed signals whose run's dependencies have all reached their values
    /// (checked, never waited for), each task's in frame order.
    fn settle(&mut self) -> Result<()> {
        let shared = self.shared;
        // Tasks with an owed run still held: their later runs wait.
        let mut held = 0u64;
        let mut k = 0;
        while k < self.owed.len() {
            let run = self.owed[k];
            let Some(id) = self
                .tasks
                .get(run.task)
                .and_then(Option::as_ref)
                .map(|t| t.id)
            else {
                k += 1;
                continue;
            };
            if held & (1 << run.task) != 0 || !self.needs_reached(id, &run.need)? {
                held |= 1 << run.task;
                k += 1;
                continue;
            }
            // On the virtual clock the signals carry the time they were given: when the last
            // dependency ended, if after the run.
            let mut end = run.end_ns;
            if shared.clock == Clock::Virtual {
                let waits = shared.schedule.task(id).waits.iter().zip(run.need);
                for (w, value) in waits.filter(|(_, v)| *v != 0) {
                    end = end.max(self.signal_time(w.task, value).unwrap_or(0));
                }
            }
            for _ in 0..run.count {
                self.signal(id, end)?;
            }
            self.owed.remove(k);
        }
        Ok(())
    }

    /// Whether each dependency of task `id` has reached its value in `need` (0: none).
    fn needs_reached(&mut self, id: TaskId, need: &[u64; MAX_WAITS]) -> Result<bool> {
        let gate = make_gate(self.shared, 0, self.sems, &mut self.wait, &mut self.fence);
        let waits = self.shared.schedule.task(id).waits.iter().zip(need);
        for (w, &value) in waits.filter(|(_, v)| **v != 0) {
            if !gate.reached(w.task, value)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn signal_time(&self, task: TaskId, value: u64) -> Option<u64> {
        let sem = self.sems.get(task.0 as usize)?.as_ref()?;
        platform::sil::signal_timestamp_ns(
            sem,
            value,
            Context::Task(self.shared.schedule.task(task).name),
        )
        .ok()
    }

    fn signal(&self, task: TaskId, end: u64) -> Result<()> {
        let context = Context::Semaphore(self.shared.schedule.task(task).name);
        let sem = self
            .sems
            .get(task.0 as usize)
            .and_then(Option::as_ref)
            .ok_or(Error::BadSchedule {
                fault: ScheduleFault::NoSemaphoreForCpuTask,
                context,
            })?;
        match self.shared.clock {
            Clock::Real => sem.signal(context),
            Clock::Virtual => platform::sil::signal_at(sem, end, context),
        }
    }
}
