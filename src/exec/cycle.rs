//! The executive core: the frame loop over a small [`Platform`], without `std` or `alloc`.
//!
//! [`Cycle::step`] runs one major frame: it sleeps until the frame's release, plans it (the
//! mode and the skips the health monitor asked for, fixed once and never changed), plans the
//! `lookahead` frames after it, submitting their accelerator work with the runs each task
//! waits for ([`Dep`], lagged `after` edges included), dispatches the frame's CPU tasks in
//! schedule order, minor frame by minor frame, each at its release offset once its
//! dependencies are complete (or, with [`CpuTasks::Workers`], releases them to the
//! platform's workers), then monitors every task against its deadline and budget.
//! Faults go to the [`HealthMonitor`]; its reactions take effect at the next frame not yet
//! planned (skip, mode switch) or at once (safe stop: the [`Platform::safe_state`] hook runs
//! and no further frame or task is released).
//!
//! The platform is what differs between a hosted process and a bare-metal image: its clock,
//! how it sleeps, how it runs a CPU task (the bound body on the calling thread, or a worker),
//! and its accelerator engines (submit, and a bounded wait for completion). Everything the
//! core keeps is in the [`Cycle`] itself or in the slices the caller lends it. The hosted
//! runtime is one platform (`Executive::step` runs `Cycle::step`); the bare-metal
//! example (`examples/baremetal`) is another.
//!
//! ```
//! use orin_exec::exec::cycle::*;
//! use orin_exec::exec::health::FaultCounts;
//! use orin_exec::table::*;
//!
//! # static ENGINES: [EngineDesc; 1] = [EngineDesc { name: "cpu0", kind: EngineKind::Cpu,
//! #   instance: 0, queue_capacity: 1, graph: false, vpu: None }];
//! # static TASKS: [TaskDesc; 1] = [TaskDesc { name: "tick", engine: EngineId(0), work: Work::Cpu,
//! #   wcet_ns: 100, budget_ns: 100, deadline_ns: 500, release_ns: 0, reads: &[], writes: &[],
//! #   waits: &[], modes: ModeMask(1) }];
//! # static TABLES: ScheduleTables = ScheduleTables { name: "s", profile: "sil",
//! #   period_ns: 1000, minor_frames_ns: &[0], lookahead: 0, threads: &[], engines: &ENGINES,
//! #   buffers: &[], tasks: &TASKS, modes: &[ModeDesc { name: "normal" }], health: &[],
//! #   cubins: &[], loadables: &[], pva_programs: &[], timeline: &[], cpu_waits: &[] };
//! # static SCHEDULE: Schedule = match Schedule::check(&TABLES) { Ok(s) => s, Err(e) => panic!("{}", e.message()) };
//! /// A virtual clock; each CPU task takes 100 ns.
//! struct Sim { now: u64, runs: u32 }
//!
//! impl Platform for Sim {
//!     fn now_ns(&mut self) -> u64 { self.now }
//!     fn sleep_until(&mut self, t_ns: u64) { self.now = self.now.max(t_ns) }
//!     fn dispatch_cpu(&mut self, call: CpuCall) -> CpuDispatch {
//!         if call.run { self.runs += 1; self.now += 100; }
//!         CpuDispatch::Ran(Outcome::Ok)
//!     }
//!     fn signal(&mut self, _task: TaskId, _frame: u64, _at_ns: u64) {}
//!     fn submit(&mut self, _: TaskId, _: u64, _: Deps<'_>, _: bool) -> Result<(), i32> { Err(-1) }
//!     fn wait(&mut self, _: TaskId, _: u64, _: u64) -> orin_exec::Result<Completion> {
//!         Ok(Completion::Pending)
//!     }
//!     fn safe_state(&mut self, _stop: &SafeStop) {}
//! }
//!
//! let mut counts = [[0; FaultKind::ALL.len()]; 1];
//! let mut cycle = Cycle::new(&SCHEDULE, &mut counts, 0).unwrap();
//! let mut sim = Sim { now: 0, runs: 0 };
//! for _ in 0..3 {
//!     let report = cycle.step(&mut sim).unwrap();
//!     assert_eq!((report.release_error_ns, report.faults), (0, 0));
//! }
//! assert_eq!((sim.runs, sim.now), (3, 2100));
//! ```

use crate::error::{Error, Phase, Result, Table};
use crate::exec::health::{FaultCounts, HealthMonitor};
use crate::exec::plan::{FramePlan, mode_tasks, tasks_of};
use crate::limits::{FENCE_HISTORY, MAX_MODES, OWED_POLL_NS, OWED_SIGNALS};
use crate::table::{Action, EngineKind, FaultKind, ModeId, Schedule, TaskId, Wait};

/// The most tasks a schedule run by the core may have (task sets are 64-bit masks).
pub const MAX_CORE_TASKS: usize = 64;

/// One task's run in one frame: what an accelerator submission waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Dep {
    /// The task.
    pub task: TaskId,
    /// Its frame.
    pub frame: u64,
}

/// The runs an accelerator task of one frame waits for ([`Platform::submit`]'s `after`), in
/// the order of its `after` edges: each edge whose task is planned in its frame (`f - lag`;
/// an edge into a frame before 0, or to a task that frame's mode does not run, orders
/// nothing and is left out). An iterator over the core's plans: nothing is collected.
#[derive(Clone, Debug)]
pub struct Deps<'c> {
    waits: core::slice::Iter<'c, Wait>,
    frame: u64,
    /// The tasks planned in `frame` itself (lag 0, the most common edge).
    planned: u64,
    plans: &'c [Option<FramePlan>; FENCE_HISTORY],
    runs_in: &'c [u64; MAX_MODES],
}

impl Iterator for Deps<'_> {
    type Item = Dep;

    #[inline]
    fn next(&mut self) -> Option<Dep> {
        loop {
            let w = self.waits.next()?;
            if let Some(dep) = planned_dep(w, self.frame, self.planned, self.plans, self.runs_in) {
                return Some(dep);
            }
        }
    }
}

/// The run wait `w` of a task in `frame` stands for, if that run is planned: `planned` holds
/// the tasks planned in `frame` itself (lag 0, the most common edge), `plans` and `runs_in`
/// tell the others.
#[inline(always)]
fn planned_dep(
    w: &Wait,
    frame: u64,
    planned: u64,
    plans: &[Option<FramePlan>; FENCE_HISTORY],
    runs_in: &[u64; MAX_MODES],
) -> Option<Dep> {
    if w.lag == 0 {
        return (planned & bit(w.task) != 0).then_some(Dep {
            task: w.task,
            frame,
        });
    }
    let frame = frame.checked_sub(w.lag as u64)?;
    plans[slot(frame)]
        .as_ref()
        .filter(|plan| plan.frame == frame)
        .and_then(|plan| runs_in.get(plan.mode.0 as usize))
        .is_some_and(|tasks| tasks & bit(w.task) != 0)
        .then_some(Dep {
            task: w.task,
            frame,
        })
}

/// How a task's run ended, as far as the platform knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Outcome {
    /// It did its work.
    Ok,
    /// A CPU task reported failure with an application-defined code.
    TaskFailed(u32),
    /// The engine reported an error (the raw status of its library).
    EngineFailed(i32),
    /// A worker reached the CPU task only after its deadline (it was late itself): not run,
    /// but signalled. A deadline miss, and otherwise a no-op.
    Missed,
}

/// A completed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Run {
    /// When it started, executive clock, ns.
    pub start_ns: u64,
    /// When it ended, executive clock, ns.
    pub end_ns: u64,
    /// How it ended.
    pub outcome: Outcome,
}

/// The answer to [`Platform::wait`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Completion {
    /// Not complete by the limit.
    Pending,
    /// Complete.
    Done(Run),
}

/// One CPU task of one frame, as the core hands it to the platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CpuCall {
    /// The task.
    pub task: TaskId,
    /// The frame.
    pub frame: u64,
    /// `false`: a no-op (skipped by the health monitor, or released after its deadline);
    /// it completes all the same.
    pub run: bool,
    /// Whether every dependency completed before the task's latest start (deadline minus
    /// WCET); a task whose inputs are late still runs, and can react to it.
    pub inputs_ready: bool,
}

/// A CPU run the core ran whose signal waits for its dependencies (REQ-RT-019): it ended
/// before they completed (released after its deadline, or run once its wait for them ran out
/// at its latest start), and its signal promises theirs to the work that waits for it.
#[derive(Clone, Copy, Debug)]
struct Owed {
    task: TaskId,
    frame: u64,
    /// The dependencies (bit k: the task's wait k) not complete when it ended.
    unreached: u32,
}

/// What the platform did with a [`CpuCall`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CpuDispatch {
    /// It ran the task on the calling thread, which is now done with it: the core takes
    /// its times around the call and signals its completion ([`Platform::signal`]).
    Ran(Outcome),
    /// A worker runs it and signals it; the core monitors it with [`Platform::wait`]. The
    /// worker signals a run only once the run's dependencies have completed, as the core
    /// does for the runs it signals (a run can end before them: released late, or its wait
    /// for them ran out).
    Handed,
}

/// Who runs a frame's CPU tasks ([`Platform::CPU_TASKS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CpuTasks {
    /// The core, on the thread that calls [`Cycle::step`]: [`Platform::dispatch_cpu`] for
    /// each, in schedule order, at its release offset, after its dependencies.
    Dispatched,
    /// The platform's own workers, which [`Platform::frame_released`] releases and which
    /// pace themselves; the core monitors each task with [`Platform::wait`], as it does an
    /// accelerator task.
    Workers,
}

/// What a safe stop reports to the user's safe-state function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SafeStop {
    /// The frame in which the fault was detected.
    pub frame: u64,
    /// The task whose fault triggered it.
    pub task: &'static str,
    /// The fault.
    pub fault: FaultKind,
}

/// What the core reports to [`Platform::event`] (for a log or a trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Event {
    /// A major frame was released, `error_ns` after its planned time.
    Release {
        /// The frame.
        frame: u64,
        /// Actual minus planned release, ns.
        error_ns: i64,
    },
    /// A minor frame of the major frame began.
    MinorFrame {
        /// The major frame.
        frame: u64,
        /// Its index in the schedule's minor frames.
        index: u8,
    },
    /// A frame was planned in a mode other than its predecessor's.
    ModeSwitch {
        /// The first frame in the new mode.
        frame: u64,
        /// The new mode.
        mode: ModeId,
    },
    /// An accelerator task was submitted.
    Submit {
        /// The frame.
        frame: u64,
        /// The task.
        task: TaskId,
    },
    /// A task's run ended (or its no-op, `skipped`).
    TaskEnd {
        /// The frame.
        frame: u64,
        /// The task.
        task: TaskId,
        /// The run.
        run: Run,
        /// Whether it ran as a no-op.
        skipped: bool,
    },
    /// The monitor detected a fault and the health monitor chose a reaction.
    Fault {
        /// The frame.
        frame: u64,
        /// The task.
        task: TaskId,
        /// The fault.
        kind: FaultKind,
        /// The reaction.
        action: Action,
        /// When it is dated, executive clock, ns: the deadline for a fence timeout or a failed
        /// submission, the end of the run for a miss, an overrun or an error, the release for
        /// a task released after its deadline.
        at_ns: u64,
        /// The run it was found in (`None`: a timeout, a failed submission, a late release).
        run: Option<Run>,
    },
}

/// What the core needs from the machine it runs on.
///
/// Every call is made from the thread that calls [`Cycle::step`]. None may block without a
/// bound: [`Platform::wait`] returns by its limit.
///
/// A bare-metal image runs CPU tasks itself ([`CpuTasks::Dispatched`], the default); the
/// hosted runtime (`orin_exec::exec::Executive`) is the implementation with
/// [`CpuTasks::Workers`], whose hooks publish each planned frame to its worker threads.
pub trait Platform {
    /// Who runs the CPU tasks.
    const CPU_TASKS: CpuTasks = CpuTasks::Dispatched;

    /// Now on the executive clock, ns.
    fn now_ns(&mut self) -> u64;
    /// Sleep until `t_ns` (absolute, executive clock); returns at once when it has passed.
    fn sleep_until(&mut self, t_ns: u64);
    /// Run a CPU task (its bound body, on this thread) or hand it to a worker.
    fn dispatch_cpu(&mut self, call: CpuCall) -> CpuDispatch;
    /// A CPU task the core ran ([`CpuDispatch::Ran`]) completed at `at_ns`: signal its
    /// completion to whatever waits for it (accelerator work submitted after it).
    ///
    /// Called once each of the run's dependencies has completed too, and in frame order
    /// per task: a run that ended before them (released after its deadline, or run once
    /// its wait for them ran out) owes its signal until the core sees them complete; it then
    /// signals with the time it found them so (REQ-RT-019).
    fn signal(&mut self, task: TaskId, frame: u64, at_ns: u64);
    /// Frame `plan.frame` was planned (its mode and skips are fixed); its accelerator tasks
    /// are submitted next, in schedule order (default: nothing to do).
    fn frame_planned(&mut self, plan: &FramePlan) {
        let _ = plan;
    }
    /// Frame `frame` was released (after its own planning, before the frames planned ahead):
    /// with [`CpuTasks::Workers`], the workers may start its CPU tasks now (default: nothing
    /// to do).
    fn frame_released(&mut self, frame: u64) {
        let _ = frame;
    }
    /// Queue an accelerator task's run of `frame` behind the runs in `after`; `noop`: it
    /// does nothing but still completes. `Err`: the library's raw status.
    fn submit(
        &mut self,
        task: TaskId,
        frame: u64,
        after: Deps<'_>,
        noop: bool,
    ) -> core::result::Result<(), i32>;
    /// Wait until `task`'s run of `frame` completes, at the latest until `limit_ns`
    /// (absolute): an accelerator task, or a CPU task handed to a worker. `Err`: the wait
    /// itself failed (a library call), which ends [`Cycle::step`] with it.
    ///
    /// A limit already past asks without waiting. The core may ask about one run more than
    /// once: while runs owe their signals it waits in slices of [`OWED_POLL_NS`] and looks
    /// at their dependencies between them.
    fn wait(&mut self, task: TaskId, frame: u64, limit_ns: u64) -> Result<Completion>;
    /// The user's safe-state function: a fault whose reaction is a safe stop was detected.
    fn safe_state(&mut self, stop: &SafeStop);
    /// An event for the log or trace (default: dropped).
    fn event(&mut self, event: &Event) {
        let _ = event;
    }
}

/// What one major frame did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CycleReport {
    /// The frame.
    pub frame: u64,
    /// Its mode.
    pub mode: ModeId,
    /// Release error (actual minus planned), ns.
    pub release_error_ns: i64,
    /// Faults detected in it.
    pub faults: u32,
    /// Whether the core stopped (safe stop).
    pub stopped: bool,
}

/// The frame loop's state.
#[derive(Debug)]
pub struct Cycle<'a> {
    schedule: &'a Schedule,
    hm: HealthMonitor<'a>,
    t0: u64,
    next: u64,
    mode: ModeId,
    plans: [Option<FramePlan>; FENCE_HISTORY],
    planned_up_to: Option<u64>,
    /// Per planned frame (`frame % FENCE_HISTORY`): the tasks whose submission failed.
    failed: [u64; FENCE_HISTORY],
    /// CPU tasks the platform ran on the calling thread the last time they were dispatched.
    inline: u64,
    /// CPU tasks of the frame being dispatched that were released after their deadline
    /// (dispatched as no-ops, their miss already reported).
    late: u64,
    /// CPU tasks of the frame being run that were released (dispatched, or all of them when
    /// workers run them): the monitor waits for no other CPU task.
    released: u64,
    /// The runs of CPU tasks the core ran whose signals wait for their dependencies, oldest
    /// first (REQ-RT-019).
    owed: heapless::Vec<Owed, OWED_SIGNALS>,
    stopped: bool,
    faults_in_frame: u32,
    /// The CPU tasks (bit per task index), fixed at construction.
    cpu: u64,
    /// Per mode, the tasks it runs (bit per task index), fixed at construction.
    runs_in: [u64; MAX_MODES],
}

fn bit(task: TaskId) -> u64 {
    1u64.checked_shl(task.0 as u32).unwrap_or(0)
}

fn slot(frame: u64) -> usize {
    (frame % FENCE_HISTORY as u64) as usize
}

impl<'a> Cycle<'a> {
    /// The core for `schedule`, frame 0 released at `t0_ns`; `counts` holds the health
    /// monitor's fault counts, one row per task.
    ///
    /// Refused ([`Error::Capacity`]) when the schedule has more than [`MAX_CORE_TASKS`]
    /// tasks or `counts` has fewer rows than it has tasks.
    pub fn new(schedule: &'a Schedule, counts: &'a mut [FaultCounts], t0_ns: u64) -> Result<Self> {
        let tasks = schedule.tasks.len();
        if tasks > MAX_CORE_TASKS || counts.len() < tasks {
            return Err(Error::Capacity {
                table: Table::Tasks,
                limit: counts.len().min(MAX_CORE_TASKS) as u32,
            });
        }
        let mut cpu = 0;
        for (i, t) in schedule.tasks.iter().enumerate() {
            let kind = schedule.engines.get(t.engine.0 as usize).map(|e| e.kind);
            if kind == Some(EngineKind::Cpu) {
                cpu |= bit(TaskId(i as u16));
            }
        }
        Ok(Cycle {
            cpu,
            runs_in: mode_tasks(schedule),
            schedule,
            hm: HealthMonitor::new(counts),
            t0: t0_ns,
            next: 0,
            mode: ModeId(0),
            plans: [None; FENCE_HISTORY],
            planned_up_to: None,
            failed: [0; FENCE_HISTORY],
            inline: 0,
            late: 0,
            released: 0,
            owed: heapless::Vec::new(),
            stopped: false,
            faults_in_frame: 0,
        })
    }

    /// Planned release time of `frame`.
    pub fn release_time(&self, frame: u64) -> u64 {
        self.t0 + frame * self.schedule.period_ns
    }

    /// The next frame [`Cycle::step`] runs.
    pub fn next_frame(&self) -> u64 {
        self.next
    }

    /// The mode of the last frame planned (the initial mode before any).
    pub fn mode(&self) -> ModeId {
        self.mode
    }

    /// The health monitor (fault counts).
    pub fn health(&self) -> &HealthMonitor<'a> {
        &self.hm
    }

    /// Whether a safe stop happened.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The last frame planned (`None` before the first step).
    pub fn planned_up_to(&self) -> Option<u64> {
        self.planned_up_to
    }

    /// The plan of `frame`, while it is among the last frames planned.
    pub fn plan_of(&self, frame: u64) -> Option<FramePlan> {
        self.plans[slot(frame)].filter(|plan| plan.frame == frame)
    }

    /// The runs of CPU tasks the core ran that still owe their signals: each ended before a
    /// dependency completed (REQ-RT-019, [`Platform::signal`]).
    pub fn owed_signals(&self) -> usize {
        self.owed.len()
    }

    /// Give the owed signals whose runs' dependencies have completed (looked at, not
    /// waited for); how many are still owed. [`Cycle::step`] does this itself; after a safe
    /// stop a platform that drains its engines calls it until none is owed or its own time
    /// bound has passed (a hung engine leaves the work behind it waiting).
    pub fn settle_owed<P: Platform>(&mut self, p: &mut P) -> Result<usize> {
        self.settle(p)?;
        Ok(self.owed.len())
    }

    /// Run one major frame: release, plan (and plan ahead), dispatch, monitor, react.
    ///
    /// `Err(Error::Capacity { table: Table::OwedSignals, .. })`: more CPU runs than
    /// [`OWED_SIGNALS`] wait for dependencies that have not completed (an engine has hung
    /// for many frames); the partition goes to its safe state.
    #[inline]
    pub fn step<P: Platform>(&mut self, p: &mut P) -> Result<CycleReport> {
        if self.stopped {
            return Err(Error::Phase(Phase::SafeStopped));
        }
        let f = self.next;
        let release = self.release_time(f);
        self.sleep_settling(p, release)?;
        let error_ns = p.now_ns() as i64 - release as i64;
        p.event(&Event::Release { frame: f, error_ns });
        self.faults_in_frame = 0;
        // Usually planned ahead already (`lookahead` > 0).
        if self.planned_up_to.is_none_or(|last| f > last) {
            self.plan(p, f);
        }
        p.frame_released(f);
        for ahead in 1..=self.schedule.lookahead as u64 {
            self.plan(p, f + ahead);
        }
        self.late = 0;
        match P::CPU_TASKS {
            CpuTasks::Dispatched => {
                self.released = 0;
                self.dispatch(p, f)?;
            }
            CpuTasks::Workers => self.released = u64::MAX,
        }
        self.monitor(p, f)?;
        self.next = f + 1;
        Ok(CycleReport {
            frame: f,
            mode: self.plans[slot(f)].map_or(self.mode, |plan| plan.mode),
            release_error_ns: error_ns,
            faults: self.faults_in_frame,
            stopped: self.stopped,
        })
    }

    /// Whether `task` runs in `plan`'s frame ([`FramePlan::planned`], from the masks).
    fn planned(&self, plan: &FramePlan, task: TaskId) -> bool {
        self.planned_tasks(plan) & bit(task) != 0
    }

    /// The tasks that run in `plan`'s frame (bit per task index).
    fn planned_tasks(&self, plan: &FramePlan) -> u64 {
        self.runs_in.get(plan.mode.0 as usize).copied().unwrap_or(0)
    }

    fn is_cpu(&self, task: TaskId) -> bool {
        self.cpu & bit(task) != 0
    }

    /// Whether CPU task `task` ran on this thread the last time it was dispatched: its runs
    /// so far are complete (their signals perhaps owed), not waited for.
    fn ran_here(&self, task: TaskId) -> bool {
        self.is_cpu(task) && self.inline & bit(task) != 0
    }

    /// Fix frame `f`'s plan (once) and submit its accelerator work.
    fn plan<P: Platform>(&mut self, p: &mut P, f: u64) {
        if self.stopped || self.planned_up_to.is_some_and(|last| f <= last) {
            return;
        }
        if let Some(m) = self.hm.take_mode_request()
            && m != self.mode
        {
            self.mode = m;
            p.event(&Event::ModeSwitch { frame: f, mode: m });
        }
        let plan = FramePlan {
            frame: f,
            mode: self.mode,
            skip: self.hm.take_skips(),
        };
        self.plans[slot(f)] = Some(plan);
        self.planned_up_to = Some(f);
        self.failed[slot(f)] = 0;
        p.frame_planned(&plan);
        // The frame's accelerator tasks, in schedule order.
        for id in tasks_of(self.planned_tasks(&plan) & !self.cpu) {
            match p.submit(id, f, self.deps(id, &plan), plan.skipped(id)) {
                Ok(()) => p.event(&Event::Submit { frame: f, task: id }),
                Err(_) => self.failed[slot(f)] |= bit(id),
            }
        }
    }

    /// The runs `task` of `plan`'s frame `f` waits for: each `after` edge whose task was
    /// planned in its frame (`f - lag`; the others order nothing and are dropped).
    fn deps(&self, task: TaskId, plan: &FramePlan) -> Deps<'_> {
        Deps {
            waits: self.schedule.task(task).waits.iter(),
            frame: plan.frame,
            planned: self.planned_tasks(plan),
            plans: &self.plans,
            runs_in: &self.runs_in,
        }
    }

    /// Release frame `f`'s minor frames and run its CPU tasks in schedule order, each at
    /// its release offset, after its dependencies (waited for until its latest start).
    fn dispatch<P: Platform>(&mut self, p: &mut P, f: u64) -> Result<()> {
        let s = self.schedule;
        let Some(plan) = self.plan_of(f) else {
            return Ok(());
        };
        let release = self.release_time(f);
        let mut minor = 0;
        for i in 0..s.tasks.len() {
            let id = TaskId(i as u16);
            if self.stopped {
                return Ok(());
            }
            if !self.planned(&plan, id) || !self.is_cpu(id) {
                continue;
            }
            let t = s.task(id);
            minor = self.minor_frames(p, f, minor, t.release_ns)?;
            let ready_at = release + t.release_ns;
            self.sleep_settling(p, ready_at)?;
            let deadline = release + t.deadline_ns;
            let latest_start = deadline.saturating_sub(t.wcet_ns).max(ready_at);
            // Released after its deadline (an earlier task overran): a no-op, and a miss.
            let missed = p.now_ns() > deadline;
            let mut inputs_ready = true;
            let mut unreached = 0;
            let planned = self.planned_tasks(&plan);
            for (k, w) in t.waits.iter().enumerate() {
                let Some(dep) = planned_dep(w, f, planned, &self.plans, &self.runs_in) else {
                    continue;
                };
                // Ran on this thread before this task: complete, its signal perhaps owed.
                let ran_here = self.ran_here(dep.task);
                let complete = if ran_here {
                    !self.owes(dep)
                } else {
                    // A task released after its deadline does not wait: a look is enough.
                    let limit = if missed { 0 } else { latest_start };
                    self.wait_settling(p, dep.task, dep.frame, limit)? != Completion::Pending
                };
                if !complete {
                    inputs_ready &= ran_here;
                    unreached |= 1 << k;
                }
            }
            if missed {
                self.late |= bit(id);
                let now = p.now_ns();
                self.fault(p, f, id, FaultKind::DeadlineMiss, now, None);
            }
            let skipped = missed || plan.skipped(id);
            let start_ns = p.now_ns();
            let call = CpuCall {
                task: id,
                frame: f,
                run: !skipped,
                inputs_ready,
            };
            self.released |= bit(id);
            match p.dispatch_cpu(call) {
                CpuDispatch::Ran(outcome) => {
                    self.inline |= bit(id);
                    let end_ns = p.now_ns();
                    self.signal_or_owe(p, id, f, end_ns, unreached)?;
                    let run = Run {
                        start_ns,
                        end_ns,
                        outcome,
                    };
                    self.check(p, f, id, run, skipped, (deadline, t.budget_ns));
                }
                CpuDispatch::Handed => self.inline &= !bit(id),
            }
        }
        // The minor frames after the last CPU task.
        self.minor_frames(p, f, minor, s.period_ns)?;
        Ok(())
    }

    /// Signal the run of CPU task `id` in frame `f` that ended at `end_ns`, or owe the
    /// signal: while the dependencies in `unreached` (bit k: wait k) have not completed, or
    /// an earlier run of the task owes its own.
    fn signal_or_owe<P: Platform>(
        &mut self,
        p: &mut P,
        id: TaskId,
        f: u64,
        end_ns: u64,
        unreached: u32,
    ) -> Result<()> {
        if unreached == 0 && !self.owed.iter().any(|o| o.task == id) {
            p.signal(id, f, end_ns);
            return Ok(());
        }
        let run = Owed {
            task: id,
            frame: f,
            unreached,
        };
        if self.owed.is_full() {
            self.settle(p)?;
        }
        self.owed.push(run).map_err(|_| Error::Capacity {
            table: Table::OwedSignals,
            limit: OWED_SIGNALS as u32,
        })
    }

    /// Whether a run of CPU task `dep.task` up to frame `dep.frame` owes its signal.
    fn owes(&self, dep: Dep) -> bool {
        self.owed
            .iter()
            .any(|o| o.task == dep.task && o.frame <= dep.frame)
    }

    /// Give the owed signals whose runs' dependencies have completed, each task's in frame
    /// order (looked at, never waited for).
    #[cold]
    fn settle<P: Platform>(&mut self, p: &mut P) -> Result<()> {
        // Tasks with an owed run still held: their later runs wait behind it.
        let mut held = 0;
        let mut k = 0;
        while let Some(&run) = self.owed.get(k) {
            if held & bit(run.task) == 0 && self.dependencies_complete(p, run)? {
                let now = p.now_ns();
                p.signal(run.task, run.frame, now);
                self.owed.remove(k);
            } else {
                held |= bit(run.task);
                k += 1;
            }
        }
        Ok(())
    }

    /// Whether each dependency of an owed run that had not completed has now.
    fn dependencies_complete<P: Platform>(&mut self, p: &mut P, run: Owed) -> Result<bool> {
        let waits = self.schedule.task(run.task).waits.iter().enumerate();
        for (_, w) in waits.filter(|(k, _)| run.unreached & (1 << k) != 0) {
            let dep = Dep {
                task: w.task,
                frame: run.frame.saturating_sub(w.lag as u64),
            };
            let complete = if self.ran_here(dep.task) {
                !self.owes(dep)
            } else {
                p.wait(dep.task, dep.frame, 0)? != Completion::Pending
            };
            if !complete {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`Platform::wait`]; while signals are owed, in slices of [`OWED_POLL_NS`] with the
    /// owed signals given between them (a dependency that ends gives them on time).
    #[inline(always)]
    fn wait_settling<P: Platform>(
        &mut self,
        p: &mut P,
        task: TaskId,
        frame: u64,
        limit_ns: u64,
    ) -> Result<Completion> {
        // Only the core's own CPU runs owe signals: nothing to look at for workers.
        while !matches!(P::CPU_TASKS, CpuTasks::Workers) && !self.owed.is_empty() {
            self.settle(p)?;
            let slice = p.now_ns().saturating_add(OWED_POLL_NS);
            if self.owed.is_empty() || slice >= limit_ns {
                break;
            }
            if let done @ Completion::Done(_) = p.wait(task, frame, slice)? {
                return Ok(done);
            }
        }
        p.wait(task, frame, limit_ns)
    }

    /// [`Platform::sleep_until`]; while signals are owed, in slices of [`OWED_POLL_NS`] with
    /// the owed signals given between them.
    fn sleep_settling<P: Platform>(&mut self, p: &mut P, t_ns: u64) -> Result<()> {
        while !matches!(P::CPU_TASKS, CpuTasks::Workers) && !self.owed.is_empty() {
            self.settle(p)?;
            let slice = p.now_ns().saturating_add(OWED_POLL_NS);
            if self.owed.is_empty() || slice >= t_ns {
                break;
            }
            p.sleep_until(slice);
        }
        p.sleep_until(t_ns);
        Ok(())
    }

    /// Release the minor frames from index `from` that begin at or before `offset_ns` into
    /// frame `f`; the index of the next one.
    fn minor_frames<P: Platform>(
        &mut self,
        p: &mut P,
        f: u64,
        from: usize,
        offset_ns: u64,
    ) -> Result<usize> {
        let starts = self.schedule.minor_frames_ns;
        let mut next = from;
        while let Some(&start) = starts.get(next).filter(|&&start| start <= offset_ns) {
            self.sleep_settling(p, self.release_time(f) + start)?;
            p.event(&Event::MinorFrame {
                frame: f,
                index: next as u8,
            });
            next += 1;
        }
        Ok(next)
    }

    /// Wait for frame `f`'s tasks the platform runs elsewhere (accelerators, CPU workers),
    /// each until its deadline, and check them. After a safe stop it still observes what was
    /// released (the faults are recorded; no reaction takes effect any more).
    fn monitor<P: Platform>(&mut self, p: &mut P, f: u64) -> Result<()> {
        let s = self.schedule;
        let Some(plan) = self.plan_of(f) else {
            return Ok(());
        };
        let release = self.release_time(f);
        // CPU tasks not released, or run and checked on this thread, are not waited for.
        let held_back = self.cpu & (self.inline | !self.released);
        let failed = self.failed[slot(f)];
        let noops = plan.skip | self.late;
        for id in tasks_of(self.planned_tasks(&plan) & !held_back) {
            let t = s.task(id);
            let deadline = release + t.deadline_ns;
            if failed & bit(id) != 0 {
                self.fault(p, f, id, FaultKind::EngineError, deadline, None);
                continue;
            }
            match self.wait_settling(p, id, f, deadline)? {
                Completion::Pending => {
                    self.fault(p, f, id, FaultKind::FenceTimeout, deadline, None)
                }
                Completion::Done(run) => {
                    let noop = noops & bit(id) != 0;
                    self.check(p, f, id, run, noop, (deadline, t.budget_ns))
                }
            }
        }
        Ok(())
    }

    /// Check a completed run against its deadline (absolute) and budget, `(deadline,
    /// budget)` in ns, and its outcome.
    fn check<P: Platform>(
        &mut self,
        p: &mut P,
        f: u64,
        id: TaskId,
        run: Run,
        skipped: bool,
        (deadline, budget_ns): (u64, u64),
    ) {
        let missed = run.outcome == Outcome::Missed;
        p.event(&Event::TaskEnd {
            frame: f,
            task: id,
            run,
            skipped: skipped || missed,
        });
        if missed {
            let at_ns = run.end_ns.max(deadline);
            self.fault(p, f, id, FaultKind::DeadlineMiss, at_ns, Some(run));
        }
        if skipped || missed {
            return;
        }
        let end = run.end_ns;
        if end > deadline {
            self.fault(p, f, id, FaultKind::DeadlineMiss, end, Some(run));
        }
        if end.saturating_sub(run.start_ns) > budget_ns {
            self.fault(p, f, id, FaultKind::BudgetOverrun, end, Some(run));
        }
        match run.outcome {
            Outcome::Ok | Outcome::Missed => {}
            Outcome::TaskFailed(_) => self.fault(p, f, id, FaultKind::TaskError, end, Some(run)),
            Outcome::EngineFailed(_) => {
                self.fault(p, f, id, FaultKind::EngineError, end, Some(run))
            }
        }
    }

    /// Report a fault to the health monitor and apply a safe stop at once. Out of line: the
    /// frame loop's common path has no fault.
    #[cold]
    #[inline(never)]
    fn fault<P: Platform>(
        &mut self,
        p: &mut P,
        f: u64,
        id: TaskId,
        kind: FaultKind,
        at_ns: u64,
        run: Option<Run>,
    ) {
        self.faults_in_frame += 1;
        let r = self.hm.report(self.schedule, kind, id);
        p.event(&Event::Fault {
            frame: f,
            task: id,
            kind,
            action: r.action,
            at_ns,
            run,
        });
        if r.action == Action::SafeStop && !self.stopped {
            self.stopped = true;
            p.safe_state(&SafeStop {
                frame: f,
                task: self.schedule.task(id).name,
                fault: kind,
            });
        }
    }
}

#[cfg(test)]
mod tests;
