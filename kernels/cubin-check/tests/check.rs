//! cubin-check against real nvcc 13.0.88 output: the committed kernel cubins, and PTX, fatbin,
//! debug-cubin and host-object inputs built from `tests/data/tiny.cu` (see `tests/data/gen.sh`).
//!
//! Covers: REQ-GPU-004

use cubin_check::{CubinError, ElfPart, check_cubin, sm_from_e_flags};

macro_rules! cubin {
    ($file:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../cubins/", $file)).as_slice()
    };
}
macro_rules! data {
    ($file:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $file)).as_slice()
    };
}

/// (image, sm, kernels in symbol table order)
const REAL: &[(&[u8], u32, &[&str])] = &[
    (
        cubin!("aeb.sm_87.cubin"),
        87,
        &["aeb_postprocess", "aeb_preprocess"],
    ),
    (
        cubin!("aeb.sm_90.cubin"),
        90,
        &["aeb_postprocess", "aeb_preprocess"],
    ),
    (
        cubin!("selftest.sm_87.cubin"),
        87,
        &["saxpy_f32", "fill_pattern_u32"],
    ),
    (
        cubin!("selftest.sm_90.cubin"),
        90,
        &["saxpy_f32", "fill_pattern_u32"],
    ),
    (cubin!("timing.sm_87.cubin"), 87, &["stamp_globaltimer"]),
    (cubin!("timing.sm_90.cubin"), 90, &["stamp_globaltimer"]),
    (data!("tiny.sm_90.cubin"), 90, &["tiny"]),
];

/// Covers: REQ-GPU-001
#[test]
fn real_cubins_pass() {
    for &(image, sm, kernels) in REAL {
        let info = check_cubin(image, sm).unwrap_or_else(|e| panic!("sm_{sm}: {e}"));
        assert_eq!(info.sm(), sm);
        assert_eq!(info.abi_version(), 8);
        assert_eq!(info.e_flags(), 0x0600_0004 | (sm << 8));
        let names: Vec<&str> = info.kernel_names().collect();
        assert_eq!(names, kernels);
        for k in kernels {
            assert!(info.kernel(k).is_some());
        }
        assert!(info.kernel("nope").is_none());
        let tk = info.toolkit().expect("tkinfo note");
        assert_eq!(tk.tool, "ptxas");
        assert_eq!(tk.version, "Cuda compilation tools, release 13.0, V13.0.88");
        assert!(
            tk.options.contains(&format!("-arch sm_{sm}")),
            "{}",
            tk.options
        );
    }
}

/// Covers: REQ-RT-007
#[test]
fn kernel_params_match_the_sources() {
    let info = check_cubin(cubin!("aeb.sm_87.cubin"), 87).unwrap();
    let post = info.kernel("aeb_postprocess").unwrap();
    let sizes: Vec<u16> = post.params().map(|p| p.size).collect();
    assert_eq!(sizes, [8, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8]);
    let offsets: Vec<u16> = post.params().map(|p| p.offset).collect();
    assert_eq!(offsets, [0, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48]);
    assert_eq!(post.param_bytes(), Some(56));
    let pre = info.kernel("aeb_preprocess").unwrap();
    assert_eq!(pre.param_count(), 4);
    assert_eq!(pre.param(3).map(|p| (p.offset, p.size)), Some((20, 4)));
    assert_eq!(pre.param(4), None);

    let info = check_cubin(cubin!("selftest.sm_90.cubin"), 90).unwrap();
    let saxpy = info.kernel("saxpy_f32").unwrap();
    let layout: Vec<(u16, u16)> = saxpy.params().map(|p| (p.offset, p.size)).collect();
    assert_eq!(layout, [(0, 4), (8, 8), (16, 8), (24, 4)]);
}

#[test]
fn wrong_sm() {
    assert_eq!(
        check_cubin(cubin!("aeb.sm_87.cubin"), 90).unwrap_err(),
        CubinError::WrongSm {
            expected: 90,
            found: 87
        }
    );
    assert_eq!(
        check_cubin(cubin!("timing.sm_90.cubin"), 87).unwrap_err(),
        CubinError::WrongSm {
            expected: 87,
            found: 90
        }
    );
}

#[test]
fn ptx_text_is_rejected() {
    let ptx = data!("tiny.ptx");
    assert!(ptx.starts_with(b"//"));
    assert_eq!(
        check_cubin(ptx, 90).unwrap_err(),
        CubinError::ContainsPtx { offset: 0 }
    );
    // Variants: bare directive, leading whitespace and block comments, NUL-terminated.
    for text in [
        &b".version 9.0\n.target sm_90\n"[..],
        b"\n\t  .target sm_87\n",
        b"/* header */ // line\n  .version 8.5\n",
        b"garbage first\n.target compute_90\n\0",
    ] {
        assert_eq!(
            check_cubin(text, 90).unwrap_err(),
            CubinError::ContainsPtx { offset: 0 },
            "{}",
            String::from_utf8_lossy(text)
        );
    }
    assert_eq!(
        check_cubin(b"// nothing\n", 90).unwrap_err(),
        CubinError::NotElf
    );
    assert_eq!(
        check_cubin(b"/* unterminated", 90).unwrap_err(),
        CubinError::NotElf
    );
}

#[test]
fn fatbin_is_rejected() {
    let fatbin = data!("tiny.fatbin");
    assert_eq!(&fatbin[..4], &0xBA55_ED50u32.to_le_bytes());
    assert_eq!(
        check_cubin(fatbin, 90).unwrap_err(),
        CubinError::IsFatbin { offset: 0 }
    );
}

#[test]
fn host_object_with_fatbin_section_is_rejected() {
    // An x86-64 ELF with .nv_fatbin: the fatbin is reported before the wrong machine.
    let err = check_cubin(data!("tiny_host.o"), 90).unwrap_err();
    assert!(
        matches!(err, CubinError::IsFatbin { offset } if offset > 0),
        "{err}"
    );
}

#[test]
fn debug_cubin_with_ptx_section_is_rejected() {
    let err = check_cubin(data!("tiny_debug.sm_90.cubin"), 90).unwrap_err();
    assert!(
        matches!(err, CubinError::ContainsPtx { offset } if offset > 0),
        "{err}"
    );
}

/// Replaces one section name in .shstrtab (same length) of a copy of `image`.
fn rename_section(image: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let mut v = image.to_vec();
    let mut pat = from.to_vec();
    pat.push(0);
    let pos = v.windows(pat.len()).position(|w| w == pat).expect("name");
    v[pos..pos + to.len()].copy_from_slice(to);
    v
}

#[test]
fn ptx_or_fatbin_sections_and_text_are_rejected() {
    let good = cubin!("timing.sm_90.cubin");
    let v = rename_section(good, b".nv.compat", b".nv_fatbin");
    assert!(matches!(
        check_cubin(&v, 90),
        Err(CubinError::IsFatbin { .. })
    ));
    let v = rename_section(good, b".nv.compat", b".nv.PTX.xx");
    assert!(matches!(
        check_cubin(&v, 90),
        Err(CubinError::ContainsPtx { .. })
    ));
    // PTX directive text planted in a section's data.
    let mut v = good.to_vec();
    let at = v.len() - 64;
    v[at..at + 13].copy_from_slice(b".target sm_90");
    assert_eq!(
        check_cubin(&v, 90).unwrap_err(),
        CubinError::ContainsPtx { offset: at as u64 }
    );
}

#[test]
fn other_elves_are_rejected() {
    let good = cubin!("timing.sm_87.cubin");
    let mut v = good.to_vec();
    v[4] = 1; // ELFCLASS32
    assert_eq!(
        check_cubin(&v, 87).unwrap_err(),
        CubinError::NotElf64Le { class: 1, data: 1 }
    );
    let mut v = good.to_vec();
    v[18..20].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    assert_eq!(
        check_cubin(&v, 87).unwrap_err(),
        CubinError::NotCuda { machine: 62 }
    );
    let mut v = good.to_vec();
    v[16..18].copy_from_slice(&1u16.to_le_bytes()); // ET_REL
    assert_eq!(
        check_cubin(&v, 87).unwrap_err(),
        CubinError::NotExecutable { elf_type: 1 }
    );
    let mut v = good.to_vec();
    v[8] = 9;
    assert_eq!(
        check_cubin(&v, 87).unwrap_err(),
        CubinError::UnknownAbiVersion { version: 9 }
    );
    assert_eq!(check_cubin(b"", 87).unwrap_err(), CubinError::NotElf);
    assert_eq!(
        check_cubin(b"MZ\x90\x00", 87).unwrap_err(),
        CubinError::NotElf
    );
}

#[test]
fn old_abi_encoding() {
    // ABI version <= 7 keeps the SM in the low byte of e_flags.
    assert_eq!(sm_from_e_flags(7, 0x0050_0550), Ok(80));
    assert_eq!(sm_from_e_flags(8, 0x0600_5704), Ok(87));
    let mut v = cubin!("timing.sm_87.cubin").to_vec();
    v[8] = 7;
    v[48..52].copy_from_slice(&0x0057_0557u32.to_le_bytes());
    let info = check_cubin(&v, 87).unwrap();
    assert_eq!((info.sm(), info.abi_version()), (87, 7));
    v[48..52].copy_from_slice(&0x0057_055au32.to_le_bytes());
    assert_eq!(
        check_cubin(&v, 87).unwrap_err(),
        CubinError::WrongSm {
            expected: 87,
            found: 90
        }
    );
}

#[test]
fn every_truncation_is_an_error_without_panic() {
    for &(image, sm, _) in REAL {
        for n in 0..image.len() {
            let err = check_cubin(&image[..n], sm).expect_err("truncated image accepted");
            // Sections are laid out before the headers at the end, so cutting the file is
            // always reported as truncation (or, for a cut inside the magic, as not ELF).
            assert!(
                matches!(err, CubinError::Truncated { .. })
                    || (n == 0 && err == CubinError::NotElf),
                "len {n}: {err}"
            );
        }
    }
    let err = check_cubin(&cubin!("aeb.sm_90.cubin")[..10], 90).unwrap_err();
    assert_eq!(
        err,
        CubinError::Truncated {
            part: ElfPart::Header,
            end: 64,
            len: 10
        }
    );
}

/// xorshift64*: deterministic, no dependencies.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0usize;
    for &(image, sm, _) in REAL {
        for round in 0..3000 {
            let mut v = image.to_vec();
            let flips = 1 + (rng.next() % 8) as usize;
            for _ in 0..flips {
                let i = (rng.next() % v.len() as u64) as usize;
                // Bias half the flips into the headers and tables, where parsing happens.
                let i = if round % 2 == 0 {
                    i % 0x600.min(v.len())
                } else {
                    i
                };
                v[i] ^= 1 << (rng.next() % 8);
            }
            if let Ok(info) = check_cubin(&v, sm) {
                accepted += 1;
                // Whatever is accepted must be fully iterable without panicking.
                for k in info.kernels() {
                    let _ = (k.name(), k.param_count(), k.param_bytes());
                    for p in k.params() {
                        let _ = p;
                    }
                }
                let _ = info.toolkit();
            }
        }
    }
    // Most flips land in SASS or constant data, which the checker does not interpret.
    assert!(accepted > 0);
    // The rejected inputs, flipped and truncated, must not panic either.
    for image in [
        data!("tiny.ptx"),
        data!("tiny.fatbin"),
        data!("tiny_debug.sm_90.cubin"),
        data!("tiny_host.o"),
    ] {
        for n in 0..image.len() {
            let _ = check_cubin(&image[..n], 90);
        }
        for _ in 0..2000 {
            let mut v = image.to_vec();
            for _ in 0..1 + rng.next() % 8 {
                let i = (rng.next() % v.len() as u64) as usize;
                v[i] ^= 1 << (rng.next() % 8);
            }
            let _ = check_cubin(&v, 90).map(|info| info.kernels().count());
        }
    }
}

#[test]
fn errors_display_what_is_wrong() {
    let e = CubinError::WrongSm {
        expected: 87,
        found: 90,
    };
    assert_eq!(e.to_string(), "cubin is for sm_90, expected sm_87");
    let e: &dyn core::error::Error = &CubinError::ContainsPtx { offset: 0 };
    assert!(e.to_string().contains("PTX"));
    let e = CubinError::Truncated {
        part: ElfPart::Section { index: 3 },
        end: 100,
        len: 50,
    };
    assert_eq!(
        e.to_string(),
        "truncated: the data of section 3 ends at byte 100 but the image has 50 bytes"
    );
}
