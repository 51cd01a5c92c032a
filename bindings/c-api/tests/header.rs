//! The committed header `include/orin_exec.h` is what cbindgen generates from the crate: the
//! test regenerates it and fails on any difference. `ORIN_EXEC_BLESS=1 cargo test -p
//! orin-exec-capi --test header` rewrites it.
//!
//! Covers: REQ-PART-031

use std::path::Path;

fn generate() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    // cbindgen follows lib.rs's `mod` declarations: naming the module files too would declare
    // every item twice.
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn header_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/orin_exec.h");
    let fresh = generate();
    if std::env::var_os("ORIN_EXEC_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).expect("write the header");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is out of date: run ORIN_EXEC_BLESS=1 cargo test -p orin-exec-capi --test header",
        path.display()
    );
}

/// Every function, struct, enum and constant of the header has a doc comment.
#[test]
fn header_documents_every_item() {
    let text = generate();
    let lines: Vec<&str> = text.lines().collect();
    let mut undocumented = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let item = l.starts_with("#define ORIN_EXEC_")
            || l.starts_with("typedef ")
            || (l.starts_with("orin_exec_")
                || l.starts_with("const ")
                || l.starts_with("uint")
                || l.starts_with("bool "))
                && l.contains('(')
            || l.trim_start().starts_with("ORIN_EXEC_") && l.contains('=');
        // The line before, skipping preprocessor lines (the C23/C++ variants of an enum's
        // typedef follow the documented enum).
        let prev = lines[..i]
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.starts_with('#'))
            .unwrap_or("");
        let documented = prev.ends_with("*/") || prev == "};" || prev.starts_with("typedef enum ");
        if item && !documented && !l.starts_with("#define ORIN_EXEC_H") {
            undocumented.push(*l);
        }
    }
    assert!(
        undocumented.is_empty(),
        "undocumented items: {undocumented:#?}"
    );
}
