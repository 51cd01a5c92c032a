//! The operator kernels, on validated geometry (the loader checks every shape; a step
//! checks every buffer length before its kernel runs, so the indexing below stays in
//! bounds).
//!
//! Float arithmetic follows the ONNX operator definitions in f32, and is arranged so that
//! the result is the one any IEEE engine gets whenever [`crate::exact`] can prove it:
//! * sums of products (Conv, Gemm, MatMul) are accumulated in f64, which is exact while the
//!   sum fits 53 bits (the exactness rule needs 24), then rounded once to f32; a bias is
//!   then added with one f32 addition (onnxruntime's CPU kernels add it after the
//!   product sum, too);
//! * average pools sum in f64 (exact), round once to f32, then divide by the count in f32;
//! * QuantizeLinear divides by the scale in f32, rounds half to even and saturates;
//!   DequantizeLinear multiplies `(x - zero_point)` by the scale in f32.

use crate::data::Data;

/// The largest tensor rank.
pub const MAX_RANK: usize = 6;

/// Per-tensor or per-axis quantisation parameters: element `i` uses channel
/// `(i / inner) % axis_len`.
#[derive(Clone, Debug)]
pub(crate) struct QParams {
    pub scales: Vec<f32>,
    pub zero_points: Vec<i32>,
    pub axis_len: usize,
    pub inner: usize,
}

impl QParams {
    fn channel(&self, i: usize) -> usize {
        (i / self.inner) % self.axis_len
    }
}

/// A sliding window over one `h × w` plane: a `kh × kw` kernel with strides, dilations and
/// top/left padding, giving an `oh × ow` output. Shared by convolution and pooling.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plane {
    pub h: usize,
    pub w: usize,
    pub oh: usize,
    pub ow: usize,
    pub kh: usize,
    pub kw: usize,
    pub sh: usize,
    pub sw: usize,
    pub dh: usize,
    pub dw: usize,
    pub pt: usize,
    pub pl: usize,
}

impl Plane {
    /// Calls `f(kernel index ky * kw + kx, input index iy * w + ix)` for each tap of output
    /// `(oy, ox)` that falls inside the input, row by row (plain loops: this is the inner loop
    /// of every Conv and pool, also in unoptimised and sanitizer builds).
    #[inline]
    pub fn for_each_tap(&self, oy: usize, ox: usize, mut f: impl FnMut(usize, usize)) {
        for ky in 0..self.kh {
            let Some(iy) = tap(oy, self.sh, ky, self.dh, self.pt, self.h) else {
                continue;
            };
            for kx in 0..self.kw {
                if let Some(ix) = tap(ox, self.sw, kx, self.dw, self.pl, self.w) {
                    f(ky * self.kw + kx, iy * self.w + ix);
                }
            }
        }
    }
}

/// 2-D convolution geometry (NCHW, weights `[M][C/group][kH][kW]`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conv {
    pub n: usize,
    pub c: usize,
    pub m: usize,
    pub group: usize,
    pub bias: bool,
    pub plane: Plane,
}

/// Pooling geometry over `planes` planes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pool {
    pub planes: usize,
    pub plane: Plane,
    /// AveragePool `count_include_pad`.
    pub include_pad: bool,
}

/// How Gemm's `C` broadcasts over `[M, N]`: `C[i][j]` is at
/// `(i if rows > 1 else 0) * cols + (j if cols > 1 else 0)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bias2 {
    pub rows: usize,
    pub cols: usize,
}

/// Gemm with `alpha = beta = 1`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gemm {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub trans_a: bool,
    pub trans_b: bool,
    pub c: Option<Bias2>,
}

/// MatMul of `[batch, M, K]` by `[K, N]` (shared) or `[batch, K, N]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatMul {
    pub batch: usize,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub b_batched: bool,
}

/// Numpy-style broadcasting of two operands to `shape` (right-aligned, rank padded to
/// [`MAX_RANK`]; a stride of 0 repeats an element).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Broadcast {
    pub shape: [usize; MAX_RANK],
    pub a: [usize; MAX_RANK],
    pub b: [usize; MAX_RANK],
}

/// Concat: `outer` repetitions of each input's chunk, in input order.
#[derive(Clone, Debug)]
pub(crate) struct Concat {
    pub outer: usize,
    pub chunks: Vec<usize>,
}

/// Nearest-neighbour resize of `planes` planes through precomputed index maps.
#[derive(Clone, Debug)]
pub(crate) struct Resize {
    pub planes: usize,
    pub h: usize,
    pub w: usize,
    pub map_h: Vec<usize>,
    pub map_w: Vec<usize>,
}

/// What a step computes.
#[derive(Clone, Debug)]
pub(crate) enum Kernel {
    /// Identity, Flatten, Reshape: the elements unchanged.
    Copy,
    Relu,
    Dequantize(QParams),
    Quantize(QParams),
    Conv(Conv),
    MaxPool(Pool),
    AvgPool(Pool),
    GlobalPool {
        max: bool,
        planes: usize,
        size: usize,
    },
    Gemm(Gemm),
    MatMul(MatMul),
    Add(Broadcast),
    Concat(Concat),
    Resize(Resize),
}

/// Input `i` as f32 (empty if absent; lengths were checked by the caller).
fn fin<'a>(ins: &[&'a Data], i: usize) -> &'a [f32] {
    ins.get(i).map_or(&[], |d| d.f32s())
}

/// A nearest-value rounding that matches C's `nearbyintf` in the default mode.
fn round_half_even(x: f32) -> f32 {
    x.round_ties_even()
}

/// Runs one kernel. `out` has the step's output type and length.
pub(crate) fn exec(k: &Kernel, ins: &[&Data], out: &mut Data) {
    match (k, out) {
        (Kernel::Copy, out) => copy(ins.first().copied(), out),
        (Kernel::Relu, Data::F32(y)) => {
            for (y, &x) in y.iter_mut().zip(fin(ins, 0)) {
                *y = if x > 0.0 { x } else { 0.0 };
            }
        }
        (Kernel::Dequantize(q), Data::F32(y)) => match ins.first() {
            Some(Data::I8(x)) => {
                for (i, (y, &x)) in y.iter_mut().zip(x.iter()).enumerate() {
                    let c = q.channel(i);
                    *y = (i32::from(x) - q.zero_points[c]) as f32 * q.scales[c];
                }
            }
            Some(Data::I32(x)) => {
                // The loader requires a zero point of 0 for int32 (no overflow).
                for (i, (y, &x)) in y.iter_mut().zip(x.iter()).enumerate() {
                    let c = q.channel(i);
                    *y = x.wrapping_sub(q.zero_points[c]) as f32 * q.scales[c];
                }
            }
            _ => {}
        },
        (Kernel::Quantize(q), Data::I8(y)) => {
            for (i, (y, &x)) in y.iter_mut().zip(fin(ins, 0)).enumerate() {
                let c = q.channel(i);
                let v = round_half_even(x / q.scales[c]) + q.zero_points[c] as f32;
                // Saturate; `as` maps NaN to 0.
                *y = v.clamp(-128.0, 127.0) as i8;
            }
        }
        (Kernel::Conv(g), Data::F32(y)) => conv(g, fin(ins, 0), fin(ins, 1), fin(ins, 2), y),
        (Kernel::MaxPool(p), Data::F32(y)) => pool(p, fin(ins, 0), y, true),
        (Kernel::AvgPool(p), Data::F32(y)) => pool(p, fin(ins, 0), y, false),
        (Kernel::GlobalPool { max, planes, size }, Data::F32(y)) => {
            let x = fin(ins, 0);
            for (p, y) in y.iter_mut().enumerate().take(*planes) {
                let plane = &x[p * size..(p + 1) * size];
                *y = if *max {
                    plane.iter().copied().fold(f32::NEG_INFINITY, f32::max)
                } else {
                    let s: f64 = plane.iter().map(|&v| f64::from(v)).sum();
                    s as f32 / *size as f32
                };
            }
        }
        (Kernel::Gemm(g), Data::F32(y)) => gemm(g, fin(ins, 0), fin(ins, 1), fin(ins, 2), y),
        (Kernel::MatMul(g), Data::F32(y)) => matmul(g, fin(ins, 0), fin(ins, 1), y),
        (Kernel::Add(b), Data::F32(y)) => add(b, fin(ins, 0), fin(ins, 1), y),
        (Kernel::Concat(c), out) => concat(c, ins, out),
        (Kernel::Resize(r), out) => resize(r, ins.first().copied(), out),
        _ => {}
    }
}

/// `out = in`, element for element (same type and length).
fn copy(x: Option<&Data>, out: &mut Data) {
    match (x, out) {
        (Some(Data::F32(x)), Data::F32(y)) => y.copy_from_slice(x),
        (Some(Data::I8(x)), Data::I8(y)) => y.copy_from_slice(x),
        (Some(Data::I32(x)), Data::I32(y)) => y.copy_from_slice(x),
        (Some(Data::I64(x)), Data::I64(y)) => y.copy_from_slice(x),
        _ => {}
    }
}

/// The input index `o * stride + k * dilation - pad`, if inside `0..len`.
fn tap(
    o: usize,
    stride: usize,
    k: usize,
    dilation: usize,
    pad: usize,
    len: usize,
) -> Option<usize> {
    (o * stride + k * dilation)
        .checked_sub(pad)
        .filter(|&i| i < len)
}

fn conv(g: &Conv, x: &[f32], w: &[f32], b: &[f32], y: &mut [f32]) {
    let p = &g.plane;
    let cg = g.c / g.group;
    let mg = g.m / g.group;
    for n in 0..g.n {
        for oc in 0..g.m {
            let grp = oc / mg;
            let bias = if g.bias { Some(b[oc]) } else { None };
            for oy in 0..p.oh {
                for ox in 0..p.ow {
                    let mut acc = 0f64;
                    for ic in 0..cg {
                        let ci = grp * cg + ic;
                        let x_plane = &x[(n * g.c + ci) * p.h * p.w..][..p.h * p.w];
                        let w_k = &w[(oc * cg + ic) * p.kh * p.kw..][..p.kh * p.kw];
                        p.for_each_tap(oy, ox, |k, i| {
                            acc += f64::from(x_plane[i]) * f64::from(w_k[k]);
                        });
                    }
                    let mut v = acc as f32;
                    if let Some(b) = bias {
                        v += b;
                    }
                    y[((n * g.m + oc) * p.oh + oy) * p.ow + ox] = v;
                }
            }
        }
    }
}

fn pool(pool: &Pool, x: &[f32], y: &mut [f32], max: bool) {
    let p = &pool.plane;
    for pl in 0..pool.planes {
        let x_plane = &x[pl * p.h * p.w..][..p.h * p.w];
        for oy in 0..p.oh {
            for ox in 0..p.ow {
                let mut m = f32::NEG_INFINITY;
                let mut sum = 0f64;
                let mut count = 0usize;
                p.for_each_tap(oy, ox, |_, i| {
                    let v = x_plane[i];
                    m = m.max(v);
                    sum += f64::from(v);
                    count += 1;
                });
                y[(pl * p.oh + oy) * p.ow + ox] = if max {
                    m
                } else {
                    let d = if pool.include_pad { p.kh * p.kw } else { count };
                    sum as f32 / d.max(1) as f32
                };
            }
        }
    }
}

fn gemm(g: &Gemm, a: &[f32], b: &[f32], c: &[f32], y: &mut [f32]) {
    for i in 0..g.m {
        for j in 0..g.n {
            let mut acc = 0f64;
            for kk in 0..g.k {
                let av = if g.trans_a {
                    a[kk * g.m + i]
                } else {
                    a[i * g.k + kk]
                };
                let bv = if g.trans_b {
                    b[j * g.k + kk]
                } else {
                    b[kk * g.n + j]
                };
                acc += f64::from(av) * f64::from(bv);
            }
            let mut v = acc as f32;
            if let Some(cb) = g.c {
                let r = if cb.rows > 1 { i } else { 0 };
                let col = if cb.cols > 1 { j } else { 0 };
                v += c[r * cb.cols + col];
            }
            y[i * g.n + j] = v;
        }
    }
}

fn matmul(g: &MatMul, a: &[f32], b: &[f32], y: &mut [f32]) {
    for bt in 0..g.batch {
        let a_m = &a[bt * g.m * g.k..][..g.m * g.k];
        let b_m = if g.b_batched {
            &b[bt * g.k * g.n..][..g.k * g.n]
        } else {
            &b[..g.k * g.n]
        };
        let y_m = &mut y[bt * g.m * g.n..][..g.m * g.n];
        for i in 0..g.m {
            for j in 0..g.n {
                let mut acc = 0f64;
                for kk in 0..g.k {
                    acc += f64::from(a_m[i * g.k + kk]) * f64::from(b_m[kk * g.n + j]);
                }
                y_m[i * g.n + j] = acc as f32;
            }
        }
    }
}

fn add(bc: &Broadcast, a: &[f32], b: &[f32], y: &mut [f32]) {
    let mut idx = [0usize; MAX_RANK];
    for y in y.iter_mut() {
        let (mut oa, mut ob) = (0, 0);
        for ((&i, &sa), &sb) in idx.iter().zip(&bc.a).zip(&bc.b) {
            oa += i * sa;
            ob += i * sb;
        }
        *y = a[oa] + b[ob];
        // Advance the output index, last axis fastest.
        for d in (0..MAX_RANK).rev() {
            idx[d] += 1;
            if idx[d] < bc.shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

macro_rules! for_each_type {
    ($out:expr, $ins:expr, |$y:ident, $x:ident: $idx:ident| $body:expr) => {
        match $out {
            Data::F32($y) => {
                let $x = |$idx: usize| $ins.get($idx).map_or(&[][..], |d| d.f32s());
                $body
            }
            Data::I8($y) => {
                let $x = |$idx: usize| $ins.get($idx).map_or(&[][..], |d| d.i8s());
                $body
            }
            Data::I32($y) => {
                let $x = |$idx: usize| $ins.get($idx).map_or(&[][..], |d| d.i32s());
                $body
            }
            Data::I64($y) => {
                let $x = |$idx: usize| $ins.get($idx).map_or(&[][..], |d| d.i64s());
                $body
            }
        }
    };
}

fn concat(c: &Concat, ins: &[&Data], out: &mut Data) {
    for_each_type!(out, ins, |y, x: i| {
        let mut at = 0;
        for o in 0..c.outer {
            for (j, &chunk) in c.chunks.iter().enumerate() {
                y[at..at + chunk].copy_from_slice(&x(j)[o * chunk..(o + 1) * chunk]);
                at += chunk;
            }
        }
    })
}

fn resize(r: &Resize, x: Option<&Data>, out: &mut Data) {
    let ins: [&Data; 1] = match x {
        Some(d) => [d],
        None => return,
    };
    let (oh, ow) = (r.map_h.len(), r.map_w.len());
    for_each_type!(out, ins, |y, x: i| {
        let x = x(0);
        for p in 0..r.planes {
            let xp = &x[p * r.h * r.w..][..r.h * r.w];
            let yp = &mut y[p * oh * ow..][..oh * ow];
            for (oy, &iy) in r.map_h.iter().enumerate() {
                for (ox, &ix) in r.map_w.iter().enumerate() {
                    yp[oy * ow + ox] = xp[iy * r.w + ix];
                }
            }
        }
    })
}
