//! The check is linear in the image: counts that would make it quadratic are refused with a
//! typed error, and the work it does is bounded by the image's size. Built from the real
//! `tests/data/tiny.sm_90.cubin` by replacing its `.nv.info.tiny` section.
//!
//! Covers: REQ-ROB-042

use cubin_check::{CubinError, MAX_KERNEL_PARAMS, MAX_KERNELS, MAX_NAME_LEN, check_cubin};

const TINY: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/tiny.sm_90.cubin"
));

fn u16_at(b: &[u8], o: usize) -> usize {
    usize::from(u16::from_le_bytes([b[o], b[o + 1]]))
}

fn u64_at(b: &[u8], o: usize) -> usize {
    usize::try_from(u64::from_le_bytes(b[o..o + 8].try_into().unwrap())).unwrap()
}

/// Offset of the section header of the section named `name`.
fn shdr_of(image: &[u8], name: &[u8]) -> usize {
    let (shoff, shnum, shstrndx) = (u64_at(image, 40), u16_at(image, 60), u16_at(image, 62));
    let strtab = u64_at(image, shoff + shstrndx * 64 + 24);
    (0..shnum)
        .map(|i| shoff + i * 64)
        .find(|&h| {
            let off = strtab + u32::from_le_bytes(image[h..h + 4].try_into().unwrap()) as usize;
            image[off..].starts_with(name) && image[off + name.len()] == 0
        })
        .expect("section")
}

/// `image` with the data of section `name` replaced by `data`, appended at the end.
fn with_section_data(image: &[u8], name: &[u8], data: &[u8]) -> Vec<u8> {
    let h = shdr_of(image, name);
    let mut out = image.to_vec();
    let at = out.len() as u64;
    out.extend_from_slice(data);
    out[h + 24..h + 32].copy_from_slice(&at.to_le_bytes());
    out[h + 32..h + 40].copy_from_slice(&(data.len() as u64).to_le_bytes());
    out
}

/// `n` `EIATTR_KPARAM_INFO` records of 4-byte parameters, ordinals `n-1` down to 0 (the order
/// nvcc writes them in).
fn kparams(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n * 16);
    for ordinal in (0..n).rev() {
        let ordinal = u16::try_from(ordinal).unwrap();
        v.extend_from_slice(&[4, 0x17, 12, 0, 0, 0, 0, 0]);
        v.extend_from_slice(&ordinal.to_le_bytes());
        v.extend_from_slice(&ordinal.wrapping_mul(4).to_le_bytes());
        v.extend_from_slice(&(4u32 << 18).to_le_bytes());
    }
    v
}

/// The case: a 1 MB cubin with 65,535 parameter records (each ordinal once) took 13 s
/// to check (every ordinal looked up by a scan of every record) and was accepted.
#[test]
fn a_kernel_with_65535_parameters_is_refused() {
    let image = with_section_data(TINY, b".nv.info.tiny", &kparams(65_535));
    assert!(image.len() > 1 << 20);
    assert_eq!(
        check_cubin(&image, 90).unwrap_err(),
        CubinError::TooMany {
            what: "parameters in one kernel",
            limit: MAX_KERNEL_PARAMS as u64
        }
    );
}

#[test]
fn a_kernel_at_the_parameter_limit_is_accepted_one_past_it_is_not() {
    let image = with_section_data(TINY, b".nv.info.tiny", &kparams(MAX_KERNEL_PARAMS));
    let info = check_cubin(&image, 90).unwrap();
    let k = info.kernel("tiny").unwrap();
    assert_eq!(k.param_count(), MAX_KERNEL_PARAMS);
    assert!(
        k.params()
            .map(|p| usize::from(p.ordinal))
            .eq(0..MAX_KERNEL_PARAMS)
    );
    let image = with_section_data(TINY, b".nv.info.tiny", &kparams(MAX_KERNEL_PARAMS + 1));
    assert!(matches!(
        check_cubin(&image, 90),
        Err(CubinError::TooMany { limit, .. }) if limit == MAX_KERNEL_PARAMS as u64
    ));
}

/// The one-pass ordinal check finds a repeated or missing ordinal anywhere in the list.
#[test]
fn ordinals_must_be_dense_and_distinct() {
    let dense = || CubinError::Malformed {
        reason: "kernel parameter ordinals are not 0..n, each exactly once",
    };
    for n in [1, 63, 64, 65, 200] {
        let good = kparams(n);
        for at in [0, n / 2, n - 1] {
            // Ordinal of record `at` replaced by a repeat, then by one past the end.
            let rec = at * 16 + 8;
            let mut repeat = good.clone();
            let other = u16::try_from((n - 1 - at + 1) % n).unwrap();
            repeat[rec..rec + 2].copy_from_slice(&other.to_le_bytes());
            let mut gap = good.clone();
            gap[rec..rec + 2].copy_from_slice(&u16::try_from(n).unwrap().to_le_bytes());
            for bad in [repeat, gap] {
                if bad == good {
                    continue;
                }
                let image = with_section_data(TINY, b".nv.info.tiny", &bad);
                assert_eq!(
                    check_cubin(&image, 90).unwrap_err(),
                    dense(),
                    "n {n} at {at}"
                );
            }
        }
        let image = with_section_data(TINY, b".nv.info.tiny", &good);
        assert_eq!(
            check_cubin(&image, 90)
                .unwrap()
                .kernel("tiny")
                .unwrap()
                .param_count(),
            n
        );
    }
}

/// Many section headers that share one long name: each name is read at most
/// `MAX_NAME_LEN` bytes far, so the check stays linear; past that the name is refused.
#[test]
fn names_longer_than_the_limit_are_refused() {
    for (len, ok) in [(MAX_NAME_LEN, true), (MAX_NAME_LEN + 1, false)] {
        let mut strtab = TINY[u64_at(TINY, u64_at(TINY, 40) + u16_at(TINY, 62) * 64 + 24)..]
            [..u64_at(TINY, u64_at(TINY, 40) + u16_at(TINY, 62) * 64 + 32)]
            .to_vec();
        let long_at = strtab.len();
        strtab.extend(std::iter::repeat_n(b'x', len));
        strtab.push(0);
        let mut image = with_section_data(TINY, b".shstrtab", &strtab);
        // Section 4 (.debug_frame) takes the long name.
        let h = u64_at(&image, 40) + 4 * 64;
        image[h..h + 4].copy_from_slice(&u32::try_from(long_at).unwrap().to_le_bytes());
        let got = check_cubin(&image, 90);
        assert_eq!(got.is_ok(), ok, "{len}: {got:?}");
        if !ok {
            assert_eq!(
                got.unwrap_err(),
                CubinError::TooMany {
                    what: "bytes in one section or symbol name",
                    limit: MAX_NAME_LEN as u64
                }
            );
        }
    }
}

/// More kernel entry symbols than `MAX_KERNELS` (all naming the one kernel) are refused.
#[test]
fn more_kernels_than_the_limit_are_refused() {
    let h = shdr_of(TINY, b".symtab");
    let syms = &TINY[u64_at(TINY, h + 24)..][..u64_at(TINY, h + 32)];
    let kernel = syms
        .chunks(24)
        .find(|s| s[4] == 0x12 && s[5] & 0x10 != 0)
        .expect("the kernel's symbol");
    for (n, ok) in [(MAX_KERNELS, true), (MAX_KERNELS + 1, false)] {
        let mut table = syms.to_vec();
        for _ in 1..n {
            table.extend_from_slice(kernel);
        }
        let image = with_section_data(TINY, b".symtab", &table);
        let got = check_cubin(&image, 90);
        if ok {
            assert_eq!(got.unwrap().kernel_names().count(), n);
        } else {
            assert_eq!(
                got.unwrap_err(),
                CubinError::TooMany {
                    what: "kernel entry points",
                    limit: MAX_KERNELS as u64
                }
            );
        }
    }
}
