//! Thread settings from the schedule: a CPU worker pinned to a CPU runs its tasks there, and
//! what the OS granted each thread is read back and reported; a refusal (no `SCHED_FIFO` for
//! an unprivileged user, a CPU the process may not use) is reported, not an error. Passes as
//! root and not: the expectation follows what the OS grants a throwaway thread.
//!
//! Each run happens on a thread of its own, so the settings do not outlive it.
//!
//! Covers: REQ-PART-022

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::engine::os::{self, Policy, ThreadGrant, ThreadRequest};
use orin_exec::exec::{Builder, Config, CpuTask, Storage, TaskFault};
use orin_exec::table::*;

/// Records the CPU it runs on.
struct WhereAmI(&'static AtomicU32);

impl CpuTask for WhereAmI {
    fn run(&mut self, _ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        self.0
            .store(os::current_cpu().unwrap_or(u32::MAX), Ordering::Relaxed);
        Ok(())
    }
}

static ENGINES: [EngineDesc; 1] = [EngineDesc {
    name: "cpu0",
    kind: EngineKind::Cpu,
    instance: 0,
    queue_capacity: 4,
    graph: false,
    vpu: None,
}];
static TASKS: [TaskDesc; 1] = [TaskDesc {
    name: "where",
    engine: EngineId(0),
    work: Work::Cpu,
    wcet_ns: 100_000,
    budget_ns: 500_000,
    deadline_ns: 1_000_000,
    release_ns: 0,
    reads: &[],
    writes: &[],
    waits: &[],
    modes: ModeMask::ALL,
}];

/// Runs 20 virtual-clock frames with `threads` and `priority` as the default: the grants and
/// the CPUs the task ran on (the first frame's and the last's).
fn run(threads: Vec<ThreadDesc>, priority: Option<i32>) -> (Vec<ThreadGrant>, [u32; 2]) {
    std::thread::spawn(move || {
        let tables = Box::leak(Box::new(ScheduleTables {
            name: "threads",
            profile: "sil",
            period_ns: 1_000_000,
            minor_frames_ns: &[0],
            lookahead: 1,
            threads: Vec::leak(threads),
            engines: &ENGINES,
            buffers: &[],
            tasks: &TASKS,
            modes: &[ModeDesc { name: "normal" }],
            health: &[],
            cubins: &[],
            loadables: &[],
            pva_programs: &[],
            timeline: &[],
            cpu_waits: &[],
        }));
        let schedule = Box::leak(Box::new(Schedule::check(tables).expect("valid tables")));
        let cpu: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(u32::MAX)));
        let storage = Box::leak(Box::new(Storage::<1, 0, 0, 1>::new()));
        let exec = Builder::new(schedule, storage)
            .config(Config {
                virtual_clock: true,
                realtime_priority: priority,
                ..Config::default()
            })
            .bind(TaskId(0), Box::leak(Box::new(WhereAmI(cpu))))
            .init()
            .expect("init succeeds whatever the OS grants");
        let mut exec = exec.seal().expect("seal");
        exec.step().expect("step");
        let first = cpu.load(Ordering::Relaxed);
        for _ in 0..19 {
            exec.step().expect("step");
        }
        let last = cpu.load(Ordering::Relaxed);
        assert_eq!(exec.counters(TaskId(0)).runs, 20);
        let grants: Vec<ThreadGrant> = exec.threads().collect();
        exec.shutdown().expect("shutdown");
        (grants, [first, last])
    })
    .join()
    .expect("the run's thread")
}

/// The CPUs this process may use (bit n: CPU n), as a thread of it reads them.
fn allowed_cpus() -> u64 {
    std::thread::spawn(|| os::apply_thread("probe", ThreadRequest::default()).cpus)
        .join()
        .unwrap()
        .expect("Linux reports a thread's CPUs")
}

#[test]
fn a_worker_pinned_to_a_cpu_runs_there_and_the_grants_are_reported() {
    let _serial = common::serial();
    // CPU 0 where the process may use it (a container's CPU set may not hold it).
    let cpu = allowed_cpus().trailing_zeros();
    let pinned = ThreadDesc {
        thread: Thread::Worker(EngineId(0)),
        priority: 0,
        cpus: 1 << cpu,
    };
    let (grants, ran_on) = run(vec![pinned], Some(1));
    for g in &grants {
        println!("{g}");
    }
    assert_eq!(ran_on, [cpu, cpu], "the task ran on the pinned CPU");
    assert_eq!(grants.len(), 2, "{grants:?}");
    let (executive, worker) = (&grants[0], &grants[1]);
    assert_eq!((executive.name, worker.name), ("executive", "cpu0"));
    assert!(worker.affinity_granted(), "{worker}");
    assert_eq!(worker.cpus, Some(1 << cpu));
    assert_eq!(worker.requested.cpus, 1 << cpu);
    // No affinity asked for the executive: it keeps the process's CPUs.
    assert_eq!(executive.requested.cpus, 0);
    assert_eq!(executive.cpus, Some(allowed_cpus()));
    // SCHED_FIFO 1 (the default priority here) for both, as far as the OS allows it.
    let fifo = os::probe_realtime().fifo;
    for g in &grants {
        assert_eq!(g.requested.priority, Some(1));
        assert_eq!(g.fifo_granted(), fifo, "{g}");
        if fifo {
            assert_eq!((g.policy, g.priority, g.fifo_errno), (Policy::Fifo, 1, 0));
        } else {
            assert_ne!(g.policy, Policy::Fifo, "{g}");
            assert_ne!(g.fifo_errno, 0, "{g}");
            assert!(
                g.to_string().contains("asked SCHED_FIFO 1: not granted"),
                "{g}"
            );
        }
    }
}

#[test]
fn the_schedule_priority_wins_and_a_refused_cpu_is_reported() {
    let _serial = common::serial();
    // A CPU the process may not use: the highest of the 64, unless it is allowed.
    let allowed = allowed_cpus();
    let Some(refused) = (0..64).rev().find(|c| allowed & (1u64 << c) == 0) else {
        println!("all 64 CPUs allowed: nothing to refuse");
        return;
    };
    let threads = vec![
        ThreadDesc {
            thread: Thread::Executive,
            priority: 2,
            cpus: 0,
        },
        ThreadDesc {
            thread: Thread::Worker(EngineId(0)),
            priority: 3,
            cpus: 1 << refused,
        },
    ];
    // No default priority: only the schedule's are asked for.
    let (grants, ran_on) = run(threads, None);
    let (executive, worker) = (&grants[0], &grants[1]);
    assert_eq!(executive.requested.priority, Some(2));
    assert_eq!(worker.requested.priority, Some(3));
    let fifo = os::probe_realtime().fifo;
    assert_eq!(executive.fifo_granted(), fifo, "{executive}");
    assert_eq!(worker.fifo_granted(), fifo, "{worker}");
    if fifo {
        assert_eq!(worker.priority, 3);
    }
    // The affinity was refused: the worker keeps its CPUs and still runs its task.
    assert!(!worker.affinity_granted(), "{worker}");
    assert_ne!(worker.affinity_errno, 0);
    assert_eq!(worker.cpus, Some(allowed));
    assert!(
        worker
            .to_string()
            .contains(&format!("(asked {{{refused}}}: not granted")),
        "{worker}"
    );
    assert!(ran_on.iter().all(|c| allowed & (1 << c) != 0), "{ran_on:?}");
}

/// A worker without `cpus` is not pinned with a pinned executive: it keeps the process's CPUs
/// (a new thread would start on its creator's on Linux).
#[test]
fn a_worker_without_cpus_keeps_the_process_cpus_when_the_executive_is_pinned() {
    let _serial = common::serial();
    let allowed = allowed_cpus();
    let first = 1u64 << allowed.trailing_zeros();
    let executive = ThreadDesc {
        thread: Thread::Executive,
        priority: 0,
        cpus: first,
    };
    let (grants, _) = run(vec![executive], None);
    assert_eq!(grants[0].cpus, Some(first), "{}", grants[0]);
    assert_eq!(grants[1].requested.cpus, allowed, "{}", grants[1]);
    assert_eq!(grants[1].cpus, Some(allowed), "{}", grants[1]);
}

#[test]
fn without_settings_nothing_is_asked() {
    let _serial = common::serial();
    let (grants, _) = run(Vec::new(), None);
    for g in &grants {
        assert_eq!(g.requested, ThreadRequest::default());
        assert!(g.fifo_granted() && g.affinity_granted(), "{g}");
        assert_eq!((g.fifo_errno, g.affinity_errno), (0, 0));
    }
}
