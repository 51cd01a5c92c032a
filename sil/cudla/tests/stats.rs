//! Task statistics (`cudla.h` 1.5, `cudlaExternalEtbl.hpp`): a network that declares layer
//! statistics reports its statistics descriptors; statistics buffers imported with
//! `CUDLA_TASK_STATISTICS` follow the outputs in `outputTensor`; after each task the SIL
//! writes per-layer records, and the export table translates them to CSV.
//!
//! Covers: REQ-DLA-009
#![allow(missing_docs)]

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::*;
use sil_common::timing::{TimingModel, TimingSampler};

/// Statistics descriptors of the AEB loadable with statistics.
fn stats_descs(m: cudlaModule) -> Vec<cudlaModuleTensorDescriptor> {
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let n = module_counts(m).2 as usize;
        let mut a = cudlaModuleAttribute {
            numOutputTensors: 99,
        };
        let mut d: Vec<cudlaModuleTensorDescriptor> = vec![std::mem::zeroed(); n];
        a.outputTensorDesc = d.as_mut_ptr();
        ok(cudlaModuleGetAttributes(
            m,
            CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS,
            &mut a,
        ));
        d
    }
}

fn etbl() -> &'static cudlaExternalEtbl {
    let mut t: *const cudlaExternalEtbl = null();
    // SAFETY: C ABI call with a pointer to a live local; the table is static.
    unsafe {
        ok(cudlaGetExternalExportTable(&mut t, 0));
        &*t
    }
}

/// The CSV of raw buffer `raw` for descriptor `idx` (length query, then the stream).
fn csv(dev: cudlaDevHandle, raw: &mut [u8], idx: u32, mhz: u32) -> String {
    let t = etbl();
    let f = t.etiTranslateStats.unwrap();
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let mut a = cudlaTranslateCsvAttribute { csvStreamLength: 0 };
        ok(f(
            dev,
            raw.as_mut_ptr(),
            mhz,
            idx,
            CUDLA_GET_CSV_LENGTH,
            &mut a,
        ));
        let len = a.csvStreamLength as usize;
        let mut out = vec![0xffu8; len];
        a.csvStreamStats = out.as_mut_ptr() as *mut c_void;
        ok(f(
            dev,
            raw.as_mut_ptr(),
            mhz,
            idx,
            CUDLA_GET_CSV_STATS,
            &mut a,
        ));
        assert_eq!(out[len - 1], 0, "NUL-terminated");
        String::from_utf8(out[..len - 1].to_vec()).unwrap()
    }
}

struct StatsSetup {
    objs: [NvSciBufObj; 2],
    ptrs: [*mut u64; 2],
    sizes: [usize; 2],
}

fn import_stats(sci: &Sci, dla: &Dla) -> StatsSetup {
    let d = stats_descs(dla.module);
    let sizes = [d[0].size as usize, d[1].size as usize];
    let objs = [sci.tensor(sizes[0] as u64), sci.tensor(sizes[1] as u64)];
    let ptrs = [
        import_mem(dla.dev, objs[0], sizes[0] as u64, CUDLA_TASK_STATISTICS.0),
        import_mem(dla.dev, objs[1], sizes[1] as u64, CUDLA_TASK_STATISTICS.0),
    ];
    StatsSetup { objs, ptrs, sizes }
}

/// A task over the outputs followed by the statistics buffers.
fn stats_task(
    dla: &Dla,
    st: &StatsSetup,
    outs: &mut Vec<*mut u64>,
    s: Option<&mut cudlaSignalEvents>,
) -> cudlaTask {
    *outs = vec![dla.out_ptrs[0], dla.out_ptrs[1], st.ptrs[0], st.ptrs[1]];
    let mut t = dla.task(None, s);
    t.outputTensor = outs.as_ptr();
    t.numOutputTensors = 4;
    t
}

#[test]
fn descriptors() {
    let _s = serial();
    let sci = Sci::new();
    let dla = Dla::with_loadable(&sci, 0, AEB_STATS);
    let d = stats_descs(dla.module);
    assert_eq!(d.len(), 2);
    assert_eq!(tensor_name(&d[0]), "layerwise");
    assert_eq!(tensor_name(&d[1]), "heads");
    assert_eq!((d[0].size, d[1].size), (48 + 6 * 32, 48 + 3 * 32));
    for x in &d {
        assert_eq!((x.n, x.c, x.h, x.w), (1, 1, 1, x.size));
        assert_eq!(x.dataType, CUDLA_DATA_TYPE_UINT8);
        assert_eq!(x.dataFormat, CUDLA_DATA_FORMAT_UNKNOWN);
        assert_eq!(x.pixelFormat, CUDLA_PIXEL_FORMAT_UNKNOWN);
        assert_eq!(x.stride[0], 1);
    }
    // The tensor counts are those of the network.
    assert_eq!(module_counts(dla.module), (1, 2, 2));
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let mut a = cudlaModuleAttribute {
            outputTensorDesc: null_mut(),
        };
        assert_eq!(
            cudlaModuleGetAttributes(dla.module, CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS, &mut a),
            cudlaErrorInvalidParam,
            "NULL array with descriptors to write"
        );
    }
    dla.destroy();
}

/// Records from the timing model, in virtual time: the layers tile the sampled duration,
/// and the same seed gives the same CSV.
#[test]
fn records_and_csv_are_deterministic_for_a_seed() {
    let _s = serial();
    let sci = Sci::new();
    const T0: u64 = 3_000_000_000;
    let run = |seed: u64| -> (Vec<String>, u64) {
        // SAFETY: C ABI calls with live handles and pointers to live locals.
        unsafe {
            sok(NvSciSilClockSetVirtual(true, T0));
            let dla = Dla::with_loadable(&sci, 0, AEB_STATS);
            let st = import_stats(&sci, &dla);
            let (_sig, sp) = dla.signal_sp(&sci);
            timing(
                dla.dev,
                CUDLA_SIL_TIMING_UNIFORM,
                1_000_000,
                5_000_000,
                seed,
            );
            let mut outs = Vec::new();
            let mut eof = NvSciSyncFenceInitializer;
            let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
            let mut s = signals(&sp, &mut ef);
            let t = stats_task(&dla, &st, &mut outs, Some(&mut s));
            ok(dla.submit(&t, 0));
            sok(sci.wait(&eof, 5_000_000));
            assert_eq!(
                dla.outputs(),
                GOLDEN_OUT,
                "statistics do not change the outputs"
            );
            let mut csvs = Vec::new();
            for k in 0..2 {
                let mut raw = read(st.objs[k], st.sizes[k]);
                csvs.push(csv(dla.dev, &mut raw, k as u32, 1000));
            }
            let end_us = fence_ts_us(&eof);
            NvSciSyncFenceClear(&mut eof);
            dla.destroy();
            sok(NvSciSilClockSetVirtual(false, 0));
            (csvs, end_us)
        }
    };
    let (a, end_us) = run(11);
    let (b, _) = run(11);
    let (c, _) = run(12);
    assert_eq!(a, b, "same seed, same statistics");
    assert_ne!(a[0], c[0], "another seed, other durations");
    let want_ns = TimingSampler::new(
        TimingModel::Uniform {
            min: 1_000_000,
            max: 5_000_000,
        },
        11,
    )
    .sample();
    assert_eq!(end_us, (T0 + want_ns) / 1000);
    let lines: Vec<&str> = a[0].lines().collect();
    assert_eq!(lines.len(), 7, "header + 6 layers:\n{}", a[0]);
    assert_eq!(lines[0], "layer,name,op,start_us,end_us,duration_us,cycles");
    let names: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    // The network's layers, in execution order (the Conv nodes' names; each ReLU is fused).
    assert_eq!(
        names,
        [
            "conv1",
            "pool1",
            "conv2",
            "map_head",
            "gap",
            "presence_head"
        ]
    );
    let ops: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(
        ops,
        ["Conv+Relu", "MaxPool", "Conv+Relu", "Conv", "Conv", "Conv"]
    );
    // At 1000 MHz the cycles are the nanoseconds: they add up to the task's duration.
    let cycles: u64 = lines[1..]
        .iter()
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(cycles, want_ns);
    assert_eq!(a[1].lines().count(), 4, "header + 3 layers");
    assert!(a[1].lines().nth(1).unwrap().starts_with("3,map_head,Conv,"));
}

#[test]
fn statistics_are_optional_and_checked() {
    let _s = serial();
    let sci = Sci::new();
    let dla = Dla::with_loadable(&sci, 0, AEB_STATS);
    let st = import_stats(&sci, &dla);
    let (_sig, sp) = dla.signal_sem(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        write(st.objs[0], &vec![0x5a; st.sizes[0]]);
        // Without statistics: numOutputTensors = outputs only; the buffers are untouched.
        let mut eof = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut eof, 0));
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(dla.outputs(), GOLDEN_OUT);
        assert_eq!(read(st.objs[0], st.sizes[0]), vec![0x5a; st.sizes[0]]);
        // NOOP with statistics: nothing written either.
        let mut outs = Vec::new();
        let t = stats_task(&dla, &st, &mut outs, None);
        ok(dla.submit(&t, CUDLA_SUBMIT_NOOP.0));
        ok(dla.submit_fences(None, &sp, &mut eof, 0));
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(read(st.objs[0], st.sizes[0]), vec![0x5a; st.sizes[0]]);
        // A buffer nothing was written to is not a raw statistics buffer: cudlaErrorUmd.
        let f = etbl().etiTranslateStats.unwrap();
        let mut raw = read(st.objs[0], st.sizes[0]);
        let mut a = cudlaTranslateCsvAttribute {
            csvStreamLength: 77,
        };
        assert_eq!(
            f(
                dla.dev,
                raw.as_mut_ptr(),
                1000,
                0,
                CUDLA_GET_CSV_LENGTH,
                &mut a
            ),
            cudlaErrorUmd
        );
        assert_eq!(a.csvStreamLength, 77, "nothing written on errors");

        // Counts: outputs + 1 is neither.
        let mut bad = stats_task(&dla, &st, &mut outs, None);
        bad.numOutputTensors = 3;
        assert_eq!(dla.submit(&bad, 0), cudlaErrorInvalidParam);
        // A regular import in a statistics slot, a statistics import as an output.
        let plain = sci.tensor(st.sizes[0] as u64);
        let pp = import_mem(dla.dev, plain, st.sizes[0] as u64, 0);
        let o = [dla.out_ptrs[0], dla.out_ptrs[1], pp, st.ptrs[1]];
        let mut t = dla.task(None, None);
        t.outputTensor = o.as_ptr();
        t.numOutputTensors = 4;
        assert_eq!(dla.submit(&t, 0), cudlaErrorInvalidParam);
        let o = [st.ptrs[0], dla.out_ptrs[1], st.ptrs[0], st.ptrs[1]];
        t.outputTensor = o.as_ptr();
        assert_eq!(dla.submit(&t, 0), cudlaErrorInvalidParam);
        // Statistics buffers in the wrong order (too small for descriptor 0).
        let o = [dla.out_ptrs[0], dla.out_ptrs[1], st.ptrs[1], st.ptrs[0]];
        t.outputTensor = o.as_ptr();
        assert_eq!(dla.submit(&t, 0), cudlaErrorInvalidParam);
        // The same statistics buffer twice (overlap).
        let o = [dla.out_ptrs[0], dla.out_ptrs[1], st.ptrs[0], st.ptrs[0]];
        t.outputTensor = o.as_ptr();
        assert_eq!(dla.submit(&t, 0), cudlaErrorInvalidParam);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();

    // A loadable without statistics takes none.
    let dla = Dla::new(&sci, 0);
    let st_obj = sci.tensor(240);
    let stp = import_mem(dla.dev, st_obj, 240, CUDLA_TASK_STATISTICS.0);
    let o = [dla.out_ptrs[0], dla.out_ptrs[1], stp];
    let mut t = dla.task(None, None);
    t.outputTensor = o.as_ptr();
    t.numOutputTensors = 3;
    assert_eq!(dla.submit(&t, 0), cudlaErrorInvalidParam);
    dla.destroy();
}

#[test]
fn export_table_argument_rules() {
    let _s = serial();
    let sci = Sci::new();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals.
    unsafe {
        let mut t: *const cudlaExternalEtbl = 0x10 as *const _;
        assert_eq!(
            cudlaGetExternalExportTable(&mut t, 1),
            cudlaErrorInvalidParam
        );
        assert_eq!(t, 0x10 as *const _, "nothing written on errors");
        assert_eq!(
            cudlaGetExternalExportTable(null_mut(), 0),
            cudlaErrorInvalidParam
        );
        let table = etbl();
        let (f, g) = (
            table.etiTranslateStats.unwrap(),
            table.etiTranslateStatsForMultiModule.unwrap(),
        );

        let dla = Dla::with_loadable(&sci, 0, AEB_STATS);
        let st = import_stats(&sci, &dla);
        let (_sig, sp) = dla.signal_sem(&sci);
        let mut outs = Vec::new();
        let mut eof = NvSciSyncFenceInitializer;
        let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(&sp, &mut ef);
        let task = stats_task(&dla, &st, &mut outs, Some(&mut s));
        ok(dla.submit(&task, 0));
        sok(sci.wait(&eof, 5_000_000));
        let mut raw = read(st.objs[0], st.sizes[0]);
        let r = raw.as_mut_ptr();
        let mut a = cudlaTranslateCsvAttribute { csvStreamLength: 5 };
        let dev = dla.dev;
        let inv = cudlaErrorInvalidParam;
        assert_eq!(f(null_mut(), r, 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a), inv);
        assert_eq!(
            f(dev, null_mut(), 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a),
            inv
        );
        assert_eq!(f(dev, r, 0, 0, CUDLA_GET_CSV_LENGTH, &mut a), inv);
        assert_eq!(f(dev, r, 1000, 2, CUDLA_GET_CSV_LENGTH, &mut a), inv);
        assert_eq!(
            f(dev, r, 1000, 0, cudlaTranslateAttributeType(2), &mut a),
            inv
        );
        assert_eq!(f(dev, r, 1000, 0, CUDLA_GET_CSV_LENGTH, null_mut()), inv);
        assert_eq!(
            f(
                0xde00_dead_0000 as cudlaDevHandle,
                r,
                1000,
                0,
                CUDLA_GET_CSV_LENGTH,
                &mut a
            ),
            inv
        );
        assert_eq!(a.csvStreamLength, 5, "nothing written on errors");
        a.csvStreamStats = null_mut();
        assert_eq!(f(dev, r, 1000, 0, CUDLA_GET_CSV_STATS, &mut a), inv);
        // A raw buffer of descriptor 0 is not one of descriptor 1.
        let mut a = cudlaTranslateCsvAttribute { csvStreamLength: 5 };
        assert_eq!(
            f(dev, r, 1000, 1, CUDLA_GET_CSV_LENGTH, &mut a),
            cudlaErrorUmd
        );
        // The multi-module entry: the handle's module, else InvalidParam.
        ok(g(dev, dla.module, r, 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a));
        let len = a.csvStreamLength;
        ok(f(dev, r, 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a));
        assert_eq!(a.csvStreamLength, len);
        let other = Dla::new(&sci, 0);
        assert_eq!(
            g(dev, other.module, r, 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a),
            inv
        );
        // A handle whose module has no statistics, and a handle without a module.
        assert_eq!(f(other.dev, r, 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a), inv);
        let bare = create(0);
        assert_eq!(f(bare, r, 1000, 0, CUDLA_GET_CSV_LENGTH, &mut a), inv);
        ok(cudlaDestroyDevice(bare));
        other.destroy();
        NvSciSyncFenceClear(&mut eof);
        dla.destroy();
    }
}
