//! The ONNX protobuf messages, only the fields the SIL reads.
//!
//! Field numbers are the public ones of `onnx.proto` (stable across IR versions). Each
//! message implements [`prost::Message`] by hand through the `message!` macro below, with
//! prost's encoding functions: no derive, so no proc-macro (and no `syn`) is built for a
//! runtime that links the SIL cuDLA. Fields not declared here are skipped when decoding; the
//! validator refuses what it needs but does not understand (graph-valued attributes,
//! external data, sparse initializers, functions). Scalars equal to their default are not
//! encoded (proto3 style); decoding takes repeated scalars packed or not.

#![allow(missing_docs)] // One doc line per message; the fields are onnx.proto's.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use prost::{DecodeError, Message};

/// Whether a scalar field holds its default (then it is not encoded).
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// One field's encode, merge or encoded length, by field kind.
macro_rules! field {
    (encode scalar $m:ident, $tag:expr, $v:expr, $buf:expr) => {
        if !is_default($v) {
            encoding::$m::encode($tag, $v, $buf)
        }
    };
    (merge scalar $m:ident, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        encoding::$m::merge($wt, $v, $buf, $ctx)
    };
    (len scalar $m:ident, $tag:expr, $v:expr) => {
        if !is_default($v) {
            encoding::$m::encoded_len($tag, $v)
        } else {
            0
        }
    };
    (encode packed $m:ident, $tag:expr, $v:expr, $buf:expr) => {
        encoding::$m::encode_packed($tag, $v, $buf)
    };
    (merge packed $m:ident, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        encoding::$m::merge_repeated($wt, $v, $buf, $ctx)
    };
    (len packed $m:ident, $tag:expr, $v:expr) => {
        encoding::$m::encoded_len_packed($tag, $v)
    };
    (encode repeated $m:ident, $tag:expr, $v:expr, $buf:expr) => {
        encoding::$m::encode_repeated($tag, $v, $buf)
    };
    (merge repeated $m:ident, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        encoding::$m::merge_repeated($wt, $v, $buf, $ctx)
    };
    (len repeated $m:ident, $tag:expr, $v:expr) => {
        encoding::$m::encoded_len_repeated($tag, $v)
    };
    (encode optional $m:ident, $tag:expr, $v:expr, $buf:expr) => {
        if let Some(x) = $v {
            encoding::$m::encode($tag, x, $buf)
        }
    };
    (merge optional $m:ident, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        encoding::$m::merge($wt, $v.get_or_insert_with(Default::default), $buf, $ctx)
    };
    (len optional $m:ident, $tag:expr, $v:expr) => {
        $v.as_ref()
            .map_or(0, |x| encoding::$m::encoded_len($tag, x))
    };
}

/// A message struct and its `prost::Message` implementation: `name: mode kind = tag`, where
/// mode is `scalar`, `packed` (repeated numbers), `repeated` (strings, bytes, messages) or
/// `optional` (a message or bytes that may be absent), and kind a `prost::encoding` module.
macro_rules! message {
    ($(#[$m:meta])* $name:ident {
        $($(#[$fm:meta])* $field:ident: $ty:ty => $mode:ident $kind:ident = $tag:literal,)*
    }) => {
        $(#[$m])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl Message for $name {
            fn encode_raw(&self, buf: &mut impl BufMut) {
                $(field!(encode $mode $kind, $tag, &self.$field, buf);)*
            }

            fn merge_field(
                &mut self,
                tag: u32,
                wire_type: WireType,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                match tag {
                    $($tag => field!(merge $mode $kind, wire_type, &mut self.$field, buf, ctx),)*
                    _ => encoding::skip_field(wire_type, tag, buf, ctx),
                }
            }

            fn encoded_len(&self) -> usize {
                0 $(+ field!(len $mode $kind, $tag, &self.$field))*
            }

            fn clear(&mut self) {
                *self = Self::default();
            }
        }
    };
}

message! {
    /// `ModelProto`: the file.
    ModelProto {
        ir_version: i64 => scalar int64 = 1,
        opset_import: Vec<OperatorSetIdProto> => repeated message = 8,
        producer_name: String => scalar string = 2,
        producer_version: String => scalar string = 3,
        graph: Option<GraphProto> => optional message = 7,
        metadata_props: Vec<StringStringEntryProto> => repeated message = 14,
        /// Only counted: models with local functions are refused.
        functions: Vec<Vec<u8>> => repeated bytes = 25,
    }
}

message! {
    /// `OperatorSetIdProto`: an operator set the model uses.
    OperatorSetIdProto {
        domain: String => scalar string = 1,
        version: i64 => scalar int64 = 2,
    }
}

message! {
    /// `StringStringEntryProto`: a key/value pair.
    StringStringEntryProto {
        key: String => scalar string = 1,
        value: String => scalar string = 2,
    }
}

message! {
    /// `GraphProto`: nodes, initializers and the graph's inputs and outputs.
    GraphProto {
        node: Vec<NodeProto> => repeated message = 1,
        name: String => scalar string = 2,
        initializer: Vec<TensorProto> => repeated message = 5,
        /// Only counted: sparse initializers are refused.
        sparse_initializer: Vec<Vec<u8>> => repeated bytes = 15,
        input: Vec<ValueInfoProto> => repeated message = 11,
        output: Vec<ValueInfoProto> => repeated message = 12,
        value_info: Vec<ValueInfoProto> => repeated message = 13,
    }
}

message! {
    /// `NodeProto`: one operator call.
    NodeProto {
        input: Vec<String> => repeated string = 1,
        output: Vec<String> => repeated string = 2,
        name: String => scalar string = 3,
        op_type: String => scalar string = 4,
        domain: String => scalar string = 7,
        attribute: Vec<AttributeProto> => repeated message = 5,
    }
}

/// `AttributeProto.AttributeType` values the SIL reads.
pub mod attribute_type {
    pub const FLOAT: i32 = 1;
    pub const INT: i32 = 2;
    pub const STRING: i32 = 3;
    pub const TENSOR: i32 = 4;
    pub const FLOATS: i32 = 6;
    pub const INTS: i32 = 7;
}

message! {
    /// `AttributeProto`: a named attribute of a node.
    AttributeProto {
        name: String => scalar string = 1,
        /// A reference to a function attribute (refused: no functions).
        ref_attr_name: String => scalar string = 21,
        r#type: i32 => scalar int32 = 20,
        f: f32 => scalar float = 2,
        i: i64 => scalar int64 = 3,
        s: Vec<u8> => scalar bytes = 4,
        t: Option<TensorProto> => optional message = 5,
        floats: Vec<f32> => packed float = 7,
        ints: Vec<i64> => packed int64 = 8,
    }
}

message! {
    /// `ValueInfoProto`: a named, typed value.
    ValueInfoProto {
        name: String => scalar string = 1,
        r#type: Option<TypeProto> => optional message = 2,
    }
}

message! {
    /// `TypeProto`, its tensor member only (others are refused as "not a tensor").
    TypeProto {
        tensor_type: Option<TypeProtoTensor> => optional message = 1,
    }
}

message! {
    /// `TypeProto.Tensor`: element type and shape.
    TypeProtoTensor {
        elem_type: i32 => scalar int32 = 1,
        shape: Option<TensorShapeProto> => optional message = 2,
    }
}

message! {
    /// `TensorShapeProto`.
    TensorShapeProto {
        dim: Vec<Dimension> => repeated message = 1,
    }
}

/// The `value` oneof of `TensorShapeProto.Dimension`.
#[derive(Clone, Debug, PartialEq)]
pub enum DimensionValue {
    /// `dim_value` (1): a fixed size.
    DimValue(i64),
    /// `dim_param` (2): a symbolic name.
    DimParam(String),
}

/// `TensorShapeProto.Dimension`: a fixed size or a symbolic name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dimension {
    /// The oneof.
    pub value: Option<DimensionValue>,
}

impl Message for Dimension {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        match &self.value {
            Some(DimensionValue::DimValue(v)) => encoding::int64::encode(1, v, buf),
            Some(DimensionValue::DimParam(p)) => encoding::string::encode(2, p, buf),
            None => {}
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => {
                let mut v = 0;
                encoding::int64::merge(wire_type, &mut v, buf, ctx)?;
                self.value = Some(DimensionValue::DimValue(v));
                Ok(())
            }
            2 => {
                let mut p = String::new();
                encoding::string::merge(wire_type, &mut p, buf, ctx)?;
                self.value = Some(DimensionValue::DimParam(p));
                Ok(())
            }
            _ => encoding::skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        match &self.value {
            Some(DimensionValue::DimValue(v)) => encoding::int64::encoded_len(1, v),
            Some(DimensionValue::DimParam(p)) => encoding::string::encoded_len(2, p),
            None => 0,
        }
    }

    fn clear(&mut self) {
        self.value = None;
    }
}

/// `TensorProto.DataType` values the SIL knows.
pub mod data_type {
    pub const FLOAT: i32 = 1;
    pub const UINT8: i32 = 2;
    pub const INT8: i32 = 3;
    pub const INT32: i32 = 6;
    pub const INT64: i32 = 7;
}

/// `TensorProto.DataLocation::EXTERNAL`.
pub const DATA_LOCATION_EXTERNAL: i32 = 1;

message! {
    /// `TensorProto`: an initializer or a `Constant` value.
    TensorProto {
        dims: Vec<i64> => packed int64 = 1,
        data_type: i32 => scalar int32 = 2,
        float_data: Vec<f32> => packed float = 4,
        int32_data: Vec<i32> => packed int32 = 5,
        int64_data: Vec<i64> => packed int64 = 7,
        name: String => scalar string = 8,
        raw_data: Vec<u8> => scalar bytes = 9,
        data_location: i32 => scalar int32 = 14,
        /// Only counted: a segmented tensor is refused.
        segment: Option<Vec<u8>> => optional bytes = 3,
    }
}
