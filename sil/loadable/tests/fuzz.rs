//! Fuzz-style robustness: deterministic pseudo-random mutations of valid loadables (with and
//! without a repaired hash, so the structural checks are reached) must never panic, never
//! hang, and anything that parses must run on buffers of the sizes it declares.
//!
//! Covers: REQ-LDB-001
#![cfg(feature = "std")]

mod common;

use std::collections::BTreeMap;

use common::*;
use sil_loadable::builder::build;
use sil_loadable::{Loadable, LoadableError};

const ITERATIONS: usize = 20_000;
/// Parsed loadables with more scratch than this are not run (the run itself is bounded by
/// the format's work limit; this only keeps the test fast).
const RUN_SCRATCH_LIMIT: usize = 1 << 20;

fn mutate(rng: &mut XorShift, b: &mut Vec<u8>) {
    let interesting: [u32; 9] = [0, 1, 2, 0x7F, 0x80, 0xFF, 0xFFFF, 0x8000_0000, u32::MAX];
    for _ in 0..1 + rng.below(4) {
        if b.is_empty() {
            return;
        }
        let len = b.len();
        match rng.below(8) {
            0 => {
                let i = rng.below(len);
                b[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(len);
                b[i] = rng.next() as u8;
            }
            2 if len >= 4 => {
                // An interesting u32 at a 4-aligned offset (most fields are aligned).
                let i = rng.below(len / 4) * 4;
                let v = interesting[rng.below(interesting.len())];
                b[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            3 => {
                // A small field nudge in the header/tables region.
                let i = rng.below(len.min(1024));
                b[i] = b[i].wrapping_add(if rng.below(2) == 0 { 1 } else { 255 });
            }
            4 => b.truncate(rng.below(len)),
            5 => {
                let i = rng.below(len);
                let n = rng.below(64).min(len - i);
                let chunk: Vec<u8> = b[i..i + n].to_vec();
                let at = rng.below(len);
                b.splice(at..at, chunk);
            }
            6 => {
                let i = rng.below(len);
                let n = rng.below(64).min(len - i);
                b.drain(i..i + n);
            }
            _ => {
                // Fix the declared length to the actual one.
                if len >= 20 {
                    b[16..20].copy_from_slice(&(len as u32).to_le_bytes());
                }
            }
        }
    }
}

#[test]
fn mutated_loadables_never_panic() {
    let aeb = std::fs::read_to_string(loadables_dir().join("aeb_detector.toml")).unwrap();
    let bases = [build(MINI).unwrap(), build(&aeb).unwrap()];
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut ran = 0usize;
    for it in 0..ITERATIONS {
        let mut b = bases[it % bases.len()].clone();
        mutate(&mut rng, &mut b);
        if rng.below(4) != 0 {
            rehash(&mut b);
        }
        match Loadable::parse(&b) {
            Err(e) => {
                let key = format!("{e:?}");
                let key = key.split([' ', '(']).next().unwrap_or("").to_string();
                *outcomes.entry(key).or_default() += 1;
                assert!(!e.to_string().is_empty());
            }
            Ok(l) => {
                *outcomes.entry("Ok".into()).or_default() += 1;
                // Every accessor works on whatever parsed.
                for i in 0..l.num_ops() {
                    assert!(l.op(i).is_some());
                }
                for i in 0..l.num_slots() {
                    assert!(l.slot(i).is_some());
                }
                let _ = sil_loadable::describe::describe(&l);
                if l.scratch_size() <= RUN_SCRATCH_LIMIT {
                    let inputs: Vec<Vec<u8>> = l
                        .inputs()
                        .map(|d| (0..d.size).map(|_| rng.next() as u8).collect())
                        .collect();
                    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
                    let r: Result<_, LoadableError> = run_all(&l, &refs);
                    assert!(r.is_ok(), "a parsed loadable failed to run: {r:?}");
                    ran += 1;
                }
            }
        }
    }
    println!("outcomes over {ITERATIONS} mutations: {outcomes:?}; ran {ran}");
    // The mutations reach deep into the validator, not only the hash check.
    for key in [
        "HashMismatch",
        "Truncated",
        "BadTensor",
        "BadOpParams",
        "SectionOutOfRange",
        "Ok",
    ] {
        assert!(outcomes.contains_key(key), "no {key} among {outcomes:?}");
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = XorShift(42);
    for n in 0..2_000 {
        let len = rng.below(400);
        let mut b: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if n % 2 == 0 && b.len() >= 64 {
            b[..8].copy_from_slice(b"SILDLA\0\x01");
            b[8..12].copy_from_slice(&1u32.to_le_bytes());
            b[12..16].copy_from_slice(&64u32.to_le_bytes());
            b[16..20].copy_from_slice(&(len as u32).to_le_bytes());
            b[20..24].fill(0);
            b[56..64].fill(0);
            rehash(&mut b);
        }
        assert!(Loadable::parse(&b).is_err());
    }
}
