//! The kernels' [`KernelModel`]s: each reads its launch's arguments and buffers and calls the
//! kernel's reference function.

use orin_exec_kernel_model::ParamKind::{self, DevPtr, F32, I32, U32};
use orin_exec_kernel_model::{KernelModel, Launch, ModelError, read, write};
use orin_exec_table::{CubinDesc, ScheduleTables, Work};

use crate::{
    CUBINS, PostprocessParams, aeb_postprocess, aeb_preprocess, fill_pattern_u32, saxpy_f32,
    stamp_globaltimer,
};

/// `a * b` elements of buffer `param`.
fn elems(param: &'static str, a: u32, b: u32) -> Result<usize, ModelError> {
    (a as usize)
        .checked_mul(b as usize)
        .ok_or(ModelError::SizeOverflow { param })
}

/// `aeb_preprocess(const uint8_t* src, int8_t* dst, uint32_t src_w, uint32_t src_h)`.
struct AebPreprocess;

impl KernelModel for AebPreprocess {
    fn params(&self) -> &[ParamKind] {
        &[DevPtr, DevPtr, U32, U32]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (w, h) = (l.u32(2)?, l.u32(3)?);
        let src_len = elems("src", w, h)?;
        let dst_len = elems("dst", w / 2, h / 2)?;
        let (src, dst) = l.buffers((read::<u8>(0, src_len), write::<i8>(1, dst_len)))?;
        aeb_preprocess(src, dst, w, h)
    }
}

/// `aeb_postprocess(const int8_t* map, uint32_t map_w, uint32_t map_h, int32_t threshold,
/// uint32_t lane_x0, uint32_t lane_x1, float row_scale, float row_offset, float horizon,
/// float fh, int32_t* out)`.
struct AebPostprocess;

impl KernelModel for AebPostprocess {
    fn params(&self) -> &[ParamKind] {
        &[DevPtr, U32, U32, I32, U32, U32, F32, F32, F32, F32, DevPtr]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (w, h) = (l.u32(1)?, l.u32(2)?);
        let params = PostprocessParams {
            threshold: l.i32(3)?,
            lane_x0: l.u32(4)?,
            lane_x1: l.u32(5)?,
            row_scale: l.f32(6)?,
            row_offset: l.f32(7)?,
            horizon: l.f32(8)?,
            fh: l.f32(9)?,
        };
        let map_len = elems("map", w, h)?;
        let (map, out) = l.buffers((read::<i8>(0, map_len), write::<i32>(10, 4)))?;
        let len = out.len();
        let out = <&mut [i32; 4]>::try_from(out).map_err(|_| ModelError::BufferTooSmall {
            param: "out",
            needed: 4,
            len,
        })?;
        aeb_postprocess(map, w, h, &params, out)
    }
}

/// `stamp_globaltimer(unsigned long long* slot)`: writes the stream clock at kernel start.
struct StampGlobaltimer;

impl KernelModel for StampGlobaltimer {
    fn params(&self) -> &[ParamKind] {
        &[DevPtr]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let now = l.now_ns();
        if let Some(slot) = l.buffers(write::<u64>(0, 1))?.first_mut() {
            stamp_globaltimer(slot, now);
        }
        Ok(())
    }
}

/// `fill_pattern_u32(uint32_t* dst, uint32_t n, uint32_t seed)`.
struct FillPatternU32;

impl KernelModel for FillPatternU32 {
    fn params(&self) -> &[ParamKind] {
        &[DevPtr, U32, U32]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (n, seed) = (l.u32(1)?, l.u32(2)?);
        let dst = l.buffers(write::<u32>(0, n as usize))?;
        fill_pattern_u32(dst, n, seed)
    }
}

/// `saxpy_f32(float a, const float* x, float* y, uint32_t n)`.
struct SaxpyF32;

impl KernelModel for SaxpyF32 {
    fn params(&self) -> &[ParamKind] {
        &[F32, DevPtr, DevPtr, U32]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (a, n) = (l.f32(0)?, l.u32(3)?);
        let (x, y) = l.buffers((read::<f32>(1, n as usize), write::<f32>(2, n as usize)))?;
        saxpy_f32(a, x, y, n)
    }
}

/// Every kernel's model: (module, kernel, model). The module is the cubin's source name, as
/// in [`crate::CUBINS`] and [`crate::CUBIN_DESCS`].
///
/// | module | kernel | parameters (C) |
/// |---|---|---|
/// | `aeb` | `aeb_preprocess` | `const uint8_t* src, int8_t* dst, uint32_t src_w, uint32_t src_h` |
/// | `aeb` | `aeb_postprocess` | `const int8_t* map, uint32_t map_w, uint32_t map_h, int32_t threshold, uint32_t lane_x0, uint32_t lane_x1, float row_scale, float row_offset, float horizon, float fh, int32_t* out` |
/// | `timing` | `stamp_globaltimer` | `unsigned long long* slot` |
/// | `selftest` | `fill_pattern_u32` | `uint32_t* dst, uint32_t n, uint32_t seed` |
/// | `selftest` | `saxpy_f32` | `float a, const float* x, float* y, uint32_t n` |
pub static MODELS: &[(&str, &str, &dyn KernelModel)] = &[
    ("aeb", "aeb_preprocess", &AebPreprocess),
    ("aeb", "aeb_postprocess", &AebPostprocess),
    ("timing", "stamp_globaltimer", &StampGlobaltimer),
    ("selftest", "fill_pattern_u32", &FillPatternU32),
    ("selftest", "saxpy_f32", &SaxpyF32),
];

/// The model of `kernel` in module `module`.
///
/// ```
/// use orin_exec_kernels::{kernel_model::{HostMemory, Launch}, model};
/// let fill = model("selftest", "fill_pattern_u32").expect("a model");
/// let mut out = [0u32; 4];
/// let mut mem = HostMemory::new();
/// let args = [mem.write(&mut out)?, 4u32.into(), 7u32.into()];
/// Launch::new(&args, &mut mem).run(fill)?;
/// drop(mem);
/// assert_eq!(out[3], orin_exec_kernels::pattern_u32(3, 7));
/// # Ok::<(), orin_exec_kernels::ModelError>(())
/// ```
pub fn model(module: &str, kernel: &str) -> Option<&'static dyn KernelModel> {
    MODELS
        .iter()
        .find(|(m, k, _)| *m == module && *k == kernel)
        .map(|&(_, _, model)| model)
}

/// Whether every variant of `desc` is one of this crate's cubins (by name and sha256).
fn is_ours(desc: &CubinDesc) -> bool {
    !desc.variants.is_empty()
        && desc.variants.iter().all(|v| {
            CUBINS
                .iter()
                .any(|c| c.name == desc.name && c.sha256 == v.sha256)
        })
}

/// Hands every GPU task of `schedule` that runs a kernel of this crate to `register`, once per
/// (cubin, kernel): on SIL, `register` is `orin_exec::sil::register_kernel_model`, called
/// before the runtime's init. A task counts when its cubin is one of this crate's (same
/// module name, and every variant's sha256 is one of [`CUBINS`]) and [`MODELS`] has its
/// kernel; other tasks (an application's own kernels) are left to the application. Returns
/// how many models were handed over, or the first error of `register`.
///
/// ```
/// use orin_exec_kernels::{CubinDesc, KernelModel};
/// # fn f(schedule: &'static orin_exec_table::ScheduleTables) {
/// let mut seen = Vec::new();
/// let n = orin_exec_kernels::register_models(
///     schedule,
///     |cubin: &'static CubinDesc, kernel: &'static str, _model: &'static dyn KernelModel| {
///         seen.push((cubin.name, kernel));
///         Ok::<(), String>(())
///     },
/// )
/// .expect("registered");
/// assert_eq!(n, seen.len());
/// # }
/// ```
pub fn register_models<E>(
    schedule: &'static ScheduleTables,
    mut register: impl FnMut(
        &'static CubinDesc,
        &'static str,
        &'static dyn KernelModel,
    ) -> Result<(), E>,
) -> Result<usize, E> {
    let mut n = 0;
    for (i, t) in schedule.tasks.iter().enumerate() {
        let Work::Gpu(g) = t.work else { continue };
        let earlier = schedule.tasks[..i]
            .iter()
            .any(|e| matches!(e.work, Work::Gpu(x) if x.cubin == g.cubin && x.kernel == g.kernel));
        let Some(desc) = schedule.cubins.get(g.cubin.0 as usize) else {
            continue;
        };
        if earlier || !is_ours(desc) {
            continue;
        }
        if let Some(m) = model(desc.name, g.kernel) {
            register(desc, g.kernel, m)?;
            n += 1;
        }
    }
    Ok(n)
}
