//! Operator semantics on small hand-checked cases (the bit-exact comparison with
//! onnxruntime on the committed models is `loadables/check_onnx.py`).
//!
//! Covers: REQ-LDB-008

mod common;

use common::*;
use sil_onnx::proto::*;
use sil_onnx::{LayerKind, OnnxError, Rounding};

/// x (int8 dims) -> DQ(1) -> node(op, extra inputs, attrs) -> Q(out_scale) -> y.
fn single(
    op: &str,
    x_dims: &[i64],
    y_dims: &[i64],
    extra: &[&str],
    attrs: Vec<AttributeProto>,
    out_scale: f32,
    setup: impl FnOnce(&mut Net),
) -> sil_onnx::Model {
    let mut n = Net::new();
    n.input("x", x_dims)
        .output("y", y_dims)
        .dq("x", 1.0, 0, "xf");
    setup(&mut n);
    let mut ins = vec!["xf"];
    ins.extend_from_slice(extra);
    n.node(op, "op", &ins, "o", attrs);
    n.q("o", out_scale, 0, "y");
    n.load().unwrap()
}

#[test]
fn quantize_rounds_half_to_even_and_saturates() {
    // y = Q(x · 0.5 / 1) with zero point 3: x = 1 -> 0.5 -> 0 (even) + 3; x = 3 -> 1.5 -> 2 + 3.
    let mut n = Net::new();
    n.input("x", &[1, 1, 1, 8]).output("y", &[1, 1, 1, 8]);
    n.dq("x", 0.5, 0, "xf").q("xf", 1.0, 3, "y");
    let m = n.load().unwrap();
    let out = run(&m, &[&[1, 3, 5, -1, -3, 127, -128, 0]]);
    assert_eq!(out[0], [3, 5, 5, 3, 1, 67, -61, 3]);
    // Saturation: scale 1/64 makes 127 · 0.5 · 64 = 4064 -> 127; -128 -> -128.
    let mut n = Net::new();
    n.input("x", &[1, 1, 1, 2]).output("y", &[1, 1, 1, 2]);
    n.dq("x", 0.5, 0, "xf").q("xf", 1.0 / 64.0, 0, "y");
    assert_eq!(run(&n.load().unwrap(), &[&[127, -128]])[0], [127, -128]);
}

#[test]
fn per_axis_dequantize_and_zero_points() {
    // Per-channel scales on axis 1 with zero points, then Q at scale 1.
    let mut n = Net::new();
    n.input("x", &[1, 2, 1, 2]).output("y", &[1, 2, 1, 2]);
    n.f32s("s", &[2], &[2.0, 0.5]).i8s("z", &[2], &[1, -2]);
    n.node(
        "DequantizeLinear",
        "dq",
        &["x", "s", "z"],
        "xf",
        vec![attr_i("axis", 1)],
    );
    n.q("xf", 1.0, 0, "y");
    let m = n.load().unwrap();
    // ch0: (x - 1) · 2; ch1: (x + 2) · 0.5 -> 2.5 rounds to 2, 3.5 to 4.
    assert_eq!(run(&m, &[&[3, -4, 3, 5]])[0], [4, -10, 2, 4]);
}

/// The reference convolution on integers (exact; the test values stay exact in f32).
#[allow(clippy::too_many_arguments)]
fn conv_ref(
    x: &[i32],
    [c, h, w]: [usize; 3],
    wt: &[i32],
    [m, kh, kw]: [usize; 3],
    group: usize,
    stride: [usize; 2],
    dil: [usize; 2],
    pads: [usize; 4],
) -> (Vec<i32>, usize, usize) {
    let oh = (h + pads[0] + pads[2] - ((kh - 1) * dil[0] + 1)) / stride[0] + 1;
    let ow = (w + pads[1] + pads[3] - ((kw - 1) * dil[1] + 1)) / stride[1] + 1;
    let (cg, mg) = (c / group, m / group);
    let mut y = vec![0; m * oh * ow];
    for o in 0..m {
        let g = o / mg;
        for oy in 0..oh {
            for ox in 0..ow {
                let mut acc = 0;
                for ic in 0..cg {
                    for ky in 0..kh {
                        for kx in 0..kw {
                            let iy = (oy * stride[0] + ky * dil[0]) as isize - pads[0] as isize;
                            let ix = (ox * stride[1] + kx * dil[1]) as isize - pads[1] as isize;
                            if iy < 0 || ix < 0 || iy >= h as isize || ix >= w as isize {
                                continue;
                            }
                            let xi = ((g * cg + ic) * h + iy as usize) * w + ix as usize;
                            acc += x[xi] * wt[((o * cg + ic) * kh + ky) * kw + kx];
                        }
                    }
                }
                y[(o * oh + oy) * ow + ox] = acc;
            }
        }
    }
    (y, oh, ow)
}

#[test]
fn grouped_strided_dilated_conv_matches_the_reference() {
    let (c, h, w, m, kh, kw) = (4usize, 7usize, 6usize, 6usize, 3usize, 2usize);
    let group = 2;
    let mut rng = SplitMix64::new(42);
    let x: Vec<i8> = (0..c * h * w).map(|_| rng.next_u64() as i8).collect();
    let wt: Vec<i8> = (0..m * (c / group) * kh * kw)
        .map(|_| (below(&mut rng, 15) as i8) - 7)
        .collect();
    let (stride, dil, pads) = ([2, 1], [2, 2], [1, 0, 2, 1]);
    let xi: Vec<i32> = x.iter().map(|&v| v.into()).collect();
    let wi: Vec<i32> = wt.iter().map(|&v| v.into()).collect();
    let (yref, oh, ow) = conv_ref(&xi, [c, h, w], &wi, [m, kh, kw], group, stride, dil, pads);
    let model = single(
        "Conv",
        &[1, c as i64, h as i64, w as i64],
        &[1, m as i64, oh as i64, ow as i64],
        &["wf"],
        vec![
            attr_i("group", group as i64),
            attr_is("strides", &[2, 1]),
            attr_is("dilations", &[2, 2]),
            attr_is("pads", &[1, 0, 2, 1]),
        ],
        16.0,
        |n| {
            n.i8s(
                "w",
                &[m as i64, (c / group) as i64, kh as i64, kw as i64],
                &wt,
            )
            .dq("w", 1.0, 0, "wf");
        },
    );
    let out = run(&model, &[&x]);
    let expected: Vec<i8> = yref
        .iter()
        .map(|&a| (a as f32 / 16.0).round_ties_even().clamp(-128.0, 127.0) as i8)
        .collect();
    assert_eq!(out[0], expected);
    assert!(
        model.rounding_notes().is_empty(),
        "{:?}",
        model.rounding_notes()
    );
}

#[test]
fn average_pools_with_and_without_padding() {
    let x: Vec<i8> = (1..=9).collect(); // 3 x 3
    let attrs = |incl: i64| {
        vec![
            attr_is("kernel_shape", &[2, 2]),
            attr_is("pads", &[1, 1, 0, 0]),
            attr_i("count_include_pad", incl),
        ]
    };
    let excl = single(
        "AveragePool",
        &[1, 1, 3, 3],
        &[1, 1, 3, 3],
        &[],
        attrs(0),
        0.25,
        |_| {},
    );
    let incl = single(
        "AveragePool",
        &[1, 1, 3, 3],
        &[1, 1, 3, 3],
        &[],
        attrs(1),
        0.25,
        |_| {},
    );
    // Window (0,0) covers only x[0] = 1; (1,1) covers 1,2,4,5 = 12.
    let e = run(&excl, &[&x])[0].clone();
    let i = run(&incl, &[&x])[0].clone();
    assert_eq!(e[0], 4); // 1 / 1 / 0.25
    assert_eq!(i[0], 1); // 1 / 4 / 0.25
    assert_eq!(e[4], 12); // 12 / 4 / 0.25
    assert_eq!(e[1], 6); // (1 + 2) / 2 / 0.25
    assert!(
        excl.rounding_notes().is_empty(),
        "counts 1, 2, 4 are powers of two"
    );
    // A 3x3 window without padding: 45 / 9 = 5; the count 9 is not a power of two.
    let p = single(
        "AveragePool",
        &[1, 1, 3, 3],
        &[1, 1, 1, 1],
        &[],
        vec![attr_is("kernel_shape", &[3, 3])],
        1.0,
        |_| {},
    );
    assert_eq!(run(&p, &[&x])[0], [5]);
    assert!(matches!(
        p.rounding_notes()[0].rounding,
        Rounding::Specified(_)
    ));
    // Global pools.
    let ga = single(
        "GlobalAveragePool",
        &[1, 1, 3, 3],
        &[1, 1, 1, 1],
        &[],
        vec![],
        0.5,
        |_| {},
    );
    let gm = single(
        "GlobalMaxPool",
        &[1, 1, 3, 3],
        &[1, 1, 1, 1],
        &[],
        vec![],
        1.0,
        |_| {},
    );
    assert_eq!(run(&ga, &[&x])[0], [10]);
    assert_eq!(run(&gm, &[&x])[0], [9]);
    let mp = single(
        "MaxPool",
        &[1, 1, 3, 3],
        &[1, 1, 2, 2],
        &[],
        vec![attr_is("kernel_shape", &[2, 2])],
        1.0,
        |_| {},
    );
    assert_eq!(run(&mp, &[&x])[0], [5, 6, 8, 9]);
}

#[test]
fn resize_nearest_modes() {
    let x: Vec<i8> = vec![10, 20, 30, 40]; // 1 x 4 row
    let case = |ctm: &str, nm: &str, scale_w: f32| {
        let ow = (4.0 * scale_w) as i64;
        single(
            "Resize",
            &[1, 1, 1, 4],
            &[1, 1, 1, ow],
            &["roi", "sc"],
            vec![
                attr_s("mode", "nearest"),
                attr_s("coordinate_transformation_mode", ctm),
                attr_s("nearest_mode", nm),
            ],
            1.0,
            |n| {
                n.f32s("roi", &[0], &[])
                    .f32s("sc", &[4], &[1.0, 1.0, 1.0, scale_w]);
            },
        )
    };
    let r = |ctm, nm, s| run(&case(ctm, nm, s), &[&x])[0].clone();
    assert_eq!(
        r("asymmetric", "floor", 2.0),
        [10, 10, 20, 20, 30, 30, 40, 40]
    );
    // asymmetric, x/2: ties at odd outputs go down (prefer floor) or up (prefer ceil).
    assert_eq!(
        r("asymmetric", "round_prefer_floor", 2.0),
        [10, 10, 20, 20, 30, 30, 40, 40]
    );
    assert_eq!(
        r("asymmetric", "round_prefer_ceil", 2.0),
        [10, 20, 20, 30, 30, 40, 40, 40]
    );
    assert_eq!(
        r("half_pixel", "round_prefer_floor", 2.0),
        [10, 10, 20, 20, 30, 30, 40, 40]
    );
    assert_eq!(
        r("half_pixel", "ceil", 2.0),
        [10, 20, 20, 30, 30, 40, 40, 40]
    );
    // Downsampling by 0.5: half_pixel samples (o + 0.5) · 2 - 0.5 = 0.5, 2.5 -> 0, 2.
    assert_eq!(r("half_pixel", "round_prefer_floor", 0.5), [10, 30]);
    assert_eq!(r("tf_half_pixel_for_nn", "floor", 0.5), [20, 40]);
    // align_corners with sizes: 4 -> 7, x = o · 3 / 6.
    let m = single(
        "Resize",
        &[1, 1, 1, 4],
        &[1, 1, 1, 7],
        &["roi", "", "sizes"],
        vec![attr_s("coordinate_transformation_mode", "align_corners")],
        1.0,
        |n| {
            n.f32s("roi", &[0], &[]).i64s("sizes", &[4], &[1, 1, 1, 7]);
        },
    );
    assert_eq!(run(&m, &[&x])[0], [10, 10, 20, 20, 30, 30, 40]);
}

#[test]
fn add_concat_and_shape_glue() {
    // Broadcast add of a per-channel constant [2, 1, 1].
    let m = single(
        "Add",
        &[1, 2, 1, 3],
        &[1, 2, 1, 3],
        &["bias"],
        vec![],
        1.0,
        |n| {
            n.f32s("bias", &[2, 1, 1], &[100.0, -100.0]);
        },
    );
    assert_eq!(
        run(&m, &[&[1, 2, 3, 4, 5, 6]])[0],
        [101, 102, 103, -96, -95, -94]
    );
    // Concat on the last axis of two inputs, then Flatten, Reshape (0 and -1), Identity.
    let mut n = Net::new();
    n.input("a", &[1, 2, 1, 2])
        .input("b", &[1, 2, 1, 1])
        .output("y", &[1, 6, 1, 1]);
    n.dq("a", 1.0, 0, "af").dq("b", 1.0, 0, "bf");
    n.node(
        "Concat",
        "cat",
        &["af", "bf"],
        "c",
        vec![attr_i("axis", -1)],
    );
    n.node("Flatten", "flat", &["c"], "f", vec![]);
    n.i64s("shape", &[4], &[0, -1, 1, 1]);
    n.node("Reshape", "reshape", &["f", "shape"], "r", vec![]);
    n.node("Identity", "id", &["r"], "i", vec![]);
    n.q("i", 1.0, 0, "y");
    let m = n.load().unwrap();
    assert_eq!(run(&m, &[&[1, 2, 3, 4], &[9, 8]])[0], [1, 2, 9, 3, 4, 8]);
    let kinds: Vec<LayerKind> = m.layers().iter().map(|l| l.kind).collect();
    assert_eq!(kinds, [LayerKind::Concat], "shape glue is not a layer");
    // A Constant node.
    let mut n = Net::new();
    n.input("x", &[1, 1, 1, 2])
        .output("y", &[1, 1, 1, 2])
        .dq("x", 1.0, 0, "xf");
    n.g().node.push(NodeProto {
        output: vec!["k".into()],
        name: "k".into(),
        op_type: "Constant".into(),
        attribute: vec![attr_f("value_float", 2.0)],
        ..Default::default()
    });
    n.node("Add", "add", &["xf", "k"], "s", vec![])
        .q("s", 1.0, 0, "y");
    assert_eq!(run(&n.load().unwrap(), &[&[1, -1]])[0], [3, 1]);
}

#[test]
fn gemm_and_matmul() {
    // Gemm with transA: A^T [K=2, M=1] ... A is given as [2, 1].
    let mut n = Net::new();
    n.input("x", &[1, 2, 1, 1]).output("y", &[1, 3, 1, 1]);
    n.dq("x", 1.0, 0, "xf");
    n.i64s("s21", &[2], &[2, 1]).i64s("s4", &[4], &[1, 3, 1, 1]);
    n.node("Reshape", "col", &["xf", "s21"], "a", vec![]);
    n.f32s("w", &[2, 3], &[1.0, 2.0, 3.0, -1.0, 0.0, 1.0]);
    n.f32s("c", &[3], &[10.0, 20.0, 30.0]);
    n.node(
        "Gemm",
        "fc",
        &["a", "w", "c"],
        "g",
        vec![attr_i("transA", 1)],
    );
    n.node("Reshape", "back", &["g", "s4"], "o", vec![])
        .q("o", 1.0, 0, "y");
    let m = n.load().unwrap();
    // [5, 7] · W = [5 - 7, 10, 15 + 7] + c.
    assert_eq!(run(&m, &[&[5, 7]])[0], [8, 30, 52]);
    // MatMul batched over N=1, C=2 (rank 4): [1, 2, 1, 2] x [2, 1] shared.
    let m = single(
        "MatMul",
        &[1, 2, 1, 2],
        &[1, 2, 1, 1],
        &["b"],
        vec![],
        1.0,
        |n| {
            n.f32s("b", &[2, 1], &[3.0, -1.0]);
        },
    );
    assert_eq!(run(&m, &[&[1, 2, 10, 20]])[0], [1, 10]);
}

#[test]
fn relu_fuses_only_into_its_sole_producer() {
    // Conv -> Relu, and the Conv output is also a graph output: no fusion.
    let mut n = Net::new();
    n.input("x", &[1, 1, 2, 2])
        .output("y", &[1, 1, 2, 2])
        .output("z", &[1, 1, 2, 2]);
    n.dq("x", 1.0, 0, "xf").f32s("w", &[1, 1, 1, 1], &[-1.0]);
    n.node("Conv", "conv", &["xf", "w"], "c", vec![]);
    n.node("Relu", "relu", &["c"], "r", vec![]);
    n.q("r", 1.0, 0, "y").q("c", 1.0, 0, "z");
    let m = n.load().unwrap();
    let names: Vec<&str> = m.layers().iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["conv", "relu"]);
    assert_eq!(
        run(&m, &[&[1, -2, 3, -4]]),
        [vec![0, 2, 0, 4], vec![-1, 2, -3, 4]]
    );
}

#[test]
fn exactness_that_cannot_be_argued_is_reported() {
    // Scale 0.1: the dequantised values need 24 bits, so the sums are not provably exact.
    let mut n = Net::new();
    n.input("x", &[1, 1, 4, 4]).output("y", &[1, 1, 1, 1]);
    n.dq("x", 0.1, 0, "xf").f32s("w", &[1, 1, 4, 4], &[0.3; 16]);
    n.node("Conv", "sum", &["xf", "w"], "c", vec![])
        .q("c", 1.0, 0, "y");
    let m = n.load().unwrap();
    assert!(!m.exactness_argued());
    let note = &m.rounding_notes()[0];
    assert_eq!(note.node.name, "sum");
    assert!(matches!(note.rounding, Rounding::Unproven(_)));
    assert!(note.to_string().contains("cannot be argued"));
    // The committed networks are argued (exact or one specified rounding per node).
    for f in ["aeb_detector.onnx", "test/ops.onnx", "examples/tiny.onnx"] {
        let m = sil_onnx::Model::load(&loadable_file(f)).unwrap();
        assert!(m.exactness_argued(), "{f}: {:?}", m.rounding_notes());
    }
}

#[test]
fn layer_statistics_metadata() {
    let m = sil_onnx::Model::load(&loadable_file("test/aeb_detector_stats.onnx")).unwrap();
    let s: Vec<(&str, usize, usize)> = m
        .statistics()
        .iter()
        .map(|s| (s.name.as_str(), s.first, s.count))
        .collect();
    assert_eq!(s, [("layerwise", 0, 6), ("heads", 3, 3)]);
    let with = |v: &str| {
        let mut n = Net::new();
        n.input("x", &[1, 1, 1, 1])
            .output("y", &[1, 1, 1, 1])
            .dq("x", 1.0, 0, "xf");
        n.node("Relu", "a", &["xf"], "r", vec![])
            .node("Relu", "b", &["r"], "r2", vec![]);
        n.q("r2", 1.0, 0, "y");
        n.m.metadata_props.push(StringStringEntryProto {
            key: sil_onnx::stats::METADATA_KEY.into(),
            value: v.into(),
        });
        n.load()
    };
    assert_eq!(with("all; second=b..b").unwrap().statistics()[1].first, 1);
    for bad in [
        "",
        "x",
        "s=b..a",
        "s=a..zz",
        "s=a-b",
        "s; s",
        &"n".repeat(81),
    ] {
        assert!(
            matches!(with(bad), Err(OnnxError::Statistics(_))),
            "{bad:?}"
        );
    }
}

/// Covers: REQ-LDB-007
#[test]
fn dla_descriptors_follow_kdla_linear() {
    let t = sil_onnx::IoTensor {
        name: "t".into(),
        dims: [1, 3, 5, 65],
    };
    let d = sil_onnx::dla::linear_desc(&t);
    assert_eq!(d.strides, [1, 128, 640, 1920, 0, 0, 0, 0]);
    assert_eq!(d.size, 1920);
    assert_eq!(
        (d.data_format, d.data_type, d.data_category, d.pixel_format),
        (1, 4, 2, 36)
    );
    let dense: Vec<u8> = (0..3 * 5 * 65).map(|i| i as u8).collect();
    let mut strided = vec![0xEE; 1920];
    sil_onnx::dla::pack(&d, &dense, &mut strided);
    assert_eq!(strided[128 + 64], dense[65 + 64]);
    assert_eq!(strided[65], 0, "line padding is written as 0");
    let mut back = vec![0; dense.len()];
    sil_onnx::dla::unpack(&d, &strided, &mut back);
    assert_eq!(back, dense);
}
