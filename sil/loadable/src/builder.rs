//! The builder: a readable TOML network description → SIL DLA loadable bytes.
//!
//! The description format is documented in `loadables/README.md` ("Network description");
//! `loadables/aeb_detector.toml` is a complete example. The output is a pure function of the
//! description (no timestamps, no paths, no hash-map order), so builds are byte-for-byte
//! reproducible. Every build is parsed back with [`Loadable::parse`] before it is returned.

use std::collections::BTreeMap;
use std::fmt;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use serde::Deserialize;

use crate::format::*;

/// A build failure, with a message that names the layer, filter or tensor involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError(pub String);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

fn err<T>(msg: impl Into<String>) -> Result<T, BuildError> {
    Err(BuildError(msg.into()))
}

/// The whole description file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// `[network]`: name and format version.
    pub network: NetworkInfo,
    /// `[[input]]` tensors, in descriptor order.
    #[serde(rename = "input")]
    pub inputs: Vec<IoSpec>,
    /// `[[output]]` tensors, in descriptor order.
    #[serde(rename = "output")]
    pub outputs: Vec<IoSpec>,
    /// `[[layer]]`s, in execution order.
    #[serde(rename = "layer", default)]
    pub layers: Vec<Layer>,
    /// `[[statistics]]`: layer-statistics buffers. With any, the loadable carries layer
    /// statistics ([`FLAG_LAYER_STATS`]) and the layer names.
    #[serde(rename = "statistics", default)]
    pub statistics: Vec<StatsSpec>,
}

/// `[[statistics]]`: one layer-statistics buffer over a contiguous range of layers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsSpec {
    /// Descriptor name (1 to 80 printable ASCII bytes, unique among tensors and statistics).
    pub name: String,
    /// First layer covered, by name (default: the first layer).
    #[serde(default)]
    pub first_layer: Option<String>,
    /// Last layer covered, by name (default: the last layer).
    #[serde(default)]
    pub last_layer: Option<String>,
}

/// `[network]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkInfo {
    /// Name (for people and the manifest; not stored in the binary).
    pub name: String,
    /// Must be [`FORMAT_VERSION`] when given.
    #[serde(default)]
    pub format_version: Option<u32>,
    /// Free text.
    #[serde(default)]
    pub doc: Option<String>,
}

/// Line layout of an I/O tensor.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// TensorRT `kDLA_LINEAR`: line pitch = `w` rounded up to 64 bytes.
    #[default]
    DlaLinear,
    /// Line pitch = `w`.
    Packed,
}

/// `CUDLA_DATA_CATEGORY_*` of an I/O tensor.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// IMAGE (0).
    Image,
    /// FEATURE (2).
    #[default]
    Feature,
    /// PLANAR (3).
    Planar,
}

/// `[[input]]` / `[[output]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoSpec {
    /// Descriptor name (1 to 80 printable ASCII bytes).
    pub name: String,
    /// `[n, c, h, w]`; `n` must be 1.
    pub shape: [u32; 4],
    /// Outputs only: the internal tensor routed to this output (default: `name`).
    #[serde(default)]
    pub from: Option<String>,
    /// Line layout (default `dla_linear`).
    #[serde(default)]
    pub layout: Layout,
    /// Explicit line pitch in bytes (overrides `layout`).
    #[serde(default)]
    pub line_pitch: Option<u32>,
    /// Data category (default `feature`).
    #[serde(default)]
    pub category: Category,
    /// `CUDLA_PIXEL_FORMAT_*` (default 36, FEATURE).
    #[serde(default)]
    pub pixel_format: Option<u8>,
}

/// A size given as one number or `[h, w]`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(untagged)]
pub enum Pair {
    /// Same value for both axes.
    One(u8),
    /// `[h, w]`.
    Two([u8; 2]),
}

impl Pair {
    fn get(self) -> [u8; 2] {
        match self {
            Self::One(v) => [v, v],
            Self::Two(v) => v,
        }
    }
}

/// Padding given as one number, `[vertical, horizontal]` or `[top, left, bottom, right]`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(untagged)]
pub enum Padding {
    /// All four sides.
    One(u8),
    /// `[top and bottom, left and right]`.
    Two([u8; 2]),
    /// `[top, left, bottom, right]`.
    Four([u8; 4]),
}

impl Padding {
    fn get(self) -> [u8; 4] {
        match self {
            Self::One(v) => [v; 4],
            Self::Two([v, h]) => [v, h, v, h],
            Self::Four(v) => v,
        }
    }
}

/// `[[layer]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// `conv2d`, `relu`, `maxpool`, `avgpool`, `global_maxpool`, `global_avgpool`, `dense`.
    pub op: String,
    /// Name for messages and dumps; stored (as the layer name) only in loadables with layer
    /// statistics, where it must be 1 to 31 printable ASCII bytes without `,` or `"`
    /// (default `layer<index>`).
    #[serde(default)]
    pub name: Option<String>,
    /// Tensor read.
    pub input: String,
    /// Tensor written (a new name).
    pub output: String,
    /// conv2d: output channels.
    #[serde(default)]
    pub out_channels: Option<u32>,
    /// dense: output features.
    #[serde(default)]
    pub out_features: Option<u32>,
    /// conv2d, maxpool, avgpool: kernel size.
    #[serde(default)]
    pub kernel: Option<Pair>,
    /// conv2d (default 1), maxpool, avgpool (default = kernel): stride.
    #[serde(default)]
    pub stride: Option<Pair>,
    /// conv2d, maxpool, avgpool: padding (default 0).
    #[serde(default)]
    pub padding: Option<Padding>,
    /// conv2d, dense: clamp at 0 after requantisation.
    #[serde(default)]
    pub relu: bool,
    /// conv2d, dense, avgpool: requantisation right shift (default 0).
    #[serde(default)]
    pub shift: u8,
    /// conv2d, dense, avgpool: multiplier / gain (default 1).
    #[serde(default)]
    pub multiplier: Option<i32>,
    /// All weights, flat, `[out][in][kh][kw]` (dense `[out][in]`); excludes `filter`.
    #[serde(default)]
    pub weights: Option<Vec<i64>>,
    /// All biases (with `weights`).
    #[serde(default)]
    pub bias: Option<Vec<i64>>,
    /// Default value of every weight not given otherwise (default 0).
    #[serde(default)]
    pub fill: Option<i64>,
    /// `[[layer.filter]]`: one per output channel / feature, in order.
    #[serde(rename = "filter", default)]
    pub filters: Vec<Filter>,
}

/// `[[layer.filter]]`: the weights and bias of one output channel (or dense output feature).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// Name for people (not stored).
    #[serde(default)]
    pub name: Option<String>,
    /// Bias (i32, default 0).
    #[serde(default)]
    pub bias: i64,
    /// Value of every weight of this filter not given by `weights` or `input` (default: the
    /// layer's `fill`, else 0).
    #[serde(default)]
    pub fill: Option<i64>,
    /// All weights of this filter, `[in][kh][kw]` (dense: the flattened input).
    #[serde(default)]
    pub weights: Option<Vec<i64>>,
    /// `[[layer.filter.input]]`: the `kh × kw` kernel for one input channel (dense: the
    /// `h × w` weights for one input channel), overriding `weights`/`fill` there.
    #[serde(rename = "input", default)]
    pub inputs: Vec<ChannelWeights>,
}

/// `[[layer.filter.input]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelWeights {
    /// Input channel index.
    pub channel: u32,
    /// Row-major `kh × kw` weights (dense: `h × w`).
    pub weights: Vec<i64>,
}

/// Parses a description (TOML text).
pub fn parse_description(text: &str) -> Result<Description, BuildError> {
    toml::from_str(text).map_err(|e| BuildError(format!("description: {e}")))
}

/// Builds a loadable from description text.
pub fn build(text: &str) -> Result<Vec<u8>, BuildError> {
    build_description(&parse_description(text)?)
}

#[derive(Clone, Copy)]
struct Shape {
    c: u32,
    h: u32,
    w: u32,
}

struct OpRec {
    kind: OpKind,
    flags: u8,
    input: u16,
    output: u16,
    kernel: [u8; 2],
    stride: [u8; 2],
    pad: [u8; 4],
    shift: u8,
    multiplier: i32,
    in_channels: u32,
    out_channels: u32,
    weights: Vec<u8>,
    bias: Vec<u8>,
}

fn out_len(input: u32, k: u8, s: u8, lo: u8, hi: u8) -> Option<u32> {
    if k == 0 || s == 0 || lo >= k || hi >= k {
        return None;
    }
    window_out(input, k, s, lo, hi)
}

fn i8_weight(v: i64, what: &dyn Fn() -> String) -> Result<u8, BuildError> {
    match i8::try_from(v) {
        Ok(x) => Ok(x as u8),
        Err(_) => err(format!("{}: weight {v} is outside -128..=127", what())),
    }
}

fn i32_bias(v: i64, what: &dyn Fn() -> String) -> Result<i32, BuildError> {
    i32::try_from(v).or_else(|_| err(format!("{}: bias {v} is outside the i32 range", what())))
}

/// Builds the weights and biases of a conv2d/dense layer: `taps` weights per output, where
/// each of `in_c` input channels owns `per_channel` consecutive taps.
fn layer_weights(
    l: &Layer,
    lname: &str,
    outs: u32,
    in_c: u32,
    per_channel: usize,
) -> Result<(Vec<u8>, Vec<u8>), BuildError> {
    let taps = in_c as usize * per_channel;
    let mut w = Vec::with_capacity(outs as usize * taps);
    let mut b = Vec::with_capacity(outs as usize * 4);
    let layer_fill = l.fill.unwrap_or(0);
    if let Some(flat) = &l.weights {
        if !l.filters.is_empty() {
            return err(format!(
                "{lname}: give either `weights` or `[[layer.filter]]`, not both"
            ));
        }
        if flat.len() != outs as usize * taps {
            return err(format!(
                "{lname}: `weights` has {} values, expected {}",
                flat.len(),
                outs as usize * taps
            ));
        }
        let bias = l.bias.clone().unwrap_or_else(|| vec![0; outs as usize]);
        if bias.len() != outs as usize {
            return err(format!(
                "{lname}: `bias` has {} values, expected {outs}",
                bias.len()
            ));
        }
        for (k, &v) in flat.iter().enumerate() {
            w.push(i8_weight(v, &|| format!("{lname}: weights[{k}]"))?);
        }
        for (k, &v) in bias.iter().enumerate() {
            b.extend_from_slice(&i32_bias(v, &|| format!("{lname}: bias[{k}]"))?.to_le_bytes());
        }
        return Ok((w, b));
    }
    if l.bias.is_some() {
        return err(format!(
            "{lname}: `bias` goes with `weights`; use `filter.bias` with filters"
        ));
    }
    if l.filters.is_empty() {
        // Everything from the fill rule, bias 0.
        let v = i8_weight(layer_fill, &|| format!("{lname}: fill"))?;
        w.resize(outs as usize * taps, v);
        b.resize(outs as usize * 4, 0);
        return Ok((w, b));
    }
    if l.filters.len() != outs as usize {
        return err(format!(
            "{lname}: {} filters, expected {outs}",
            l.filters.len()
        ));
    }
    for (o, f) in l.filters.iter().enumerate() {
        let fname = match &f.name {
            Some(n) => format!("{lname}: filter {o} ({n})"),
            None => format!("{lname}: filter {o}"),
        };
        let fill = i8_weight(f.fill.unwrap_or(layer_fill), &|| format!("{fname}: fill"))?;
        let mut fw = vec![fill; taps];
        if let Some(all) = &f.weights {
            if all.len() != taps {
                return err(format!(
                    "{fname}: `weights` has {} values, expected {taps}",
                    all.len()
                ));
            }
            for (k, &v) in all.iter().enumerate() {
                fw[k] = i8_weight(v, &|| format!("{fname}: weights[{k}]"))?;
            }
        }
        let mut seen = vec![false; in_c as usize];
        for ch in &f.inputs {
            let c = ch.channel as usize;
            if c >= in_c as usize {
                return err(format!(
                    "{fname}: input channel {c} out of range (0..{in_c})"
                ));
            }
            if std::mem::replace(&mut seen[c], true) {
                return err(format!("{fname}: input channel {c} given twice"));
            }
            if ch.weights.len() != per_channel {
                return err(format!(
                    "{fname}: input channel {c} has {} weights, expected {per_channel}",
                    ch.weights.len()
                ));
            }
            for (k, &v) in ch.weights.iter().enumerate() {
                fw[c * per_channel + k] =
                    i8_weight(v, &|| format!("{fname}: input channel {c} weights[{k}]"))?;
            }
        }
        w.extend_from_slice(&fw);
        b.extend_from_slice(&i32_bias(f.bias, &|| fname.clone())?.to_le_bytes());
    }
    Ok((w, b))
}

fn io_record(
    spec: &IoSpec,
    what: &str,
    slot: u16,
    shape: Shape,
) -> Result<[u8; TENSOR_RECORD_LEN], BuildError> {
    let name = spec.name.as_bytes();
    if !is_valid_name(name) {
        return err(format!(
            "{what} `{}`: names are 1 to {NAME_MAX_LEN} printable ASCII bytes",
            spec.name
        ));
    }
    let [n, c, h, w] = spec.shape;
    if n != 1 || (c, h, w) != (shape.c, shape.h, shape.w) {
        return err(format!(
            "{what} `{}`: shape {:?} does not match the tensor's [1, {}, {}, {}]",
            spec.name, spec.shape, shape.c, shape.h, shape.w
        ));
    }
    let pitch = match (spec.line_pitch, spec.layout) {
        (Some(p), _) => p,
        (None, Layout::Packed) => w,
        (None, Layout::DlaLinear) => w.div_ceil(DLA_LINEAR_LINE_ALIGN) * DLA_LINEAR_LINE_ALIGN,
    };
    if pitch < w {
        return err(format!(
            "{what} `{}`: line pitch {pitch} < width {w}",
            spec.name
        ));
    }
    let stride = strides_for(c, h, pitch)
        .ok_or_else(|| BuildError(format!("{what} `{}`: size overflows", spec.name)))?;
    let pixel_format = spec.pixel_format.unwrap_or(PIXEL_FORMAT_FEATURE);
    if pixel_format > PIXEL_FORMAT_UNKNOWN {
        return err(format!(
            "{what} `{}`: pixel format {pixel_format} > 37",
            spec.name
        ));
    }
    let mut r = [0u8; TENSOR_RECORD_LEN];
    r[..name.len()].copy_from_slice(name);
    r[80..88].copy_from_slice(&u64::from(stride[3]).to_le_bytes());
    for (k, v) in [n, c, h, w].iter().enumerate() {
        r[88 + 4 * k..92 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    r[104] = DATA_FORMAT_NCHW;
    r[105] = DATA_TYPE_INT8;
    r[106] = match spec.category {
        Category::Image => DATA_CATEGORY_IMAGE,
        Category::Feature => DATA_CATEGORY_FEATURE,
        Category::Planar => DATA_CATEGORY_PLANAR,
    };
    r[107] = pixel_format;
    r[108] = PIXEL_MAPPING_PITCH_LINEAR;
    for (k, v) in stride.iter().enumerate() {
        r[112 + 4 * k..116 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    r[144..146].copy_from_slice(&slot.to_le_bytes());
    Ok(r)
}

fn define(
    by_name: &mut BTreeMap<String, u16>,
    name: &str,
    shape: Shape,
    slots: &mut Vec<Shape>,
) -> Result<u16, BuildError> {
    if [shape.c, shape.h, shape.w]
        .iter()
        .any(|&x| x == 0 || x > MAX_DIM)
    {
        return err(format!(
            "tensor `{name}`: every dimension must be 1..={MAX_DIM}"
        ));
    }
    let index = u16::try_from(slots.len())
        .ok()
        .filter(|&i| usize::from(i) < MAX_SLOTS)
        .ok_or_else(|| BuildError(format!("more than {MAX_SLOTS} tensors")))?;
    if by_name.insert(name.to_string(), index).is_some() {
        return err(format!("tensor `{name}` is defined twice"));
    }
    slots.push(shape);
    Ok(index)
}

/// Builds a loadable from a parsed description.
pub fn build_description(d: &Description) -> Result<Vec<u8>, BuildError> {
    if let Some(v) = d.network.format_version
        && v != FORMAT_VERSION
    {
        return err(format!(
            "network: format_version {v} is not supported (only {FORMAT_VERSION})"
        ));
    }
    if d.inputs.is_empty() || d.inputs.len() > MAX_IO_TENSORS {
        return err(format!("1 to {MAX_IO_TENSORS} inputs are needed"));
    }
    if d.outputs.is_empty() || d.outputs.len() > MAX_IO_TENSORS {
        return err(format!("1 to {MAX_IO_TENSORS} outputs are needed"));
    }
    if d.layers.len() > MAX_OPS {
        return err(format!("at most {MAX_OPS} layers"));
    }

    // Slots: inputs first, then each layer's output.
    let mut slots: Vec<Shape> = Vec::new();
    let mut by_name: BTreeMap<String, u16> = BTreeMap::new();
    for i in &d.inputs {
        if i.from.is_some() {
            return err(format!("input `{}`: `from` is for outputs", i.name));
        }
        let [_, c, h, w] = i.shape;
        define(&mut by_name, &i.name, Shape { c, h, w }, &mut slots)?;
    }

    let mut ops = Vec::new();
    for (li, l) in d.layers.iter().enumerate() {
        let lname = match &l.name {
            Some(n) => format!("layer {li} ({n})"),
            None => format!("layer {li}"),
        };
        let input = *by_name
            .get(&l.input)
            .ok_or_else(|| BuildError(format!("{lname}: unknown input tensor `{}`", l.input)))?;
        let src = slots[usize::from(input)];
        let kernel = l.kernel.map(Pair::get);
        let pad = l.padding.map(Padding::get).unwrap_or([0; 4]);
        let windowed = |k: [u8; 2], s: [u8; 2]| -> Result<(u32, u32), BuildError> {
            let oh = out_len(src.h, k[0], s[0], pad[0], pad[2]);
            let ow = out_len(src.w, k[1], s[1], pad[1], pad[3]);
            match (oh, ow) {
                (Some(oh), Some(ow)) => Ok((oh, ow)),
                _ => err(format!(
                    "{lname}: kernel {k:?}, stride {s:?}, padding {pad:?} do not fit input {}x{}",
                    src.h, src.w
                )),
            }
        };
        let unused = |field: &str, present: bool| -> Result<(), BuildError> {
            if present {
                return err(format!("{lname}: `{field}` does not apply to {}", l.op));
            }
            Ok(())
        };
        let has_weights =
            l.weights.is_some() || l.bias.is_some() || l.fill.is_some() || !l.filters.is_empty();
        let multiplier = l.multiplier.unwrap_or(1);
        if multiplier < 1 {
            return err(format!("{lname}: multiplier must be >= 1"));
        }
        if l.shift > 31 {
            return err(format!("{lname}: shift must be 0..=31"));
        }
        let mut rec = OpRec {
            kind: OpKind::Relu,
            flags: if l.relu { OP_FLAG_RELU } else { 0 },
            input,
            output: 0,
            kernel: [0; 2],
            stride: [0; 2],
            pad: [0; 4],
            shift: 0,
            multiplier: 0,
            in_channels: 0,
            out_channels: 0,
            weights: Vec::new(),
            bias: Vec::new(),
        };
        let out_shape = match l.op.as_str() {
            "conv2d" => {
                unused("out_features", l.out_features.is_some())?;
                let k = kernel.ok_or_else(|| BuildError(format!("{lname}: `kernel` missing")))?;
                let s = l.stride.map(Pair::get).unwrap_or([1, 1]);
                let (oh, ow) = windowed(k, s)?;
                let oc = l
                    .out_channels
                    .ok_or_else(|| BuildError(format!("{lname}: `out_channels` missing")))?;
                let (w, b) =
                    layer_weights(l, &lname, oc, src.c, usize::from(k[0]) * usize::from(k[1]))?;
                rec = OpRec {
                    kind: OpKind::Conv2d,
                    kernel: k,
                    stride: s,
                    pad,
                    shift: l.shift,
                    multiplier,
                    in_channels: src.c,
                    out_channels: oc,
                    weights: w,
                    bias: b,
                    ..rec
                };
                Shape {
                    c: oc,
                    h: oh,
                    w: ow,
                }
            }
            "dense" => {
                for (f, p) in [
                    ("out_channels", l.out_channels.is_some()),
                    ("kernel", l.kernel.is_some()),
                    ("stride", l.stride.is_some()),
                    ("padding", l.padding.is_some()),
                ] {
                    unused(f, p)?;
                }
                let of = l
                    .out_features
                    .ok_or_else(|| BuildError(format!("{lname}: `out_features` missing")))?;
                let n_in = u64::from(src.c) * u64::from(src.h) * u64::from(src.w);
                let n_in = u32::try_from(n_in)
                    .or_else(|_| err(format!("{lname}: input too large for dense")))?;
                let (w, b) = layer_weights(l, &lname, of, src.c, src.h as usize * src.w as usize)?;
                rec = OpRec {
                    kind: OpKind::Dense,
                    shift: l.shift,
                    multiplier,
                    in_channels: n_in,
                    out_channels: of,
                    weights: w,
                    bias: b,
                    ..rec
                };
                Shape { c: of, h: 1, w: 1 }
            }
            "relu" | "maxpool" | "avgpool" | "global_maxpool" | "global_avgpool" => {
                unused("weights/bias/fill/filter", has_weights)?;
                unused("out_channels", l.out_channels.is_some())?;
                unused("out_features", l.out_features.is_some())?;
                unused("relu", l.relu)?;
                let avg = l.op.ends_with("avgpool");
                if !avg {
                    unused("shift", l.shift != 0)?;
                    unused("multiplier", l.multiplier.is_some())?;
                }
                let global = l.op.starts_with("global_");
                let kind = match l.op.as_str() {
                    "relu" => OpKind::Relu,
                    _ if avg => OpKind::AvgPool,
                    _ => OpKind::MaxPool,
                };
                let (shape, kernel, stride) = if kind == OpKind::Relu || global {
                    unused("kernel", l.kernel.is_some())?;
                    unused("stride", l.stride.is_some())?;
                    unused("padding", l.padding.is_some())?;
                    let shape = if global {
                        Shape {
                            c: src.c,
                            h: 1,
                            w: 1,
                        }
                    } else {
                        src
                    };
                    (shape, [0; 2], [0; 2])
                } else {
                    let k =
                        kernel.ok_or_else(|| BuildError(format!("{lname}: `kernel` missing")))?;
                    let s = l.stride.map(Pair::get).unwrap_or(k);
                    let (oh, ow) = windowed(k, s)?;
                    (
                        Shape {
                            c: src.c,
                            h: oh,
                            w: ow,
                        },
                        k,
                        s,
                    )
                };
                rec = OpRec {
                    kind,
                    flags: if global { OP_FLAG_GLOBAL } else { 0 },
                    kernel,
                    stride,
                    pad: if kind == OpKind::Relu || global {
                        [0; 4]
                    } else {
                        pad
                    },
                    shift: if avg { l.shift } else { 0 },
                    multiplier: if avg { multiplier } else { 0 },
                    ..rec
                };
                shape
            }
            other => return err(format!("{lname}: unknown op `{other}`")),
        };
        rec.output = define(&mut by_name, &l.output, out_shape, &mut slots)
            .map_err(|e| BuildError(format!("{lname}: {e}")))?;
        ops.push(rec);
    }

    // I/O records.
    let mut tensor_recs = Vec::new();
    let mut names = BTreeMap::new();
    for (what, list) in [("input", &d.inputs), ("output", &d.outputs)] {
        for spec in list.iter() {
            if !is_valid_name(spec.name.as_bytes()) {
                return err(format!(
                    "{what} `{}`: names are 1 to {NAME_MAX_LEN} printable ASCII bytes",
                    spec.name
                ));
            }
            if names.insert(spec.name.clone(), ()).is_some() {
                return err(format!("{what} `{}`: duplicate tensor name", spec.name));
            }
            let from = spec.from.as_deref().unwrap_or(&spec.name);
            let slot = *by_name.get(from).ok_or_else(|| {
                BuildError(format!("{what} `{}`: no tensor named `{from}`", spec.name))
            })?;
            tensor_recs.push(io_record(spec, what, slot, slots[usize::from(slot)])?);
        }
    }

    // Weights section: per op, weights, then the bias at a 4-byte boundary.
    let mut weights: Vec<u8> = Vec::new();
    let mut op_recs = Vec::new();
    for op in &ops {
        let (mut w_off, mut b_off) = (0u32, 0u32);
        if !op.weights.is_empty() || !op.bias.is_empty() {
            w_off = u32::try_from(weights.len()).or_else(|_| err("weights too large"))?;
            weights.extend_from_slice(&op.weights);
            weights.resize(weights.len().div_ceil(4) * 4, 0);
            b_off = u32::try_from(weights.len()).or_else(|_| err("weights too large"))?;
            weights.extend_from_slice(&op.bias);
        }
        let mut r = [0u8; OP_RECORD_LEN];
        r[0] = op.kind as u8;
        r[1] = op.flags;
        r[2..4].copy_from_slice(&op.input.to_le_bytes());
        r[4..6].copy_from_slice(&op.output.to_le_bytes());
        r[6..8].copy_from_slice(&op.kernel);
        r[8..10].copy_from_slice(&op.stride);
        r[10..14].copy_from_slice(&op.pad);
        r[14] = op.shift;
        r[16..20].copy_from_slice(&op.multiplier.to_le_bytes());
        r[20..24].copy_from_slice(&op.in_channels.to_le_bytes());
        r[24..28].copy_from_slice(&op.out_channels.to_le_bytes());
        r[28..32].copy_from_slice(&w_off.to_le_bytes());
        r[32..36].copy_from_slice(&(op.weights.len() as u32).to_le_bytes());
        r[36..40].copy_from_slice(&b_off.to_le_bytes());
        r[40..44].copy_from_slice(&(op.bias.len() as u32).to_le_bytes());
        op_recs.push(r);
    }

    let scratch: u64 = slots
        .iter()
        .map(|s| u64::from(s.c) * u64::from(s.h) * u64::from(s.w))
        .sum();
    let stats_section = stats_section(d, &names)?;
    let tensors_off = HEADER_LEN;
    let slots_off = tensors_off + tensor_recs.len() * TENSOR_RECORD_LEN;
    let ops_off = slots_off + slots.len() * SLOT_RECORD_LEN;
    let weights_off = ops_off + op_recs.len() * OP_RECORD_LEN + stats_section.len();
    let file_len = weights_off + weights.len() + HASH_LEN;
    let u32_of = |v: usize| u32::try_from(v).or_else(|_| err("loadable larger than 4 GiB"));
    let mut out = Vec::with_capacity(file_len);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    out.extend_from_slice(&u32_of(file_len)?.to_le_bytes());
    let flags = if d.statistics.is_empty() {
        0
    } else {
        FLAG_LAYER_STATS
    };
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&(d.inputs.len() as u16).to_le_bytes());
    out.extend_from_slice(&(d.outputs.len() as u16).to_le_bytes());
    out.extend_from_slice(&(slots.len() as u16).to_le_bytes());
    out.extend_from_slice(&(op_recs.len() as u16).to_le_bytes());
    for v in [tensors_off, slots_off, ops_off, weights_off, weights.len()] {
        out.extend_from_slice(&u32_of(v)?.to_le_bytes());
    }
    let scratch = u32::try_from(scratch).or_else(|_| err("scratch larger than 4 GiB"))?;
    out.extend_from_slice(&scratch.to_le_bytes());
    out.extend_from_slice(&(d.statistics.len() as u16).to_le_bytes());
    out.resize(HEADER_LEN, 0);
    for r in &tensor_recs {
        out.extend_from_slice(r);
    }
    for s in &slots {
        for v in [s.c, s.h, s.w, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for r in &op_recs {
        out.extend_from_slice(r);
    }
    out.extend_from_slice(&stats_section);
    out.extend_from_slice(&weights);
    let hash = sha256(&out);
    out.extend_from_slice(&hash);
    debug_assert_eq!(out.len(), file_len);

    // The builder and the parser must agree; report the parser's verdict otherwise.
    if let Err(e) = Loadable::parse(&out) {
        return err(format!("the built loadable does not validate: {e}"));
    }
    Ok(out)
}

/// The statistics section (descriptors, then one name per layer), empty without
/// `[[statistics]]`. `tensor_names` holds the I/O tensor names (statistics names must differ).
fn stats_section(
    d: &Description,
    tensor_names: &BTreeMap<String, ()>,
) -> Result<Vec<u8>, BuildError> {
    let mut out = Vec::new();
    if d.statistics.is_empty() {
        return Ok(out);
    }
    if d.statistics.len() > MAX_STATS {
        return err(format!("at most {MAX_STATS} statistics"));
    }
    if d.layers.is_empty() {
        return err("statistics need at least one layer");
    }
    let layer_names: Vec<String> = d
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| l.name.clone().unwrap_or_else(|| format!("layer{i}")))
        .collect();
    let find = |what: &str, name: &Option<String>, default: usize| -> Result<usize, BuildError> {
        match name {
            None => Ok(default),
            Some(n) => layer_names
                .iter()
                .position(|x| x == n)
                .ok_or_else(|| BuildError(format!("statistics: {what} `{n}` is not a layer name"))),
        }
    };
    let mut seen = BTreeMap::new();
    for s in &d.statistics {
        if !is_valid_name(s.name.as_bytes()) {
            return err(format!(
                "statistics `{}`: names are 1 to {NAME_MAX_LEN} printable ASCII bytes",
                s.name
            ));
        }
        if tensor_names.contains_key(&s.name) || seen.insert(s.name.clone(), ()).is_some() {
            return err(format!("statistics `{}`: duplicate name", s.name));
        }
        let first = find("first_layer", &s.first_layer, 0)?;
        let last = find("last_layer", &s.last_layer, d.layers.len() - 1)?;
        if last < first {
            return err(format!(
                "statistics `{}`: last_layer comes before first_layer",
                s.name
            ));
        }
        let mut r = [0u8; STATS_RECORD_LEN];
        r[..s.name.len()].copy_from_slice(s.name.as_bytes());
        r[80..82].copy_from_slice(&(first as u16).to_le_bytes());
        r[82..84].copy_from_slice(&((last - first + 1) as u16).to_le_bytes());
        out.extend_from_slice(&r);
    }
    for (i, n) in layer_names.iter().enumerate() {
        if !is_valid_layer_name(n.as_bytes()) {
            return err(format!(
                "layer {i} (`{n}`): with statistics, layer names are 1 to {LAYER_NAME_MAX_LEN} \
                 printable ASCII bytes without `,` or `\"`"
            ));
        }
        let mut r = [0u8; LAYER_NAME_RECORD_LEN];
        r[..n.len()].copy_from_slice(n.as_bytes());
        out.extend_from_slice(&r);
    }
    Ok(out)
}
