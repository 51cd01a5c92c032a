//! `Schedule::check`: good tables are accepted (at compile time too), and every rule the
//! runtime relies on rejects tables that break it, with the ids and names involved. The race
//! and timeline cases mirror the validator's fixtures in `tools/schedule/tests/validate.rs`
//! (same engines, modes and tasks), written as tables.
//!
//! Covers: REQ-API-005

use orin_exec_table::*;

const MS: u64 = 1_000_000;
const PERIOD: u64 = 10 * MS;

// The validator fixture's engines and modes: cpu0, cpu1, gpu0, dla0; modes `a`, `b`.
const CPU0: u8 = 0;
const CPU1: u8 = 1;
const GPU0: u8 = 2;
const DLA0: u8 = 3;
const BUF: BufferId = BufferId(0);
const IN: BufferId = BufferId(1);
const OUT: BufferId = BufferId(2);

static ENGINES: [EngineDesc; 4] = [
    engine("cpu0", EngineKind::Cpu, 0),
    engine("cpu1", EngineKind::Cpu, 1),
    engine("gpu0", EngineKind::Gpu, 0),
    engine("dla0", EngineKind::Dla, 0),
];
static MODES: [ModeDesc; 2] = [ModeDesc { name: "a" }, ModeDesc { name: "b" }];
static BUFFERS: [BufferDesc; 3] = [raw("buf", 64, 1), raw("in", 64, 1), raw("out", 256, 1)];
static CUBINS: [CubinDesc; 1] = [CubinDesc {
    name: "k",
    variants: &[],
}];
static LOADABLES: [LoadableDesc; 1] = [LoadableDesc {
    name: "net",
    onnx_sha256: [0; 32],
    onnx: &[],
    loadable: None,
    inputs: &[],
    outputs: &[],
}];

const fn engine(name: &'static str, kind: EngineKind, instance: u8) -> EngineDesc {
    EngineDesc {
        name,
        kind,
        instance,
        queue_capacity: 8,
        graph: false,
        vpu: None,
    }
}

const fn raw(name: &'static str, size: u64, multiplicity: u8) -> BufferDesc {
    BufferDesc {
        name,
        kind: BufferKind::Raw { size, align: 64 },
        multiplicity,
        cpu_access: true,
    }
}

/// A CPU task running in every mode, deadline = the period.
const fn cpu(
    name: &'static str,
    engine: u8,
    wcet_ns: u64,
    reads: &'static [BufferId],
    writes: &'static [BufferId],
    waits: &'static [Wait],
) -> TaskDesc {
    TaskDesc {
        name,
        engine: EngineId(engine),
        work: Work::Cpu,
        wcet_ns,
        budget_ns: wcet_ns,
        deadline_ns: PERIOD,
        release_ns: 0,
        reads,
        writes,
        waits,
        modes: ModeMask::ALL,
    }
}

/// `&[Wait { task: TaskId(task), lag }, ...]`, promoted to a `'static` slice.
macro_rules! waits {
    ($(($task:literal, $lag:literal)),* $(,)?) => {
        &[$(Wait { task: TaskId($task), lag: $lag }),*]
    };
}

const fn wait(task: u16, lag: u8) -> Wait {
    Wait {
        task: TaskId(task),
        lag,
    }
}

/// A GPU kernel of cubin `k` on gpu0 passing `params`.
const fn gpu(
    name: &'static str,
    params: &'static [Param],
    reads: &'static [BufferId],
    writes: &'static [BufferId],
    waits: &'static [Wait],
) -> TaskDesc {
    TaskDesc {
        engine: EngineId(GPU0),
        work: Work::Gpu(GpuWork {
            cubin: CubinId(0),
            kernel: "copy",
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_mem_bytes: 0,
            params,
        }),
        ..cpu(name, GPU0, MS, reads, writes, waits)
    }
}

/// The loadable `net` on dla0: tensor `in` bound to `input`, `out` to `output`.
const fn dla(
    name: &'static str,
    inputs: &'static [TensorBinding],
    outputs: &'static [TensorBinding],
    reads: &'static [BufferId],
    writes: &'static [BufferId],
    waits: &'static [Wait],
) -> TaskDesc {
    TaskDesc {
        engine: EngineId(DLA0),
        work: Work::Dla(DlaWork {
            loadable: LoadableId(0),
            inputs,
            outputs,
        }),
        ..cpu(name, DLA0, MS, reads, writes, waits)
    }
}

const fn tables(tasks: &'static [TaskDesc]) -> ScheduleTables {
    ScheduleTables {
        name: "t",
        profile: "sil",
        period_ns: PERIOD,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines: &ENGINES,
        buffers: &BUFFERS,
        tasks,
        modes: &MODES,
        health: &[],
        cubins: &CUBINS,
        loadables: &LOADABLES,
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }
}

/// `Schedule::check` of tables built at run time.
fn check(t: ScheduleTables) -> Result<Schedule, TableError> {
    Schedule::check(Box::leak(Box::new(t)))
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

/// The tables with `tasks`.
fn with_tasks(tasks: Vec<TaskDesc>) -> ScheduleTables {
    tables(leak(tasks))
}

static IN_TO_NET: [TensorBinding; 1] = [TensorBinding {
    tensor: "in",
    buffer: IN,
}];
static NET_TO_OUT: [TensorBinding; 1] = [TensorBinding {
    tensor: "out",
    buffer: OUT,
}];

/// CPU `input` writes `in` → DLA `net` → GPU `post` reads `out`, writes `buf` → CPU `use`
/// reads `buf`; `input` and `post` of the next frame wait for `use` (single-buffered: a
/// chain of at most one frame from every reader to the next writer).
static PIPELINE_TASKS: [TaskDesc; 4] = [
    cpu("input", CPU0, MS, &[], &[IN], waits![(3, 1)]),
    dla(
        "net",
        &IN_TO_NET,
        &NET_TO_OUT,
        &[IN],
        &[OUT],
        waits![(0, 0)],
    ),
    gpu(
        "post",
        &[Param::Buffer(OUT), Param::Buffer(BUF), Param::U32(3)],
        &[OUT],
        &[BUF],
        waits![(1, 0), (3, 1)],
    ),
    cpu("use", CPU1, MS, &[BUF], &[], waits![(2, 0)]),
];
static PIPELINE: ScheduleTables = tables(&PIPELINE_TASKS);

/// Checked by the compiler: a rejected table would fail the build with the message.
static CHECKED: Schedule = match Schedule::check(&PIPELINE) {
    Ok(s) => s,
    Err(e) => panic!("{}", e.message()),
};

#[test]
fn a_pipeline_over_every_engine_kind_is_accepted_at_compile_time() {
    // The schedule reads like its tables.
    assert_eq!(CHECKED.tasks.len(), 4);
    assert_eq!(CHECKED.task_by_name("post"), Some(TaskId(2)));
    assert_eq!(CHECKED.task(TaskId(1)).name, "net");
    assert!(core::ptr::eq(CHECKED.tables(), &PIPELINE));
    assert_eq!(Schedule::check(&PIPELINE), Ok(CHECKED));
}

#[test]
fn health_rules_timeline_and_minor_frames_in_range_are_accepted() {
    let t = ScheduleTables {
        minor_frames_ns: &[0, 2 * MS, 5 * MS],
        lookahead: 0,
        health: &[
            HealthRule {
                fault: FaultKind::DeadlineMiss,
                scope: FaultScope::Task(TaskId(3)),
                action: Action::SwitchMode(ModeId(1)),
            },
            HealthRule {
                fault: FaultKind::EngineError,
                scope: FaultScope::Engine(EngineId(DLA0)),
                action: Action::SafeStop,
            },
            HealthRule {
                fault: FaultKind::TaskError,
                scope: FaultScope::Any,
                action: Action::Log,
            },
        ],
        timeline: &[TimelineEntry {
            mode: ModeId(1),
            task: TaskId(3),
            latest_start_ns: 0,
            latest_finish_ns: 0,
            slack_ns: 0,
        }],
        ..PIPELINE
    };
    assert_eq!(check(t).err(), None);
}

#[test]
fn one_task_per_mode_mask_bit_and_tensor_buffers_are_accepted() {
    let mut buffers = BUFFERS.to_vec();
    buffers[0].kind = BufferKind::Tensor {
        data_type: TensorType::Float16,
        dims: [1, 3, 8, 8],
        align: 512,
    };
    buffers[1].kind = BufferKind::Pinned { size: 4096 };
    let t = ScheduleTables {
        buffers: leak(buffers),
        tasks: leak(vec![TaskDesc {
            modes: ModeMask(1 << 1),
            waits: &[],
            ..PIPELINE_TASKS[3]
        }]),
        ..PIPELINE
    };
    assert_eq!(check(t).err(), None);
}

// ---- Limits and header ----

#[test]
fn more_than_64_tasks_are_rejected() {
    let many = vec![cpu("x", CPU0, 1_000, &[], &[], &[]); 65];
    assert_eq!(
        check(with_tasks(many)),
        Err(TableError::TooManyTasks { count: 65 })
    );
    let just = vec![cpu("x", CPU0, 1_000, &[], &[], &[]); 64];
    assert_eq!(check(with_tasks(just)).err(), None);
}

#[test]
fn more_than_64_buffers_are_rejected() {
    let t = ScheduleTables {
        buffers: leak(vec![raw("b", 64, 1); 65]),
        ..tables(&[])
    };
    assert_eq!(check(t), Err(TableError::TooManyBuffers { count: 65 }));
}

#[test]
fn no_mode_or_more_than_32_are_rejected() {
    let none = ScheduleTables {
        modes: &[],
        ..tables(&[])
    };
    assert_eq!(check(none), Err(TableError::ModeCount { count: 0 }));
    let many = ScheduleTables {
        modes: leak(vec![ModeDesc { name: "m" }; 33]),
        ..tables(&[])
    };
    assert_eq!(check(many), Err(TableError::ModeCount { count: 33 }));
}

#[test]
fn a_zero_period_is_rejected() {
    let t = ScheduleTables {
        period_ns: 0,
        ..tables(&[])
    };
    assert_eq!(check(t), Err(TableError::ZeroPeriod));
}

#[test]
fn lookahead_beyond_one_is_rejected() {
    let t = ScheduleTables {
        lookahead: 2,
        ..tables(&[])
    };
    assert_eq!(check(t), Err(TableError::Lookahead { lookahead: 2 }));
}

#[test]
fn minor_frames_must_start_at_zero_increase_and_lie_within_the_period() {
    let with = |m: Vec<u64>| {
        check(ScheduleTables {
            minor_frames_ns: leak(m),
            ..tables(&[])
        })
    };
    assert_eq!(with(vec![]), Err(TableError::NoMinorFrame));
    assert_eq!(
        with(vec![MS]),
        Err(TableError::MinorFrame {
            index: 0,
            offset_ns: MS
        })
    );
    assert_eq!(
        with(vec![0, 4 * MS, 4 * MS]),
        Err(TableError::MinorFrame {
            index: 2,
            offset_ns: 4 * MS
        })
    );
    assert_eq!(
        with(vec![0, PERIOD]),
        Err(TableError::MinorFrame {
            index: 1,
            offset_ns: PERIOD
        })
    );
    assert_eq!(with(vec![0, PERIOD - 1]).err(), None);
}

// ---- Buffers ----

fn with_buffer(b: BufferDesc) -> Result<Schedule, TableError> {
    check(ScheduleTables {
        buffers: leak(vec![b]),
        ..tables(&[])
    })
}

#[test]
fn zero_sized_and_overflowing_buffers_are_rejected() {
    let size = Err(TableError::BufferSize {
        buffer: BufferId(0),
        buffer_name: "b",
    });
    assert_eq!(with_buffer(raw("b", 0, 1)), size);
    let tensor = |dims| BufferDesc {
        kind: BufferKind::Tensor {
            data_type: TensorType::Float32,
            dims,
            align: 64,
        },
        ..raw("b", 1, 1)
    };
    assert_eq!(with_buffer(tensor([1, 0, 8, 8])), size);
    assert_eq!(with_buffer(tensor([u32::MAX, u32::MAX, u32::MAX, 1])), size);
    assert_eq!(with_buffer(tensor([1, 1, u32::MAX, 2])).err(), None);
    let pinned = BufferDesc {
        kind: BufferKind::Pinned { size: 0 },
        ..raw("b", 1, 1)
    };
    assert_eq!(with_buffer(pinned), size);
}

#[test]
fn alignments_must_be_powers_of_two() {
    let b = BufferDesc {
        kind: BufferKind::Raw {
            size: 64,
            align: 100,
        },
        ..raw("b", 64, 1)
    };
    assert_eq!(
        with_buffer(b),
        Err(TableError::BufferAlign {
            buffer: BufferId(0),
            buffer_name: "b",
            align: 100
        })
    );
    let zero = BufferDesc {
        kind: BufferKind::Raw { size: 64, align: 0 },
        ..raw("b", 64, 1)
    };
    assert!(matches!(
        with_buffer(zero),
        Err(TableError::BufferAlign { align: 0, .. })
    ));
}

#[test]
fn multiplicity_zero_is_rejected() {
    assert_eq!(
        with_buffer(raw("b", 64, 0)),
        Err(TableError::Multiplicity {
            buffer: BufferId(0),
            buffer_name: "b"
        })
    );
}

// ---- Ids in range ----

#[test]
fn out_of_range_engine_buffer_and_task_ids_are_rejected() {
    let one = |t: TaskDesc| check(with_tasks(vec![t]));
    assert_eq!(
        one(cpu("x", 4, MS, &[], &[], &[])),
        Err(TableError::EngineOutOfRange {
            task: TaskId(0),
            task_name: "x",
            engine: EngineId(4)
        })
    );
    let out_of_range = Err(TableError::BufferOutOfRange {
        task: TaskId(0),
        task_name: "x",
        buffer: BufferId(3),
    });
    assert_eq!(
        one(cpu("x", CPU0, MS, &[BufferId(3)], &[], &[])),
        out_of_range
    );
    assert_eq!(
        one(cpu("x", CPU0, MS, &[], &[BufferId(3)], &[])),
        out_of_range
    );
    assert_eq!(
        one(gpu("x", &[Param::Buffer(BufferId(3))], &[], &[], &[])),
        out_of_range
    );
    static BAD_BINDING: [TensorBinding; 1] = [TensorBinding {
        tensor: "in",
        buffer: BufferId(3),
    }];
    assert_eq!(
        one(dla("x", &BAD_BINDING, &[], &[], &[], &[])),
        out_of_range
    );
    assert_eq!(
        one(cpu("x", CPU0, MS, &[], &[], waits![(1, 1)])),
        Err(TableError::WaitOutOfRange {
            task: TaskId(0),
            task_name: "x",
            waited: TaskId(1)
        })
    );
}

#[test]
fn out_of_range_cubins_and_loadables_are_rejected() {
    let mut g = gpu("g", &[], &[], &[], &[]);
    if let Work::Gpu(w) = &mut g.work {
        w.cubin = CubinId(1);
    }
    assert_eq!(
        check(with_tasks(vec![g])),
        Err(TableError::CubinOutOfRange {
            task: TaskId(0),
            task_name: "g",
            cubin: CubinId(1)
        })
    );
    let mut d = dla("d", &[], &[], &[], &[], &[]);
    if let Work::Dla(w) = &mut d.work {
        w.loadable = LoadableId(1);
    }
    assert_eq!(
        check(with_tasks(vec![d])),
        Err(TableError::LoadableOutOfRange {
            task: TaskId(0),
            task_name: "d",
            loadable: LoadableId(1)
        })
    );
}

#[test]
fn out_of_range_health_scopes_and_modes_are_rejected() {
    let rule = |scope, action| {
        check(ScheduleTables {
            health: leak(vec![
                HealthRule {
                    fault: FaultKind::TaskError,
                    scope: FaultScope::Any,
                    action: Action::Log,
                },
                HealthRule {
                    fault: FaultKind::DeadlineMiss,
                    scope,
                    action,
                },
            ]),
            ..PIPELINE
        })
    };
    let scope = FaultScope::Task(TaskId(4));
    assert_eq!(
        rule(scope, Action::Log),
        Err(TableError::HealthScopeOutOfRange { rule: 1, scope })
    );
    let scope = FaultScope::Engine(EngineId(4));
    assert_eq!(
        rule(scope, Action::Skip),
        Err(TableError::HealthScopeOutOfRange { rule: 1, scope })
    );
    assert_eq!(
        rule(FaultScope::Any, Action::SwitchMode(ModeId(2))),
        Err(TableError::HealthModeOutOfRange {
            rule: 1,
            mode: ModeId(2)
        })
    );
}

#[test]
fn out_of_range_timeline_entries_are_rejected() {
    let entry = |task, mode| {
        check(ScheduleTables {
            timeline: leak(vec![TimelineEntry {
                mode: ModeId(mode),
                task: TaskId(task),
                latest_start_ns: 0,
                latest_finish_ns: MS,
                slack_ns: 0,
            }]),
            ..PIPELINE
        })
    };
    assert_eq!(entry(3, 1).err(), None);
    assert_eq!(
        entry(4, 0),
        Err(TableError::TimelineOutOfRange {
            entry: 0,
            task: TaskId(4),
            mode: ModeId(0)
        })
    );
    assert!(matches!(
        entry(0, 2),
        Err(TableError::TimelineOutOfRange { .. })
    ));
}

// ---- Work, engines, declared accesses ----

#[test]
fn a_cpu_task_on_a_dla_engine_is_rejected() {
    assert_eq!(
        check(with_tasks(vec![cpu("x", DLA0, MS, &[], &[], &[])])),
        Err(TableError::WrongEngineKind {
            task: TaskId(0),
            task_name: "x",
            engine: EngineId(DLA0),
            engine_name: "dla0",
            engine_kind: EngineKind::Dla
        })
    );
}

#[test]
fn gpu_work_on_a_cpu_engine_and_any_work_on_a_pva_are_rejected() {
    let g = TaskDesc {
        engine: EngineId(CPU1),
        ..gpu("g", &[], &[], &[], &[])
    };
    assert!(matches!(
        check(with_tasks(vec![g])),
        Err(TableError::WrongEngineKind {
            engine_name: "cpu1",
            engine_kind: EngineKind::Cpu,
            ..
        })
    ));
    let d = TaskDesc {
        engine: EngineId(GPU0),
        ..dla("d", &[], &[], &[], &[], &[])
    };
    assert!(matches!(
        check(with_tasks(vec![d])),
        Err(TableError::WrongEngineKind {
            engine_kind: EngineKind::Gpu,
            ..
        })
    ));
    let t = ScheduleTables {
        engines: leak(vec![EngineDesc {
            vpu: Some(VpuAffinity::Any),
            ..engine("pva0", EngineKind::Pva, 0)
        }]),
        ..with_tasks(vec![cpu("p", 0, MS, &[], &[], &[])])
    };
    assert!(matches!(
        check(t),
        Err(TableError::WrongEngineKind {
            engine_kind: EngineKind::Pva,
            ..
        })
    ));
}

#[test]
fn buffers_used_by_work_must_be_declared() {
    // A kernel parameter the task does not list: the race check would not see it.
    let undeclared = |task_name, buffer: BufferId, buffer_name| {
        Err(TableError::UndeclaredAccess {
            task: TaskId(0),
            task_name,
            buffer,
            buffer_name,
        })
    };
    let g = gpu("g", &[Param::Buffer(OUT)], &[IN], &[], &[]);
    assert_eq!(check(with_tasks(vec![g])), undeclared("g", OUT, "out"));
    // A DLA input must be read, an output written.
    let d = dla("d", &IN_TO_NET, &NET_TO_OUT, &[], &[IN, OUT], &[]);
    assert_eq!(check(with_tasks(vec![d])), undeclared("d", IN, "in"));
    let d = dla("d", &IN_TO_NET, &NET_TO_OUT, &[IN, OUT], &[], &[]);
    assert_eq!(check(with_tasks(vec![d])), undeclared("d", OUT, "out"));
}

// ---- Order ----

#[test]
fn a_dependency_cycle_is_rejected() {
    // validate.rs `dependency_cycles_name_the_tasks_in_order`: a after c, b after a, c after b.
    // Whatever the table order, one same-frame wait points forward.
    let tasks = vec![
        cpu("a", CPU0, MS, &[], &[], waits![(2, 0)]),
        cpu("b", CPU1, MS, &[], &[], waits![(0, 0)]),
        cpu("c", CPU1, MS, &[], &[], waits![(1, 0)]),
    ];
    assert_eq!(
        check(with_tasks(tasks)),
        Err(TableError::WaitOutOfOrder {
            task: TaskId(0),
            task_name: "a",
            waited: TaskId(2),
            waited_name: "c"
        })
    );
    // A task waiting for itself in the same frame; its previous instance is fine.
    let selfish = |lag| {
        check(with_tasks(vec![cpu(
            "s",
            CPU0,
            MS,
            &[],
            &[],
            leak(vec![wait(0, lag)]),
        )]))
    };
    assert_eq!(
        selfish(0),
        Err(TableError::WaitOutOfOrder {
            task: TaskId(0),
            task_name: "s",
            waited: TaskId(0),
            waited_name: "s"
        })
    );
    assert_eq!(selfish(1).err(), None);
}

#[test]
fn a_fifo_deadlock_is_rejected() {
    // validate.rs `fifo_deadlocks_are_rejected`: g1 waits for g2, queued after it on gpu0.
    // The FIFO order is the table order, so the wait points forward.
    let tasks = vec![
        gpu("g1", &[], &[], &[], waits![(1, 0)]),
        gpu("g2", &[], &[], &[], &[]),
    ];
    assert!(matches!(
        check(with_tasks(tasks)),
        Err(TableError::WaitOutOfOrder {
            task_name: "g1",
            waited_name: "g2",
            ..
        })
    ));
}

// ---- Deadlines and releases ----

#[test]
fn deadlines_must_be_positive_and_within_the_period() {
    let with = |deadline_ns| {
        check(with_tasks(vec![TaskDesc {
            deadline_ns,
            ..cpu("x", CPU0, 1, &[], &[], &[])
        }]))
    };
    assert_eq!(
        with(0),
        Err(TableError::Deadline {
            task: TaskId(0),
            task_name: "x",
            deadline_ns: 0
        })
    );
    assert!(matches!(with(PERIOD + 1), Err(TableError::Deadline { .. })));
    assert_eq!(with(PERIOD).err(), None);
}

#[test]
fn releases_must_precede_the_deadline_and_only_cpu_tasks_have_one() {
    let late = TaskDesc {
        release_ns: 5 * MS,
        deadline_ns: 5 * MS,
        ..cpu("r", CPU1, MS, &[], &[], &[])
    };
    assert_eq!(
        check(with_tasks(vec![late])),
        Err(TableError::Release {
            task: TaskId(0),
            task_name: "r",
            release_ns: 5 * MS
        })
    );
    let g = TaskDesc {
        release_ns: MS,
        ..gpu("g", &[], &[], &[], &[])
    };
    assert!(matches!(
        check(with_tasks(vec![g])),
        Err(TableError::Release { task_name: "g", .. })
    ));
}

// ---- Races (validate.rs fixtures as tables) ----

/// validate.rs `two_cpu_tasks`: `w` on cpu0 writes `buf`, `r` on cpu1 reads it.
fn two_cpu_tasks(w_waits: &'static [Wait], r_waits: &'static [Wait]) -> Vec<TaskDesc> {
    vec![
        cpu("w", CPU0, MS, &[], &[BUF], w_waits),
        cpu("r", CPU1, MS, &[BUF], &[], r_waits),
    ]
}

/// validate.rs `a_worker_order_does_not_order_accelerator_accesses`: `d` (dla0) reads `in`,
/// `a` (cpu0) waits for `d`, `b` runs after `a` on cpu0 and `g` (gpu0) writes `in` after `b`.
/// The worker's order is no chain for the GPU's write (REQ-RT-019); `b` waiting for `a` is.
///
/// Covers: REQ-SCH-005
#[test]
fn a_worker_order_does_not_order_accelerator_accesses() {
    const AFTER_G_LAST_FRAME: &[Wait] = &[wait(3, 1)];
    const AFTER_D: &[Wait] = &[wait(0, 0)];
    const AFTER_A: &[Wait] = &[wait(1, 0)];
    const AFTER_B: &[Wait] = &[wait(2, 0)];
    let tasks = |b_waits: &'static [Wait], last: TaskDesc| {
        vec![
            dla(
                "d",
                &IN_TO_NET,
                &NET_TO_OUT,
                &[IN],
                &[OUT],
                AFTER_G_LAST_FRAME,
            ),
            cpu("a", CPU0, MS, &[], &[], AFTER_D),
            cpu("b", CPU0, MS, &[], &[], b_waits),
            last,
        ]
    };
    let gpu_writer = gpu("g", &[], &[], &[IN], AFTER_B);
    assert!(matches!(
        check(with_tasks(tasks(&[], gpu_writer))),
        Err(TableError::RaceWithinFrame {
            buffer: IN,
            first_name: "g",
            second_name: "d",
            ..
        })
    ));
    assert_eq!(check(with_tasks(tasks(AFTER_A, gpu_writer))).err(), None);
    // A CPU access after the same chain is ordered: its body runs after `a`'s on cpu0.
    let cpu_writer = cpu("c", CPU0, MS, &[], &[IN], AFTER_B);
    assert_eq!(check(with_tasks(tasks(&[], cpu_writer))).err(), None);
}

#[test]
fn race_within_a_frame_is_rejected() {
    // validate.rs `race_within_a_frame_is_rejected_with_a_fix`.
    assert_eq!(
        check(with_tasks(two_cpu_tasks(&[], &[]))),
        Err(TableError::RaceWithinFrame {
            buffer: BUF,
            buffer_name: "buf",
            mode: ModeId(0),
            mode_name: "a",
            first: TaskId(0),
            first_name: "w",
            second: TaskId(1),
            second_name: "r"
        })
    );
    // The writer is named first whatever the table order.
    let reader_first = vec![
        cpu("r", CPU1, MS, &[BUF], &[], &[]),
        cpu("w", CPU0, MS, &[], &[BUF], &[]),
    ];
    assert!(matches!(
        check(with_tasks(reader_first)),
        Err(TableError::RaceWithinFrame {
            first_name: "w",
            second_name: "r",
            ..
        })
    ));
    // Two readers never race.
    let readers = vec![
        cpu("r1", CPU0, MS, &[BUF], &[], &[]),
        cpu("r2", CPU1, MS, &[BUF], &[], &[]),
    ];
    assert_eq!(check(with_tasks(readers)).err(), None);
}

#[test]
fn race_ordered_by_a_wait_needs_a_back_edge_across_frames() {
    // validate.rs `race_ordered_by_after_needs_a_back_edge_across_frames`.
    assert_eq!(
        check(with_tasks(two_cpu_tasks(&[], waits![(0, 0)]))),
        Err(TableError::RaceAcrossFrames {
            buffer: BUF,
            buffer_name: "buf",
            mode: ModeId(0),
            mode_name: "a",
            first: TaskId(1),
            first_name: "r",
            second: TaskId(0),
            second_name: "w",
            distance: 1
        })
    );
    assert_eq!(
        check(with_tasks(two_cpu_tasks(waits![(1, 1)], waits![(0, 0)]))).err(),
        None
    );
}

#[test]
fn race_ordered_by_same_engine_fifo_is_accepted() {
    // validate.rs `race_ordered_by_same_engine_fifo_is_accepted`.
    let mut tasks = two_cpu_tasks(&[], &[]);
    tasks[1].engine = EngineId(CPU0);
    assert_eq!(check(with_tasks(tasks)).err(), None);
    let kernels = vec![
        gpu("g1", &[], &[], &[BUF], &[]),
        gpu("g2", &[], &[BUF], &[], &[]),
    ];
    assert_eq!(check(with_tasks(kernels)).err(), None);
}

#[test]
fn race_across_frames_from_copy_reuse_is_rejected() {
    // validate.rs `multiplicity_two_needs_a_chain_within_two_frames`: `r` waits for `w`, and
    // `w` of frame f + 2 reuses frame f's copy unless a chain of at most 2 frames orders it
    // after `r` of frame f.
    let with = |multiplicity, back: &'static [Wait]| {
        check(ScheduleTables {
            buffers: leak(vec![raw("buf", 64, multiplicity)]),
            ..with_tasks(two_cpu_tasks(back, waits![(0, 0)]))
        })
    };
    let race = |distance| {
        Err(TableError::RaceAcrossFrames {
            buffer: BUF,
            buffer_name: "buf",
            mode: ModeId(0),
            mode_name: "a",
            first: TaskId(1),
            first_name: "r",
            second: TaskId(0),
            second_name: "w",
            distance,
        })
    };
    assert_eq!(with(2, &[]), race(2));
    assert_eq!(with(2, waits![(1, 3)]), race(2));
    assert_eq!(with(4, waits![(1, 3)]).err(), None);
    assert_eq!(with(2, waits![(1, 2)]).err(), None);
    assert_eq!(with(2, waits![(1, 1)]).err(), None);
}

#[test]
fn a_chain_through_other_engines_and_lags_orders_copy_reuse() {
    // `w` (cpu0) → `g` (gpu0) → `r` (cpu1) within a frame; `w` waits for `g` of the previous
    // frame, and `g` for `r` of the frame before: d(r, w) = 2 through `g`.
    let tasks = vec![
        cpu("w", CPU0, MS, &[], &[BUF], waits![(1, 1)]),
        gpu("g", &[], &[], &[], waits![(0, 0), (2, 1)]),
        cpu("r", CPU1, MS, &[BUF], &[], waits![(1, 0)]),
    ];
    let with = |multiplicity| {
        check(ScheduleTables {
            buffers: leak(vec![raw("buf", 64, multiplicity)]),
            ..with_tasks(tasks.clone())
        })
    };
    assert!(matches!(
        with(1),
        Err(TableError::RaceAcrossFrames {
            first_name: "r",
            second_name: "w",
            distance: 1,
            ..
        })
    ));
    assert_eq!(with(2).err(), None);
}

#[test]
fn races_are_checked_per_mode() {
    // validate.rs `races_are_checked_per_mode`: `w` (mode a) and `w2` (mode b) write, `r`
    // (both modes, after `w` on cpu0) reads; only mode b races.
    let mode_a = ModeMask(1);
    let mode_b = ModeMask(2);
    let tasks = |r_modes| {
        vec![
            TaskDesc {
                modes: mode_a,
                ..cpu("w", CPU0, MS, &[], &[BUF], &[])
            },
            TaskDesc {
                modes: mode_b,
                ..cpu("w2", CPU1, MS, &[], &[BUF], &[])
            },
            TaskDesc {
                modes: r_modes,
                ..cpu("r", CPU0, MS, &[BUF], &[], &[])
            },
        ]
    };
    assert_eq!(
        check(with_tasks(tasks(ModeMask::ALL))),
        Err(TableError::RaceWithinFrame {
            buffer: BUF,
            buffer_name: "buf",
            mode: ModeId(1),
            mode_name: "b",
            first: TaskId(1),
            first_name: "w2",
            second: TaskId(2),
            second_name: "r"
        })
    );
    // Tasks of disjoint modes never race.
    assert_eq!(check(with_tasks(tasks(mode_a))).err(), None);
}

#[test]
fn waits_for_tasks_outside_the_mode_give_no_order() {
    // validate.rs `dependencies_on_tasks_outside_the_mode_give_no_order`.
    let tasks = |r_waits: &'static [Wait]| {
        vec![
            TaskDesc {
                modes: ModeMask(1),
                ..cpu("w", CPU0, MS, &[], &[], &[])
            },
            cpu("w2", CPU1, MS, &[], &[BUF], waits![(2, 1)]),
            cpu("r", CPU0, MS, &[BUF], &[], r_waits),
        ]
    };
    assert_eq!(check(with_tasks(tasks(waits![(0, 0), (1, 0)]))).err(), None);
    assert!(matches!(
        check(with_tasks(tasks(waits![(0, 0)]))),
        Err(TableError::RaceWithinFrame {
            first_name: "w2",
            second_name: "r",
            ..
        })
    ));
    // Mode b alone: `r`'s wait for `w` (mode a only) is dropped, nothing else orders `w2`.
    let mut only_b = tasks(waits![(0, 0)]);
    only_b[1].modes = ModeMask(2);
    assert!(matches!(
        check(with_tasks(only_b)),
        Err(TableError::RaceWithinFrame { mode_name: "b", .. })
    ));
}

// ---- Timeline ----

#[test]
fn an_infeasible_timeline_is_rejected() {
    // validate.rs `infeasible_timelines_name_the_chain`: s (cpu0, 4 ms) → t (cpu1, 4 ms) →
    // u (cpu0, 3 ms, deadline 9 ms) finishes at 11 ms.
    let a = ModeMask(1);
    let tasks = |u_deadline| {
        vec![
            TaskDesc {
                modes: a,
                ..cpu("s", CPU0, 4 * MS, &[], &[], &[])
            },
            TaskDesc {
                modes: a,
                ..cpu("t", CPU1, 4 * MS, &[], &[], waits![(0, 0)])
            },
            TaskDesc {
                modes: a,
                deadline_ns: u_deadline,
                ..cpu("u", CPU0, 3 * MS, &[], &[], waits![(1, 0)])
            },
        ]
    };
    assert_eq!(
        check(with_tasks(tasks(9 * MS))),
        Err(TableError::DeadlineMiss {
            task: TaskId(2),
            task_name: "u",
            mode: ModeId(0),
            mode_name: "a",
            finish_ns: 11 * MS,
            deadline_ns: 9 * MS
        })
    );
    assert!(check(with_tasks(tasks(PERIOD))).is_err());
    // Release offsets start the chain: 8 ms + 3 ms is after the 10 ms deadline.
    let released = TaskDesc {
        release_ns: 8 * MS,
        ..cpu("x", CPU0, 3 * MS, &[], &[], &[])
    };
    assert!(matches!(
        check(with_tasks(vec![released])),
        Err(TableError::DeadlineMiss {
            task_name: "x",
            finish_ns: 11_000_000,
            ..
        })
    ));
}

#[test]
fn engines_run_their_queue_in_table_order() {
    // Two 6 ms tasks queued on cpu0 end at 12 ms, after the deadline (the period); on two
    // engines both end at 6 ms.
    let tasks = |second| {
        vec![
            cpu("p", CPU0, 6 * MS, &[], &[], &[]),
            cpu("q", second, 6 * MS, &[], &[], &[]),
        ]
    };
    assert_eq!(
        check(with_tasks(tasks(CPU0))),
        Err(TableError::DeadlineMiss {
            task: TaskId(1),
            task_name: "q",
            mode: ModeId(0),
            mode_name: "a",
            finish_ns: 12 * MS,
            deadline_ns: PERIOD
        })
    );
    assert_eq!(check(with_tasks(tasks(CPU1))).err(), None);
}

#[test]
fn lagged_waits_do_not_delay_a_frame_that_fits_the_period() {
    // `k` (gpu0) waits for its own and `c`'s previous instances; `c` (cpu0, released at 9 ms)
    // waits for `k`. With `k` at 9 ms, `c` ends at the period's end: nothing carries over to
    // the next frame. One more nanosecond of `k` pushes `c` past the period.
    let tasks = |k_wcet| {
        vec![
            TaskDesc {
                wcet_ns: k_wcet,
                ..gpu("k", &[], &[], &[], waits![(0, 1), (1, 1)])
            },
            TaskDesc {
                release_ns: 9 * MS,
                ..cpu("c", CPU0, MS, &[], &[], waits![(0, 0)])
            },
        ]
    };
    assert_eq!(check(with_tasks(tasks(9 * MS))).err(), None);
    assert!(matches!(
        check(with_tasks(tasks(9 * MS + 1))),
        Err(TableError::DeadlineMiss {
            task_name: "c",
            finish_ns: 10_000_001,
            ..
        })
    ));
}

/// Covers: REQ-SCH-015
#[test]
fn cpu_waits_are_one_per_task_with_ordered_windows() {
    let spin = CpuWait::Spin {
        from_ns: 10,
        until_ns: 20,
    };
    let ok: &'static [CpuWait] =
        Box::leak(Box::new([spin, CpuWait::Block, CpuWait::ALWAYS_SPIN, spin]));
    let s = check(ScheduleTables {
        cpu_waits: ok,
        ..PIPELINE
    })
    .expect("one per task");
    assert_eq!(s.cpu_wait(TaskId(2)), CpuWait::ALWAYS_SPIN);
    assert_eq!(
        check(PIPELINE).expect("none").cpu_wait(TaskId(2)),
        CpuWait::Block
    );
    let short: &'static [CpuWait] = Box::leak(Box::new([spin]));
    assert_eq!(
        check(ScheduleTables {
            cpu_waits: short,
            ..PIPELINE
        })
        .err(),
        Some(TableError::CpuWaitOutOfRange { entry: 1 })
    );
    let backwards = CpuWait::Spin {
        from_ns: 20,
        until_ns: 10,
    };
    let bad: &'static [CpuWait] = Box::leak(Box::new([spin, spin, backwards, spin]));
    assert_eq!(
        check(ScheduleTables {
            cpu_waits: bad,
            ..PIPELINE
        })
        .err(),
        Some(TableError::CpuWaitOutOfRange { entry: 2 })
    );
}

/// `n` GPU tasks on gpu0, each waiting for the next four (wrapping) in the frame before, plus
/// `extra` more lag-1 waits on task 0 (spread over the first tasks): `8n + 2 extra` stream
/// operations in flight at lookahead 1.
fn gpu_tasks_with_waits(n: usize, extra: usize) -> Vec<TaskDesc> {
    (0..n)
        .map(|i| {
            let mut waits: Vec<Wait> = (1..=4).map(|k| wait(((i + k) % n) as u16, 1)).collect();
            if i < extra {
                waits.push(wait(0, 2));
            }
            TaskDesc {
                wcet_ns: 1_000,
                budget_ns: 1_000,
                ..gpu("k", &[], &[], &[], leak(waits))
            }
        })
        .collect()
}

/// Covers: REQ-PERF-002
#[test]
fn a_gpu_stream_holds_at_most_max_stream_ops() {
    // 48 tasks x (4 + 4 waits) x 2 frames in flight: exactly the limit.
    assert_eq!(MAX_STREAM_OPS, 768);
    assert_eq!(check(with_tasks(gpu_tasks_with_waits(48, 0))).err(), None);
    // One wait more is two operations more (both frames in flight).
    let past = check(with_tasks(gpu_tasks_with_waits(48, 1))).unwrap_err();
    assert_eq!(
        past,
        TableError::StreamOps {
            engine: EngineId(GPU0),
            engine_name: "gpu0",
            ops: 770,
        }
    );
    let message = past.to_string();
    assert!(
        message.contains("gpu0") && message.contains("770") && message.contains("768"),
        "{message}"
    );
    // With one frame in flight the same tasks fit.
    let one_frame = ScheduleTables {
        lookahead: 0,
        ..with_tasks(gpu_tasks_with_waits(48, 1))
    };
    assert_eq!(check(one_frame).err(), None);
    // The largest GPU chain the task limit allows fits: 64 x 5 - 1 per frame, two frames.
    let chain: Vec<TaskDesc> = (0..MAX_TASKS)
        .map(|i| {
            let waits: &'static [Wait] = if i == 0 {
                &[]
            } else {
                leak(vec![wait(i as u16 - 1, 0)])
            };
            TaskDesc {
                wcet_ns: 1_000,
                budget_ns: 1_000,
                ..gpu("c", &[], &[], &[], waits)
            }
        })
        .collect();
    assert_eq!(check(with_tasks(chain)).err(), None);
}

/// `n` names `{prefix}0`.. (leaked).
fn names(prefix: &str, n: u64) -> Vec<&'static str> {
    (0..n)
        .map(|i| &*String::leak(format!("{prefix}{i}")))
        .collect()
}

/// Tables for `limit` with `value`: each limit's item (a task, buffer, network or engine)
/// takes the value, everything else stays well within the runtime's capacities.
fn tables_for(limit: Limit, value: u64) -> ScheduleTables {
    let short = |t: TaskDesc| TaskDesc {
        wcet_ns: 10_000,
        budget_ns: 10_000,
        ..t
    };
    let base = with_tasks(vec![]);
    match limit {
        Limit::Tasks => with_tasks(
            names("t", value)
                .into_iter()
                .map(|n| short(cpu(n, CPU0, 0, &[], &[], &[])))
                .collect(),
        ),
        Limit::Buffers => ScheduleTables {
            buffers: leak(
                names("b", value)
                    .into_iter()
                    .map(|n| raw(n, 64, 1))
                    .collect(),
            ),
            ..base
        },
        Limit::Modes => ScheduleTables {
            modes: leak(
                names("m", value)
                    .into_iter()
                    .map(|name| ModeDesc { name })
                    .collect(),
            ),
            ..base
        },
        Limit::Lookahead => ScheduleTables {
            lookahead: value as u8,
            ..base
        },
        Limit::Multiplicity => ScheduleTables {
            buffers: leak(vec![raw("buf", 64, value as u8)]),
            ..with_tasks(vec![cpu("w", CPU0, MS, &[], &[BUF], &[])])
        },
        Limit::Waits => {
            let mut tasks: Vec<TaskDesc> = names("t", value)
                .into_iter()
                .map(|n| short(cpu(n, CPU0, 0, &[], &[], &[])))
                .collect();
            let waits = leak((0..value as u16).map(|t| wait(t, 0)).collect());
            tasks.push(short(cpu("w", CPU0, 0, &[], &[], waits)));
            with_tasks(tasks)
        }
        Limit::Lag => with_tasks(vec![
            cpu("t", CPU0, MS, &[], &[], &[]),
            cpu("w", CPU1, MS, &[], &[], leak(vec![wait(0, value as u8)])),
        ]),
        Limit::KernelParams => {
            let params = leak((0..value as u32).map(Param::U32).collect());
            with_tasks(vec![gpu("g", params, &[], &[], &[])])
        }
        Limit::KernelName => {
            let mut g = gpu("g", &[], &[], &[], &[]);
            if let Work::Gpu(work) = &mut g.work {
                work.kernel = String::leak("k".repeat(value as usize));
            }
            with_tasks(vec![g])
        }
        Limit::LoadableInputs | Limit::LoadableOutputs => {
            let spec = TensorSpec {
                name: "x",
                size: 64,
                dims: [1, 1, 1, 64],
                data_type: TensorType::Int8,
            };
            let tensors = leak(vec![spec; value as usize]);
            let (inputs, outputs): (&[TensorSpec], &[TensorSpec]) =
                if limit == Limit::LoadableInputs {
                    (tensors, &[])
                } else {
                    (&[], tensors)
                };
            ScheduleTables {
                loadables: leak(vec![LoadableDesc {
                    inputs,
                    outputs,
                    ..LOADABLES[0]
                }]),
                ..base
            }
        }
        Limit::DlaAlign => ScheduleTables {
            buffers: leak(vec![
                raw("buf", 64, 1),
                BufferDesc {
                    kind: BufferKind::Raw {
                        size: 64,
                        align: value,
                    },
                    ..raw("in", 64, 1)
                },
                raw("out", 256, 1),
            ]),
            ..with_tasks(vec![dla(
                "net",
                &IN_TO_NET,
                &NET_TO_OUT,
                &[IN],
                &[OUT],
                &[],
            )])
        },
        // 64 GPU tasks of 4 operations and 2 waits each (lookahead 1: 2 x 384 = 768), then
        // one more wait per 2 operations beyond.
        Limit::StreamOps => {
            let extra = (value - 768) / 2;
            with_tasks(
                names("g", 64)
                    .into_iter()
                    .enumerate()
                    .map(|(i, n)| {
                        let mut waits = vec![wait(0, 1), wait(1, 1)];
                        if (i as u64) < extra {
                            waits.push(wait(2, 1));
                        }
                        short(gpu(n, &[], &[], &[], leak(waits)))
                    })
                    .collect(),
            )
        }
        // 16 GPU tasks of 4 nodes on a graph-mode engine (64), then one wait on a CPU task
        // per node beyond.
        Limit::GraphNodes => {
            let extra = value - 64;
            let mut tasks = vec![short(cpu("c", CPU0, 0, &[], &[], &[]))];
            tasks.extend(names("g", 16).into_iter().enumerate().map(|(i, n)| {
                let waits: &'static [Wait] = if (i as u64) < extra {
                    waits![(0, 0)]
                } else {
                    &[]
                };
                short(gpu(n, &[], &[], &[], waits))
            }));
            let mut engines = ENGINES.to_vec();
            engines[GPU0 as usize].graph = true;
            ScheduleTables {
                engines: leak(engines),
                ..with_tasks(tasks)
            }
        }
        // `value` networks on one core, each run by a task that reads `in`.
        Limit::DlaHandlesPerBuffer => {
            let tasks = (0..value)
                .map(|i| TaskDesc {
                    work: Work::Dla(DlaWork {
                        loadable: LoadableId(i as u16),
                        inputs: &IN_TO_NET,
                        outputs: &[],
                    }),
                    ..short(dla("d", &IN_TO_NET, &[], &[IN], &[], &[]))
                })
                .collect();
            ScheduleTables {
                loadables: networks(value),
                ..with_tasks(tasks)
            }
        }
        // `value` networks on one core, each run by a task that waits for CPU task `c`.
        Limit::DlaHandlesPerSemaphore => {
            let mut tasks = vec![short(cpu("c", CPU0, 0, &[], &[], &[]))];
            tasks.extend((0..value).map(|i| TaskDesc {
                work: Work::Dla(DlaWork {
                    loadable: LoadableId(i as u16),
                    inputs: &[],
                    outputs: &[],
                }),
                ..short(dla("d", &[], &[], &[], &[], waits![(0, 0)]))
            }));
            ScheduleTables {
                loadables: networks(value),
                ..with_tasks(tasks)
            }
        }
        // 63 tasks of `net` (a semaphore and a start semaphore each, 126 imports) reading `in`
        // (127), the first also reading `value - 127` more buffers.
        Limit::DlaImports => {
            let more: &'static [BufferId] = match value - 127 {
                1 => &[IN, BUF],
                2 => &[IN, BUF, OUT],
                n => panic!("no DLA import case for {n} more buffers"),
            };
            let tasks = (0..63)
                .map(|i| {
                    short(dla(
                        "net",
                        &[],
                        &[],
                        if i == 0 { more } else { &[IN] },
                        &[],
                        &[],
                    ))
                })
                .collect();
            let mut engines = ENGINES.to_vec();
            engines[DLA0 as usize].queue_capacity = 256;
            ScheduleTables {
                engines: leak(engines),
                ..with_tasks(tasks)
            }
        }
        Limit::PvaParams => {
            // A program of `value` u32 parameters, and a task passing them.
            let specs = names("s", value)
                .into_iter()
                .map(|name| PvaParamSpec {
                    name,
                    kind: PvaParamKind::U32,
                })
                .collect();
            let programs = leak(vec![PvaProgramDesc {
                params: leak(specs),
                ..PVA_PROGRAMS[0]
            }]);
            let params = leak((0..value as u32).map(Param::U32).collect());
            ScheduleTables {
                pva_programs: programs,
                ..pva_tables(vec![pva("v", params, &[], &[], &[])])
            }
        }
        Limit::PvaSymbol => ScheduleTables {
            pva_programs: leak(vec![PvaProgramDesc {
                params: leak(vec![PvaParamSpec {
                    name: String::leak("s".repeat(value as usize)),
                    kind: PvaParamKind::U32,
                }]),
                ..PVA_PROGRAMS[0]
            }]),
            ..pva_tables(vec![])
        },
        other => panic!("no tables for {other:?}"),
    }
}

/// `n` networks (`LOADABLES[0]` under other names).
fn networks(n: u64) -> &'static [LoadableDesc] {
    leak(
        names("net", n)
            .into_iter()
            .map(|name| LoadableDesc {
                name,
                ..LOADABLES[0]
            })
            .collect(),
    )
}

/// Every limit of `Limit::ALL`: tables at it pass `Schedule::check`, tables one step past it
/// are refused with the limit, the item and the value (the variants older than `Limit` for
/// the counts per schedule, the lookahead and the stream operations).
///
/// Covers: REQ-ROB-001, REQ-ROB-004
#[test]
fn limits_at_and_past_the_runtime_capacities() {
    for limit in Limit::ALL {
        let (at, past) = match limit.bound() {
            Bound::AtMost(max) => (max, max + 1),
            Bound::AtLeast(min) => (min, min / 2),
            Bound::DivisorOf(n) => (n, n - 1),
        };
        // Stream operations grow by 2 (one wait, two frames in flight).
        let past = if limit == Limit::StreamOps {
            at + 2
        } else {
            past
        };
        if let Err(e) = check(tables_for(limit, at)) {
            panic!("{limit:?} at {at}: {e}");
        }
        let refused = check(tables_for(limit, past)).err();
        let name = match limit {
            Limit::Multiplicity => "buf",
            Limit::Waits | Limit::Lag => "w",
            Limit::KernelParams | Limit::KernelName => "g",
            Limit::LoadableInputs | Limit::LoadableOutputs => "net",
            Limit::DlaAlign => "in",
            Limit::GraphNodes => "gpu0",
            Limit::DlaHandlesPerBuffer => "in",
            Limit::DlaHandlesPerSemaphore => "c",
            Limit::DlaImports => "net",
            Limit::PvaParams => "v",
            Limit::PvaSymbol => "blur",
            _ => "",
        };
        let count = past as usize;
        let expected = match limit {
            Limit::Tasks => TableError::TooManyTasks { count },
            Limit::Buffers => TableError::TooManyBuffers { count },
            Limit::Modes => TableError::ModeCount { count },
            Limit::Lookahead => TableError::Lookahead {
                lookahead: past as u8,
            },
            Limit::StreamOps => TableError::StreamOps {
                engine: EngineId(GPU0),
                engine_name: "gpu0",
                ops: count,
            },
            _ => TableError::Limit {
                limit,
                name,
                value: past,
            },
        };
        assert_eq!(refused, Some(expected), "{limit:?} at {past}");
    }
}

/// A period of `u64::MAX` ns with two 10^19 ns tasks on one worker: the frame ends at
/// 2·10^19 ns, beyond `u64`; the timeline is computed in `i128`, so it is a deadline miss (its
/// finish reported saturated), not a wrap to an early finish. One task alone fits.
///
/// Covers: REQ-ROB-020
#[test]
fn a_timeline_beyond_u64_is_a_deadline_miss() {
    const HUGE: u64 = 10_000_000_000_000_000_000;
    let task = |name| TaskDesc {
        deadline_ns: u64::MAX,
        ..cpu(name, CPU0, HUGE, &[], &[], &[])
    };
    let huge = |tasks| ScheduleTables {
        period_ns: u64::MAX,
        ..with_tasks(tasks)
    };
    assert_eq!(check(huge(vec![task("a")])).err(), None);
    assert_eq!(
        check(huge(vec![task("a"), task("b")])),
        Err(TableError::DeadlineMiss {
            task: TaskId(1),
            task_name: "b",
            mode: ModeId(0),
            mode_name: "a",
            finish_ns: u64::MAX,
            deadline_ns: u64::MAX
        })
    );
}

// ---- PVA ----

const PVA0: u8 = 4;

/// The fixture's engines and a PVA engine `pva0` (PVA 0, VPU 0).
static PVA_ENGINES: [EngineDesc; 5] = [
    engine("cpu0", EngineKind::Cpu, 0),
    engine("cpu1", EngineKind::Cpu, 1),
    engine("gpu0", EngineKind::Gpu, 0),
    engine("dla0", EngineKind::Dla, 0),
    pva_engine("pva0", 0, VpuAffinity::Vpu0),
];
/// Program `blur`: `src` (read), `dst` (written), `width` (u32).
static BLUR_PARAMS: [PvaParamSpec; 3] = [
    PvaParamSpec {
        name: "src",
        kind: PvaParamKind::Pointer(PvaAccess::Read),
    },
    PvaParamSpec {
        name: "dst",
        kind: PvaParamKind::Pointer(PvaAccess::Write),
    },
    PvaParamSpec {
        name: "width",
        kind: PvaParamKind::U32,
    },
];
static PVA_PROGRAMS: [PvaProgramDesc; 1] = [PvaProgramDesc {
    name: "blur",
    sha256: [0; 32],
    image: b"\x7fELF placeholder",
    params: &BLUR_PARAMS,
}];

const fn pva_engine(name: &'static str, instance: u8, vpu: VpuAffinity) -> EngineDesc {
    EngineDesc {
        vpu: Some(vpu),
        ..engine(name, EngineKind::Pva, instance)
    }
}

/// Program `blur` on pva0 passing `params`.
const fn pva(
    name: &'static str,
    params: &'static [Param],
    reads: &'static [BufferId],
    writes: &'static [BufferId],
    waits: &'static [Wait],
) -> TaskDesc {
    TaskDesc {
        engine: EngineId(PVA0),
        work: Work::Pva(PvaWork {
            program: PvaProgramId(0),
            params,
        }),
        ..cpu(name, PVA0, MS, reads, writes, waits)
    }
}

/// The tables with the PVA engines, program `blur` and `tasks`.
fn pva_tables(tasks: Vec<TaskDesc>) -> ScheduleTables {
    ScheduleTables {
        engines: &PVA_ENGINES,
        pva_programs: &PVA_PROGRAMS,
        ..with_tasks(tasks)
    }
}

const BLUR: [Param; 3] = [Param::Buffer(IN), Param::Buffer(OUT), Param::U32(64)];

/// CPU `input` writes `in` → PVA `blur` → GPU `post` reads `out`; the next frame's writers
/// wait for this frame's readers.
fn pva_pipeline(post_waits: &'static [Wait]) -> Vec<TaskDesc> {
    vec![
        cpu("input", CPU0, MS, &[], &[IN], waits![(1, 1)]),
        pva("blur", &BLUR, &[IN], &[OUT], waits![(0, 0), (2, 1)]),
        gpu("post", &[], &[OUT], &[], post_waits),
    ]
}

/// Covers: REQ-PVA-056, REQ-PVA-058
#[test]
fn a_valid_pva_pipeline_is_accepted() {
    assert!(check(pva_tables(pva_pipeline(waits![(1, 0)]))).is_ok());
    // PVA tasks take part in the race rule.
    assert!(matches!(
        check(pva_tables(pva_pipeline(&[]))),
        Err(TableError::RaceWithinFrame {
            buffer_name: "out",
            first_name: "blur",
            second_name: "post",
            ..
        })
    ));
    // And in the timeline: `blur` after `input`, for 9.5 ms, passes the 10 ms period.
    let mut tasks = pva_pipeline(waits![(1, 0)]);
    tasks[1].wcet_ns = 9 * MS + MS / 2;
    tasks[1].budget_ns = tasks[1].wcet_ns;
    assert!(matches!(
        check(pva_tables(tasks)),
        Err(TableError::DeadlineMiss {
            task_name: "blur",
            finish_ns,
            ..
        }) if finish_ns == 10 * MS + MS / 2
    ));
}

/// A symbol name of one byte is accepted; an empty one or one with a NUL byte is refused
/// (the runtime passes it NUL-terminated to cuPVA).
///
/// Covers: REQ-PVA-078
#[test]
fn pva_symbol_names_are_not_empty_and_hold_no_nul() {
    let with = |name: &'static str| {
        check(ScheduleTables {
            pva_programs: leak(vec![PvaProgramDesc {
                params: leak(vec![PvaParamSpec {
                    name,
                    kind: PvaParamKind::U32,
                }]),
                ..PVA_PROGRAMS[0]
            }]),
            ..pva_tables(vec![])
        })
    };
    assert!(with("s").is_ok());
    for bad in ["", "s\0t", "\0"] {
        assert_eq!(
            with(bad).map(|_| ()),
            Err(TableError::PvaSymbolName {
                program: PvaProgramId(0),
                program_name: PVA_PROGRAMS[0].name,
                index: 0,
            }),
            "{bad:?}"
        );
    }
}

/// Covers: REQ-PVA-056
#[test]
fn pva_parameters_must_match_their_program() {
    let with = |params: Vec<Param>, reads: &'static [BufferId], writes: &'static [BufferId]| {
        let mut tasks = pva_pipeline(waits![(1, 0)]);
        tasks[1] = pva("blur", leak(params), reads, writes, waits![(0, 0), (2, 1)]);
        check(pva_tables(tasks))
    };
    let param = |index| {
        Err(TableError::PvaParam {
            task: TaskId(1),
            task_name: "blur",
            index,
        })
    };
    // Missing, extra, wrong kinds.
    assert_eq!(with(BLUR[..2].to_vec(), &[IN], &[OUT]), param(2));
    assert_eq!(
        with([&BLUR[..], &[Param::U32(1)]].concat(), &[IN], &[OUT]),
        param(3)
    );
    assert_eq!(
        with(vec![Param::U32(0), BLUR[1], BLUR[2]], &[IN], &[OUT]),
        param(0)
    );
    assert_eq!(
        with(vec![BLUR[0], BLUR[1], Param::F32(64.0)], &[IN], &[OUT]),
        param(2)
    );
    assert_eq!(
        with(vec![BLUR[0], BLUR[1], Param::Buffer(BUF)], &[IN], &[OUT]),
        param(2)
    );
    // A pointer's access must be in the task's lists, where the race check sees it.
    let undeclared = |buffer: BufferId, buffer_name| {
        Err(TableError::UndeclaredAccess {
            task: TaskId(1),
            task_name: "blur",
            buffer,
            buffer_name,
        })
    };
    assert_eq!(with(BLUR.to_vec(), &[OUT], &[OUT]), undeclared(IN, "in"));
    assert_eq!(with(BLUR.to_vec(), &[IN], &[IN]), undeclared(OUT, "out"));
    assert_eq!(
        with(
            vec![BLUR[0], Param::Buffer(BufferId(9)), BLUR[2]],
            &[IN],
            &[OUT]
        ),
        Err(TableError::BufferOutOfRange {
            task: TaskId(1),
            task_name: "blur",
            buffer: BufferId(9),
        })
    );
    // A program that does not exist.
    let mut tasks = pva_pipeline(waits![(1, 0)]);
    tasks[1].work = Work::Pva(PvaWork {
        program: PvaProgramId(1),
        params: &BLUR,
    });
    assert_eq!(
        check(pva_tables(tasks)),
        Err(TableError::PvaProgramOutOfRange {
            task: TaskId(1),
            task_name: "blur",
            program: PvaProgramId(1),
        })
    );
}

/// Covers: REQ-PVA-051, REQ-PVA-056
#[test]
fn pva_engines_have_an_affinity_and_vpus_of_their_own() {
    let with = |engines: Vec<EngineDesc>| {
        check(ScheduleTables {
            engines: leak(engines),
            ..with_tasks(vec![])
        })
    };
    let affinity = |engine: u8, engine_name| {
        Err(TableError::VpuAffinity {
            engine: EngineId(engine),
            engine_name,
        })
    };
    assert_eq!(
        with(vec![engine("pva0", EngineKind::Pva, 0)]),
        affinity(0, "pva0")
    );
    assert_eq!(
        with(vec![EngineDesc {
            vpu: Some(VpuAffinity::Vpu0),
            ..engine("gpu0", EngineKind::Gpu, 0)
        }]),
        affinity(0, "gpu0")
    );
    for (a, b) in [
        (VpuAffinity::Any, VpuAffinity::Vpu1),
        (VpuAffinity::Vpu0, VpuAffinity::Any),
        (VpuAffinity::Vpu1, VpuAffinity::Vpu1),
    ] {
        assert_eq!(
            with(vec![pva_engine("pa", 0, a), pva_engine("pb", 0, b)]),
            Err(TableError::SharedVpu {
                engine: EngineId(1),
                engine_name: "pb",
                other: EngineId(0),
                other_name: "pa",
            })
        );
    }
    // Different VPUs of one PVA, or different PVAs.
    for engines in [
        vec![
            pva_engine("pa", 0, VpuAffinity::Vpu0),
            pva_engine("pb", 0, VpuAffinity::Vpu1),
        ],
        vec![
            pva_engine("pa", 0, VpuAffinity::Any),
            pva_engine("pb", 1, VpuAffinity::Any),
        ],
    ] {
        assert!(with(engines).is_ok());
    }
}

/// Thread settings: the executive and CPU workers once each, priorities up to 99.
///
/// Covers: REQ-PART-021
#[test]
fn thread_entries_name_cpu_workers_once_with_a_fifo_priority() {
    let with = |threads: Vec<ThreadDesc>| ScheduleTables {
        threads: leak(threads),
        ..tables(&[])
    };
    let entry = |thread, priority, cpus| ThreadDesc {
        thread,
        priority,
        cpus,
    };
    let worker = |e: u8| Thread::Worker(EngineId(e));
    let good = with(vec![
        entry(Thread::Executive, 80, 0b1),
        entry(worker(CPU0), 70, 0b10),
        entry(worker(CPU1), 0, 0b1100),
    ]);
    let s = check(good).unwrap();
    assert_eq!(s.thread(worker(CPU0)).priority, 70);
    assert_eq!(s.thread(worker(CPU1)).cpus, 0b1100);
    // No entry: the runtime's defaults.
    let none = check(tables(&[])).unwrap();
    assert_eq!(none.thread(Thread::Executive).priority, 0);
    assert_eq!(none.thread(Thread::Executive).cpus, 0);
    let bad = [
        // Not a CPU engine, or no engine at all.
        vec![entry(worker(GPU0), 50, 0)],
        vec![entry(worker(4), 50, 0)],
        // A thread twice.
        vec![
            entry(Thread::Executive, 50, 0),
            entry(Thread::Executive, 60, 0),
        ],
        vec![entry(worker(CPU1), 50, 0), entry(worker(CPU1), 0, 1)],
        // Beyond SCHED_FIFO's portable range.
        vec![
            entry(worker(CPU0), 1, 0),
            entry(worker(CPU1), MAX_FIFO_PRIORITY + 1, 0),
        ],
    ];
    for threads in bad {
        let entry = threads.len() - 1;
        let e = check(with(threads.clone())).unwrap_err();
        assert_eq!(e, TableError::ThreadOutOfRange { entry }, "{threads:?}");
        assert!(
            e.to_string().contains(&format!("threads entry {entry}")),
            "{e}"
        );
    }
}
