//! The kernels and loadables manifests (read tolerantly: unknown fields are ignored).
//!
//! Kernels manifest (`kernels/manifest.toml`), one `[[cubin]]` per module and SM:
//! `name`, `file` (relative to the manifest), `sm`, `sha256` (64 hex digits), `kernels`
//! (kernel names, or tables `{ name = "...", params = ["ptr", "u32", ...] }`).
//!
//! Loadables manifest (`loadables/manifest.toml`), one `[[network]]` per DLA network:
//! `name`, `onnx` (the ONNX model, relative to the manifest) and `onnx_sha256`; for `orin`
//! optionally the real loadable TensorRT built from it: `loadable`, `loadable_sha256` (both
//! or neither) and `loadable_build_command`; `input` and `output` (or `inputs`/`outputs`:
//! arrays of tensor descriptors: `name`, `shape` or `dims` (`[n, c, h, w]` or
//! `{ n, c, h, w }`), `data_type` (`int8`), optional `size` in bytes and `strides` (default:
//! the int8 `kDLA_LINEAR` layout's) and `align`). [`Loadable::check_onnx`] checks the
//! descriptors against the ONNX model.
//!
//! PVA programs manifest (`pva_programs_manifest`), one `[[program]]` per VPU executable:
//! `name`, `file` (the pre-built VPU ELF, relative to the manifest), `sha256` and `params`
//! (tables `{ name = "symbol", kind = "ptr" | "u32" | "i32" | "u64" | "f32", access =
//! "read" | "write" | "read_write" }`, `access` for pointers only).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diag::{Diagnostic, Source};
use crate::node::{self, Fields, Node, Span, Value};
use crate::read::{self, MAX_BINARY_BYTES, absolute, read_file, read_text, relative_to};

/// A kernel parameter kind, as declared by a kernel signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// A device pointer: passed as `{ buffer = "name" }`.
    Buffer,
    /// `uint32_t`.
    U32,
    /// `int32_t`.
    I32,
    /// `uint64_t`.
    U64,
    /// `float`.
    F32,
}

impl ParamKind {
    /// The key used for it in a schedule's `params`.
    pub fn key(self) -> &'static str {
        match self {
            ParamKind::Buffer => "buffer",
            ParamKind::U32 => "u32",
            ParamKind::I32 => "i32",
            ParamKind::U64 => "u64",
            ParamKind::F32 => "f32",
        }
    }

    /// Parses a manifest or signature spelling (`ptr`, `buffer`, `u32`, `uint32_t`, `f32`, ...).
    pub fn parse(s: &str) -> Option<ParamKind> {
        Some(match s.to_ascii_lowercase().as_str() {
            "buffer" | "ptr" | "pointer" | "devptr" | "device_ptr" => ParamKind::Buffer,
            "u32" | "uint32" | "uint32_t" => ParamKind::U32,
            "i32" | "int32" | "int32_t" => ParamKind::I32,
            "u64" | "uint64" | "uint64_t" => ParamKind::U64,
            "f32" | "float" | "float32" => ParamKind::F32,
            _ => return None,
        })
    }
}

/// A tensor element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum DataType {
    Int8,
    Uint8,
    Float16,
    Float32,
}

impl DataType {
    pub fn parse(s: &str) -> Option<DataType> {
        Some(match s.to_ascii_lowercase().as_str() {
            "int8" | "i8" => DataType::Int8,
            "uint8" | "u8" => DataType::Uint8,
            "float16" | "f16" | "half" | "fp16" => DataType::Float16,
            "float32" | "f32" | "float" | "fp32" => DataType::Float32,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            DataType::Int8 => "int8",
            DataType::Uint8 => "uint8",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
        }
    }

    pub fn variant(self) -> &'static str {
        match self {
            DataType::Int8 => "Int8",
            DataType::Uint8 => "Uint8",
            DataType::Float16 => "Float16",
            DataType::Float32 => "Float32",
        }
    }

    pub fn size(self) -> u64 {
        match self {
            DataType::Int8 | DataType::Uint8 => 1,
            DataType::Float16 => 2,
            DataType::Float32 => 4,
        }
    }
}

/// A file a manifest lists, with its hash.
#[derive(Clone, Debug)]
pub(crate) struct Artifact {
    pub file: PathBuf,
    pub sha256: [u8; 32],
    /// Where the entry is in the manifest (for hash errors).
    pub file_span: Span,
}

impl Artifact {
    /// Checks that the file exists and hashes to `sha256`; `src` is the manifest.
    pub fn verify(&self, src: &Source) -> Result<(), Diagnostic> {
        let (file, span) = (&self.file, &self.file_span);
        let bytes =
            read_file(file, MAX_BINARY_BYTES).map_err(|e| src.error(span, e.to_string()))?;
        let actual: [u8; 32] = Sha256::digest(&bytes).into();
        if actual == self.sha256 {
            Ok(())
        } else {
            Err(src
                .error(
                    span,
                    format!(
                        "`{}` does not match its sha256 in the manifest",
                        file.display()
                    ),
                )
                .note(format!("manifest: {}", hex(&self.sha256)))
                .note(format!("file:     {}", hex(&actual))))
        }
    }
}

/// One SASS image of a module.
#[derive(Clone, Debug)]
pub(crate) struct CubinVariant {
    pub sm: u32,
    pub artifact: Artifact,
}

/// A kernel of a module.
#[derive(Clone, Debug)]
pub(crate) struct Kernel {
    pub name: String,
    pub params: Option<Vec<Option<ParamKind>>>,
}

/// One kernel parameter as a cubin lays it out (`EIATTR_KPARAM_INFO` of `.nv.info.<kernel>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CubinParam {
    pub offset: u16,
    pub size: u16,
}

/// A kernel entry of a cubin, with its parameter layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CubinKernel {
    pub name: String,
    pub params: Vec<CubinParam>,
}

/// What one SASS image of a module declares, read from its ELF: every kernel entry and its
/// parameters. `Err` says why the file is not a usable cubin for its SM (reported when a task
/// uses the module; a missing file is reported by the hash check instead).
pub(crate) type CubinLayout = Result<Vec<CubinKernel>, String>;

/// A GPU module: all manifest entries with one name.
#[derive(Clone, Debug)]
pub(crate) struct Module {
    pub name: String,
    pub variants: Vec<CubinVariant>,
    pub kernels: Vec<Kernel>,
    /// The layout read from each variant's file, in `variants` order (`None`: unreadable).
    pub layouts: Vec<Option<CubinLayout>>,
}

impl Module {
    /// The kernel `name` as the module's cubins declare it: `Ok(None)` when no variant could
    /// be read (the hash check reports that), `Err` with a message when a variant is not a
    /// cubin, lacks the kernel, or the variants disagree on its parameters.
    pub fn cubin_kernel(&self, name: &str) -> Result<Option<&CubinKernel>, String> {
        let mut found: Option<&CubinKernel> = None;
        for (v, layout) in self.variants.iter().zip(&self.layouts) {
            let Some(layout) = layout else { continue };
            let file = v.artifact.file.display();
            let kernels = layout.as_ref().map_err(|e| format!("`{file}`: {e}"))?;
            let Some(k) = kernels.iter().find(|k| k.name == name) else {
                let names: Vec<String> = kernels.iter().map(|k| format!("`{}`", k.name)).collect();
                return Err(format!(
                    "cubin `{file}` (sm_{}) has no kernel `{name}`; it exports: {}",
                    v.sm,
                    if names.is_empty() {
                        "nothing".to_owned()
                    } else {
                        names.join(", ")
                    }
                ));
            };
            if let Some(prev) = found
                && prev.params != k.params
            {
                return Err(format!(
                    "the variants of cubin `{}` disagree on the parameters of `{name}` (`{file}` differs)",
                    self.name
                ));
            }
            found = Some(k);
        }
        Ok(found)
    }
}

/// Reads a cubin's kernels and their parameter layouts; `None` if the file cannot be read or
/// does not match its manifest hash (the hash check reports both; nothing is read from a file
/// that is not the one the manifest vouches for).
fn read_layout(variant: &CubinVariant) -> Option<CubinLayout> {
    let (file, sm) = (&variant.artifact.file, variant.sm);
    let bytes = read_file(file, MAX_BINARY_BYTES).ok()?;
    if <[u8; 32]>::from(Sha256::digest(&bytes)) != variant.artifact.sha256 {
        return None;
    }
    let layout = cubin_check::check_cubin(&bytes, sm)
        .map(|info| {
            info.kernels()
                .map(|k| CubinKernel {
                    name: k.name().to_owned(),
                    params: k
                        .params()
                        .map(|p| CubinParam {
                            offset: p.offset,
                            size: p.size,
                        })
                        .collect(),
                })
                .collect()
        })
        .map_err(|e| format!("not a usable cubin for sm_{sm}: {e}"));
    Some(layout)
}

/// A tensor descriptor of a network.
#[derive(Clone, Debug)]
pub(crate) struct Tensor {
    pub name: String,
    pub size: u64,
    pub dims: [u32; 4],
    pub data_type: DataType,
    pub align: Option<u64>,
    /// Byte strides, when the manifest gives them.
    pub strides: Option<Vec<u64>>,
    /// Where the descriptor is in the manifest.
    pub span: Span,
}

/// A DLA network: its ONNX model and, for `orin`, the real loadable built from it.
#[derive(Clone, Debug)]
pub(crate) struct Loadable {
    pub name: String,
    /// The ONNX model (what the SIL DLA runs and TensorRT compiles).
    pub onnx: Artifact,
    /// The real, TensorRT-built loadable, if registered.
    pub real: Option<Artifact>,
    pub inputs: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
    /// Where the entry is in the manifest.
    pub span: Span,
}

/// A parameter of a PVA program: its symbol name in the VPU executable and its kind.
#[derive(Clone, Debug)]
pub(crate) struct PvaParam {
    pub name: String,
    pub kind: orin_exec_table::PvaParamKind,
}

/// A PVA program: a pre-built VPU ELF image and its parameters.
#[derive(Clone, Debug)]
pub(crate) struct PvaProgram {
    pub name: String,
    pub elf: Artifact,
    pub params: Vec<PvaParam>,
}

/// A loaded manifest.
#[derive(Clone, Debug)]
pub(crate) struct Manifest<T> {
    pub src: Source,
    pub items: Vec<T>,
}

/// What a schedule names in a manifest: a module or a loadable.
pub(crate) trait Item {
    /// The schedule key naming the manifest.
    const MANIFEST_KEY: &'static str;
    /// The task key naming an item (`cubin`, `loadable`).
    const NOUN: &'static str;
    /// What an unknown name is called.
    const KIND: &'static str = Self::NOUN;
    fn name(&self) -> &str;
}

impl Item for Module {
    const MANIFEST_KEY: &'static str = "kernels_manifest";
    const NOUN: &'static str = "cubin";
    const KIND: &'static str = "cubin module";
    fn name(&self) -> &str {
        &self.name
    }
}

impl Item for Loadable {
    const MANIFEST_KEY: &'static str = "loadables_manifest";
    const NOUN: &'static str = "network";
    fn name(&self) -> &str {
        &self.name
    }
}

impl Item for PvaProgram {
    const MANIFEST_KEY: &'static str = "pva_programs_manifest";
    const NOUN: &'static str = "program";
    const KIND: &'static str = "PVA program";
    fn name(&self) -> &str {
        &self.name
    }
}

/// Reads a manifest file into its root table; errors go to `diags`.
fn load(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<(Source, Vec<(node::Key, Node)>)> {
    let text = match read_text(path) {
        Ok(t) => t,
        Err(e) => {
            diags.push(Diagnostic::plain(
                crate::Severity::Error,
                path,
                format!("manifest: {e}"),
            ));
            return None;
        }
    };
    let src = Source::new(path.to_path_buf(), text);
    match node::parse(&src.text) {
        Ok(root) => Some((src, root)),
        Err((msg, span)) => {
            diags.push(src.error(&span.unwrap_or(0..0), format!("TOML syntax: {msg}")));
            None
        }
    }
}

/// The entries of the first of `keys` present in the root (an array of tables).
fn entries<'a>(
    src: &Source,
    root: &'a [(node::Key, Node)],
    keys: &[&str],
    diags: &mut Vec<Diagnostic>,
) -> Vec<&'a Node> {
    let mut fields = Fields::from_entries(root);
    let Some(node) = keys.iter().find_map(|k| fields.value(k)) else {
        return Vec::new();
    };
    match read::array(src, node, &format!("`{}`", keys[0])) {
        Ok(items) => items.iter().collect(),
        Err(d) => {
            diags.push(d);
            Vec::new()
        }
    }
}

/// A table entry of a manifest being read: its fields, and what messages call it.
struct Entry<'a> {
    src: &'a Source,
    node: &'a Node,
    fields: Fields<'a>,
    what: &'static str,
}

impl<'a> Entry<'a> {
    /// The table `node` (`what`: e.g. "tensor").
    fn new(src: &'a Source, node: &'a Node, what: &'static str) -> Result<Self, Diagnostic> {
        let fields = read::table(src, node, &format!("a {what}"))?;
        Ok(Entry {
            src,
            node,
            fields,
            what,
        })
    }

    /// The value of the first of `keys` present (the first is the one a message names).
    fn required(&mut self, keys: &[&str]) -> Result<&'a Node, Diagnostic> {
        keys.iter()
            .find_map(|k| self.fields.value(k))
            .ok_or_else(|| {
                let (src, what) = (self.src, self.what);
                src.error(&self.node.span, format!("{what} without `{}`", keys[0]))
            })
    }

    /// Its `name`.
    fn name(&mut self) -> Result<String, Diagnostic> {
        let n = self.required(&["name"])?;
        Ok(read::string(self.src, n, "`name`")?.to_owned())
    }

    /// Its `file` (relative to the manifest), and where it is.
    fn file(&mut self) -> Result<(PathBuf, Span), Diagnostic> {
        self.path("file")
    }

    /// The file named by `key` (relative to the manifest), and where it is.
    fn path(&mut self, key: &str) -> Result<(PathBuf, Span), Diagnostic> {
        let n = self.required(&[key])?;
        let rel = read::string(self.src, n, &format!("`{key}`"))?;
        Ok((absolute(&relative_to(&self.src.path, rel)), n.span.clone()))
    }

    /// Its `sha256` (64 hex digits).
    fn sha256(&mut self) -> Result<[u8; 32], Diagnostic> {
        self.hash("sha256")
    }

    /// The hash under `key` (64 hex digits).
    fn hash(&mut self, key: &str) -> Result<[u8; 32], Diagnostic> {
        let n = self.required(&[key])?;
        let s = read::string(self.src, n, &format!("`{key}`"))?;
        parse_hex32(s).ok_or_else(|| {
            self.src.error(
                &n.span,
                format!("`{key}` must be 64 hex digits, found `{s}`"),
            )
        })
    }
}

pub(crate) fn parse_hex32(s: &str) -> Option<[u8; 32]> {
    let s = s.trim();
    if s.len() != 64 || !s.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads the kernels manifest.
pub(crate) fn kernels(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<Manifest<Module>> {
    let (src, root) = load(path, diags)?;
    let mut modules: Vec<Module> = Vec::new();
    for entry in entries(&src, &root, &["cubin", "cubins"], diags) {
        match cubin_entry(&src, entry) {
            Ok((name, variant, kernels)) => match modules.iter_mut().find(|m| m.name == name) {
                Some(m) => {
                    m.layouts.push(read_layout(&variant));
                    m.variants.push(variant);
                    for k in kernels {
                        if !m.kernels.iter().any(|x| x.name == k.name) {
                            m.kernels.push(k);
                        }
                    }
                }
                None => modules.push(Module {
                    name,
                    layouts: vec![read_layout(&variant)],
                    variants: vec![variant],
                    kernels,
                }),
            },
            Err(d) => diags.push(d),
        }
    }
    Some(Manifest {
        src,
        items: modules,
    })
}

fn cubin_entry(src: &Source, n: &Node) -> Result<(String, CubinVariant, Vec<Kernel>), Diagnostic> {
    let mut e = Entry::new(src, n, "`[[cubin]]` entry")?;
    let name = e.name()?;
    let (file, file_span) = e.file()?;
    let sm = read::int_in(src, e.required(&["sm"])?, "`sm`", 1, 1000)? as u32;
    let sha256 = e.sha256()?;
    let mut kernels = Vec::new();
    if let Some(list) = e.fields.value("kernels") {
        for k in read::array(src, list, "`kernels`")? {
            kernels.push(match &k.value {
                Value::Str(s) => Kernel {
                    name: s.clone(),
                    params: None,
                },
                Value::Table(_) => {
                    let mut ke = Entry::new(src, k, "kernel")?;
                    let name = ke.name()?;
                    let params = match ke.fields.value("params") {
                        Some(p) => Some(
                            read::strings(src, p, "`params`")?
                                .into_iter()
                                .map(|(s, _)| ParamKind::parse(s))
                                .collect(),
                        ),
                        None => None,
                    };
                    Kernel { name, params }
                }
                other => {
                    return Err(src.error(
                        &k.span,
                        format!(
                            "a kernel must be a name or a table, found {}",
                            other.type_name()
                        ),
                    ));
                }
            });
        }
    }
    let variant = CubinVariant {
        sm,
        artifact: Artifact {
            file,
            sha256,
            file_span,
        },
    };
    Ok((name, variant, kernels))
}

/// Reads the loadables manifest (its `[[network]]` entries).
pub(crate) fn loadables(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<Manifest<Loadable>> {
    let (src, root) = load(path, diags)?;
    let mut items: Vec<Loadable> = Vec::new();
    for entry in entries(&src, &root, &["network", "networks"], diags) {
        match network_entry(&src, entry) {
            Ok(l) if items.iter().any(|x| x.name == l.name) => {
                diags.push(src.error(&entry.span, format!("network `{}` is listed twice", l.name)));
            }
            Ok(l) => items.push(l),
            Err(d) => diags.push(d),
        }
    }
    Some(Manifest { src, items })
}

fn network_entry(src: &Source, n: &Node) -> Result<Loadable, Diagnostic> {
    let mut e = Entry::new(src, n, "`[[network]]` entry")?;
    let name = e.name()?;
    let (file, file_span) = e.path("onnx")?;
    let sha256 = e.hash("onnx_sha256")?;
    let real = match (
        e.fields.value("loadable"),
        e.fields.value("loadable_sha256"),
    ) {
        (None, None) => None,
        (Some(_), Some(_)) => {
            let (file, file_span) = e.path("loadable")?;
            Some(Artifact {
                file,
                sha256: e.hash("loadable_sha256")?,
                file_span,
            })
        }
        (Some(v), None) | (None, Some(v)) => {
            return Err(src.error(
                &v.span,
                format!(
                    "network `{name}`: `loadable` and `loadable_sha256` go together (the real \
                     loadable and its hash)"
                ),
            ));
        }
    };
    if let Some(c) = e.fields.value("loadable_build_command") {
        read::string(src, c, "`loadable_build_command`")?;
    }
    let mut tensors = |keys: &[&str]| -> Result<Vec<Tensor>, Diagnostic> {
        let Some(list) = keys.iter().find_map(|k| e.fields.value(k)) else {
            return Ok(Vec::new());
        };
        read::array(src, list, &format!("`{}`", keys[0]))?
            .iter()
            .map(|t| tensor(src, t))
            .collect()
    };
    let inputs = tensors(&["inputs", "input"])?;
    let outputs = tensors(&["outputs", "output"])?;
    Ok(Loadable {
        name,
        onnx: Artifact {
            file,
            sha256,
            file_span,
        },
        real,
        inputs,
        outputs,
        span: n.span.clone(),
    })
}

/// Reads the PVA programs manifest (its `[[program]]` entries).
pub(crate) fn pva_programs(
    path: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Option<Manifest<PvaProgram>> {
    let (src, root) = load(path, diags)?;
    let mut items: Vec<PvaProgram> = Vec::new();
    for entry in entries(&src, &root, &["program", "programs"], diags) {
        match program_entry(&src, entry) {
            Ok(p) if items.iter().any(|x| x.name == p.name) => {
                diags.push(src.error(
                    &entry.span,
                    format!("PVA program `{}` is listed twice", p.name),
                ));
            }
            Ok(p) => items.push(p),
            Err(d) => diags.push(d),
        }
    }
    Some(Manifest { src, items })
}

fn program_entry(src: &Source, n: &Node) -> Result<PvaProgram, Diagnostic> {
    use orin_exec_table::{PvaAccess, PvaParamKind};
    let mut e = Entry::new(src, n, "`[[program]]` entry")?;
    let name = e.name()?;
    let (file, file_span) = e.file()?;
    let sha256 = e.sha256()?;
    let mut params: Vec<PvaParam> = Vec::new();
    if let Some(list) = e.fields.value("params") {
        for item in read::array(src, list, "`params`")? {
            let mut pe = Entry::new(src, item, "PVA program parameter")?;
            let pname = pe.name()?;
            // The runtime passes the name NUL-terminated (`CupvaCmdProgramGetParameter`), as
            // `Schedule::check` requires (`TableError::PvaSymbolName`).
            if pname.is_empty() || pname.contains('\0') {
                return Err(src.error(
                    &item.span,
                    format!(
                        "a parameter of PVA program `{name}` has an empty symbol name or one \
                         with a NUL byte: cuPVA looks parameters up by NUL-terminated name"
                    ),
                ));
            }
            let kind_node = pe.required(&["kind"])?;
            let kind_text = read::string(src, kind_node, "`kind`")?;
            let access = match pe.fields.value("access") {
                Some(a) => Some((read::string(src, a, "`access`")?, a)),
                None => None,
            };
            let kind = match (ParamKind::parse(kind_text), access) {
                (Some(ParamKind::Buffer), Some((a, node))) => PvaParamKind::Pointer(match a {
                    "read" => PvaAccess::Read,
                    "write" => PvaAccess::Write,
                    "read_write" => PvaAccess::ReadWrite,
                    _ => {
                        return Err(src
                            .error(&node.span, format!("unknown access `{a}`"))
                            .note("expected one of: `read`, `write`, `read_write`"));
                    }
                }),
                (Some(ParamKind::Buffer), None) => {
                    return Err(src.error(
                        &item.span,
                        format!(
                            "pointer parameter `{pname}` of PVA program `{name}` has no `access` \
                             (`read`, `write` or `read_write`: how the program uses the buffer)"
                        ),
                    ));
                }
                (Some(_), Some((_, node))) => {
                    return Err(src.error(
                        &node.span,
                        format!(
                            "`access` of parameter `{pname}`: only pointer parameters have one"
                        ),
                    ));
                }
                (Some(ParamKind::U32), None) => PvaParamKind::U32,
                (Some(ParamKind::I32), None) => PvaParamKind::I32,
                (Some(ParamKind::U64), None) => PvaParamKind::U64,
                (Some(ParamKind::F32), None) => PvaParamKind::F32,
                (None, _) => {
                    return Err(src
                        .error(
                            &kind_node.span,
                            format!("unknown parameter kind `{kind_text}`"),
                        )
                        .note("expected one of: `ptr`, `u32`, `i32`, `u64`, `f32`"));
                }
            };
            if params.iter().any(|q| q.name == pname) {
                return Err(src.error(
                    &item.span,
                    format!("PVA program `{name}` declares parameter `{pname}` twice"),
                ));
            }
            params.push(PvaParam { name: pname, kind });
        }
    }
    Ok(PvaProgram {
        name,
        elf: Artifact {
            file,
            sha256,
            file_span,
        },
        params,
    })
}

/// The int8 `kDLA_LINEAR` descriptor of `[n, c, h, w]` (the manifest's default).
fn dla_linear(dims: [u32; 4]) -> sil_onnx::dla::DlaTensorDesc {
    sil_onnx::dla::linear_desc(&sil_onnx::IoTensor {
        name: String::new(),
        dims,
    })
}

fn tensor(src: &Source, n: &Node) -> Result<Tensor, Diagnostic> {
    let mut e = Entry::new(src, n, "tensor")?;
    let name = e.name()?;
    let dims_node = e.required(&["dims", "shape"])?;
    let dims = dims(src, dims_node)?;
    let dt_node = e.required(&["data_type", "dtype", "type"])?;
    let dt_name = read::string(src, dt_node, "`data_type`")?;
    let data_type = DataType::parse(dt_name)
        .ok_or_else(|| src.error(&dt_node.span, format!("unknown data type `{dt_name}`")))?;
    let size = match e.fields.value("size") {
        Some(s) => read::int_in(src, s, "`size`", 1, i64::MAX)? as u64,
        None => dla_linear(dims).size,
    };
    let align = match e
        .fields
        .value("align")
        .or_else(|| e.fields.value("alignment"))
    {
        Some(a) => Some(read::int_in(src, a, "`align`", 1, 1 << 30)? as u64),
        None => None,
    };
    let strides = match e.fields.value("strides") {
        Some(v) => Some(
            read::array(src, v, "`strides`")?
                .iter()
                .map(|x| read::int_in(src, x, "a stride", 0, i64::from(u32::MAX)).map(|v| v as u64))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };
    Ok(Tensor {
        name,
        size,
        dims,
        data_type,
        align,
        strides,
        span: n.span.clone(),
    })
}

impl Loadable {
    /// Checks the network against its ONNX model (already hash-checked): the SIL DLA
    /// must accept the model (an unsupported operator is named with its node), and the
    /// manifest's descriptors must be the model's I/O — names in order, `[1, c, h, w]`,
    /// int8, and the int8 `kDLA_LINEAR` size and strides. Errors point at the manifest.
    pub fn check_onnx(&self, src: &Source) -> Vec<Diagnostic> {
        let what = format!("network `{}`", self.name);
        let bytes = match read_file(&self.onnx.file, MAX_BINARY_BYTES) {
            Ok(b) => b,
            Err(_) => return Vec::new(), // the hash check reports an unreadable file
        };
        let model = match sil_onnx::Model::load(&bytes) {
            Ok(m) => m,
            Err(e) => {
                let d = src
                    .error(
                        &self.onnx.file_span,
                        format!("{what}: the SIL DLA refuses `{}`: {e}", self.onnx.file.display()),
                    )
                    .note("the SIL DLA runs the ONNX operator subset of the DLA (loadables/README.md)");
                return vec![d];
            }
        };
        let mut out = Vec::new();
        for (kind, declared, actual) in [
            ("input", &self.inputs, model.inputs()),
            ("output", &self.outputs, model.outputs()),
        ] {
            if declared.len() != actual.len() {
                let names: Vec<&str> = actual.iter().map(|t| t.name.as_str()).collect();
                out.push(
                    src.error(
                        &self.span,
                        format!(
                            "{what} lists {} {kind} descriptors, its ONNX model has {} {kind}s",
                            declared.len(),
                            actual.len()
                        ),
                    )
                    .note(format!("the model's {kind}s: {}", names.join(", "))),
                );
                continue;
            }
            for (t, io) in declared.iter().zip(actual) {
                let d = sil_onnx::dla::linear_desc(io);
                let mut problems = Vec::new();
                if t.name != io.name {
                    problems.push(format!("the model's {kind} here is `{}`", io.name));
                }
                if t.dims != io.dims {
                    problems.push(format!("shape {:?}, the model's is {:?}", t.dims, io.dims));
                }
                if t.data_type != DataType::Int8 {
                    problems.push(format!("{}, the model's is int8", t.data_type.name()));
                }
                if t.size != d.size {
                    problems.push(format!(
                        "size {}, the model's int8 kDLA_LINEAR size is {}",
                        t.size, d.size
                    ));
                }
                if let Some(s) = &t.strides {
                    let want: Vec<u64> = d.strides.iter().map(|&x| u64::from(x)).collect();
                    if s.as_slice() != &want[..s.len().min(8)] || s.len() > 8 {
                        problems.push(format!("strides {s:?}, the model's are {want:?}"));
                    }
                }
                if !problems.is_empty() {
                    out.push(src.error(
                        &t.span,
                        format!(
                            "{what}: {kind} descriptor `{}` does not match its ONNX model: {}",
                            t.name,
                            problems.join("; ")
                        ),
                    ));
                }
            }
        }
        out
    }
}

/// `[n, c, h, w]` or `{ n, c, h, w }`.
pub(crate) fn dims(src: &Source, n: &Node) -> Result<[u32; 4], Diagnostic> {
    let mut out = [0u32; 4];
    match &n.value {
        Value::Array(items) if items.len() == 4 => {
            for (o, item) in out.iter_mut().zip(items) {
                *o = read::int_in(src, item, "a dimension", 1, i64::from(u32::MAX))? as u32;
            }
        }
        Value::Table(_) => {
            let mut f = read::table(src, n, "`dims`")?;
            for (o, k) in out.iter_mut().zip(["n", "c", "h", "w"]) {
                let v = f
                    .value(k)
                    .ok_or_else(|| src.error(&n.span, format!("`dims` without `{k}`")))?;
                *o = read::int_in(src, v, "a dimension", 1, i64::from(u32::MAX))? as u32;
            }
        }
        _ => {
            return Err(src.error(
                &n.span,
                "`dims` must be `[n, c, h, w]` (4 positive integers)",
            ));
        }
    }
    Ok(out)
}
