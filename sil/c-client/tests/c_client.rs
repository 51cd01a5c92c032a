//! Compiles `c/standalone.c` with the system C compiler against the SIL shared libraries
//! (`libcudla.so`, `libnvscisync.so`, `libnvscibuf.so`, built by cargo as cdylibs of the
//! dev-dependencies) and runs it on the committed AEB loadable and its golden data.

use std::path::{Path, PathBuf};
use std::process::Command;

const LIBS: [&str; 3] = ["libcudla.so", "libnvscisync.so", "libnvscibuf.so"];

/// The directory holding the three SIL cdylibs: `target/<profile>/deps` (where cargo puts
/// the cdylibs of dependencies), or `target/<profile>`.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("deps dir").to_path_buf();
    let profile = deps.parent().expect("profile dir").to_path_buf();
    for dir in [deps, profile] {
        if LIBS.iter().all(|l| dir.join(l).is_file()) {
            return dir;
        }
    }
    panic!(
        "the SIL shared libraries {LIBS:?} are not next to {} (build with `cargo test -p sil-c-client`)",
        exe.display()
    );
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn standalone_c_client_passes() {
    let c_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("c");
    let libs = lib_dir();
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sil-c-client-standalone");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let compile = Command::new(&cc)
        .args(["-Wall", "-Wextra", "-Werror", "-std=c11", "-O1", "-I"])
        .arg(&c_dir)
        .arg(c_dir.join("standalone.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&libs)
        .args(["-lcudla", "-lnvscisync", "-lnvscibuf"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(
        compile.status.success(),
        "C compilation failed:\n{}{}",
        String::from_utf8_lossy(&compile.stdout),
        String::from_utf8_lossy(&compile.stderr)
    );

    let loadables = repo().join("loadables");
    let run = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &libs)
        .arg(loadables.join("aeb_detector.sildla"))
        .arg(loadables.join("aeb_detector.golden_input.bin"))
        .arg(loadables.join("aeb_detector.golden_output.bin"))
        .output()
        .expect("run the C client");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}{stderr}");
    assert!(
        run.status.success(),
        "C client failed ({}):\n{stdout}{stderr}",
        run.status
    );
    assert!(
        stdout.lines().any(|l| l == "PASS"),
        "no PASS line:\n{stdout}"
    );
}
