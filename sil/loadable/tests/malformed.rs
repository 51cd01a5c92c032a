//! Every class of malformed input maps to its typed error (and never panics).
//!
//! Covers: REQ-LDB-001
#![cfg(feature = "std")]

mod common;

use common::*;
use sil_loadable::builder::build;
use sil_loadable::{Loadable, LoadableError as E, MAGIC, TensorField as F};

const TENSORS: usize = 64;
const REC: usize = 152;

fn base() -> Vec<u8> {
    build(MINI).unwrap()
}

fn slots_off(b: &[u8]) -> usize {
    get_u32(b, 36) as usize
}

fn ops_off(b: &[u8]) -> usize {
    get_u32(b, 40) as usize
}

fn tensor(i: usize) -> usize {
    TENSORS + REC * i
}

/// Applies `f`, fixes the hash, parses.
fn parse_patched(f: impl FnOnce(&mut Vec<u8>)) -> Result<(), E> {
    let mut b = base();
    f(&mut b);
    rehash(&mut b);
    Loadable::parse(&b).map(|_| ())
}

fn expect(want: E, f: impl FnOnce(&mut Vec<u8>)) {
    assert_eq!(parse_patched(f), Err(want));
}

#[test]
fn the_base_is_valid() {
    assert!(Loadable::parse(&base()).is_ok());
}

#[test]
fn bad_magic() {
    for i in 0..8 {
        let mut b = base();
        b[i] ^= 0x20;
        assert_eq!(Loadable::parse(&b).map(|_| ()), Err(E::BadMagic));
    }
    assert_eq!(MAGIC, *b"SILDLA\0\x01");
}

#[test]
fn wrong_version() {
    for v in [0, 2, u32::MAX] {
        let mut b = base();
        put_u32(&mut b, 8, v);
        assert_eq!(
            Loadable::parse(&b).map(|_| ()),
            Err(E::UnsupportedVersion(v))
        );
    }
}

#[test]
fn bad_header() {
    expect(E::BadHeader, |b| put_u32(b, 12, 63));
    expect(E::BadHeader, |b| put_u32(b, 12, 65));
    expect(E::BadHeader, |b| put_u32(b, 20, 1));
    for off in 56..64 {
        expect(E::BadHeader, |b| b[off] = 1);
    }
    // Declared scratch size differs from the slots' sum.
    expect(E::BadHeader, |b| {
        let s = get_u32(b, 52);
        put_u32(b, 52, s + 1)
    });
}

#[test]
fn truncated_at_every_length() {
    let b = base();
    for n in 0..b.len() {
        assert_eq!(
            Loadable::parse(&b[..n]).map(|_| ()),
            Err(E::Truncated),
            "length {n}"
        );
        // Declaring the shorter length does not help: the hash (or the layout) breaks.
        if n >= 96 {
            let mut t = b[..n].to_vec();
            put_u32(&mut t, 16, n as u32);
            assert!(
                Loadable::parse(&t).is_err(),
                "length {n} with patched file length"
            );
            rehash(&mut t);
            assert!(
                Loadable::parse(&t).is_err(),
                "length {n} with patched length and hash"
            );
        }
    }
    let mut long = b.clone();
    long.push(0);
    assert_eq!(Loadable::parse(&long).map(|_| ()), Err(E::LengthMismatch));
}

#[test]
fn hash_mismatch() {
    let b = base();
    for i in [0x40, b.len() / 2, b.len() - 33, b.len() - 32, b.len() - 1] {
        let mut m = b.clone();
        m[i] ^= 1;
        assert_eq!(
            Loadable::parse(&m).map(|_| ()),
            Err(E::HashMismatch),
            "byte {i}"
        );
    }
}

#[test]
fn out_of_range_offsets() {
    for field in [32, 36, 40, 44, 48] {
        for delta in [1i64, -1, 1 << 20, -(1 << 20)] {
            expect(E::SectionOutOfRange, |b| {
                let v = get_u32(b, field) as i64 + delta;
                put_u32(b, field, v as u32)
            });
        }
        expect(E::SectionOutOfRange, |b| put_u32(b, field, u32::MAX));
    }
}

#[test]
fn out_of_range_counts() {
    expect(E::CountOutOfRange, |b| put_u16(b, 24, 0));
    expect(E::CountOutOfRange, |b| put_u16(b, 24, 17));
    expect(E::CountOutOfRange, |b| put_u16(b, 26, 0));
    expect(E::CountOutOfRange, |b| put_u16(b, 26, u16::MAX));
    expect(E::CountOutOfRange, |b| put_u16(b, 28, 0));
    expect(E::CountOutOfRange, |b| put_u16(b, 28, 257));
    expect(E::CountOutOfRange, |b| put_u16(b, 30, 257));
    // In range but inconsistent with the section offsets.
    expect(E::SectionOutOfRange, |b| put_u16(b, 24, 3));
    expect(E::SectionOutOfRange, |b| put_u16(b, 30, 8));
}

#[test]
fn zero_dims_and_size_overflow() {
    for k in 0..3 {
        expect(E::BadSlot { slot: 4 }, |b| {
            let o = slots_off(b) + 4 * 16 + 4 * k;
            put_u32(b, o, 0)
        });
        expect(E::BadSlot { slot: 4 }, |b| {
            let o = slots_off(b) + 4 * 16 + 4 * k;
            put_u32(b, o, 65_536)
        });
    }
    expect(E::BadSlot { slot: 0 }, |b| {
        let o = slots_off(b) + 12;
        put_u32(b, o, 1)
    });
    // 65535 * 65535 * 65535 does not fit the slot limit.
    expect(E::Overflow, |b| {
        let o = slots_off(b) + 2 * 16;
        for k in 0..3 {
            put_u32(b, o + 4 * k, 65_535);
        }
    });
    // Scratch over the limit: 17 slots of 16 MiB (builder path; nothing is allocated).
    let mut text = String::from(
        "[network]\nname = \"big\"\n[[input]]\nname = \"x\"\nshape = [1, 1, 4096, 4096]\nlayout = \"packed\"\n",
    );
    let mut prev = String::from("x");
    for i in 0..17 {
        text += &format!("[[layer]]\nop = \"relu\"\ninput = \"{prev}\"\noutput = \"r{i}\"\n");
        prev = format!("r{i}");
    }
    text += &format!(
        "[[output]]\nname = \"{prev}\"\nshape = [1, 1, 4096, 4096]\nlayout = \"packed\"\n"
    );
    let e = build(&text).unwrap_err().to_string();
    assert!(e.contains("limit exceeded"), "{e}");
    // Work over the limit: 256 -> 256 channel 3x3 conv over 256 x 256.
    let text = "[network]\nname = \"slow\"\n[[input]]\nname = \"x\"\nshape = [1, 256, 256, 256]\nlayout = \"packed\"\n\
                [[layer]]\nop = \"conv2d\"\ninput = \"x\"\noutput = \"y\"\nout_channels = 256\nkernel = 3\npadding = 1\nfill = 1\n\
                [[output]]\nname = \"y\"\nshape = [1, 256, 256, 256]\nlayout = \"packed\"\n";
    let e = build(text).unwrap_err().to_string();
    assert!(e.contains("limit exceeded"), "{e}");
}

#[test]
fn bad_tensor_descriptors() {
    let bad = |index: u16, field| E::BadTensor { index, field };
    expect(bad(0, F::Name), |b| b[tensor(0)] = 0);
    expect(bad(1, F::Name), |b| b[tensor(1)] = 0x80);
    expect(bad(1, F::Name), |b| b[tensor(1)] = b'\n');
    expect(bad(2, F::Name), |b| b[tensor(2) + 79] = b'x'); // byte after the NUL
    expect(E::DuplicateName { index: 1 }, |b| b[tensor(1)] = b'a');
    expect(bad(0, F::Size), |b| b[tensor(0) + 80] ^= 1);
    expect(bad(0, F::Size), |b| b[tensor(0) + 87] = 0xFF);
    expect(bad(3, F::Shape), |b| put_u32(b, tensor(3) + 88, 2));
    expect(bad(3, F::Shape), |b| put_u32(b, tensor(3) + 92, 4));
    expect(bad(3, F::Shape), |b| put_u32(b, tensor(3) + 100, 3));
    expect(bad(0, F::DataFormat), |b| b[tensor(0) + 104] = 2);
    expect(bad(0, F::DataType), |b| b[tensor(0) + 105] = 1);
    expect(bad(0, F::Category), |b| b[tensor(0) + 106] = 1);
    expect(bad(0, F::PixelFormat), |b| b[tensor(0) + 107] = 38);
    expect(bad(0, F::PixelMapping), |b| b[tensor(0) + 108] = 1);
    expect(bad(0, F::Reserved), |b| b[tensor(0) + 110] = 1);
    expect(bad(0, F::Reserved), |b| b[tensor(0) + 150] = 1);
    expect(bad(0, F::Strides), |b| put_u32(b, tensor(0) + 112, 2));
    expect(bad(0, F::Strides), |b| put_u32(b, tensor(0) + 116, 5)); // line pitch < w
    expect(bad(0, F::Strides), |b| put_u32(b, tensor(0) + 120, 31)); // plane pitch
    expect(bad(0, F::Strides), |b| put_u32(b, tensor(0) + 124, 61)); // batch pitch
    expect(bad(0, F::Strides), |b| put_u32(b, tensor(0) + 128, 1)); // unused stride
    expect(bad(0, F::Strides), |b| {
        put_u32(b, tensor(0) + 116, u32::MAX)
    });
    expect(bad(0, F::Slot), |b| put_u16(b, tensor(0) + 144, 11));
    expect(bad(1, F::Slot), |b| put_u16(b, tensor(1) + 144, 0)); // two inputs, one slot
    // An output bound to another slot of a different shape.
    expect(bad(2, F::Shape), |b| put_u16(b, tensor(2) + 144, 2));
}

/// Removes the last op record (keeping its weights), fixing offsets and length.
fn drop_last_op(b: &mut Vec<u8>) {
    let n = u16::from_le_bytes([b[30], b[31]]) as usize;
    let at = ops_off(b) + 48 * (n - 1);
    b.drain(at..at + 48);
    put_u16(b, 30, (n - 1) as u16);
    let w = get_u32(b, 44);
    put_u32(b, 44, w - 48);
    let len = b.len() as u32;
    put_u32(b, 16, len);
}

#[test]
fn bad_ops() {
    let ops = ops_off(&base());
    let op = |i: usize| ops + 48 * i;
    // Kind and flags.
    expect(E::BadOpKind { op: 0 }, |b| b[op(0)] = 0);
    expect(E::BadOpKind { op: 0 }, |b| b[op(0)] = 6);
    expect(E::BadOpKind { op: 1 }, |b| b[op(1) + 1] = 1); // relu flag on maxpool
    expect(E::BadOpKind { op: 0 }, |b| b[op(0) + 1] = 2); // global flag on conv
    expect(E::BadOpKind { op: 5 }, |b| b[op(5) + 1] = 1); // any flag on relu
    // Parameters.
    expect(E::BadOpParams { op: 0 }, |b| b[op(0) + 6] = 0); // kernel 0
    expect(E::BadOpParams { op: 0 }, |b| b[op(0) + 9] = 0); // stride 0
    expect(E::BadOpParams { op: 0 }, |b| b[op(0) + 10] = 3); // pad >= kernel
    expect(E::BadOpParams { op: 1 }, |b| b[op(1) + 13] = 2);
    expect(E::BadOpParams { op: 0 }, |b| b[op(0) + 14] = 32); // shift
    expect(E::BadOpParams { op: 0 }, |b| put_u32(b, op(0) + 16, 0)); // multiplier
    expect(E::BadOpParams { op: 0 }, |b| {
        put_u32(b, op(0) + 16, u32::MAX)
    }); // negative
    expect(E::BadOpParams { op: 1 }, |b| put_u32(b, op(1) + 16, 1)); // maxpool multiplier
    expect(E::BadOpParams { op: 0 }, |b| b[op(0) + 15] = 1); // reserved
    expect(E::BadOpParams { op: 0 }, |b| b[op(0) + 47] = 1);
    expect(E::BadOpParams { op: 3 }, |b| b[op(3) + 6] = 1); // kernel on a global pool
    expect(E::BadOpParams { op: 5 }, |b| b[op(5) + 14] = 1); // shift on relu
    expect(E::BadOpParams { op: 6 }, |b| b[op(6) + 6] = 1); // kernel on dense
    // Shapes.
    expect(E::ShapeMismatch { op: 0 }, |b| put_u32(b, op(0) + 20, 3)); // in_channels
    expect(E::ShapeMismatch { op: 0 }, |b| put_u32(b, op(0) + 24, 2)); // out_channels
    expect(E::ShapeMismatch { op: 0 }, |b| b[op(0) + 8] = 2); // stride 2 -> other height
    expect(E::ShapeMismatch { op: 6 }, |b| put_u32(b, op(6) + 20, 4)); // dense in
    expect(E::ShapeMismatch { op: 1 }, |b| b[op(1) + 6] = 9); // window larger than input
    expect(E::ShapeMismatch { op: 5 }, |b| put_u16(b, op(5) + 2, 5)); // relu: other shape
    // Weights.
    expect(E::WeightsOutOfRange { op: 0 }, |b| {
        put_u32(b, op(0) + 32, 35)
    });
    expect(E::WeightsOutOfRange { op: 0 }, |b| {
        put_u32(b, op(0) + 40, 8)
    });
    expect(E::WeightsOutOfRange { op: 0 }, |b| {
        put_u32(b, op(0) + 28, u32::MAX)
    });
    expect(E::WeightsOutOfRange { op: 0 }, |b| {
        put_u32(b, op(0) + 36, 1 << 20)
    });
    expect(E::WeightsOutOfRange { op: 8 }, |b| {
        let w = get_u32(b, 48);
        put_u32(b, op(8) + 28, w - 2)
    });
    expect(E::WeightsOutOfRange { op: 5 }, |b| {
        put_u32(b, op(5) + 32, 1)
    }); // relu weights
    // Slot references.
    expect(E::BadSlotRef { op: 0 }, |b| put_u16(b, op(0) + 2, 11)); // out of range
    expect(E::BadSlotRef { op: 0 }, |b| put_u16(b, op(0) + 4, 0)); // writes an input
    expect(E::BadSlotRef { op: 1 }, |b| put_u16(b, op(1) + 4, 2)); // in == out
    expect(E::BadSlotRef { op: 1 }, |b| put_u16(b, op(1) + 2, 4)); // used before defined
    expect(E::BadSlotRef { op: 2 }, |b| put_u16(b, op(2) + 4, 3)); // defined twice
    // A slot nothing defines (the last op removed): its output reads an undefined slot.
    expect(E::UndefinedSlot { slot: 10 }, drop_last_op);
}

#[test]
fn errors_display_and_are_errors() {
    let errors = [
        E::Truncated,
        E::BadMagic,
        E::UnsupportedVersion(7),
        E::BadTensor {
            index: 1,
            field: F::Strides,
        },
        E::BadOpParams { op: 3 },
        E::UndefinedSlot { slot: 2 },
    ];
    for e in errors {
        let s = e.to_string();
        assert!(!s.is_empty());
        let _: &dyn core::error::Error = &e;
    }
    assert_eq!(
        E::BadTensor {
            index: 1,
            field: F::Strides
        }
        .to_string(),
        "tensor 1: bad strides"
    );
}
