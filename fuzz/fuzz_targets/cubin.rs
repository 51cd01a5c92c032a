//! The cubin checker (`kernels/cubin-check`), as `kernels/build.rs`, `orin-exec kernels` and
//! the runtime's init use it: check, then read every kernel's parameters and the toolkit note.
#![no_main]

use cubin_check::{check_cubin, sm_from_e_flags};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Ask for the SM the image claims, so that the checks past the SM test are reached.
    let abi = data.get(8).copied().unwrap_or(0);
    let flags = data
        .get(48..52)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let sm = sm_from_e_flags(abi, flags).unwrap_or(87);
    if let Ok(info) = check_cubin(data, sm) {
        for k in info.kernels() {
            let _ = (k.name(), k.param_count(), k.param_bytes());
            for p in k.params() {
                let _ = (p.ordinal, p.offset, p.size);
            }
            let _ = info.kernel(k.name());
        }
        let _ = info.toolkit();
    }
});
