//! Builder → parser → interpreter round trip, checked against an independent reference
//! implementation of the documented arithmetic, plus builder and `run` error handling.
#![cfg(feature = "std")]

mod common;

use common::*;
use sil_loadable::builder::build;
use sil_loadable::{Loadable, LoadableError, OpKind, describe};

/// A dense int tensor for the reference model.
#[derive(Clone, Debug, PartialEq)]
struct T {
    c: usize,
    h: usize,
    w: usize,
    v: Vec<i64>,
}

impl T {
    fn at(&self, c: usize, y: isize, x: isize) -> Option<i64> {
        if y < 0 || x < 0 || y as usize >= self.h || x as usize >= self.w {
            return None;
        }
        Some(self.v[(c * self.h + y as usize) * self.w + x as usize])
    }
}

/// round half up of `num / den` (den > 0), via f64 (exact for the small values used here).
fn round_half_up(num: i64, den: i64) -> i64 {
    ((num as f64) / (den as f64) + 0.5).floor() as i64
}

fn sat8(v: i64) -> i64 {
    v.clamp(-128, 127)
}

fn requant(acc: i64, mult: i64, shift: u32, relu: bool) -> i64 {
    assert!(acc.abs() < 1 << 31, "reference assumes no i32 saturation");
    let v = sat8(round_half_up(acc * mult, 1 << shift));
    if relu { v.max(0) } else { v }
}

#[allow(clippy::too_many_arguments)]
fn conv(
    x: &T,
    w: &[i64],
    b: &[i64],
    oc: usize,
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 4],
    m: i64,
    sh: u32,
    relu: bool,
) -> T {
    let oh = (x.h + p[0] + p[2] - k[0]) / s[0] + 1;
    let ow = (x.w + p[1] + p[3] - k[1]) / s[1] + 1;
    let mut v = Vec::new();
    for o in 0..oc {
        for oy in 0..oh {
            for ox in 0..ow {
                let mut acc = b[o];
                for ci in 0..x.c {
                    for ky in 0..k[0] {
                        for kx in 0..k[1] {
                            let y = (oy * s[0] + ky) as isize - p[0] as isize;
                            let xx = (ox * s[1] + kx) as isize - p[1] as isize;
                            if let Some(val) = x.at(ci, y, xx) {
                                acc += val * w[((o * x.c + ci) * k[0] + ky) * k[1] + kx];
                            }
                        }
                    }
                }
                v.push(requant(acc, m, sh, relu));
            }
        }
    }
    T {
        c: oc,
        h: oh,
        w: ow,
        v,
    }
}

fn pool(x: &T, k: [usize; 2], s: [usize; 2], p: [usize; 4], avg: Option<(i64, u32)>) -> T {
    let oh = (x.h + p[0] + p[2] - k[0]) / s[0] + 1;
    let ow = (x.w + p[1] + p[3] - k[1]) / s[1] + 1;
    let mut v = Vec::new();
    for c in 0..x.c {
        for oy in 0..oh {
            for ox in 0..ow {
                let vals: Vec<i64> = (0..k[0])
                    .flat_map(|ky| (0..k[1]).map(move |kx| (ky, kx)))
                    .filter_map(|(ky, kx)| {
                        x.at(
                            c,
                            (oy * s[0] + ky) as isize - p[0] as isize,
                            (ox * s[1] + kx) as isize - p[1] as isize,
                        )
                    })
                    .collect();
                v.push(match avg {
                    None => *vals.iter().max().unwrap(),
                    Some((m, sh)) => sat8(round_half_up(
                        vals.iter().sum::<i64>() * m,
                        vals.len() as i64 * (1 << sh),
                    )),
                });
            }
        }
    }
    T {
        c: x.c,
        h: oh,
        w: ow,
        v,
    }
}

fn global(x: &T, avg: Option<(i64, u32)>) -> T {
    pool(x, [x.h, x.w], [1, 1], [0; 4], avg)
}

fn dense(x: &T, w: &[i64], b: &[i64], n: usize, m: i64, sh: u32, relu: bool) -> T {
    let v = (0..n)
        .map(|o| {
            let acc = b[o]
                + x.v
                    .iter()
                    .zip(&w[o * x.v.len()..])
                    .map(|(a, b)| a * b)
                    .sum::<i64>();
            requant(acc, m, sh, relu)
        })
        .collect();
    T {
        c: n,
        h: 1,
        w: 1,
        v,
    }
}

/// The MINI network, by hand, from the README arithmetic.
fn mini_reference(a: &T, b: &T) -> (T, T, T) {
    #[rustfmt::skip]
    let cw = [1, -2, 3, 4, -5, 6, 7, -8, 9, 10, -11, 12,
              -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12,
              127, -128, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    let c1 = conv(
        a,
        &cw,
        &[10, -20, 300],
        3,
        [3, 2],
        [1, 2],
        [1, 0, 1, 1],
        3,
        2,
        true,
    );
    let pooled = pool(&c1, [2, 2], [2, 2], [1, 1, 0, 0], None);
    let avg = pool(&c1, [3, 3], [1, 1], [1, 1, 1, 1], Some((5, 1)));
    let _gmax = global(&avg, None);
    let gavg = global(&pooled, Some((1, 0)));
    let b_relu = T {
        v: b.v.iter().map(|&x| x.max(0)).collect(),
        ..b.clone()
    };
    let fc = dense(&gavg, &[1, 2, 3, -1, 7, -1], &[-3, 1000], 2, 1, 1, false);
    let logits = dense(&fc, &[1, 0, 0, 1], &[0, 0], 2, 1, 0, false);
    (logits, pooled, b_relu)
}

fn inputs(rng: &mut XorShift) -> (T, T) {
    let a = T {
        c: 2,
        h: 5,
        w: 6,
        v: (0..60).map(|_| (rng.next() % 256) as i64 - 128).collect(),
    };
    let b = T {
        c: 1,
        h: 2,
        w: 3,
        v: (0..6).map(|_| (rng.next() % 256) as i64 - 128).collect(),
    };
    (a, b)
}

/// Covers: REQ-LDB-002
#[test]
fn mini_network_matches_the_reference() {
    let bytes = build(MINI).unwrap();
    let l = Loadable::parse(&bytes).unwrap();
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for _ in 0..200 {
        let (a, b) = inputs(&mut rng);
        let ab: Vec<u8> = a.v.iter().map(|&x| x as i8 as u8).collect(); // packed
        // b is dla_linear: line pitch 64; padding bytes hold garbage that must not be read.
        let mut bb: Vec<u8> = (0..128).map(|_| rng.next() as u8).collect();
        for y in 0..2 {
            for x in 0..3 {
                bb[y * 64 + x] = b.v[y * 3 + x] as i8 as u8;
            }
        }
        let outs = run_all(&l, &[&ab, &bb]).unwrap();
        let (logits, pooled, b_relu) = mini_reference(&a, &b);
        let dense_of = |t: &T, buf: &[u8], d: sil_loadable::TensorDesc<'_>| {
            let mut v = Vec::new();
            for c in 0..t.c {
                for y in 0..t.h {
                    for x in 0..t.w {
                        v.push(i64::from(
                            buf[d.offset_of(c as u64, y as u64, x as u64) as usize] as i8,
                        ));
                    }
                }
            }
            v
        };
        assert_eq!(dense_of(&logits, &outs[0], l.output(0).unwrap()), logits.v);
        assert_eq!(dense_of(&pooled, &outs[1], l.output(1).unwrap()), pooled.v);
        assert_eq!(dense_of(&b_relu, &outs[2], l.output(2).unwrap()), b_relu.v);
        // Padding bytes of strided outputs are written as 0.
        for (i, buf) in outs.iter().enumerate() {
            let d = l.output(i).unwrap();
            let data: usize = (d.c * d.h * d.w) as usize;
            let zeros = buf.iter().filter(|&&x| x == 0).count();
            assert!(zeros >= buf.len() - data, "output {i}: padding not zeroed");
        }
    }
}

/// Covers: REQ-LDB-001
#[test]
fn descriptors_round_trip() {
    let bytes = build(MINI).unwrap();
    let l = Loadable::parse(&bytes).unwrap();
    assert_eq!(
        (l.num_inputs(), l.num_outputs(), l.num_ops(), l.num_slots()),
        (2, 3, 9, 11)
    );
    assert_eq!(l.format_version(), 1);
    let a = l.input(0).unwrap();
    assert_eq!(a.name(), b"a");
    assert_eq!((a.n, a.c, a.h, a.w, a.size), (1, 2, 5, 6, 60));
    assert_eq!(a.stride, [1, 6, 30, 60, 0, 0, 0, 0]);
    assert_eq!(
        (
            a.data_format,
            a.data_type,
            a.data_category,
            a.pixel_format,
            a.pixel_mapping
        ),
        (1, 4, 0, 36, 0)
    );
    let b = l.input(1).unwrap();
    assert_eq!((b.size, b.stride), (128, [1, 64, 128, 128, 0, 0, 0, 0]));
    assert_eq!(b.data_category, 2);
    let logits = l.output(0).unwrap();
    assert_eq!(
        (logits.name_str(), logits.size, logits.stride),
        ("logits", 2, [1, 1, 1, 2, 0, 0, 0, 0])
    );
    let f = l.output(1).unwrap();
    assert_eq!(
        (f.name_str(), f.c, f.h, f.w, f.size),
        ("features", 3, 3, 2, 45)
    );
    assert_eq!(f.stride, [1, 5, 15, 45, 0, 0, 0, 0]);
    let mut c_name = [0u8; 81];
    c_name[..8].copy_from_slice(b"features");
    assert_eq!(f.name_c(), c_name);
    assert!(l.input(2).is_none() && l.output(3).is_none());
    assert_eq!(l.inputs().count(), 2);
    assert_eq!(
        l.outputs().map(|d| d.name_str()).collect::<Vec<_>>(),
        ["logits", "features", "b_relu"]
    );
    let kinds: Vec<OpKind> = (0..l.num_ops()).map(|i| l.op(i).unwrap().kind).collect();
    use OpKind::*;
    assert_eq!(
        kinds,
        [
            Conv2d, MaxPool, AvgPool, MaxPool, AvgPool, Relu, Dense, Dense, Dense
        ]
    );
    let conv = l.op(0).unwrap();
    assert_eq!(
        (
            conv.kernel,
            conv.stride,
            conv.pad,
            conv.shift,
            conv.multiplier
        ),
        ([3, 2], [1, 2], [1, 0, 1, 1], 2, 3)
    );
    assert!(conv.relu() && !conv.global());
    assert_eq!(
        (conv.weights.len(), conv.bias.len(), conv.bias_at(2)),
        (36, 12, 300)
    );
    assert!(l.op(3).unwrap().global());
    // gfc: fill = 2 everywhere, bias 0.
    let gfc = l.op(7).unwrap();
    assert!(gfc.weights.iter().all(|&w| w == 2) && gfc.weights.len() == 9);
    // fc filter 1: fill -1 with channel 1 = 7.
    let fc = l.op(6).unwrap();
    assert_eq!(
        fc.weights.iter().map(|&w| w as i8).collect::<Vec<_>>(),
        [1, 2, 3, -1, 7, -1]
    );
    assert_eq!(fc.bias_at(1), 1000);
    // Scratch: the sum of all slot sizes.
    let total: usize = (0..l.num_slots()).map(|i| l.slot(i).unwrap().len()).sum();
    assert_eq!(l.scratch_size(), total);
    assert_eq!(
        l.hash(),
        &sil_loadable::sha256(&bytes[..bytes.len() - 32])[..]
    );
    let text = describe::describe(&l);
    for needle in [
        "format version 1",
        "input 0 `a`",
        "output 2 `b_relu`",
        "op 0: conv2d",
        "global",
        "dense",
    ] {
        assert!(
            text.contains(needle),
            "describe output lacks {needle}:\n{text}"
        );
    }
}

/// Covers: REQ-LDB-003
#[test]
fn builds_are_reproducible() {
    assert_eq!(build(MINI).unwrap(), build(MINI).unwrap());
    let aeb = std::fs::read_to_string(loadables_dir().join("aeb_detector.toml")).unwrap();
    assert_eq!(build(&aeb).unwrap(), build(&aeb).unwrap());
}

/// Covers: REQ-LDB-003
#[test]
fn builder_rejects_bad_descriptions() {
    let cases: &[(&str, &str, &str)] = &[
        ("op = \"relu\"", "op = \"sigmoid\"", "unknown op `sigmoid`"),
        ("out_features = 3", "out_features = 0", "dimension"),
        (
            "bias = [10, -20, 300]",
            "bias = [10, -20]",
            "`bias` has 2 values",
        ),
        ("127,-128, 0,", "128,-128, 0,", "outside -128..=127"),
        ("bias = -3", "bias = 3000000000", "i32"),
        ("channel = 1", "channel = 3", "input channel 3 out of range"),
        (
            "weights = [7]",
            "weights = [7, 8]",
            "has 2 weights, expected 1",
        ),
        ("weights = [1, 2, 3]", "weights = [1, 2]", "expected 3"),
        (
            "shape = [1, 3, 3, 2]",
            "shape = [1, 3, 3, 3]",
            "does not match",
        ),
        (
            "from = \"pooled\"",
            "from = \"nope\"",
            "no tensor named `nope`",
        ),
        (
            "input = \"gavg\"",
            "input = \"later\"",
            "unknown input tensor `later`",
        ),
        ("output = \"gmax\"", "output = \"avg\"", "defined twice"),
        (
            "padding = [1, 1, 0, 0]",
            "padding = [2, 1, 0, 0]",
            "do not fit",
        ),
        ("kernel = [3, 3]", "kernel = [9, 3]", "do not fit"),
        (
            "multiplier = 5",
            "multiplier = 0",
            "multiplier must be >= 1",
        ),
        ("shift = 2", "shift = 32", "shift must be 0..=31"),
        ("name = \"b_relu\"", "name = \"a\"", "duplicate tensor name"),
        ("name = \"logits\"", "name = \"\"", "printable ASCII"),
        (
            "format_version = 1",
            "format_version = 2",
            "format_version 2",
        ),
        (
            "layout = \"packed\"\ncategory = \"image\"",
            "line_pitch = 3",
            "line pitch 3 < width 6",
        ),
        (
            "op = \"global_maxpool\"",
            "op = \"global_maxpool\"\nkernel = 2",
            "`kernel` does not apply",
        ),
        (
            "out_features = 3\nrelu = true",
            "out_features = 3\nrelu = true\nkernel = 1",
            "`kernel` does not apply",
        ),
        ("op = \"relu\"", "op = \"relu\"\nfill = 1", "does not apply"),
    ];
    for (from, to, want) in cases {
        assert!(MINI.contains(from), "case {from:?} does not apply to MINI");
        let text = MINI.replacen(from, to, 1);
        let e = build(&text).expect_err(to);
        assert!(
            e.to_string().contains(want),
            "{to:?}: got `{e}`, want `{want}`"
        );
    }
    assert!(
        build("not toml [")
            .unwrap_err()
            .to_string()
            .starts_with("description:")
    );
    assert!(build(&MINI.replace("[network]", "[network]\nbogus = 1")).is_err());
}

/// Covers: REQ-LDB-001
#[test]
fn run_checks_buffers() {
    let bytes = build(MINI).unwrap();
    let l = Loadable::parse(&bytes).unwrap();
    let a = vec![0u8; 60];
    let b = vec![0u8; 128];
    let mut o0 = vec![0u8; 2];
    let mut o1 = vec![0u8; 45];
    let mut o2 = vec![0u8; 128];
    let mut scratch = vec![0u8; l.scratch_size()];
    assert_eq!(
        l.run(&[&a], &mut [&mut o0, &mut o1, &mut o2], &mut scratch),
        Err(LoadableError::InputCount)
    );
    assert_eq!(
        l.run(&[&a, &b], &mut [&mut o0, &mut o1], &mut scratch),
        Err(LoadableError::OutputCount)
    );
    assert_eq!(
        l.run(
            &[&a, &b[..127]],
            &mut [&mut o0, &mut o1, &mut o2],
            &mut scratch
        ),
        Err(LoadableError::InputTooSmall { index: 1 })
    );
    assert_eq!(
        l.run(
            &[&a, &b],
            &mut [&mut o0, &mut o1[..44], &mut o2],
            &mut scratch
        ),
        Err(LoadableError::OutputTooSmall { index: 1 })
    );
    let n = scratch.len() - 1;
    assert_eq!(
        l.run(
            &[&a, &b],
            &mut [&mut o0, &mut o1, &mut o2],
            &mut scratch[..n]
        ),
        Err(LoadableError::ScratchTooSmall)
    );
    // Larger buffers are fine; bytes beyond `size` are left alone.
    let mut big = vec![0x5Au8; 200];
    let mut scratch = vec![0u8; l.scratch_size() + 10];
    l.run(&[&a, &b], &mut [&mut o0, &mut o1, &mut big], &mut scratch)
        .unwrap();
    assert!(big[128..].iter().all(|&x| x == 0x5A));
    for e in [
        LoadableError::InputCount,
        LoadableError::ScratchTooSmall,
        LoadableError::HashMismatch,
    ] {
        assert!(!e.to_string().is_empty());
    }
}
