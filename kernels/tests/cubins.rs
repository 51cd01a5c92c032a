//! The embedded cubin table against the manifest, cubin-check and SIGNATURES.
//!
//! Covers: REQ-GPU-001, REQ-GPU-003

use orin_exec_kernels::{
    CUBIN_PROVENANCE, CUBINS, NVCC_VERSION, SIGNATURES, cubin, cubin_for_kernel, signature,
};

#[test]
fn every_cubin_is_checked_sass_with_the_manifest_hash() {
    assert_eq!(CUBINS.len(), 6);
    for c in CUBINS {
        let info = c.check().unwrap_or_else(|e| panic!("{}: {e}", c.file));
        assert_eq!(info.sm(), c.sm);
        assert!(c.sha256_matches(), "{}", c.file);
        assert_eq!(c.image.as_ptr() as usize % 128, 0, "{} alignment", c.file);
        assert_eq!(c.nvcc_version, NVCC_VERSION);
        assert!(c.flags.contains(&"-cubin"));
        assert!(
            c.flags
                .contains(&format!("arch=compute_{0},code=sm_{0}", c.sm).as_str())
        );
        let mut names: Vec<&str> = info.kernel_names().collect();
        let mut listed = c.kernels.to_vec();
        names.sort_unstable();
        listed.sort_unstable();
        assert_eq!(names, listed, "{}", c.file);
    }
    assert!(!CUBIN_PROVENANCE.is_empty());
    assert_eq!(NVCC_VERSION, "V13.0.88");
}

#[test]
fn every_signature_has_one_cubin_per_sm_with_the_same_layout() {
    for s in SIGNATURES {
        for sm in [87, 90] {
            let c = cubin_for_kernel(s.name, sm).unwrap_or_else(|| panic!("{} sm_{sm}", s.name));
            let k = c.check().unwrap().kernel(s.name).unwrap();
            let layout: Vec<(usize, usize)> = k
                .params()
                .map(|p| (usize::from(p.offset), usize::from(p.size)))
                .collect();
            let want: Vec<(usize, usize)> = s
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| (s.param_offset(i).unwrap(), p.size()))
                .collect();
            assert_eq!(layout, want, "{} sm_{sm}", s.name);
        }
        assert_eq!(signature(s.name), Some(s));
    }
    assert!(signature("nope").is_none());
    assert_eq!(cubin("aeb", 87).unwrap().file, "cubins/aeb.sm_87.cubin");
    assert!(cubin("aeb", 80).is_none());
}
