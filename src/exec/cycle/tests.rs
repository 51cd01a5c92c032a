//! The core on a mock platform with a virtual clock: a CPU-only schedule, and one with a fake
//! accelerator engine.
//!
//! Covers: REQ-PART-070, REQ-PART-074

extern crate std;

use std::collections::HashMap;
use std::vec::Vec;

use super::*;
use crate::table::*;

const CPU0: EngineDesc = EngineDesc {
    name: "cpu0",
    kind: EngineKind::Cpu,
    instance: 0,
    queue_capacity: 1,
    graph: false,
    vpu: None,
};

const fn cpu_task(
    name: &'static str,
    release_ns: u64,
    deadline_ns: u64,
    waits: &'static [Wait],
    modes: u32,
) -> TaskDesc {
    TaskDesc {
        name,
        engine: EngineId(0),
        work: Work::Cpu,
        wcet_ns: 1_000,
        budget_ns: 1_000,
        deadline_ns,
        release_ns,
        reads: &[],
        writes: &[],
        waits,
        modes: ModeMask(modes),
    }
}

const fn tables(
    period_ns: u64,
    minor_frames_ns: &'static [u64],
    lookahead: u8,
    engines: &'static [EngineDesc],
    tasks: &'static [TaskDesc],
    health: &'static [HealthRule],
    cubins: &'static [CubinDesc],
) -> ScheduleTables {
    ScheduleTables {
        name: "core-test",
        profile: "sil",
        period_ns,
        minor_frames_ns,
        lookahead,
        threads: &[],
        engines,
        buffers: &[],
        tasks,
        modes: &[ModeDesc { name: "normal" }, ModeDesc { name: "degraded" }],
        health,
        cubins,
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }
}

macro_rules! checked {
    ($tables:expr) => {{
        static TABLES: ScheduleTables = $tables;
        static SCHEDULE: Schedule = match Schedule::check(&TABLES) {
            Ok(s) => s,
            Err(e) => panic!("{}", e.message()),
        };
        &SCHEDULE
    }};
}

const SENSE: TaskId = TaskId(0);
const DECIDE: TaskId = TaskId(1);
const LOG: TaskId = TaskId(2);

/// CPU only, period 10 µs in two minor frames: `sense` at 0, `decide` (after `sense`) and
/// `log` (after the previous frame's `decide`, normal mode only) at 5 µs.
/// `stop_on_overrun`: a budget overrun makes a safe stop; else a deadline miss of `sense`
/// switches to the degraded mode and a task error skips the task.
fn cpu_schedule(stop_on_overrun: bool) -> &'static Schedule {
    static TASKS: [TaskDesc; 3] = [
        cpu_task("sense", 0, 4_000, &[], 0b11),
        cpu_task(
            "decide",
            5_000,
            8_000,
            &[Wait {
                task: SENSE,
                lag: 0,
            }],
            0b11,
        ),
        cpu_task(
            "log",
            5_000,
            9_500,
            &[Wait {
                task: DECIDE,
                lag: 1,
            }],
            0b01,
        ),
    ];
    static DEADLINE_SWITCHES: [HealthRule; 2] = [
        HealthRule {
            fault: FaultKind::DeadlineMiss,
            scope: FaultScope::Task(SENSE),
            action: Action::SwitchMode(ModeId(1)),
        },
        HealthRule {
            fault: FaultKind::TaskError,
            scope: FaultScope::Any,
            action: Action::Skip,
        },
    ];
    static BUDGET_STOPS: [HealthRule; 1] = [HealthRule {
        fault: FaultKind::BudgetOverrun,
        scope: FaultScope::Any,
        action: Action::SafeStop,
    }];
    if stop_on_overrun {
        checked!(tables(
            10_000,
            &[0, 5_000],
            0,
            &[CPU0],
            &TASKS,
            &BUDGET_STOPS,
            &[]
        ))
    } else {
        checked!(tables(
            10_000,
            &[0, 5_000],
            0,
            &[CPU0],
            &TASKS,
            &DEADLINE_SWITCHES,
            &[]
        ))
    }
}

/// The mock platform: a virtual clock, CPU tasks that take their cost, and a fake engine
/// that completes a submitted task `cost` after its submission and its dependencies.
#[derive(Default)]
struct Mock {
    now: u64,
    cost: HashMap<u16, u64>,
    /// Extra time of (task, frame).
    extra: HashMap<(u16, u64), u64>,
    /// A failure code of (task, frame).
    fail: HashMap<(u16, u64), u32>,
    /// Engine tasks of (task, frame) that never complete.
    hang: Vec<(u16, u64)>,
    /// Submitted accelerator runs: (when, after, noop).
    submitted: HashMap<(u16, u64), (u64, Vec<Dep>, bool)>,
    /// Completed runs (CPU signals, resolved engine runs).
    done: HashMap<(u16, u64), Run>,
    /// Hand CPU tasks to a "worker" (it runs them from the call on, in parallel with the
    /// core) instead of running them on the calling thread.
    workers: bool,
    calls: Vec<CpuCall>,
    events: Vec<Event>,
    stops: Vec<SafeStop>,
}

impl Mock {
    fn with_costs(costs: &[(TaskId, u64)]) -> Self {
        Mock {
            cost: costs.iter().map(|&(t, c)| (t.0, c)).collect(),
            ..Mock::default()
        }
    }

    /// When (task, frame) completes, if it can: an engine run starts once submitted and
    /// every run it waits for completed.
    fn resolve(&mut self, task: TaskId, frame: u64) -> Option<Run> {
        if let Some(run) = self.done.get(&(task.0, frame)) {
            return Some(*run);
        }
        if self.hang.contains(&(task.0, frame)) {
            return None;
        }
        let (at, after, noop) = self.submitted.get(&(task.0, frame))?.clone();
        let mut start_ns = at;
        for d in after {
            start_ns = start_ns.max(self.resolve(d.task, d.frame)?.end_ns);
        }
        let cost = if noop { 0 } else { self.cost[&task.0] };
        let run = Run {
            start_ns,
            end_ns: start_ns + cost + self.extra.get(&(task.0, frame)).copied().unwrap_or(0),
            outcome: Outcome::Ok,
        };
        self.done.insert((task.0, frame), run);
        Some(run)
    }

    fn count(&self, pick: impl Fn(&Event) -> bool) -> usize {
        self.events.iter().filter(|e| pick(e)).count()
    }

    fn ends(&self, task: TaskId) -> Vec<(u64, Run, bool)> {
        self.events
            .iter()
            .filter_map(|e| match *e {
                Event::TaskEnd {
                    frame,
                    task: t,
                    run,
                    skipped,
                } if t == task => Some((frame, run, skipped)),
                _ => None,
            })
            .collect()
    }

    fn faults(&self) -> Vec<(u64, TaskId, FaultKind, Action)> {
        self.events
            .iter()
            .filter_map(|e| match *e {
                Event::Fault {
                    frame,
                    task,
                    kind,
                    action,
                    ..
                } => Some((frame, task, kind, action)),
                _ => None,
            })
            .collect()
    }
}

impl Platform for Mock {
    fn now_ns(&mut self) -> u64 {
        self.now
    }

    fn sleep_until(&mut self, t_ns: u64) {
        self.now = self.now.max(t_ns);
    }

    fn dispatch_cpu(&mut self, call: CpuCall) -> CpuDispatch {
        self.calls.push(call);
        if !call.run && !self.workers {
            return CpuDispatch::Ran(Outcome::Ok);
        }
        let key = (call.task.0, call.frame);
        let took = self.cost[&call.task.0] + self.extra.get(&key).copied().unwrap_or(0);
        if self.workers {
            let run = Run {
                start_ns: self.now,
                end_ns: self.now + if call.run { took } else { 0 },
                outcome: Outcome::Ok,
            };
            self.done.insert(key, run);
            return CpuDispatch::Handed;
        }
        self.now += took;
        CpuDispatch::Ran(match self.fail.get(&key) {
            Some(&code) => Outcome::TaskFailed(code),
            None => Outcome::Ok,
        })
    }

    fn signal(&mut self, task: TaskId, frame: u64, at_ns: u64) {
        let run = Run {
            start_ns: at_ns,
            end_ns: at_ns,
            outcome: Outcome::Ok,
        };
        self.done.insert((task.0, frame), run);
    }

    fn submit(
        &mut self,
        task: TaskId,
        frame: u64,
        after: Deps<'_>,
        noop: bool,
    ) -> core::result::Result<(), i32> {
        self.submitted
            .insert((task.0, frame), (self.now, after.collect(), noop));
        Ok(())
    }

    fn wait(&mut self, task: TaskId, frame: u64, limit_ns: u64) -> Result<Completion> {
        Ok(match self.resolve(task, frame) {
            // Complete by the limit, or already when the wait begins.
            Some(run) if run.end_ns <= limit_ns.max(self.now) => {
                self.now = self.now.max(run.end_ns);
                Completion::Done(run)
            }
            _ => {
                self.now = self.now.max(limit_ns);
                Completion::Pending
            }
        })
    }

    fn safe_state(&mut self, stop: &SafeStop) {
        self.stops.push(*stop);
    }

    fn event(&mut self, event: &Event) {
        self.events.push(*event);
    }
}

/// Fault-count rows for the test schedules (owned by each test: nothing leaks under Miri).
const ROWS: [FaultCounts; 3] = [[0; FaultKind::ALL.len()]; 3];

/// Frame timing: releases at `t0 + f * period`, minor frames at their offsets, each CPU task
/// at its release offset in schedule order and only after its dependencies.
///
/// Covers: REQ-PART-071
#[test]
fn cpu_frames_release_on_time_in_plan_order() {
    let s = cpu_schedule(false);
    let mut p = Mock::with_costs(&[(SENSE, 700), (DECIDE, 900), (LOG, 300)]);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 1_000_000).unwrap();
    for f in 0..3 {
        let r = cycle.step(&mut p).unwrap();
        assert_eq!(
            (r.frame, r.mode, r.faults, r.stopped),
            (f, ModeId(0), 0, false)
        );
        assert_eq!(r.release_error_ns, 0);
    }
    let releases: Vec<_> = p
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Release { frame, .. } => Some(*frame),
            Event::MinorFrame { frame, index } => Some(100 + frame * 10 + *index as u64),
            _ => None,
        })
        .collect();
    assert_eq!(releases, [0, 100, 101, 1, 110, 111, 2, 120, 121]);
    let order: Vec<_> = p.calls.iter().map(|c| (c.frame, c.task)).collect();
    assert_eq!(order[..3], [(0, SENSE), (0, DECIDE), (0, LOG)]);
    // Frame 1: sense at its release, decide and log in the second minor frame.
    let base = 1_010_000;
    assert_eq!(p.ends(SENSE)[1].1.start_ns, base);
    assert_eq!(p.ends(SENSE)[1].1.end_ns, base + 700);
    assert_eq!(p.ends(DECIDE)[1].1.start_ns, base + 5_000);
    assert_eq!(p.ends(LOG)[1].1.start_ns, base + 5_900);
    assert!(p.calls.iter().all(|c| c.run && c.inputs_ready));
}

/// A deadline miss becomes a fault, the health table's reaction (switch mode) applies at
/// the next frame planned: `log` (normal mode only) no longer runs.
///
/// Covers: REQ-PART-072
#[test]
fn deadline_miss_switches_mode_at_next_frame() {
    let s = cpu_schedule(false);
    let mut p = Mock::with_costs(&[(SENSE, 700), (DECIDE, 900), (LOG, 300)]);
    p.extra.insert((SENSE.0, 1), 3_500);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    let reports: Vec<_> = (0..3).map(|_| cycle.step(&mut p).unwrap()).collect();
    // The overrun is also over budget (no rule: logged).
    assert_eq!(
        p.faults(),
        [
            (
                1,
                SENSE,
                FaultKind::DeadlineMiss,
                Action::SwitchMode(ModeId(1))
            ),
            (1, SENSE, FaultKind::BudgetOverrun, Action::Log),
        ]
    );
    assert_eq!(reports[1].mode, ModeId(0));
    assert_eq!(reports[1].faults, 2);
    assert_eq!(reports[2].mode, ModeId(1));
    assert_eq!(cycle.mode(), ModeId(1));
    assert_eq!(cycle.health().count(SENSE, FaultKind::DeadlineMiss), 1);
    assert_eq!(
        p.count(|e| matches!(
            e,
            Event::ModeSwitch {
                frame: 2,
                mode: ModeId(1)
            }
        )),
        1
    );
    let log_frames: Vec<_> = p.ends(LOG).iter().map(|e| e.0).collect();
    assert_eq!(log_frames, [0, 1]);
    assert_eq!(p.ends(DECIDE).len(), 3);
}

/// A budget overrun whose reaction is a safe stop calls the safe-state hook once, runs no
/// further task of the frame, and releases no further frame.
///
/// Covers: REQ-PART-072
#[test]
fn budget_overrun_makes_a_safe_stop() {
    let s = cpu_schedule(true);
    let mut p = Mock::with_costs(&[(SENSE, 700), (DECIDE, 900), (LOG, 300)]);
    p.extra.insert((DECIDE.0, 2), 200);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..2 {
        assert!(!cycle.step(&mut p).unwrap().stopped);
    }
    let r = cycle.step(&mut p).unwrap();
    assert!(r.stopped && cycle.stopped());
    assert_eq!(
        p.stops,
        [SafeStop {
            frame: 2,
            task: "decide",
            fault: FaultKind::BudgetOverrun
        }]
    );
    // `log` of frame 2 did not run.
    assert_eq!(p.ends(LOG).len(), 2);
    assert_eq!(cycle.step(&mut p), Err(Error::Phase(Phase::SafeStopped)));
    assert_eq!(p.calls.len(), 8);
}

/// A task error with the reaction `skip`: the task runs as a no-op in the next frame, then
/// runs again; a late task is released as a no-op and counted as a miss.
///
/// Covers: REQ-PART-072
#[test]
fn task_error_skips_next_frame_and_late_tasks_are_no_ops() {
    let s = cpu_schedule(false);
    let mut p = Mock::with_costs(&[(SENSE, 700), (DECIDE, 900), (LOG, 300)]);
    p.fail.insert((DECIDE.0, 0), 7);
    // `sense` overruns into frame 1's second minor frame: `decide` starts after its deadline.
    p.extra.insert((SENSE.0, 2), 9_000);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..3 {
        cycle.step(&mut p).unwrap();
    }
    let decide: Vec<_> = p.ends(DECIDE).iter().map(|e| (e.0, e.2)).collect();
    assert_eq!(decide, [(0, false), (1, true), (2, true)]);
    let runs: Vec<_> = p
        .calls
        .iter()
        .filter(|c| c.task == DECIDE)
        .map(|c| c.run)
        .collect();
    assert_eq!(runs, [true, false, false]);
    let faults = p.faults();
    assert_eq!(faults[0], (0, DECIDE, FaultKind::TaskError, Action::Skip));
    assert!(faults.contains(&(2, DECIDE, FaultKind::DeadlineMiss, Action::Log)));
}

const GPU0: EngineDesc = EngineDesc {
    name: "gpu0",
    kind: EngineKind::Gpu,
    instance: 0,
    queue_capacity: 4,
    graph: false,
    vpu: None,
};

const PRE: TaskId = TaskId(0);
const INFER: TaskId = TaskId(1);
const POST: TaskId = TaskId(2);

/// CPU `pre` -> GPU `infer` (also after the previous frame's `post`) -> CPU `post`, one
/// frame of lookahead. A hang of `infer` is a fence timeout whose reaction skips it.
fn accel_schedule() -> &'static Schedule {
    static CUBINS: [CubinDesc; 1] = [CubinDesc {
        name: "k",
        variants: &[],
    }];
    static TASKS: [TaskDesc; 3] = [
        cpu_task("pre", 0, 3_000, &[], 0b11),
        TaskDesc {
            name: "infer",
            engine: EngineId(1),
            work: Work::Gpu(GpuWork {
                cubin: CubinId(0),
                kernel: "k",
                grid: [1, 1, 1],
                block: [1, 1, 1],
                shared_mem_bytes: 0,
                params: &[],
            }),
            wcet_ns: 2_000,
            budget_ns: 2_000,
            deadline_ns: 6_000,
            release_ns: 0,
            reads: &[],
            writes: &[],
            waits: &[Wait { task: PRE, lag: 0 }, Wait { task: POST, lag: 1 }],
            modes: ModeMask(0b11),
        },
        cpu_task(
            "post",
            0,
            9_000,
            &[Wait {
                task: INFER,
                lag: 0,
            }],
            0b11,
        ),
    ];
    static HEALTH: [HealthRule; 1] = [HealthRule {
        fault: FaultKind::FenceTimeout,
        scope: FaultScope::Engine(EngineId(1)),
        action: Action::Skip,
    }];
    checked!(tables(
        10_000,
        &[0],
        1,
        &[CPU0, GPU0],
        &TASKS,
        &HEALTH,
        &CUBINS
    ))
}

/// The mock for [`accel_schedule`]: `pre` takes 500 ns, `infer` 1,500, `post` 400.
fn accel_mock() -> Mock {
    Mock::with_costs(&[(PRE, 500), (INFER, 1_500), (POST, 400)])
}

/// Lag edges and lookahead: frame f+1's accelerator work is submitted while frame f runs,
/// behind `pre` of f+1 and `post` of f (the lagged edge, absent in frame 0); the CPU task
/// after the accelerator waits for it.
///
/// Covers: REQ-PART-073
#[test]
fn accelerator_work_follows_lag_edges_and_lookahead() {
    let s = accel_schedule();
    let mut p = accel_mock();
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..3 {
        assert_eq!(cycle.step(&mut p).unwrap().faults, 0);
    }
    let after = |f: u64| p.submitted[&(INFER.0, f)].1.clone();
    assert_eq!(
        after(0),
        [Dep {
            task: PRE,
            frame: 0
        }]
    );
    assert_eq!(
        after(1),
        [
            Dep {
                task: PRE,
                frame: 1
            },
            Dep {
                task: POST,
                frame: 0
            }
        ]
    );
    // Submitted one frame ahead: frame 3's work exists after three steps.
    assert!(p.submitted.contains_key(&(INFER.0, 3)));
    let submit_frames: Vec<_> = p
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Submit { frame, .. } => Some(*frame),
            _ => None,
        })
        .collect();
    assert_eq!(submit_frames, [0, 1, 2, 3]);
    // Frame 1: pre 10_000..10_500, infer 10_500..12_000, post 12_000..12_400.
    let infer = p.ends(INFER)[1].1;
    assert_eq!((infer.start_ns, infer.end_ns), (10_500, 12_000));
    let post = p.ends(POST)[1].1;
    assert_eq!((post.start_ns, post.end_ns), (12_000, 12_400));
}

/// An accelerator task that never completes: a fence timeout at its deadline, the `post`
/// task after it runs with `inputs_ready == false`, and the reaction (skip) makes the next
/// frame not yet planned (f + 1 + lookahead) submit it as a no-op. `post`'s signal waits for
/// the hung run (REQ-RT-019), so the work queued behind `post` waits too, as it would behind
/// a hung engine's queue: each later `infer` times out, and each `post` owes its signal.
///
/// Covers: REQ-PART-072, REQ-PART-073, REQ-RT-019
#[test]
fn accelerator_hang_times_out_and_is_skipped() {
    let s = accel_schedule();
    let mut p = accel_mock();
    p.hang.push((INFER.0, 1));
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..4 {
        cycle.step(&mut p).unwrap();
    }
    let timeout = |f| (f, INFER, FaultKind::FenceTimeout, Action::Skip);
    assert_eq!(p.faults(), [timeout(1), timeout(2), timeout(3)]);
    let post1 = p
        .calls
        .iter()
        .find(|c| c.task == POST && c.frame == 1)
        .unwrap();
    assert!(!post1.inputs_ready && post1.run);
    let noops: Vec<_> = (0..5).map(|f| p.submitted[&(INFER.0, f)].2).collect();
    assert_eq!(noops, [false, false, false, true, true]);
    assert_eq!(cycle.health().count(INFER, FaultKind::FenceTimeout), 3);
    // `post` of frames 1 to 3 ran, and none of them signalled.
    assert_eq!(cycle.owed_signals(), 3);
    assert!((1..4).all(|f| !p.done.contains_key(&(POST.0, f))));
    assert_eq!(cycle.settle_owed(&mut p).unwrap(), 3);
}

/// An accelerator run that ends after the CPU task waiting for it gave up (at its latest
/// start) and ran: the CPU task's signal waits for the late run (REQ-RT-019), so the next
/// frame's accelerator work behind it starts after the late run ended, not when the CPU task
/// did; then the pipeline runs on without a fault.
///
/// Covers: REQ-RT-019
#[test]
fn a_cpu_signal_waits_for_a_late_dependency() {
    let s = accel_schedule();
    let mut p = accel_mock();
    // Frame 1: infer 10_500..20_000, after `post`'s latest start (19_000 - 1_000).
    p.extra.insert((INFER.0, 1), 8_000);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..5 {
        cycle.step(&mut p).unwrap();
    }
    assert_eq!(
        p.faults(),
        [(1, INFER, FaultKind::FenceTimeout, Action::Skip)]
    );
    let post1 = p.ends(POST)[1].1;
    assert_eq!((post1.start_ns, post1.end_ns), (18_000, 18_400));
    assert!(
        !p.calls
            .iter()
            .any(|c| (c.task, c.frame) == (POST, 1) && c.inputs_ready)
    );
    // Signalled once `infer` of frame 1 had ended, and `infer` of frame 2 started after it.
    assert_eq!(p.done[&(POST.0, 1)].end_ns, 20_000);
    let infer2 = p.ends(INFER)[1].1;
    assert_eq!((infer2.start_ns, infer2.end_ns), (20_500, 22_000));
    assert_eq!(cycle.owed_signals(), 0);
}

/// A hung accelerator run holds every later `post` signal: once more runs owe their
/// signals than the core keeps, `step` ends with a capacity error instead of signalling one
/// early.
///
/// Covers: REQ-RT-019
#[test]
fn more_owed_signals_than_the_core_keeps_is_an_error() {
    let s = accel_schedule();
    let mut p = accel_mock();
    p.hang.push((INFER.0, 1));
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    let frames = OWED_SIGNALS as u64 + 1;
    for _ in 0..frames {
        cycle.step(&mut p).unwrap();
    }
    assert_eq!(
        cycle.step(&mut p),
        Err(Error::Capacity {
            table: Table::OwedSignals,
            limit: OWED_SIGNALS as u32
        })
    );
    assert!((1..=frames).all(|f| !p.done.contains_key(&(POST.0, f))));
}

/// CPU tasks handed to a worker are monitored through `Platform::wait`, each until its
/// deadline: a task still running then is a fence timeout (as on the hosted executive), and
/// the tasks after it wait for the runs they depend on.
///
/// Covers: REQ-PART-072
#[test]
fn handed_cpu_tasks_are_monitored_by_wait() {
    let s = cpu_schedule(false);
    let mut p = Mock::with_costs(&[(SENSE, 700), (DECIDE, 900), (LOG, 300)]);
    p.workers = true;
    p.extra.insert((SENSE.0, 1), 4_800);
    p.extra.insert((DECIDE.0, 1), 2_500);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..2 {
        cycle.step(&mut p).unwrap();
    }
    assert_eq!(
        p.faults(),
        [
            (
                1,
                SENSE,
                FaultKind::DeadlineMiss,
                Action::SwitchMode(ModeId(1))
            ),
            (1, SENSE, FaultKind::BudgetOverrun, Action::Log),
            (1, DECIDE, FaultKind::FenceTimeout, Action::Log),
        ]
    );
    // `decide` was handed over once `sense` (10_000..15_500) had ended.
    let decide = p.calls.iter().find(|c| (c.task, c.frame) == (DECIDE, 1));
    assert!(decide.is_some_and(|c| c.run && c.inputs_ready));
    assert_eq!(p.done[&(DECIDE.0, 1)].start_ns, 15_500);
    assert_eq!(p.ends(DECIDE).len(), 1);
    assert_eq!(p.now, 18_000);
}

/// A platform whose own workers run the CPU tasks ([`CpuTasks::Workers`], as the hosted
/// runtime's threads do): each released frame's tasks run one after another on one worker,
/// from their release offsets, unless the test scripted their run.
struct Pool {
    mock: Mock,
    /// Runs the test fixes for (task, frame), instead of the worker's.
    scripted: HashMap<(u16, u64), Run>,
    /// The executive thread is preempted in its wait for (task, frame) until this time.
    preempt: HashMap<(u16, u64), u64>,
    plans: HashMap<u64, FramePlan>,
    hooks: Vec<(&'static str, u64)>,
}

impl Platform for Pool {
    const CPU_TASKS: CpuTasks = CpuTasks::Workers;

    fn now_ns(&mut self) -> u64 {
        self.mock.now_ns()
    }

    fn sleep_until(&mut self, t_ns: u64) {
        self.mock.sleep_until(t_ns)
    }

    fn dispatch_cpu(&mut self, call: CpuCall) -> CpuDispatch {
        self.mock.dispatch_cpu(call)
    }

    fn signal(&mut self, task: TaskId, frame: u64, at_ns: u64) {
        self.mock.signal(task, frame, at_ns)
    }

    fn frame_planned(&mut self, plan: &FramePlan) {
        self.hooks.push(("planned", plan.frame));
        self.plans.insert(plan.frame, *plan);
    }

    fn frame_released(&mut self, frame: u64) {
        self.hooks.push(("released", frame));
        let s = cpu_schedule(false);
        let release = frame * s.period_ns;
        let mut free = release;
        for (i, t) in s.tasks.iter().enumerate() {
            let id = TaskId(i as u16);
            if !self.plans[&frame].planned(s, id) {
                continue;
            }
            let start_ns = free.max(release + t.release_ns);
            let run = self.scripted.get(&(id.0, frame)).copied().unwrap_or(Run {
                start_ns,
                end_ns: start_ns + self.mock.cost[&id.0],
                outcome: Outcome::Ok,
            });
            free = run.end_ns;
            self.mock.done.insert((id.0, frame), run);
        }
    }

    fn submit(
        &mut self,
        task: TaskId,
        frame: u64,
        after: Deps<'_>,
        noop: bool,
    ) -> core::result::Result<(), i32> {
        self.mock.submit(task, frame, after, noop)
    }

    fn wait(&mut self, task: TaskId, frame: u64, limit_ns: u64) -> Result<Completion> {
        if let Some(until) = self.preempt.remove(&(task.0, frame)) {
            self.mock.now = self.mock.now.max(until);
        }
        self.mock.wait(task, frame, limit_ns)
    }

    fn safe_state(&mut self, stop: &SafeStop) {
        self.mock.safe_state(stop)
    }

    fn event(&mut self, event: &Event) {
        self.mock.event(event)
    }
}

/// With the platform's own workers (the hosted runtime's mode), the core never dispatches a
/// CPU task: it plans each frame (`frame_planned`), releases it to the workers
/// (`frame_released`, before the frames planned ahead) and monitors every CPU task with
/// `wait`. A run the worker reached only after its deadline (`Outcome::Missed`) is a deadline
/// miss, dated by its signal, and a no-op.
///
/// Covers: REQ-PART-076
#[test]
fn workers_run_cpu_tasks_and_the_core_monitors_them() {
    let s = cpu_schedule(false);
    let mut p = Pool {
        mock: Mock::with_costs(&[(SENSE, 700), (DECIDE, 900), (LOG, 300)]),
        scripted: HashMap::new(),
        preempt: HashMap::new(),
        plans: HashMap::new(),
        hooks: Vec::new(),
    };
    // Frame 1: the worker reaches `decide` only at 18_100, after its deadline (18_000), and
    // the executive, preempted while it waits for `sense`, sees it only at 18_500.
    let missed = Run {
        start_ns: 18_100,
        end_ns: 18_100,
        outcome: Outcome::Missed,
    };
    p.scripted.insert((DECIDE.0, 1), missed);
    p.preempt.insert((SENSE.0, 1), 18_500);
    let mut rows = ROWS;
    let mut cycle = Cycle::new(s, &mut rows, 0).unwrap();
    for _ in 0..3 {
        let r = cycle.step(&mut p).unwrap();
        assert!(!r.stopped);
    }
    let expected: Vec<_> = (0..3)
        .flat_map(|f| [("planned", f), ("released", f)])
        .collect();
    assert_eq!(p.hooks, expected);
    assert!(p.mock.calls.is_empty(), "the core dispatched a CPU task");
    assert_eq!(p.mock.count(|e| matches!(e, Event::MinorFrame { .. })), 0);
    assert_eq!(
        p.mock.faults(),
        [(1, DECIDE, FaultKind::DeadlineMiss, Action::Log)]
    );
    let dated = p.mock.events.iter().find_map(|e| match *e {
        Event::Fault { at_ns, .. } => Some(at_ns),
        _ => None,
    });
    assert_eq!(dated, Some(18_100));
    let decide: Vec<_> = p.mock.ends(DECIDE).iter().map(|e| (e.0, e.2)).collect();
    assert_eq!(decide, [(0, false), (1, true), (2, false)]);
    assert_eq!(p.mock.ends(SENSE).len(), 3);
    assert_eq!(p.mock.ends(LOG).len(), 3);
    assert_eq!(cycle.health().count(DECIDE, FaultKind::DeadlineMiss), 1);
}

/// A schedule with more tasks than the fault-count rows lent is refused.
#[test]
fn too_few_count_rows_are_refused() {
    let s = cpu_schedule(false);
    let mut rows = [[0; FaultKind::ALL.len()]; 2];
    assert_eq!(
        Cycle::new(s, &mut rows, 0).err(),
        Some(Error::Capacity {
            table: Table::Tasks,
            limit: 2
        })
    );
}
