//! Bad models get typed errors that name what is wrong; no input makes the loader or a
//! run panic.
//!
//! Covers: REQ-LDB-009

mod common;

use common::*;
use sil_onnx::proto::*;
use sil_onnx::{Model, OnnxError, RunError};

/// int8 x [1,1,4,4] -> DQ -> Conv 3x3 (pad 1, bias) -> Relu -> Q -> int8 y [1,1,4,4].
fn base() -> Net {
    let mut n = Net::new();
    n.input("x", &[1, 1, 4, 4]).output("y", &[1, 1, 4, 4]);
    n.dq("x", 0.5, 0, "xf");
    n.i8s("w", &[1, 1, 3, 3], &[1, 2, 1, 0, -4, 0, 1, 2, 1])
        .dq("w", 0.25, 0, "wf");
    n.f32s("b", &[1], &[0.125]);
    n.node(
        "Conv",
        "conv",
        &["xf", "wf", "b"],
        "c",
        vec![
            attr_is("pads", &[1, 1, 1, 1]),
            attr_is("kernel_shape", &[3, 3]),
        ],
    );
    n.node("Relu", "relu", &["c"], "r", vec![]);
    n.q("r", 0.25, 0, "y");
    n
}

/// A change to a model.
type Mutation = Box<dyn Fn(&mut Net)>;

/// The index of the Conv node in [`base`] (after the two DequantizeLinear nodes).
const CONV: usize = 2;

fn err(n: &Net) -> OnnxError {
    match n.load() {
        Err(e) => e,
        Ok(_) => panic!("loaded a bad model"),
    }
}

fn node_name(e: &OnnxError) -> Option<&str> {
    match e {
        OnnxError::UnsupportedOp { node, .. }
        | OnnxError::UnsupportedAttribute { node, .. }
        | OnnxError::Arity { node, .. }
        | OnnxError::UnknownValue { node, .. }
        | OnnxError::DataType { node, .. }
        | OnnxError::Shape { node, .. } => Some(&node.name),
        _ => None,
    }
}

#[test]
fn the_base_model_loads_and_runs() {
    let m = base().load().unwrap();
    assert_eq!(m.inputs()[0].dims, [1, 1, 4, 4]);
    assert_eq!(m.layers().len(), 1, "Conv + Relu is one layer");
    assert!(m.layers()[0].relu);
    let out = run(&m, &[&[2; 16]]);
    // Interior: x = 1.0 everywhere, sum of weights·0.25 = 4·0.25 = 1 -> 1.125 -> /0.25 = 4.5 -> 4.
    assert_eq!(out[0][5], 4);
}

#[test]
fn not_protobuf() {
    assert!(matches!(
        Model::load(b"\xff\xff\xff\xff"),
        Err(OnnxError::Decode(_))
    ));
    assert!(
        matches!(Model::load(b""), Err(OnnxError::Model(_))),
        "empty = no graph"
    );
    let e = Model::load(b"\x0a\x05hello").unwrap_err();
    assert!(e.to_string().contains("ONNX"), "{e}");
}

#[test]
fn unsupported_op_is_refused_naming_the_node() {
    let e = Model::load(&loadable_file("test/unsupported_op.onnx")).unwrap_err();
    match &e {
        OnnxError::UnsupportedOp { node, domain } => {
            assert_eq!(node.name, "head/sigmoid");
            assert_eq!(node.op_type, "Sigmoid");
            assert!(domain.is_empty());
        }
        other => panic!("{other:?}"),
    }
    let text = e.to_string();
    assert!(text.contains("head/sigmoid") && text.contains("Sigmoid") && text.contains("Conv"));
    // A custom domain is refused too, even for a known op type.
    let mut n = base();
    n.g().node[CONV].domain = "com.example".into();
    let e = err(&n);
    assert!(matches!(&e, OnnxError::UnsupportedOp { domain, .. } if domain == "com.example"));
    assert_eq!(node_name(&e), Some("conv"));
}

#[test]
fn unsupported_attributes_and_values() {
    let cases: Vec<(Mutation, &str)> = vec![
        (
            Box::new(|n| {
                n.g().node[CONV]
                    .attribute
                    .push(attr_s("auto_pad", "SAME_UPPER"))
            }),
            "auto_pad",
        ),
        (
            Box::new(|n| n.g().node[CONV].attribute.push(attr_i("frobnicate", 1))),
            "frobnicate",
        ),
        (
            Box::new(|n| {
                n.g().node[CONV]
                    .attribute
                    .push(attr_is("strides", &[1, 1, 1]))
            }),
            "strides",
        ),
        (
            Box::new(|n| n.g().node[CONV].attribute[1] = attr_is("kernel_shape", &[5, 5])),
            "kernel_shape",
        ),
        // A wrong attribute type.
        (
            Box::new(|n| n.g().node[CONV].attribute[0] = attr_i("pads", 1)),
            "pads",
        ),
    ];
    for (mutate, attribute) in cases {
        let mut n = base();
        mutate(&mut n);
        match err(&n) {
            OnnxError::UnsupportedAttribute {
                node, attribute: a, ..
            } => {
                assert_eq!(node.name, "conv");
                assert_eq!(a, attribute);
            }
            other => panic!("{attribute}: {other:?}"),
        }
    }
    // Gemm alpha, Resize modes, MaxPool's Indices output, ceil_mode.
    let mut n = Net::new();
    n.input("x", &[1, 2, 2, 2])
        .output("y", &[1, 2, 4, 4])
        .dq("x", 1.0, 0, "xf");
    n.f32s("roi", &[0], &[])
        .f32s("sc", &[4], &[1.0, 1.0, 2.0, 2.0]);
    n.node(
        "Resize",
        "up",
        &["xf", "roi", "sc"],
        "u",
        vec![attr_s("mode", "linear")],
    );
    n.q("u", 1.0, 0, "y");
    assert!(
        matches!(err(&n), OnnxError::UnsupportedAttribute { attribute, .. } if attribute == "mode")
    );
    n.g().node[1].attribute = vec![attr_s(
        "coordinate_transformation_mode",
        "tf_crop_and_resize",
    )];
    assert!(matches!(err(&n), OnnxError::UnsupportedAttribute { .. }));
    n.g().node[1].attribute = vec![];
    n.g().initializer[3].float_data = vec![1.0, 2.0, 2.0, 2.0];
    assert!(err(&n).to_string().contains("resizing N or C"));

    let mut n = Net::new();
    n.input("x", &[1, 1, 4, 4])
        .output("y", &[1, 1, 2, 2])
        .dq("x", 1.0, 0, "xf");
    n.node(
        "MaxPool",
        "pool",
        &["xf"],
        "p",
        vec![
            attr_is("kernel_shape", &[2, 2]),
            attr_is("strides", &[2, 2]),
        ],
    );
    n.q("p", 1.0, 0, "y");
    n.load().unwrap();
    n.g().node[1].output.push("indices".into());
    assert!(
        matches!(err(&n), OnnxError::UnsupportedAttribute { attribute, .. } if attribute == "indices")
    );
    n.g().node[1].output.pop();
    n.g().node[1].attribute.push(attr_i("ceil_mode", 1));
    assert!(
        matches!(err(&n), OnnxError::UnsupportedAttribute { attribute, .. } if attribute == "ceil_mode")
    );

    let mut n = Net::new();
    n.input("x", &[1, 4, 1, 1])
        .output("y", &[1, 2, 1, 1])
        .dq("x", 1.0, 0, "xf");
    n.i64s("s2", &[2], &[1, 4]).i64s("s4", &[4], &[1, 2, 1, 1]);
    n.f32s("w", &[4, 2], &[1.0; 8]);
    n.node("Reshape", "flat", &["xf", "s2"], "f", vec![]);
    n.node("Gemm", "fc", &["f", "w"], "g", vec![attr_f("alpha", 2.0)]);
    n.node("Reshape", "back", &["g", "s4"], "o", vec![]);
    n.q("o", 1.0, 0, "y");
    assert!(
        matches!(err(&n), OnnxError::UnsupportedAttribute { attribute, .. } if attribute == "alpha")
    );
    n.g().node[2].attribute.clear();
    let m = n.load().unwrap();
    assert_eq!(run(&m, &[&[1, 2, 3, 4]])[0], vec![10, 10]);
}

#[test]
fn unknown_and_duplicate_values() {
    // A missing initializer.
    let mut n = base();
    n.g().initializer.retain(|t| t.name != "b");
    match err(&n) {
        OnnxError::UnknownValue { node, value } => {
            assert_eq!((node.name.as_str(), value.as_str()), ("conv", "b"));
        }
        other => panic!("{other:?}"),
    }
    // Nodes out of order.
    let mut n = base();
    n.g().node.swap(CONV, CONV + 1);
    assert!(matches!(err(&n), OnnxError::UnknownValue { .. }));
    // A value defined twice.
    let mut n = base();
    n.g().node[CONV + 1].output[0] = "c".into();
    assert!(matches!(err(&n), OnnxError::DuplicateValue { value } if value == "c"));
    // A missing required input.
    let mut n = base();
    n.g().node[CONV].input.truncate(1);
    assert!(matches!(err(&n), OnnxError::Arity { .. }));
}

#[test]
fn element_type_errors() {
    // Conv straight on the int8 input (no DequantizeLinear).
    let mut n = base();
    n.g().node[CONV].input[0] = "x".into();
    let e = err(&n);
    assert!(
        matches!(&e, OnnxError::DataType { value, .. } if value == "x"),
        "{e:?}"
    );
    assert_eq!(node_name(&e), Some("conv"));
    // QuantizeLinear without a zero point (uint8 output).
    let mut n = base();
    n.g().node[CONV + 2].input.truncate(2);
    assert!(matches!(err(&n), OnnxError::DataType { .. }));
    // A uint8 zero point.
    let mut n = base();
    let z = n
        .g()
        .initializer
        .iter_mut()
        .find(|t| t.name == "y/z")
        .unwrap();
    z.data_type = data_type::UINT8;
    assert!(matches!(
        err(&n),
        OnnxError::Initializer { .. } | OnnxError::DataType { .. }
    ));
    // A float16 initializer.
    let mut n = base();
    n.g().initializer[0].data_type = 10;
    assert!(matches!(err(&n), OnnxError::Initializer { reason, .. } if reason.contains("float16")));
}

#[test]
fn shape_errors() {
    // Weights for 2 input channels on a 1-channel input.
    let mut n = base();
    let w = n
        .g()
        .initializer
        .iter_mut()
        .find(|t| t.name == "w")
        .unwrap();
    w.dims = vec![1, 2, 3, 3];
    w.raw_data = vec![1; 18];
    assert!(matches!(err(&n), OnnxError::Shape { node, .. } if node.name == "conv"));
    // A bias of the wrong length.
    let mut n = base();
    let b = n
        .g()
        .initializer
        .iter_mut()
        .find(|t| t.name == "b")
        .unwrap();
    b.dims = vec![2];
    b.float_data = vec![0.0, 0.0];
    assert!(matches!(err(&n), OnnxError::Shape { .. }));
    // The declared output shape differs from the computed one.
    let mut n = base();
    n.g().output[0] = value_info("y", data_type::INT8, &[1, 1, 4, 5]);
    assert!(matches!(err(&n), OnnxError::Shape { .. }));
    // A value_info that disagrees.
    let mut n = base();
    n.g()
        .value_info
        .push(value_info("c", data_type::FLOAT, &[1, 1, 3, 3]));
    assert!(matches!(err(&n), OnnxError::Shape { .. }));
    // Add without broadcast.
    let mut n = Net::new();
    n.input("a", &[1, 2, 2, 2])
        .input("b", &[1, 3, 2, 2])
        .output("y", &[1, 2, 2, 2]);
    n.dq("a", 1.0, 0, "af").dq("b", 1.0, 0, "bf");
    n.node("Add", "add", &["af", "bf"], "s", vec![]);
    n.q("s", 1.0, 0, "y");
    assert!(matches!(err(&n), OnnxError::Shape { node, .. } if node.name == "add"));
    // Initializer data of the wrong length.
    let mut n = base();
    n.g()
        .initializer
        .iter_mut()
        .find(|t| t.name == "w")
        .unwrap()
        .raw_data
        .pop();
    assert!(matches!(err(&n), OnnxError::Initializer { name, .. } if name == "w"));
}

#[test]
fn dla_io_rules() {
    // Float graph input.
    let mut n = base();
    n.g().input[0] = value_info("x", data_type::FLOAT, &[1, 1, 4, 4]);
    assert!(
        matches!(err(&n), OnnxError::Io { name, reason } if name == "x" && reason.contains("int8"))
    );
    // Rank 3, batch 2, a symbolic dimension.
    for dims in [&[1i64, 4, 4][..], &[2, 1, 4, 4]] {
        let mut n = base();
        n.g().input[0] = value_info("x", data_type::INT8, dims);
        assert!(matches!(err(&n), OnnxError::Io { .. }), "{dims:?}");
    }
    let mut n = base();
    let t = n.g().input[0]
        .r#type
        .as_mut()
        .unwrap()
        .tensor_type
        .as_mut()
        .unwrap();
    t.shape.as_mut().unwrap().dim[0].value = Some(DimensionValue::DimParam("batch".into()));
    assert!(err(&n).to_string().contains("batch"));
    // A float output.
    let mut n = base();
    n.g().output[0] = value_info("r", data_type::FLOAT, &[1, 1, 4, 4]);
    assert!(matches!(err(&n), OnnxError::Io { name, .. } if name == "r"));
    // An output nobody computes.
    let mut n = base();
    n.g().output[0] = value_info("nothing", data_type::INT8, &[1, 1, 4, 4]);
    assert!(matches!(err(&n), OnnxError::Io { .. }));
    // An output that is an input.
    let mut n = base();
    n.g()
        .output
        .push(value_info("x", data_type::INT8, &[1, 1, 4, 4]));
    assert!(matches!(err(&n), OnnxError::Io { .. }));
}

#[test]
fn model_level_errors() {
    let mut n = base();
    n.m.opset_import[0].version = 9;
    assert!(matches!(err(&n), OnnxError::Opset { version: 9 }));
    let mut n = base();
    n.m.opset_import.clear();
    assert!(matches!(err(&n), OnnxError::Model(_)));
    let mut n = base();
    n.m.ir_version = 99;
    assert!(matches!(err(&n), OnnxError::Model(_)));
    let mut n = base();
    n.m.functions.push(vec![]);
    assert!(matches!(err(&n), OnnxError::Model(_)));
    let mut n = base();
    n.g().initializer[0].data_location = DATA_LOCATION_EXTERNAL;
    assert!(
        matches!(err(&n), OnnxError::Initializer { reason, .. } if reason.contains("external"))
    );
}

/// Covers: REQ-LDB-009
#[test]
fn run_checks_its_buffers() {
    let m = base().load().unwrap();
    let other = base().load().unwrap();
    let mut s = m.scratch();
    let input = [0u8; 16];
    let mut out = [0u8; 16];
    assert_eq!(
        m.run(&[], &mut [&mut out], &mut s),
        Err(RunError::InputCount {
            expected: 1,
            found: 0
        })
    );
    assert_eq!(
        m.run(&[&input], &mut [], &mut s),
        Err(RunError::OutputCount {
            expected: 1,
            found: 0
        })
    );
    assert_eq!(
        m.run(&[&input[..15]], &mut [&mut out], &mut s),
        Err(RunError::InputTooSmall { index: 0, need: 16 })
    );
    assert_eq!(
        m.run(&[&input], &mut [&mut out[..3]], &mut s),
        Err(RunError::OutputTooSmall { index: 0, need: 16 })
    );
    assert_eq!(
        m.run(&[&input], &mut [&mut out], &mut other.scratch()),
        Err(RunError::ForeignScratch)
    );
    assert!(m.run(&[&input], &mut [&mut out], &mut s).is_ok());
}

/// Truncations and random byte changes of every committed model: an error or a model that
/// runs, never a panic.
#[test]
fn mutated_models_never_panic() {
    let files = [
        "aeb_detector.onnx",
        "test/ops.onnx",
        "examples/tiny.onnx",
        "test/unsupported_op.onnx",
    ];
    let mut rng = SplitMix64::new(0x005e_ed0f_0a11);
    let mut loaded = 0;
    for f in files {
        let bytes = loadable_file(f);
        for len in (0..bytes.len()).step_by(97) {
            let _ = Model::load(&bytes[..len]);
        }
        for _ in 0..300 {
            let mut b = bytes.clone();
            for _ in 0..1 + below(&mut rng, 4) {
                let i = below(&mut rng, b.len());
                b[i] = rng.next_u64() as u8;
            }
            if let Ok(m) = Model::load(&b) {
                loaded += 1;
                let ins: Vec<Vec<u8>> = m.inputs().iter().map(|t| vec![7; t.len()]).collect();
                let refs: Vec<&[u8]> = ins.iter().map(|v| v.as_slice()).collect();
                let mut outs: Vec<Vec<u8>> = m.outputs().iter().map(|t| vec![0; t.len()]).collect();
                let mut o: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
                m.run(&refs, &mut o, &mut m.scratch()).unwrap();
            }
        }
    }
    // Most single-byte changes hit weights: the mutated models still load and run.
    assert!(loaded > 100, "{loaded}");
}

#[test]
fn errors_display_what_to_do() {
    let mut n = base();
    n.g().initializer.retain(|t| t.name != "b");
    let text = err(&n).to_string();
    assert!(
        text.contains("`conv`") && text.contains("topological"),
        "{text}"
    );
    let text = OnnxError::Opset { version: 7 }.to_string();
    assert!(text.contains("re-export"), "{text}");
    let e: &dyn std::error::Error = &RunError::ForeignScratch;
    assert!(!e.to_string().is_empty());
}

/// Shapes beyond the SIL's limits are refused before anything is allocated.
#[test]
fn huge_shapes_are_refused() {
    let mut n = Net::new();
    n.input("x", &[1, 1, 1, 1])
        .output("y", &[1, 1, 65536, 65536]);
    n.dq("x", 1.0, 0, "xf");
    n.f32s("roi", &[0], &[])
        .i64s("sizes", &[4], &[1, 1, 65536, 65536]);
    n.node("Resize", "up", &["xf", "roi", "", "sizes"], "u", vec![]);
    n.q("u", 1.0, 0, "y");
    assert!(matches!(err(&n), OnnxError::TooLarge(m) if m.contains("up")));
    // A Reshape whose target overflows.
    let mut n = base();
    n.i64s("shape", &[3], &[i64::MAX, i64::MAX, 2]);
    n.g().node[CONV + 1].input[0] = "c".into();
    n.g().node.insert(
        CONV + 1,
        sil_onnx::proto::NodeProto {
            input: vec!["c".into(), "shape".into()],
            output: vec!["big".into()],
            name: "reshape".into(),
            op_type: "Reshape".into(),
            ..Default::default()
        },
    );
    assert!(matches!(err(&n), OnnxError::Shape { node, .. } if node.name == "reshape"));
}
