//! `orin-exec new DIR`: a project of the user's own, outside this repository.
//!
//! The template (`tools/cli/template/`) is a crate with a schedule (CPU `source` -> GPU `scale`
//! -> CPU `sink` at 100 Hz), a kernel `.cu`, the kernel's Rust model, a build script and a
//! `main` that runs, checks every output, writes the run's evidence and prints the timing
//! summary. Its dependencies are path dependencies on an orin-exec checkout, and it starts
//! from this checkout's `Cargo.lock`, so it builds with the versions the runtime was tested
//! with.

use std::path::{Path, PathBuf};

use crate::kernels;

/// The template's files: (path in the project, text with `{{name}}` and `{{orin_exec}}`).
const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../template/Cargo.toml.in")),
    (".gitignore", include_str!("../template/.gitignore")),
    ("build.rs", include_str!("../template/build.rs")),
    ("schedule.toml", include_str!("../template/schedule.toml")),
    (
        "kernels/pipeline.cu",
        include_str!("../template/kernels/pipeline.cu"),
    ),
    ("src/main.rs", include_str!("../template/src/main.rs")),
    ("src/tasks.rs", include_str!("../template/src/tasks.rs")),
    ("src/models.rs", include_str!("../template/src/models.rs")),
    ("README.md", include_str!("../template/README.md")),
    ("Cargo.lock", include_str!("../../../Cargo.lock")),
];

/// What `new` does.
pub struct NewArgs {
    /// The project directory (created; must not exist or be empty).
    pub dir: PathBuf,
    /// The package name (default: the directory's name).
    pub name: Option<String>,
    /// The orin-exec checkout the project depends on.
    pub orin_exec: Option<PathBuf>,
    /// Do not run `kernels build` (no nvcc here).
    pub no_kernels: bool,
}

/// The checkout this binary was built from, if it is still there.
fn this_checkout() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join("tools/schedule/Cargo.toml")
        .is_file()
        .then(|| root.canonicalize().ok())
        .flatten()
}

/// A Cargo package name: ASCII letters, digits, `-` and `_`, not starting with a digit.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Creates the project; `Ok(summary)`.
pub fn create(args: &NewArgs) -> Result<String, String> {
    let dir = &args.dir;
    let name = match &args.name {
        Some(n) => n.clone(),
        None => dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("`{}` has no usable name; pass --name", dir.display()))?
            .to_owned(),
    };
    if !valid_name(&name) {
        return Err(format!(
            "`{name}` is not a valid package name (letters, digits, `-`, `_`); pass --name"
        ));
    }
    let orin_exec = match &args.orin_exec {
        Some(p) => p
            .canonicalize()
            .map_err(|e| format!("--orin-exec `{}`: {e}", p.display()))?,
        None => this_checkout().ok_or(
            "this orin-exec binary was built from a checkout that is gone; pass --orin-exec PATH",
        )?,
    };
    if !orin_exec.join("tools/schedule/Cargo.toml").is_file() {
        return Err(format!(
            "`{}` is not an orin-exec checkout (no tools/schedule/Cargo.toml)",
            orin_exec.display()
        ));
    }
    if dir.exists()
        && std::fs::read_dir(dir)
            .map_err(|e| format!("`{}`: {e}", dir.display()))?
            .next()
            .is_some()
    {
        return Err(format!(
            "`{}` exists and is not empty; nothing written",
            dir.display()
        ));
    }
    let checkout = orin_exec
        .to_str()
        .ok_or("the checkout's path is not UTF-8")?;
    for (path, text) in FILES {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
        }
        let text = text
            .replace("{{name}}", &name)
            .replace("{{orin_exec}}", checkout);
        std::fs::write(&target, text)
            .map_err(|e| format!("cannot write `{}`: {e}", target.display()))?;
    }
    let mut summary = format!(
        "created `{name}` in {} (orin-exec at {checkout})\n",
        dir.display()
    );
    if args.no_kernels {
        summary += "next: `orin-exec kernels build kernels` (the pinned nvcc), then `cargo run --release`\n";
    } else {
        summary += &kernels::build(&kernels::BuildArgs {
            dir: dir.join("kernels"),
            sms: vec![87, 90],
            nvcc: None,
            check: false,
        })
        .map_err(|e| format!("{e}\n(the project is written; build its kernels with `orin-exec kernels build kernels` once nvcc is there)"))?;
        summary += "next: `cargo run --release` in the project\n";
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-API-009
    #[test]
    fn names_and_targets_are_checked_before_anything_is_written() {
        assert!(valid_name("my-app_2"));
        assert!(!valid_name("2app") && !valid_name("my app") && !valid_name(""));
        let dir = std::env::temp_dir().join(format!("orin-exec-new-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), "mine").unwrap();
        let e = create(&NewArgs {
            dir: dir.clone(),
            name: Some("app".into()),
            orin_exec: None,
            no_kernels: true,
        })
        .unwrap_err();
        assert!(e.contains("is not empty; nothing written"), "{e}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
