//! The SIL shared libraries packaged like the vendor's (sil/README.md, "Packaging"):
//! SONAMEs `libcudla.so.1`, `libnvscisync.so.1`, `libnvscibuf.so.1`, every export under the
//! version node named like the SONAME, development links, and a C program that links by
//! SONAME with versioned references and runs with `LD_LIBRARY_PATH` alone.
//!
//! Covers: REQ-SIL-001

use std::path::{Path, PathBuf};
use std::process::Command;

use sil_c_client::stage::{LIBS, staged};
use sil_c_client::{client, elf};

fn libs() -> &'static Path {
    staged(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("packaging")
}

#[test]
fn staged_libraries_carry_the_vendor_soname_and_symbol_versions() {
    let dir = libs();
    for lib in LIBS {
        let path = dir.join(lib.soname);
        let info = elf::read_path(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            info.soname.as_deref(),
            Some(lib.soname),
            "{}",
            path.display()
        );
        // Like the vendor's libcudla.so.1: the base entry and one version, both named
        // after the SONAME.
        let defs: Vec<(&str, bool)> = info
            .version_defs
            .iter()
            .map(|d| (d.name.as_str(), d.base))
            .collect();
        assert_eq!(
            defs,
            [(lib.soname, true), (lib.soname, false)],
            "{}",
            path.display()
        );
        let functions = info.exported_functions();
        assert!(functions.len() >= 15, "{}: {functions:?}", path.display());
        for f in functions {
            assert_eq!(
                (f.version.as_deref(), f.hidden),
                (Some(lib.soname), false),
                "{}: `{}` is not `{}@@{}`",
                path.display(),
                f.display(),
                f.name,
                lib.soname
            );
        }
        // Nothing but functions and the version-name symbol is exported.
        for s in &info.exports {
            assert!(
                s.function || (s.absolute && s.name == lib.soname),
                "{}: unexpected export {s:?}",
                path.display()
            );
        }
        // No search path baked in: the libraries are found by LD_LIBRARY_PATH or ld.so.conf.
        assert!(
            info.search_paths.is_empty(),
            "{}: {:?}",
            path.display(),
            info.search_paths
        );
        // The development link.
        let link = std::fs::read_link(dir.join(lib.dev_link())).expect("dev link");
        assert_eq!(link, Path::new(lib.soname));
    }
}

#[test]
fn cudla_imports_nvsci_unversioned_and_needs_no_nvsci_file() {
    // libcudla.so.1 resolves its NvSci calls from the libraries the program links (the
    // vendor's libcudla has no DT_NEEDED on them either); unversioned references bind to the
    // default version `@@libnvscisync.so.1` / `@@libnvscibuf.so.1`.
    let info = elf::read_path(&libs().join("libcudla.so.1")).unwrap();
    let nvsci: Vec<_> = info
        .imports
        .iter()
        .filter(|s| s.name.starts_with("NvSci"))
        .collect();
    assert!(!nvsci.is_empty());
    for s in nvsci {
        assert_eq!(s.version, None, "{s:?}");
    }
    assert!(
        info.needed.iter().all(|n| !n.starts_with("libnvsci")),
        "{:?}",
        info.needed
    );
}

#[test]
fn c_program_links_by_soname_with_versioned_references_and_runs_from_ld_library_path() {
    let dir = libs();
    let exe = client::build("link_check", &["link_check.c"], dir, &out_dir())
        .unwrap_or_else(|e| panic!("{e}"));
    let info = elf::read_path(&exe).unwrap();
    for lib in LIBS {
        assert!(
            info.needed.iter().any(|n| n == lib.soname),
            "DT_NEEDED {:?} lacks {}",
            info.needed,
            lib.soname
        );
        assert!(
            info.version_needs
                .iter()
                .any(|n| n.file == lib.soname && n.name == lib.soname),
            "no version requirement {0} from {0}: {1:?}",
            lib.soname,
            info.version_needs
        );
    }
    for (name, soname) in [
        ("cudlaGetVersion", "libcudla.so.1"),
        ("NvSciSyncModuleOpen", "libnvscisync.so.1"),
        ("NvSciBufModuleOpen", "libnvscibuf.so.1"),
    ] {
        let s = info
            .import(name)
            .unwrap_or_else(|| panic!("{name} not imported"));
        assert_eq!(s.version.as_deref(), Some(soname), "{s:?}");
        assert_eq!(s.version_file.as_deref(), Some(soname), "{s:?}");
    }
    assert!(info.search_paths.is_empty(), "{:?}", info.search_paths);

    // The dynamic linker finds all three in the staged directory, by SONAME.
    let loaded = client::loaded_objects(&exe, dir);
    for lib in LIBS {
        let path = loaded
            .iter()
            .find(|(n, _)| n == lib.soname)
            .and_then(|(_, p)| p.clone())
            .unwrap_or_else(|| panic!("{} not loaded: {loaded:?}", lib.soname));
        assert_eq!(
            path.canonicalize().unwrap(),
            dir.join(lib.soname).canonicalize().unwrap()
        );
    }
    client::run_passing(&exe, dir, &[], &[]);

    // Without LD_LIBRARY_PATH nothing is found: the binary carries no path of its own.
    let out = Command::new(&exe).env_clear().output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("libcudla.so.1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The glibc binding rules the README's packaging choice rests on, checked on this machine
/// with a one-function library `libfoo.so.1` built with and without symbol versions.
#[test]
fn glibc_binding_rules_for_versioned_and_unversioned_libraries() {
    let dir = out_dir().join("glibc-rules");
    let (versioned, unversioned) = (dir.join("versioned"), dir.join("unversioned"));
    for d in [&versioned, &unversioned] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(
        dir.join("foo.c"),
        "int fooAdd(int a, int b) { return a + b; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.c"),
        "#include <stdio.h>\nint fooAdd(int, int);\n\
         int main(void) { printf(\"%d\\n\", fooAdd(2, 3)); return 0; }\n",
    )
    .unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let sh = |args: &[&str], cwd: &Path| {
        let out = Command::new(&cc)
            .args(args)
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for (d, extra) in [
        (&versioned, Some("-Wl,--default-symver")),
        (&unversioned, None),
    ] {
        let mut args = vec![
            "-shared",
            "-fPIC",
            "-o",
            "libfoo.so.1",
            "../foo.c",
            "-Wl,-soname,libfoo.so.1",
        ];
        args.extend(extra);
        sh(&args, d);
        let _ = std::fs::remove_file(d.join("libfoo.so"));
        std::os::unix::fs::symlink("libfoo.so.1", d.join("libfoo.so")).unwrap();
        sh(&["-o", "main", "../main.c", "-L.", "-lfoo"], d);
    }
    let run = |exe: &Path, lib: &Path| {
        Command::new(exe)
            .env_clear()
            .env("LD_LIBRARY_PATH", lib)
            .output()
            .unwrap()
    };
    let v_info = elf::read_path(&versioned.join("main")).unwrap();
    assert_eq!(
        v_info.import("fooAdd").unwrap().version.as_deref(),
        Some("libfoo.so.1")
    );
    let u_info = elf::read_path(&unversioned.join("main")).unwrap();
    assert_eq!(u_info.import("fooAdd").unwrap().version, None);

    // Same kind: both run.
    for d in [&versioned, &unversioned] {
        let out = run(&d.join("main"), d);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "5\n",
            "{}",
            d.display()
        );
    }
    // An unversioned reference binds to the default version of a versioned library.
    let out = run(&unversioned.join("main"), &versioned);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "5\n");
    // A versioned reference against a library without version definitions does NOT work:
    // ld.so warns "no version information available" and then stops on an internal
    // assertion when it binds the symbol (glibc's check_match). A program built against a
    // versioned library needs a versioned library at run time.
    let out = run(&versioned.join("main"), &unversioned);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        stderr.contains("no version information available"),
        "{stderr}"
    );
}
