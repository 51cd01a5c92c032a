//! ONNX networks in `cudlaModuleLoadFromMemory`: the descriptors are those of an int8
//! `kDLA_LINEAR` loadable, and a task runs the network over the strided buffers exactly as
//! the interpreter does on dense tensors (two inputs, seven outputs, every operator of
//! `loadables/test/ops.onnx`).
//!
//! Covers: REQ-DLA-012, REQ-DLA-002

mod common;

use std::ptr::{null, null_mut};

use common::*;
use sil_onnx::{Model, dla};

const OPS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../loadables/test/ops.onnx"
));

fn descriptors(m: cudlaModule, inputs: bool, n: usize) -> Vec<cudlaModuleTensorDescriptor> {
    // SAFETY: C ABI calls with a live module and pointers to live locals of `n` descriptors.
    unsafe {
        let mut d: Vec<cudlaModuleTensorDescriptor> = vec![std::mem::zeroed(); n];
        let mut a = cudlaModuleAttribute {
            inputTensorDesc: d.as_mut_ptr(),
        };
        let attr = if inputs {
            CUDLA_INPUT_TENSOR_DESCRIPTORS
        } else {
            CUDLA_OUTPUT_TENSOR_DESCRIPTORS
        };
        ok(cudlaModuleGetAttributes(m, attr, &mut a));
        d
    }
}

#[test]
fn ops_network_runs_over_strided_buffers() {
    let _s = serial();
    let sci = Sci::new();
    let model = Model::load(OPS).unwrap();
    let dev = create(0);
    let mut module = null_mut();
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        ok(cudlaModuleLoadFromMemory(
            dev,
            OPS.as_ptr(),
            OPS.len(),
            &mut module,
            0,
        ));
    }
    assert_eq!(module_counts(module), (2, 7, 0));
    let ins = descriptors(module, true, 2);
    let outs = descriptors(module, false, 7);
    for (d, t) in ins
        .iter()
        .chain(&outs)
        .zip(model.inputs().iter().chain(model.outputs()))
    {
        let want = dla::linear_desc(t);
        assert_eq!(tensor_name(d), t.name);
        assert_eq!([d.n, d.c, d.h, d.w], want.dims.map(u64::from));
        assert_eq!((d.size, d.stride), (want.size, want.strides));
        assert_eq!(
            (d.dataFormat, d.dataType),
            (CUDLA_DATA_FORMAT_NCHW, CUDLA_DATA_TYPE_INT8)
        );
        assert_eq!(d.stride[1] % 64, 0, "line pitch rounded up to 64 bytes");
    }
    let in_objs: Vec<_> = ins.iter().map(|d| sci.tensor(d.size)).collect();
    let out_objs: Vec<_> = outs.iter().map(|d| sci.tensor(d.size)).collect();
    let in_ptrs: Vec<*const u64> = in_objs
        .iter()
        .zip(&ins)
        .map(|(&o, d)| import_mem(dev, o, d.size, 0) as *const u64)
        .collect();
    let out_ptrs: Vec<*mut u64> = out_objs
        .iter()
        .zip(&outs)
        .map(|(&o, d)| import_mem(dev, o, d.size, 0))
        .collect();
    let (_sig, sp) = {
        let obj = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, true);
        (obj, [import_sem(dev, obj)])
    };
    let mut rng = 0x1234_5678_u64;
    let mut scratch = model.scratch();
    for round in 0..20 {
        // Dense random inputs, packed into the DLA buffers (padding bytes garbage: the DLA
        // must not read them).
        let mut dense_in = Vec::new();
        for ((t, d), &obj) in model.inputs().iter().zip(&ins).zip(&in_objs) {
            let dense: Vec<u8> = (0..t.len())
                .map(|_| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    rng as u8
                })
                .collect();
            let mut buf = vec![0xA5u8; d.size as usize];
            dla::pack(&dla::linear_desc(t), &dense, &mut buf);
            for (i, b) in buf.iter_mut().enumerate() {
                if i % d.stride[1] as usize >= d.w as usize {
                    *b = round as u8 ^ 0x5A;
                }
            }
            write(obj, &buf);
            dense_in.push(dense);
        }
        let task = cudlaTask {
            moduleHandle: module,
            outputTensor: out_ptrs.as_ptr(),
            numOutputTensors: 7,
            numInputTensors: 2,
            inputTensor: in_ptrs.as_ptr(),
            waitEvents: null(),
            signalEvents: null_mut(),
        };
        let mut eof = NvSciSyncFenceInitializer;
        let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(&sp, &mut ef);
        let task = cudlaTask {
            signalEvents: &mut s,
            ..task
        };
        // SAFETY: C ABI call with a live handle and a task over live imports.
        ok(unsafe { cudlaSubmitTask(dev, &task, 1, null_mut(), 0) });
        sok(sci.wait(&eof, 5_000_000));
        // The interpreter on the dense tensors, packed: byte for byte what the DLA wrote.
        let refs: Vec<&[u8]> = dense_in.iter().map(|v| v.as_slice()).collect();
        let mut dense_out: Vec<Vec<u8>> =
            model.outputs().iter().map(|t| vec![0; t.len()]).collect();
        let mut o: Vec<&mut [u8]> = dense_out.iter_mut().map(|v| v.as_mut_slice()).collect();
        model.run(&refs, &mut o, &mut scratch).unwrap();
        for ((t, d), (&obj, dense)) in model
            .outputs()
            .iter()
            .zip(&outs)
            .zip(out_objs.iter().zip(&dense_out))
        {
            let mut want = vec![0u8; d.size as usize];
            dla::pack(&dla::linear_desc(t), dense, &mut want);
            assert_eq!(
                read(obj, d.size as usize),
                want,
                "round {round}, output {}",
                t.name
            );
        }
    }
    // SAFETY: C ABI call with a live handle.
    assert_eq!(unsafe { cudlaGetLastError(dev) }, cudlaSuccess);
    // SAFETY: as above.
    unsafe { ok(cudlaDestroyDevice(dev)) };
}
