//! ONNX networks on the SIL DLA.
//!
//! A DLA network is what TensorRT compiles into a DLA loadable: an ONNX model in
//! explicitly quantised (Q/DQ) form whose graph inputs and outputs are int8 `[1, c, h, w]`
//! tensors (TensorRT's int8 `kDLA_LINEAR` I/O formats):
//!
//! ```text
//! int8 input -> DequantizeLinear -> op(s) in float -> QuantizeLinear -> int8 -> ... -> int8 output
//! ```
//!
//! with int8 weights and int32 biases behind their own DequantizeLinear nodes. This crate
//! reads such a model (protobuf, with message structs of its own for the fields it needs:
//! [`proto`]), validates it completely — every node's operator, attributes, element types
//! and shapes; refusing, with a typed [`OnnxError`] naming the node, anything outside the
//! operator subset the DLA runs — and executes it on the CPU with ONNX's semantics
//! ([`Model::run`]), bit for bit what onnxruntime computes on the committed models (the
//! argument is in [`exact`], the evidence is `loadables/check_onnx.py`).
//!
//! Operators: Conv (2-D; groups, pads, strides, dilations), Relu, MaxPool, AveragePool
//! (floor mode), GlobalAveragePool, GlobalMaxPool, Gemm (alpha = beta = 1), MatMul, Add
//! (broadcasting), Concat, Resize (`nearest`: see the loader for the coordinate and rounding
//! modes), QuantizeLinear / DequantizeLinear (int8, and int32 for biases; per-tensor or
//! per-axis), and the glue of real exports: Identity, Flatten, Reshape, Constant.
//!
//! [`dla`] derives the tensor descriptors a loadable built from the model reports and
//! converts between the DLA's strided buffers and dense tensors; [`stats`] reads the
//! layer-statistics buffers a model may declare for the SIL cuDLA.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../loadables/aeb_detector.onnx"))?;
//! let model = sil_onnx::Model::load(&bytes)?;
//! assert_eq!(model.inputs()[0].dims, [1, 1, 48, 64]);
//! let names: Vec<&str> = model.layers().iter().map(|l| l.name.as_str()).collect();
//! assert_eq!(names, ["conv1", "pool1", "conv2", "map_head", "gap", "presence_head"]);
//! # Ok(()) }
//! ```

mod data;
pub mod dla;
mod error;
pub mod exact;
mod model;
mod ops;
pub mod proto;
pub mod stats;

pub use data::DType;
pub use error::{NodeRef, OnnxError, RunError};
pub use exact::{Rounding, RoundingNote};
pub use model::{
    IoTensor, MAX_IO, MAX_IO_DIM, MAX_IO_NAME, MAX_NODES, MAX_TOTAL_BYTES, Model, Scratch, is_onnx,
};
pub use ops::MAX_RANK;

/// Oldest default-domain operator set read (Resize's current signature).
pub const MIN_OPSET: i64 = 11;
/// Newest default-domain operator set read.
pub const MAX_OPSET: i64 = 23;
/// Newest IR version read.
pub const MAX_IR_VERSION: i64 = 11;

/// The operators the SIL DLA runs (everything else is refused at load).
pub const SUPPORTED_OPS: &[&str] = &[
    "Conv",
    "Relu",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "Gemm",
    "MatMul",
    "Add",
    "Concat",
    "Resize",
    "QuantizeLinear",
    "DequantizeLinear",
    "Identity",
    "Flatten",
    "Reshape",
    "Constant",
];

/// What kind of computation a layer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayerKind {
    /// Conv (with a fused Relu when [`Layer::relu`]).
    Conv,
    /// Relu on its own.
    Relu,
    /// MaxPool.
    MaxPool,
    /// AveragePool.
    AveragePool,
    /// Gemm.
    Gemm,
    /// MatMul.
    MatMul,
    /// Add.
    Add,
    /// Concat.
    Concat,
    /// Resize.
    Resize,
    /// GlobalAveragePool.
    GlobalAveragePool,
    /// GlobalMaxPool.
    GlobalMaxPool,
}

impl LayerKind {
    /// A stable code (1..=11) for binary records.
    pub fn code(self) -> u8 {
        match self {
            Self::Conv => 1,
            Self::Relu => 2,
            Self::MaxPool => 3,
            Self::AveragePool => 4,
            Self::Gemm => 5,
            Self::MatMul => 6,
            Self::Add => 7,
            Self::Concat => 8,
            Self::Resize => 9,
            Self::GlobalAveragePool => 10,
            Self::GlobalMaxPool => 11,
        }
    }

    /// The kind with this code.
    pub fn from_code(c: u8) -> Option<Self> {
        [
            Self::Conv,
            Self::Relu,
            Self::MaxPool,
            Self::AveragePool,
            Self::Gemm,
            Self::MatMul,
            Self::Add,
            Self::Concat,
            Self::Resize,
            Self::GlobalAveragePool,
            Self::GlobalMaxPool,
        ]
        .into_iter()
        .find(|k| k.code() == c)
    }

    /// The ONNX operator type.
    pub fn op_type(self) -> &'static str {
        match self {
            Self::Conv => "Conv",
            Self::Relu => "Relu",
            Self::MaxPool => "MaxPool",
            Self::AveragePool => "AveragePool",
            Self::Gemm => "Gemm",
            Self::MatMul => "MatMul",
            Self::Add => "Add",
            Self::Concat => "Concat",
            Self::Resize => "Resize",
            Self::GlobalAveragePool => "GlobalAveragePool",
            Self::GlobalMaxPool => "GlobalMaxPool",
        }
    }
}

/// One layer of the network: a compute node (Q/DQ and shape glue are not layers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The node's name (`#index` for an unnamed node).
    pub name: String,
    /// What it computes.
    pub kind: LayerKind,
    /// A Relu is fused into it.
    pub relu: bool,
    /// Multiply-accumulates (Conv, Gemm, MatMul), window elements (pools) or output
    /// elements (others), fused Relu included; ≥ 1.
    pub work: u64,
}
