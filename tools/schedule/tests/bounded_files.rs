//! Every file a schedule or manifest names is read by one bounded reader
//! (`orin_exec_schedule::read_file`): it must be a regular file within the limit for its kind,
//! else a typed error that names the path (and the limit). `kernels_manifest = "/dev/zero"`
//! once made `check` read until the machine ran out of memory.
//!
//! Covers: REQ-ROB-063

mod common;

use common::*;
use orin_exec_schedule::{FileError, MAX_BINARY_BYTES, MAX_TEXT_BYTES, read_file, read_text};

/// A sparse file of `len` bytes (no disk blocks, no time spent writing).
fn sparse(fx: &Fixture, name: &str, len: u64) -> std::path::PathBuf {
    let path = fx.dir.join(name);
    std::fs::File::create(&path).unwrap().set_len(len).unwrap();
    path
}

#[test]
fn devices_and_directories_are_not_read() {
    let fx = Fixture::new();
    for path in [std::path::Path::new("/dev/zero"), fx.dir.as_path()] {
        let e = read_file(path, MAX_BINARY_BYTES).unwrap_err();
        assert!(matches!(e, FileError::NotRegular { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains(&path.display().to_string()) && msg.contains("not a regular file"));
    }
    let e = read_file(&fx.dir.join("missing"), 10).unwrap_err();
    assert!(matches!(e, FileError::Io { .. }) && e.to_string().contains("missing"));
}

#[test]
fn files_over_the_limit_are_refused_with_path_and_limit() {
    let fx = Fixture::new();
    let at = sparse(&fx, "at.bin", 4096);
    assert_eq!(read_file(&at, 4096).map(|b| b.len()).ok(), Some(4096));
    let over = sparse(&fx, "over.bin", 4097);
    let e = read_file(&over, 4096).unwrap_err();
    assert!(
        matches!(e, FileError::TooLarge { limit: 4096, .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("over.bin") && e.to_string().contains("4096"));
    // The text limit itself: one byte over, without reading (the file is sparse).
    let big = sparse(&fx, "big.toml", MAX_TEXT_BYTES + 1);
    let e = read_text(&big).unwrap_err();
    assert!(e.to_string().contains(&MAX_TEXT_BYTES.to_string()), "{e}");
    std::fs::write(fx.dir.join("bad.toml"), [0xff, 0xfe]).unwrap();
    let e = read_text(&fx.dir.join("bad.toml")).unwrap_err();
    assert!(matches!(e, FileError::NotUtf8 { .. }) && e.to_string().contains("bad.toml"));
}

/// A schedule with a GPU and a DLA task (both manifests and their artifacts are read).
fn schedule() -> String {
    with_header(
        &[
            raw_buffer("i", 512),
            raw_buffer("o", 256),
            gpu_task("g", &[]),
            dla_task("d", "i", "o", &[]),
        ]
        .concat(),
    )
}

#[test]
fn check_refuses_manifests_that_are_devices() {
    let fx = Fixture::new();
    fx.ok(&schedule());
    for key in ["kernels_manifest", "loadables_manifest"] {
        let from = format!("{key} = \"../manifests/");
        let text = schedule().replace(&from, &format!("{key} = \"/dev/zero\" # "));
        fx.rejects(&text, &["/dev/zero", "not a regular file"]);
    }
}

#[test]
fn check_refuses_artifacts_that_are_devices_or_too_large() {
    let fx = Fixture::new();
    let kernels = fx.dir.join("manifests/kernels.toml");
    let text = std::fs::read_to_string(&kernels).unwrap();
    std::fs::write(&kernels, text.replace("bin/k.sm_87.cubin", "/dev/zero")).unwrap();
    fx.rejects(&schedule(), &["/dev/zero", "not a regular file"]);
    // An ONNX model one byte over the binary limit (sparse: nothing is written or read).
    let fx = Fixture::new();
    let onnx = fx.dir.join("manifests/bin/net.onnx");
    std::fs::File::options()
        .write(true)
        .open(&onnx)
        .unwrap()
        .set_len(MAX_BINARY_BYTES + 1)
        .unwrap();
    fx.rejects(&schedule(), &["net.onnx", &MAX_BINARY_BYTES.to_string()]);
}

#[test]
fn check_file_refuses_a_schedule_that_is_a_device_or_too_large() {
    let fx = Fixture::new();
    let e = orin_exec_schedule::check_file("/dev/zero".as_ref()).unwrap_err();
    assert!(e.to_string().contains("/dev/zero"), "{e}");
    let big = sparse(&fx, "app/big.toml", MAX_TEXT_BYTES + 1);
    let e = orin_exec_schedule::check_file(&big).unwrap_err();
    assert!(
        e.to_string().contains("big.toml") && e.to_string().contains("limit"),
        "{e}"
    );
}
