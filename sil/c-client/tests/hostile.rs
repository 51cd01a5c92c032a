//! Hostile-argument C clients, one per SIL library (`c/hostile_*.c`): NULL pointers, counts
//! and sizes no caller array or memory can hold, freed handles, out-of-range timeouts. Each
//! call must come back with an error code (the process neither aborts nor crashes nor
//! hangs), and the library must still work afterwards (sil/README.md, "Hostile arguments").
//!
//! Each client defines one case per entry point (`HOSTILE(name) { ... }`, `c/hostile.h`);
//! the set of those markers must equal the library's exported functions, read from its
//! dynamic symbol table, so a new export without a hostile case fails here. The client
//! prints `hostile case <name>` after each case it survived: every marker must appear.
//!
//! Covers: REQ-ROB-060, REQ-ROB-061, REQ-ROB-064, REQ-ROB-130, REQ-ROB-131, REQ-ROB-132

mod vpu;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use sil_c_client::stage::{SIL_CUDA, SIL_CUPVA, staged};
use sil_c_client::{client, elf, hostile, repo_root};

fn libs() -> &'static Path {
    staged(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("clients")
}

/// Builds `c/<name>.c` (with `more`), linked with `link`, and runs it on `args`; then checks
/// that its `HOSTILE(...)` cases are exactly the exported functions of `soname` (plus
/// `extra`, entry points reached through a table rather than a symbol) and that every case
/// ran.
fn run(name: &str, more: &[&str], link: &[&str], args: &[&Path], soname: &str, extra: &[&str]) {
    let src = format!("{name}.c");
    let mut sources = vec![src.as_str()];
    sources.extend_from_slice(more);
    let exe = client::build_linking(name, &sources, libs(), &out_dir(), link)
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = client::run_passing(&exe, libs(), args, &[]);

    let c_path = client::c_dir().join(&src);
    let text =
        std::fs::read_to_string(&c_path).unwrap_or_else(|e| panic!("{}: {e}", c_path.display()));
    let cases = hostile::cases(&text).unwrap_or_else(|e| panic!("{}: {e}", c_path.display()));
    let so = libs().join(soname);
    let info = elf::read_path(&so).unwrap_or_else(|e| panic!("{e}"));
    let mut exported: BTreeSet<String> = info
        .exported_functions()
        .iter()
        .map(|s| s.name.clone())
        .collect();
    exported.extend(extra.iter().map(|s| s.to_string()));
    let problems = hostile::compare(&cases, &exported, &hostile::ran(&stdout));
    assert!(
        problems.is_empty(),
        "{} against {}:\n{}",
        c_path.display(),
        so.display(),
        problems.join("\n")
    );
    println!(
        "{soname}: {} entry points, each with a hostile case",
        cases.len()
    );
}

#[test]
fn nvscisync_answers_hostile_arguments_with_errors() {
    run(
        "hostile_nvscisync",
        &["common.c"],
        &client::LINK,
        &[],
        "libnvscisync.so.1",
        &[],
    );
}

#[test]
fn nvscibuf_answers_hostile_arguments_with_errors() {
    run(
        "hostile_nvscibuf",
        &["common.c"],
        &client::LINK,
        &[],
        "libnvscibuf.so.1",
        &[],
    );
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
    run(
        "hostile_cudla",
        &["common.c"],
        &client::LINK,
        &args,
        "libcudla.so.1",
        &hostile::CUDLA_EXPORT_TABLE,
    );
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
        SIL_CUDA.1,
        &[],
    );
}

/// The SIL cuPVA: all its exports, each C client call checked against the exact
/// `cupvaError_t` the twin documents, then a golden run of `scale`.
///
/// Covers: REQ-PVA-030
#[test]
fn cupva_answers_hostile_arguments_with_errors() {
    let (elf, hash) = vpu::scale_image(Path::new(env!("CARGO_TARGET_TMPDIR")), "hostile.vpu.elf");
    run(
        "hostile_cupva",
        &["cupva_common.c"],
        &["-lcupva_host", "-lnvscisync", "-lnvscibuf"],
        &[&elf, Path::new(&hash)],
        SIL_CUPVA.1,
        &[],
    );
}
