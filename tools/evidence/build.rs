//! Captures, at build time, what a run manifest states about the build: the git commit and
//! whether the working tree had uncommitted changes (`unknown` without git or outside a
//! checkout), and the rustc version (`rustc -vV` of the compiler cargo uses).
//!
//! The build re-runs when the checkout's `HEAD`, the branch it points at, or the index
//! changes (a commit, a checkout, `git add`), so a new commit is always picked up. An edit
//! that no git command has seen yet is picked up at the next build that re-runs this script.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=ORIN_EXEC_GIT_COMMIT");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));

    let commit = std::env::var("ORIN_EXEC_GIT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| git(&dir, &["rev-parse", "HEAD"]));
    let dirty = match &commit {
        // `--no-optional-locks`: do not refresh the index (that would re-run this script).
        Some(_) => git(
            &dir,
            &[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "--untracked-files=no",
            ],
        )
        .map(|s| if s.is_empty() { "false" } else { "true" }),
        None => None,
    };
    // Re-run on a commit, a checkout or a change to the index (worktrees included: HEAD and the
    // index live in the worktree's git dir, branches in the common dir).
    if let Some(git_dir) = git(&dir, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = PathBuf::from(git_dir);
        for f in ["HEAD", "index"] {
            println!("cargo::rerun-if-changed={}", git_dir.join(f).display());
        }
        if let Some(common) = git(&dir, &["rev-parse", "--git-common-dir"]) {
            let common = if Path::new(&common).is_absolute() {
                PathBuf::from(common)
            } else {
                dir.join(common)
            };
            println!(
                "cargo::rerun-if-changed={}",
                common.join("packed-refs").display()
            );
            if let Some(head) = git(&dir, &["symbolic-ref", "-q", "HEAD"]) {
                println!("cargo::rerun-if-changed={}", common.join(head).display());
            }
        }
    }

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = Command::new(&rustc)
        .arg("-vV")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            let first = text.lines().next().unwrap_or("").trim().to_string();
            let host = text
                .lines()
                .find_map(|l| l.strip_prefix("host: "))
                .map(|h| format!(" (host {h})"))
                .unwrap_or_default();
            format!("{first}{host}")
        })
        .filter(|v| !v.is_empty());

    println!(
        "cargo::rustc-env=ORIN_EXEC_BUILD_GIT_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
    println!(
        "cargo::rustc-env=ORIN_EXEC_BUILD_GIT_DIRTY={}",
        dirty.unwrap_or("unknown")
    );
    println!(
        "cargo::rustc-env=ORIN_EXEC_BUILD_RUSTC={}",
        rustc_version.as_deref().unwrap_or("unknown")
    );
}
