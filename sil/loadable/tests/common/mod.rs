//! Shared test helpers: the synthetic AEB scene, preprocessing and loadable plumbing.
#![allow(dead_code)]

use std::path::PathBuf;

/// Camera image width, height, horizon row, principal column.
pub const CAM_W: usize = 128;
/// Camera image height.
pub const CAM_H: usize = 96;
/// Horizon row.
pub const HORIZON: i64 = 24;
/// Principal column.
pub const CENTRE: i64 = 64;

/// `round(a / b)` for positive `a`, `b`, as the README defines it: `(2a + b) / (2b)`.
pub fn round_div(a: i64, b: i64) -> i64 {
    assert!(a >= 0 && b > 0);
    (2 * a + b) / (2 * b)
}

/// The obstacle's rectangle in camera pixels (half-open ranges, before clipping).
#[derive(Clone, Copy, Debug)]
pub struct Obstacle {
    /// Bottom edge row, exclusive: `24 + round(240 / d)`.
    pub yb: i64,
    /// `round(300 / d)`.
    pub height: i64,
    /// `round(360 / d)`.
    pub width: i64,
}

impl Obstacle {
    /// The obstacle at `d_mm` millimetres (d in metres = d_mm / 1000).
    pub fn at_mm(d_mm: i64) -> Self {
        Self {
            yb: HORIZON + round_div(240_000, d_mm),
            height: round_div(300_000, d_mm),
            width: round_div(360_000, d_mm),
        }
    }

    /// First column: `64 - width / 2` (so odd widths are centred exactly on column 64).
    pub fn x0(&self) -> i64 {
        CENTRE - self.width / 2
    }

    /// Top row: `yb - height`.
    pub fn y0(&self) -> i64 {
        self.yb - self.height
    }

    /// Whether camera pixel (x, y) is an obstacle pixel.
    pub fn covers(&self, x: i64, y: i64) -> bool {
        (self.y0()..self.yb).contains(&y) && (self.x0()..self.x0() + self.width).contains(&x)
    }
}

/// Renders the camera frame (u8, 128 x 96, row pitch 128). `shadow_rows` is the number of
/// shadow rows under the obstacle (2: rows yb and yb+1, the reading used for the golden files).
pub fn render(obstacle: Option<Obstacle>, shadow_rows: i64) -> Vec<u8> {
    let mut img = vec![0u8; CAM_W * CAM_H];
    for y in 0..CAM_H as i64 {
        for x in 0..CAM_W as i64 {
            let v = if y < HORIZON {
                170
            } else {
                60 + (y - HORIZON) / 3
            };
            img[(y as usize) * CAM_W + x as usize] = v as u8;
        }
        if y >= HORIZON {
            let off = (y - HORIZON) * 3 / 2;
            for x in [CENTRE - off, CENTRE + off] {
                let x = x.clamp(0, CAM_W as i64 - 1);
                img[(y as usize) * CAM_W + x as usize] = 140;
            }
        }
    }
    if let Some(o) = obstacle {
        let xs = o.x0().max(0)..(o.x0() + o.width).min(CAM_W as i64);
        for y in o.y0().max(0)..o.yb.min(CAM_H as i64) {
            for x in xs.clone() {
                img[(y as usize) * CAM_W + x as usize] = 230;
            }
        }
        for y in o.yb.max(0)..(o.yb + shadow_rows).min(CAM_H as i64) {
            for x in xs.clone() {
                img[(y as usize) * CAM_W + x as usize] = 20;
            }
        }
    }
    img
}

/// Preprocess: `image[y][x] = (sum of the 2x2 block at (2x, 2y) + 2) / 4 - 128`, int8
/// 48 x 64, returned as bytes (two's complement), row pitch 64.
pub fn preprocess(cam: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 48 * 64];
    for y in 0..48 {
        for x in 0..64 {
            let s: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .iter()
                .map(|(dx, dy)| u32::from(cam[(2 * y + dy) * CAM_W + 2 * x + dx]))
                .sum();
            out[y * 64 + x] = (((s + 2) / 4) as i32 - 128) as i8 as u8;
        }
    }
    out
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `loadables/` in the repository.
pub fn loadables_dir() -> PathBuf {
    repo_root().join("loadables")
}

/// A small network that uses every op kind, two inputs and three outputs (one of them an
/// intermediate tensor), packed and `dla_linear` layouts.
pub const MINI: &str = r#"
[network]
name = "mini"
format_version = 1

[[input]]
name = "a"
shape = [1, 2, 5, 6]
layout = "packed"
category = "image"

[[input]]
name = "b"
shape = [1, 1, 2, 3]
layout = "dla_linear"

[[output]]
name = "logits"
shape = [1, 2, 1, 1]
layout = "packed"

[[output]]
name = "features"
from = "pooled"
shape = [1, 3, 3, 2]
line_pitch = 5

[[output]]
name = "b_relu"
shape = [1, 1, 2, 3]

[[layer]]
name = "conv"
op = "conv2d"
input = "a"
output = "conv"
out_channels = 3
kernel = [3, 2]
stride = [1, 2]
padding = [1, 0, 1, 1]
relu = true
shift = 2
multiplier = 3
weights = [ 1, -2,  3,  4, -5,  6,   7, -8,  9, 10,-11, 12,
           -1,  2, -3,  4, -5,  6,  -7,  8, -9, 10,-11, 12,
          127,-128, 0,  1,  2,  3,   4,  5,  6,  7,  8,  9]
bias = [10, -20, 300]

[[layer]]
name = "pool"
op = "maxpool"
input = "conv"
output = "pooled"
kernel = 2
stride = 2
padding = [1, 1, 0, 0]

[[layer]]
name = "avg"
op = "avgpool"
input = "conv"
output = "avg"
kernel = [3, 3]
stride = 1
padding = 1
multiplier = 5
shift = 1

[[layer]]
op = "global_maxpool"
input = "avg"
output = "gmax"

[[layer]]
op = "global_avgpool"
input = "pooled"
output = "gavg"

[[layer]]
op = "relu"
input = "b"
output = "b_relu"

[[layer]]
name = "fc"
op = "dense"
input = "gavg"
output = "fc"
out_features = 2
shift = 1
  [[layer.filter]]
  bias = -3
  weights = [1, 2, 3]
  [[layer.filter]]
  bias = 1000
  fill = -1
    [[layer.filter.input]]
    channel = 1
    weights = [7]

[[layer]]
op = "dense"
input = "gmax"
output = "gfc"
out_features = 3
relu = true
fill = 2

[[layer]]
op = "dense"
input = "fc"
output = "logits"
out_features = 2
weights = [1, 0, 0, 1]
"#;

/// Deterministic pseudo-random numbers (xorshift64*).
pub struct XorShift(pub u64);

impl XorShift {
    /// Next 64-bit value.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Recomputes the SHA-256 trailer after a patch (no-op for files shorter than the trailer).
pub fn rehash(bytes: &mut [u8]) {
    if bytes.len() < 32 {
        return;
    }
    let n = bytes.len() - 32;
    let h = sil_loadable::sha256(&bytes[..n]);
    bytes[n..].copy_from_slice(&h);
}

/// Writes a little-endian u16 at `off`.
pub fn put_u16(bytes: &mut [u8], off: usize, v: u16) {
    bytes[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

/// Writes a little-endian u32 at `off`.
pub fn put_u32(bytes: &mut [u8], off: usize, v: u32) {
    bytes[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

/// Reads a little-endian u32 at `off`.
pub fn get_u32(bytes: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(bytes[off..off + 4].try_into().unwrap())
}

/// Runs `l` on `inputs` with freshly allocated outputs and scratch.
pub fn run_all(
    l: &sil_loadable::Loadable<'_>,
    inputs: &[&[u8]],
) -> Result<Vec<Vec<u8>>, sil_loadable::LoadableError> {
    let mut outs: Vec<Vec<u8>> = l.outputs().map(|d| vec![0xEEu8; d.size as usize]).collect();
    let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    let mut scratch = vec![0x77u8; l.scratch_size()];
    l.run(inputs, &mut refs, &mut scratch)?;
    Ok(outs)
}
