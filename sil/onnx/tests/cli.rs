//! `sil-onnx-run`: describe, batch runs in both layouts, refusals.
//!
//! Covers: REQ-LDB-008

mod common;

use std::process::Command;

use common::*;

fn tool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sil-onnx-run"))
}

#[test]
fn describe_run_and_refuse() {
    let aeb = loadables_dir().join("aeb_detector.onnx");
    let out = tool().arg(&aeb).arg("--describe").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("input `image`: int8 [1, 1, 48, 64], kDLA_LINEAR size 3072"),
        "{text}"
    );
    assert!(text.contains("layer 4 `gap`: Conv"), "{text}");

    // Two records of the golden input in the DLA layout give the golden output twice.
    let dir = std::env::temp_dir().join(format!("sil-onnx-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let golden = loadable_file("aeb_detector.golden_input.bin");
    let input = dir.join("image.bin");
    std::fs::write(&input, [golden.clone(), golden].concat()).unwrap();
    let st = tool()
        .arg(&aeb)
        .args(["--layout", "dla_linear", "--strict", "--input"])
        .arg(&input)
        .arg("--out")
        .arg(dir.join("out"))
        .status()
        .unwrap();
    assert!(st.success());
    let map = std::fs::read(dir.join("out/obstacle_map.bin")).unwrap();
    let presence = std::fs::read(dir.join("out/presence.bin")).unwrap();
    let want = loadable_file("aeb_detector.golden_output.bin");
    assert_eq!([&map[..1536], &presence[..128]].concat(), want);
    assert_eq!([&map[1536..], &presence[128..]].concat(), want);

    // A record that does not fit, and a model the SIL refuses (exit 2, naming the node).
    std::fs::write(&input, [0u8; 100]).unwrap();
    let out = tool()
        .arg(&aeb)
        .arg("--input")
        .arg(&input)
        .arg("--out")
        .arg(dir.join("o2"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = tool()
        .arg(loadables_dir().join("test/unsupported_op.onnx"))
        .arg("--describe")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("head/sigmoid"));
    let _ = std::fs::remove_dir_all(&dir);
}
