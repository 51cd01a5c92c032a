//! The embedded cubin table against the manifest and cubin-check; the models' parameter
//! kinds against the manifest's and the cubins' parameter layouts.
//!
//! Covers: REQ-GPU-001, REQ-GPU-003

use orin_exec_kernels::kernel_model::{ParamKind, param_offset};
use orin_exec_kernels::{
    CUBIN_DESCS, CUBIN_PROVENANCE, CUBINS, MODELS, NVCC_VERSION, cubin, cubin_desc,
    cubin_for_kernel, model,
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

/// The `kernels` of every `[[cubin]]` of `manifest.toml`: (module, sm, kernel, kinds).
fn manifest_kernels() -> Vec<(String, u32, String, Vec<ParamKind>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/manifest.toml");
    let text = std::fs::read_to_string(path).expect("manifest.toml");
    let table: toml::Table = text.parse().expect("TOML");
    let mut out = Vec::new();
    for c in table["cubin"].as_array().expect("[[cubin]]") {
        let name = c["name"].as_str().expect("name");
        let sm = c["sm"].as_integer().expect("sm") as u32;
        for k in c["kernels"].as_array().expect("kernels") {
            let kinds = k["params"]
                .as_array()
                .expect("params")
                .iter()
                .map(|p| ParamKind::parse(p.as_str().expect("a string")).expect("a kind"))
                .collect();
            out.push((
                name.to_owned(),
                sm,
                k["name"].as_str().expect("kernel name").to_owned(),
                kinds,
            ));
        }
    }
    out
}

/// Covers: REQ-KM-005
#[test]
fn every_model_declares_the_manifest_kinds_and_every_kernel_has_a_model() {
    let listed = manifest_kernels();
    assert_eq!(listed.len(), 10, "5 kernels for 2 SMs");
    for (module, sm, kernel, kinds) in &listed {
        let m = model(module, kernel).unwrap_or_else(|| panic!("no model for {module}/{kernel}"));
        assert_eq!(m.params(), kinds.as_slice(), "{module}/{kernel} sm_{sm}");
    }
    for (module, kernel, m) in MODELS {
        for sm in [87, 90] {
            let found = listed
                .iter()
                .find(|(mo, s, k, _)| mo == module && *s == sm && k == kernel)
                .unwrap_or_else(|| panic!("{module}/{kernel} is not in manifest.toml for sm_{sm}"));
            assert_eq!(m.params(), found.3.as_slice());
        }
    }
    assert!(
        model("aeb", "saxpy_f32").is_none(),
        "the module is part of the key"
    );
}

#[test]
fn every_kernel_has_one_cubin_per_sm_with_the_manifest_layout() {
    for (module, sm, kernel, kinds) in manifest_kernels() {
        let c = cubin_for_kernel(&kernel, sm).unwrap_or_else(|| panic!("{kernel} sm_{sm}"));
        assert_eq!(c.name, module);
        let k = c.check().unwrap().kernel(&kernel).unwrap();
        let layout: Vec<(usize, usize)> = k
            .params()
            .map(|p| (usize::from(p.offset), usize::from(p.size)))
            .collect();
        let want: Vec<(usize, usize)> = (0..kinds.len())
            .map(|i| (param_offset(&kinds, i).unwrap(), kinds[i].size()))
            .collect();
        assert_eq!(layout, want, "{kernel} sm_{sm}");
    }
    assert_eq!(cubin("aeb", 87).unwrap().file, "cubins/aeb.sm_87.cubin");
    assert!(cubin("aeb", 80).is_none());
}

#[test]
fn cubin_descs_hold_every_cubin_once() {
    let mut variants = 0;
    for d in CUBIN_DESCS {
        assert_eq!(cubin_desc(d.name).map(|x| x.name), Some(d.name));
        for v in d.variants {
            let c = cubin(d.name, v.sm).unwrap_or_else(|| panic!("{} sm_{}", d.name, v.sm));
            assert_eq!(v.sha256, c.sha256);
            assert!(core::ptr::eq(v.image, c.image), "{} sm_{}", d.name, v.sm);
            variants += 1;
        }
    }
    assert_eq!(variants, CUBINS.len());
    assert_eq!(
        CUBIN_DESCS.iter().map(|d| d.name).collect::<Vec<_>>(),
        ["aeb", "selftest", "timing"]
    );
    assert!(cubin_desc("nope").is_none());
}
