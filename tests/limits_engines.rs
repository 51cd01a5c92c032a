//! The GPU and DLA limits at init: schedules exactly at `MAX_PARAMS`, `MAX_KERNEL_NAME`,
//! `MAX_GRAPH_NODES`, `MAX_TENSORS` (inputs and outputs of one network),
//! `MAX_DLA_HANDLES_PER_BUFFER`, `MAX_DLA_HANDLES_PER_SEMAPHORE` and `MAX_DLA_IMPORTS` pass `Schedule::check`, init on SIL and run frames on the virtual clock
//! with every task run and no fault; one step past each is refused by `Schedule::check`
//! (tools/schedule/tests/limits.rs shows the validator refuses the same). Kernels: the
//! validator's fixture cubin `limits.cu` (16 parameters; a 127-byte name).
//!
//! Covers: REQ-ROB-005, REQ-ROB-004
#![cfg(feature = "sil")]

mod common;

use common::{LOADABLE, serial};
use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Executive, Storage, TaskFault};
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind};
use orin_exec::limits::{
    MAX_DLA_HANDLES_PER_BUFFER, MAX_DLA_HANDLES_PER_SEMAPHORE, MAX_DLA_IMPORTS, MAX_GRAPH_NODES,
    MAX_KERNEL_NAME, MAX_PARAMS, MAX_TENSORS,
};
use orin_exec::table::*;
use static_cell::ConstStaticCell;

/// Long enough for nine SIL detector runs in a row (about 6 ms each, modelled).
const PERIOD_NS: u64 = 100_000_000;
const FRAMES: u64 = 10;

static LIMITS_SM87: &[u8] = include_bytes!("../tools/schedule/tests/fixtures/limits.sm_87.cubin");
static LIMITS_SM90: &[u8] = include_bytes!("../tools/schedule/tests/fixtures/limits.sm_90.cubin");

struct Nop;

impl CpuTask for Nop {
    fn run(&mut self, _: &CpuCtx<'_>) -> Result<(), TaskFault> {
        Ok(())
    }
}

/// The fixture kernels do nothing: so does their model.
struct Empty(&'static [ParamKind]);

impl KernelModel for Empty {
    fn params(&self) -> &[ParamKind] {
        self.0
    }
    fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
        Ok(())
    }
}

static PARAMS16: Empty = Empty(&[ParamKind::U32; MAX_PARAMS]);
static NO_PARAMS: Empty = Empty(&[]);

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn name(prefix: &str, i: usize) -> &'static str {
    String::leak(format!("{prefix}{i}"))
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

fn engine(name: &'static str, kind: EngineKind, instance: u8, graph: bool) -> EngineDesc {
    EngineDesc {
        name,
        kind,
        instance,
        queue_capacity: 64,
        graph,
        vpu: None,
    }
}

fn task(name: &'static str, engine: u8, work: Work, waits: &'static [Wait]) -> TaskDesc {
    TaskDesc {
        name,
        engine: EngineId(engine),
        work,
        wcet_ns: 20_000,
        budget_ns: PERIOD_NS,
        deadline_ns: PERIOD_NS,
        release_ns: 0,
        reads: &[],
        writes: &[],
        waits,
        modes: ModeMask::ALL,
    }
}

fn tables(
    engines: Vec<EngineDesc>,
    buffers: Vec<BufferDesc>,
    tasks: Vec<TaskDesc>,
    cubins: &'static [CubinDesc],
    loadables: &'static [LoadableDesc],
) -> &'static ScheduleTables {
    Box::leak(Box::new(ScheduleTables {
        name: "limits_engines",
        profile: "sil",
        period_ns: PERIOD_NS,
        minor_frames_ns: &[0],
        lookahead: 1,
        threads: &[],
        engines: leak(engines),
        buffers: leak(buffers),
        tasks: leak(tasks),
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: &[],
        cubins,
        loadables,
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }))
}

fn checked(t: &'static ScheduleTables) -> &'static Schedule {
    Box::leak(Box::new(
        Schedule::check(t).unwrap_or_else(|e| panic!("refused at the limit: {e}")),
    ))
}

fn virtual_config() -> Config {
    Config {
        virtual_clock: true,
        realtime_priority: None,
        // Several SIL detector runs queue per frame; an instrumented build (coverage) on a loaded
        // host needs seconds for them. A lost signal still shows as a fault, not as a hang.
        virtual_wait_cap_us: 10_000_000,
        ..Config::default()
    }
}

/// Runs `FRAMES` frames: no fault, every task run in every frame; then shuts down.
fn run_clean(mut exec: Executive, s: &Schedule) {
    for _ in 0..FRAMES {
        let r = exec.step().expect("step");
        let recent: Vec<_> = exec.recent_faults().map(|f| (f.task, f.error)).collect();
        assert_eq!(r.faults, 0, "frame {}: {recent:?}", r.frame);
    }
    for i in 0..s.tasks.len() {
        let runs = exec.counters(TaskId(i as u16)).runs;
        assert_eq!(runs, FRAMES, "task {}", s.tasks[i].name);
    }
    exec.shutdown().expect("shutdown");
}

/// CPU `c`; on `gpu0` (stream) `p16` with 16 parameters after `c`, and the 127-byte kernel
/// name; on `gpu1` (graph mode, GPU timestamps on) `graph_tasks` tasks of 4 nodes each.
fn gpu_tables(params: usize, graph_tasks: usize) -> &'static ScheduleTables {
    let long_name: &'static str = String::leak(format!("k{}", "x".repeat(MAX_KERNEL_NAME - 1)));
    let cubins = leak(vec![CubinDesc {
        name: "limits",
        variants: leak(
            [(87, LIMITS_SM87), (90, LIMITS_SM90)]
                .into_iter()
                .map(|(sm, image)| CubinVariant {
                    sm,
                    sha256: sha256(image),
                    image,
                })
                .collect(),
        ),
    }]);
    let gpu = |kernel, params| {
        Work::Gpu(GpuWork {
            cubin: CubinId(0),
            kernel,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            shared_mem_bytes: 0,
            params,
        })
    };
    let params16 = leak((0..params as u32).map(Param::U32).collect());
    let mut tasks = vec![
        task("c", 0, Work::Cpu, &[]),
        task(
            "p16",
            1,
            gpu("params16", params16),
            leak(vec![Wait {
                task: TaskId(0),
                lag: 0,
            }]),
        ),
        task("long_name", 1, gpu(long_name, &[]), &[]),
    ];
    tasks.extend((0..graph_tasks).map(|i| task(name("g", i), 2, gpu(long_name, &[]), &[])));
    tables(
        vec![
            engine("cpu0", EngineKind::Cpu, 0, false),
            engine("gpu0", EngineKind::Gpu, 0, false),
            engine("gpu1", EngineKind::Gpu, 1, true),
        ],
        vec![],
        tasks,
        cubins,
        &[],
    )
}

/// Covers: REQ-ROB-005, REQ-ROB-004
#[test]
fn kernel_parameters_name_and_graph_nodes_at_the_limits_init_and_run() {
    let _serial = serial();
    let graph_tasks = MAX_GRAPH_NODES / GRAPH_NODES_PER_TASK;
    let s = checked(gpu_tables(MAX_PARAMS, graph_tasks));
    let cubin = &s.tables().cubins[0];
    orin_exec::sil::register_kernel_model(cubin, "params16", &PARAMS16).expect("model");
    let long_name = match s.tasks[2].work {
        Work::Gpu(g) => g.kernel,
        _ => unreachable!("task 2 is the long-named kernel"),
    };
    orin_exec::sil::register_kernel_model(cubin, long_name, &NO_PARAMS).expect("model");
    type Gpus = Storage<19, 0, 0, 1>;
    static STORAGE: ConstStaticCell<Gpus> = ConstStaticCell::new(Gpus::new());
    let exec = Builder::new(s, STORAGE.take())
        .config(virtual_config())
        .bind(TaskId(0), Box::leak(Box::new(Nop)))
        .init()
        .unwrap_or_else(|e| panic!("init at the limits: {e}"))
        .seal()
        .expect("seal");
    run_clean(exec, s);

    // One step past: a 17th parameter, a 17th graph task.
    let past = |t| Schedule::check(t).err().map(|e| format!("{e}"));
    let params = past(gpu_tables(MAX_PARAMS + 1, graph_tasks)).expect("17 parameters refused");
    assert!(params.contains("MAX_PARAMS"), "{params}");
    let nodes = past(gpu_tables(MAX_PARAMS, graph_tasks + 1)).expect("65 nodes refused");
    assert!(nodes.contains("MAX_GRAPH_NODES"), "{nodes}");
}

fn tensor(name: &'static str, size: u64, dims: [u32; 4]) -> TensorSpec {
    TensorSpec {
        name,
        size,
        dims,
        data_type: TensorType::Int8,
    }
}

/// The AEB detector as network `name`.
fn network(name: &'static str) -> LoadableDesc {
    LoadableDesc {
        name,
        onnx_sha256: sha256(LOADABLE),
        onnx: LOADABLE,
        loadable: None,
        inputs: leak(vec![tensor("image", 3072, [1, 1, 48, 64])]),
        outputs: leak(vec![
            tensor("obstacle_map", 1536, [1, 1, 24, 32]),
            tensor("presence", 128, [1, 2, 1, 1]),
        ]),
    }
}

fn buffer(name: &'static str, size: u64, multiplicity: u8) -> BufferDesc {
    BufferDesc {
        name,
        kind: BufferKind::Raw { size, align: 512 },
        multiplicity,
        cpu_access: true,
    }
}

/// A detector task on `dla0`: network `net`, input buffer `image`, outputs `map` and
/// `presence`.
fn detector(
    name: &'static str,
    net: u16,
    [image, map, presence]: [u16; 3],
    waits: &'static [Wait],
) -> TaskDesc {
    TaskDesc {
        reads: leak(vec![BufferId(image)]),
        writes: leak(vec![BufferId(map), BufferId(presence)]),
        ..task(
            name,
            1,
            Work::Dla(DlaWork {
                loadable: LoadableId(net),
                inputs: leak(vec![TensorBinding {
                    tensor: "image",
                    buffer: BufferId(image),
                }]),
                outputs: leak(vec![
                    TensorBinding {
                        tensor: "obstacle_map",
                        buffer: BufferId(map),
                    },
                    TensorBinding {
                        tensor: "presence",
                        buffer: BufferId(presence),
                    },
                ]),
            }),
            waits,
        )
    }
}

fn dla_engines() -> Vec<EngineDesc> {
    vec![
        engine("cpu0", EngineKind::Cpu, 0, false),
        engine("dla0", EngineKind::Dla, 0, false),
    ]
}

fn wait(task: usize, lag: u8) -> Wait {
    Wait {
        task: TaskId(task as u16),
        lag,
    }
}

/// `n` networks on one core, each run by one task reading buffer `image` (written by CPU
/// `src`) and waiting for `src`: `image` and `src`'s semaphore go into `n` DLA handles.
fn shared_tables(n: usize) -> &'static ScheduleTables {
    let mut buffers = vec![buffer("image", 3072, 1)];
    let mut tasks = vec![TaskDesc {
        writes: leak(vec![BufferId(0)]),
        // The next frame's write waits for this frame's readers (the DLA runs them in order).
        ..task("src", 0, Work::Cpu, leak(vec![wait(n, 1)]))
    }];
    for i in 0..n {
        let map = buffers.len() as u16;
        buffers.push(buffer(name("map", i), 1536, 1));
        buffers.push(buffer(name("presence", i), 128, 1));
        let waits = leak(vec![wait(0, 0)]);
        tasks.push(detector(name("d", i), i as u16, [0, map, map + 1], waits));
    }
    let loadables = leak((0..n).map(|i| network(name("aeb", i))).collect());
    tables(dla_engines(), buffers, tasks, &[], loadables)
}

/// `DETECTORS` tasks of one network with their own buffers of 4 copies (3 x 4 copies, their
/// semaphore and their start semaphore: 14 imports each, 126), all after CPU `src` (127), the
/// first also after `extra` more CPU tasks.
const DETECTORS: usize = 9;

fn imports_tables(extra: usize) -> &'static ScheduleTables {
    let mut buffers = Vec::new();
    let first_detector = 1 + extra;
    let mut tasks = vec![TaskDesc {
        writes: leak((0..DETECTORS).map(|i| BufferId(3 * i as u16)).collect()),
        ..task(
            "src",
            0,
            Work::Cpu,
            leak(vec![wait(first_detector + DETECTORS - 1, 1)]),
        )
    }];
    tasks.extend((0..extra).map(|j| task(name("c", j), 0, Work::Cpu, &[])));
    for i in 0..DETECTORS {
        let image = buffers.len() as u16;
        buffers.push(buffer(name("image", i), 3072, 4));
        buffers.push(buffer(name("map", i), 1536, 4));
        buffers.push(buffer(name("presence", i), 128, 4));
        let mut waits = vec![wait(0, 0)];
        if i == 0 {
            waits.extend((0..extra).map(|j| wait(1 + j, 0)));
        }
        let t = detector(name("d", i), 0, [image, image + 1, image + 2], leak(waits));
        tasks.push(t);
    }
    tables(
        dla_engines(),
        buffers,
        tasks,
        &[],
        leak(vec![network("aeb")]),
    )
}

/// Inits `builder` (for `s`) on the virtual clock with a no-op for every CPU task, and seals.
fn init(s: &'static Schedule, builder: Builder) -> Executive {
    let mut builder = builder.config(virtual_config());
    for (i, t) in s.tasks.iter().enumerate() {
        if matches!(t.work, Work::Cpu) {
            builder = builder.bind(TaskId(i as u16), Box::leak(Box::new(Nop)));
        }
    }
    builder
        .init()
        .unwrap_or_else(|e| panic!("init at the limit: {e}"))
        .seal()
        .expect("seal")
}

/// Covers: REQ-ROB-005, REQ-ROB-004
#[test]
fn dla_handles_per_buffer_and_per_semaphore_at_the_limits_init_and_run() {
    let _serial = serial();
    assert_eq!(MAX_DLA_HANDLES_PER_BUFFER, MAX_DLA_HANDLES_PER_SEMAPHORE);
    let n = MAX_DLA_HANDLES_PER_BUFFER;
    let s = checked(shared_tables(n));
    type Shared = Storage<5, 9, 9, 1>;
    static STORAGE: ConstStaticCell<Shared> = ConstStaticCell::new(Shared::new());
    run_clean(init(s, Builder::new(s, STORAGE.take())), s);
    refused(
        shared_tables(n + 1),
        Limit::DlaHandlesPerBuffer,
        "image",
        n + 1,
    );
}

/// `Schedule::check` refuses `t` with `value` of item `name` past `limit`.
fn refused(t: &'static ScheduleTables, limit: Limit, name: &'static str, value: usize) {
    let value = value as u64;
    assert_eq!(
        Schedule::check(t).err(),
        Some(TableError::Limit { limit, name, value })
    );
}

/// Covers: REQ-ROB-005, REQ-ROB-004
#[test]
fn dla_imports_at_the_limit_init_and_run() {
    let _serial = serial();
    let extra = MAX_DLA_IMPORTS - DETECTORS * 14 - 1;
    let s = checked(imports_tables(extra));
    type Imports = Storage<12, 27, 108, 1>;
    static STORAGE: ConstStaticCell<Imports> = ConstStaticCell::new(Imports::new());
    run_clean(init(s, Builder::new(s, STORAGE.take())), s);
    refused(
        imports_tables(extra + 1),
        Limit::DlaImports,
        "aeb",
        MAX_DLA_IMPORTS + 1,
    );
}

/// A network of `n` int8 inputs `in0`.. [1, 1, 1, 64] and as many outputs `out0`..: each
/// output is its input, dequantized and quantized again (the SIL DLA's operator subset).
fn copy_network_onnx(n: usize) -> Vec<u8> {
    use prost::Message;
    use sil_onnx::proto::*;
    let io = |name: String| ValueInfoProto {
        name,
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type: data_type::INT8,
                shape: Some(TensorShapeProto {
                    dim: [1, 1, 1, 64]
                        .into_iter()
                        .map(|d| Dimension {
                            value: Some(DimensionValue::DimValue(d)),
                        })
                        .collect(),
                }),
            }),
        }),
    };
    let node = |op: &str, input: Vec<String>, output: String| NodeProto {
        input,
        name: output.clone(),
        output: vec![output],
        op_type: op.into(),
        ..Default::default()
    };
    let scalar = |name: &str, data_type: i32, raw_data: Vec<u8>| TensorProto {
        name: name.into(),
        data_type,
        raw_data,
        ..Default::default()
    };
    let quant = |x: String| vec![x, "s".to_owned(), "z".to_owned()];
    let nodes = (0..n).flat_map(|i| {
        [
            node("DequantizeLinear", quant(format!("in{i}")), format!("x{i}")),
            node("QuantizeLinear", quant(format!("x{i}")), format!("out{i}")),
        ]
    });
    ModelProto {
        ir_version: 7,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 13,
        }],
        graph: Some(GraphProto {
            name: "copy".into(),
            node: nodes.collect(),
            initializer: vec![
                scalar("s", data_type::FLOAT, 0.5f32.to_le_bytes().to_vec()),
                scalar("z", data_type::INT8, vec![0]),
            ],
            input: (0..n).map(|i| io(format!("in{i}"))).collect(),
            output: (0..n).map(|i| io(format!("out{i}"))).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// CPU `src` writes `n` inputs; DLA `copy` (the network of [`copy_network_onnx`]) reads them
/// and writes `n` outputs.
fn tensors_tables(n: usize) -> &'static ScheduleTables {
    let onnx: &'static [u8] = leak(copy_network_onnx(n));
    let names = |prefix| (0..n).map(move |i| name(prefix, i));
    let specs = |prefix| {
        leak(
            names(prefix)
                .map(|t| tensor(t, 64, [1, 1, 1, 64]))
                .collect(),
        )
    };
    let bindings = |prefix, first: usize| {
        leak(
            names(prefix)
                .enumerate()
                .map(|(i, tensor)| TensorBinding {
                    tensor,
                    buffer: BufferId((first + i) as u16),
                })
                .collect(),
        )
    };
    let network = LoadableDesc {
        name: "copy",
        onnx_sha256: sha256(onnx),
        onnx,
        loadable: None,
        inputs: specs("in"),
        outputs: specs("out"),
    };
    let buffers = names("in").chain(names("out")).map(|b| buffer(b, 64, 1));
    let inputs: Vec<BufferId> = (0..n).map(|i| BufferId(i as u16)).collect();
    let outputs: Vec<BufferId> = (n..2 * n).map(|i| BufferId(i as u16)).collect();
    let tasks = vec![
        TaskDesc {
            writes: leak(inputs.clone()),
            ..task("src", 0, Work::Cpu, leak(vec![wait(1, 1)]))
        },
        TaskDesc {
            reads: leak(inputs),
            writes: leak(outputs),
            ..task(
                "copy",
                1,
                Work::Dla(DlaWork {
                    loadable: LoadableId(0),
                    inputs: bindings("in", 0),
                    outputs: bindings("out", n),
                }),
                leak(vec![wait(0, 0)]),
            )
        },
    ];
    tables(
        dla_engines(),
        buffers.collect(),
        tasks,
        &[],
        leak(vec![network]),
    )
}

/// Covers: REQ-ROB-005, REQ-ROB-004
#[test]
fn a_network_with_the_most_tensors_inits_and_runs() {
    let _serial = serial();
    let s = checked(tensors_tables(MAX_TENSORS));
    type Tensors = Storage<2, 16, 16, 1>;
    static STORAGE: ConstStaticCell<Tensors> = ConstStaticCell::new(Tensors::new());
    run_clean(init(s, Builder::new(s, STORAGE.take())), s);
    refused(
        tensors_tables(MAX_TENSORS + 1),
        Limit::LoadableInputs,
        "copy",
        MAX_TENSORS + 1,
    );
}

/// The validator's limit cases (tools/schedule/tests/limits.rs) use this network with 8 and 9
/// tensors from committed files: they are the ones built here (`ORIN_EXEC_BLESS=1` rewrites
/// them).
///
/// Covers: REQ-ROB-002
#[test]
fn the_validators_copy_networks_are_the_generated_ones() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/schedule/tests/fixtures");
    for n in [MAX_TENSORS, MAX_TENSORS + 1] {
        let path = dir.join(format!("copy{n}.onnx"));
        let built = copy_network_onnx(n);
        if std::env::var_os("ORIN_EXEC_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &built).expect("write the fixture");
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == built,
            "{} is out of date: run with ORIN_EXEC_BLESS=1",
            path.display()
        );
    }
}
