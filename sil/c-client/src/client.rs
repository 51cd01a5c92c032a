//! Building and running the C clients of `c/` against staged libraries.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The directory of the C sources (`sil/c-client/c`).
pub fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("c")
}

/// The compiler flags of every client: warnings are errors.
pub const CFLAGS: [&str; 5] = ["-Wall", "-Wextra", "-Werror", "-std=c11", "-O1"];

/// The libraries every client links, in link order.
pub const LINK: [&str; 3] = ["-lcudla", "-lnvscisync", "-lnvscibuf"];

/// Compiles `sources` (file names in `c/`) into the program `out_dir/name`, with
/// [`CFLAGS`], `-I c/`, and links it by SONAME with `-L libs` and [`LINK`] (no rpath). The
/// compiler is `$CC`, else `cc`. Returns the program, or the compiler's messages.
pub fn build(name: &str, sources: &[&str], libs: &Path, out_dir: &Path) -> Result<PathBuf, String> {
    build_linking(name, sources, libs, out_dir, &LINK)
}

/// [`build`] linking `link` (e.g. `["-lcuda", "-lnvscisync", "-lnvscibuf"]`) instead.
pub fn build_linking(
    name: &str,
    sources: &[&str],
    libs: &Path,
    out_dir: &Path,
    link: &[&str],
) -> Result<PathBuf, String> {
    let c = c_dir();
    let exe = out_dir.join(name);
    std::fs::create_dir_all(out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(CFLAGS)
        .arg("-I")
        .arg(&c)
        .args(sources.iter().map(|s| c.join(s)))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(libs)
        .args(link)
        .output()
        .map_err(|e| format!("cannot run the C compiler `{cc}`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "compiling {name} from {sources:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

/// Runs `exe` with `args` and an environment of `LD_LIBRARY_PATH=libs` only, plus `env`.
pub fn run(exe: &Path, libs: &Path, args: &[&Path], env: &[(&str, &str)]) -> Output {
    Command::new(exe)
        .env_clear()
        .env("LD_LIBRARY_PATH", libs)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()))
}

/// [`run`], then checks that the client exited with 0 and printed a line `PASS`; panics
/// with its whole output otherwise. Returns its standard output.
pub fn run_passing(exe: &Path, libs: &Path, args: &[&Path], env: &[(&str, &str)]) -> String {
    let out = run(exe, libs, args, env);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    assert!(
        out.status.success() && stdout.lines().any(|l| l == "PASS"),
        "{} failed ({}):\n{stdout}{stderr}",
        exe.display(),
        out.status
    );
    stdout
}

/// [`run`], then checks that the client failed: a non-zero exit and a `FAIL` line on its
/// standard error; panics with that output otherwise. Returns its standard error.
pub fn run_failing(exe: &Path, libs: &Path, args: &[&Path], env: &[(&str, &str)]) -> String {
    let out = run(exe, libs, args, env);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success() && stderr.contains("FAIL"),
        "{} was expected to fail ({}):\n{stderr}",
        exe.display(),
        out.status
    );
    stderr
}

/// The shared objects the dynamic linker loads for `exe` with `LD_LIBRARY_PATH=libs` as the
/// only environment (glibc's `LD_TRACE_LOADED_OBJECTS`, what `ldd` prints): pairs of the
/// needed name and the resolved path (`None`: not found).
pub fn loaded_objects(exe: &Path, libs: &Path) -> Vec<(String, Option<PathBuf>)> {
    let out = run(exe, libs, &[], &[("LD_TRACE_LOADED_OBJECTS", "1")]);
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" => ")?;
            let path = rest.split(" (").next().unwrap_or("").trim();
            let path = (!path.is_empty() && path != "not found").then(|| PathBuf::from(path));
            Some((name.to_string(), path))
        })
        .collect()
}
