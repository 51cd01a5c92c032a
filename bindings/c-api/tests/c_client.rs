//! A C partition on the C API (`tests/c/smoke.c`): the generator's C tables of
//! `tests/c/pipeline.toml`, compiled with the C compiler the `cc` crate finds (warnings are
//! errors) and linked against `liborin_exec_capi.a`, runs 150 virtual-clock frames on SIL to a
//! safe stop, with the hostile calls of the C side. The test fails unless it prints `PASS`.
//!
//! Covers: REQ-PART-032, REQ-PART-033, REQ-PART-034, REQ-PART-035

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>` (the test binary is in `deps/`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .to_path_buf()
}

fn compiler() -> cc::Tool {
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    cc::Build::new()
        .target(&target)
        .host(&target)
        .opt_level(1)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .get_compiler()
}

/// Generates the C tables of `schedule` into `out`, compiles `main` (in `tests/c`) with them
/// and `defines`, links `liborin_exec_capi.a` and runs the program; panics unless it prints PASS.
fn build_and_run(schedule: &Path, main: &str, out: &str, defines: &[(&str, &str)]) {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(out);
    std::fs::create_dir_all(&out).expect("out dir");
    let c = orin_exec_schedule::render_c(schedule, &Default::default())
        .unwrap_or_else(|d| panic!("{} is valid:\n{d}", schedule.display()));
    std::fs::write(out.join(format!("{}.h", c.stem)), &c.header).expect("write header");
    std::fs::write(out.join(format!("{}.c", c.stem)), &c.source).expect("write source");

    // Built with the crate for its tests into `deps/` (a plain build puts it one level up).
    let lib = ["deps", "."]
        .iter()
        .map(|d| profile_dir().join(d).join("liborin_exec_capi.a"))
        .find(|p| p.exists())
        .expect("liborin_exec_capi.a: cargo builds it with the crate");
    let exe = out.join("main");
    let mut cmd = compiler().to_command();
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(here.join("include"))
        .arg("-I")
        .arg(&out);
    for (k, v) in defines {
        cmd.arg(format!("-D{k}={v}"));
    }
    cmd.arg(here.join("tests/c").join(main))
        .arg(out.join(format!("{}.c", c.stem)))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s", "-lutil"])
        .arg("-o")
        .arg(&exe);
    let built = cmd.output().expect("run the C compiler");
    assert!(
        built.status.success(),
        "compiling {main} failed:\n{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&exe).output().expect("run the C program");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}{stderr}");
    assert!(
        run.status.success() && stdout.lines().any(|l| l == "PASS"),
        "{main} failed ({}):\n{stdout}{stderr}",
        run.status
    );
}

#[test]
fn c_partition_runs_to_a_safe_stop() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    build_and_run(
        &here.join("tests/c/pipeline.toml"),
        "smoke.c",
        "c-api-smoke",
        &[],
    );
}

/// The AEB schedule's generated C tables (GPU, DLA and CPU tasks, cubins and the ONNX model
/// as byte arrays, health rules, two modes) compile against the header, pass
/// `orin_exec_create` (the conversion's checks and `Schedule::check`) and run 30 frames on SIL
/// with no-op CPU bodies, the project's kernel models and the SIL DLA's timing.
#[test]
fn aeb_c_tables_run_on_sil() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    build_and_run(
        &here.join("../../examples/aeb/schedule.toml"),
        "create.c",
        "c-api-aeb",
        &[
            ("TABLES", "aeb_tables"),
            ("TABLES_HEADER", "\"aeb_tables.h\""),
        ],
    );
}
