//! Canonical types: `c_int` and `i32` are the same type, aliases are resolved, and
//! nominal types (records, opaque structs, enums) are named by the SDK's name.

use std::collections::HashMap;
use std::fmt;

use syn::{GenericArgument, PathArguments, ReturnType, Type};

use crate::model::{eval, int_kind, last_ident, tokens, Model};

#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// A primitive, by its canonical Rust name (`i32`, `u64`, `c_char`, `f32`, ...).
    Prim(String),
    Void,
    /// A struct, union or opaque struct.
    Named(String),
    /// A C enum (newtype) and the size of its integer.
    Enum(String, u64),
    Ptr {
        mutable: bool,
        to: Box<Ty>,
    },
    Array(Box<Ty>, Option<u64>),
    Fn {
        params: Vec<Ty>,
        ret: Box<Ty>,
        variadic: bool,
    },
    Other(String),
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Prim(p) => f.write_str(p),
            Ty::Void => f.write_str("c_void"),
            Ty::Named(n) => f.write_str(n),
            Ty::Enum(n, _) => f.write_str(n),
            Ty::Ptr { mutable, to } => {
                write!(f, "*{} {to}", if *mutable { "mut" } else { "const" })
            }
            Ty::Array(t, Some(n)) => write!(f, "[{t}; {n}]"),
            Ty::Array(t, None) => write!(f, "[{t}; ?]"),
            Ty::Fn {
                params,
                ret,
                variadic,
            } => {
                let mut ps: Vec<String> = params.iter().map(|p| p.to_string()).collect();
                if *variadic {
                    ps.push("...".into());
                }
                write!(f, "fn({})", ps.join(", "))?;
                if **ret != Ty::Void {
                    write!(f, " -> {ret}")?;
                }
                Ok(())
            }
            Ty::Other(s) => f.write_str(s),
        }
    }
}

/// Display of a return type (`()` for none).
pub fn ret_str(t: &Ty) -> String {
    if *t == Ty::Void {
        "()".into()
    } else {
        t.to_string()
    }
}

/// Canonical name of a primitive or `core::ffi` type (LP64: `c_long` is `i64`).
/// `c_char` stays itself: its signedness depends on the target, on both sides alike.
pub fn prim_name(n: &str) -> Option<&'static str> {
    Some(match n {
        "u8" | "c_uchar" => "u8",
        "i8" | "c_schar" => "i8",
        "u16" | "c_ushort" => "u16",
        "i16" | "c_short" => "i16",
        "u32" | "c_uint" => "u32",
        "i32" | "c_int" => "i32",
        "u64" | "c_ulong" | "c_ulonglong" => "u64",
        "i64" | "c_long" | "c_longlong" => "i64",
        "u128" => "u128",
        "i128" => "i128",
        "usize" | "size_t" => "usize",
        "isize" | "ssize_t" => "isize",
        "f32" | "c_float" => "f32",
        "f64" | "c_double" => "f64",
        "bool" => "bool",
        "c_char" => "c_char",
        _ => return None,
    })
}

pub fn prim_size(p: &str) -> Option<u64> {
    match p {
        "f32" => Some(4),
        "f64" => Some(8),
        _ => int_kind(p).map(|(bits, _)| u64::from(bits / 8)),
    }
}

/// Canonicalises types of one side. `rename` maps a nominal name of this side to the
/// SDK's name (identity for the SDK side).
pub struct Canon<'a> {
    pub model: &'a Model,
    pub rename: &'a HashMap<String, String>,
}

impl Canon<'_> {
    fn name(&self, n: &str) -> String {
        self.rename.get(n).cloned().unwrap_or_else(|| n.to_string())
    }

    pub fn ret(&self, t: Option<&Type>) -> Ty {
        t.map_or(Ty::Void, |t| self.ty(t))
    }

    pub fn ty(&self, t: &Type) -> Ty {
        self.ty_depth(t, 0)
    }

    /// The canonical type of a name (an alias, enum, record or primitive).
    pub fn named(&self, n: &str) -> Ty {
        self.named_depth(n, 0)
    }

    fn named_depth(&self, n: &str, depth: u32) -> Ty {
        if n == "c_void" {
            return Ty::Void;
        }
        if let Some(p) = prim_name(n) {
            return Ty::Prim(p.to_string());
        }
        if let Some(t) = self
            .model
            .aliases
            .get(n)
            .or_else(|| self.model.dep_aliases.get(n))
        {
            if depth < 32 {
                return self.ty_depth(t, depth + 1);
            }
        }
        if let Some(e) = self.model.enums.get(n) {
            let size = last_ident(&e.repr)
                .and_then(|r| prim_name(&r))
                .and_then(prim_size)
                .unwrap_or(0);
            return Ty::Enum(self.name(n), size);
        }
        Ty::Named(self.name(n))
    }

    fn ty_depth(&self, t: &Type, depth: u32) -> Ty {
        match t {
            Type::Paren(p) => self.ty_depth(&p.elem, depth),
            Type::Group(g) => self.ty_depth(&g.elem, depth),
            Type::Tuple(tt) if tt.elems.is_empty() => Ty::Void,
            Type::Ptr(p) => Ty::Ptr {
                mutable: p.mutability.is_some(),
                to: Box::new(self.ty_depth(&p.elem, depth)),
            },
            Type::Array(a) => {
                let n = eval(&a.len, &self.model.env).and_then(|v| u64::try_from(v).ok());
                Ty::Array(Box::new(self.ty_depth(&a.elem, depth)), n)
            }
            Type::BareFn(f) => Ty::Fn {
                params: f
                    .inputs
                    .iter()
                    .map(|a| self.ty_depth(&a.ty, depth))
                    .collect(),
                ret: Box::new(match &f.output {
                    ReturnType::Default => Ty::Void,
                    ReturnType::Type(_, t) => self.ty_depth(t, depth),
                }),
                variadic: f.variadic.is_some(),
            },
            Type::Path(p) if p.qself.is_none() => {
                let Some(seg) = p.path.segments.last() else {
                    return Ty::Other(tokens(t));
                };
                // Option<fn(...)>: a nullable function pointer is a function pointer;
                // bindgen wraps non-Copy union fields in ManuallyDrop.
                if seg.ident == "Option" || seg.ident == "ManuallyDrop" {
                    if let PathArguments::AngleBracketed(a) = &seg.arguments {
                        if let Some(GenericArgument::Type(inner)) = a.args.first() {
                            return self.ty_depth(inner, depth);
                        }
                    }
                }
                if !matches!(seg.arguments, PathArguments::None) {
                    return Ty::Other(tokens(t));
                }
                self.named_depth(&seg.ident.to_string(), depth)
            }
            _ => Ty::Other(tokens(t)),
        }
    }
}

/// Whether two canonical types are the same C type. A C enum and an integer of the
/// same size count as the same (C's compatibility rule for enums).
pub fn compat(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Enum(x, _), Ty::Enum(y, _)) => x == y,
        (Ty::Enum(_, s), Ty::Prim(p)) | (Ty::Prim(p), Ty::Enum(_, s)) => {
            p != "bool" && !p.starts_with('f') && prim_size(p) == Some(*s)
        }
        (Ty::Ptr { mutable: m1, to: x }, Ty::Ptr { mutable: m2, to: y }) => {
            m1 == m2 && compat(x, y)
        }
        (Ty::Array(x, n), Ty::Array(y, k)) => n == k && compat(x, y),
        (
            Ty::Fn {
                params: p1,
                ret: r1,
                variadic: v1,
            },
            Ty::Fn {
                params: p2,
                ret: r2,
                variadic: v2,
            },
        ) => {
            v1 == v2
                && p1.len() == p2.len()
                && p1.iter().zip(p2).all(|(x, y)| compat(x, y))
                && compat(r1, r2)
        }
        _ => a == b,
    }
}
