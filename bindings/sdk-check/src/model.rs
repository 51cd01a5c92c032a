//! What one side declares, read from Rust source with `syn`: the hand-written crate
//! sources ("ours") or bindgen's output for the vendor headers ("SDK").

use std::collections::{BTreeMap, HashMap};

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{
    Attribute, BinOp, Expr, Fields, FnArg, ForeignItem, GenericArgument, ImplItem, Item, Lit, Pat,
    PathArguments, ReturnType, Stmt, Token, Type, UnOp,
};

/// A map that remembers insertion order (declaration order matters for reports).
#[derive(Debug)]
pub struct Ordered<T> {
    items: Vec<(String, T)>,
    index: HashMap<String, usize>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T> Ordered<T> {
    /// Inserts or replaces (a replaced item keeps its first position).
    pub fn insert(&mut self, name: String, value: T) {
        if let Some(&i) = self.index.get(&name) {
            self.items[i].1 = value;
        } else {
            self.index.insert(name.clone(), self.items.len());
            self.items.push((name, value));
        }
    }
    pub fn get(&self, name: &str) -> Option<&T> {
        self.index.get(name).map(|&i| &self.items[i].1)
    }
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&String, &T)> {
        self.items.iter().map(|(k, v)| (k, v))
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
}

/// An integer constant: a `const`, a C enumerator (ours: `pub const X: E = E(v)`,
/// bindgen: `impl E { pub const X: E = E(v); }`) or a code of a `codes` macro.
#[derive(Debug, Clone)]
pub struct Const {
    /// Last path segment of the declared type (`u32`, `cudlaStatus`, ...).
    pub ty: String,
    pub expr: Expr,
    pub value: Option<i128>,
}

/// A C enum: a `#[repr(transparent)]` newtype around an integer.
#[derive(Debug, Clone)]
pub struct Enum {
    pub repr: Type,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Struct,
    Union,
}

impl Kind {
    pub fn word(self) -> &'static str {
        match self {
            Kind::Struct => "struct",
            Kind::Union => "union",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

#[derive(Debug, Clone)]
pub struct Record {
    pub kind: Kind,
    pub packed: bool,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone)]
pub struct Func {
    pub params: Vec<(String, Type)>,
    pub ret: Option<Type>,
    pub variadic: bool,
}

/// Everything one side declares.
#[derive(Debug, Default)]
pub struct Model {
    pub consts: Ordered<Const>,
    pub enums: Ordered<Enum>,
    pub aliases: Ordered<Type>,
    /// Aliases of the crates ours depends on (`--dep`, e.g. nvsci-sys for cupva-sys):
    /// used to resolve types, never compared.
    pub dep_aliases: Ordered<Type>,
    pub records: Ordered<Record>,
    pub opaque: Ordered<usize>,
    pub fns: Ordered<Func>,
    pub size: HashMap<String, u64>,
    pub align: HashMap<String, u64>,
    pub offset: HashMap<(String, String), u64>,
    /// `// sdk-check:` directives of items (by name) and fields (by `Record.field`).
    pub dirs: HashMap<String, Vec<String>>,
    /// Values of every constant that evaluates (also for array lengths).
    pub env: HashMap<String, i128>,
}

impl Model {
    pub fn item_dirs(&self, name: &str) -> &[String] {
        self.dirs.get(name).map(Vec::as_slice).unwrap_or(&[])
    }
    pub fn field_dirs(&self, rec: &str, field: &str) -> &[String] {
        self.dirs
            .get(&format!("{rec}.{field}"))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    pub fn has_dir(&self, name: &str, word: &str) -> bool {
        self.item_dirs(name)
            .iter()
            .any(|d| d.split_whitespace().next() == Some(word))
    }
    /// Arguments of every directive `word ARGS` on an item.
    pub fn dir_args(&self, name: &str, word: &str) -> Vec<String> {
        self.item_dirs(name)
            .iter()
            .filter_map(|d| {
                let mut it = d.splitn(2, char::is_whitespace);
                (it.next() == Some(word)).then(|| it.next().unwrap_or("").trim().to_string())
            })
            .collect()
    }
    /// The enumerators of enum `e`, in declaration order.
    pub fn enumerators(&self, e: &str) -> Vec<&String> {
        self.consts
            .iter()
            .filter(|(_, c)| c.ty == e)
            .map(|(n, _)| n)
            .collect()
    }
}

/// Parses one or more Rust source files into a model. `directives` reads
/// `// sdk-check: ...` comments (ours only; bindgen output has none).
pub fn parse_files(paths: &[String], directives: bool) -> Result<Model, String> {
    let bindgen = !directives;
    let mut model = Model::default();
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let file = syn::parse_file(&text).map_err(|e| {
            let at = e.span().start();
            format!("{path}:{}:{}: {e}", at.line, at.column + 1)
        })?;
        let mut p = FileParser {
            model: &mut model,
            anchors: Vec::new(),
            invocations: Vec::new(),
            bindgen,
        };
        for item in &file.items {
            p.item(item);
        }
        let FileParser {
            anchors,
            invocations,
            ..
        } = p;
        if directives {
            attach_directives(&mut model, &text, anchors);
        }
        // `codes TYPE` macros: `NAME! { A = v; ... }` declares constants of TYPE.
        for (mac, tokens, line) in invocations {
            let ty = model.dir_args(&format!("macro {mac}"), "codes");
            let Some(ty) = ty.first() else { continue };
            let codes = parse_code_list
                .parse2(tokens)
                .map_err(|e| format!("{path}:{line}: body of {mac}!: {e}"))?;
            for (name, expr, _) in codes {
                let c = Const {
                    ty: ty.clone(),
                    expr,
                    value: None,
                };
                model.consts.insert(name, c);
            }
        }
    }
    evaluate(&mut model);
    Ok(model)
}

struct FileParser<'a> {
    model: &'a mut Model,
    /// (line of the name, key) of every item and field, for directives.
    anchors: Vec<(usize, String)>,
    /// Macro invocations at item level: (macro name, body, line).
    invocations: Vec<(String, TokenStream, usize)>,
    /// bindgen output: undo its renaming of C names that are Rust keywords (`type_`).
    bindgen: bool,
}

fn line_of(ident: &syn::Ident) -> usize {
    ident.span().start().line
}

fn name_of(ident: &syn::Ident) -> String {
    ident.unraw().to_string()
}

/// Rust keywords that bindgen turns into `NAME_` when a C name is one of them.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

fn unmangle(name: String) -> String {
    match name.strip_suffix('_') {
        Some(k) if KEYWORDS.contains(&k) => k.to_string(),
        _ => name,
    }
}

impl FileParser<'_> {
    fn item(&mut self, item: &Item) {
        match item {
            Item::Const(c) if c.ident == "_" => {
                if let Expr::Block(b) = &*c.expr {
                    for stmt in &b.block.stmts {
                        self.layout_stmt(stmt);
                    }
                }
            }
            Item::Const(c) => {
                let name = name_of(&c.ident);
                let line = line_of(&c.ident);
                self.anchors.push((line, name.clone()));
                let ty = last_ident(&c.ty).unwrap_or_else(|| tokens(&c.ty));
                let k = Const {
                    ty,
                    expr: (*c.expr).clone(),
                    value: None,
                };
                self.model.consts.insert(name, k);
            }
            Item::Struct(s) => {
                let name = name_of(&s.ident);
                let line = line_of(&s.ident);
                self.anchors.push((line, name.clone()));
                match &s.fields {
                    Fields::Unnamed(f)
                        if f.unnamed.len() == 1 && has_repr(&s.attrs, "transparent") =>
                    {
                        let repr = f.unnamed[0].ty.clone();
                        self.model.enums.insert(name, Enum { repr });
                    }
                    Fields::Named(f) => {
                        let fields = self.fields(&name, f.named.iter());
                        let opaque = fields.len() == 1
                            && (fields[0].name == "_opaque" || fields[0].name == "_unused")
                            && matches!(&fields[0].ty, Type::Array(a) if tokens(&a.len) == "0");
                        if opaque {
                            self.model.opaque.insert(name, line);
                        } else {
                            let packed = has_repr(&s.attrs, "packed");
                            let r = Record {
                                kind: Kind::Struct,
                                packed,
                                fields,
                            };
                            self.model.records.insert(name, r);
                        }
                    }
                    _ => {}
                }
            }
            Item::Union(u) => {
                let name = name_of(&u.ident);
                let line = line_of(&u.ident);
                self.anchors.push((line, name.clone()));
                let fields = self.fields(&name, u.fields.named.iter());
                let packed = has_repr(&u.attrs, "packed");
                let r = Record {
                    kind: Kind::Union,
                    packed,
                    fields,
                };
                self.model.records.insert(name, r);
            }
            Item::Type(t) => {
                let name = name_of(&t.ident);
                self.anchors.push((line_of(&t.ident), name.clone()));
                self.model.aliases.insert(name, (*t.ty).clone());
            }
            Item::Use(u) => {
                // bindgen: `pub use self::CUstream_flags_enum as CUstream_flags;` is how
                // it spells a typedef of a newtype enum.
                let mut tree = &u.tree;
                while let syn::UseTree::Path(p) = tree {
                    tree = &p.tree;
                }
                if let syn::UseTree::Rename(r) = tree {
                    let name = name_of(&r.rename);
                    self.anchors.push((line_of(&r.rename), name.clone()));
                    let ident = &r.ident;
                    self.model.aliases.insert(name, syn::parse_quote!(#ident));
                }
            }
            Item::ForeignMod(m) => {
                for fi in &m.items {
                    if let ForeignItem::Fn(f) = fi {
                        let name = name_of(&f.sig.ident);
                        self.anchors.push((line_of(&f.sig.ident), name.clone()));
                        let params = f
                            .sig
                            .inputs
                            .iter()
                            .filter_map(|a| match a {
                                FnArg::Typed(pt) => {
                                    let pname = match &*pt.pat {
                                        Pat::Ident(i) => name_of(&i.ident),
                                        p => tokens(p),
                                    };
                                    Some((pname, (*pt.ty).clone()))
                                }
                                FnArg::Receiver(_) => None,
                            })
                            .collect();
                        let ret = match &f.sig.output {
                            ReturnType::Default => None,
                            ReturnType::Type(_, t) => Some((**t).clone()),
                        };
                        let func = Func {
                            params,
                            ret,
                            variadic: f.sig.variadic.is_some(),
                        };
                        self.model.fns.insert(name, func);
                    }
                }
            }
            Item::Impl(im) if im.trait_.is_none() => {
                // bindgen's newtype enums: `impl E { pub const X: E = E(v); }`
                let Some(self_ty) = last_ident(&im.self_ty) else {
                    return;
                };
                for ii in &im.items {
                    if let ImplItem::Const(c) = ii {
                        if last_ident(&c.ty).as_deref() == Some(self_ty.as_str()) {
                            let k = Const {
                                ty: self_ty.clone(),
                                expr: c.expr.clone(),
                                value: None,
                            };
                            self.model.consts.insert(name_of(&c.ident), k);
                        }
                    }
                }
            }
            Item::Macro(m) => {
                if let Some(ident) = &m.ident {
                    // `macro_rules! NAME`: an anchor for its directives
                    self.anchors
                        .push((line_of(ident), format!("macro {}", name_of(ident))));
                } else if let Some(seg) = m.mac.path.segments.last() {
                    let line = seg.ident.span().start().line;
                    self.invocations
                        .push((seg.ident.to_string(), m.mac.tokens.clone(), line));
                }
            }
            _ => {}
        }
    }

    fn fields<'f>(
        &mut self,
        rec: &str,
        fields: impl Iterator<Item = &'f syn::Field>,
    ) -> Vec<Field> {
        let mut out = Vec::new();
        for f in fields {
            let Some(ident) = &f.ident else { continue };
            let name = name_of(ident);
            let line = line_of(ident);
            let name = if self.bindgen { unmangle(name) } else { name };
            self.anchors.push((line, format!("{rec}.{name}")));
            out.push(Field {
                name,
                ty: f.ty.clone(),
            });
        }
        out
    }

    /// `assert!(size_of::<T>() == N);` (ours) or
    /// `["..."][::core::mem::size_of::<T>() - Nusize];` (bindgen).
    fn layout_stmt(&mut self, stmt: &Stmt) {
        let (lhs, rhs) = match stmt {
            Stmt::Macro(m) if m.mac.path.is_ident("assert") => match m.mac.parse_body::<Expr>() {
                Ok(Expr::Binary(b)) if matches!(b.op, BinOp::Eq(_)) => (*b.left, *b.right),
                _ => return,
            },
            Stmt::Expr(Expr::Macro(m), _) if m.mac.path.is_ident("assert") => {
                match m.mac.parse_body::<Expr>() {
                    Ok(Expr::Binary(b)) if matches!(b.op, BinOp::Eq(_)) => (*b.left, *b.right),
                    _ => return,
                }
            }
            Stmt::Expr(Expr::Index(ix), _) => match &*ix.index {
                Expr::Binary(b) if matches!(b.op, BinOp::Sub(_)) => {
                    ((*b.left).clone(), (*b.right).clone())
                }
                _ => return,
            },
            _ => return,
        };
        let Some(n) = eval(&rhs, &HashMap::new()).and_then(|v| u64::try_from(v).ok()) else {
            return;
        };
        match &lhs {
            Expr::Call(call) if call.args.is_empty() => {
                let Expr::Path(p) = &*call.func else { return };
                let Some(seg) = p.path.segments.last() else {
                    return;
                };
                let PathArguments::AngleBracketed(args) = &seg.arguments else {
                    return;
                };
                let Some(GenericArgument::Type(t)) = args.args.first() else {
                    return;
                };
                let Some(ty) = last_ident(t) else { return };
                if seg.ident == "size_of" {
                    self.model.size.insert(ty, n);
                } else if seg.ident == "align_of" {
                    self.model.align.insert(ty, n);
                }
            }
            Expr::Macro(m)
                if m.mac
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "offset_of") =>
            {
                let parsed = m.mac.parse_body_with(|input: ParseStream| {
                    let t: Type = input.parse()?;
                    input.parse::<Token![,]>()?;
                    let f = input.call(syn::Ident::parse_any)?;
                    let _ = input.parse::<Option<Token![,]>>()?;
                    Ok((t, f))
                });
                if let Ok((t, f)) = parsed {
                    if let Some(ty) = last_ident(&t) {
                        let f = if self.bindgen {
                            unmangle(name_of(&f))
                        } else {
                            name_of(&f)
                        };
                        self.model.offset.insert((ty, f), n);
                    }
                }
            }
            _ => {}
        }
    }
}

fn parse_code_list(input: ParseStream) -> syn::Result<Vec<(String, Expr, usize)>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let _ = input.call(Attribute::parse_outer)?;
        let ident: syn::Ident = input.call(syn::Ident::parse_any)?;
        input.parse::<Token![=]>()?;
        let expr: Expr = input.parse()?;
        input.parse::<Token![;]>()?;
        out.push((name_of(&ident), expr, line_of(&ident)));
    }
    Ok(out)
}

/// Attaches each `// sdk-check: TEXT` comment to the first item or field whose name
/// comes after it.
fn attach_directives(model: &mut Model, text: &str, mut anchors: Vec<(usize, String)>) {
    anchors.sort_by_key(|a| a.0);
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("//") else {
            continue;
        };
        let Some(d) = rest.trim_start().strip_prefix("sdk-check:") else {
            continue;
        };
        let at = anchors.partition_point(|a| a.0 <= lineno);
        if let Some((_, key)) = anchors.get(at) {
            model
                .dirs
                .entry(key.clone())
                .or_default()
                .push(d.trim().to_string());
        }
    }
}

/// Evaluates every constant (repeatedly, so constants may use later ones).
fn evaluate(model: &mut Model) {
    loop {
        let mut progress = false;
        for i in 0..model.consts.items.len() {
            if model.consts.items[i].1.value.is_some() {
                continue;
            }
            if let Some(v) = eval(&model.consts.items[i].1.expr, &model.env) {
                let name = model.consts.items[i].0.clone();
                model.consts.items[i].1.value = Some(v);
                model.env.insert(name, v);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
}

/// Integer value of a constant expression: literals, `as` casts, unary and binary
/// arithmetic, names of other constants and newtype constructors `E(v)`.
pub fn eval(e: &Expr, env: &HashMap<String, i128>) -> Option<i128> {
    Some(match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<u128>().ok()? as i128,
            Lit::Bool(b) => b.value as i128,
            Lit::Byte(b) => b.value() as i128,
            _ => return None,
        },
        Expr::Paren(p) => eval(&p.expr, env)?,
        Expr::Group(g) => eval(&g.expr, env)?,
        Expr::Cast(c) => cast(eval(&c.expr, env)?, &c.ty)?,
        Expr::Unary(u) => {
            let v = eval(&u.expr, env)?;
            match u.op {
                UnOp::Neg(_) => v.checked_neg()?,
                UnOp::Not(_) => !v,
                _ => return None,
            }
        }
        Expr::Binary(b) => {
            let (l, r) = (eval(&b.left, env)?, eval(&b.right, env)?);
            match b.op {
                BinOp::Add(_) => l.checked_add(r)?,
                BinOp::Sub(_) => l.checked_sub(r)?,
                BinOp::Mul(_) => l.checked_mul(r)?,
                BinOp::Div(_) => l.checked_div(r)?,
                BinOp::Rem(_) => l.checked_rem(r)?,
                BinOp::Shl(_) => l.checked_shl(u32::try_from(r).ok()?)?,
                BinOp::Shr(_) => l.checked_shr(u32::try_from(r).ok()?)?,
                BinOp::BitOr(_) => l | r,
                BinOp::BitAnd(_) => l & r,
                BinOp::BitXor(_) => l ^ r,
                _ => return None,
            }
        }
        Expr::Path(p) => *env.get(&p.path.segments.last()?.ident.unraw().to_string())?,
        Expr::Call(c) if c.args.len() == 1 => eval(&c.args[0], env)?,
        _ => return None,
    })
}

fn cast(v: i128, ty: &Type) -> Option<i128> {
    let name = last_ident(ty)?;
    let Some((bits, signed)) = int_kind(crate::types::prim_name(&name)?) else {
        return Some(v);
    };
    let m = v & ((1i128 << bits) - 1);
    Some(if signed && m >> (bits - 1) == 1 {
        m - (1i128 << bits)
    } else {
        m
    })
}

/// (bits, signed) of a canonical integer name.
pub fn int_kind(p: &str) -> Option<(u32, bool)> {
    Some(match p {
        "u8" => (8, false),
        "u16" => (16, false),
        "u32" => (32, false),
        "u64" | "usize" => (64, false),
        "u128" => (128, false),
        "i8" => (8, true),
        "i16" => (16, true),
        "i32" => (32, true),
        "i64" | "isize" => (64, true),
        "c_char" => (8, true),
        "bool" => (8, false),
        _ => return None,
    })
}

fn has_repr(attrs: &[Attribute], word: &str) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.meta
                .to_token_stream()
                .into_iter()
                .any(|t| matches!(t, proc_macro2::TokenTree::Group(g) if g.stream().into_iter().any(|x| x.to_string() == word)))
    })
}

/// The last path segment of a path type (`::core::ffi::c_int` gives `c_int`).
pub fn last_ident(t: &Type) -> Option<String> {
    match t {
        Type::Path(p) if p.qself.is_none() => {
            Some(p.path.segments.last()?.ident.unraw().to_string())
        }
        Type::Paren(p) => last_ident(&p.elem),
        Type::Group(g) => last_ident(&g.elem),
        _ => None,
    }
}

pub fn tokens<T: ToTokens>(t: &T) -> String {
    t.to_token_stream().to_string()
}

/// A short summary of a model (for `--dump`).
pub fn dump(label: &str, m: &Model) {
    println!(
        "== {label}: {} constants, {} enums, {} aliases, {} records, {} opaque, {} functions",
        m.consts.len(),
        m.enums.len(),
        m.aliases.len(),
        m.records.len(),
        m.opaque.len(),
        m.fns.len()
    );
    for (n, c) in m.consts.iter() {
        println!("const {n}: {} = {:?}", c.ty, c.value);
    }
    for (n, e) in m.enums.iter() {
        println!("enum {n}({})", tokens(&e.repr));
    }
    for (n, t) in m.aliases.iter() {
        println!("type {n} = {}", tokens(t));
    }
    for (n, _) in m.opaque.iter() {
        println!("opaque {n}");
    }
    for (n, r) in m.records.iter() {
        let fields: Vec<String> = r
            .fields
            .iter()
            .map(|f| format!("{}: {}", f.name, tokens(&f.ty)))
            .collect();
        println!(
            "{}{} {n} {{ {} }} size {:?} align {:?}",
            r.kind.word(),
            if r.packed { " (packed)" } else { "" },
            fields.join(", "),
            m.size.get(n),
            m.align.get(n)
        );
    }
    for (n, f) in m.fns.iter() {
        let ps: Vec<String> = f
            .params
            .iter()
            .map(|(p, t)| format!("{p}: {}", tokens(t)))
            .collect();
        let ret = f
            .ret
            .as_ref()
            .map(|t| format!(" -> {}", tokens(t)))
            .unwrap_or_default();
        println!("fn {n}({}){ret}", ps.join(", "));
    }
    let mut dirs: BTreeMap<&String, &Vec<String>> = BTreeMap::new();
    dirs.extend(m.dirs.iter());
    for (k, v) in dirs {
        println!("directives of {k}: {v:?}");
    }
}
