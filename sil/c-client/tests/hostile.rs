//! Hostile-argument C clients, one per SIL library (`c/hostile_*.c`): NULL pointers, counts
//! and sizes no caller array or memory can hold, freed handles, out-of-range timeouts. Each
//! call must come back with an error code (the process neither aborts nor crashes nor
//! hangs), and the library must still work afterwards (sil/README.md, "Hostile arguments").
//!
//! Covers: REQ-ROB-060, REQ-ROB-061, REQ-ROB-064

use std::path::{Path, PathBuf};

use sil_c_client::stage::staged;
use sil_c_client::{client, repo_root};

fn libs() -> &'static Path {
    staged(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("clients")
}

/// Builds `c/<name>.c` (with `more`), linked with `link`, and runs it on `args`.
fn run(name: &str, more: &[&str], link: &[&str], args: &[&Path]) {
    let src = format!("{name}.c");
    let mut sources = vec![src.as_str()];
    sources.extend_from_slice(more);
    let exe = client::build_linking(name, &sources, libs(), &out_dir(), link)
        .unwrap_or_else(|e| panic!("{e}"));
    client::run_passing(&exe, libs(), args, &[]);
}

#[test]
fn nvscisync_answers_hostile_arguments_with_errors() {
    run("hostile_nvscisync", &["common.c"], &client::LINK, &[]);
}

#[test]
fn nvscibuf_answers_hostile_arguments_with_errors() {
    run("hostile_nvscibuf", &["common.c"], &client::LINK, &[]);
}

#[test]
fn cudla_answers_hostile_arguments_with_errors() {
    let l = repo_root().join("loadables");
    let golden = [
        l.join("aeb_detector.onnx"),
        l.join("aeb_detector.golden_input.bin"),
        l.join("aeb_detector.golden_output.bin"),
    ];
    let args: Vec<&Path> = golden.iter().map(PathBuf::as_path).collect();
    run("hostile_cudla", &["common.c"], &client::LINK, &args);
}

#[test]
fn cuda_answers_hostile_arguments_with_errors() {
    let c = orin_exec_kernels::cubin("selftest", 87).expect("the selftest cubin");
    let cubin = repo_root().join("kernels").join(c.file);
    run(
        "hostile_cuda",
        &[],
        &["-lcuda", "-lnvscisync", "-lnvscibuf"],
        &[&cubin],
    );
}
