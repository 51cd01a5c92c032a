//! The error type of the parser and the interpreter.

use core::fmt;

/// Which field of an I/O tensor descriptor is wrong (see [`LoadableError::BadTensor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TensorField {
    /// Empty, not printable ASCII, or bytes after the terminating NUL are not zero.
    Name,
    /// `n` is not 1, or `c`/`h`/`w` differ from the bound slot.
    Shape,
    /// Not `CUDLA_DATA_FORMAT_NCHW`.
    DataFormat,
    /// Not `CUDLA_DATA_TYPE_INT8`.
    DataType,
    /// Not IMAGE, FEATURE or PLANAR.
    Category,
    /// Above `CUDLA_PIXEL_FORMAT_UNKNOWN` (37).
    PixelFormat,
    /// Not `CUDLA_PIXEL_MAPPING_PITCH_LINEAR`.
    PixelMapping,
    /// Element size, pitches or unused strides are inconsistent with the shape.
    Strides,
    /// `size` is not `n * stride[3]`.
    Size,
    /// The slot index is out of range, or two inputs share a slot.
    Slot,
    /// Reserved bytes are not zero.
    Reserved,
}

impl fmt::Display for TensorField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Name => "name",
            Self::Shape => "shape",
            Self::DataFormat => "data format",
            Self::DataType => "data type",
            Self::Category => "data category",
            Self::PixelFormat => "pixel format",
            Self::PixelMapping => "pixel mapping",
            Self::Strides => "strides",
            Self::Size => "size",
            Self::Slot => "slot",
            Self::Reserved => "reserved bytes",
        })
    }
}

/// Everything that can go wrong when parsing or running a loadable.
///
/// Parsing never panics and never reads outside the given bytes; every malformed file maps
/// to one of these. Tensor indices count inputs first, then outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoadableError {
    /// Shorter than the fixed header plus the hash trailer, or than the declared file length.
    Truncated,
    /// The first 8 bytes are not [`crate::MAGIC`].
    BadMagic,
    /// A format version this reader does not implement.
    UnsupportedVersion(u32),
    /// Header length, flags, statistics count or reserved header bytes are wrong.
    BadHeader,
    /// The file is longer than its declared length.
    LengthMismatch,
    /// The SHA-256 trailer does not match the contents.
    HashMismatch,
    /// A section offset or length is not where the format puts it.
    SectionOutOfRange,
    /// A tensor, slot or op count is zero where it must not be, or above its limit.
    CountOutOfRange,
    /// A slot has a zero dimension, a dimension above the limit, or reserved bytes set.
    BadSlot {
        /// The slot index.
        slot: u16,
    },
    /// Size arithmetic overflowed or went above a format limit (slot, scratch or work).
    Overflow,
    /// An I/O tensor descriptor is invalid.
    BadTensor {
        /// Tensor index (inputs first, then outputs).
        index: u16,
        /// What is wrong with it.
        field: TensorField,
    },
    /// Two I/O tensors have the same name.
    DuplicateName {
        /// Index of the second tensor with that name.
        index: u16,
    },
    /// Unknown op kind or flags not allowed for the kind.
    BadOpKind {
        /// Op index.
        op: u16,
    },
    /// Kernel, stride, padding, shift, multiplier or unused fields are invalid.
    BadOpParams {
        /// Op index.
        op: u16,
    },
    /// The op's output slot does not have the shape the op produces from its input slot.
    ShapeMismatch {
        /// Op index.
        op: u16,
    },
    /// Weights or bias are not inside the weights section or have the wrong length.
    WeightsOutOfRange {
        /// Op index.
        op: u16,
    },
    /// An op reads a slot that is not defined yet, writes a slot defined before, names a slot
    /// out of range, or reads and writes the same slot.
    BadSlotRef {
        /// Op index.
        op: u16,
    },
    /// A slot is never defined (neither an input nor written by an op), or an output reads
    /// such a slot.
    UndefinedSlot {
        /// The slot index.
        slot: u16,
    },
    /// A layer-statistics descriptor is invalid: name (empty, not printable, not unique among
    /// the tensors and statistics), op range empty or outside the ops, reserved bytes set.
    BadStatistics {
        /// Statistics descriptor index.
        index: u16,
    },
    /// A layer name is empty, too long, not printable ASCII, holds `,` or `"`, or has bytes
    /// after its NUL.
    BadLayerName {
        /// Op index.
        op: u16,
    },
    /// `run` got a number of input buffers different from the loadable's.
    InputCount,
    /// `run` got a number of output buffers different from the loadable's.
    OutputCount,
    /// An input buffer is smaller than its descriptor's `size`.
    InputTooSmall {
        /// Input index.
        index: u16,
    },
    /// An output buffer is smaller than its descriptor's `size`.
    OutputTooSmall {
        /// Output index.
        index: u16,
    },
    /// The scratch buffer is smaller than [`crate::Loadable::scratch_size`].
    ScratchTooSmall,
}

impl fmt::Display for LoadableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated => f.write_str("loadable is truncated"),
            Self::BadMagic => f.write_str("not a SIL DLA loadable (bad magic)"),
            Self::UnsupportedVersion(v) => write!(f, "unsupported loadable format version {v}"),
            Self::BadHeader => f.write_str("bad loadable header (length, flags or reserved bytes)"),
            Self::LengthMismatch => f.write_str("loadable is longer than its declared length"),
            Self::HashMismatch => f.write_str("loadable SHA-256 does not match its contents"),
            Self::SectionOutOfRange => {
                f.write_str("loadable section offset or length out of range")
            }
            Self::CountOutOfRange => f.write_str("loadable tensor, slot or op count out of range"),
            Self::BadSlot { slot } => write!(f, "slot {slot}: bad dimensions"),
            Self::Overflow => f.write_str("size arithmetic overflow or format limit exceeded"),
            Self::BadTensor { index, field } => write!(f, "tensor {index}: bad {field}"),
            Self::DuplicateName { index } => write!(f, "tensor {index}: duplicate name"),
            Self::BadOpKind { op } => write!(f, "op {op}: unknown kind or bad flags"),
            Self::BadOpParams { op } => write!(f, "op {op}: bad parameters"),
            Self::ShapeMismatch { op } => write!(f, "op {op}: output shape mismatch"),
            Self::WeightsOutOfRange { op } => write!(f, "op {op}: weights or bias out of range"),
            Self::BadSlotRef { op } => write!(f, "op {op}: bad slot reference"),
            Self::UndefinedSlot { slot } => write!(f, "slot {slot}: never defined"),
            Self::BadStatistics { index } => write!(f, "statistics descriptor {index}: invalid"),
            Self::BadLayerName { op } => write!(f, "layer {op}: bad name"),
            Self::InputCount => f.write_str("wrong number of input buffers"),
            Self::OutputCount => f.write_str("wrong number of output buffers"),
            Self::InputTooSmall { index } => write!(f, "input buffer {index} is too small"),
            Self::OutputTooSmall { index } => write!(f, "output buffer {index} is too small"),
            Self::ScratchTooSmall => f.write_str("scratch buffer is too small"),
        }
    }
}

impl core::error::Error for LoadableError {}
