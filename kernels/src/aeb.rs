//! Reference models of the AEB perception slice kernels (`kernels/cuda/aeb.cu`).

use crate::ModelError;
use crate::fp::roundf_to_i32;

/// Reference model of `aeb_preprocess`: 2×2 average, shifted to int8.
///
/// `src` is a `src_w × src_h` u8 image (row pitch `src_w`); `dst` is the
/// `(src_w / 2) × (src_h / 2)` int8 tensor (row pitch `src_w / 2`):
/// `dst[y][x] = (src[2y][2x] + src[2y][2x+1] + src[2y+1][2x] + src[2y+1][2x+1] + 2) / 4 - 128`.
///
/// `src` needs at least `src_w * src_h` elements and `dst` at least
/// `(src_w / 2) * (src_h / 2)`; longer slices are fine (only the prefix is touched), so SIL CUDA
/// can pass everything from the device pointer to the end of its allocation.
pub fn aeb_preprocess(
    src: &[u8],
    dst: &mut [i8],
    src_w: u32,
    src_h: u32,
) -> Result<(), ModelError> {
    let (sw, sh) = (src_w as usize, src_h as usize);
    let (dw, dh) = (sw / 2, sh / 2);
    ModelError::check_len("src", sw.checked_mul(sh), src.len())?;
    ModelError::check_len("dst", dw.checked_mul(dh), dst.len())?;
    if dw == 0 {
        return Ok(());
    }
    for (y, row) in dst.chunks_exact_mut(dw).take(dh).enumerate() {
        // Rows 2y and 2y + 1 exist: 2y + 1 <= src_h - 1, and 2x + 1 <= src_w - 1.
        let top = &src[2 * y * sw..];
        let bot = &src[(2 * y + 1) * sw..];
        for (x, d) in row.iter_mut().enumerate() {
            let sum = u32::from(top[2 * x])
                + u32::from(top[2 * x + 1])
                + u32::from(bot[2 * x])
                + u32::from(bot[2 * x + 1]);
            // (sum + 2) / 4 is in 0..=255, so the result is in -128..=127.
            *d = (((sum + 2) / 4) as i32 - 128) as i8;
        }
    }
    Ok(())
}

/// The scalar parameters of `aeb_postprocess` (kernel parameters 3..=9).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostprocessParams {
    /// A row is an obstacle if its lane maximum is `> threshold`.
    pub threshold: i32,
    /// First lane column (inclusive).
    pub lane_x0: u32,
    /// End lane column (exclusive); clamped to `map_w`.
    pub lane_x1: u32,
    /// Image rows per map row (map row → image row: `row * row_scale + row_offset`).
    pub row_scale: f32,
    /// Image row of map row 0's reference point.
    pub row_offset: f32,
    /// Horizon row in the image.
    pub horizon: f32,
    /// Focal length × camera height (px · m): distance in m = `fh / (image row - horizon)`.
    pub fh: f32,
}

/// `aeb_postprocess` output, as the four `i32` the kernel writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Detection {
    /// An obstacle row was found (`out[0]`).
    pub found: bool,
    /// The obstacle row, or -1 (`out[1]`).
    pub row: i32,
    /// The obstacle row's lane maximum, or the whole map's maximum if none (`out[2]`).
    pub score: i32,
    /// Distance in mm, or -1 (`out[3]`).
    pub distance_mm: i32,
}

impl Detection {
    /// Decodes the kernel's output buffer (any nonzero `out[0]` counts as found).
    pub const fn from_raw(out: [i32; 4]) -> Self {
        Self {
            found: out[0] != 0,
            row: out[1],
            score: out[2],
            distance_mm: out[3],
        }
    }

    /// The kernel's output buffer.
    pub const fn to_raw(self) -> [i32; 4] {
        [self.found as i32, self.row, self.score, self.distance_mm]
    }
}

/// Reference model of `aeb_postprocess`: the nearest obstacle in the lane.
///
/// `map` is a `map_w × map_h` int8 score map (row pitch `map_w`; at least `map_w * map_h`
/// elements, longer is fine). Scanning rows from the bottom (largest index) up, the first row
/// whose maximum over the columns `[lane_x0, min(lane_x1, map_w))` is `> threshold` is the
/// detection. Writes `out`:
///
/// * `out[0]`: 1 if found, else 0;
/// * `out[1]`: the row, or -1;
/// * `out[2]`: that row's lane maximum; if none is found, the maximum over the whole map
///   (-128 for an empty map);
/// * `out[3]`: if found and `d = row * row_scale + row_offset - horizon > 0`,
///   `(int32) roundf(1000 * fh / d)` (mm), else -1. Each operation is one IEEE binary32
///   operation rounded to nearest, in this order, exactly as the kernel does it
///   (`__fmul_rn`, `__fadd_rn`, `__fsub_rn`, `__fdiv_rn`); see [`crate::fp`] for the tolerance.
pub fn aeb_postprocess(
    map: &[i8],
    map_w: u32,
    map_h: u32,
    params: &PostprocessParams,
    out: &mut [i32; 4],
) -> Result<(), ModelError> {
    let (w, h) = (map_w as usize, map_h as usize);
    let n = w.checked_mul(h);
    ModelError::check_len("map", n, map.len())?;
    let map = map.get(..w * h).unwrap_or(&[]);
    let x0 = params.lane_x0 as usize;
    let x1 = (params.lane_x1 as usize).min(w);
    let lane_max = |r: usize| -> Option<i32> {
        let row = map.get(r * w..(r + 1) * w)?;
        row.get(x0..x1)?.iter().map(|&v| i32::from(v)).max()
    };

    let hit = (0..h).rev().find_map(|r| {
        lane_max(r)
            .filter(|&m| m > params.threshold)
            .map(|m| (r, m))
    });
    *out = match hit {
        Some((r, score)) => {
            let row = r as i32;
            let d = (row as f32) * params.row_scale + params.row_offset - params.horizon;
            let distance_mm = if d > 0.0 {
                roundf_to_i32((1000.0f32 * params.fh) / d)
            } else {
                -1
            };
            Detection {
                found: true,
                row,
                score,
                distance_mm,
            }
        }
        None => Detection {
            found: false,
            row: -1,
            score: map.iter().map(|&v| i32::from(v)).max().unwrap_or(-128),
            distance_mm: -1,
        },
    }
    .to_raw();
    Ok(())
}
