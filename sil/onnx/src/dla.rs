//! What a DLA loadable built from the network reports for its I/O tensors, and the copies
//! between the DLA's buffers and the dense tensors of [`crate::Model::run`].
//!
//! TensorRT builds a DLA loadable with int8 `kDLA_LINEAR` I/O (`trtexec
//! --inputIOFormats=int8:dla_linear --outputIOFormats=int8:dla_linear`), whose layout
//! TensorRT's `TensorFormat::kDLA_LINEAR` documentation gives: for `{N, C, H, W}` the memory
//! is a C array `[N][C][H][roundUp(W, 64 / elementSize)]`, i.e. the stride from one `h` to
//! the next is `W` rounded up to 64 bytes for int8. cuDLA reports each tensor as a
//! `cudlaModuleTensorDescriptor`; the SIL fills it as [`linear_desc`] says (`stride[0]` = 1
//! byte, `stride[1]` = line pitch, `stride[2]` = plane pitch = `h` × line pitch, `stride[3]`
//! = batch pitch = `c` × plane pitch, `size` = batch pitch; NCHW, int8, FEATURE data
//! category, pixel format FEATURE, pitch-linear mapping). Whether real cuDLA fills the
//! `stride[]` array exactly so is UNCONFIRMED; the sizes follow the documented layout.

use crate::model::IoTensor;

/// The line pitch of `kDLA_LINEAR` int8 tensors is a multiple of this many bytes.
pub const LINE_ALIGN: u32 = 64;
/// `CUDLA_DATA_FORMAT_NCHW`.
pub const DATA_FORMAT_NCHW: u8 = 1;
/// `CUDLA_DATA_TYPE_INT8`.
pub const DATA_TYPE_INT8: u8 = 4;
/// `CUDLA_DATA_CATEGORY_FEATURE`.
pub const DATA_CATEGORY_FEATURE: u8 = 2;
/// `CUDLA_PIXEL_FORMAT_FEATURE`.
pub const PIXEL_FORMAT_FEATURE: u8 = 36;
/// `CUDLA_PIXEL_MAPPING_PITCH_LINEAR`.
pub const PIXEL_MAPPING_PITCH_LINEAR: u8 = 0;

/// The fields of a `cudlaModuleTensorDescriptor` for one I/O tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DlaTensorDesc {
    /// The tensor's name.
    pub name: String,
    /// Bytes of the buffer (`stride[3]`, n = 1).
    pub size: u64,
    /// n, c, h, w.
    pub dims: [u32; 4],
    /// `CUDLA_DATA_FORMAT_*`.
    pub data_format: u8,
    /// `CUDLA_DATA_TYPE_*`.
    pub data_type: u8,
    /// `CUDLA_DATA_CATEGORY_*`.
    pub data_category: u8,
    /// `CUDLA_PIXEL_FORMAT_*`.
    pub pixel_format: u8,
    /// `CUDLA_PIXEL_MAPPING_*`.
    pub pixel_mapping: u8,
    /// Byte strides: element, line, plane, batch, then 0.
    pub strides: [u32; 8],
}

impl DlaTensorDesc {
    /// The line pitch (`stride[1]`).
    pub fn line_pitch(&self) -> usize {
        self.strides[1] as usize
    }

    /// The descriptor as a tensor entry of a networks manifest (`loadables/README.md`,
    /// "Manifest"): `[[table]]` with every field, e.g. `table` = `network.input`.
    ///
    /// ```
    /// let t = sil_onnx::IoTensor { name: "x".into(), dims: [1, 1, 8, 8] };
    /// let toml = sil_onnx::dla::linear_desc(&t).manifest_toml("network.input");
    /// assert!(toml.contains("[[network.input]]") && toml.contains("size = 512"));
    /// ```
    pub fn manifest_toml(&self, table: &str) -> String {
        let [n, c, h, w] = self.dims;
        format!(
            "\n  [[{table}]]\n  name = \"{}\"\n  shape = [{n}, {c}, {h}, {w}]  # n, c, h, w\n  \
             data_type = \"int8\"  # CUDLA_DATA_TYPE_INT8 = {}\n  \
             data_format = \"nchw\"  # CUDLA_DATA_FORMAT_NCHW = {}\n  data_category = {}\n  \
             pixel_format = {}\n  pixel_mapping = {}\n  \
             layout = \"dla_linear\"  # line pitch = w rounded up to 64 bytes\n  size = {}\n  \
             strides = {:?}  # bytes: element, line, plane, batch\n",
            self.name,
            self.data_type,
            self.data_format,
            self.data_category,
            self.pixel_format,
            self.pixel_mapping,
            self.size,
            self.strides
        )
    }
}

/// The descriptor of an int8 `kDLA_LINEAR` tensor.
///
/// ```
/// let t = sil_onnx::IoTensor { name: "presence".into(), dims: [1, 2, 1, 1] };
/// let d = sil_onnx::dla::linear_desc(&t);
/// assert_eq!((d.size, d.strides), (128, [1, 64, 64, 128, 0, 0, 0, 0]));
/// ```
pub fn linear_desc(t: &IoTensor) -> DlaTensorDesc {
    let [n, c, h, w] = t.dims;
    let line = w.div_ceil(LINE_ALIGN) * LINE_ALIGN;
    // I/O dimensions are at most 65535 (the loader's rule), so the products fit: the plane
    // pitch in u32 can still overflow for huge tensors; saturate (such a model is refused by
    // the loader's size limit long before).
    let plane = line.saturating_mul(h);
    let batch = plane.saturating_mul(c);
    DlaTensorDesc {
        name: t.name.clone(),
        size: u64::from(batch) * u64::from(n.max(1)),
        dims: [n, c, h, w],
        data_format: DATA_FORMAT_NCHW,
        data_type: DATA_TYPE_INT8,
        data_category: DATA_CATEGORY_FEATURE,
        pixel_format: PIXEL_FORMAT_FEATURE,
        pixel_mapping: PIXEL_MAPPING_PITCH_LINEAR,
        strides: [1, line, plane, batch, 0, 0, 0, 0],
    }
}

/// Copies a `kDLA_LINEAR` buffer (at least `d.size` bytes) into a dense NCHW tensor (at
/// least c·h·w bytes). Short buffers copy what fits.
pub fn unpack(d: &DlaTensorDesc, strided: &[u8], dense: &mut [u8]) {
    let w = d.dims[3] as usize;
    let rows = (d.dims[1] * d.dims[2]) as usize;
    for (src, dst) in strided
        .chunks(d.line_pitch().max(1))
        .zip(dense.chunks_mut(w.max(1)))
        .take(rows)
    {
        let n = w.min(src.len()).min(dst.len());
        dst[..n].copy_from_slice(&src[..n]);
    }
}

/// Copies a dense NCHW tensor into a `kDLA_LINEAR` buffer, writing the line padding as 0.
pub fn pack(d: &DlaTensorDesc, dense: &[u8], strided: &mut [u8]) {
    let w = d.dims[3] as usize;
    let rows = (d.dims[1] * d.dims[2]) as usize;
    let size = (d.size as usize).min(strided.len());
    for (dst, src) in strided[..size]
        .chunks_mut(d.line_pitch().max(1))
        .zip(dense.chunks(w.max(1)).chain(core::iter::repeat(&[][..])))
        .take(rows)
    {
        let n = w.min(src.len()).min(dst.len());
        dst[..n].copy_from_slice(&src[..n]);
        dst[n..].fill(0);
    }
}
