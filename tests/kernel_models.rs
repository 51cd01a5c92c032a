//! User kernels on SIL through the public API only: a kernel model defined here (not in
//! `orin-exec-kernels`) for a cubin of the test's own (`tests/fixtures/user_kernel.cu`) runs
//! in a schedule end to end; an unregistered kernel, a model bound to another cubin, a model
//! whose kinds disagree with the cubin, and schedule `params` that disagree with the cubin or
//! the model each fail init with an error naming the kernel (and the parameter index).
#![cfg(feature = "sil")]

use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::Error;
use orin_exec::engine::cpu::CpuCtx;
use orin_exec::error::{Context, ModelStatus, ParamMismatch, RegisterFault};
use orin_exec::exec::{Builder, Config, CpuTask, TaskFault};
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind};
use orin_exec::table::*;

mod user_kernel;
use user_kernel::{K, KERNEL, N, Produce, SCALE_INDEX, leak, user_cubin};

/// A model that declares three parameters where the cubin has four.
struct ThreeParams;

impl KernelModel for ThreeParams {
    fn params(&self) -> &[ParamKind] {
        &[ParamKind::DevPtr, ParamKind::DevPtr, ParamKind::U32]
    }

    fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
        Ok(())
    }
}

static THREE_PARAMS: ThreeParams = ThreeParams;

const IN: BufferId = BufferId(0);
const OUT: BufferId = BufferId(1);
const PRODUCE: TaskId = TaskId(0);
const SCALE: TaskId = TaskId(1);
const VERIFY: TaskId = TaskId(2);

/// CPU `produce` writes `in` → GPU `scale` (the user's kernel) → CPU `verify`.
fn schedule(cubin: &'static CubinDesc, params: Vec<Param>) -> &'static Schedule {
    let ms = 1_000_000;
    let task = |name, engine: u8, work, reads, writes, waits: Vec<Wait>| TaskDesc {
        name,
        engine: EngineId(engine),
        work,
        wcet_ns: ms,
        budget_ns: 4 * ms,
        deadline_ns: 10 * ms,
        release_ns: 0,
        reads: leak(reads),
        writes: leak(writes),
        waits: leak(waits),
        modes: ModeMask::ALL,
    };
    let w = |task, lag| Wait { task, lag };
    let buffer = |name| BufferDesc {
        name,
        kind: BufferKind::Raw {
            size: u64::from(N) * 4,
            align: 256,
        },
        multiplicity: 1,
        cpu_access: true,
    };
    let tables = Box::leak(Box::new(ScheduleTables {
        name: "user_kernel",
        profile: "sil",
        period_ns: 10 * ms,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines: leak(vec![
            EngineDesc {
                name: "cpu0",
                kind: EngineKind::Cpu,
                instance: 0,
                queue_capacity: 8,
                graph: false,
                vpu: None,
            },
            EngineDesc {
                name: "gpu0",
                kind: EngineKind::Gpu,
                instance: 0,
                queue_capacity: 4,
                graph: false,
                vpu: None,
            },
        ]),
        buffers: leak(vec![buffer("in"), buffer("out")]),
        tasks: leak(vec![
            task(
                "produce",
                0,
                Work::Cpu,
                vec![],
                vec![IN],
                vec![w(VERIFY, 1)],
            ),
            task(
                "scale",
                1,
                Work::Gpu(GpuWork {
                    cubin: CubinId(0),
                    kernel: KERNEL,
                    grid: [4, 1, 1],
                    block: [256, 1, 1],
                    shared_mem_bytes: 0,
                    params: leak(params),
                }),
                vec![IN],
                vec![OUT],
                vec![w(PRODUCE, 0)],
            ),
            task(
                "verify",
                0,
                Work::Cpu,
                vec![IN, OUT],
                vec![],
                vec![w(SCALE, 0)],
            ),
        ]),
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: &[],
        cubins: leak(vec![*cubin]),
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }));
    Box::leak(Box::new(Schedule::check(tables).expect("valid tables")))
}

fn right_params() -> Vec<Param> {
    vec![
        Param::Buffer(IN),
        Param::Buffer(OUT),
        Param::I32(K),
        Param::U32(N),
    ]
}

static GOOD: AtomicU64 = AtomicU64::new(0);
static BAD: AtomicU64 = AtomicU64::new(0);

/// Counts the frames whose `out` is `in * K + i` everywhere.
struct Verify;

impl CpuTask for Verify {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let (input, out) = (ctx.read_as::<i32>(IN)?, ctx.read_as::<i32>(OUT)?);
        let ok = (0..N as usize).all(|i| out[i] == input[i] * K + i as i32);
        // A frame whose input changed under the kernel would not match either.
        let counter = if ok && input[1] - input[0] == 7 {
            &GOOD
        } else {
            &BAD
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

fn init(s: &'static Schedule) -> Result<orin_exec::exec::Initialized, Error> {
    Builder::new(
        s,
        Box::leak(Box::new(orin_exec::exec::Storage::<3, 2, 2, 1>::new())),
    )
    .config(Config {
        virtual_clock: true,
        realtime_priority: None,
        ..Config::default()
    })
    .bind(PRODUCE, Box::leak(Box::new(Produce(IN))))
    .bind(VERIFY, Box::leak(Box::new(Verify)))
    .init()
}

fn init_err(s: &'static Schedule) -> Error {
    match init(s) {
        Ok(_) => panic!("init succeeded"),
        Err(e) => e,
    }
}

/// Covers: REQ-KM-004, REQ-KM-006
#[test]
fn a_user_model_runs_in_a_schedule_and_every_mismatch_fails_init_naming_the_kernel() {
    let user = user_cubin();
    let register = |cubin, model| orin_exec::sil::register_kernel_model(cubin, KERNEL, model);

    // Nothing registered: init fails, naming the kernel and how to register a model.
    let e = init_err(schedule(user, right_params()));
    assert_eq!(
        e,
        Error::NoKernelModel {
            module: "user",
            kernel: KERNEL,
            why: ModelStatus::NotRegistered,
        }
    );
    let text = e.to_string();
    for needle in [
        "`scale_index_i32`",
        "orin_exec::sil::register_kernel_model",
        "cuSilRegisterKernelModel",
    ] {
        assert!(text.contains(needle), "{text}");
    }

    // A model bound to another build of the cubin (another hash) is not used.
    let rebuilt = Box::leak(Box::new(CubinDesc {
        name: "user",
        variants: leak(
            user.variants
                .iter()
                .map(|v| CubinVariant {
                    sha256: [0xEE; 32],
                    ..*v
                })
                .collect(),
        ),
    }));
    register(rebuilt, &SCALE_INDEX).expect("registered");
    let e = init_err(schedule(user, right_params()));
    assert!(
        matches!(
            e,
            Error::NoKernelModel {
                kernel: KERNEL,
                why: ModelStatus::OtherCubins,
                ..
            }
        ),
        "{e}"
    );

    // Bound to this cubin, but declaring three parameters where the cubin has four.
    register(user, &THREE_PARAMS).expect("replaced: never handed out");
    let e = init_err(schedule(user, right_params()));
    assert!(
        matches!(
            e,
            Error::NoKernelModel {
                kernel: KERNEL,
                why: ModelStatus::KindsDisagree,
                ..
            }
        ),
        "{e}"
    );

    // The right model; schedule `params` that disagree are refused with the index.
    register(user, &SCALE_INDEX).expect("replaced: never handed out");
    let param_error = |params: Vec<Param>| match init_err(schedule(user, params)) {
        Error::KernelParam {
            context: Context::Task("scale"),
            kernel: KERNEL,
            index,
            mismatch,
        } => (index, mismatch),
        e => panic!("{e}"),
    };
    // A missing parameter.
    let mut p = right_params();
    p.pop();
    assert_eq!(
        param_error(p),
        (3, ParamMismatch::Count { cubin: 4, given: 3 })
    );
    // A buffer where the cubin has a 4-byte scalar.
    let mut p = right_params();
    p[3] = Param::Buffer(OUT);
    assert_eq!(
        param_error(p),
        (
            3,
            ParamMismatch::Size {
                cubin: 4,
                given: "ptr"
            }
        )
    );
    // A number where the model reads a buffer (same size: only the model can tell).
    let mut p = right_params();
    p[1] = Param::U64(0x1000);
    assert_eq!(
        param_error(p),
        (
            1,
            ParamMismatch::Kind {
                model: "ptr",
                given: "u64"
            }
        )
    );
    // Another 4-byte kind than the model declares.
    let mut p = right_params();
    p[2] = Param::U32(3);
    assert_eq!(
        param_error(p),
        (
            2,
            ParamMismatch::Kind {
                model: "i32",
                given: "u32"
            }
        )
    );
    let text = Error::KernelParam {
        context: Context::Task("scale"),
        kernel: KERNEL,
        index: 2,
        mismatch: ParamMismatch::Kind {
            model: "i32",
            given: "u32",
        },
    }
    .to_string();
    assert_eq!(
        text,
        "task `scale`: kernel `scale_index_i32` parameter 2: the kernel model declares `i32`, \
         but `u32` is given (a buffer is `ptr`)"
    );

    // End to end: 1000 frames on the virtual clock, every output checked.
    let mut exec = init(schedule(user, right_params()))
        .expect("init")
        .seal()
        .expect("seal");
    let mut faults = 0;
    for _ in 0..1000 {
        faults += exec.step().expect("step").faults;
    }
    assert_eq!(exec.counters(SCALE).runs, 1000);
    exec.shutdown().expect("shutdown");
    assert_eq!(faults, 0);
    assert_eq!(
        (GOOD.load(Ordering::Relaxed), BAD.load(Ordering::Relaxed)),
        (1000, 0)
    );

    // The kernel was handed out: another model for it is refused, the same one is a no-op.
    register(user, &SCALE_INDEX).expect("the same again");
    assert_eq!(
        register(user, &THREE_PARAMS),
        Err(Error::KernelModelRefused {
            module: "user",
            kernel: KERNEL,
            why: RegisterFault::InUse,
        })
    );
}

/// Covers: REQ-KM-004
#[test]
fn registration_errors_are_typed() {
    let none: &'static CubinDesc = Box::leak(Box::new(CubinDesc {
        name: "empty",
        variants: &[],
    }));
    let user = user_cubin();
    let refused = |r, why| {
        assert!(
            matches!(r, Err(Error::KernelModelRefused { why: w, .. }) if w == why),
            "{r:?}"
        )
    };
    refused(
        orin_exec::sil::register_kernel_model(none, KERNEL, &SCALE_INDEX),
        RegisterFault::NoCubinHash,
    );
    refused(
        orin_exec::sil::register_kernel_model(user, "", &SCALE_INDEX),
        RegisterFault::BadName,
    );
    // Another module claiming the project's aeb cubin for one of its kernels.
    let aeb = orin_exec_kernels::cubin_desc("aeb").expect("aeb");
    let mut impostor = *aeb;
    impostor.name = "not_aeb";
    let impostor: &'static CubinDesc = Box::leak(Box::new(impostor));
    let pre = orin_exec_kernels::model("aeb", "aeb_preprocess").expect("model");
    orin_exec::sil::register_kernel_model(aeb, "aeb_preprocess", pre).expect("registered");
    refused(
        orin_exec::sil::register_kernel_model(impostor, "aeb_preprocess", pre),
        RegisterFault::HashTaken,
    );
    assert!(
        Error::KernelModelRefused {
            module: "m",
            kernel: "k",
            why: RegisterFault::InUse
        }
        .to_string()
        .contains("kernel `k` of cubin `m`")
    );
}
