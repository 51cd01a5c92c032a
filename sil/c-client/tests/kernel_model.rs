//! A C application's own kernel model on SIL CUDA: `c/kernel_model.c`, written against the
//! hand-written `c/cuda_api.h`, linked with `-lcuda -lnvscisync -lnvscibuf` against the staged
//! libraries (SIL CUDA as `libcuda.so.1`) and run with `LD_LIBRARY_PATH` alone. It registers a
//! C saxpy with `cuSilRegisterKernelModel` for the committed `selftest` cubin and runs it
//! (sil/README.md, "Kernel models").
//!
//! Covers: REQ-KM-003

use std::path::Path;

use sil_c_client::stage::{SIL_CUDA, staged};
use sil_c_client::{client, elf, repo_root};

#[test]
fn a_c_model_registered_with_cu_sil_register_kernel_model_runs() {
    let libs = staged(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let info = elf::read_path(&libs.join(SIL_CUDA.1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(info.soname.as_deref(), Some(SIL_CUDA.1));
    for f in [
        "cuSilRegisterKernelModel",
        "cuSilLaunchBuffer",
        "cuLaunchKernel",
    ] {
        assert!(
            info.exported_functions().iter().any(|e| e.name == f),
            "{} does not export {f}",
            SIL_CUDA.1
        );
    }
    let exe = client::build_linking(
        "kernel_model",
        &["kernel_model.c"],
        libs,
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("clients"),
        &["-lcuda", "-lnvscisync", "-lnvscibuf"],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = orin_exec_kernels::cubin("selftest", 87).expect("the selftest cubin");
    let cubin = repo_root().join("kernels").join(c.file);
    let hash: String = c.sha256.iter().map(|b| format!("{b:02x}")).collect();
    client::run_passing(&exe, libs, &[&cubin, Path::new(&hash)], &[]);

    // The same program against another hash: nothing is handed out, so it fails.
    client::run_failing(&exe, libs, &[&cubin, Path::new(&"0".repeat(64))], &[]);
}
