//! The int8 interpreter: the op kernels and [`Loadable::run`].
//!
//! Arithmetic (normative, also in `loadables/README.md`):
//!
//! * conv2d / dense: `acc: i32 = bias`, then for every tap in order (input channel, then
//!   kernel row, then kernel column; dense: flattened input index) `acc = acc.saturating_add(x * w)`
//!   with `x`, `w` int8 (padding taps are skipped, i.e. zero padding). Then
//!   [`requantize`]`(acc, multiplier, shift)`, then `max(0, ·)` if the op has the relu flag.
//! * maxpool: the maximum of the window elements that lie inside the input (padding is
//!   ignored).
//! * avgpool: `sum` of the window elements inside the input (padding excluded), `count` of
//!   them, then [`pool_average`]`(sum, count, multiplier, shift)`.
//! * relu: `max(x, 0)`.

use crate::error::LoadableError;
use crate::format::{Loadable, Op, OpKind, SlotDesc, TensorDesc};

/// Requantises an i32 accumulator to int8: `v = acc * multiplier` (in i64); for `shift > 0`
/// `v = (v + (1 << (shift - 1))) >> shift` (arithmetic shift, i.e. rounding half up);
/// then clamp to `[-128, 127]`.
///
/// The parser only accepts shifts up to 31; larger values are treated as 62 here.
pub fn requantize(acc: i32, multiplier: i32, shift: u8) -> i8 {
    let v = i64::from(acc) * i64::from(multiplier);
    let s = u32::from(shift.min(62));
    let v = if s == 0 {
        v
    } else {
        (v + (1i64 << (s - 1))) >> s
    };
    clamp_i8(v)
}

/// Average of `count` int8 values summing to `sum`, with a gain: the value
/// `sum * multiplier / (count * 2^shift)` rounded half up, i.e.
/// `floor((2 * sum * multiplier + d) / (2 * d))` with `d = count << shift`, clamped to
/// `[-128, 127]`. With `multiplier = 1` and `shift = 0` it is the plain rounded mean.
/// `count = 0` gives 0. Shifts above 62 are treated as 62.
pub fn pool_average(sum: i64, count: u32, multiplier: i32, shift: u8) -> i8 {
    if count == 0 {
        return 0;
    }
    let num = i128::from(sum) * i128::from(multiplier);
    let d = i128::from(count) << u32::from(shift.min(62));
    let v = (2 * num + d).div_euclid(2 * d);
    clamp_i8(i64::try_from(v.clamp(-128, 127)).unwrap_or(0))
}

fn clamp_i8(v: i64) -> i8 {
    // The clamp makes the cast exact.
    v.clamp(-128, 127) as i8
}

fn x8(b: u8) -> i32 {
    i32::from(b as i8)
}

/// The geometry of a windowed op, from its slots and parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub c: usize,
    pub in_h: usize,
    pub in_w: usize,
    pub out_c: usize,
    pub out_h: usize,
    pub out_w: usize,
    pub kh: usize,
    pub kw: usize,
    pub sh: usize,
    pub sw: usize,
    pub pad_top: usize,
    pub pad_left: usize,
}

impl Window {
    fn from_op(op: &Op<'_>, src: &SlotDesc, dst: &SlotDesc) -> Self {
        let (kh, kw, sh, sw, pt, pl) = if op.global() {
            (src.h as usize, src.w as usize, 1, 1, 0, 0)
        } else {
            (
                usize::from(op.kernel[0]),
                usize::from(op.kernel[1]),
                usize::from(op.stride[0]),
                usize::from(op.stride[1]),
                usize::from(op.pad[0]),
                usize::from(op.pad[1]),
            )
        };
        Self {
            c: src.c as usize,
            in_h: src.h as usize,
            in_w: src.w as usize,
            out_c: dst.c as usize,
            out_h: dst.h as usize,
            out_w: dst.w as usize,
            kh,
            kw,
            sh,
            sw,
            pad_top: pt,
            pad_left: pl,
        }
    }

    /// Input rows (or columns) covered by window `o` along one axis, clipped to the input.
    fn span(o: usize, stride: usize, pad: usize, k: usize, len: usize) -> (usize, usize, usize) {
        // Returns (first input index, first kernel index, count).
        let start = (o * stride) as isize - pad as isize;
        let lo = start.max(0);
        let hi = (start + k as isize).min(len as isize);
        if hi <= lo {
            return (0, 0, 0);
        }
        (lo as usize, (lo - start) as usize, (hi - lo) as usize)
    }

    fn check(&self, input: &[u8], output: &[u8]) -> Result<(), LoadableError> {
        let in_len = self.c * self.in_h * self.in_w;
        let out_len = self.out_c * self.out_h * self.out_w;
        if input.len() < in_len || output.len() < out_len {
            return Err(LoadableError::ScratchTooSmall);
        }
        Ok(())
    }
}

/// Requantisation parameters of conv2d and dense.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Requant {
    pub multiplier: i32,
    pub shift: u8,
    pub relu: bool,
}

impl Requant {
    fn apply(&self, acc: i32) -> u8 {
        let v = requantize(acc, self.multiplier, self.shift);
        (if self.relu { v.max(0) } else { v }) as u8
    }
}

fn bias_at(bias: &[u8], o: usize) -> i32 {
    bias.get(4 * o..4 * o + 4)
        .and_then(|b| b.try_into().ok())
        .map(i32::from_le_bytes)
        .unwrap_or(0)
}

/// 2-D convolution. `weights` is `[out_c][c][kh][kw]` int8, `bias` `out_c` LE i32.
pub(crate) fn conv2d(
    g: &Window,
    rq: Requant,
    input: &[u8],
    weights: &[u8],
    bias: &[u8],
    output: &mut [u8],
) -> Result<(), LoadableError> {
    g.check(input, output)?;
    if weights.len() < g.out_c * g.c * g.kh * g.kw || bias.len() < 4 * g.out_c {
        return Err(LoadableError::ScratchTooSmall);
    }
    let plane = g.in_h * g.in_w;
    for o in 0..g.out_c {
        let b = bias_at(bias, o);
        let w_o = &weights[o * g.c * g.kh * g.kw..];
        for oy in 0..g.out_h {
            let (iy0, ky0, ny) = Window::span(oy, g.sh, g.pad_top, g.kh, g.in_h);
            for ox in 0..g.out_w {
                let (ix0, kx0, nx) = Window::span(ox, g.sw, g.pad_left, g.kw, g.in_w);
                let mut acc = b;
                for ci in 0..g.c {
                    let x_c = &input[ci * plane..];
                    let w_c = &w_o[ci * g.kh * g.kw..];
                    for dy in 0..ny {
                        let x_row = &x_c[(iy0 + dy) * g.in_w + ix0..];
                        let w_row = &w_c[(ky0 + dy) * g.kw + kx0..];
                        for dx in 0..nx {
                            acc = acc.saturating_add(x8(x_row[dx]) * x8(w_row[dx]));
                        }
                    }
                }
                output[(o * g.out_h + oy) * g.out_w + ox] = rq.apply(acc);
            }
        }
    }
    Ok(())
}

/// Fully connected layer over the flattened input. `weights` is `[out][in]`.
pub(crate) fn dense(
    rq: Requant,
    input: &[u8],
    weights: &[u8],
    bias: &[u8],
    output: &mut [u8],
) -> Result<(), LoadableError> {
    let n_in = input.len();
    if weights.len() < output.len() * n_in || bias.len() < 4 * output.len() {
        return Err(LoadableError::ScratchTooSmall);
    }
    for (o, out) in output.iter_mut().enumerate() {
        let w = &weights[o * n_in..(o + 1) * n_in];
        let mut acc = bias_at(bias, o);
        for (&x, &wi) in input.iter().zip(w) {
            acc = acc.saturating_add(x8(x) * x8(wi));
        }
        *out = rq.apply(acc);
    }
    Ok(())
}

/// Walks every pooling window: folds its in-bounds elements (padding ignored) from `init`
/// with `fold`, then writes `finish(acc, count)` to the output element.
fn pool(
    g: &Window,
    input: &[u8],
    output: &mut [u8],
    init: i64,
    fold: impl Fn(i64, i8) -> i64,
    finish: impl Fn(i64, u32) -> i8,
) -> Result<(), LoadableError> {
    g.check(input, output)?;
    let plane = g.in_h * g.in_w;
    for c in 0..g.c {
        let x_c = &input[c * plane..];
        for oy in 0..g.out_h {
            let (iy0, _, ny) = Window::span(oy, g.sh, g.pad_top, g.kh, g.in_h);
            for ox in 0..g.out_w {
                let (ix0, _, nx) = Window::span(ox, g.sw, g.pad_left, g.kw, g.in_w);
                let mut acc = init;
                for y in iy0..iy0 + ny {
                    for x in ix0..ix0 + nx {
                        acc = fold(acc, x_c[y * g.in_w + x] as i8);
                    }
                }
                let count = u32::try_from(ny * nx).unwrap_or(u32::MAX);
                output[(c * g.out_h + oy) * g.out_w + ox] = finish(acc, count) as u8;
            }
        }
    }
    Ok(())
}

/// Max pooling (padding ignored).
pub(crate) fn maxpool(g: &Window, input: &[u8], output: &mut [u8]) -> Result<(), LoadableError> {
    let max = |m: i64, x: i8| m.max(i64::from(x));
    // The fold stays within i8: it starts at i8::MIN and only takes i8 values.
    pool(g, input, output, i64::from(i8::MIN), max, |m, _| m as i8)
}

/// Average pooling (padding excluded from the count), see [`pool_average`].
pub(crate) fn avgpool(
    g: &Window,
    multiplier: i32,
    shift: u8,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), LoadableError> {
    let sum = |s: i64, x: i8| s + i64::from(x);
    pool(g, input, output, 0, sum, |s, count| {
        pool_average(s, count, multiplier, shift)
    })
}

/// `max(x, 0)`.
pub(crate) fn relu(input: &[u8], output: &mut [u8]) {
    for (o, &x) in output.iter_mut().zip(input) {
        *o = (x as i8).max(0) as u8;
    }
}

/// Borrows slot `src` immutably and slot `dst` mutably from the scratch buffer.
fn slot_pair<'s>(
    scratch: &'s mut [u8],
    src: &SlotDesc,
    dst: &SlotDesc,
) -> Result<(&'s [u8], &'s mut [u8]), LoadableError> {
    let err = LoadableError::ScratchTooSmall;
    let (s0, s1) = (src.offset, src.offset.checked_add(src.len()).ok_or(err)?);
    let (d0, d1) = (dst.offset, dst.offset.checked_add(dst.len()).ok_or(err)?);
    if s0 < d0 {
        if s1 > d0 {
            return Err(err);
        }
        let (a, b) = scratch.split_at_mut(d0.min(scratch.len()));
        Ok((a.get(s0..s1).ok_or(err)?, b.get_mut(..d1 - d0).ok_or(err)?))
    } else {
        if d1 > s0 {
            return Err(err);
        }
        let (a, b) = scratch.split_at_mut(s0.min(scratch.len()));
        Ok((b.get(..s1 - s0).ok_or(err)?, a.get_mut(d0..d1).ok_or(err)?))
    }
}

/// Copies a dense slot into a strided output buffer.
fn copy_out(d: &TensorDesc<'_>, slot: &SlotDesc, slot_bytes: &[u8], buf: &mut [u8]) -> Option<()> {
    let (c, h, w) = (slot.c as usize, slot.h as usize, slot.w as usize);
    let (line, plane) = (d.stride[1] as usize, d.stride[2] as usize);
    for ci in 0..c {
        for y in 0..h {
            let b0 = ci.checked_mul(plane)?.checked_add(y.checked_mul(line)?)?;
            let s0 = (ci * h + y) * w;
            buf.get_mut(b0..b0.checked_add(w)?)?
                .copy_from_slice(slot_bytes.get(s0..s0 + w)?);
        }
    }
    Some(())
}

/// Copies a strided input buffer into a dense slot.
fn copy_in(d: &TensorDesc<'_>, slot: &SlotDesc, buf: &[u8], slot_bytes: &mut [u8]) -> Option<()> {
    let (c, h, w) = (slot.c as usize, slot.h as usize, slot.w as usize);
    let (line, plane) = (d.stride[1] as usize, d.stride[2] as usize);
    for ci in 0..c {
        for y in 0..h {
            let b0 = ci.checked_mul(plane)?.checked_add(y.checked_mul(line)?)?;
            let s0 = (ci * h + y) * w;
            slot_bytes
                .get_mut(s0..s0 + w)?
                .copy_from_slice(buf.get(b0..b0.checked_add(w)?)?);
        }
    }
    Some(())
}

impl Loadable<'_> {
    /// Runs the network on the CPU.
    ///
    /// `inputs[i]` / `outputs[i]` are laid out as input / output descriptor `i` says (strides,
    /// size) and must be at least `size` bytes; bytes beyond `size` are neither read nor
    /// written. Output padding bytes (beyond `w` in each line) are written as 0. `scratch`
    /// must be at least [`Self::scratch_size`] bytes; its contents on entry do not matter.
    /// Allocates nothing. The result depends only on the input bytes.
    pub fn run(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        scratch: &mut [u8],
    ) -> Result<(), LoadableError> {
        if inputs.len() != self.num_inputs() {
            return Err(LoadableError::InputCount);
        }
        if outputs.len() != self.num_outputs() {
            return Err(LoadableError::OutputCount);
        }
        for (i, buf) in inputs.iter().enumerate() {
            let d = self.input(i).ok_or(LoadableError::InputCount)?;
            if (buf.len() as u64) < d.size {
                return Err(LoadableError::InputTooSmall { index: i as u16 });
            }
        }
        for (i, buf) in outputs.iter().enumerate() {
            let d = self.output(i).ok_or(LoadableError::OutputCount)?;
            if (buf.len() as u64) < d.size {
                return Err(LoadableError::OutputTooSmall { index: i as u16 });
            }
        }
        let scratch = scratch
            .get_mut(..self.scratch_size())
            .ok_or(LoadableError::ScratchTooSmall)?;

        let internal = LoadableError::ScratchTooSmall;
        for (i, buf) in inputs.iter().enumerate() {
            let d = self.input(i).ok_or(internal)?;
            let slot = self.slot(usize::from(d.slot)).ok_or(internal)?;
            let dst = scratch
                .get_mut(slot.offset..slot.offset + slot.len())
                .ok_or(internal)?;
            copy_in(&d, &slot, buf, dst).ok_or(internal)?;
        }

        for i in 0..self.num_ops() {
            let op = self.op(i).ok_or(internal)?;
            let src = self.slot(usize::from(op.input)).ok_or(internal)?;
            let dst = self.slot(usize::from(op.output)).ok_or(internal)?;
            let (x, y) = slot_pair(scratch, &src, &dst)?;
            let rq = Requant {
                multiplier: op.multiplier,
                shift: op.shift,
                relu: op.relu(),
            };
            match op.kind {
                OpKind::Conv2d => conv2d(
                    &Window::from_op(&op, &src, &dst),
                    rq,
                    x,
                    op.weights,
                    op.bias,
                    y,
                )?,
                OpKind::Dense => dense(rq, x, op.weights, op.bias, y)?,
                OpKind::Relu => relu(x, y),
                OpKind::MaxPool => maxpool(&Window::from_op(&op, &src, &dst), x, y)?,
                OpKind::AvgPool => avgpool(
                    &Window::from_op(&op, &src, &dst),
                    op.multiplier,
                    op.shift,
                    x,
                    y,
                )?,
            }
        }

        for (i, buf) in outputs.iter_mut().enumerate() {
            let d = self.output(i).ok_or(internal)?;
            let slot = self.slot(usize::from(d.slot)).ok_or(internal)?;
            let size = usize::try_from(d.size).map_err(|_| internal)?;
            let out = buf.get_mut(..size).ok_or(internal)?;
            out.fill(0);
            let src = scratch
                .get(slot.offset..slot.offset + slot.len())
                .ok_or(internal)?;
            copy_out(&d, &slot, src, out).ok_or(internal)?;
        }
        Ok(())
    }
}

/// Covers: REQ-LDB-002
#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    fn b(v: &[i8]) -> Vec<u8> {
        v.iter().map(|&x| x as u8).collect()
    }

    fn i(v: &[u8]) -> Vec<i8> {
        v.iter().map(|&x| x as i8).collect()
    }

    fn bias(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn win(c: usize, ih: usize, iw: usize, oc: usize, k: usize, s: usize, p: usize) -> Window {
        let oh = (ih + 2 * p - k) / s + 1;
        let ow = (iw + 2 * p - k) / s + 1;
        Window {
            c,
            in_h: ih,
            in_w: iw,
            out_c: oc,
            out_h: oh,
            out_w: ow,
            kh: k,
            kw: k,
            sh: s,
            sw: s,
            pad_top: p,
            pad_left: p,
        }
    }

    const PLAIN: Requant = Requant {
        multiplier: 1,
        shift: 0,
        relu: false,
    };

    #[test]
    fn requant_rounds_half_up() {
        // shift 1: x / 2 rounded half up.
        assert_eq!(requantize(5, 1, 1), 3); // 2.5 -> 3
        assert_eq!(requantize(-5, 1, 1), -2); // -2.5 -> -2 (half up)
        assert_eq!(requantize(-6, 1, 1), -3);
        assert_eq!(requantize(7, 1, 2), 2); // 1.75 -> 2
        assert_eq!(requantize(6, 1, 2), 2); // 1.5 -> 2
        assert_eq!(requantize(5, 1, 2), 1); // 1.25 -> 1
        assert_eq!(requantize(-6, 1, 2), -1); // -1.5 -> -1
        assert_eq!(requantize(-7, 1, 2), -2); // -1.75 -> -2
        // multiplier before shift, in 64 bits.
        assert_eq!(requantize(3, 3, 2), 2); // 9/4 = 2.25 -> 2
        assert_eq!(requantize(i32::MAX, i32::MAX, 31), 127);
        assert_eq!(requantize(i32::MIN, i32::MAX, 31), -128);
        // saturation
        assert_eq!(requantize(128, 1, 0), 127);
        assert_eq!(requantize(-129, 1, 0), -128);
        assert_eq!(requantize(1000, 1, 3), 125);
    }

    #[test]
    fn pool_average_rounds_half_up() {
        assert_eq!(pool_average(3, 2, 1, 0), 2); // 1.5 -> 2
        assert_eq!(pool_average(-3, 2, 1, 0), -1); // -1.5 -> -1
        assert_eq!(pool_average(-5, 2, 1, 0), -2); // -2.5 -> -2
        assert_eq!(pool_average(10, 4, 1, 0), 3); // 2.5 -> 3
        assert_eq!(pool_average(-7, 3, 1, 0), -2); // -2.33 -> -2
        assert_eq!(pool_average(-8, 3, 1, 0), -3); // -2.67 -> -3
        assert_eq!(pool_average(254, 768, 64, 0), 21); // 21.17
        assert_eq!(pool_average(100, 4, 1, 1), 13); // 12.5 -> 13
        assert_eq!(pool_average(1000, 1, 1, 0), 127);
        assert_eq!(pool_average(0, 0, 1, 0), 0);
    }

    #[test]
    fn conv_3x3_pad1_stride1_hand_computed() {
        // 1 channel 3x3 input, 1 output channel, 3x3 kernel of ones, bias 1, pad 1.
        let x = b(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let w = b(&[1; 9]);
        let g = win(1, 3, 3, 1, 3, 1, 1);
        let mut y = vec![0u8; 9];
        conv2d(&g, PLAIN, &x, &w, &bias(&[1]), &mut y).unwrap();
        // Corner (0,0): 1+2+4+5 = 12 (+1); centre: 45 (+1); edge (0,1): 1+2+3+4+5+6 = 21.
        assert_eq!(i(&y), [13, 22, 17, 28, 46, 34, 25, 40, 29]);
    }

    #[test]
    fn conv_stride2_two_channels_and_requant() {
        // 2 input channels 4x4, 2 output channels, 3x3 kernel, stride 2, pad 1 -> 2x2.
        let x: Vec<i8> = (0..32).map(|v| (v as i8) - 16).collect();
        // out 0: centre tap of channel 0 times 2; out 1: top-left tap of channel 1 times -1.
        let mut w = vec![0i8; 2 * 2 * 9];
        w[4] = 2; // o0, c0, (1,1)
        w[18 + 9] = -1; // o1, c1, (0,0)
        let g = win(2, 4, 4, 2, 3, 2, 1);
        let rq = Requant {
            multiplier: 1,
            shift: 1,
            relu: false,
        };
        let mut y = vec![0u8; 8];
        conv2d(&g, rq, &b(&x), &b(&w), &bias(&[0, 10]), &mut y).unwrap();
        // Output (oy,ox) window starts at input (2oy-1, 2ox-1).
        // o0: 2 * x0[2oy][2ox] >> 1 (exact) = x0 at (0,0),(0,2),(2,0),(2,2) = -16,-14,-8,-6.
        // o1: (10 - x1[2oy-1][2ox-1]) / 2 rounded half up; padding for oy=0 or ox=0 -> 10/2.
        //     (1,1): x1[1][1] = 16+5-16 = 5 -> (10-5)/2 = 2.5 -> 3.
        assert_eq!(i(&y), [-16, -14, -8, -6, 5, 5, 5, 3]);
    }

    #[test]
    fn conv_relu_and_saturating_accumulator() {
        let x = b(&[-128; 4]);
        let w = b(&[-128; 4]);
        let g = win(1, 2, 2, 1, 2, 1, 0);
        let mut y = vec![0u8; 1];
        conv2d(&g, PLAIN, &x, &w, &bias(&[i32::MAX - 10]), &mut y).unwrap();
        assert_eq!(y[0] as i8, 127);
        let rq = Requant {
            multiplier: 1,
            shift: 0,
            relu: true,
        };
        conv2d(&g, rq, &x, &b(&[1; 4]), &bias(&[0]), &mut y).unwrap();
        assert_eq!(y[0] as i8, 0);
        conv2d(&g, PLAIN, &x, &b(&[1; 4]), &bias(&[0]), &mut y).unwrap();
        assert_eq!(y[0] as i8, -128);
    }

    #[test]
    fn maxpool_2x2_and_padded() {
        let x = b(&[1, -2, 3, 4, 5, -6, 7, 8, -9, 10, 11, 12, 13, 14, -15, -16]);
        let g = win(1, 4, 4, 1, 2, 2, 0);
        let mut y = vec![0u8; 4];
        maxpool(&g, &x, &mut y).unwrap();
        assert_eq!(i(&y), [5, 8, 14, 12]);
        // 3x3 window, stride 2, pad 1 over an all-negative input: padding is ignored.
        let x = b(&[-5, -4, -3, -2, -1, -7, -8, -9, -10]);
        let g = win(1, 3, 3, 1, 3, 2, 1);
        let mut y = vec![0u8; 4];
        maxpool(&g, &x, &mut y).unwrap();
        assert_eq!(i(&y), [-1, -1, -1, -1]);
    }

    #[test]
    fn avgpool_windowed_global_and_gain() {
        let x = b(&[1, 2, 3, 4, 5, 6, 7, 8, -9, -10, -11, -13, 0, 0, 0, 1]);
        let g = win(1, 4, 4, 1, 2, 2, 0);
        let mut y = vec![0u8; 4];
        avgpool(&g, 1, 0, &x, &mut y).unwrap();
        // (1+2+5+6)/4 = 3.5 -> 4; (3+4+7+8)/4 = 5.5 -> 6; (-19)/4 = -4.75 -> -5; -23/4 -> -6
        assert_eq!(i(&y), [4, 6, -5, -6]);
        // Padded: 3x3 window, pad 1, stride 1 over 2x2: every window holds all 4 -> mean 2.5.
        let x = b(&[1, 2, 3, 4]);
        let g = win(1, 2, 2, 1, 3, 1, 1);
        let mut y = vec![0u8; 4];
        avgpool(&g, 1, 0, &x, &mut y).unwrap();
        assert_eq!(i(&y), [3, 3, 3, 3]);
        // Global over 2 channels, with gain 4: ch0 mean 2.5*4 = 10; ch1 mean -1*4 = -4.
        let x = b(&[1, 2, 3, 4, -1, -1, -1, -1]);
        let g = Window {
            kh: 2,
            kw: 2,
            out_h: 1,
            out_w: 1,
            ..win(2, 2, 2, 2, 2, 1, 0)
        };
        let mut y = vec![0u8; 2];
        avgpool(&g, 4, 0, &x, &mut y).unwrap();
        assert_eq!(i(&y), [10, -4]);
    }

    #[test]
    fn dense_hand_computed() {
        let x = b(&[1, -2, 3]);
        let w = b(&[1, 1, 1, 2, 0, -1]);
        let mut y = vec![0u8; 2];
        dense(
            Requant {
                multiplier: 3,
                shift: 1,
                relu: false,
            },
            &x,
            &w,
            &bias(&[1, -2]),
            &mut y,
        )
        .unwrap();
        // o0: (1 + 2) * 3 / 2 = 4.5 -> 5; o1: (-2 - 1) * 3 / 2 = -4.5 -> -4
        assert_eq!(i(&y), [5, -4]);
        dense(
            Requant {
                multiplier: 1,
                shift: 0,
                relu: true,
            },
            &x,
            &w,
            &bias(&[1, -2]),
            &mut y,
        )
        .unwrap();
        assert_eq!(i(&y), [3, 0]);
    }

    #[test]
    fn relu_op() {
        let x = b(&[-128, -1, 0, 1, 127]);
        let mut y = vec![0u8; 5];
        relu(&x, &mut y);
        assert_eq!(i(&y), [0, 0, 0, 1, 127]);
    }
}
