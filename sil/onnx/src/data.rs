//! Element types and tensor storage.

/// The element types the SIL reads (`TensorProto.DataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `FLOAT` (1): what Q/DQ networks compute in.
    F32,
    /// `INT8` (3): quantised activations and weights, and the network's I/O.
    I8,
    /// `INT32` (6): quantised biases.
    I32,
    /// `INT64` (7): shapes (`Reshape`, `Resize` sizes).
    I64,
}

impl DType {
    /// From `TensorProto.DataType`; `None` for types the SIL does not read.
    pub fn from_onnx(t: i32) -> Option<Self> {
        use crate::proto::data_type as d;
        match t {
            d::FLOAT => Some(Self::F32),
            d::INT8 => Some(Self::I8),
            d::INT32 => Some(Self::I32),
            d::INT64 => Some(Self::I64),
            _ => None,
        }
    }

    /// The ONNX name.
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "float",
            Self::I8 => "int8",
            Self::I32 => "int32",
            Self::I64 => "int64",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Self::I8 => 1,
            Self::F32 | Self::I32 => 4,
            Self::I64 => 8,
        }
    }
}

/// The name of an ONNX element type code, for messages.
pub(crate) fn onnx_type_name(t: i32) -> String {
    match t {
        1 => "float".into(),
        2 => "uint8".into(),
        3 => "int8".into(),
        4 => "uint16".into(),
        5 => "int16".into(),
        6 => "int32".into(),
        7 => "int64".into(),
        8 => "string".into(),
        9 => "bool".into(),
        10 => "float16".into(),
        11 => "double".into(),
        16 => "bfloat16".into(),
        other => format!("element type {other}"),
    }
}

/// A tensor's elements.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Data {
    F32(Vec<f32>),
    I8(Vec<i8>),
    I32(Vec<i32>),
    I64(Vec<i64>),
}

impl Default for Data {
    fn default() -> Self {
        // An empty Vec does not allocate: taking a slot's data out during a run is free.
        Data::F32(Vec::new())
    }
}

impl Data {
    /// `len` zeros of `t`.
    pub fn zeros(t: DType, len: usize) -> Self {
        match t {
            DType::F32 => Data::F32(vec![0.0; len]),
            DType::I8 => Data::I8(vec![0; len]),
            DType::I32 => Data::I32(vec![0; len]),
            DType::I64 => Data::I64(vec![0; len]),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::I8(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::I64(v) => v.len(),
        }
    }

    pub fn f32s(&self) -> &[f32] {
        match self {
            Data::F32(v) => v,
            _ => &[],
        }
    }

    pub fn i8s(&self) -> &[i8] {
        match self {
            Data::I8(v) => v,
            _ => &[],
        }
    }

    pub fn i32s(&self) -> &[i32] {
        match self {
            Data::I32(v) => v,
            _ => &[],
        }
    }

    pub fn i64s(&self) -> &[i64] {
        match self {
            Data::I64(v) => v,
            _ => &[],
        }
    }

    /// Every element as f64 (exact for all four types' values in use).
    pub fn as_f64(&self) -> Vec<f64> {
        match self {
            Data::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::I8(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::I32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
        }
    }
}
