//! Typed errors of loading and running a model.

use std::fmt;

/// A node, as messages name it: its name (or `#index` when the model leaves it empty) and
/// its operator type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRef {
    /// `NodeProto.name`, or `#<index>` for an unnamed node.
    pub name: String,
    /// `NodeProto.op_type`.
    pub op_type: String,
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node `{}` ({})", self.name, self.op_type)
    }
}

/// Why a model cannot be loaded. Every variant names what is wrong (the node, the value,
/// the tensor) and its message says what to change.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnnxError {
    /// The bytes are not a protobuf `ModelProto`.
    Decode(String),
    /// The model has no graph, or an IR version outside what the SIL reads.
    Model(String),
    /// The model imports an unsupported version of the default operator set.
    Opset {
        /// The version it imports.
        version: i64,
    },
    /// A node's operator is not one the SIL DLA runs.
    UnsupportedOp {
        /// The node.
        node: NodeRef,
        /// Its operator domain (empty: the default ONNX domain).
        domain: String,
    },
    /// A node carries an attribute, or an attribute value, the SIL DLA does not run.
    UnsupportedAttribute {
        /// The node.
        node: NodeRef,
        /// The attribute (or input) concerned.
        attribute: String,
        /// What is wrong and what is supported.
        reason: String,
    },
    /// A node has too few or too many inputs or outputs.
    Arity {
        /// The node.
        node: NodeRef,
        /// What it has and what it needs.
        reason: String,
    },
    /// A node reads a value that no earlier node, initializer or graph input defines.
    UnknownValue {
        /// The node.
        node: NodeRef,
        /// The value.
        value: String,
    },
    /// Two definitions of one value name.
    DuplicateValue {
        /// The value.
        value: String,
    },
    /// A value has an element type the operator does not take (or a declared type that
    /// differs from the computed one).
    DataType {
        /// The node (or `graph` for graph inputs and outputs).
        node: NodeRef,
        /// The value.
        value: String,
        /// What it has and what is needed.
        reason: String,
    },
    /// Shapes do not fit (or a declared shape differs from the computed one).
    Shape {
        /// The node.
        node: NodeRef,
        /// What does not fit.
        reason: String,
    },
    /// A graph input or output is not what a DLA network's I/O must be.
    Io {
        /// The tensor.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// An initializer or constant tensor is malformed or unsupported.
    Initializer {
        /// The tensor.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The model is larger than the SIL's limits.
    TooLarge(String),
    /// The layer-statistics metadata (`sil_dla.layer_statistics`) is malformed.
    Statistics(String),
}

impl fmt::Display for OnnxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decode(e) => write!(f, "not an ONNX model (protobuf ModelProto): {e}"),
            Self::Model(m) => write!(f, "ONNX model: {m}"),
            Self::Opset { version } => write!(
                f,
                "the model imports ONNX operator set {version}; the SIL DLA reads opsets \
                 {}..={} (re-export with one of them)",
                crate::MIN_OPSET,
                crate::MAX_OPSET
            ),
            Self::UnsupportedOp { node, domain } => {
                let d = if domain.is_empty() { "ai.onnx" } else { domain };
                write!(
                    f,
                    "{node}: operator {d}::{} is not supported by the SIL DLA (supported: {})",
                    node.op_type,
                    crate::SUPPORTED_OPS.join(", ")
                )
            }
            Self::UnsupportedAttribute {
                node,
                attribute,
                reason,
            } => write!(f, "{node}: `{attribute}`: {reason}"),
            Self::Arity { node, reason } => write!(f, "{node}: {reason}"),
            Self::UnknownValue { node, value } => write!(
                f,
                "{node} reads `{value}`, which no earlier node, initializer or graph input \
                 defines (nodes must be in topological order)"
            ),
            Self::DuplicateValue { value } => {
                write!(f, "value `{value}` is defined more than once")
            }
            Self::DataType {
                node,
                value,
                reason,
            } => write!(f, "{node}: value `{value}`: {reason}"),
            Self::Shape { node, reason } => write!(f, "{node}: {reason}"),
            Self::Io { name, reason } => write!(f, "graph I/O tensor `{name}`: {reason}"),
            Self::Initializer { name, reason } => write!(f, "initializer `{name}`: {reason}"),
            Self::TooLarge(m) => write!(f, "model too large for the SIL DLA: {m}"),
            Self::Statistics(m) => write!(f, "layer statistics metadata: {m}"),
        }
    }
}

impl std::error::Error for OnnxError {}

/// Why [`crate::Model::run`] refused its buffers (nothing is computed then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunError {
    /// The number of input buffers differs from the model's inputs.
    InputCount {
        /// The model's inputs.
        expected: usize,
        /// Buffers given.
        found: usize,
    },
    /// The number of output buffers differs from the model's outputs.
    OutputCount {
        /// The model's outputs.
        expected: usize,
        /// Buffers given.
        found: usize,
    },
    /// An input buffer is shorter than its tensor (bytes).
    InputTooSmall {
        /// Input index.
        index: usize,
        /// Bytes needed.
        need: usize,
    },
    /// An output buffer is shorter than its tensor (bytes).
    OutputTooSmall {
        /// Output index.
        index: usize,
        /// Bytes needed.
        need: usize,
    },
    /// The scratch space was made for another model.
    ForeignScratch,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InputCount { expected, found } => {
                write!(
                    f,
                    "{found} input buffers for a model with {expected} inputs"
                )
            }
            Self::OutputCount { expected, found } => {
                write!(
                    f,
                    "{found} output buffers for a model with {expected} outputs"
                )
            }
            Self::InputTooSmall { index, need } => {
                write!(f, "input {index} is smaller than its {need} bytes")
            }
            Self::OutputTooSmall { index, need } => {
                write!(f, "output {index} is smaller than its {need} bytes")
            }
            Self::ForeignScratch => f.write_str("scratch space of another model"),
        }
    }
}

impl std::error::Error for RunError {}
