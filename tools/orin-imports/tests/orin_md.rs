//! `hil-tests/ORIN.md` against the committed import list: it says that nothing was run on an
//! Orin, names every library the orin build links, and names only vendor calls the orin build
//! imports (a renamed or removed call cannot linger in the checklist).
//!
//! Covers: REQ-PART-003

use std::path::Path;

use orin_exec_orin_imports::ImportList;

fn root_file(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The vendor function names in backticks: `cu`, `cudla` or `NvSci` followed by a capital
/// letter. Names with a `*` (a family, `cuGraph*`) are not single calls and are skipped.
fn vendor_names(md: &str) -> Vec<String> {
    let mut names = Vec::new();
    for code in md.split('`').skip(1).step_by(2) {
        if code.contains('*') {
            continue;
        }
        for tok in code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let rest = ["cudla", "cu", "NvSci"]
                .iter()
                .find_map(|p| tok.strip_prefix(p));
            if rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_uppercase())) {
                names.push(tok.to_string());
            }
        }
    }
    names
}

#[test]
fn the_checklist_is_honest_and_names_only_imported_calls() {
    let md = root_file("hil-tests/ORIN.md");
    let list = ImportList::parse(&root_file("docs/orin-imports.toml")).unwrap();
    assert!(
        md.contains("nothing in this checklist has been run on an Orin"),
        "ORIN.md must say that it was not run on an Orin"
    );
    for lib in &list.library {
        assert!(
            md.contains(&lib.soname),
            "ORIN.md does not name {}",
            lib.soname
        );
    }
    let names = vendor_names(&md);
    assert!(names.len() > 10, "{names:?}");
    let unknown: Vec<&String> = names
        .iter()
        .filter(|n| !list.symbols().any(|(_, s)| &&s.name == n))
        .collect();
    assert!(
        unknown.is_empty(),
        "ORIN.md names vendor calls the orin build does not import: {unknown:?}"
    );
}

#[test]
fn the_name_scan_finds_calls_and_skips_families_and_crates() {
    let md = "`cuInit`, `cudlaSubmitTask`/`NvSciSyncObjAlloc`, `cuGraph*`, `cuda-sys`, `cubin`";
    assert_eq!(
        vendor_names(md),
        ["cuInit", "cudlaSubmitTask", "NvSciSyncObjAlloc"]
    );
}
