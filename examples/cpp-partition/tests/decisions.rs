//! The C++ partition example against the Rust AEB demo: 1000 frames each on the SIL virtual
//! clock, the same decision (brake, distance, fallback, implausible, stale) and mode in every
//! frame.
//!
//! It needs the C++ example built (CMake), so the workspace's test run leaves it out;
//! `ci/cpp-example.sh` builds the example and runs it with
//! `CPP_PARTITION_BIN=<the example> cargo test -p cpp-partition -- --ignored`.
//!
//! Covers: REQ-PART-051

use std::process::Command;

use cpp_partition::rust_decisions;

const FRAMES: u64 = 1000;

#[test]
#[ignore = "needs the C++ example: ci/cpp-example.sh builds it and runs this test"]
fn the_cpp_partition_decides_as_the_rust_demo_in_every_frame() {
    let bin = std::env::var_os("CPP_PARTITION_BIN")
        .expect("CPP_PARTITION_BIN: the path of the built C++ example (ci/cpp-example.sh)");
    let out = std::env::temp_dir().join(format!("cpp-partition-{}.txt", std::process::id()));
    let status = Command::new(&bin)
        .args(["--frames", &FRAMES.to_string(), "--decisions"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run the C++ example");
    assert!(status.success(), "the C++ example exited with {status}");
    let cpp = std::fs::read_to_string(&out).expect("read the C++ example's decisions");
    let _ = std::fs::remove_file(&out);
    let cpp: Vec<&str> = cpp.lines().collect();

    let rust = rust_decisions(FRAMES).expect("run the Rust demo's application");
    assert_eq!(rust.len(), FRAMES as usize, "the Rust run stopped early");
    // Not vacuous: the reference brakes in some frames and not in others.
    let brakes = rust
        .iter()
        .filter(|l| l.split(' ').nth(2) == Some("1"))
        .count();
    assert!(
        (100..900).contains(&brakes),
        "{brakes} brake frames in the reference"
    );
    for (i, (r, c)) in rust.iter().zip(&cpp).enumerate() {
        assert_eq!(
            c, r,
            "frame {i}: C++ (left) and Rust (right) decide differently"
        );
    }
    assert_eq!(
        cpp.len(),
        rust.len(),
        "the C++ example wrote another frame count"
    );
}
