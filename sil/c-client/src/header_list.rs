//! The committed lists of every function a vendor header declares, with its status in the
//! SIL (`sil/nvscisync/header-functions.txt`, `sil/nvscibuf/header-functions.txt`,
//! `sil/cudla/header-functions.txt`), and their check against a library's exports.
//!
//! Format: lines starting with `#` are comments, empty lines are ignored, every other line
//! is `Name<TAB>exported` or `Name<TAB>omitted<TAB>reason` (a non-empty reason).

use crate::elf::DynamicInfo;

/// The SIL status of one declared function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The library exports it.
    Exported,
    /// The library does not export it, for the reason given.
    Omitted(String),
}

/// One line of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The function name.
    pub name: String,
    /// Its status.
    pub status: Status,
    /// 1-based line number in the file.
    pub line: usize,
}

/// Parses a list; every malformed line and every name listed twice is an error.
pub fn parse(text: &str) -> Result<Vec<Entry>, Vec<String>> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        let name = fields[0];
        let valid_name = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid_name {
            errors.push(format!("line {line}: `{name}` is not a C function name"));
            continue;
        }
        let status = match fields.as_slice() {
            [_, "exported"] => Status::Exported,
            [_, "omitted", reason] if !reason.trim().is_empty() => {
                Status::Omitted(reason.trim().to_string())
            }
            _ => {
                errors.push(format!(
                    "line {line}: expected `Name<TAB>exported` or `Name<TAB>omitted<TAB>reason`, got {raw:?}"
                ));
                continue;
            }
        };
        if let Some(first) = entries.iter().find(|e| e.name == name) {
            errors.push(format!(
                "line {line}: `{name}` is listed twice (first on line {})",
                first.line
            ));
            continue;
        }
        entries.push(Entry {
            name: name.to_string(),
            status,
            line,
        });
    }
    if errors.is_empty() {
        Ok(entries)
    } else {
        Err(errors)
    }
}

/// Checks a list against the exports of a library whose SONAME (and version node) is
/// `soname`: every `exported` name is an exported function under `name@@soname`, no
/// `omitted` name is exported, and every other export (except the absolute symbols that
/// name a version) starts with one of `extension_prefixes` and is versioned the same way.
/// Returns one message per problem (empty: the list and the library agree).
pub fn check(
    entries: &[Entry],
    lib: &DynamicInfo,
    soname: &str,
    extension_prefixes: &[&str],
) -> Vec<String> {
    let mut problems = Vec::new();
    let versioned = |name: &str| -> Result<(), String> {
        match lib.export(name) {
            None => Err("is not exported".into()),
            Some(s) if !s.function => Err("is exported, but not as a function".into()),
            Some(s) if s.version.as_deref() != Some(soname) || s.hidden => Err(format!(
                "is exported as `{}`, expected `{name}@@{soname}`",
                s.display()
            )),
            Some(_) => Ok(()),
        }
    };
    for e in entries {
        match &e.status {
            Status::Exported => {
                if let Err(why) = versioned(&e.name) {
                    problems.push(format!("`{}` (listed as exported) {why}", e.name));
                }
            }
            Status::Omitted(_) => {
                if let Some(s) = lib.export(&e.name) {
                    problems.push(format!(
                        "`{}` is listed as omitted but the library exports `{}`",
                        e.name,
                        s.display()
                    ));
                }
            }
        }
    }
    let version_names: Vec<&str> = lib.version_defs.iter().map(|d| d.name.as_str()).collect();
    for s in &lib.exports {
        if s.absolute && version_names.contains(&s.name.as_str()) {
            continue;
        }
        if entries.iter().any(|e| e.name == s.name) {
            continue;
        }
        if !extension_prefixes.iter().any(|p| s.name.starts_with(p)) {
            problems.push(format!(
                "the library exports `{}`, which the list does not name and which is not a SIL extension ({})",
                s.display(),
                extension_prefixes.join("*, ") + "*"
            ));
        } else if let Err(why) = versioned(&s.name) {
            problems.push(format!("SIL extension `{}` {why}", s.name));
        }
    }
    problems
}

/// Covers: REQ-SIL-002
#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::{DynSymbol, VersionDef};

    fn sym(name: &str, version: Option<&str>) -> DynSymbol {
        DynSymbol {
            name: name.into(),
            version: version.map(Into::into),
            version_file: None,
            hidden: false,
            function: true,
            absolute: false,
            weak: false,
        }
    }

    fn lib(exports: Vec<DynSymbol>) -> DynamicInfo {
        let mut version = sym("libx.so.1", Some("libx.so.1"));
        version.function = false;
        version.absolute = true;
        let mut exports = exports;
        exports.push(version);
        DynamicInfo {
            soname: Some("libx.so.1".into()),
            version_defs: vec![
                VersionDef {
                    name: "libx.so.1".into(),
                    base: true,
                },
                VersionDef {
                    name: "libx.so.1".into(),
                    base: false,
                },
            ],
            exports,
            ..DynamicInfo::default()
        }
    }

    const LIST: &str = "# a comment\n\nxA\texported\nxB\tomitted\tneeds NvSciIpc\n";

    #[test]
    fn parses_the_format() {
        let e = parse(LIST).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "xA");
        assert_eq!(e[0].status, Status::Exported);
        assert_eq!(e[0].line, 3);
        assert_eq!(e[1].status, Status::Omitted("needs NvSciIpc".into()));
    }

    #[test]
    fn rejects_malformed_lines_and_duplicates() {
        for bad in [
            "xA exported\n",
            "xA\texported\textra\n",
            "xA\tomitted\n",
            "xA\tomitted\t \n",
            "xA\tmaybe\n",
            "1x\texported\n",
            "x-y\texported\n",
            "xA\texported\nxA\texported\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn agreeing_list_and_library_pass() {
        let e = parse(LIST).unwrap();
        let l = lib(vec![
            sym("xA", Some("libx.so.1")),
            sym("xSilC", Some("libx.so.1")),
        ]);
        assert_eq!(check(&e, &l, "libx.so.1", &["xSil"]), Vec::<String>::new());
    }

    #[test]
    fn missing_export_fails() {
        let e = parse(LIST).unwrap();
        let p = check(&e, &lib(vec![]), "libx.so.1", &["xSil"]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains("`xA` (listed as exported) is not exported"),
            "{p:?}"
        );
    }

    #[test]
    fn unversioned_or_wrongly_versioned_export_fails() {
        let e = parse(LIST).unwrap();
        for s in [sym("xA", None), sym("xA", Some("OTHER_1.0")), {
            let mut h = sym("xA", Some("libx.so.1"));
            h.hidden = true;
            h
        }] {
            let p = check(&e, &lib(vec![s.clone()]), "libx.so.1", &["xSil"]);
            assert_eq!(p.len(), 1, "{s:?}: {p:?}");
            assert!(p[0].contains("expected `xA@@libx.so.1`"), "{p:?}");
        }
    }

    #[test]
    fn omitted_but_exported_fails() {
        let e = parse(LIST).unwrap();
        let l = lib(vec![
            sym("xA", Some("libx.so.1")),
            sym("xB", Some("libx.so.1")),
        ]);
        let p = check(&e, &l, "libx.so.1", &["xSil"]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("`xB` is listed as omitted"), "{p:?}");
    }

    #[test]
    fn unlisted_export_fails_unless_it_is_an_extension() {
        let e = parse(LIST).unwrap();
        let l = lib(vec![
            sym("xA", Some("libx.so.1")),
            sym("xC", Some("libx.so.1")),
        ]);
        let p = check(&e, &l, "libx.so.1", &["xSil"]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("exports `xC@@libx.so.1`"), "{p:?}");
        let l = lib(vec![sym("xA", Some("libx.so.1")), sym("xSilC", None)]);
        let p = check(&e, &l, "libx.so.1", &["xSil"]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("SIL extension `xSilC`"), "{p:?}");
    }

    #[test]
    fn data_exports_count_too() {
        let e = parse(LIST).unwrap();
        let mut d = sym("xData", Some("libx.so.1"));
        d.function = false;
        let l = lib(vec![sym("xA", Some("libx.so.1")), d]);
        assert_eq!(check(&e, &l, "libx.so.1", &["xSil"]).len(), 1);
    }
}
