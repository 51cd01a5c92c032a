//! Each committed list of the functions a vendor header declares
//! (`sil/{nvscisync,nvscibuf,cudla}/header-functions.txt`) against the exports of the staged
//! library: every `exported` name is exported as `name@@<soname>`, no `omitted` name is
//! exported, and every other export is a SIL extension. A missing list is a failure.
//!
//! Covers: REQ-SIL-002

use std::path::Path;

use sil_c_client::stage::{LIBS, Lib, staged};
use sil_c_client::{elf, header_list, repo_root};

fn check(stem: &str) {
    let lib: Lib = LIBS.into_iter().find(|l| l.stem == stem).unwrap();
    let list_path = repo_root().join(lib.crate_dir).join("header-functions.txt");
    let text = std::fs::read_to_string(&list_path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: the list of every function the vendor header declares, with its SIL \
             status, is missing",
            list_path.display()
        )
    });
    let entries = header_list::parse(&text)
        .unwrap_or_else(|errors| panic!("{}:\n{}", list_path.display(), errors.join("\n")));
    assert!(!entries.is_empty(), "{}: no entries", list_path.display());
    let so = staged(Path::new(env!("CARGO_TARGET_TMPDIR"))).join(lib.soname);
    let info = elf::read_path(&so).unwrap_or_else(|e| panic!("{e}"));
    let problems = header_list::check(&entries, &info, lib.soname, lib.extension_prefixes);
    assert!(
        problems.is_empty(),
        "{} disagrees with {}:\n{}",
        list_path.display(),
        so.display(),
        problems.join("\n")
    );
    let exported = entries
        .iter()
        .filter(|e| e.status == header_list::Status::Exported)
        .count();
    println!(
        "{}: {} functions listed, {exported} exported, {} omitted",
        lib.soname,
        entries.len(),
        entries.len() - exported
    );
}

#[test]
fn nvscisync_header_list_matches_the_exports() {
    check("nvscisync");
}

#[test]
fn nvscibuf_header_list_matches_the_exports() {
    check("nvscibuf");
}

#[test]
fn cudla_header_list_matches_the_exports() {
    check("cudla");
}
