//! A mini pipeline for the runtime's integration tests:
//! CPU `input` writes the golden detector input → DLA `detector` (the committed SIL loadable)
//! → GPU `postprocess` (the `aeb_postprocess` cubin, run by SIL CUDA) → CPU `check` compares
//! everything with the golden output and the kernel's reference model.
#![allow(dead_code)]

// Programs are registered with the SIL cuPVA through `orin_exec::sil` (`sil` only).
#[cfg(feature = "sil")]
pub mod pva;

use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{CpuTask, TaskFault};
use orin_exec::table::*;

pub const IMAGE: BufferId = BufferId(0);
pub const MAP: BufferId = BufferId(1);
pub const PRESENCE: BufferId = BufferId(2);
pub const DETECTION: BufferId = BufferId(3);

/// Storage sized to the mini schedule: 4 tasks, 4 buffers of 2 copies, 1 CPU worker.
pub type MiniStorage = orin_exec::exec::Storage<4, 4, 8, 1>;

pub const INPUT: TaskId = TaskId(0);
pub const DETECTOR: TaskId = TaskId(1);
pub const POSTPROCESS: TaskId = TaskId(2);
pub const CHECK: TaskId = TaskId(3);

pub static GOLDEN_INPUT: &[u8] = include_bytes!("../../loadables/aeb_detector.golden_input.bin");
pub static GOLDEN_OUTPUT: &[u8] = include_bytes!("../../loadables/aeb_detector.golden_output.bin");
pub static LOADABLE: &[u8] = include_bytes!("../../loadables/aeb_detector.onnx");

/// The SIL clock is process-wide: tests that run the executive take this lock.
pub static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// Options for variants of the mini pipeline used by the misuse tests.
#[derive(Clone, Copy)]
pub struct Variant {
    /// Size of the `image` buffer (3072 is right).
    pub image_size: u64,
    /// Alignment of the `image` buffer (512 is right).
    pub image_align: u64,
    /// Corrupt the loadable's manifest hash.
    pub wrong_hash: bool,
    /// Period in ns.
    pub period_ns: u64,
    /// Whether `check` waits for `postprocess` (without it, it races with the engines and
    /// `Schedule::check` refuses the tables).
    pub check_waits: bool,
    /// Health-monitor table (mode 1, `degraded`, runs only `input`).
    pub health: &'static [HealthRule],
    /// `gpu0` submits in graph mode (`EngineDesc::graph`).
    pub gpu_graph: bool,
}

impl Default for Variant {
    fn default() -> Self {
        Variant {
            image_size: 3072,
            image_align: 512,
            wrong_hash: false,
            period_ns: 10_000_000,
            check_waits: true,
            health: &[],
            gpu_graph: false,
        }
    }
}

/// The mini pipeline, checked.
pub fn schedule(v: Variant) -> &'static Schedule {
    try_schedule(v).unwrap_or_else(|e| panic!("the mini pipeline is rejected: {e}"))
}

/// The mini pipeline's tables, and what `Schedule::check` says of them.
pub fn try_schedule(v: Variant) -> Result<&'static Schedule, TableError> {
    let engines = leak(vec![
        EngineDesc {
            name: "cpu0",
            kind: EngineKind::Cpu,
            instance: 0,
            queue_capacity: 8,
            graph: false,
            vpu: None,
        },
        EngineDesc {
            name: "dla0",
            kind: EngineKind::Dla,
            instance: 0,
            queue_capacity: 4,
            graph: false,
            vpu: None,
        },
        EngineDesc {
            name: "gpu0",
            kind: EngineKind::Gpu,
            instance: 0,
            queue_capacity: 4,
            graph: v.gpu_graph,
            vpu: None,
        },
    ]);
    let buffers = leak(vec![
        BufferDesc {
            name: "image",
            kind: BufferKind::Raw {
                size: v.image_size,
                align: v.image_align,
            },
            multiplicity: 2,
            cpu_access: true,
        },
        BufferDesc {
            name: "obstacle_map",
            kind: BufferKind::Raw {
                size: 1536,
                align: 512,
            },
            multiplicity: 2,
            cpu_access: true,
        },
        BufferDesc {
            name: "presence",
            kind: BufferKind::Raw {
                size: 128,
                align: 512,
            },
            multiplicity: 2,
            cpu_access: true,
        },
        BufferDesc {
            name: "detection",
            kind: BufferKind::Raw {
                size: 16,
                align: 256,
            },
            multiplicity: 2,
            cpu_access: true,
        },
    ]);
    let spec = |name, size, dims| TensorSpec {
        name,
        size,
        dims,
        data_type: TensorType::Int8,
    };
    let mut hash = sha256(LOADABLE);
    if v.wrong_hash {
        hash[0] ^= 1;
    }
    let loadables = leak(vec![LoadableDesc {
        name: "aeb_detector",
        onnx_sha256: hash,
        onnx: LOADABLE,
        loadable: None,
        inputs: leak(vec![spec("image", 3072, [1, 1, 48, 64])]),
        outputs: leak(vec![
            spec("obstacle_map", 1536, [1, 1, 24, 32]),
            spec("presence", 128, [1, 2, 1, 1]),
        ]),
    }]);
    let variants = leak(
        orin_exec_kernels::CUBINS
            .iter()
            .filter(|c| c.name == "aeb")
            .map(|c| CubinVariant {
                sm: c.sm,
                sha256: c.sha256,
                image: c.image,
            })
            .collect(),
    );
    let cubins = leak(vec![CubinDesc {
        name: "aeb",
        variants,
    }]);
    let ms = 1_000_000;
    let task = |name,
                engine: u8,
                work,
                reads: Vec<BufferId>,
                writes: Vec<BufferId>,
                waits: Vec<Wait>,
                deadline| TaskDesc {
        name,
        engine: EngineId(engine),
        work,
        wcet_ns: ms,
        budget_ns: 4 * ms,
        deadline_ns: deadline,
        release_ns: 0,
        reads: leak(reads),
        writes: leak(writes),
        waits: leak(waits),
        // Mode 0 (normal) runs everything, mode 1 (degraded) only `input`.
        modes: if name == "input" {
            ModeMask::ALL
        } else {
            ModeMask(1)
        },
    };
    let w = |t: TaskId, lag| Wait { task: t, lag };
    let tasks = leak(vec![
        task(
            "input",
            0,
            Work::Cpu,
            vec![],
            vec![IMAGE],
            vec![w(CHECK, 1)],
            v.period_ns,
        ),
        task(
            "detector",
            1,
            Work::Dla(DlaWork {
                loadable: LoadableId(0),
                inputs: leak(vec![TensorBinding {
                    tensor: "image",
                    buffer: IMAGE,
                }]),
                outputs: leak(vec![
                    TensorBinding {
                        tensor: "obstacle_map",
                        buffer: MAP,
                    },
                    TensorBinding {
                        tensor: "presence",
                        buffer: PRESENCE,
                    },
                ]),
            }),
            vec![IMAGE],
            vec![MAP, PRESENCE],
            vec![w(INPUT, 0)],
            v.period_ns,
        ),
        task(
            "postprocess",
            2,
            Work::Gpu(GpuWork {
                cubin: CubinId(0),
                kernel: "aeb_postprocess",
                grid: [1, 1, 1],
                block: [256, 1, 1],
                shared_mem_bytes: 0,
                params: leak(vec![
                    Param::Buffer(MAP),
                    Param::U32(64),
                    Param::U32(24),
                    Param::I32(32),
                    Param::U32(0),
                    Param::U32(32),
                    Param::F32(4.0),
                    Param::F32(3.5),
                    Param::F32(24.0),
                    Param::F32(240.0),
                    Param::Buffer(DETECTION),
                ]),
            }),
            vec![MAP],
            vec![DETECTION],
            vec![w(DETECTOR, 0)],
            v.period_ns,
        ),
        task(
            "check",
            0,
            Work::Cpu,
            vec![MAP, PRESENCE, DETECTION],
            vec![],
            if v.check_waits {
                vec![w(POSTPROCESS, 0)]
            } else {
                vec![]
            },
            v.period_ns,
        ),
    ]);
    let tables = Box::leak(Box::new(ScheduleTables {
        name: "mini",
        profile: "sil",
        period_ns: v.period_ns,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines,
        buffers,
        tasks,
        modes: leak(vec![
            ModeDesc { name: "normal" },
            ModeDesc { name: "degraded" },
        ]),
        health: v.health,
        cubins,
        loadables,
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }));
    let s: &'static Schedule = Box::leak(Box::new(Schedule::check(tables)?));
    // SIL CUDA runs the models the application registers: here the project's own.
    #[cfg(feature = "sil")]
    orin_exec_kernels::register_models(s.tables(), orin_exec::sil::register_kernel_model)
        .expect("the project's kernel models");
    Ok(s)
}

/// Writes the golden detector input.
pub struct Input;

impl CpuTask for Input {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let image = ctx.write(IMAGE)?;
        let n = GOLDEN_INPUT.len().min(image.len());
        image[..n].copy_from_slice(&GOLDEN_INPUT[..n]);
        Ok(())
    }
}

/// Counts frames whose outputs match the golden output and the postprocess model.
pub struct Check {
    pub good: &'static AtomicU64,
    pub bad: &'static AtomicU64,
    pub expected: [i32; 4],
}

pub fn expected_detection() -> [i32; 4] {
    let map: Vec<i8> = GOLDEN_OUTPUT[..1536].iter().map(|&b| b as i8).collect();
    let params = orin_exec_kernels::PostprocessParams {
        threshold: 32,
        lane_x0: 0,
        lane_x1: 32,
        row_scale: 4.0,
        row_offset: 3.5,
        horizon: 24.0,
        fh: 240.0,
    };
    let mut out = [0i32; 4];
    orin_exec_kernels::aeb_postprocess(&map, 64, 24, &params, &mut out).expect("reference model");
    out
}

impl CpuTask for Check {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let map = ctx.read(MAP)?;
        let presence = ctx.read(PRESENCE)?;
        let detection = ctx.read_as::<i32>(DETECTION)?;
        let ok = map[..1536] == GOLDEN_OUTPUT[..1536]
            && presence[..128] == GOLDEN_OUTPUT[1536..1664]
            && detection[..4] == self.expected;
        if ok {
            self.good.fetch_add(1, Ordering::Relaxed);
            Ok(())
        } else {
            self.bad.fetch_add(1, Ordering::Relaxed);
            Err(TaskFault::App { code: 1 })
        }
    }
}
