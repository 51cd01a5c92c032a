//! The binary layout: constants, record decoding and the validating, zero-copy parser.
//!
//! `loadables/README.md` in the repository is the specification; the constants and offsets
//! here are the normative values.

use sha2::{Digest, Sha256};

use crate::error::{LoadableError, TensorField};

/// The first 8 bytes of every SIL DLA loadable.
pub const MAGIC: [u8; 8] = *b"SILDLA\0\x01";
/// The format version this crate reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// Length of the fixed header.
pub const HEADER_LEN: usize = 64;
/// Length of one I/O tensor descriptor record.
pub const TENSOR_RECORD_LEN: usize = 152;
/// Length of one slot record.
pub const SLOT_RECORD_LEN: usize = 16;
/// Length of one op record.
pub const OP_RECORD_LEN: usize = 48;
/// Length of the SHA-256 trailer.
pub const HASH_LEN: usize = 32;
/// Length of one layer-statistics descriptor record (header flag [`FLAG_LAYER_STATS`]).
pub const STATS_RECORD_LEN: usize = 88;
/// Length of one layer-name record (header flag [`FLAG_LAYER_STATS`]).
pub const LAYER_NAME_RECORD_LEN: usize = 32;
/// Longest layer name, in bytes (a layer-name record keeps at least one NUL).
pub const LAYER_NAME_MAX_LEN: usize = LAYER_NAME_RECORD_LEN - 1;

/// Header flag: the loadable carries layer statistics (a statistics section after the ops).
pub const FLAG_LAYER_STATS: u32 = 1;
/// Most layer-statistics descriptors a loadable may have.
pub const MAX_STATS: usize = 16;

/// Most input tensors (and, separately, output tensors) a loadable may have.
pub const MAX_IO_TENSORS: usize = 16;
/// Most slots (internal tensors, including the inputs) a loadable may have.
pub const MAX_SLOTS: usize = 256;
/// Most ops a loadable may have.
pub const MAX_OPS: usize = 256;
/// Largest `c`, `h` or `w` of a slot.
pub const MAX_DIM: u32 = 65_535;
/// Largest slot, in bytes (elements).
pub const MAX_SLOT_BYTES: u64 = 1 << 24;
/// Largest scratch size (sum of all slots), in bytes.
pub const MAX_SCRATCH_BYTES: u64 = 1 << 28;
/// Largest total work of a network (multiply-accumulates plus pooled elements).
pub const MAX_WORK: u64 = 1 << 32;

/// Longest tensor name, in bytes (`CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN`).
pub const NAME_MAX_LEN: usize = 80;
/// Number of strides in a descriptor (`CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES`).
pub const NUM_STRIDES: usize = 8;

/// `CUDLA_DATA_FORMAT_NCHW`.
pub const DATA_FORMAT_NCHW: u8 = 1;
/// `CUDLA_DATA_TYPE_INT8`.
pub const DATA_TYPE_INT8: u8 = 4;
/// `CUDLA_DATA_CATEGORY_IMAGE`.
pub const DATA_CATEGORY_IMAGE: u8 = 0;
/// `CUDLA_DATA_CATEGORY_FEATURE`.
pub const DATA_CATEGORY_FEATURE: u8 = 2;
/// `CUDLA_DATA_CATEGORY_PLANAR`.
pub const DATA_CATEGORY_PLANAR: u8 = 3;
/// `CUDLA_PIXEL_FORMAT_FEATURE`.
pub const PIXEL_FORMAT_FEATURE: u8 = 36;
/// `CUDLA_PIXEL_FORMAT_UNKNOWN`, the largest pixel format value.
pub const PIXEL_FORMAT_UNKNOWN: u8 = 37;
/// `CUDLA_PIXEL_MAPPING_PITCH_LINEAR`.
pub const PIXEL_MAPPING_PITCH_LINEAR: u8 = 0;
/// Line pitch alignment of TensorRT's `kDLA_LINEAR` I/O format, in bytes.
pub const DLA_LINEAR_LINE_ALIGN: u32 = 64;

/// Op flag: clamp the result at 0 after requantisation (conv2d, dense).
pub const OP_FLAG_RELU: u8 = 1;
/// Op flag: pool over the whole plane (maxpool, avgpool); kernel, stride and padding are 0.
pub const OP_FLAG_GLOBAL: u8 = 2;

// Header field offsets.
const H_VERSION: usize = 8;
const H_HEADER_LEN: usize = 12;
const H_FILE_LEN: usize = 16;
const H_FLAGS: usize = 20;
const H_NUM_INPUTS: usize = 24;
const H_NUM_OUTPUTS: usize = 26;
const H_NUM_SLOTS: usize = 28;
const H_NUM_OPS: usize = 30;
const H_TENSORS_OFF: usize = 32;
const H_SLOTS_OFF: usize = 36;
const H_OPS_OFF: usize = 40;
const H_WEIGHTS_OFF: usize = 44;
const H_WEIGHTS_LEN: usize = 48;
const H_SCRATCH: usize = 52;
const H_NUM_STATS: usize = 56;
const H_RESERVED: usize = 58;

/// The kind of an op (byte 0 of an op record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum OpKind {
    /// 2-D convolution with int8 weights, i32 bias and requantisation.
    Conv2d = 1,
    /// `max(x, 0)`.
    Relu = 2,
    /// Max pooling (windowed, or global with [`OP_FLAG_GLOBAL`]).
    MaxPool = 3,
    /// Average pooling with a rounding division and an optional gain.
    AvgPool = 4,
    /// Fully connected layer over the flattened input.
    Dense = 5,
}

impl OpKind {
    /// Decodes a kind byte.
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(Self::Conv2d),
            2 => Some(Self::Relu),
            3 => Some(Self::MaxPool),
            4 => Some(Self::AvgPool),
            5 => Some(Self::Dense),
            _ => None,
        }
    }

    /// The name used in descriptions and dumps.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Conv2d => "conv2d",
            Self::Relu => "relu",
            Self::MaxPool => "maxpool",
            Self::AvgPool => "avgpool",
            Self::Dense => "dense",
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Little-endian readers. They return None rather than panic; callers only pass ranges they
// have already bounds-checked, so None maps to a parse error, never to a panic.

fn rd<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    let end = off.checked_add(N)?;
    b.get(off..end)?.try_into().ok()
}

pub(crate) fn rd_u8(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

pub(crate) fn rd_u16(b: &[u8], off: usize) -> Option<u16> {
    rd::<2>(b, off).map(u16::from_le_bytes)
}

pub(crate) fn rd_u32(b: &[u8], off: usize) -> Option<u32> {
    rd::<4>(b, off).map(u32::from_le_bytes)
}

pub(crate) fn rd_i32(b: &[u8], off: usize) -> Option<i32> {
    rd::<4>(b, off).map(i32::from_le_bytes)
}

pub(crate) fn rd_u64(b: &[u8], off: usize) -> Option<u64> {
    rd::<8>(b, off).map(u64::from_le_bytes)
}

fn all_zero(b: &[u8]) -> bool {
    b.iter().all(|&x| x == 0)
}

/// Whether `name` (without its NUL padding) is a valid tensor name: 1 to 80 bytes of
/// printable ASCII (0x20 to 0x7e).
pub fn is_valid_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX_LEN
        && name.iter().all(|&c| (0x20..=0x7e).contains(&c))
}

/// Whether `name` is a valid layer name: 1 to 31 bytes of printable ASCII other than `,` and
/// `"` (layer names go into CSV fields unquoted).
pub fn is_valid_layer_name(name: &[u8]) -> bool {
    !name.is_empty()
        && name.len() <= LAYER_NAME_MAX_LEN
        && name
            .iter()
            .all(|&c| (0x20..=0x7e).contains(&c) && c != b',' && c != b'"')
}

/// The bytes of `field` before its first NUL (all of it when there is none).
fn until_nul(field: &[u8]) -> &[u8] {
    let n = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..n]
}

/// The packed NCHW strides for an int8 tensor with the given line pitch (see the README):
/// `[1, line_pitch, h * line_pitch, c * h * line_pitch, 0, 0, 0, 0]`, or None on overflow.
pub fn strides_for(c: u32, h: u32, line_pitch: u32) -> Option<[u32; NUM_STRIDES]> {
    let plane = h.checked_mul(line_pitch)?;
    let batch = c.checked_mul(plane)?;
    Some([1, line_pitch, plane, batch, 0, 0, 0, 0])
}

// ---------------------------------------------------------------------------------------------
// Views.

/// The name accessors of a descriptor whose `name` field holds the name without NUL padding
/// (1 to 80 bytes of printable ASCII).
macro_rules! name_accessors {
    ($a:lifetime) => {
        /// The name without NUL padding (1 to 80 bytes of printable ASCII).
        pub fn name(&self) -> &$a [u8] {
            self.name
        }

        /// The name as a string (always valid: names are printable ASCII).
        pub fn name_str(&self) -> &$a str {
            core::str::from_utf8(self.name).unwrap_or("")
        }

        /// The name as cuDLA's `char name[81]`: the name followed by NUL bytes.
        pub fn name_c(&self) -> [u8; NAME_MAX_LEN + 1] {
            let mut out = [0u8; NAME_MAX_LEN + 1];
            for (d, s) in out.iter_mut().zip(self.name) {
                *d = *s;
            }
            out
        }
    };
}

/// An I/O tensor descriptor, in the shape of cuDLA's `cudlaModuleTensorDescriptor`.
///
/// Strides (bytes): `stride[0]` = element size (1), `stride[1]` = line pitch (bytes from one
/// `h` to the next, ≥ `w`), `stride[2]` = plane pitch (bytes from one `c` to the next,
/// = `h * stride[1]`), `stride[3]` = batch pitch (= `c * stride[2]`), `stride[4..]` = 0.
/// `size` = `n * stride[3]`. Element `(0, c, h, w)` lives at byte
/// `c * stride[2] + h * stride[1] + w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorDesc<'a> {
    name: &'a [u8],
    /// Buffer size in bytes (including line padding).
    pub size: u64,
    /// Batch (always 1 in format version 1).
    pub n: u64,
    /// Channels.
    pub c: u64,
    /// Height.
    pub h: u64,
    /// Width.
    pub w: u64,
    /// `CUDLA_DATA_FORMAT_*` (always NCHW = 1).
    pub data_format: u8,
    /// `CUDLA_DATA_TYPE_*` (always INT8 = 4).
    pub data_type: u8,
    /// `CUDLA_DATA_CATEGORY_*`.
    pub data_category: u8,
    /// `CUDLA_PIXEL_FORMAT_*`.
    pub pixel_format: u8,
    /// `CUDLA_PIXEL_MAPPING_*` (always PITCH_LINEAR = 0).
    pub pixel_mapping: u8,
    /// Strides in bytes, see the type documentation.
    pub stride: [u32; NUM_STRIDES],
    /// The slot (internal tensor) this descriptor is bound to.
    pub slot: u16,
}

impl<'a> TensorDesc<'a> {
    name_accessors!('a);

    /// Line pitch in bytes (`stride[1]`).
    pub fn line_pitch(&self) -> u32 {
        self.stride[1]
    }

    /// Plane pitch in bytes (`stride[2]`).
    pub fn plane_pitch(&self) -> u32 {
        self.stride[2]
    }

    /// Byte offset of element `(0, c, h, w)` in the buffer.
    pub fn offset_of(&self, c: u64, h: u64, w: u64) -> u64 {
        c * u64::from(self.stride[2]) + h * u64::from(self.stride[1]) + w
    }
}

/// An internal tensor ("slot"): a dense `c × h × w` int8 array in the scratch buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotDesc {
    /// Channels.
    pub c: u32,
    /// Height.
    pub h: u32,
    /// Width.
    pub w: u32,
    /// Offset of the slot in the scratch buffer (slots are laid out in index order).
    pub offset: usize,
}

impl SlotDesc {
    /// Number of elements (= bytes).
    pub fn len(&self) -> usize {
        // Validated at parse time: c*h*w <= MAX_SLOT_BYTES.
        (self.c as usize) * (self.h as usize) * (self.w as usize)
    }

    /// Always false for a validated slot (every dimension is at least 1).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A decoded op record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op<'a> {
    /// What the op does.
    pub kind: OpKind,
    /// [`OP_FLAG_RELU`] and/or [`OP_FLAG_GLOBAL`].
    pub flags: u8,
    /// Slot read.
    pub input: u16,
    /// Slot written.
    pub output: u16,
    /// Kernel `[h, w]`.
    pub kernel: [u8; 2],
    /// Stride `[h, w]`.
    pub stride: [u8; 2],
    /// Padding `[top, left, bottom, right]`.
    pub pad: [u8; 4],
    /// Requantisation right shift (rounding half up).
    pub shift: u8,
    /// Requantisation multiplier (conv2d, dense) or average-pool gain.
    pub multiplier: i32,
    /// conv2d: input channels; dense: input features; otherwise 0.
    pub in_channels: u32,
    /// conv2d: output channels; dense: output features; otherwise 0.
    pub out_channels: u32,
    /// Offset of the weights in the weights section.
    pub weights_offset: u32,
    /// int8 weights: conv2d `[out][in][kh][kw]`, dense `[out][in]`.
    pub weights: &'a [u8],
    /// Offset of the bias in the weights section.
    pub bias_offset: u32,
    /// Little-endian i32 bias, one per output channel/feature.
    pub bias: &'a [u8],
}

impl Op<'_> {
    /// Whether [`OP_FLAG_RELU`] is set.
    pub fn relu(&self) -> bool {
        self.flags & OP_FLAG_RELU != 0
    }

    /// Whether [`OP_FLAG_GLOBAL`] is set.
    pub fn global(&self) -> bool {
        self.flags & OP_FLAG_GLOBAL != 0
    }

    /// Bias of output channel `o` (0 when out of range).
    pub fn bias_at(&self, o: usize) -> i32 {
        o.checked_mul(4)
            .and_then(|off| rd_i32(self.bias, off))
            .unwrap_or(0)
    }
}

/// A validated, zero-copy view of a SIL DLA loadable.
#[derive(Clone, Copy, Debug)]
pub struct Loadable<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) num_inputs: usize,
    pub(crate) num_outputs: usize,
    pub(crate) num_slots: usize,
    pub(crate) num_ops: usize,
    pub(crate) tensors: &'a [u8],
    pub(crate) slots: &'a [u8],
    pub(crate) ops: &'a [u8],
    pub(crate) weights: &'a [u8],
    pub(crate) num_stats: usize,
    pub(crate) stats: &'a [u8],
    pub(crate) layer_names: &'a [u8],
    pub(crate) scratch_size: usize,
    pub(crate) work: u64,
}

fn section(bytes: &[u8], off: usize, len: usize) -> Result<&[u8], LoadableError> {
    let end = off
        .checked_add(len)
        .ok_or(LoadableError::SectionOutOfRange)?;
    bytes.get(off..end).ok_or(LoadableError::SectionOutOfRange)
}

fn u32_usize(v: u32) -> usize {
    // u32 always fits usize on the 32- and 64-bit targets this crate supports.
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Output size of a windowed op along one axis, or None when the window does not fit.
pub(crate) fn window_out(input: u32, k: u8, s: u8, pad_lo: u8, pad_hi: u8) -> Option<u32> {
    let padded = input
        .checked_add(u32::from(pad_lo))?
        .checked_add(u32::from(pad_hi))?;
    let span = padded.checked_sub(u32::from(k))?;
    Some(span / u32::from(s) + 1)
}

impl<'a> Loadable<'a> {
    /// Parses and fully validates a loadable. Borrows `bytes`; allocates nothing.
    ///
    /// Checks, in order: length, magic, version, header, declared length, SHA-256, section
    /// layout, counts, slots, I/O descriptors, ops. After a successful parse, [`Self::run`]
    /// can only fail on the caller's buffers.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, LoadableError> {
        use LoadableError as E;
        if bytes.len() < HEADER_LEN + HASH_LEN {
            return Err(E::Truncated);
        }
        if bytes.get(..8) != Some(&MAGIC[..]) {
            return Err(E::BadMagic);
        }
        let h32 = |off| rd_u32(bytes, off).ok_or(E::Truncated);
        let h16 = |off| rd_u16(bytes, off).map(usize::from).ok_or(E::Truncated);
        let version = h32(H_VERSION)?;
        if version != FORMAT_VERSION {
            return Err(E::UnsupportedVersion(version));
        }
        let flags = h32(H_FLAGS)?;
        let num_stats = h16(H_NUM_STATS)?;
        let stats_ok = if flags & FLAG_LAYER_STATS != 0 {
            (1..=MAX_STATS).contains(&num_stats)
        } else {
            num_stats == 0
        };
        if u32_usize(h32(H_HEADER_LEN)?) != HEADER_LEN
            || flags & !FLAG_LAYER_STATS != 0
            || !stats_ok
            || !all_zero(bytes.get(H_RESERVED..HEADER_LEN).ok_or(E::Truncated)?)
        {
            return Err(E::BadHeader);
        }
        let file_len = u32_usize(h32(H_FILE_LEN)?);
        if file_len > bytes.len() {
            return Err(E::Truncated);
        }
        if file_len < bytes.len() {
            return Err(E::LengthMismatch);
        }
        // file_len == bytes.len() >= HEADER_LEN + HASH_LEN here.
        let body_len = file_len - HASH_LEN;
        let (body, trailer) = bytes.split_at(body_len);
        if sha256(body) != trailer {
            return Err(E::HashMismatch);
        }

        let num_inputs = h16(H_NUM_INPUTS)?;
        let num_outputs = h16(H_NUM_OUTPUTS)?;
        let num_slots = h16(H_NUM_SLOTS)?;
        let num_ops = h16(H_NUM_OPS)?;
        if !(1..=MAX_IO_TENSORS).contains(&num_inputs)
            || !(1..=MAX_IO_TENSORS).contains(&num_outputs)
            || !(1..=MAX_SLOTS).contains(&num_slots)
            || num_ops > MAX_OPS
        {
            return Err(E::CountOutOfRange);
        }

        // Canonical layout: header, tensors, slots, ops, [statistics], weights, hash; no gaps.
        let tensors_off = u32_usize(h32(H_TENSORS_OFF)?);
        let slots_off = u32_usize(h32(H_SLOTS_OFF)?);
        let ops_off = u32_usize(h32(H_OPS_OFF)?);
        let weights_off = u32_usize(h32(H_WEIGHTS_OFF)?);
        let weights_len = u32_usize(h32(H_WEIGHTS_LEN)?);
        let tensors_len = (num_inputs + num_outputs) * TENSOR_RECORD_LEN;
        let slots_len = num_slots * SLOT_RECORD_LEN;
        let ops_len = num_ops * OP_RECORD_LEN;
        let stats_off = ops_off.checked_add(ops_len);
        let stats_len = if num_stats == 0 {
            0
        } else {
            num_stats * STATS_RECORD_LEN + num_ops * LAYER_NAME_RECORD_LEN
        };
        if tensors_off != HEADER_LEN
            || Some(slots_off) != tensors_off.checked_add(tensors_len)
            || Some(ops_off) != slots_off.checked_add(slots_len)
            || Some(weights_off) != stats_off.and_then(|o| o.checked_add(stats_len))
            || weights_off.checked_add(weights_len) != Some(body_len)
        {
            return Err(E::SectionOutOfRange);
        }
        let tensors = section(body, tensors_off, tensors_len)?;
        let slots = section(body, slots_off, slots_len)?;
        let ops = section(body, ops_off, ops_len)?;
        let stats_all = section(body, ops_off + ops_len, stats_len)?;
        let (stats, layer_names) = stats_all.split_at(num_stats * STATS_RECORD_LEN);
        let weights = section(body, weights_off, weights_len)?;

        let mut me = Self {
            bytes,
            num_inputs,
            num_outputs,
            num_slots,
            num_ops,
            tensors,
            slots,
            ops,
            weights,
            num_stats,
            stats,
            layer_names,
            scratch_size: 0,
            work: 0,
        };
        me.scratch_size = me.validate_slots()?;
        if u32_usize(h32(H_SCRATCH)?) != me.scratch_size {
            return Err(E::BadHeader);
        }
        me.validate_tensors()?;
        me.work = me.validate_ops()?;
        me.validate_stats()?;
        Ok(me)
    }

    /// Statistics descriptors: valid, unique names (also against the I/O tensors), op ranges
    /// inside the ops, reserved bytes 0; layer names valid.
    fn validate_stats(&self) -> Result<(), LoadableError> {
        if self.num_stats > 0 && self.num_ops == 0 {
            return Err(LoadableError::CountOutOfRange);
        }
        for i in 0..self.num_stats {
            let index = u16::try_from(i).unwrap_or(u16::MAX);
            let bad = LoadableError::BadStatistics { index };
            let rec = self.stats_record(i).ok_or(bad)?;
            let name_field = rec.get(..NAME_MAX_LEN).ok_or(bad)?;
            let name = until_nul(name_field);
            if !is_valid_name(name) || !all_zero(&name_field[name.len()..]) {
                return Err(bad);
            }
            let total = self.num_inputs + self.num_outputs;
            let clash = (0..total).any(|t| {
                self.tensor_record(t).and_then(|r| r.get(..NAME_MAX_LEN)) == Some(name_field)
            }) || (0..i).any(|j| {
                self.stats_record(j).and_then(|r| r.get(..NAME_MAX_LEN)) == Some(name_field)
            });
            if clash {
                return Err(bad);
            }
            let first = usize::from(rd_u16(rec, 80).ok_or(bad)?);
            let count = usize::from(rd_u16(rec, 82).ok_or(bad)?);
            if count == 0 || first + count > self.num_ops || rd_u32(rec, 84) != Some(0) {
                return Err(bad);
            }
        }
        for op in 0..self.layer_names.len() / LAYER_NAME_RECORD_LEN {
            let bad = LoadableError::BadLayerName {
                op: u16::try_from(op).unwrap_or(u16::MAX),
            };
            let off = op * LAYER_NAME_RECORD_LEN;
            let field = self
                .layer_names
                .get(off..off + LAYER_NAME_RECORD_LEN)
                .ok_or(bad)?;
            let name = until_nul(field);
            if !is_valid_layer_name(name) || !all_zero(&field[name.len()..]) {
                return Err(bad);
            }
        }
        Ok(())
    }

    fn stats_record(&self, i: usize) -> Option<&'a [u8]> {
        if i >= self.num_stats {
            return None;
        }
        let off = i.checked_mul(STATS_RECORD_LEN)?;
        self.stats.get(off..off.checked_add(STATS_RECORD_LEN)?)
    }

    fn validate_slots(&self) -> Result<usize, LoadableError> {
        let mut total: u64 = 0;
        for i in 0..self.num_slots {
            let rec = self
                .slot_record(i)
                .ok_or(LoadableError::SectionOutOfRange)?;
            let slot = u16::try_from(i).unwrap_or(u16::MAX);
            let bad = LoadableError::BadSlot { slot };
            let (c, h, w) = (
                rd_u32(rec, 0).ok_or(bad)?,
                rd_u32(rec, 4).ok_or(bad)?,
                rd_u32(rec, 8).ok_or(bad)?,
            );
            if rd_u32(rec, 12) != Some(0) {
                return Err(bad);
            }
            if [c, h, w].iter().any(|&d| d == 0 || d > MAX_DIM) {
                return Err(bad);
            }
            let elems = u64::from(c)
                .checked_mul(u64::from(h))
                .and_then(|x| x.checked_mul(u64::from(w)))
                .ok_or(LoadableError::Overflow)?;
            if elems > MAX_SLOT_BYTES {
                return Err(LoadableError::Overflow);
            }
            total = total.checked_add(elems).ok_or(LoadableError::Overflow)?;
        }
        if total > MAX_SCRATCH_BYTES {
            return Err(LoadableError::Overflow);
        }
        usize::try_from(total).map_err(|_| LoadableError::Overflow)
    }

    fn validate_tensors(&self) -> Result<(), LoadableError> {
        let total = self.num_inputs + self.num_outputs;
        let mut input_slots = [false; MAX_SLOTS];
        for i in 0..total {
            let index = u16::try_from(i).unwrap_or(u16::MAX);
            let bad = |field| LoadableError::BadTensor { index, field };
            let rec = self
                .tensor_record(i)
                .ok_or(LoadableError::SectionOutOfRange)?;
            let name_field = rec.get(..NAME_MAX_LEN).ok_or(bad(TensorField::Name))?;
            let name_len = name_field
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(NAME_MAX_LEN);
            let (name, pad) = name_field.split_at(name_len);
            if !is_valid_name(name) || !all_zero(pad) {
                return Err(bad(TensorField::Name));
            }
            for j in 0..i {
                if self.tensor_record(j).and_then(|r| r.get(..NAME_MAX_LEN)) == Some(name_field) {
                    return Err(LoadableError::DuplicateName { index });
                }
            }
            let d = self.desc_at(i).ok_or(bad(TensorField::Reserved))?;
            if !all_zero(rec.get(109..112).unwrap_or(&[1]))
                || !all_zero(rec.get(146..152).unwrap_or(&[1]))
            {
                return Err(bad(TensorField::Reserved));
            }
            let slot_index = usize::from(d.slot);
            let slot = self.slot(slot_index).ok_or(bad(TensorField::Slot))?;
            if i < self.num_inputs {
                let seen = input_slots
                    .get_mut(slot_index)
                    .ok_or(bad(TensorField::Slot))?;
                if *seen {
                    return Err(bad(TensorField::Slot));
                }
                *seen = true;
            }
            if d.n != 1
                || d.c != u64::from(slot.c)
                || d.h != u64::from(slot.h)
                || d.w != u64::from(slot.w)
            {
                return Err(bad(TensorField::Shape));
            }
            if d.data_format != DATA_FORMAT_NCHW {
                return Err(bad(TensorField::DataFormat));
            }
            if d.data_type != DATA_TYPE_INT8 {
                return Err(bad(TensorField::DataType));
            }
            if ![
                DATA_CATEGORY_IMAGE,
                DATA_CATEGORY_FEATURE,
                DATA_CATEGORY_PLANAR,
            ]
            .contains(&d.data_category)
            {
                return Err(bad(TensorField::Category));
            }
            if d.pixel_format > PIXEL_FORMAT_UNKNOWN {
                return Err(bad(TensorField::PixelFormat));
            }
            if d.pixel_mapping != PIXEL_MAPPING_PITCH_LINEAR {
                return Err(bad(TensorField::PixelMapping));
            }
            let s = d.stride;
            let plane = u64::from(slot.h).checked_mul(u64::from(s[1]));
            let batch = plane.and_then(|p| u64::from(slot.c).checked_mul(p));
            if s[0] != 1
                || u64::from(s[1]) < u64::from(slot.w)
                || Some(u64::from(s[2])) != plane
                || Some(u64::from(s[3])) != batch
                || s[4..].iter().any(|&x| x != 0)
            {
                return Err(bad(TensorField::Strides));
            }
            if d.size != u64::from(s[3]) {
                return Err(bad(TensorField::Size));
            }
        }
        Ok(())
    }

    fn validate_ops(&self) -> Result<u64, LoadableError> {
        use LoadableError as E;
        let mut defined = [false; MAX_SLOTS];
        for i in 0..self.num_inputs {
            let d = self.input(i).ok_or(E::SectionOutOfRange)?;
            if let Some(x) = defined.get_mut(usize::from(d.slot)) {
                *x = true;
            }
        }
        let mut work: u64 = 0;
        for i in 0..self.num_ops {
            let op_index = u16::try_from(i).unwrap_or(u16::MAX);
            let rec = self.op_record(i).ok_or(E::SectionOutOfRange)?;
            let op = self.decode_op(rec, op_index)?;
            let (input, output) = (usize::from(op.input), usize::from(op.output));
            let slot_ref = E::BadSlotRef { op: op_index };
            let src = self.slot(input).ok_or(slot_ref)?;
            let dst = self.slot(output).ok_or(slot_ref)?;
            if input == output
                || !defined.get(input).copied().unwrap_or(false)
                || defined.get(output).copied().unwrap_or(true)
            {
                return Err(slot_ref);
            }
            let op_work = check_op(&op, &src, &dst, op_index)?;
            work = work.checked_add(op_work).ok_or(E::Overflow)?;
            if let Some(x) = defined.get_mut(output) {
                *x = true;
            }
        }
        if work > MAX_WORK {
            return Err(E::Overflow);
        }
        for (s, &def) in defined.iter().enumerate().take(self.num_slots) {
            if !def {
                return Err(E::UndefinedSlot {
                    slot: u16::try_from(s).unwrap_or(u16::MAX),
                });
            }
        }
        Ok(work)
    }

    /// Decodes an op record, checking kind, flags and weight ranges (not shapes).
    fn decode_op(&self, rec: &'a [u8], op: u16) -> Result<Op<'a>, LoadableError> {
        use LoadableError as E;
        let bad = E::SectionOutOfRange;
        let kind = OpKind::from_u8(rd_u8(rec, 0).ok_or(bad)?).ok_or(E::BadOpKind { op })?;
        let flags = rd_u8(rec, 1).ok_or(bad)?;
        let allowed = match kind {
            OpKind::Conv2d | OpKind::Dense => OP_FLAG_RELU,
            OpKind::MaxPool | OpKind::AvgPool => OP_FLAG_GLOBAL,
            OpKind::Relu => 0,
        };
        if flags & !allowed != 0 {
            return Err(E::BadOpKind { op });
        }
        let b = |off| rd_u8(rec, off).ok_or(bad);
        let weights_offset = rd_u32(rec, 28).ok_or(bad)?;
        let weights_len = rd_u32(rec, 32).ok_or(bad)?;
        let bias_offset = rd_u32(rec, 36).ok_or(bad)?;
        let bias_len = rd_u32(rec, 40).ok_or(bad)?;
        if rd_u8(rec, 15) != Some(0) || rd_u32(rec, 44) != Some(0) {
            return Err(E::BadOpParams { op });
        }
        let wr = E::WeightsOutOfRange { op };
        let weights = section(
            self.weights,
            u32_usize(weights_offset),
            u32_usize(weights_len),
        )
        .map_err(|_| wr)?;
        let bias =
            section(self.weights, u32_usize(bias_offset), u32_usize(bias_len)).map_err(|_| wr)?;
        Ok(Op {
            kind,
            flags,
            input: rd_u16(rec, 2).ok_or(bad)?,
            output: rd_u16(rec, 4).ok_or(bad)?,
            kernel: [b(6)?, b(7)?],
            stride: [b(8)?, b(9)?],
            pad: [b(10)?, b(11)?, b(12)?, b(13)?],
            shift: b(14)?,
            multiplier: rd_i32(rec, 16).ok_or(bad)?,
            in_channels: rd_u32(rec, 20).ok_or(bad)?,
            out_channels: rd_u32(rec, 24).ok_or(bad)?,
            weights_offset,
            weights,
            bias_offset,
            bias,
        })
    }

    fn tensor_record(&self, i: usize) -> Option<&'a [u8]> {
        let off = i.checked_mul(TENSOR_RECORD_LEN)?;
        self.tensors.get(off..off.checked_add(TENSOR_RECORD_LEN)?)
    }

    fn slot_record(&self, i: usize) -> Option<&'a [u8]> {
        let off = i.checked_mul(SLOT_RECORD_LEN)?;
        self.slots.get(off..off.checked_add(SLOT_RECORD_LEN)?)
    }

    fn op_record(&self, i: usize) -> Option<&'a [u8]> {
        if i >= self.num_ops {
            return None;
        }
        let off = i.checked_mul(OP_RECORD_LEN)?;
        self.ops.get(off..off.checked_add(OP_RECORD_LEN)?)
    }

    fn desc_at(&self, i: usize) -> Option<TensorDesc<'a>> {
        let rec = self.tensor_record(i)?;
        let name_field = rec.get(..NAME_MAX_LEN)?;
        let name_len = name_field
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(NAME_MAX_LEN);
        let mut stride = [0u32; NUM_STRIDES];
        for (k, s) in stride.iter_mut().enumerate() {
            *s = rd_u32(rec, 112 + 4 * k)?;
        }
        Some(TensorDesc {
            name: name_field.get(..name_len)?,
            size: rd_u64(rec, 80)?,
            n: u64::from(rd_u32(rec, 88)?),
            c: u64::from(rd_u32(rec, 92)?),
            h: u64::from(rd_u32(rec, 96)?),
            w: u64::from(rd_u32(rec, 100)?),
            data_format: rd_u8(rec, 104)?,
            data_type: rd_u8(rec, 105)?,
            data_category: rd_u8(rec, 106)?,
            pixel_format: rd_u8(rec, 107)?,
            pixel_mapping: rd_u8(rec, 108)?,
            stride,
            slot: rd_u16(rec, 144)?,
        })
    }

    /// The whole loadable, as given to [`Self::parse`].
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The format version (always [`FORMAT_VERSION`]).
    pub fn format_version(&self) -> u32 {
        FORMAT_VERSION
    }

    /// The SHA-256 trailer (verified by [`Self::parse`]).
    pub fn hash(&self) -> &'a [u8] {
        let n = self.bytes.len();
        self.bytes.get(n - HASH_LEN..).unwrap_or(&[])
    }

    /// Number of input tensors (`CUDLA_NUM_INPUT_TENSORS`).
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of output tensors (`CUDLA_NUM_OUTPUT_TENSORS`).
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// Input descriptor `i` (`CUDLA_INPUT_TENSOR_DESCRIPTORS[i]`).
    pub fn input(&self, i: usize) -> Option<TensorDesc<'a>> {
        if i < self.num_inputs {
            self.desc_at(i)
        } else {
            None
        }
    }

    /// Output descriptor `i` (`CUDLA_OUTPUT_TENSOR_DESCRIPTORS[i]`).
    pub fn output(&self, i: usize) -> Option<TensorDesc<'a>> {
        if i < self.num_outputs {
            self.desc_at(self.num_inputs + i)
        } else {
            None
        }
    }

    /// All input descriptors, in order.
    pub fn inputs(&self) -> impl Iterator<Item = TensorDesc<'a>> + 'a {
        let me = *self;
        (0..self.num_inputs).filter_map(move |i| me.input(i))
    }

    /// All output descriptors, in order.
    pub fn outputs(&self) -> impl Iterator<Item = TensorDesc<'a>> + 'a {
        let me = *self;
        (0..self.num_outputs).filter_map(move |i| me.output(i))
    }

    /// Number of slots (internal tensors, including inputs).
    pub fn num_slots(&self) -> usize {
        self.num_slots
    }

    /// Slot `i`, with its offset in the scratch buffer.
    pub fn slot(&self, i: usize) -> Option<SlotDesc> {
        if i >= self.num_slots {
            return None;
        }
        let mut offset = 0usize;
        for j in 0..=i {
            let rec = self.slot_record(j)?;
            let (c, h, w) = (rd_u32(rec, 0)?, rd_u32(rec, 4)?, rd_u32(rec, 8)?);
            let len = (c as usize)
                .checked_mul(h as usize)?
                .checked_mul(w as usize)?;
            if j == i {
                return Some(SlotDesc { c, h, w, offset });
            }
            offset = offset.checked_add(len)?;
        }
        None
    }

    /// Number of ops.
    pub fn num_ops(&self) -> usize {
        self.num_ops
    }

    /// Op `i`, decoded.
    pub fn op(&self, i: usize) -> Option<Op<'a>> {
        let rec = self.op_record(i)?;
        self.decode_op(rec, u16::try_from(i).ok()?).ok()
    }

    /// The weights section.
    pub fn weights(&self) -> &'a [u8] {
        self.weights
    }

    /// Bytes of scratch memory [`Self::run`] needs (the sum of all slot sizes).
    pub fn scratch_size(&self) -> usize {
        self.scratch_size
    }

    /// Total work of one run: multiply-accumulates plus pooled and copied elements.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Work of op `i` (its share of [`Self::work`]), or None when out of range.
    pub fn op_work(&self, i: usize) -> Option<u64> {
        let op = self.op(i)?;
        let src = self.slot(usize::from(op.input))?;
        let dst = self.slot(usize::from(op.output))?;
        check_op(&op, &src, &dst, u16::try_from(i).ok()?).ok()
    }

    /// Whether the loadable carries layer statistics ([`FLAG_LAYER_STATS`]).
    pub fn has_layer_stats(&self) -> bool {
        self.num_stats > 0
    }

    /// Number of layer-statistics descriptors (`CUDLA_NUM_OUTPUT_TASK_STATISTICS`).
    pub fn num_stats(&self) -> usize {
        self.num_stats
    }

    /// Layer-statistics descriptor `i`.
    pub fn stat(&self, i: usize) -> Option<StatsDesc<'a>> {
        let rec = self.stats_record(i)?;
        Some(StatsDesc {
            index: u16::try_from(i).ok()?,
            name: until_nul(rec.get(..NAME_MAX_LEN)?),
            first_op: rd_u16(rec, 80)?,
            num_ops: rd_u16(rec, 82)?,
        })
    }

    /// All layer-statistics descriptors, in order.
    pub fn stats(&self) -> impl Iterator<Item = StatsDesc<'a>> + 'a {
        let me = *self;
        (0..self.num_stats).filter_map(move |i| me.stat(i))
    }

    /// The name of layer (op) `op`; only loadables with layer statistics carry layer names.
    pub fn layer_name(&self, op: usize) -> Option<&'a str> {
        let off = op.checked_mul(LAYER_NAME_RECORD_LEN)?;
        let field = self
            .layer_names
            .get(off..off.checked_add(LAYER_NAME_RECORD_LEN)?)?;
        core::str::from_utf8(until_nul(field)).ok()
    }
}

/// A layer-statistics descriptor: a statistics buffer that receives one raw record per layer
/// (op) of the range `first_op .. first_op + num_ops` after each task
/// ([`crate::stats`] has the raw layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsDesc<'a> {
    /// Index among the loadable's statistics descriptors.
    pub index: u16,
    name: &'a [u8],
    /// First op (layer) covered.
    pub first_op: u16,
    /// Number of ops (layers) covered (at least 1).
    pub num_ops: u16,
}

impl<'a> StatsDesc<'a> {
    name_accessors!('a);

    /// Bytes of the raw statistics buffer: [`crate::stats::RAW_HEADER_LEN`] +
    /// [`crate::stats::RAW_RECORD_LEN`] per layer.
    pub fn size(&self) -> u64 {
        (crate::stats::RAW_HEADER_LEN + crate::stats::RAW_RECORD_LEN * usize::from(self.num_ops))
            as u64
    }
}

/// Validates an op's parameters against its input and output slots; returns its work.
fn check_op(op: &Op<'_>, src: &SlotDesc, dst: &SlotDesc, index: u16) -> Result<u64, LoadableError> {
    use LoadableError as E;
    let params = E::BadOpParams { op: index };
    let shape = E::ShapeMismatch { op: index };
    let wr = E::WeightsOutOfRange { op: index };
    let geometry_zero = op.kernel == [0; 2] && op.stride == [0; 2] && op.pad == [0; 4];
    let no_weights = op.weights_offset == 0
        && op.weights.is_empty()
        && op.bias_offset == 0
        && op.bias.is_empty();
    let src_len = src.len() as u64;
    let dst_len = dst.len() as u64;
    let windowed = |op: &Op<'_>| -> Result<(u32, u32), LoadableError> {
        let [kh, kw] = op.kernel;
        let [sh, sw] = op.stride;
        let [pt, pl, pb, pr] = op.pad;
        if kh == 0 || kw == 0 || sh == 0 || sw == 0 || pt >= kh || pb >= kh || pl >= kw || pr >= kw
        {
            return Err(params);
        }
        let oh = window_out(src.h, kh, sh, pt, pb).ok_or(shape)?;
        let ow = window_out(src.w, kw, sw, pl, pr).ok_or(shape)?;
        Ok((oh, ow))
    };
    let requant_ok = op.shift <= 31 && op.multiplier >= 1;
    match op.kind {
        OpKind::Conv2d => {
            if !requant_ok {
                return Err(params);
            }
            let (oh, ow) = windowed(op)?;
            if op.in_channels != src.c || op.out_channels != dst.c || (oh, ow) != (dst.h, dst.w) {
                return Err(shape);
            }
            let taps = u64::from(src.c) * u64::from(op.kernel[0]) * u64::from(op.kernel[1]);
            let wlen = u64::from(dst.c).checked_mul(taps).ok_or(E::Overflow)?;
            if op.weights.len() as u64 != wlen || op.bias.len() as u64 != 4 * u64::from(dst.c) {
                return Err(wr);
            }
            dst_len.checked_mul(taps).ok_or(E::Overflow)
        }
        OpKind::Dense => {
            if !requant_ok || !geometry_zero {
                return Err(params);
            }
            if u64::from(op.in_channels) != src_len
                || op.out_channels != dst.c
                || dst.h != 1
                || dst.w != 1
            {
                return Err(shape);
            }
            let wlen = dst_len.checked_mul(src_len).ok_or(E::Overflow)?;
            if op.weights.len() as u64 != wlen || op.bias.len() as u64 != 4 * dst_len {
                return Err(wr);
            }
            Ok(wlen)
        }
        OpKind::Relu => {
            if !geometry_zero
                || op.shift != 0
                || op.multiplier != 0
                || op.in_channels != 0
                || op.out_channels != 0
            {
                return Err(params);
            }
            if !no_weights {
                return Err(wr);
            }
            if (src.c, src.h, src.w) != (dst.c, dst.h, dst.w) {
                return Err(shape);
            }
            Ok(dst_len)
        }
        OpKind::MaxPool | OpKind::AvgPool => {
            let requant_params_ok = match op.kind {
                OpKind::AvgPool => requant_ok,
                _ => op.shift == 0 && op.multiplier == 0,
            };
            if !requant_params_ok || op.in_channels != 0 || op.out_channels != 0 {
                return Err(params);
            }
            if !no_weights {
                return Err(wr);
            }
            let (oh, ow) = if op.global() {
                if !geometry_zero {
                    return Err(params);
                }
                (1, 1)
            } else {
                windowed(op)?
            };
            if dst.c != src.c || (oh, ow) != (dst.h, dst.w) {
                return Err(shape);
            }
            let window = if op.global() {
                u64::from(src.h) * u64::from(src.w)
            } else {
                u64::from(op.kernel[0]) * u64::from(op.kernel[1])
            };
            dst_len.checked_mul(window).ok_or(E::Overflow)
        }
    }
}
