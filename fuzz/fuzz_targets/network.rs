//! The SIL DLA's ONNX network reader and validator, as the SIL cuDLA and
//! `orin-exec networks build` use it: `Model::load`, then the loadable's tensor descriptors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sil_onnx::{Model, dla};

fuzz_target!(|data: &[u8]| {
    let _ = sil_onnx::is_onnx(data);
    if let Ok(model) = Model::load(data) {
        for t in model.inputs().iter().chain(model.outputs()) {
            let d = dla::linear_desc(t);
            let _ = (d.line_pitch(), d.manifest_toml("network.input"));
        }
        let _ = (model.layers().len(), model.work(), model.scratch());
    }
});
