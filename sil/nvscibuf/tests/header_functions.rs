//! `header-functions.txt` against the sources: every `exported` function is defined with
//! `#[unsafe(no_mangle)] pub unsafe extern "C"` in this crate and declared in
//! `nvsci-sys`; no `omitted` function is; nothing else named `NvSciBuf*` (but the SIL
//! extensions `NvSciBufSil*`) is exported. (The `.so` itself is checked elsewhere.)
//!
//! Covers: REQ-SIL-002

use std::collections::BTreeSet;
use std::path::Path;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Names of the `#[unsafe(no_mangle)] pub unsafe extern "C" fn` definitions in `src`.
fn exports(src: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut mangled = false;
    for line in src.lines().map(str::trim) {
        if line == "#[unsafe(no_mangle)]" {
            mangled = true;
        } else if let Some(rest) = line.strip_prefix("pub unsafe extern \"C\" fn ") {
            if mangled {
                out.insert(rest.split('(').next().unwrap_or("").to_string());
            }
            mangled = false;
        }
    }
    out
}

#[test]
fn list_matches_the_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let list = read(&root.join("header-functions.txt"));
    let mut lines = list.lines();
    assert_eq!(
        lines.next(),
        Some("# nvscibuf.h DRIVE OS 6.0.10 (NvSciBuf 2.11)")
    );
    let (mut exported, mut omitted) = (Vec::new(), Vec::new());
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            [name, "exported"] => exported.push(name.to_string()),
            [name, "omitted", why] if !why.is_empty() => omitted.push(name.to_string()),
            _ => panic!("malformed line {line:?}"),
        }
    }
    assert_eq!(
        exported.len() + omitted.len(),
        40,
        "nvscibuf.h declares 40 functions"
    );

    let mut defined = BTreeSet::new();
    for e in std::fs::read_dir(root.join("src")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            defined.extend(exports(&read(&p)));
        }
    }
    let decl = read(&root.join("../../bindings/nvsci-sys/src/buf.rs"));
    for name in &exported {
        assert!(defined.contains(name), "{name} is not exported");
        assert!(
            decl.contains(&format!("pub fn {name}(")),
            "{name} is not declared"
        );
    }
    for name in &omitted {
        assert!(
            !defined.contains(name),
            "{name} is listed as omitted but exported"
        );
        assert!(
            !decl.contains(&format!("pub fn {name}(")),
            "{name} is declared"
        );
    }
    let extra: Vec<&String> = defined
        .iter()
        .filter(|d| !exported.contains(d) && !d.starts_with("NvSciBufSil"))
        .collect();
    assert!(extra.is_empty(), "exported but not in the list: {extra:?}");
}
