//! The hosted cyclic executive: the no_std core ([`Cycle`], which releases major frames at
//! absolute times, plans and submits accelerator work as early as the schedule allows (frame
//! `f + lookahead` while frame `f` runs), monitors deadlines and budgets, and applies the
//! health monitor's reactions at the next frame not yet planned) over the hosted platform:
//! engines through their libraries, CPU tasks on worker threads, completion detected by fence
//! value, and the trace, counters and fault records.
//!
//! Nothing in [`Executive::step`] allocates, loads, registers or reconciles; every wait is
//! bounded by a task deadline (or, on the virtual clock, by a real-time cap).

use crate::engine::dla::Submission;
use crate::engine::nvsci::Waited;
use crate::engine::os::{RealtimeStatus, ThreadGrant};
use crate::engine::platform::{Clock, ClockLease};
use crate::error::{
    Context, Error, Holder, InjectionRefusal, Phase, Result, ScheduleFault, Status, Table,
};
use crate::exec::board::{Board, RunStatus};
use crate::exec::cycle::{
    Completion, CpuCall, CpuDispatch, CpuTasks, Cycle, Dep, Deps, Event as CoreEvent, Outcome,
    Platform, Run,
};
use crate::exec::graphs::{self, Waits};
use crate::exec::health::{FaultCounts, HealthMonitor};
use crate::exec::plan::{FramePlan, mode_tasks, tasks_of};
use crate::exec::runtime::SafeStop;
use crate::exec::state::{Stamps, State, Submit};
use crate::exec::wait::{Until, wait_for};
use crate::exec::worker::{Shared, TaskFault};
use crate::limits::{FENCE_HISTORY, MAX_COPIES, MAX_MODES, MAX_WAITS};
use crate::table::{Action, BufferId, CpuWait, EngineKind, FaultKind, ModeId, Schedule, TaskId};
use crate::trace::TraceLog;
use crate::trace::record::NO_TASK;
use crate::trace::{Event, Record};

/// A fault to inject (SIL libraries only), for fault campaigns and the demo's `--inject`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Injection {
    /// The DLA task never signals.
    DlaHang,
    /// The DLA task completes `extra_ns` late.
    DlaLate {
        /// Extra execution time.
        extra_ns: u64,
    },
    /// The DLA task completes, then `cudlaGetLastError` reports an error.
    DlaError,
    /// The DLA task's first output is corrupted.
    DlaCorrupt,
    /// The PVA program never ends by itself: its execution timeout ends it (after the
    /// task's deadline), and its fence comes late.
    PvaHang,
    /// The PVA program completes `extra_ns` late.
    PvaLate {
        /// Extra execution time.
        extra_ns: u64,
    },
    /// The PVA program completes, then its command status reports an error
    /// (`CupvaCheckCommandStatus`).
    PvaError,
    /// The bytes the PVA program wrote are corrupted.
    PvaCorrupt,
    /// The CPU task runs `extra_ns` longer.
    CpuOverrun {
        /// Extra execution time.
        extra_ns: u64,
    },
}

impl Injection {
    /// Its name, as the demo's `--inject` spells it.
    ///
    /// ```
    /// use orin_exec::exec::Injection;
    /// assert_eq!(Injection::CpuOverrun { extra_ns: 1 }.name(), "cpu-overrun");
    /// ```
    pub const fn name(&self) -> &'static str {
        match self {
            Injection::DlaHang => "dla-hang",
            Injection::DlaLate { .. } => "dla-late",
            Injection::DlaError => "dla-error",
            Injection::DlaCorrupt => "dla-corrupt",
            Injection::PvaHang => "pva-hang",
            Injection::PvaLate { .. } => "pva-late",
            Injection::PvaError => "pva-error",
            Injection::PvaCorrupt => "pva-corrupt",
            Injection::CpuOverrun { .. } => "cpu-overrun",
        }
    }

    /// The engine kind whose tasks it can target.
    pub const fn engine(&self) -> EngineKind {
        match self {
            Injection::CpuOverrun { .. } => EngineKind::Cpu,
            Injection::PvaHang
            | Injection::PvaLate { .. }
            | Injection::PvaError
            | Injection::PvaCorrupt => EngineKind::Pva,
            _ => EngineKind::Dla,
        }
    }
}

/// An injection the executive accepted but that could not take effect (its task does not
/// run in its frame's mode), kept instead of dropped ([`Executive::not_applied`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotApplied {
    /// The frame it was aimed at.
    pub frame: u64,
    /// The task.
    pub task: TaskId,
    /// The injection.
    pub injection: Injection,
    /// The mode of the frame, which does not run the task.
    pub mode: ModeId,
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    frame: u64,
    task: TaskId,
    injection: Injection,
}

/// What one major frame did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameReport {
    /// The frame.
    pub frame: u64,
    /// Its mode.
    pub mode: ModeId,
    /// Release error (actual minus planned), ns.
    pub release_error_ns: i64,
    /// Faults detected while monitoring it.
    pub faults: u32,
    /// Injections found not applicable while planning this step's frames (their task does
    /// not run in the frame's mode; [`Executive::not_applied`] lists them).
    pub injections_not_applied: u32,
    /// Whether the executive stopped (safe stop).
    pub stopped: bool,
}

/// A fault the monitor detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultRecord {
    /// The frame it was detected in.
    pub frame: u64,
    /// The task.
    pub task: TaskId,
    /// What happened.
    pub kind: FaultKind,
    /// The reaction taken.
    pub action: Action,
    /// The typed error describing it.
    pub error: Error,
}

/// Per-task counters kept by the executive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskCounters {
    /// Completed runs (not skipped).
    pub runs: u64,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Budget overruns.
    pub overruns: u64,
    /// Fence timeouts.
    pub timeouts: u64,
    /// Engine or task errors.
    pub errors: u64,
    /// Runs skipped by the health monitor.
    pub skipped: u64,
    /// CPU time spent spinning on its behalf (its `cpu_wait` policy): by the executive
    /// waiting for its completion and, for a CPU task, by its worker waiting for its
    /// dependencies, ns.
    pub spin_ns: u64,
}

impl TaskCounters {
    /// All zero.
    pub const ZERO: TaskCounters = TaskCounters {
        runs: 0,
        deadline_misses: 0,
        overruns: 0,
        timeouts: 0,
        errors: 0,
        skipped: 0,
        spin_ns: 0,
    };
}

/// What the executive's accelerator submissions cost, cumulative since seal
/// ([`Executive::submit_stats`]). The benchmark divides these by the raw driver calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubmitStats {
    /// GPU task submissions.
    pub gpu_tasks: u64,
    /// Host time spent enqueueing them (runtime code and driver calls), ns. For a
    /// graph-mode stream: setting the frame's values and launching the graph.
    pub gpu_enqueue_ns: u64,
    /// Driver stream operations they enqueued (waits, launches, writes; a graph launch
    /// counts its nodes).
    pub stream_ops: u64,
    /// Graph launches (`submit = "graph"`: one per graph-mode stream and frame).
    pub graph_launches: u64,
    /// Dependencies that needed no semaphore wait because the stream already orders them.
    pub waits_elided: u64,
    /// DLA task submissions.
    pub dla_tasks: u64,
    /// Host time spent enqueueing them, ns.
    pub dla_enqueue_ns: u64,
    /// PVA task submissions.
    pub pva_tasks: u64,
    /// Host time spent enqueueing them (fence imports, the submission, the fence export), ns.
    pub pva_enqueue_ns: u64,
}

/// The sealed, running runtime: the executive core ([`Cycle`]) over the hosted platform (its
/// engines, CPU worker threads, trace and fault records).
pub struct Executive {
    cycle: Cycle<'static>,
    host: Hosted,
}

/// The hosted platform of the executive core: engines driven through their libraries, CPU
/// tasks run by worker threads that pace themselves (released through the board), the trace,
/// the counters and the fault records. The core decides what happens when; this carries it
/// out and keeps the record.
struct Hosted {
    shared: Shared,
    st: State,
    clock: Clock,
    /// Dropped last of all (after `shutdown` has released the engines): leaves virtual time.
    _lease: ClockLease,
    t0: u64,
    counters: &'static mut [TaskCounters],
    safe_state: Option<fn(&SafeStop)>,
    pending: heapless::Vec<Pending, 16>,
    not_applied: heapless::Deque<NotApplied, 16>,
    not_applied_in_step: u32,
    not_applied_total: u64,
    realtime: Option<RealtimeStatus>,
    executive_thread: ThreadGrant,
    recent: heapless::Deque<FaultRecord, 16>,
    stats: SubmitStats,
    /// Some stream submits in graph mode (else the per-frame graph steps are skipped).
    graphs: bool,
    /// Per planned frame (`frame % FENCE_HISTORY`): the tasks submitted as no-ops (their
    /// engine's error state is not theirs to report).
    noop: [u64; FENCE_HISTORY],
    /// Per mode, the tasks it runs ([`FramePlan::planned`] as a bit test).
    mode_tasks: [u64; MAX_MODES],
    /// The CPU tasks (bit per task index): the workers trace their runs.
    cpu: u64,
    /// The tasks the monitor looks at only when due (bit per task index; `Hosted::due`).
    when_due: u64,
}

/// What seal hands the executive.
pub(crate) struct Sealed {
    pub shared: Shared,
    pub st: State,
    pub counters: &'static mut [TaskCounters],
    pub faults: &'static mut [FaultCounts],
    pub clock: Clock,
    pub lease: ClockLease,
    /// Release time of frame 0.
    pub t0: u64,
    pub realtime: Option<RealtimeStatus>,
    pub executive_thread: ThreadGrant,
    pub safe_state: Option<fn(&SafeStop)>,
}

fn bit(task: TaskId) -> u64 {
    1u64.checked_shl(task.0 as u32).unwrap_or(0)
}

fn slot(frame: u64) -> usize {
    (frame % FENCE_HISTORY as u64) as usize
}

impl Executive {
    /// The executive over the sealed state; on failure (the schedule does not fit the core)
    /// everything is released again.
    pub(crate) fn new(sealed: Sealed) -> Result<Self> {
        let Sealed {
            shared,
            mut st,
            counters,
            faults,
            clock,
            lease,
            t0,
            realtime,
            executive_thread,
            safe_state,
        } = sealed;
        let cycle = match Cycle::new(shared.schedule, faults, t0) {
            Ok(cycle) => cycle,
            Err(e) => {
                let _ = release_state(&mut st, shared.board);
                return Err(e);
            }
        };
        let graphs = st.streams.iter().any(|e| e.graph.is_some());
        let cpu = (st.tasks.iter().enumerate())
            .filter(|(_, t)| matches!(t.submit, Submit::Cpu))
            .fold(0, |mask, (i, _)| mask | bit(TaskId(i as u16)));
        let mode_tasks = mode_tasks(shared.schedule);
        let when_due = Hosted::due(shared.schedule, &mut st, clock, &mode_tasks);
        let host = Hosted {
            graphs,
            shared,
            st,
            clock,
            _lease: lease,
            t0,
            counters,
            safe_state,
            pending: heapless::Vec::new(),
            not_applied: heapless::Deque::new(),
            not_applied_in_step: 0,
            not_applied_total: 0,
            realtime,
            executive_thread,
            recent: heapless::Deque::new(),
            stats: SubmitStats::default(),
            noop: [0; FENCE_HISTORY],
            mode_tasks,
            cpu,
            when_due,
        };
        Ok(Executive { cycle, host })
    }

    /// The schedule.
    pub fn schedule(&self) -> &'static Schedule {
        self.host.shared.schedule
    }

    /// The trace ring (drain it from another thread with [`crate::trace::ring::Ring::pop`]).
    pub fn trace(&self) -> &'static TraceLog {
        self.host.shared.trace
    }

    /// The next frame `step` will run.
    pub fn next_frame(&self) -> u64 {
        self.cycle.next_frame()
    }

    /// The current mode (of the last frame planned).
    pub fn mode(&self) -> ModeId {
        self.cycle.mode()
    }

    /// Per-task counters.
    pub fn counters(&self, task: TaskId) -> TaskCounters {
        self.host
            .counters
            .get(task.0 as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The health monitor (fault counts).
    pub fn health(&self) -> &HealthMonitor<'static> {
        self.cycle.health()
    }

    /// What real-time settings took effect at init (`None`: none were asked for).
    pub fn realtime(&self) -> Option<RealtimeStatus> {
        self.host.realtime
    }

    /// What the OS granted each of the runtime's threads at init, read back from the OS: the
    /// executive's first, then each CPU worker's in engine order. The schedule's
    /// `[executive]` and CPU engine `priority`/`cpus` (else [`Config::realtime_priority`]
    /// and no affinity) are what was asked; a refusal (no permission for `SCHED_FIFO`, a CPU
    /// outside the process's set) shows here, and the runtime runs on regardless.
    ///
    /// [`Config::realtime_priority`]: crate::exec::Config::realtime_priority
    pub fn threads(&self) -> impl Iterator<Item = ThreadGrant> + '_ {
        core::iter::once(self.host.executive_thread)
            .chain(self.host.st.workers.iter().map(|w| w.grant))
    }

    /// The clock in use.
    pub fn clock(&self) -> Clock {
        self.host.clock
    }

    /// Planned release time of `frame`.
    pub fn release_time(&self, frame: u64) -> u64 {
        self.host.release_time(frame)
    }

    /// Which engine holds copy `copy` of `buffer` now: the engine of the first task (oldest
    /// frame first, schedule order within a frame) that touches the copy and whose completion
    /// fence is not reached yet, including work already queued for a planned frame; the CPU
    /// when no such work is pending. Never blocks (each fence is only checked).
    pub fn holder(&mut self, buffer: BufferId, copy: usize) -> Result<(Holder, Option<TaskId>)> {
        let s = self.host.shared.schedule;
        let desc = s
            .buffers
            .get(buffer.0 as usize)
            .ok_or(Error::NoSuchBuffer { buffer: buffer.0 })?;
        let m = desc.multiplicity.max(1) as u64;
        let Some(last) = self.cycle.planned_up_to() else {
            return Ok((Holder::Cpu, None));
        };
        let first = last.saturating_sub(FENCE_HISTORY as u64 - 1);
        for f in (first..=last).filter(|f| f % m == copy as u64) {
            for (i, t) in s.tasks.iter().enumerate() {
                let id = TaskId(i as u16);
                if !(t.reads.contains(&buffer) || t.writes.contains(&buffer)) {
                    continue;
                }
                let Some(value) = self.host.shared.board.fence(id, f) else {
                    continue;
                };
                if !self.host.fence_reached(id, value)? {
                    let engine = s.engines.get(t.engine.0 as usize);
                    return Ok((
                        engine.map_or(Holder::Cpu, crate::exec::worker::holder_of),
                        Some(id),
                    ));
                }
            }
        }
        Ok((Holder::Cpu, None))
    }

    /// The most recent fault, with its typed error.
    pub fn last_fault(&self) -> Option<FaultRecord> {
        self.host.recent.back().copied()
    }

    /// The 16 most recent faults, oldest first.
    pub fn recent_faults(&self) -> impl Iterator<Item = &FaultRecord> {
        self.host.recent.iter()
    }

    /// The most recent injections (up to 16, oldest first) that could not take effect
    /// because their task does not run in their frame's mode.
    pub fn not_applied(&self) -> impl Iterator<Item = &NotApplied> {
        self.host.not_applied.iter()
    }

    /// How many injections could not take effect since seal.
    pub fn not_applied_total(&self) -> u64 {
        self.host.not_applied_total
    }

    /// Accepted injections whose frame is not planned yet (at the end of a run: never).
    pub fn pending_injections(&self) -> impl Iterator<Item = (TaskId, u64, Injection)> + '_ {
        self.host
            .pending
            .iter()
            .map(|p| (p.task, p.frame, p.injection))
    }

    /// Whether a safe stop happened.
    pub fn stopped(&self) -> bool {
        self.cycle.stopped()
    }

    /// Inject a fault into `task` in `frame`, whatever the mode the task runs in.
    ///
    /// Refused with a typed error when it could never take effect: the frame is already
    /// planned ([`Phase::InjectionIntoPlannedFrame`]), the task is not in the schedule or
    /// runs on an engine the injection does not target, or a DLA fault on a platform without
    /// the SIL cuDLA ([`Error::InjectionRefused`]). Accepted, it takes effect when its frame is
    /// planned, or, if the frame's mode does not run the task, is recorded as
    /// [`NotApplied`]; one whose frame is never planned stays in
    /// [`Executive::pending_injections`].
    pub fn inject(&mut self, task: TaskId, frame: u64, injection: Injection) -> Result<()> {
        if self.cycle.planned_up_to().is_some_and(|p| frame <= p) {
            return Err(Error::Phase(Phase::InjectionIntoPlannedFrame));
        }
        let s = self.host.shared.schedule;
        let refused = |task: &'static str, reason| Error::InjectionRefused {
            task,
            injection: injection.name(),
            reason,
        };
        let t = s
            .tasks
            .get(task.0 as usize)
            .ok_or(refused("?", InjectionRefusal::NoSuchTask))?;
        let kind = s.engines.get(t.engine.0 as usize).map(|e| e.kind);
        match injection.engine() {
            EngineKind::Cpu if kind != Some(EngineKind::Cpu) => {
                return Err(refused(t.name, InjectionRefusal::NotACpuTask));
            }
            EngineKind::Dla if kind != Some(EngineKind::Dla) => {
                return Err(refused(t.name, InjectionRefusal::NotADlaTask));
            }
            EngineKind::Dla if !cfg!(any(platform = "sil", platform = "rig")) => {
                return Err(refused(
                    t.name,
                    InjectionRefusal::NoDlaInjectionOnThisPlatform,
                ));
            }
            EngineKind::Pva if kind != Some(EngineKind::Pva) => {
                return Err(refused(t.name, InjectionRefusal::NotAPvaTask));
            }
            EngineKind::Pva if !cfg!(any(platform = "sil", platform = "rig")) => {
                return Err(refused(
                    t.name,
                    InjectionRefusal::NoPvaInjectionOnThisPlatform,
                ));
            }
            _ => {}
        }
        self.host
            .pending
            .push(Pending {
                frame,
                task,
                injection,
            })
            .map_err(|_| Error::Capacity {
                table: Table::PendingInjections,
                limit: 16,
            })
    }

    /// Run one major frame: release it at its absolute time, submit, monitor, react (the
    /// core's [`Cycle::step`] on the hosted platform).
    pub fn step(&mut self) -> Result<FrameReport> {
        self.host.not_applied_in_step = 0;
        let r = self.cycle.step(&mut self.host)?;
        Ok(FrameReport {
            frame: r.frame,
            mode: r.mode,
            release_error_ns: r.release_error_ns,
            faults: r.faults,
            injections_not_applied: self.host.not_applied_in_step,
            stopped: r.stopped,
        })
    }

    /// What the executive's submissions cost since seal (host time measured around each
    /// accelerator task's enqueue, on the real clock in every mode).
    pub fn submit_stats(&self) -> SubmitStats {
        self.host.stats
    }

    /// Stop the workers and engines and release everything, in order: wait for the engines,
    /// free, close. Reports the first failure but always goes on releasing.
    pub fn shutdown(self) -> Result<()> {
        let Executive { cycle, mut host } = self;
        let board = host.shared.board;
        let stopped = stop_workers(&mut host.st, board);
        let drained = host.drain_cpu_signals(cycle.planned_up_to());
        let released = release_engines(&mut host.st);
        drop(host);
        stopped.and(drained).and(released)
    }
}

impl Platform for Hosted {
    const CPU_TASKS: CpuTasks = CpuTasks::Workers;

    fn now_ns(&mut self) -> u64 {
        self.clock.now_ns()
    }

    fn sleep_until(&mut self, t_ns: u64) {
        self.clock.sleep_until(t_ns);
    }

    /// Not called: the workers run the CPU tasks ([`CpuTasks::Workers`]).
    fn dispatch_cpu(&mut self, _call: CpuCall) -> CpuDispatch {
        CpuDispatch::Handed
    }

    /// Not called: the workers signal their tasks themselves.
    fn signal(&mut self, _task: TaskId, _frame: u64, _at_ns: u64) {}

    /// Publish the frame's plan and fence values for the workers, apply its injections and
    /// launch its graph-mode streams.
    #[inline(always)]
    fn frame_planned(&mut self, plan: &FramePlan) {
        let s = self.shared.schedule;
        let f = plan.frame;
        if !self.pending.is_empty() {
            self.drop_inapplicable(s, plan);
        }
        self.shared.board.publish_plan(plan, self.release_time(f));
        let planned = self.mode_tasks.get(plan.mode.0 as usize).copied();
        for id in tasks_of(planned.unwrap_or(0)) {
            if let Some(rt) = self.st.tasks.get_mut(id.0 as usize) {
                let fence = rt.ledger.enqueue_signal(f);
                self.shared.board.publish_fence(id, f, fence.value);
            }
        }
        self.noop[slot(f)] = 0;
        if self.graphs {
            self.launch_graphs(f, plan);
        }
        for i in 0..s.tasks.len() {
            let id = TaskId(i as u16);
            if self.pending.is_empty() {
                break;
            }
            if plan.planned(s, id) && matches!(self.st.tasks[i].submit, Submit::Cpu) {
                self.apply_cpu_injection(id, f);
            }
        }
    }

    #[inline(always)]
    fn frame_released(&mut self, frame: u64) {
        self.shared.board.release(frame);
        for w in self.st.workers.iter() {
            w.thread.unpark();
        }
    }

    #[inline(always)]
    fn submit(
        &mut self,
        task: TaskId,
        frame: u64,
        after: Deps<'_>,
        noop: bool,
    ) -> core::result::Result<(), i32> {
        let i = task.0 as usize;
        let h = slot(frame);
        let now = self.clock.now_ns();
        self.st.tasks[i].submitted_at[h] = now;
        if noop {
            self.noop[h] |= bit(task);
        }
        // The value `frame_planned` published for the board, from the executive's own ledger
        // (no seqlock read); the submission signals it.
        let value = self.st.tasks[i]
            .ledger
            .fence_for(frame)
            .map(|fence| fence.value);
        let outcome = if self.graphs {
            self.graph_outcome(task, frame)
        } else {
            None
        };
        let r = match outcome {
            Some(true) => value.ok_or(Error::Phase(Phase::TaskNotPlanned)),
            Some(false) => Err(Error::Phase(Phase::NoGraph)),
            None => self.submit_work(task, frame, after, noop, value),
        };
        match r {
            Ok(v) => {
                self.record(now, frame, task.0, Event::Submit, v);
                Ok(())
            }
            Err(e) => {
                self.st.tasks[i].failed_submit = Some(frame);
                Err(match e {
                    Error::Call { status, .. } => status.raw(),
                    _ => -1,
                })
            }
        }
    }

    #[inline(always)]
    fn wait(&mut self, task: TaskId, frame: u64, limit_ns: u64) -> Result<Completion> {
        let i = task.0 as usize;
        let release = self.release_time(frame);
        // As published on the board, from the executive's ledger.
        let value = self.st.tasks[i]
            .ledger
            .fence_for(frame)
            .map_or(0, |fence| fence.value);
        let context = Context::Task(self.shared.schedule.task(task).name);
        let reached = if self.when_due & bit(task) != 0 {
            self.when_due(task, value, limit_ns)?
        } else {
            self.wait_task(task, value, (release, limit_ns), context)?
        };
        if !reached && !self.signal_owed(task, frame) {
            return Ok(Completion::Pending);
        }
        let (start_ns, end_ns, status) = self.times(task, frame, context)?;

        if !self.st.pva_tasks.is_empty() {
            // For `pva_start`: when a PVA task's dependencies ended.
            self.st.tasks[i].ended_at[slot(frame)] = (frame, end_ns);
        }
        let noop = status.contains(RunStatus::SKIPPED) || self.noop[slot(frame)] & bit(task) != 0;
        let outcome = if status.contains(RunStatus::MISSED) {
            Outcome::Missed
        } else if status.intersects(RunStatus::TASK_ERROR | RunStatus::ACCESS_REFUSED) {
            // The application's code, if any, is in the fault record's error.
            Outcome::TaskFailed(0)
        } else if let Some(status) = (!noop).then(|| self.engine_error(task, frame)).flatten() {
            Outcome::EngineFailed(status.raw())
        } else {
            Outcome::Ok
        };
        let run = Run {
            start_ns,
            end_ns,
            outcome,
        };
        Ok(Completion::Done(run))
    }

    fn safe_state(&mut self, stop: &SafeStop) {
        if let Some(safe) = self.safe_state {
            safe(stop);
        }
    }

    /// Into the trace and the counters; faults also into the fault records. Inlined: each
    /// call site in the core passes one kind of event, and the match folds there.
    #[inline(always)]
    fn event(&mut self, event: &CoreEvent) {
        match *event {
            CoreEvent::Release { frame, error_ns } => {
                let now = (self.release_time(frame) as i64).saturating_add(error_ns) as u64;
                self.record(now, frame, NO_TASK, Event::FrameRelease, error_ns as u64);
            }
            CoreEvent::ModeSwitch { frame, mode } => {
                let now = self.clock.now_ns();
                self.record(now, frame, NO_TASK, Event::ModeSwitch, mode.0 as u64);
            }
            CoreEvent::TaskEnd {
                frame,
                task,
                run,
                skipped,
            } => self.task_end(frame, task, run, skipped),
            CoreEvent::Fault {
                frame,
                task,
                kind,
                action,
                at_ns,
                run,
            } => self.fault(frame, task, kind, action, at_ns, run),
            // Recorded by `submit` with its fence value; minor frames are the workers'.
            CoreEvent::Submit { .. } | CoreEvent::MinorFrame { .. } => {}
        }
    }
}

impl Hosted {
    /// Planned release time of `frame`.
    fn release_time(&self, frame: u64) -> u64 {
        self.t0 + frame * self.shared.schedule.period_ns
    }

    #[inline(always)]
    fn record(&self, time_ns: u64, frame: u64, task: u16, event: Event, value: u64) {
        self.shared.trace.push(Record {
            time_ns,
            frame,
            task,
            event,
            value,
        });
    }

    /// The tasks the monitor looks at only when they are due: on the real clock, those whose
    /// `cpu_wait` is `"block"` and whose engine records the run's times itself (the CPU
    /// workers, the DLA and PVA fence timestamps, GPU timer stamps). Observing such a run late
    /// changes none of the figures checked, and sleeping instead of being woken by each
    /// completion saves the executive a wake-up per task. A spin policy asks for the
    /// completion at once, and a GPU run without stamps ends when it is observed: those are
    /// waited for as before.
    ///
    /// The monitor goes through a frame's tasks in schedule order, so a sleep for one task
    /// delays the later ones. A task qualifies only if every later task of each mode that runs
    /// it qualifies too, and it sleeps at most until the earliest deadline among it and those
    /// tasks (its `due_sleep_ns`): a later task with an earlier deadline is checked on time,
    /// and another mode's tasks do not shorten the sleep. Returns the mask.
    fn due(s: &Schedule, st: &mut State, clock: Clock, modes: &[u64; MAX_MODES]) -> u64 {
        if clock != Clock::Real {
            return 0;
        }
        let stamped = st.stamps.is_some();
        let qualifies = (st.tasks.iter().enumerate())
            .filter(|&(i, t)| {
                (stamped || !matches!(t.submit, Submit::Gpu { .. }))
                    && s.cpu_wait(TaskId(i as u16)) == CpuWait::Block
            })
            .fold(0, |mask, (i, _)| mask | bit(TaskId(i as u16)));
        let mut mask = 0;
        for (i, t) in st.tasks.iter_mut().enumerate() {
            let id = TaskId(i as u16);
            // This task and the later ones, in every mode that runs it.
            let rest = (modes.iter())
                .filter(|&&m| m & bit(id) != 0)
                .fold(0, |rest, m| rest | (m & !(bit(id) - 1)));
            if qualifies & bit(id) != 0 && rest & !qualifies == 0 {
                mask |= bit(id);
                t.due_sleep_ns = (tasks_of(rest).map(|t| s.task(t).deadline_ns).min())
                    .unwrap_or(s.task(id).deadline_ns);
            }
        }
        mask
    }

    /// Whether CPU task `task` ended its run of `frame` but owes the signal (its
    /// dependencies had not ended, REQ-RT-019): the run is judged by its result, and the
    /// dependency that held it back has its own fault. Asked only when the wait ended
    /// unreached; out of line, as the frame loop's common path reaches every fence.
    #[cold]
    #[inline(never)]
    fn signal_owed(&self, task: TaskId, frame: u64) -> bool {
        matches!(self.st.tasks[task.0 as usize].submit, Submit::Cpu)
            && self
                .shared
                .board
                .result(task, frame)
                .is_some_and(|r| r.status.contains(RunStatus::SIGNAL_OWED))
    }

    /// Whether `task`'s fence reached `value`: looked at now and, if not, after sleeping until
    /// the earliest deadline of the tasks still to be monitored in the frame (`due`); still
    /// pending before its own deadline (`limit_ns`, absolute), it is waited for as any other.
    /// Out of line: the virtual clock never comes here, and the instruction count of its path
    /// is a regression guard.
    #[inline(never)]
    fn when_due(&mut self, task: TaskId, value: u64, limit_ns: u64) -> Result<bool> {
        if self.fence_reached(task, value)? {
            return Ok(true);
        }
        let t = self.shared.schedule.task(task);
        // The monitor's limit is the task's deadline after the frame's release.
        let release = limit_ns.saturating_sub(t.deadline_ns);
        let offset = self.st.tasks[task.0 as usize].due_sleep_ns;
        let wake = release.saturating_add(offset).min(limit_ns);
        self.clock.sleep_until(wake);
        let reached = self.fence_reached(task, value)?;
        if reached || wake >= limit_ns {
            return Ok(reached);
        }
        self.wait_task(task, value, (release, limit_ns), Context::Task(t.name))
    }

    fn fence_reached(&mut self, id: TaskId, value: u64) -> Result<bool> {
        let context = Context::Task(self.shared.schedule.task(id).name);
        let State {
            tasks, sems, wait, ..
        } = &mut self.st;
        let rt = &mut tasks[id.0 as usize];
        sems[id.0 as usize].fence_at(value, &mut rt.monitor, context)?;
        let wait = wait.as_mut().ok_or(Error::Phase(Phase::NoWaitContext))?;
        Ok(wait.wait(&rt.monitor, 0, context)? == Waited::Reached)
    }

    /// A completed run: counted, and traced for an accelerator task (the workers trace
    /// their CPU tasks themselves).
    #[inline(always)]
    fn task_end(&mut self, frame: u64, task: TaskId, run: Run, skipped: bool) {
        let i = task.0 as usize;
        if self.cpu & bit(task) == 0 {
            self.record(run.start_ns, frame, task.0, Event::TaskStart, 0);
            let event = if skipped {
                Event::TaskSkipped
            } else {
                Event::TaskEnd
            };
            let took = run.end_ns.saturating_sub(run.start_ns);
            self.record(run.end_ns, frame, task.0, event, took);
        }
        if skipped {
            self.counters[i].skipped += 1;
        } else {
            self.counters[i].runs += 1;
        }
    }
    /// Move the injections aimed at frame `plan.frame` whose task the frame's mode does not
    /// run from the pending list to the not-applied record.
    fn drop_inapplicable(&mut self, s: &Schedule, plan: &FramePlan) {
        let mut i = 0;
        while i < self.pending.len() {
            let p = self.pending[i];
            if p.frame != plan.frame || plan.planned(s, p.task) {
                i += 1;
                continue;
            }
            self.pending.swap_remove(i);
            if self.not_applied.is_full() {
                self.not_applied.pop_front();
            }
            let _ = self.not_applied.push_back(NotApplied {
                frame: p.frame,
                task: p.task,
                injection: p.injection,
                mode: plan.mode,
            });
            self.not_applied_in_step += 1;
            self.not_applied_total += 1;
        }
    }

    /// Remove the pending injections aimed at `task` in frame `f` and return them.
    fn take_pending(&mut self, task: TaskId, f: u64) -> heapless::Vec<Injection, 16> {
        let mut taken = heapless::Vec::new();
        let mut i = 0;
        while i < self.pending.len() {
            let p = self.pending[i];
            if p.task == task && p.frame == f {
                self.pending.swap_remove(i);
                // Both lists hold 16: everything taken fits.
                let _ = taken.push(p.injection);
            } else {
                i += 1;
            }
        }
        taken
    }

    fn apply_cpu_injection(&mut self, task: TaskId, f: u64) {
        for injection in self.take_pending(task, f) {
            if let Injection::CpuOverrun { extra_ns } = injection {
                self.shared.board.inject_overrun(task, f, extra_ns);
            }
        }
    }

    #[cfg(any(platform = "sil", platform = "rig"))]
    fn apply_dla_injection(&mut self, task: TaskId, f: u64, device: usize) -> Result<()> {
        use crate::engine::platform::dla_sil as sil;
        for injection in self.take_pending(task, f) {
            let (kind, status, extra) = match injection {
                Injection::DlaHang => (sil::HANG, 0, 0),
                Injection::DlaLate { extra_ns } => (sil::LATE, 0, extra_ns),
                Injection::DlaError => (
                    sil::ASYNC_ERROR,
                    cudla_sys::cudlaErrorDlaErrEngineTimeout.0,
                    0,
                ),
                Injection::DlaCorrupt => (sil::CORRUPT, 0, 0),
                _ => continue,
            };
            let fault = sil::Fault {
                kind,
                status,
                skipTasks: 0,
                count: 1,
                extraDelayNs: extra,
            };
            self.st.dlas[device].device.inject_fault(&fault)?;
        }
        Ok(())
    }

    #[cfg(not(any(platform = "sil", platform = "rig")))]
    fn apply_dla_injection(&mut self, _task: TaskId, _f: u64, _device: usize) -> Result<()> {
        Ok(())
    }

    /// The pending PVA injections of `task` in frame `f`, as faults of the SIL cuPVA on the
    /// task's stream, for its next program (the one submitted next).
    #[cfg(any(platform = "sil", platform = "rig"))]
    fn apply_pva_injection(&mut self, task: TaskId, f: u64, pva: usize) -> Result<()> {
        use cupva_sys::sil;
        for injection in self.take_pending(task, f) {
            let (kind, status, extra) = match injection {
                Injection::PvaHang => (sil::CUPVA_SIL_FAULT_HANG, 0, 0),
                Injection::PvaLate { extra_ns } => (sil::CUPVA_SIL_FAULT_LATE, 0, extra_ns),
                Injection::PvaError => (
                    sil::CUPVA_SIL_FAULT_ERROR,
                    cupva_sys::CUPVA_ENGINE_IN_BAD_STATE.0,
                    0,
                ),
                Injection::PvaCorrupt => (sil::CUPVA_SIL_FAULT_CORRUPT_OUTPUT, 0, 0),
                _ => continue,
            };
            let fault = sil::CupvaSilFault {
                kind,
                status,
                skipPrograms: 0,
                count: 1,
                extraDelayNs: extra,
            };
            let stream = self.st.pva_tasks[pva].stream;
            self.st.pva_streams[stream].stream.inject_fault(&fault)?;
        }
        Ok(())
    }

    #[cfg(not(any(platform = "sil", platform = "rig")))]
    fn apply_pva_injection(&mut self, _task: TaskId, _f: u64, _pva: usize) -> Result<()> {
        Ok(())
    }

    /// Submit `id`'s frame `f` work (a no-op that only signals, if `noop`), signalling
    /// `value` (its published fence value): the value, once enqueued.
    #[inline]
    fn submit_work(
        &mut self,
        id: TaskId,
        f: u64,
        after: Deps<'_>,
        noop: bool,
        value: Option<u64>,
    ) -> Result<u64> {
        let s = self.shared.schedule;
        match self.st.tasks[id.0 as usize].submit {
            Submit::Dla { device, .. } => self.apply_dla_injection(id, f, device)?,
            Submit::Pva { task } if !noop => self.apply_pva_injection(id, f, task)?,
            _ => {}
        }
        let value = value.ok_or(Error::Phase(Phase::TaskNotPlanned))?;
        let mut waits = Waits::new();
        self.stats.waits_elided += self.frame_waits(id, f, after, &mut waits)?;
        let started = crate::engine::os::monotonic_ns();
        let r = submit_task(&mut self.st, s, id, f, &waits, value, noop);
        let spent = crate::engine::os::monotonic_ns().saturating_sub(started);
        match self.st.tasks[id.0 as usize].submit {
            Submit::Gpu { .. } => {
                self.stats.gpu_tasks += 1;
                self.stats.gpu_enqueue_ns += spent;
                self.stats.stream_ops += self.stream_ops(&waits, noop);
            }
            Submit::Dla { .. } => {
                self.stats.dla_tasks += 1;
                self.stats.dla_enqueue_ns += spent;
            }
            Submit::Pva { .. } => {
                self.stats.pva_tasks += 1;
                self.stats.pva_enqueue_ns += spent;
            }
            Submit::Cpu => {}
        }
        r.map(|()| value)
    }

    /// Task `id`'s semaphore waits in frame `f`, into `waits` (empty): of the runs in
    /// `deps`, those planned in their frame (the ledger holds their fence; the others order
    /// nothing), less those the task's own in-order stream already orders (how many: the
    /// value). Filled in place, as this runs for every accelerator task of every frame.
    #[inline(always)]
    fn frame_waits(
        &self,
        id: TaskId,
        f: u64,
        deps: impl Iterator<Item = Dep>,
        waits: &mut Waits,
    ) -> Result<u64> {
        let mut elided = 0;
        for d in deps {
            if let Some(v) = self.st.tasks[d.task.0 as usize].ledger.fence_for(d.frame) {
                let v = v.value;
                // A dependency's frame is at most `MAX_LAG` before the task's.
                let lag = f.saturating_sub(d.frame) as u8;
                if self.ordered_by_stream(id, d.task, lag, d.frame) {
                    elided += 1;
                    continue;
                }
                waits.push((d.task, v)).map_err(|_| Error::Capacity {
                    table: Table::WaitsPerTask,
                    limit: MAX_WAITS as u32,
                })?;
            }
        }
        Ok(elided)
    }

    /// Launch frame `f`'s work of every graph-mode stream whose operations this frame are
    /// exactly its graph's (every task planned and not skipped, the same waits); the other
    /// streams' tasks take the stream path. Errors are recorded per stream (its tasks fail
    /// their submission, as on the stream path).
    fn launch_graphs(&mut self, f: u64, plan: &FramePlan) {
        let s = self.shared.schedule;
        for k in 0..self.st.streams.len() {
            let Some(g) = self.st.streams[k].graph.as_ref() else {
                continue;
            };
            let mut frame: heapless::Vec<(u64, Waits), { graphs::MAX_GRAPH_TASKS }> =
                heapless::Vec::new();
            let mut elided = 0;
            let fits = g.tasks().iter().all(|t| {
                let value = self.shared.board.fence(t.id, f);
                let mut waits = Waits::new();
                let deps = self.shared.schedule.task(t.id).waits.iter();
                let deps = deps.filter_map(|w| {
                    let frame = f.checked_sub(w.lag as u64)?;
                    Some(Dep {
                        task: w.task,
                        frame,
                    })
                });
                let elided_here = self.frame_waits(t.id, f, deps, &mut waits).ok();
                match (
                    plan.planned(s, t.id) && !plan.skipped(t.id),
                    value,
                    elided_here,
                ) {
                    (true, Some(value), Some(e)) if t.waits_match(&waits) => {
                        elided += e;
                        frame.push((value, waits)).is_ok()
                    }
                    _ => false,
                }
            });
            if !fits {
                continue;
            }
            let ops = g.ops();
            let started = crate::engine::os::monotonic_ns();
            let r = graphs::launch(&mut self.st, s, k, f, &frame);
            let spent = crate::engine::os::monotonic_ns().saturating_sub(started);
            self.stats.gpu_tasks += frame.len() as u64;
            self.stats.gpu_enqueue_ns += spent;
            self.stats.stream_ops += ops;
            self.stats.graph_launches += 1;
            self.stats.waits_elided += elided;
            if let Some(g) = self.st.streams[k].graph.as_mut() {
                g.launched(f, r.is_ok());
            }
        }
    }

    /// Whether GPU task `id`'s frame `f` went out in its stream's graph launch (and whether
    /// that succeeded); `None`: it takes the stream path.
    fn graph_outcome(&self, id: TaskId, f: u64) -> Option<bool> {
        let Submit::Gpu { stream, .. } = self.st.tasks[id.0 as usize].submit else {
            return None;
        };
        self.st.streams.get(stream)?.graph.as_ref()?.outcome(f)
    }

    /// Whether `dep`'s run of frame `dep_frame` is already ordered before `task` by the
    /// stream both are queued on: CUDA streams execute their work in issue order, and `dep`'s
    /// work was issued first (an earlier frame, or earlier in schedule order in this frame)
    /// and issued successfully. Then `task` needs no semaphore wait on it.
    #[inline(always)]
    fn ordered_by_stream(&self, task: TaskId, dep: TaskId, lag: u8, dep_frame: u64) -> bool {
        let tasks = &self.st.tasks;
        let issued_ok = tasks
            .get(dep.0 as usize)
            .is_some_and(|d| d.failed_submit.is_none_or(|failed| failed < dep_frame));
        graphs::stream_orders(tasks, task, dep, lag) && issued_ok
    }

    /// Driver stream operations one GPU task enqueues: its waits, the two timer stamps when
    /// they are on, the launch unless it is a no-op, and the signal.
    fn stream_ops(&self, waits: &[(TaskId, u64)], noop: bool) -> u64 {
        let stamps = if self.st.stamps.is_some() { 2 } else { 0 };
        waits.len() as u64 + stamps + u64::from(!noop) + 1
    }

    /// Wait for task `id` of the frame released at `release` to reach `value`, by its
    /// deadline, following the task's CPU wait policy; the time spun is counted.
    #[inline(always)]
    fn wait_task(
        &mut self,
        id: TaskId,
        value: u64,
        (release, deadline): (u64, u64),
        context: Context,
    ) -> Result<bool> {
        let s = self.shared.schedule;
        let until = Until {
            clock: self.clock,
            release_ns: release,
            limit_ns: deadline,
            virtual_cap_us: self.shared.virtual_wait_cap_us,
        };
        let State {
            tasks, sems, wait, ..
        } = &mut self.st;
        let rt = &mut tasks[id.0 as usize];
        sems[id.0 as usize].fence_at(value, &mut rt.monitor, context)?;
        let wait = wait.as_mut().ok_or(Error::Phase(Phase::NoWaitContext))?;
        let r = wait_for(wait, &rt.monitor, s.cpu_wait(id), until, context)?;
        self.counters[id.0 as usize].spin_ns += r.spun_ns;
        Ok(r.reached)
    }

    /// Start, end and CPU status of a completed task.
    #[inline(always)]
    fn times(&mut self, id: TaskId, f: u64, context: Context) -> Result<(u64, u64, RunStatus)> {
        let h = (f % FENCE_HISTORY as u64) as usize;
        match self.st.tasks[id.0 as usize].submit {
            Submit::Cpu => {
                let r = self
                    .shared
                    .board
                    .result(id, f)
                    .ok_or(Error::Phase(Phase::CpuResultMissing))?;
                self.counters[id.0 as usize].spin_ns += r.spin_ns;
                Ok((r.start_ns, r.end_ns, r.status))
            }
            Submit::Dla { .. } => {
                // The timestamps of the SOF and EOF fences cuDLA returned for this frame
                // (µs of the DLA clock), moved onto the executive clock by the offset
                // calibrated at init.
                let rt = &self.st.tasks[id.0 as usize];
                let on_clock = |us: u64| {
                    (us.saturating_mul(1000) as i64)
                        .saturating_sub(self.st.dla_offset_ns)
                        .max(0) as u64
                };
                let end = on_clock(rt.eof[h].timestamp_us(context)?);
                let start = match rt.start.as_ref() {
                    Some(st) => on_clock(st.fences[h].timestamp_us(context)?),
                    None => rt.submitted_at[h],
                };
                Ok((start.min(end), end, RunStatus::empty()))
            }
            Submit::Pva { .. } => {
                // The end: the timestamp of the fence cuPVA signalled (µs). The start: when the
                // in-order stream could start the program, the latest of its submission, the
                // ends of the dependencies it waited for and the end of the work queued before
                // it on its engine (cuPVA has no start fence; the SIL PVA starts a program
                // exactly then).
                let end = self.st.tasks[id.0 as usize].eof[h]
                    .timestamp_us(context)?
                    .saturating_mul(1000);
                let start = self.pva_start(id, f);
                Ok((start.min(end), end, RunStatus::empty()))
            }
            Submit::Gpu { stamp, .. } => {
                let Some(stamps) = self.st.stamps.as_ref() else {
                    let now = self.clock.now_ns();
                    return Ok((now, now, RunStatus::empty()));
                };
                let base = (stamp * FENCE_HISTORY + h) * 2;
                let read = |k: usize| stamps.memory.read_u64(k).unwrap_or(0);
                let conv = |g: u64| (g as i64 - stamps.offset_ns).max(0) as u64;
                Ok((conv(read(base)), conv(read(base + 1)), RunStatus::empty()))
            }
        }
    }

    /// When PVA task `id` of frame `f` could start on its in-order stream (see `times`).
    fn pva_start(&self, id: TaskId, f: u64) -> u64 {
        let s = self.shared.schedule;
        let tasks = &self.st.tasks;
        let h = (f % FENCE_HISTORY as u64) as usize;
        let ended = |task: TaskId, frame: u64| {
            tasks
                .get(task.0 as usize)
                .map(|t| t.ended_at[(frame % FENCE_HISTORY as u64) as usize])
                .filter(|&(fr, end)| fr == frame && end != u64::MAX)
                .map(|(_, end)| end)
        };
        let mut start = tasks[id.0 as usize].submitted_at[h];
        for w in s.task(id).waits {
            if let Some(df) = f.checked_sub(w.lag as u64)
                && let Some(end) = ended(w.task, df)
            {
                start = start.max(end);
            }
        }
        let engine = s.task(id).engine;
        let same_engine = |j: &usize| s.tasks[*j].engine == engine;
        // The task before it on its engine: earlier in this frame, else the engine's last
        // task of the previous frame.
        let before = (0..id.0 as usize)
            .rev()
            .filter(same_engine)
            .find_map(|j| ended(TaskId(j as u16), f))
            .or_else(|| {
                let prev = f.checked_sub(1)?;
                (0..s.tasks.len())
                    .rev()
                    .filter(same_engine)
                    .find_map(|j| ended(TaskId(j as u16), prev))
            });
        start.max(before.unwrap_or(0))
    }

    fn engine_failure(&self, id: TaskId) -> Option<Status> {
        match self.st.tasks[id.0 as usize].submit {
            Submit::Dla { device, .. } => self.st.dlas[device].device.failure(),
            Submit::Pva { task } => self.st.pva_tasks[task].failure(),
            _ => None,
        }
    }

    /// The engine error of task `id`'s run in frame `f`, after its fence was reached.
    #[inline(always)]
    fn engine_error(&mut self, id: TaskId, f: u64) -> Option<Status> {
        match self.st.tasks[id.0 as usize].submit {
            Submit::Dla { device, .. } => self.st.dlas[device].device.poll_error(),
            Submit::Pva { task } => {
                self.st.pva_tasks[task].poll_error((f % FENCE_HISTORY as u64) as usize)
            }
            Submit::Gpu { stream, .. } => match self.st.streams[stream].stream.idle() {
                Err(Error::Call { status, .. }) => Some(status),
                _ => None,
            },
            Submit::Cpu => None,
        }
    }

    /// A fault the core detected and the reaction its health monitor chose, dated `time_ns`:
    /// counted, traced (the fault, then the reaction) and kept with its typed error.
    #[cold]
    #[inline(never)]
    fn fault(
        &mut self,
        f: u64,
        id: TaskId,
        kind: FaultKind,
        action: Action,
        time_ns: u64,
        run: Option<Run>,
    ) {
        let s = self.shared.schedule;
        let counters = &mut self.counters[id.0 as usize];
        match kind {
            FaultKind::FenceTimeout => counters.timeouts += 1,
            FaultKind::DeadlineMiss => counters.deadline_misses += 1,
            FaultKind::BudgetOverrun => counters.overruns += 1,
            FaultKind::TaskError | FaultKind::EngineError => counters.errors += 1,
        }
        let name = s.task(id).name;
        let engine = s
            .engines
            .get(s.task(id).engine.0 as usize)
            .map_or("?", |e| e.name);
        let value = self.shared.board.fence(id, f).unwrap_or(0);
        let error = match kind {
            FaultKind::FenceTimeout => Error::FenceTimeout { task: name, value },
            FaultKind::EngineError => Error::EngineFailed {
                engine,
                status: self
                    .engine_failure(id)
                    .unwrap_or(Status::Cudla(cudla_sys::cudlaErrorUnknown.0)),
            },
            FaultKind::DeadlineMiss => Error::DeadlineMissed {
                task: name,
                late_ns: time_ns.saturating_sub(self.release_time(f) + s.task(id).deadline_ns),
            },
            FaultKind::BudgetOverrun => Error::BudgetExceeded {
                task: name,
                used_ns: run.map_or(0, |run| run.end_ns.saturating_sub(run.start_ns)),
                budget_ns: s.task(id).budget_ns,
            },
            FaultKind::TaskError => {
                match self.shared.causes.get(id.0 as usize).and_then(|c| c.get(f)) {
                    Some(TaskFault::Runtime(e)) => e,
                    Some(TaskFault::App { code }) => Error::TaskFailed {
                        task: name,
                        code: Some(code),
                    },
                    // Refused a buffer before it could run, or it never reported a cause.
                    _ => Error::TaskFailed {
                        task: name,
                        code: None,
                    },
                }
            }
        };
        self.record(time_ns, f, id.0, Event::Fault(kind), 0);
        if self.recent.is_full() {
            self.recent.pop_front();
        }
        let _ = self.recent.push_back(FaultRecord {
            frame: f,
            task: id,
            kind,
            action,
            error,
        });
        let value = match action {
            Action::SwitchMode(m) => m.0 as u64,
            _ => 0,
        };
        self.record(
            self.clock.now_ns().max(time_ns),
            f,
            id.0,
            Event::Reaction(action),
            value,
        );
    }

    /// With the workers stopped, bring every CPU task's semaphore up to the value of the last
    /// frame planned for it, signalling what was not signalled: the frames planned ahead
    /// (lookahead) and never released. (A stopping worker skips the released frames it did
    /// not get to and gives its owed signals itself, for up to a second.) The accelerator
    /// work queued behind those CPU tasks then drains instead of waiting forever. Nobody else
    /// signals these semaphores any more.
    ///
    /// A run is signalled only once its dependencies have reached their values, as the
    /// workers do, so the work released here stays ordered after what it was ordered after
    /// in the run. Bounded: dependencies that do not end within a second (a hung engine)
    /// leave their dependents unsignalled, and that is reported.
    fn drain_cpu_signals(&mut self, last_planned: Option<u64>) -> Result<()> {
        let Some(last) = last_planned else {
            return Ok(());
        };
        let mut first = Ok(());
        let mut stalled_rounds = 0;
        loop {
            let mut progress = false;
            let mut owed = None;
            for i in 0..self.st.tasks.len() {
                if !matches!(self.st.tasks[i].submit, Submit::Cpu) {
                    continue;
                }
                let id = TaskId(i as u16);
                match self.drain_one(id, last) {
                    Ok(Drained::Done) => {}
                    Ok(Drained::Signalled) => progress = true,
                    Ok(Drained::Blocked) => owed = Some(id),
                    Err(e) => first = first.and(Err(e)),
                }
            }
            let Some(blocked) = owed else {
                return first;
            };
            if progress {
                stalled_rounds = 0;
                continue;
            }
            stalled_rounds += 1;
            if stalled_rounds > 200 || first.is_err() {
                let context = Context::Semaphore(self.shared.schedule.task(blocked).name);
                return first.and(Err(Error::Shutdown { context }));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Signal CPU task `id`'s earliest unsignalled run up to frame `last`, if its
    /// dependencies have reached their values.
    fn drain_one(&mut self, id: TaskId, last: u64) -> Result<Drained> {
        let s = self.shared.schedule;
        let i = id.0 as usize;
        // The frames still in the ledger's history, oldest first: the first one whose value
        // the semaphore has not reached is the next signal.
        let mut next = None;
        for f in (0..FENCE_HISTORY as u64)
            .rev()
            .filter_map(|back| last.checked_sub(back))
        {
            let Some(fence) = self.st.tasks[i].ledger.fence_for(f) else {
                continue;
            };
            if !self.fence_reached(id, fence.value)? {
                next = Some(f);
                break;
            }
        }
        let Some(f) = next else {
            return Ok(Drained::Done);
        };
        for w in s.task(id).waits {
            let Some(dep_frame) = f.checked_sub(w.lag as u64) else {
                continue;
            };
            let dep = w.task.0 as usize;
            let Some(fence) = self
                .st
                .tasks
                .get(dep)
                .and_then(|d| d.ledger.fence_for(dep_frame))
            else {
                continue;
            };
            if !self.fence_reached(w.task, fence.value)? {
                return Ok(Drained::Blocked);
            }
        }
        let context = Context::Semaphore(s.task(id).name);
        let sem = &self.st.sems[i];
        match self.clock {
            Clock::Real => sem.signal(context)?,
            Clock::Virtual => {
                crate::engine::platform::sil::signal_at(sem, self.clock.now_ns(), context)?
            }
        }
        Ok(Drained::Signalled)
    }
}

/// What one step of the shutdown's signal drain did for a CPU task.
enum Drained {
    /// Its semaphore is at its last planned value.
    Done,
    /// It signalled the next run.
    Signalled,
    /// The next run's dependencies have not reached their values.
    Blocked,
}

/// Queue one accelerator task of frame `f` (warm-up: frame 0, no waits): its pre-fences,
/// the work (unless `noop`) between two GPU timer stamps, and the signal of `value`.
/// Never allocates.
pub(crate) fn submit_task(
    st: &mut State,
    s: &Schedule,
    id: TaskId,
    f: u64,
    waits: &[(TaskId, u64)],
    value: u64,
    noop: bool,
) -> Result<()> {
    let context = Context::Task(s.task(id).name);
    let State {
        tasks,
        sems,
        gpu_sems,
        dlas,
        pva_streams,
        pva_tasks,
        streams,
        stamps,
        ..
    } = st;
    let rt = &mut tasks[id.0 as usize];
    for (k, (dep, v)) in waits.iter().enumerate() {
        sems[dep.0 as usize].fence_at(*v, &mut rt.waits[k], context)?;
    }
    let copy = (f % MAX_COPIES as u64) as usize;
    let h = (f % FENCE_HISTORY as u64) as usize;
    match &rt.submit {
        Submit::Cpu => Ok(()),
        Submit::Dla {
            device,
            inputs,
            outputs,
            n_in,
            n_out,
        } => {
            let signal = rt
                .dla_imports
                .iter()
                .find(|(d, _)| d == device)
                .map(|(_, p)| *p)
                .ok_or(Error::Phase(Phase::DlaSemaphoreNotImported))?;
            dlas[*device].device.submit(Submission {
                inputs: &inputs[copy][..*n_in],
                outputs: &outputs[copy][..*n_out],
                waits: &mut rt.waits[..waits.len()],
                signal,
                eof: &mut rt.eof[h],
                start: rt.start.as_mut().map(|s| (s.import, &mut s.fences[h])),
                noop,
            })
        }
        Submit::Pva { task } => {
            // Each wait goes to the wait command of its dependency: `waits` lists the
            // task's dependencies planned in this frame, in the task's order.
            let deps = s.task(id).waits;
            let mut slots = [0usize; MAX_WAITS];
            let mut j = 0;
            for (slot, (dep, _)) in slots.iter_mut().zip(waits) {
                while deps.get(j).is_some_and(|w| w.task != *dep) {
                    j += 1;
                }
                if j >= deps.len() {
                    return Err(Error::BadSchedule {
                        fault: ScheduleFault::DependencyNotOnPva,
                        context,
                    });
                }
                *slot = j;
                j += 1;
            }
            let pt = &mut pva_tasks[*task];
            let stream = &pva_streams[pt.stream].stream;
            pt.submit(
                stream,
                &rt.waits[..waits.len()],
                &slots[..waits.len()],
                copy,
                h,
                noop,
                &mut rt.eof[h],
                crate::engine::pva::SUBMIT_TIMEOUT_MS,
            )
        }
        Submit::Gpu {
            stream,
            function,
            grid,
            block,
            shared,
            params,
            stamp,
        } => {
            let st = &streams[*stream].stream;
            for (k, (dep, v)) in waits.iter().enumerate() {
                let gsem = gpu_sems[dep.0 as usize]
                    .as_ref()
                    .ok_or(Error::BadSchedule {
                        fault: ScheduleFault::DependencyNotOnGpu,
                        context,
                    })?;
                st.wait(gsem, *v, &mut rt.waits[k], context)?;
            }
            // The task's two stamp slots of this frame (start, end).
            let slot = (*stamp * FENCE_HISTORY + h) * 2;
            let stamp_at = |which: usize| match stamps.as_ref() {
                Some(stamps) => stamps.kernel.launch(st, slot + which, context),
                None => Ok(()),
            };
            stamp_at(0)?;
            if !noop {
                st.launch(function, *grid, *block, *shared, &params[copy], context)?;
            }
            stamp_at(1)?;
            let gsem = gpu_sems[id.0 as usize]
                .as_ref()
                .ok_or(Error::Phase(Phase::GpuSemaphoreMissing))?;
            st.signal(gsem, value, &mut rt.eof[h], context)
        }
    }
}

/// Stop the workers, then release every engine object (also used when init fails).
pub(crate) fn release_state(st: &mut State, board: &Board<'_>) -> Result<()> {
    let stopped = stop_workers(st, board);
    stopped.and(release_engines(st))
}

/// Ask the workers to stop and join them (each finishes the task it is running).
fn stop_workers(st: &mut State, board: &Board<'_>) -> Result<()> {
    board.request_stop();
    let mut first: Result<()> = Ok(());
    for w in st.workers.iter() {
        w.thread.unpark();
    }
    while let Some(w) = st.workers.pop() {
        let r = match w.join.join() {
            Ok(r) => r,
            Err(_) => Err(Error::Shutdown {
                context: Context::Engine("cpu worker"),
            }),
        };
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// Release engine objects in order: wait for the engines; engine imports; buffers and
/// semaphores; modules and devices; libraries.
pub(crate) fn release_engines(st: &mut State) -> Result<()> {
    let mut first: Result<()> = Ok(());
    let mut keep = |r: Result<()>| {
        if first.is_ok() {
            first = r;
        }
    };
    // 1. Wait for the engines (bounded: a hung engine is reported, not waited for forever).
    for e in st.streams.iter() {
        let mut idle = false;
        for _ in 0..200 {
            match e.stream.idle() {
                Ok(true) => {
                    idle = true;
                    break;
                }
                Ok(false) => std::thread::sleep(std::time::Duration::from_millis(5)),
                Err(err) => {
                    keep(Err(err));
                    idle = true;
                    break;
                }
            }
        }
        if !idle {
            keep(Err(Error::Shutdown {
                context: Context::Engine(e.stream.engine()),
            }));
        }
    }
    // The PVA tasks' last fences (bounded as above); then the streams go, dropping what a
    // hung program left queued, before the commands, imports and sync objects they use.
    for t in st.pva_tasks.iter() {
        if !t.wait_idle(1_000_000) {
            keep(Err(Error::Shutdown {
                context: Context::Engine("pva"),
            }));
        }
    }
    while let Some(e) = st.pva_streams.pop() {
        keep(e.stream.destroy());
    }
    for t in st.pva_tasks.iter_mut() {
        keep(t.destroy());
    }
    st.pva_tasks.clear();
    // The graphs name semaphores and kernels released below.
    for e in st.streams.iter_mut() {
        if let Some(g) = e.graph.take() {
            keep(g.destroy());
        }
    }
    // 2. Engine imports of semaphores and buffers, fences.
    for rt in st.tasks.iter_mut() {
        for w in rt.waits.iter_mut() {
            w.clear();
        }
        for f in rt.eof.iter_mut() {
            f.clear();
        }
        rt.monitor.clear();
        if let Some(start) = rt.start.as_mut() {
            for f in start.fences.iter_mut() {
                f.clear();
            }
        }
        // Its parameter blocks hold the GPU memory released below.
        rt.submit = Submit::Cpu;
        if let Some(p) = rt.pva_sync.take() {
            keep(p.destroy());
        }
        while let Some((di, p)) = rt.dla_imports.pop() {
            if let Some(d) = st.dlas.get_mut(di) {
                keep(d.device.unregister(p, Context::Semaphore("task")));
            }
        }
    }
    // The DLA start semaphores: unregistered from their device, then freed.
    for rt in st.tasks.iter_mut() {
        let Some(start) = rt.start.take() else {
            continue;
        };
        for d in st.dlas.iter_mut() {
            if d.device.owns(start.import) {
                keep(
                    d.device
                        .unregister(start.import, Context::Semaphore("start")),
                );
            }
        }
        keep(start.sem.free());
    }
    for g in st.gpu_sems.iter_mut() {
        if let Some(g) = g.take() {
            keep(g.release(Context::Semaphore("task")));
        }
    }
    for c in st.copies.iter_mut() {
        while let Some((di, p)) = c.dla.pop() {
            if let Some(d) = st.dlas.get_mut(di) {
                keep(d.device.unregister(p, Context::Buffer("buffer")));
            }
        }
        if let Some(g) = c.gpu.take() {
            keep(g.release(Context::Buffer("buffer")));
        }
        if let Some(p) = c.pva.take() {
            keep(p.free());
        }
    }
    // 3. Buffers and semaphores.
    for c in st.copies.iter_mut() {
        if let Some(o) = c.obj.take() {
            keep(o.free());
        }
    }
    st.copies.clear();
    while let Some(s) = st.sems.pop() {
        keep(s.free());
    }
    st.gpu_sems.clear();
    st.tasks.clear();
    // 4. Modules, streams, devices.
    if let Some(stamps) = st.stamps.take() {
        let Stamps {
            module,
            kernel,
            memory,
            ..
        } = stamps;
        // The kernel holds the memory: dropped first.
        drop(kernel);
        keep(memory.release(Context::Cubin("timing")));
        keep(module.unload());
    }
    while let Some(m) = st.modules.pop() {
        keep(m.unload());
    }
    while let Some(e) = st.streams.pop() {
        keep(e.stream.destroy());
    }
    while let Some(d) = st.dlas.pop() {
        keep(d.device.close());
    }
    while let Some(e) = st.pva_execs.pop() {
        keep(e.exec.destroy());
    }
    if let Some(g) = st.gpu.take() {
        keep(g.close());
    }
    // 5. Libraries.
    if let Some(w) = st.wait.take() {
        w.free();
    }
    if let Some(m) = st.buf_module.take() {
        keep(m.close());
    }
    if let Some(m) = st.sync_module.take() {
        keep(m.close());
    }
    first
}
