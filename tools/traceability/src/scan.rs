//! The workspace's tests and their `Covers:` tags.
//!
//! The targets come from `cargo metadata`; each target's module tree is parsed with `syn`
//! from its root file (`mod x;` followed to its file), so every `#[test]` function is found
//! with the path libtest prints for it (`sync::seqlock::tests::reader_sees_whole_writes`).
//! A test covers the requirements named by `Covers:` doc lines on the function, on any
//! enclosing module (`/// Covers:` above `mod tests`, or `//! Covers:` inside it) and in the
//! header of its file. A test target without the libtest harness (`harness = false`) is one
//! test, covered by the tags in its root file's header.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a target is, as far as tests go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TargetKind {
    /// A library (its unit tests: `Running unittests src/lib.rs`).
    Lib,
    /// A binary (its unit tests: `Running unittests src/main.rs`).
    Bin,
    /// An integration test (`Running tests/x.rs`).
    Test,
}

/// A target that holds tests.
#[derive(Debug, Clone)]
pub struct Target {
    /// Its package.
    pub package: String,
    /// The target's name (what the test binary is named after, `-` as `_`).
    pub name: String,
    /// Lib, bin or test.
    pub kind: TargetKind,
    /// The root file, relative to the package (what cargo prints after `Running`).
    pub src_in_package: String,
    /// The root file, relative to the workspace.
    pub src: String,
    /// False for a test target with `harness = false`.
    pub harness: bool,
}

/// One test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFn {
    /// Index into [`Scan::targets`].
    pub target: usize,
    /// The file that holds it, relative to the workspace.
    pub file: String,
    /// The path libtest prints (module path from the crate root, then the name); empty for
    /// a target without the harness.
    pub path: String,
    /// Inline modules of its file and its name (`tests::name`), or `(own main)` for a target
    /// without the harness.
    pub in_file: String,
    /// The requirements it covers, sorted.
    pub covers: BTreeSet<String>,
    /// `#[ignore]`d.
    pub ignored: bool,
}

/// A `Covers:` line found in a source file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tag {
    /// Relative to the workspace.
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// The requirement id as written (validated later).
    pub id: String,
}

/// Everything the scan found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Targets with tests, in `cargo metadata` order.
    pub targets: Vec<Target>,
    /// Every test.
    pub tests: Vec<TestFn>,
    /// Every `Covers:` line of every `.rs` file under the workspace root.
    pub tags: Vec<Tag>,
    /// Tags attached to no test: on an item that is not a test, on a module without tests,
    /// or in a file no target reaches.
    pub dangling: Vec<Tag>,
    /// Files that could not be read or parsed, with the reason.
    pub unreadable: Vec<(String, String)>,
}

/// Why the scan failed as a whole.
#[derive(Debug)]
pub enum ScanError {
    /// `cargo metadata` could not run or failed.
    Metadata(String),
    /// A root file of a target could not be read or parsed.
    Root {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Metadata(e) => write!(f, "cargo metadata: {e}"),
            Self::Root { file, why } => write!(f, "{file}: {why}"),
        }
    }
}

impl std::error::Error for ScanError {}

/// The ids on a doc line `Covers: REQ-A-001, REQ-B-002` (text after `///` or `//!`), or
/// `None` when the line is not a tag.
///
/// ```
/// use orin_exec_traceability::scan::covers_of;
/// assert_eq!(covers_of(" Covers: REQ-RT-001, REQ-RT-002"), Some(vec!["REQ-RT-001", "REQ-RT-002"]));
/// assert_eq!(covers_of(" Something else"), None);
/// ```
pub fn covers_of(doc: &str) -> Option<Vec<&str>> {
    let rest = doc.trim().strip_prefix("Covers:")?;
    Some(
        rest.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

/// Scans the workspace at `root`.
pub fn scan(root: &Path) -> Result<Scan, ScanError> {
    let targets = targets(root)?;
    let mut out = Scan {
        targets: Vec::new(),
        ..Scan::default()
    };
    // (file, id) -> used by a test
    let mut attached: BTreeMap<(String, String), bool> = BTreeMap::new();
    for t in targets {
        let idx = out.targets.len();
        let root_file = root.join(&t.src);
        let mut walker = Walker {
            root,
            target: idx,
            tests: Vec::new(),
            attached: &mut attached,
            unreadable: &mut out.unreadable,
        };
        let file = match parse(&root_file) {
            Ok(f) => f,
            Err(why) => {
                return Err(ScanError::Root {
                    file: t.src.clone(),
                    why,
                });
            }
        };
        let dir = root_file.parent().unwrap_or(root).to_path_buf();
        let file_tags = walker.tags_of(&file.attrs, &t.src);
        if t.harness {
            let ctx = Ctx {
                file: t.src.clone(),
                crate_path: Vec::new(),
                in_file: Vec::new(),
                covers: file_tags.clone(),
                child_dir: dir,
            };
            walker.items(&file.items, &ctx);
        } else {
            walker.tests.push(TestFn {
                target: idx,
                file: t.src.clone(),
                path: String::new(),
                in_file: "(own main)".into(),
                covers: file_tags.iter().map(|(id, _)| id.clone()).collect(),
                ignored: false,
            });
            for (id, _) in &file_tags {
                walker.attached.insert((t.src.clone(), id.clone()), true);
            }
        }
        let tests = walker.tests;
        if !tests.is_empty() {
            out.tests.extend(tests);
        }
        out.targets.push(t);
    }
    out.tags = raw_tags(root, &mut out.unreadable);
    out.dangling = out
        .tags
        .iter()
        .filter(|t| {
            !attached
                .get(&(t.file.clone(), t.id.clone()))
                .copied()
                .unwrap_or(false)
        })
        .cloned()
        .collect();
    Ok(out)
}

struct Ctx {
    file: String,
    crate_path: Vec<String>,
    in_file: Vec<String>,
    /// Inherited tags: (id, file the tag is in).
    covers: Vec<(String, String)>,
    /// Where `mod x;` files of this module live.
    child_dir: PathBuf,
}

struct Walker<'a> {
    root: &'a Path,
    target: usize,
    tests: Vec<TestFn>,
    attached: &'a mut BTreeMap<(String, String), bool>,
    unreadable: &'a mut Vec<(String, String)>,
}

fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            out.extend(s.value().lines().map(str::to_string));
        }
    }
    out
}

fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().is_ident(name))
}

impl Walker<'_> {
    /// The tags among these attributes, each registered as attached (unused until a test
    /// inherits it).
    fn tags_of(&mut self, attrs: &[syn::Attribute], file: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for line in doc_lines(attrs) {
            if let Some(ids) = covers_of(&line) {
                for id in ids {
                    self.attached
                        .entry((file.to_string(), id.to_string()))
                        .or_insert(false);
                    out.push((id.to_string(), file.to_string()));
                }
            }
        }
        out
    }

    fn items(&mut self, items: &[syn::Item], ctx: &Ctx) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    let own = self.tags_of(&f.attrs, &ctx.file);
                    if !has_attr(&f.attrs, "test") {
                        continue;
                    }
                    let name = f.sig.ident.to_string();
                    self.test(name, own, has_attr(&f.attrs, "ignore"), ctx);
                }
                // `proptest! { #[test] fn name(..) { .. } }`: each is a test of that name; the
                // enclosing module's and file's tags cover it.
                syn::Item::Macro(m) if m.mac.path.is_ident("proptest") => {
                    let own = self.tags_of(&m.attrs, &ctx.file);
                    for name in macro_tests(m.mac.tokens.clone()) {
                        self.test(name, own.clone(), false, ctx);
                    }
                }
                syn::Item::Mod(m) => self.module(m, ctx),
                _ => {
                    // Tags on anything else attach to nothing: registered, never used.
                    let _ = self.tags_of(item_attrs(item), &ctx.file);
                }
            }
        }
    }

    /// Records test `name` of the current file, covered by `own` tags and the context's.
    fn test(&mut self, name: String, own: Vec<(String, String)>, ignored: bool, ctx: &Ctx) {
        let mut covers = BTreeSet::new();
        for (id, file) in ctx.covers.iter().chain(own.iter()) {
            covers.insert(id.clone());
            self.attached.insert((file.clone(), id.clone()), true);
        }
        let path: Vec<&str> = ctx
            .crate_path
            .iter()
            .map(String::as_str)
            .chain([name.as_str()])
            .collect();
        let in_file: Vec<&str> = ctx
            .in_file
            .iter()
            .map(String::as_str)
            .chain([name.as_str()])
            .collect();
        self.tests.push(TestFn {
            target: self.target,
            file: ctx.file.clone(),
            path: path.join("::"),
            in_file: in_file.join("::"),
            covers,
            ignored,
        });
    }

    fn module(&mut self, m: &syn::ItemMod, ctx: &Ctx) {
        let name = m.ident.to_string();
        let own = self.tags_of(&m.attrs, &ctx.file);
        let mut covers = ctx.covers.clone();
        covers.extend(own);
        let mut crate_path = ctx.crate_path.clone();
        crate_path.push(name.clone());
        match &m.content {
            Some((_, items)) => {
                let mut in_file = ctx.in_file.clone();
                in_file.push(name.clone());
                let child = Ctx {
                    file: ctx.file.clone(),
                    crate_path,
                    in_file,
                    covers,
                    child_dir: ctx.child_dir.join(&name),
                };
                self.items(items, &child);
            }
            None => {
                let Some(path) = self.module_file(m, ctx) else {
                    return; // e.g. a platform module behind a `#[cfg]` that is not there
                };
                let rel = rel(self.root, &path);
                let file = match parse(&path) {
                    Ok(f) => f,
                    Err(why) => {
                        self.unreadable.push((rel, why));
                        return;
                    }
                };
                covers.extend(self.tags_of(&file.attrs, &rel));
                let is_mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
                let child_dir = if is_mod_rs || path_attr(m).is_some() {
                    path.parent().unwrap_or(self.root).to_path_buf()
                } else {
                    ctx.child_dir.join(&name)
                };
                let child = Ctx {
                    file: rel,
                    crate_path,
                    in_file: Vec::new(),
                    covers,
                    child_dir,
                };
                self.items(&file.items, &child);
            }
        }
    }

    fn module_file(&self, m: &syn::ItemMod, ctx: &Ctx) -> Option<PathBuf> {
        let name = m.ident.to_string();
        if let Some(p) = path_attr(m) {
            let p = ctx.child_dir.join(p);
            return p.is_file().then_some(p);
        }
        [
            ctx.child_dir.join(format!("{name}.rs")),
            ctx.child_dir.join(&name).join("mod.rs"),
        ]
        .into_iter()
        .find(|p| p.is_file())
    }
}

fn path_attr(m: &syn::ItemMod) -> Option<String> {
    m.attrs.iter().find_map(|a| {
        if !a.path().is_ident("path") {
            return None;
        }
        match &a.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn parse(path: &Path) -> Result<syn::File, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    syn::parse_file(&text).map_err(|e| format!("does not parse: {e}"))
}

/// `path` relative to `root`, with `/`.
pub fn rel(root: &Path, path: &Path) -> String {
    let p = path.strip_prefix(root).unwrap_or(path);
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every `Covers:` doc line of every `.rs` file under `root`, skipping hidden directories
/// and `target`. The files are tokenised, so text inside string literals or ordinary
/// comments is never taken for a tag; the line is that of the matching `///` or `//!` line.
fn raw_tags(root: &Path, unreadable: &mut Vec<(String, String)>) -> Vec<Tag> {
    let mut files = Vec::new();
    walk(root, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let file = rel(root, &f);
        let text = match std::fs::read_to_string(&f) {
            Ok(t) => t,
            Err(e) => {
                unreadable.push((file, e.to_string()));
                continue;
            }
        };
        if !text.contains("Covers:") {
            continue;
        }
        let tokens: proc_macro2::TokenStream = match text.parse() {
            Ok(t) => t,
            Err(e) => {
                unreadable.push((file, format!("does not tokenise: {e}")));
                continue;
            }
        };
        let mut docs = Vec::new();
        doc_strings(tokens, &mut docs);
        // Source lines that look like tag lines, in order, to give each tag its line.
        let candidates: Vec<(usize, String)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, line)| {
                let t = line.trim_start();
                let doc = t.strip_prefix("///").or_else(|| t.strip_prefix("//!"))?;
                covers_of(doc).map(|_| (i + 1, doc.trim().to_string()))
            })
            .collect();
        let mut next = 0;
        for doc in docs {
            for line in doc.lines() {
                let Some(ids) = covers_of(line) else { continue };
                let line_no = match candidates[next..]
                    .iter()
                    .position(|(_, c)| c == line.trim())
                {
                    Some(k) => {
                        next += k + 1;
                        candidates[next - 1].0
                    }
                    None => 0,
                };
                for id in ids {
                    out.push(Tag {
                        file: file.clone(),
                        line: line_no,
                        id: id.to_string(),
                    });
                }
            }
        }
    }
    out
}

/// The values of every `#[doc = "…"]` and `#![doc = "…"]` (what `///` and `//!` become) in
/// a token stream, in order.
fn doc_strings(tokens: proc_macro2::TokenStream, out: &mut Vec<String>) {
    use proc_macro2::{Delimiter, TokenTree};
    let mut prev_hash = false;
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                if prev_hash
                    && g.delimiter() == Delimiter::Bracket
                    && let Ok(nv) = syn::parse2::<syn::MetaNameValue>(g.stream())
                    && nv.path.is_ident("doc")
                    && let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) = nv.value
                {
                    out.push(s.value());
                    prev_hash = false;
                    continue;
                }
                doc_strings(g.stream(), out);
                prev_hash = false;
            }
            TokenTree::Punct(p) if p.as_char() == '#' => prev_hash = true,
            TokenTree::Punct(p) if p.as_char() == '!' && prev_hash => {}
            _ => prev_hash = false,
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if name.starts_with('.') || name == "target" {
                continue;
            }
            walk(&p, out);
        } else if ft.is_file() && name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// `cargo metadata --no-deps` of the workspace at `root`.
pub fn metadata(root: &Path) -> Result<serde_json::Value, ScanError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(root.join("Cargo.toml"))
        .output()
        .map_err(|e| ScanError::Metadata(e.to_string()))?;
    if !out.status.success() {
        return Err(ScanError::Metadata(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| ScanError::Metadata(format!("unreadable output: {e}")))
}

/// The workspace's packages: name and directory.
pub fn packages(root: &Path) -> Result<Vec<(String, PathBuf)>, ScanError> {
    let meta = metadata(root)?;
    let bad = |what: &str| ScanError::Metadata(format!("no `{what}` in its output"));
    let mut out = Vec::new();
    for p in meta["packages"].as_array().ok_or_else(|| bad("packages"))? {
        let name = p["name"].as_str().ok_or_else(|| bad("name"))?;
        let manifest = Path::new(
            p["manifest_path"]
                .as_str()
                .ok_or_else(|| bad("manifest_path"))?,
        );
        if let Some(dir) = manifest.parent() {
            out.push((name.to_string(), dir.to_path_buf()));
        }
    }
    Ok(out)
}

/// The test-holding targets of the workspace at `root`, from `cargo metadata`.
pub fn targets(root: &Path) -> Result<Vec<Target>, ScanError> {
    targets_from_metadata(root, &metadata(root)?)
}

fn targets_from_metadata(root: &Path, meta: &serde_json::Value) -> Result<Vec<Target>, ScanError> {
    let root = root
        .canonicalize()
        .map_err(|e| ScanError::Metadata(format!("{}: {e}", root.display())))?;
    let bad = |what: &str| ScanError::Metadata(format!("no `{what}` in its output"));
    let mut out = Vec::new();
    for p in meta["packages"].as_array().ok_or_else(|| bad("packages"))? {
        let package = p["name"].as_str().ok_or_else(|| bad("name"))?.to_string();
        let manifest = PathBuf::from(
            p["manifest_path"]
                .as_str()
                .ok_or_else(|| bad("manifest_path"))?,
        );
        let pkg_root = manifest.parent().unwrap_or(&root).to_path_buf();
        let no_harness = harness_free(&manifest);
        for t in p["targets"].as_array().ok_or_else(|| bad("targets"))? {
            let kinds: Vec<&str> = t["kind"]
                .as_array()
                .map(|k| k.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            let kind = if kinds.contains(&"test") {
                TargetKind::Test
            } else if kinds.contains(&"bin") {
                TargetKind::Bin
            } else if kinds.iter().any(|k| {
                matches!(
                    *k,
                    "lib" | "rlib" | "dylib" | "cdylib" | "staticlib" | "proc-macro"
                )
            }) {
                TargetKind::Lib
            } else {
                continue; // examples, benches, build scripts
            };
            let name = t["name"]
                .as_str()
                .ok_or_else(|| bad("target name"))?
                .to_string();
            let src = PathBuf::from(t["src_path"].as_str().ok_or_else(|| bad("src_path"))?);
            let harness = !(kind == TargetKind::Test && no_harness.contains(&name));
            out.push(Target {
                package: package.clone(),
                src_in_package: rel(&pkg_root, &src),
                src: rel(&root, &src),
                name: name.replace('-', "_"),
                kind,
                harness,
            });
        }
    }
    Ok(out)
}

/// Names of the `[[test]]` targets declared with `harness = false`.
fn harness_free(manifest: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return Vec::new();
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    doc.get("test")
        .and_then(|t| t.as_array())
        .map(|tests| {
            tests
                .iter()
                .filter(|t| t.get("harness").and_then(|h| h.as_bool()) == Some(false))
                .filter_map(|t| t.get("name").and_then(|n| n.as_str()).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

impl Scan {
    /// Tests of one target, by the path libtest prints.
    pub fn tests_of(&self, target: usize) -> HashMap<&str, usize> {
        self.tests
            .iter()
            .enumerate()
            .filter(|(_, t)| t.target == target)
            .map(|(i, t)| (t.path.as_str(), i))
            .collect()
    }
}

/// The names of the `#[test] fn`s in a macro's tokens (`proptest!`).
fn macro_tests(tokens: proc_macro2::TokenStream) -> Vec<String> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut names = Vec::new();
    let mut test_attr = false;
    let mut after_fn = false;
    for tree in tokens {
        match &tree {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                test_attr |= matches!(inner.as_slice(), [TokenTree::Ident(i)] if i == "test");
            }
            TokenTree::Ident(i) if i == "fn" => after_fn = true,
            TokenTree::Ident(i) if after_fn => {
                if test_attr {
                    names.push(i.to_string());
                }
                (test_attr, after_fn) = (false, false);
            }
            _ => {}
        }
    }
    names
}
