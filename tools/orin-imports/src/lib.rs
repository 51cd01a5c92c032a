//! The vendor symbols the `orin` build imports, and their coverage on SIL.
//!
//! * [`ImportList::build`]: which symbol of which vendor library each `orin` binary imports,
//!   read from the binaries' dynamic symbol tables (`DT_NEEDED` and undefined symbols) and the
//!   link stubs' exports (the stubs of `bindings/build-support/link.rs` export exactly what
//!   the `-sys` crates declare, with the vendor's sonames). The committed result is
//!   `docs/orin-imports.toml` ([`ImportList::render`]).
//! * [`Coverage::check`]: every listed symbol was entered on SIL with the runtime's (or the
//!   application's) own code as the first caller outside the `-sys` crates and `std`, from the hits
//!   that `record.py` writes under gdb; the exceptions are listed with a reason in
//!   `exceptions.toml`.
//!
//! ```
//! use orin_exec_orin_imports::{Binary, ImportList, Library};
//! let cuda = Library { soname: "libcuda.so.1".into(), exports: vec!["cuInit".into(), "cuMemAlloc_v2".into()] };
//! let aeb = Binary {
//!     name: "aeb".into(),
//!     needed: vec!["libcuda.so.1".into(), "libc.so.6".into()],
//!     imports: vec!["cuInit".into()],
//! };
//! let list = ImportList::build(&[cuda], &[aeb]).unwrap();
//! assert_eq!(list.symbols().map(|(_, s)| s.name.as_str()).collect::<Vec<_>>(), ["cuInit"]);
//! assert_eq!(ImportList::parse(&list.render()).unwrap(), list);
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One vendor library as its link stub shows it.
#[derive(Clone, Debug)]
pub struct Library {
    /// `DT_SONAME` (`libcuda.so.1`): what a binary's `DT_NEEDED` names.
    pub soname: String,
    /// The exported functions: every symbol the `-sys` crate declares.
    pub exports: Vec<String>,
}

impl Library {
    /// Reads a link stub (`OUT_DIR/stubs/libNAME.so`).
    pub fn read(path: &Path) -> Result<Library, String> {
        let info = sil_c_client::elf::read_path(path)?;
        let soname = info
            .soname
            .clone()
            .ok_or_else(|| format!("{}: no DT_SONAME (not a link stub?)", path.display()))?;
        let exports = info
            .exported_functions()
            .iter()
            .map(|s| s.name.clone())
            .collect();
        Ok(Library { soname, exports })
    }
}

/// One `orin` binary as the dynamic linker sees it.
#[derive(Clone, Debug)]
pub struct Binary {
    /// A short name (`aeb`, `hil`).
    pub name: String,
    /// `DT_NEEDED`.
    pub needed: Vec<String>,
    /// The undefined dynamic symbols without a symbol version that are not weak: the vendor
    /// calls (linked against the unversioned stubs). libc's and libgcc's imports carry
    /// versions (`memcpy@GLIBC_2.17`); the toolchain's optional hooks are weak.
    pub imports: Vec<String>,
}

impl Binary {
    /// Reads the executable at `path`.
    pub fn read(name: &str, path: &Path) -> Result<Binary, String> {
        let info = sil_c_client::elf::read_path(path)?;
        Ok(Binary {
            name: name.to_string(),
            needed: info.needed.clone(),
            imports: info
                .imports
                .iter()
                .filter(|s| s.version.is_none() && !s.weak)
                .map(|s| s.name.clone())
                .collect(),
        })
    }
}

/// One imported vendor symbol.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Symbol {
    /// The symbol name.
    pub name: String,
    /// The binaries that import it, sorted.
    pub binaries: Vec<String>,
}

/// The imports from one vendor library.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryImports {
    /// The library's soname.
    pub soname: String,
    /// How many functions its `-sys` crate declares (the stub's exports).
    pub declared: usize,
    /// The binaries whose `DT_NEEDED` names it, sorted.
    pub needed_by: Vec<String>,
    /// The imported symbols, sorted by name.
    pub symbols: Vec<Symbol>,
}

/// Every vendor symbol the `orin` binaries import (`docs/orin-imports.toml`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportList {
    /// One entry per vendor library, sorted by soname.
    pub library: Vec<LibraryImports>,
}

impl ImportList {
    /// Attributes each binary's imports to the library that exports them (as the dynamic
    /// linker would, among the binary's `DT_NEEDED`). An error when an import is exported by
    /// no library (nothing may escape the list), when its library is not in the binary's
    /// `DT_NEEDED`, or when two libraries export one name.
    pub fn build(libs: &[Library], bins: &[Binary]) -> Result<ImportList, String> {
        let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
        for lib in libs {
            for e in &lib.exports {
                if let Some(other) = owner.insert(e, &lib.soname)
                    && other != lib.soname
                {
                    return Err(format!(
                        "{e} is exported by both {other} and {}: the import cannot be attributed",
                        lib.soname
                    ));
                }
            }
        }
        let mut per_lib: BTreeMap<&str, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
        for bin in bins {
            for imp in &bin.imports {
                let Some(&soname) = owner.get(imp.as_str()) else {
                    return Err(format!(
                        "{} imports {imp} without a symbol version, and no vendor library's \
                         stub exports it: which library defines it? (a new -sys crate's stub \
                         must be part of the build)",
                        bin.name
                    ));
                };
                if !bin.needed.iter().any(|n| n == soname) {
                    return Err(format!(
                        "{} imports {imp} of {soname} but has no DT_NEEDED {soname}",
                        bin.name
                    ));
                }
                per_lib
                    .entry(soname)
                    .or_default()
                    .entry(imp)
                    .or_default()
                    .insert(&bin.name);
            }
        }
        let mut seen = BTreeSet::new();
        let mut library = Vec::new();
        for lib in libs {
            if !seen.insert(&lib.soname) {
                continue;
            }
            let symbols = per_lib
                .get(lib.soname.as_str())
                .map(|m| {
                    m.iter()
                        .map(|(name, bins)| Symbol {
                            name: name.to_string(),
                            binaries: bins.iter().map(|b| b.to_string()).collect(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let mut needed_by: Vec<String> = bins
                .iter()
                .filter(|b| b.needed.contains(&lib.soname))
                .map(|b| b.name.clone())
                .collect();
            needed_by.sort();
            library.push(LibraryImports {
                soname: lib.soname.clone(),
                declared: lib.exports.len(),
                needed_by,
                symbols,
            });
        }
        library.sort_by(|a, b| a.soname.cmp(&b.soname));
        Ok(ImportList { library })
    }

    /// Every imported symbol with its library's soname.
    pub fn symbols(&self) -> impl Iterator<Item = (&str, &Symbol)> {
        self.library
            .iter()
            .flat_map(|l| l.symbols.iter().map(move |s| (l.soname.as_str(), s)))
    }

    /// The committed text: TOML with a header that says where it comes from.
    pub fn render(&self) -> String {
        let mut s = String::from(
            "# The vendor symbols the `orin` build imports, per library: read from the dynamic\n\
             # symbol tables of the aarch64 binaries (`aeb`: the AEB demo, the runtime's whole\n\
             # vendor surface; `hil`: the HIL bundle binary, adding the hand-written driver\n\
             # baselines of `hil bench`). Generated by `ci/orin-imports.sh --update`; CI\n\
             # rebuilds the binaries and fails when this file differs. Do not edit.\n\
             # `declared`: functions the -sys crate declares (its link stub's exports).\n",
        );
        for lib in &self.library {
            s.push_str(&format!(
                "\n[[library]]\nsoname = \"{}\"\ndeclared = {}\nneeded_by = {}\nsymbols = [",
                lib.soname,
                lib.declared,
                quoted(&lib.needed_by)
            ));
            for sym in &lib.symbols {
                s.push_str(&format!(
                    "\n    {{ name = \"{}\", binaries = {} }},",
                    sym.name,
                    quoted(&sym.binaries)
                ));
            }
            s.push_str(if lib.symbols.is_empty() {
                "]\n"
            } else {
                "\n]\n"
            });
        }
        s
    }

    /// Parses [`ImportList::render`]'s text.
    pub fn parse(text: &str) -> Result<ImportList, String> {
        toml::from_str(text).map_err(|e| format!("import list: {e}"))
    }
}

fn quoted(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("\"{x}\"")).collect();
    format!("[{}]", items.join(", "))
}

/// One executable of a cargo build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Executable {
    /// The target's name (`aeb`, `graph_submit`; a crate's unit tests: the crate's name).
    pub name: String,
    /// Its path.
    pub path: PathBuf,
    /// Built as a test harness (`cargo test --no-run`), not as a program.
    pub test: bool,
}

/// What `cargo build --message-format=json` says about an `orin` build: the executables and
/// the link stubs of the `-sys` crates.
#[derive(Debug, Default)]
pub struct CargoBuild {
    /// Every executable built.
    pub executables: Vec<Executable>,
    /// Every `OUT_DIR/stubs/*.so` of a build script that ran (or was fresh) in this build.
    pub stubs: Vec<PathBuf>,
}

impl CargoBuild {
    /// Reads cargo's JSON messages (one per line; other lines are ignored).
    pub fn parse(messages: &str) -> Result<CargoBuild, String> {
        let mut out = CargoBuild::default();
        for line in messages.lines().filter(|l| l.starts_with('{')) {
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("cargo message: {e}: {line}"))?;
            match v["reason"].as_str() {
                Some("compiler-artifact") => {
                    if let (Some(name), Some(exe)) =
                        (v["target"]["name"].as_str(), v["executable"].as_str())
                    {
                        out.executables.push(Executable {
                            name: name.to_string(),
                            path: PathBuf::from(exe),
                            test: v["profile"]["test"].as_bool() == Some(true),
                        });
                    }
                }
                Some("build-script-executed") => {
                    let Some(dir) = v["out_dir"].as_str() else {
                        continue;
                    };
                    let stubs = Path::new(dir).join("stubs");
                    let Ok(entries) = std::fs::read_dir(&stubs) else {
                        continue;
                    };
                    let mut found: Vec<PathBuf> = entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "so"))
                        .collect();
                    found.sort();
                    out.stubs.extend(found);
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

/// One call recorded on SIL: the vendor symbol entered and the first function up the stack
/// outside the `-sys` crates and the standard library (`record.py`: `symbol<TAB>caller`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The symbol.
    pub symbol: String,
    /// The calling function, demangled (`orin_exec::engine::gpu::Gpu::open`).
    pub caller: String,
}

impl Hit {
    /// Parses the hit lines; empty lines are skipped.
    pub fn parse_all(text: &str) -> Result<Vec<Hit>, String> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let (symbol, caller) = l
                    .split_once('\t')
                    .ok_or_else(|| format!("hit line without a tab: {l:?}"))?;
                Ok(Hit {
                    symbol: symbol.to_string(),
                    caller: caller.to_string(),
                })
            })
            .collect()
    }

    /// Whether the caller is shipped code: the runtime (`orin_exec`), the AEB application
    /// (`aeb`) or the HIL binary's library (`hil_tests`), outside their `tests` modules. A
    /// call straight from a test file (crate named after the test) does not count.
    ///
    /// ```
    /// # use orin_exec_orin_imports::Hit;
    /// let hit = |c: &str| Hit { symbol: "cuInit".into(), caller: c.into() };
    /// assert!(hit("orin_exec::engine::gpu::Gpu::open").through_shipped_code());
    /// assert!(hit("<orin_exec::engine::gpu::Stream as core::ops::drop::Drop>::drop").through_shipped_code());
    /// assert!(!hit("graph_submit::raw_capture").through_shipped_code());
    /// assert!(!hit("orin_exec::engine::gpu::tests::raw").through_shipped_code());
    /// ```
    pub fn through_shipped_code(&self) -> bool {
        let c = self.caller.trim_start_matches(['<', '&', '*']);
        let c = c.strip_prefix("dyn ").unwrap_or(c);
        let krate = c.split("::").next().unwrap_or("");
        SHIPPED_CRATES.contains(&krate) && !self.caller.contains("::tests::")
    }
}

/// The crates whose calls count as "through the runtime's own code".
pub const SHIPPED_CRATES: [&str; 3] = ["orin_exec", "aeb", "hil_tests"];

/// An imported symbol no SIL run reaches through shipped code, with the reason: only the
/// real hardware reaches it, or the orin build imports it without reaching it
/// (`exceptions.toml`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exception {
    /// The symbol.
    pub name: String,
    /// Why no SIL run reaches it through the runtime's code.
    pub reason: String,
}

/// `exceptions.toml`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExceptionList {
    /// The entries.
    #[serde(default)]
    pub symbol: Vec<Exception>,
}

/// How one imported symbol is covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Entered on SIL from this shipped function (the first one recorded).
    Called(String),
    /// Listed in `exceptions.toml`, with the reason.
    Exception(String),
    /// Neither: the check fails.
    Missing,
}

/// The coverage of every imported symbol.
#[derive(Clone, Debug)]
pub struct Coverage {
    /// (soname, symbol, state), in the import list's order.
    pub rows: Vec<(String, String, State)>,
    /// Problems with `exceptions.toml`: an entry for a symbol no binary imports, or for
    /// one that SIL does reach (the list must not hide coverage that exists).
    pub stale: Vec<String>,
}

impl Coverage {
    /// Checks the import list against the recorded hits and the exception list.
    pub fn check(list: &ImportList, exceptions: &ExceptionList, hits: &[Hit]) -> Coverage {
        let mut first: BTreeMap<&str, &str> = BTreeMap::new();
        for h in hits.iter().filter(|h| h.through_shipped_code()) {
            first.entry(&h.symbol).or_insert(&h.caller);
        }
        let mut rows = Vec::new();
        for (soname, sym) in list.symbols() {
            let listed = exceptions.symbol.iter().find(|e| e.name == sym.name);
            let state = match (first.get(sym.name.as_str()), listed) {
                (Some(c), _) => State::Called(c.to_string()),
                (None, Some(e)) => State::Exception(e.reason.clone()),
                (None, None) => State::Missing,
            };
            rows.push((soname.to_string(), sym.name.clone(), state));
        }
        let mut stale = Vec::new();
        for e in &exceptions.symbol {
            if !list.symbols().any(|(_, s)| s.name == e.name) {
                stale.push(format!(
                    "{} is listed as an exception but no orin binary imports it: remove the entry",
                    e.name
                ));
            } else if let Some(c) = first.get(e.name.as_str()) {
                stale.push(format!(
                    "{} is listed as an exception but SIL reaches it (from {c}): remove the entry",
                    e.name
                ));
            }
        }
        Coverage { rows, stale }
    }

    /// The symbols neither called nor listed.
    pub fn missing(&self) -> impl Iterator<Item = &str> {
        self.rows
            .iter()
            .filter(|r| r.2 == State::Missing)
            .map(|r| r.1.as_str())
    }

    /// Whether every symbol is covered and the exception list is current.
    pub fn ok(&self) -> bool {
        self.missing().next().is_none() && self.stale.is_empty()
    }

    /// One line per symbol, then the problems.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for (soname, sym, state) in &self.rows {
            let what = match state {
                State::Called(c) => format!("called from {c}"),
                State::Exception(r) => format!("exception: {r}"),
                State::Missing => {
                    "NOT CALLED on SIL through the runtime's code, and not listed in \
                     tools/orin-imports/exceptions.toml: add a SIL test that reaches it \
                     through the runtime, or list it there with the reason"
                        .to_string()
                }
            };
            s.push_str(&format!("{soname:<24} {sym:<40} {what}\n"));
        }
        for p in &self.stale {
            s.push_str(&format!("stale: {p}\n"));
        }
        let called = self
            .rows
            .iter()
            .filter(|r| matches!(r.2, State::Called(_)))
            .count();
        let hw = self
            .rows
            .iter()
            .filter(|r| matches!(r.2, State::Exception(_)))
            .count();
        s.push_str(&format!(
            "{} imported symbols: {called} called on SIL through shipped code, {hw} exceptions, {} missing\n",
            self.rows.len(),
            self.missing().count()
        ));
        s
    }
}
