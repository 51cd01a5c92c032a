//! The schedule reader and validator, through the entry `orin-exec check` uses
//! (`check_file` = read with a size limit, then `check_str`), from TOML text.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // `check_file` refuses a file that is not UTF-8 before parsing; the same here.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Anchored where the demo's schedule lives, so that the seeds' relative manifest paths
    // reach the real kernel and network manifests (and their cubins and ONNX models).
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/aeb/schedule.toml"
    ));
    let _ = orin_exec_schedule::check_str(path, text);
});
