//! The import list (attribution to libraries, the committed text) and the coverage check on
//! made-up binaries and hits, and the committed files read back.

use orin_exec_orin_imports::{
    Binary, Coverage, Exception, ExceptionList, Hit, ImportList, Library, State,
};

fn lib(soname: &str, exports: &[&str]) -> Library {
    Library {
        soname: soname.into(),
        exports: exports.iter().map(|s| s.to_string()).collect(),
    }
}

fn bin(name: &str, needed: &[&str], imports: &[&str]) -> Binary {
    Binary {
        name: name.into(),
        needed: needed.iter().map(|s| s.to_string()).collect(),
        imports: imports.iter().map(|s| s.to_string()).collect(),
    }
}

fn libs() -> Vec<Library> {
    vec![
        lib(
            "libnvscisync.so.1",
            &["NvSciSyncObjAlloc", "NvSciSyncFenceWait"],
        ),
        lib(
            "libcuda.so.1",
            &["cuInit", "cuLaunchKernel", "cuGraphLaunch"],
        ),
        lib("libcupva_host.so.2.10", &["CupvaStreamCreate"]),
    ]
}

fn two_binaries() -> Vec<Binary> {
    vec![
        bin(
            "aeb",
            &["libcuda.so.1", "libnvscisync.so.1", "libc.so.6"],
            &["cuInit", "cuLaunchKernel", "NvSciSyncObjAlloc"],
        ),
        bin(
            "hil",
            &["libcuda.so.1", "libnvscisync.so.1", "libc.so.6"],
            &[
                "cuInit",
                "cuLaunchKernel",
                "cuGraphLaunch",
                "NvSciSyncObjAlloc",
            ],
        ),
    ]
}

fn hit(symbol: &str, caller: &str) -> Hit {
    Hit {
        symbol: symbol.into(),
        caller: caller.into(),
    }
}

/// Covers: REQ-PART-001
#[test]
fn imports_are_attributed_to_the_library_that_exports_them() {
    let list = ImportList::build(&libs(), &two_binaries()).unwrap();
    let sonames: Vec<&str> = list.library.iter().map(|l| l.soname.as_str()).collect();
    assert_eq!(
        sonames,
        ["libcuda.so.1", "libcupva_host.so.2.10", "libnvscisync.so.1"]
    );
    let cuda = &list.library[0];
    assert_eq!(cuda.declared, 3);
    assert_eq!(cuda.needed_by, ["aeb", "hil"]);
    let names: Vec<(&str, Vec<&str>)> = cuda
        .symbols
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.binaries.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("cuGraphLaunch", vec!["hil"]),
            ("cuInit", vec!["aeb", "hil"]),
            ("cuLaunchKernel", vec!["aeb", "hil"]),
        ]
    );
    // Declared and linked by name, imported by nobody: listed with no symbol.
    assert!(list.library[1].symbols.is_empty());
    assert!(list.library[1].needed_by.is_empty());
}

/// Covers: REQ-PART-001
#[test]
fn an_import_without_its_dt_needed_or_an_owner_or_with_two_owners_is_an_error() {
    let bins = [bin("aeb", &["libc.so.6"], &["cuInit"])];
    let e = ImportList::build(&libs(), &bins).unwrap_err();
    assert!(
        e.contains("aeb imports cuInit of libcuda.so.1 but has no DT_NEEDED"),
        "{e}"
    );
    let bins = [bin("aeb", &["libcuda.so.1"], &["cuInit", "cuNewCall"])];
    let e = ImportList::build(&libs(), &bins).unwrap_err();
    assert!(
        e.contains("aeb imports cuNewCall without a symbol version"),
        "{e}"
    );
    let mut dup = libs();
    dup.push(lib("libcuda-other.so.1", &["cuInit"]));
    let e = ImportList::build(&dup, &two_binaries()).unwrap_err();
    assert!(e.contains("cuInit is exported by both"), "{e}");
}

/// Covers: REQ-PART-001
#[test]
fn the_rendered_list_parses_back_and_changes_with_a_new_import() {
    let list = ImportList::build(&libs(), &two_binaries()).unwrap();
    let text = list.render();
    assert!(text.starts_with("# The vendor symbols the `orin` build imports"));
    assert_eq!(ImportList::parse(&text).unwrap(), list);
    let mut bins = two_binaries();
    bins[0].imports.push("NvSciSyncFenceWait".into());
    let grown = ImportList::build(&libs(), &bins).unwrap().render();
    assert_ne!(grown, text);
    assert!(grown.contains("{ name = \"NvSciSyncFenceWait\", binaries = [\"aeb\"] }"));
    assert!(ImportList::parse("[[library]]\nsoname = 1\n").is_err());
}

/// Covers: REQ-PART-002
#[test]
fn every_import_must_be_called_from_shipped_code_or_be_listed_with_a_reason() {
    let list = ImportList::build(&libs(), &two_binaries()).unwrap();
    let hw = ExceptionList {
        symbol: vec![Exception {
            name: "cuGraphLaunch".into(),
            reason: "only on real hardware".into(),
        }],
    };
    let hits = vec![
        // A test calling the driver directly does not count ...
        hit("cuInit", "graph_submit::raw"),
        hit("cuInit", "orin_exec::engine::gpu::tests::raw"),
        // ... the runtime's call does.
        hit("cuInit", "orin_exec::engine::gpu::Gpu::open"),
        hit(
            "cuLaunchKernel",
            "<orin_exec::engine::gpu::GpuEngine as orin_exec::engine::Engine>::submit",
        ),
    ];
    let cov = Coverage::check(&list, &hw, &hits);
    assert!(!cov.ok());
    assert_eq!(cov.missing().collect::<Vec<_>>(), ["NvSciSyncObjAlloc"]);
    let state = |n: &str| cov.rows.iter().find(|r| r.1 == n).unwrap().2.clone();
    assert_eq!(
        state("cuInit"),
        State::Called("orin_exec::engine::gpu::Gpu::open".into())
    );
    assert_eq!(
        state("cuGraphLaunch"),
        State::Exception("only on real hardware".into())
    );
    assert!(cov.report().contains("NvSciSyncObjAlloc"));
    assert!(cov.report().contains("1 missing"));

    let mut all = hits.clone();
    all.push(hit("NvSciSyncObjAlloc", "aeb::app::build"));
    assert!(Coverage::check(&list, &hw, &all).ok());
}

/// Covers: REQ-PART-002
#[test]
fn an_exception_that_sil_reaches_or_nobody_imports_is_stale() {
    let list = ImportList::build(&libs(), &two_binaries()).unwrap();
    let hw = ExceptionList {
        symbol: vec![
            Exception {
                name: "cuInit".into(),
                reason: "x".into(),
            },
            Exception {
                name: "cuGone".into(),
                reason: "x".into(),
            },
        ],
    };
    let hits = vec![
        hit("cuInit", "orin_exec::engine::gpu::Gpu::open"),
        hit("cuLaunchKernel", "hil_tests::raw_gpu::launch"),
        hit("cuGraphLaunch", "hil_tests::raw_gpu::graph"),
        hit("NvSciSyncObjAlloc", "orin_exec::engine::nvsci::alloc"),
    ];
    let cov = Coverage::check(&list, &hw, &hits);
    assert_eq!(cov.missing().count(), 0);
    assert_eq!(cov.stale.len(), 2, "{:?}", cov.stale);
    assert!(!cov.ok());
}

/// Covers: REQ-PART-002
#[test]
fn hit_lines_parse_and_a_line_without_a_tab_is_an_error() {
    let h = Hit::parse_all("cuInit\torin_exec::a::b\n\nNvSciSyncObjAlloc\t?\n").unwrap();
    assert_eq!(h.len(), 2);
    assert!(!h[1].through_shipped_code());
    assert!(Hit::parse_all("cuInit orin_exec::a").is_err());
}

/// Covers: REQ-PART-001, REQ-PART-002
#[test]
fn the_committed_lists_are_consistent() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let list =
        ImportList::parse(&std::fs::read_to_string(root.join("docs/orin-imports.toml")).unwrap())
            .unwrap();
    // The runtime's vendor surface: the three libraries every engine needs are imported.
    for soname in ["libcuda.so.1", "libcudla.so.1", "libnvscisync.so.1"] {
        let l = list.library.iter().find(|l| l.soname == soname).unwrap();
        assert!(!l.symbols.is_empty(), "{soname}");
        assert!(
            l.symbols
                .iter()
                .all(|s| s.binaries.iter().any(|b| b == "aeb" || b == "hil"))
        );
        assert!(l.symbols.len() <= l.declared);
    }
    let hw: ExceptionList = toml::from_str(
        &std::fs::read_to_string(root.join("tools/orin-imports/exceptions.toml")).unwrap(),
    )
    .unwrap();
    for e in &hw.symbol {
        assert!(list.symbols().any(|(_, s)| s.name == e.name), "{}", e.name);
        assert!(e.reason.len() > 20, "{}: give the reason", e.name);
    }
}
