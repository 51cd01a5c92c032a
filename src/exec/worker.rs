//! CPU workers: one thread per CPU engine instance, running its tasks in schedule order.
//!
//! For each released frame, a worker takes its tasks in order; for each task planned in the
//! frame it sleeps until the task's release offset, waits for the task's dependencies (with
//! the task's deadline as the limit), runs it (or not, when skipped), records the result on
//! the board and signals the task's completion semaphore exactly once. Nothing here
//! allocates: the thread, its semaphore handles and its wait context are made at init.

use std::thread;

use crate::engine::cpu::{AccessGate, BufferView, CpuCtx};
use crate::engine::nvsci::{CpuWaitContext, RawFence, SyncObj, Waited};
use crate::engine::platform::{self, Clock};
use crate::error::{Context, Error, Phase, Result, ScheduleFault};
use crate::exec::board::{Board, CpuResult, RunStatus};
use crate::exec::state::copy_index;
use crate::exec::wait::{Until, WaitResult, wait_for};
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

pub(crate) struct Worker {
    pub shared: Shared,
    /// Its tasks in schedule order, then `None`.
    pub tasks: &'static mut [Option<WorkerTask>],
    /// Its handles of every semaphore it signals or checks, indexed by task.
    pub sems: &'static mut [Option<SyncObj>],
    pub wait: CpuWaitContext,
    pub fence: RawFence,
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
        if !AccessLedger::declared(s, task, buffer, write) {
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
            match self.shared.board.released() {
                Some(f) if f >= next => {
                    self.frame(next)?;
                    next += 1;
                }
                _ => thread::park_timeout(std::time::Duration::from_millis(5)),
            }
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
            let desc = *shared.schedule.task(id);
            let deadline = release + desc.deadline_ns;
            let virtual_clock = shared.clock == Clock::Virtual;
            if !virtual_clock {
                shared.clock.sleep_until(release + desc.release_ns);
            }
            // A frame that ended before the worker got to it: signal without running.
            let missed = !virtual_clock && shared.clock.now_ns() > deadline;
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
            for w in desc.waits.iter().filter(|_| !missed) {
                let Some(dep_frame) = frame.checked_sub(w.lag as u64) else {
                    continue;
                };
                let Some(value) = shared.board.fence(w.task, dep_frame) else {
                    continue;
                };
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
                    Ok(false) => status_bits |= RunStatus::DEPENDENCY_TIMEOUT,
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
            self.signal(id, end)?;
        }
        Ok(())
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
