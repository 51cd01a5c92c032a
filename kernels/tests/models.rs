//! Reference models against hand-computed values.
//!
//! Covers: REQ-GPU-002

use orin_exec_kernels::fp::{f32_ulp_distance, f32_within_ulps, fmaf, roundf_to_i32};
use orin_exec_kernels::{
    Detection, ModelError, PostprocessParams, aeb_postprocess, aeb_preprocess, fill_pattern_u32,
    pattern_u32, saxpy_f32, stamp_globaltimer,
};

// ------------------------------------------------------------------------------------------
// aeb_preprocess

#[test]
fn preprocess_hand_computed() {
    #[rustfmt::skip]
    let src: [u8; 16] = [
        0,   0,   255, 255,
        0,   1,   255, 254,
        100, 101, 10,  20,
        102, 103, 30,  41,
    ];
    let mut dst = [0i8; 4];
    aeb_preprocess(&src, &mut dst, 4, 4).unwrap();
    // (0+0+0+1+2)/4 = 0 → -128; (255+255+255+254+2)/4 = 255 → 127;
    // (100+101+102+103+2)/4 = 102 → -26; (10+20+30+41+2)/4 = 25 → -103.
    assert_eq!(dst, [-128, 127, -26, -103]);
}

#[test]
fn preprocess_rounding_and_odd_sizes() {
    // sums 4k+1 → k, 4k+2 → k+1 (the +2 rounds half up).
    let src: [u8; 4] = [1, 0, 0, 0];
    let mut dst = [0i8; 1];
    aeb_preprocess(&src, &mut dst, 2, 2).unwrap();
    assert_eq!(dst, [-128]);
    let src: [u8; 4] = [1, 1, 0, 0];
    aeb_preprocess(&src, &mut dst, 2, 2).unwrap();
    assert_eq!(dst, [-127]);

    // 5 × 3: the last column and the last row are ignored; dst is 2 × 1 with pitch 2.
    #[rustfmt::skip]
    let src: [u8; 15] = [
        4, 8, 12, 16, 99,
        4, 8, 12, 16, 99,
        99, 99, 99, 99, 99,
    ];
    let mut dst = [7i8; 3];
    aeb_preprocess(&src, &mut dst, 5, 3).unwrap();
    // (4+8+4+8+2)/4 = 6 → -122; (12+16+12+16+2)/4 = 14 → -114; the extra element is untouched.
    assert_eq!(dst, [-122, -114, 7]);

    // Degenerate sizes write nothing.
    let mut none: [i8; 0] = [];
    aeb_preprocess(&[1], &mut none, 1, 1).unwrap();
    aeb_preprocess(&[], &mut none, 0, 9).unwrap();
}

#[test]
fn preprocess_checks_lengths() {
    let mut dst = [0i8; 4];
    assert_eq!(
        aeb_preprocess(&[0; 15], &mut dst, 4, 4),
        Err(ModelError::BufferTooSmall {
            param: "src",
            needed: 16,
            len: 15
        })
    );
    assert_eq!(
        aeb_preprocess(&[0; 16], &mut dst[..3], 4, 4),
        Err(ModelError::BufferTooSmall {
            param: "dst",
            needed: 4,
            len: 3
        })
    );
    let e = aeb_preprocess(&[0; 16], &mut dst, u32::MAX, u32::MAX).unwrap_err();
    assert!(matches!(
        e,
        ModelError::SizeOverflow { param: "src" } | ModelError::BufferTooSmall { .. }
    ));
    assert!(!e.to_string().is_empty());
}

/// The AEB synthetic scene of examples/aeb/README.md (128 × 96), obstacle at `d` metres.
fn scene(d: Option<f64>) -> Vec<u8> {
    let (w, h) = (128i64, 96i64);
    let mut img = vec![0u8; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            let v = if y < 24 { 170 } else { 60 + (y - 24) / 3 };
            img[(y * w + x) as usize] = v as u8;
        }
        if y >= 24 {
            let off = (y - 24) * 3 / 2;
            for x in [64 - off, 64 + off] {
                img[(y * w + x.clamp(0, w - 1)) as usize] = 140;
            }
        }
    }
    if let Some(d) = d {
        let yb = 24 + (240.0 / d).round() as i64;
        let oh = (300.0 / d).round() as i64;
        let ow = (360.0 / d).round() as i64;
        let x0 = 64 - ow / 2;
        for y in (yb - oh).max(0)..yb.min(h) {
            for x in x0.max(0)..(x0 + ow).min(w) {
                img[(y * w + x) as usize] = 230;
            }
        }
        for y in yb..(yb + 1).min(h) {
            for x in x0.max(0)..(x0 + ow).min(w) {
                img[(y * w + x) as usize] = 20;
            }
        }
    }
    img
}

/// Covers: REQ-AEB-001
#[test]
fn preprocess_synthetic_scene() {
    let img = scene(None);
    let mut t = vec![0i8; 64 * 48];
    aeb_preprocess(&img, &mut t, 128, 96).unwrap();
    // Sky: (4 * 170 + 2) / 4 - 128 = 42.
    assert!(t[..12 * 64].iter().all(|&v| v == 42));
    // Road rows 24, 25 → 60: tensor row 12 is -68 away from the lane lines (x = 64 ± 0, 64 ± 1).
    assert_eq!(t[12 * 64], -68);
    assert_eq!(t[12 * 64 + 40], -68);
    // Lane lines at tensor (12, 32): block x 64..66, y 24..26; row 24 has 140 at x = 64,
    // row 25 at x = 63 and 65: [140, 60; 60, 140].
    assert_eq!(t[12 * 64 + 32], ((140 + 60 + 60 + 140 + 2) / 4 - 128) as i8);
    // Bottom tensor row 47: src rows 94, 95 → 60 + 70/3 = 83, 60 + 71/3 = 83.
    assert_eq!(t[47 * 64 + 10], (83 - 128) as i8);
    // There the lane lines are clamped to columns 0 and 127: (140 + 83 + 140 + 83 + 2) / 4 = 112.
    assert_eq!(t[47 * 64], (112 - 128) as i8);
    assert_eq!(t[47 * 64 + 63], (112 - 128) as i8);

    // An obstacle at 10 m: bottom edge yb = 48, 30 px high, 36 px wide, centred on 64.
    let img = scene(Some(10.0));
    aeb_preprocess(&img, &mut t, 128, 96).unwrap();
    assert_eq!(t[20 * 64 + 32], (230 - 128) as i8); // src rows 40, 41 inside the obstacle
    assert_eq!(t[24 * 64 + 32], ((20 + 20 + 68 + 68 + 2) / 4 - 128) as i8); // shadow row 48, road row 49
}

// ------------------------------------------------------------------------------------------
// aeb_postprocess

/// AEB slice geometry: a map row r covers image rows 4r .. 4r+4, reference row 4r + 2.
const AEB: PostprocessParams = PostprocessParams {
    threshold: 50,
    lane_x0: 12,
    lane_x1: 20,
    row_scale: 4.0,
    row_offset: 2.0,
    horizon: 24.0,
    fh: 240.0,
};

fn map(w: usize, h: usize, fill: i8, cells: &[(usize, usize, i8)]) -> Vec<i8> {
    let mut m = vec![fill; w * h];
    for &(r, c, v) in cells {
        m[r * w + c] = v;
    }
    m
}

fn post(m: &[i8], w: u32, h: u32, p: &PostprocessParams) -> [i32; 4] {
    let mut out = [99; 4];
    aeb_postprocess(m, w, h, p, &mut out).unwrap();
    out
}

#[test]
fn postprocess_found_nearest_row() {
    // Two obstacles in the lane: rows 10 and 20; the nearest (bottom-most) is row 20.
    let m = map(32, 24, -100, &[(10, 15, 120), (20, 13, 60), (20, 19, 70)]);
    let out = post(&m, 32, 24, &AEB);
    // d = 20 * 4 + 2 - 24 = 58; 1000 * 240 / 58 = 4137.931 → 4138 mm.
    assert_eq!(out, [1, 20, 70, 4138]);
    assert_eq!(
        Detection::from_raw(out),
        Detection {
            found: true,
            row: 20,
            score: 70,
            distance_mm: 4138
        }
    );
    assert_eq!(Detection::from_raw(out).to_raw(), out);
}

#[test]
fn postprocess_not_found_reports_global_max() {
    // Everything in the lane is at or below the threshold; a strong cell outside the lane.
    let m = map(32, 24, -100, &[(5, 15, 50), (23, 2, 127), (22, 31, 90)]);
    assert_eq!(post(&m, 32, 24, &AEB), [0, -1, 127, -1]);
    // Empty map.
    assert_eq!(post(&[], 0, 0, &AEB), [0, -1, -128, -1]);
    assert_eq!(post(&[], 0, 24, &AEB), [0, -1, -128, -1]);
}

#[test]
fn postprocess_threshold_edge() {
    let m = map(32, 24, -128, &[(20, 15, 50)]);
    assert_eq!(post(&m, 32, 24, &AEB)[..3], [0, -1, 50]); // 50 is not > 50
    let p = PostprocessParams {
        threshold: 49,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p), [1, 20, 50, 4138]);
    // threshold -129: every row qualifies, the bottom row wins with the all -128 lane.
    let p = PostprocessParams {
        threshold: -129,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p)[..3], [1, 23, -128]);
    // threshold 127: nothing qualifies.
    let m = map(32, 24, 127, &[]);
    let p = PostprocessParams {
        threshold: 127,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p), [0, -1, 127, -1]);
}

#[test]
fn postprocess_lane_limits() {
    // Columns 11 and 20 are just outside [12, 20); 12 and 19 are just inside.
    let m = map(32, 24, 0, &[(23, 11, 100), (22, 20, 100)]);
    assert_eq!(post(&m, 32, 24, &AEB), [0, -1, 100, -1]);
    let m = map(32, 24, 0, &[(21, 12, 100), (18, 19, 101)]);
    assert_eq!(post(&m, 32, 24, &AEB)[..3], [1, 21, 100]);
    // lane_x1 beyond the map is clamped to map_w.
    let m = map(32, 24, 0, &[(17, 31, 100)]);
    let p = PostprocessParams {
        lane_x0: 30,
        lane_x1: 1000,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p)[..3], [1, 17, 100]);
    // An empty lane (x0 >= x1, or x0 >= map_w) finds nothing.
    for (x0, x1) in [(15, 15), (20, 10), (32, 40)] {
        let p = PostprocessParams {
            lane_x0: x0,
            lane_x1: x1,
            ..AEB
        };
        assert_eq!(post(&m, 32, 24, &p), [0, -1, 100, -1], "lane {x0}..{x1}");
    }
}

#[test]
fn postprocess_distance() {
    let m = map(32, 24, 0, &[(5, 15, 100)]);
    // Above the horizon: d = 5 * 4 + 2 - 24 = -2 → -1.
    assert_eq!(post(&m, 32, 24, &AEB), [1, 5, 100, -1]);
    // d == 0 → -1.
    let p = PostprocessParams {
        row_offset: 4.0,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p)[3], -1);
    // Halfway cases round away from zero: 1000 * 0.25 / 4 = 62.5 → 63, and -62.5 → -63.
    let p = PostprocessParams {
        row_scale: 1.0,
        row_offset: 0.0,
        horizon: 1.0,
        fh: 0.25,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p)[3], 63);
    let p = PostprocessParams { fh: -0.25, ..p };
    assert_eq!(post(&m, 32, 24, &p)[3], -63);
    // Saturation and NaN behave like the GPU's cvt.rzi.s32.f32.
    let p = PostprocessParams { fh: 1.0e30, ..AEB };
    assert_eq!(
        post(
            &m,
            32,
            24,
            &PostprocessParams {
                row_offset: 10.0,
                ..p
            }
        )[3],
        i32::MAX
    );
    let p = PostprocessParams {
        fh: f32::NAN,
        row_offset: 10.0,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p)[3], 0);
    // A NaN denominator is not > 0.
    let p = PostprocessParams {
        horizon: f32::NAN,
        ..AEB
    };
    assert_eq!(post(&m, 32, 24, &p)[3], -1);
}

/// Covers: REQ-AEB-001
#[test]
fn postprocess_scene_end_to_end() {
    // A crude stand-in for the detector: a map cell is its 2 × 2 tensor block's max.
    let img = scene(Some(10.0));
    let mut t = vec![0i8; 64 * 48];
    aeb_preprocess(&img, &mut t, 128, 96).unwrap();
    let mut m = vec![0i8; 32 * 24];
    for r in 0..24 {
        for c in 0..32 {
            m[r * 32 + c] = [
                t[2 * r * 64 + 2 * c],
                t[2 * r * 64 + 2 * c + 1],
                t[(2 * r + 1) * 64 + 2 * c],
                t[(2 * r + 1) * 64 + 2 * c + 1],
            ]
            .into_iter()
            .max()
            .unwrap();
        }
    }
    let out = post(
        &m,
        32,
        24,
        &PostprocessParams {
            threshold: 90,
            ..AEB
        },
    );
    // Obstacle rows 18..48 → map rows 4..=11 contain it; the bottom one is 11 (image rows 44..48).
    // d = 11 * 4 + 2 - 24 = 22 → 240000 / 22 = 10909.09 → 10909 mm (true bottom edge: 10 m).
    assert_eq!(out, [1, 11, 102, 10909]);
}

#[test]
fn postprocess_checks_lengths() {
    let mut out = [0; 4];
    assert_eq!(
        aeb_postprocess(&[0; 10], 4, 3, &AEB, &mut out),
        Err(ModelError::BufferTooSmall {
            param: "map",
            needed: 12,
            len: 10
        })
    );
    // A longer map is fine; only the first map_w * map_h elements are read.
    let mut m = map(4, 3, 0, &[(2, 1, 60)]);
    m.push(127);
    let p = PostprocessParams {
        lane_x0: 0,
        lane_x1: 4,
        ..AEB
    };
    assert_eq!(post(&m, 4, 3, &p)[..3], [1, 2, 60]);
    m[9] = 0;
    assert_eq!(post(&m, 4, 3, &p), [0, -1, 0, -1]);
}

// ------------------------------------------------------------------------------------------
// stamp_globaltimer, fill_pattern_u32, saxpy_f32

/// Covers: REQ-GPU-012
#[test]
fn stamp_writes_the_supplied_clock() {
    let mut slot = 0u64;
    stamp_globaltimer(&mut slot, 1_234_567_890_123);
    assert_eq!(slot, 1_234_567_890_123);
}

#[test]
fn fill_pattern_hand_computed() {
    // Values computed independently (Python, wrapping 32-bit arithmetic).
    assert_eq!(pattern_u32(0, 0), 0);
    assert_eq!(pattern_u32(1, 0), 0x01fc_e552);
    assert_eq!(pattern_u32(2, 7), 0x489c_36cb);
    assert_eq!(pattern_u32(0xffff_ffff, 0x1234_5678), 0xb8c8_93b2);
    let mut dst = [0xdead_beefu32; 4];
    fill_pattern_u32(&mut dst, 3, 7).unwrap();
    assert_eq!(
        dst,
        [
            pattern_u32(0, 7),
            pattern_u32(1, 7),
            0x489c_36cb,
            0xdead_beef
        ]
    );
    assert_eq!(
        fill_pattern_u32(&mut dst, 5, 0),
        Err(ModelError::BufferTooSmall {
            param: "dst",
            needed: 5,
            len: 4
        })
    );
}

#[test]
fn saxpy_hand_computed() {
    let x = [1.0f32, 2.0, -3.0, 0.5];
    let mut y = [10.0f32, 20.0, 30.0, 99.0];
    saxpy_f32(2.0, &x, &mut y, 3).unwrap();
    assert_eq!(y, [12.0, 24.0, 24.0, 99.0]);
    // One rounding: a * x + y with a = x = 1 + 2^-12, y = -(1 + 2^-11):
    // exact 2^-24, which a separately rounded product would lose.
    let a = 1.0 + f32::EPSILON * 2048.0;
    let mut y = [-(1.0 + f32::EPSILON * 4096.0)];
    saxpy_f32(a, &[a], &mut y, 1).unwrap();
    assert_eq!(y[0], 2f32.powi(-24));
    assert!(matches!(
        saxpy_f32(1.0, &[0.0; 2], &mut [0.0; 3], 3),
        Err(ModelError::BufferTooSmall { param: "x", .. })
    ));
}

// ------------------------------------------------------------------------------------------
// Floating-point helpers

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn f32(&mut self) -> f32 {
        let r = self.next();
        match r % 4 {
            // Any bit pattern (NaN, inf, subnormals included).
            0 => f32::from_bits((r >> 32) as u32),
            // Moderate exponents, so that products and addends interact.
            1 | 2 => {
                let e = 100 + (r >> 8) % 56;
                f32::from_bits(
                    ((r >> 63) as u32) << 31 | (e as u32) << 23 | ((r >> 20) as u32 & 0x7f_ffff),
                )
            }
            // Tiny values: subnormal results.
            _ => f32::from_bits(((r >> 63) as u32) << 31 | ((r >> 16) as u32 & 0x07ff_ffff)),
        }
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn soft_fmaf_matches_hardware_fma() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..2_000_000 {
        let (a, b, c) = (rng.f32(), rng.f32(), rng.f32());
        let want = a.mul_add(b, c);
        let got = fmaf(a, b, c);
        assert!(
            same(got, want),
            "fmaf({a:e}, {b:e}, {c:e}) = {got:e}, want {want:e}"
        );
    }
    // Products that cancel against the addend (catastrophic cancellation, exact results).
    for _ in 0..500_000 {
        let (a, b) = (rng.f32(), rng.f32());
        let p = a * b;
        let c = -p + f32::from_bits(rng.next() as u32 & 0x8000_00ff) * p.abs().max(1e-30) * 1e-7;
        assert!(
            same(fmaf(a, b, c), a.mul_add(b, c)),
            "fmaf({a:e}, {b:e}, {c:e})"
        );
    }
    // Signs of zero and specials.
    assert_eq!(fmaf(0.0, 1.0, -0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(fmaf(-0.0, 1.0, -0.0).to_bits(), (-0.0f32).to_bits());
    assert!(fmaf(f32::INFINITY, 0.0, 1.0).is_nan());
    assert_eq!(fmaf(f32::MAX, 2.0, 0.0), f32::INFINITY);
    assert_eq!(fmaf(1e-30, 1e-30, 1.0), 1.0);
}

#[test]
fn roundf_to_i32_like_cuda() {
    for (x, want) in [
        (0.0f32, 0),
        (0.49999997, 0),
        (0.5, 1),
        (-0.5, -1),
        (1.5, 2),
        (2.5, 3),
        (-2.5, -3),
        (4137.931, 4138),
        (8_388_607.5, 8_388_608),
        (8_388_608.0, 8_388_608),
        (16_777_217.0, 16_777_216),
        (2.0e9, 2_000_000_000),
        (3.0e9, i32::MAX),
        (-3.0e9, i32::MIN),
        (f32::INFINITY, i32::MAX),
        (f32::NEG_INFINITY, i32::MIN),
        (f32::NAN, 0),
    ] {
        assert_eq!(roundf_to_i32(x), want, "{x}");
    }
    let mut rng = Rng(42);
    for _ in 0..1_000_000 {
        let x = rng.f32();
        assert_eq!(roundf_to_i32(x), x.round() as i32, "{x:e}");
    }
}

#[test]
fn ulp_distance() {
    let one = 1.0f32;
    let next = f32::from_bits(one.to_bits() + 1);
    assert_eq!(f32_ulp_distance(one, next), Some(1));
    assert_eq!(f32_ulp_distance(0.0, -0.0), Some(0));
    assert_eq!(
        f32_ulp_distance(f32::from_bits(1), -f32::from_bits(1)),
        Some(2)
    );
    assert_eq!(f32_ulp_distance(f32::MAX, f32::INFINITY), Some(1));
    assert_eq!(f32_ulp_distance(f32::NAN, 1.0), None);
    assert!(f32_within_ulps(one, next, 1));
    assert!(!f32_within_ulps(one, f32::from_bits(one.to_bits() + 2), 1));
    assert!(f32_within_ulps(f32::NAN, -f32::NAN, 0));
    assert!(!f32_within_ulps(f32::NAN, 1.0, u32::MAX));
}
