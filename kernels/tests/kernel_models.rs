//! The kernels' `KernelModel`s on host memory equal their reference functions, and
//! `register_models` hands over exactly the project's kernels of a schedule.
//!
//! Covers: REQ-KM-005

use orin_exec_kernels::kernel_model::{Arg, HostMemory, KernelModel, Launch, ModelError};
use orin_exec_kernels::{
    CUBIN_DESCS, CubinDesc, CubinVariant, PostprocessParams, aeb_postprocess, aeb_preprocess,
    cubin_desc, fill_pattern_u32, model, register_models, saxpy_f32,
};
use orin_exec_table::{
    CubinId, EngineDesc, EngineId, EngineKind, GpuWork, ModeDesc, ModeMask, ScheduleTables,
    TaskDesc, Work,
};
use sil_common::rng::SplitMix64;

fn m(module: &str, kernel: &str) -> &'static dyn KernelModel {
    model(module, kernel).unwrap_or_else(|| panic!("{module}/{kernel}"))
}

#[test]
fn preprocess_model_equals_the_reference() {
    let mut rng = SplitMix64::new(1);
    for (w, h) in [(128u32, 96u32), (5, 3), (2, 2), (1, 7)] {
        let src: Vec<u8> = (0..w * h).map(|_| rng.next_u64() as u8).collect();
        let mut want = vec![0i8; ((w / 2) * (h / 2)) as usize];
        aeb_preprocess(&src, &mut want, w, h).unwrap();
        let mut got = vec![0x55i8; want.len()];
        let mut mem = HostMemory::new();
        let args = [
            mem.read(&src).unwrap(),
            mem.write(&mut got).unwrap(),
            w.into(),
            h.into(),
        ];
        Launch::new(&args, &mut mem)
            .with_dims([4, 4, 1], [16, 16, 1])
            .run(m("aeb", "aeb_preprocess"))
            .unwrap();
        assert_eq!(got, want, "{w}x{h}");
    }
}

#[test]
fn postprocess_model_equals_the_reference() {
    let mut rng = SplitMix64::new(2);
    for _ in 0..50 {
        let (w, h) = (
            1 + (rng.next_u64() % 64) as u32,
            1 + (rng.next_u64() % 48) as u32,
        );
        let map: Vec<i8> = (0..w * h).map(|_| rng.next_u64() as i8).collect();
        let p = PostprocessParams {
            threshold: (rng.next_u64() % 256) as i32 - 128,
            lane_x0: (rng.next_u64() % 64) as u32,
            lane_x1: (rng.next_u64() % 80) as u32,
            row_scale: 2.0,
            row_offset: 0.5,
            horizon: 24.0,
            fh: 240.0,
        };
        let mut want = [0i32; 4];
        aeb_postprocess(&map, w, h, &p, &mut want).unwrap();
        let mut got = [7i32; 4];
        let mut mem = HostMemory::new();
        let args = [
            mem.read(&map).unwrap(),
            w.into(),
            h.into(),
            p.threshold.into(),
            p.lane_x0.into(),
            p.lane_x1.into(),
            p.row_scale.into(),
            p.row_offset.into(),
            p.horizon.into(),
            p.fh.into(),
            mem.write(&mut got).unwrap(),
        ];
        Launch::new(&args, &mut mem)
            .with_dims([1, 1, 1], [256, 1, 1])
            .run(m("aeb", "aeb_postprocess"))
            .unwrap();
        assert_eq!(got, want);
    }
}

#[test]
fn selftest_models_equal_the_references() {
    let mut rng = SplitMix64::new(3);
    let n = 1000u32;
    let mut want = vec![0u32; n as usize];
    fill_pattern_u32(&mut want, n, 99).unwrap();
    let mut got = vec![0u32; n as usize + 3];
    let mut mem = HostMemory::new();
    let args = [mem.write(&mut got).unwrap(), n.into(), 99u32.into()];
    Launch::new(&args, &mut mem)
        .run(m("selftest", "fill_pattern_u32"))
        .unwrap();
    assert_eq!(&got[..n as usize], &want[..]);
    assert_eq!(&got[n as usize..], &[0; 3], "only n elements are written");

    let x: Vec<f32> = (0..n)
        .map(|_| f32::from_bits(rng.next_u64() as u32))
        .collect();
    let y0: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() % 1000) as f32 * 0.25)
        .collect();
    let mut want = y0.clone();
    saxpy_f32(1.5, &x, &mut want, n).unwrap();
    let mut got = y0.clone();
    let mut mem = HostMemory::new();
    let args = [
        1.5f32.into(),
        mem.read(&x).unwrap(),
        mem.write(&mut got).unwrap(),
        n.into(),
    ];
    Launch::new(&args, &mut mem)
        .run(m("selftest", "saxpy_f32"))
        .unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want));
}

#[test]
fn stamp_model_writes_the_launch_clock() {
    let mut slot = [0u64; 2];
    let mut mem = HostMemory::new();
    let args = [mem.write(&mut slot).unwrap()];
    Launch::new(&args, &mut mem)
        .with_now_ns(123_456_789)
        .run(m("timing", "stamp_globaltimer"))
        .unwrap();
    assert_eq!(slot, [123_456_789, 0]);
}

#[test]
fn models_refuse_what_the_kernel_would_overrun() {
    // saxpy with y shorter than n: out of bounds, nothing written.
    let x = [1.0f32; 8];
    let mut y = [2.0f32; 4];
    let mut mem = HostMemory::new();
    let args = [
        1.0f32.into(),
        mem.read(&x).unwrap(),
        mem.write(&mut y).unwrap(),
        8u32.into(),
    ];
    let e = Launch::new(&args, &mut mem)
        .run(m("selftest", "saxpy_f32"))
        .unwrap_err();
    assert!(
        matches!(
            e,
            ModelError::OutOfBounds {
                index: 2,
                bytes: 32,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(y, [2.0; 4]);

    // saxpy with x and y the same buffer: y is written and overlaps x (__restrict__).
    let mut xy = [1.0f32; 8];
    let mut mem = HostMemory::new();
    let p = mem.write(&mut xy).unwrap();
    let args = [1.0f32.into(), p, p, 8u32.into()];
    assert_eq!(
        Launch::new(&args, &mut mem).run(m("selftest", "saxpy_f32")),
        Err(ModelError::Overlap { index: 2, other: 1 })
    );

    // The output of postprocess in read-only memory.
    let map = [0i8; 4];
    let out = [0i32; 4];
    let mut mem = HostMemory::new();
    let mut args = [Arg::U32(0); 11];
    args[0] = mem.read(&map).unwrap();
    args[1..3].copy_from_slice(&[2u32.into(), 2u32.into()]);
    args[3] = 0i32.into();
    args[6..10].copy_from_slice(&[1.0f32.into(); 4]);
    args[10] = mem.read(&out).unwrap();
    assert!(matches!(
        Launch::new(&args, &mut mem).run(m("aeb", "aeb_postprocess")),
        Err(ModelError::ReadOnly { index: 10, .. })
    ));

    // Arguments of the wrong kind never reach the model.
    let mut slot = [0u64];
    let mut mem = HostMemory::new();
    let args = [Arg::U64(mem.write(&mut slot).map(|_| 0).unwrap())];
    assert_eq!(
        Launch::new(&args, &mut mem).run(m("timing", "stamp_globaltimer")),
        Err(ModelError::ArgKind {
            index: 0,
            expected: orin_exec_kernels::ParamKind::DevPtr,
            given: orin_exec_kernels::ParamKind::U64
        })
    );
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn gpu_task(name: &'static str, cubin: u16, kernel: &'static str) -> TaskDesc {
    TaskDesc {
        name,
        engine: EngineId(0),
        work: Work::Gpu(GpuWork {
            cubin: CubinId(cubin),
            kernel,
            grid: [1; 3],
            block: [1; 3],
            shared_mem_bytes: 0,
            params: &[],
        }),
        wcet_ns: 1,
        budget_ns: 1,
        deadline_ns: 1,
        release_ns: 0,
        reads: &[],
        writes: &[],
        waits: &[],
        modes: ModeMask::ALL,
    }
}

#[test]
fn register_models_hands_over_the_projects_kernels_only() {
    let selftest = cubin_desc("selftest").unwrap();
    // A module named like ours but built by someone else (another hash).
    let foreign = leak(vec![CubinVariant {
        sha256: [0xAB; 32],
        ..selftest.variants[0]
    }]);
    let cubins = leak(vec![
        *selftest,
        *cubin_desc("aeb").unwrap(),
        CubinDesc {
            name: "selftest",
            variants: foreign,
        },
    ]);
    let tables: &'static ScheduleTables = Box::leak(Box::new(ScheduleTables {
        name: "t",
        profile: "sil",
        period_ns: 10,
        minor_frames_ns: &[0],
        lookahead: 0,
        threads: &[],
        engines: leak(vec![EngineDesc {
            name: "gpu0",
            kind: EngineKind::Gpu,
            instance: 0,
            queue_capacity: 4,
            graph: false,
            vpu: None,
        }]),
        buffers: &[],
        tasks: leak(vec![
            gpu_task("fill", 0, "fill_pattern_u32"),
            gpu_task("fill_again", 0, "fill_pattern_u32"),
            gpu_task("mine", 0, "my_own_kernel"),
            gpu_task("pre", 1, "aeb_preprocess"),
            gpu_task("impostor", 2, "saxpy_f32"),
        ]),
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: &[],
        cubins,
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }));
    let mut seen = Vec::new();
    let n = register_models(
        tables,
        |c: &'static CubinDesc, k, model: &'static dyn KernelModel| {
            seen.push((c.name, k, model.params().len()));
            Ok::<(), ()>(())
        },
    )
    .unwrap();
    assert_eq!(n, 2);
    assert_eq!(
        seen,
        [
            ("selftest", "fill_pattern_u32", 3),
            ("aeb", "aeb_preprocess", 4)
        ]
    );
    // The first error of the callback is returned.
    let r = register_models(tables, |_, k, _| Err(k));
    assert_eq!(r, Err("fill_pattern_u32"));
    assert_eq!(CUBIN_DESCS.len(), 3);
}
