//! The cuPVA conformance client: `c/cupva_flow.c` (with `c/cupva_common.c`), written against
//! the hand-written `c/cupva_api.h` and `c/api.h`, linked with `-lcupva_host -lnvscisync
//! -lnvscibuf` against the staged libraries and run with `LD_LIBRARY_PATH` alone: NvSciBuf
//! memory in, an NvSciSync pre-fence from the CPU, the program (a C model registered for the
//! image's SHA-256), the exported end-of-frame fence, a CPU wait and the golden output; an
//! unlisted image is refused first (sil/README.md, "cuPVA").
//!
//! Covers: REQ-PVA-031, REQ-PVA-020

mod vpu;

use std::path::Path;

use sil_c_client::client;
use sil_c_client::stage::{SIL_CUPVA, staged};

#[test]
fn cupva_client_runs_the_nvsci_flow() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let libs = staged(tmp);
    let info =
        sil_c_client::elf::read_path(&libs.join(SIL_CUPVA.1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(info.soname.as_deref(), Some(SIL_CUPVA.1));
    let exe = client::build_linking(
        "cupva_flow",
        &["cupva_flow.c", "cupva_common.c"],
        libs,
        &tmp.join("clients"),
        &["-lcupva_host", "-lnvscisync", "-lnvscibuf"],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (elf, hash) = vpu::scale_image(tmp, "scale.vpu.elf");
    client::run_passing(&exe, libs, &[&elf, Path::new(&hash)], &[]);

    // The same program with another hash: the model is bound to that hash and only that
    // one is allowlisted, so the real image is refused and the client fails.
    client::run_failing(&exe, libs, &[&elf, Path::new(&"0".repeat(64))], &[]);
}
