//! Shared test helpers: the synthetic AEB scene, a small ONNX graph builder (the crate's
//! own protobuf structs), paths.
#![allow(dead_code)]

use std::path::PathBuf;

use prost::Message;
use sil_onnx::proto::*;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `loadables/` in the repository.
pub fn loadables_dir() -> PathBuf {
    repo_root().join("loadables")
}

/// A committed file under `loadables/`.
pub fn loadable_file(rel: &str) -> Vec<u8> {
    std::fs::read(loadables_dir().join(rel)).unwrap()
}

// ------------------------------------------------------------------------ the AEB scene

/// Camera image width.
pub const CAM_W: usize = 128;
/// Camera image height.
pub const CAM_H: usize = 96;
/// Horizon row.
pub const HORIZON: i64 = 24;
/// Principal column.
pub const CENTRE: i64 = 64;

/// `round(a / b)` for positive `a`, `b`, as the README defines it: `(2a + b) / (2b)`.
pub fn round_div(a: i64, b: i64) -> i64 {
    assert!(a >= 0 && b > 0);
    (2 * a + b) / (2 * b)
}

/// The obstacle's rectangle in camera pixels (half-open ranges, before clipping).
#[derive(Clone, Copy, Debug)]
pub struct Obstacle {
    /// Bottom edge row, exclusive: `24 + round(240 / d)`.
    pub yb: i64,
    /// `round(300 / d)`.
    pub height: i64,
    /// `round(360 / d)`.
    pub width: i64,
}

impl Obstacle {
    /// The obstacle at `d_mm` millimetres.
    pub fn at_mm(d_mm: i64) -> Self {
        Self {
            yb: HORIZON + round_div(240_000, d_mm),
            height: round_div(300_000, d_mm),
            width: round_div(360_000, d_mm),
        }
    }

    /// First column: `64 - width / 2`.
    pub fn x0(&self) -> i64 {
        CENTRE - self.width / 2
    }

    /// Top row: `yb - height`.
    pub fn y0(&self) -> i64 {
        self.yb - self.height
    }

    /// Whether camera pixel (x, y) is an obstacle pixel.
    pub fn covers(&self, x: i64, y: i64) -> bool {
        (self.y0()..self.yb).contains(&y) && (self.x0()..self.x0() + self.width).contains(&x)
    }
}

/// Renders the camera frame (u8, 128 x 96) of examples/aeb/README.md.
pub fn render(obstacle: Option<Obstacle>, shadow_rows: i64) -> Vec<u8> {
    let mut img = vec![0u8; CAM_W * CAM_H];
    for y in 0..CAM_H as i64 {
        for x in 0..CAM_W as i64 {
            let v = if y < HORIZON {
                170
            } else {
                60 + (y - HORIZON) / 3
            };
            img[(y as usize) * CAM_W + x as usize] = v as u8;
        }
        if y >= HORIZON {
            let off = (y - HORIZON) * 3 / 2;
            for x in [CENTRE - off, CENTRE + off] {
                let x = x.clamp(0, CAM_W as i64 - 1);
                img[(y as usize) * CAM_W + x as usize] = 140;
            }
        }
    }
    if let Some(o) = obstacle {
        let xs = o.x0().max(0)..(o.x0() + o.width).min(CAM_W as i64);
        for y in o.y0().max(0)..o.yb.min(CAM_H as i64) {
            for x in xs.clone() {
                img[(y as usize) * CAM_W + x as usize] = 230;
            }
        }
        for y in o.yb.max(0)..(o.yb + shadow_rows).min(CAM_H as i64) {
            for x in xs.clone() {
                img[(y as usize) * CAM_W + x as usize] = 20;
            }
        }
    }
    img
}

/// Preprocess: `(sum of the 2x2 block + 2) / 4 - 128`, int8 48 x 64, dense.
pub fn preprocess(cam: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 48 * 64];
    for y in 0..48 {
        for x in 0..64 {
            let s: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .iter()
                .map(|(dx, dy)| u32::from(cam[(2 * y + dy) * CAM_W + 2 * x + dx]))
                .sum();
            out[y * 64 + x] = (((s + 2) / 4) as i32 - 128) as i8 as u8;
        }
    }
    out
}

/// The project's seeded generator (the same sequence on every machine).
pub use sil_common::rng::SplitMix64;

/// Uniform in `0..n` (n > 0).
pub fn below(rng: &mut SplitMix64, n: usize) -> usize {
    rng.in_range(0, n as u64 - 1) as usize
}

// ------------------------------------------------------------------- building ONNX models

/// A float attribute.
pub fn attr_f(name: &str, f: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: attribute_type::FLOAT,
        f,
        ..Default::default()
    }
}

/// An int attribute.
pub fn attr_i(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: attribute_type::INT,
        i,
        ..Default::default()
    }
}

/// An ints attribute.
pub fn attr_is(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: attribute_type::INTS,
        ints: ints.to_vec(),
        ..Default::default()
    }
}

/// A string attribute.
pub fn attr_s(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: attribute_type::STRING,
        s: s.as_bytes().to_vec(),
        ..Default::default()
    }
}

/// A value declaration of `elem_type` and shape.
pub fn value_info(name: &str, elem_type: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            value: Some(DimensionValue::DimValue(d)),
                        })
                        .collect(),
                }),
            }),
        }),
    }
}

/// A model under construction.
#[derive(Clone, Default)]
pub struct Net {
    /// The model (graph inside).
    pub m: ModelProto,
}

impl Net {
    /// An opset-13 model with no nodes.
    pub fn new() -> Self {
        Net {
            m: ModelProto {
                ir_version: 7,
                opset_import: vec![OperatorSetIdProto {
                    domain: String::new(),
                    version: 13,
                }],
                producer_name: "sil-onnx tests".into(),
                graph: Some(GraphProto {
                    name: "test".into(),
                    ..Default::default()
                }),
                ..Default::default()
            },
        }
    }

    /// The graph.
    pub fn g(&mut self) -> &mut GraphProto {
        self.m.graph.as_mut().unwrap()
    }

    /// An int8 graph input.
    pub fn input(&mut self, name: &str, dims: &[i64]) -> &mut Self {
        self.g().input.push(value_info(name, data_type::INT8, dims));
        self
    }

    /// An int8 graph output.
    pub fn output(&mut self, name: &str, dims: &[i64]) -> &mut Self {
        self.g()
            .output
            .push(value_info(name, data_type::INT8, dims));
        self
    }

    /// A float initializer.
    pub fn f32s(&mut self, name: &str, dims: &[i64], v: &[f32]) -> &mut Self {
        self.g().initializer.push(TensorProto {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: data_type::FLOAT,
            float_data: v.to_vec(),
            ..Default::default()
        });
        self
    }

    /// An int8 initializer (raw data).
    pub fn i8s(&mut self, name: &str, dims: &[i64], v: &[i8]) -> &mut Self {
        self.g().initializer.push(TensorProto {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: data_type::INT8,
            raw_data: v.iter().map(|&x| x as u8).collect(),
            ..Default::default()
        });
        self
    }

    /// An int32 initializer.
    pub fn i32s(&mut self, name: &str, dims: &[i64], v: &[i32]) -> &mut Self {
        self.g().initializer.push(TensorProto {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: data_type::INT32,
            int32_data: v.to_vec(),
            ..Default::default()
        });
        self
    }

    /// An int64 initializer.
    pub fn i64s(&mut self, name: &str, dims: &[i64], v: &[i64]) -> &mut Self {
        self.g().initializer.push(TensorProto {
            name: name.into(),
            dims: dims.to_vec(),
            data_type: data_type::INT64,
            int64_data: v.to_vec(),
            ..Default::default()
        });
        self
    }

    /// A node `name` computing `out` from `ins`.
    pub fn node(
        &mut self,
        op: &str,
        name: &str,
        ins: &[&str],
        out: &str,
        attrs: Vec<AttributeProto>,
    ) -> &mut Self {
        self.g().node.push(NodeProto {
            input: ins.iter().map(|s| s.to_string()).collect(),
            output: vec![out.into()],
            name: name.into(),
            op_type: op.into(),
            attribute: attrs,
            ..Default::default()
        });
        self
    }

    /// `out = DequantizeLinear(x, scale)` with an int8 zero point `zp` (scalar constants
    /// named after `out`).
    pub fn dq(&mut self, x: &str, scale: f32, zp: i8, out: &str) -> &mut Self {
        let (s, z) = (format!("{out}/s"), format!("{out}/z"));
        self.f32s(&s, &[], &[scale]).i8s(&z, &[], &[zp]);
        self.node("DequantizeLinear", out, &[x, &s, &z], out, vec![])
    }

    /// `out = QuantizeLinear(x, scale, zp)`.
    pub fn q(&mut self, x: &str, scale: f32, zp: i8, out: &str) -> &mut Self {
        let (s, z) = (format!("{out}/s"), format!("{out}/z"));
        self.f32s(&s, &[], &[scale]).i8s(&z, &[], &[zp]);
        self.node("QuantizeLinear", out, &[x, &s, &z], out, vec![])
    }

    /// The encoded model.
    pub fn bytes(&self) -> Vec<u8> {
        self.m.encode_to_vec()
    }

    /// Loads it.
    pub fn load(&self) -> Result<sil_onnx::Model, sil_onnx::OnnxError> {
        sil_onnx::Model::load(&self.bytes())
    }
}

/// Runs a loaded model on dense int8 inputs; returns the dense outputs.
pub fn run(m: &sil_onnx::Model, inputs: &[&[i8]]) -> Vec<Vec<i8>> {
    let ins: Vec<Vec<u8>> = inputs
        .iter()
        .map(|v| v.iter().map(|&x| x as u8).collect())
        .collect();
    let refs: Vec<&[u8]> = ins.iter().map(|v| v.as_slice()).collect();
    let mut outs: Vec<Vec<u8>> = m.outputs().iter().map(|t| vec![0xEE; t.len()]).collect();
    let mut o: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    let mut scratch = m.scratch();
    m.run(&refs, &mut o, &mut scratch).unwrap();
    outs.into_iter()
        .map(|v| v.into_iter().map(|x| x as i8).collect())
        .collect()
}
