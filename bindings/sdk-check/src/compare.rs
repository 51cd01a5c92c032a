//! Compares our declarations with bindgen's: names, values, types and layouts.

use std::collections::{HashMap, HashSet};

use crate::model::{last_ident, Model};
use crate::types::{compat, prim_name, prim_size, ret_str, Canon, Ty};

#[derive(Default)]
pub struct Report {
    pub diffs: Vec<String>,
    pub warnings: Vec<String>,
    pub counts: [usize; 5],
}

/// Prefix of the names bindgen gives anonymous members.
const ANON: &str = "__bindgen_anon_";

fn num(v: i128) -> String {
    if (-4096..4096).contains(&v) {
        v.to_string()
    } else {
        format!("{v:#x} ({v})")
    }
}

/// The struct, union, opaque struct or enum a name stands for in the SDK (following
/// typedefs such as `CUDA_..._DESC` -> `CUDA_..._DESC_v1` -> `CUDA_..._DESC_st`).
fn sdk_nominal(sdk: &Model, name: &str) -> Option<String> {
    let mut n = name.to_string();
    for _ in 0..32 {
        if sdk.records.contains(&n) || sdk.enums.contains(&n) || sdk.opaque.contains(&n) {
            return Some(n);
        }
        n = last_ident(sdk.aliases.get(&n)?)?;
    }
    None
}

fn is_padding(name: &str) -> bool {
    name.starts_with("__bindgen_padding") || name.starts_with("_bitfield_align")
}

struct Pair {
    ours: String,
    sdk: String,
    /// How the pair was found, for messages.
    label: String,
}

pub fn compare(ours: &Model, sdk: &Model, strict_versions: bool) -> Report {
    let mut r = Report::default();
    let mut rename: HashMap<String, String> = HashMap::new();

    // --- our nominal types -> the SDK's ------------------------------------------------
    let mut pairs: Vec<Pair> = Vec::new();
    for (name, _) in ours.records.iter() {
        let cpath = ours.dir_args(name, "c-path");
        let found = if let Some(path) = cpath.first() {
            let mut parts = path.split('.');
            let root = parts.next().unwrap_or_default();
            let mut cur = sdk_nominal(sdk, root);
            for part in parts {
                cur = cur
                    .and_then(|c| sdk.records.get(&c))
                    .and_then(|rec| rec.fields.iter().find(|f| f.name == part))
                    .and_then(|f| last_ident(&f.ty))
                    .and_then(|t| sdk_nominal(sdk, &t));
            }
            if cur.is_none() {
                r.diffs.push(format!(
                    "struct {name}: its C path {path} is not in the SDK"
                ));
            }
            cur
        } else {
            sdk_nominal(sdk, name)
        };
        if let Some(s) = found {
            rename.insert(name.clone(), s.clone());
            pairs.push(Pair {
                ours: name.clone(),
                sdk: s,
                label: name.clone(),
            });
        }
    }
    let nominal = ours
        .opaque
        .iter()
        .map(|(n, _)| n)
        .chain(ours.enums.iter().map(|(n, _)| n));
    for name in nominal {
        if let Some(s) = sdk_nominal(sdk, name) {
            rename.insert(name.clone(), s);
        }
    }
    // Anonymous members (`// sdk-check: anon`): the k-th is bindgen's `__bindgen_anon_k`.
    let mut i = 0;
    while i < pairs.len() {
        let (o, s) = (pairs[i].ours.clone(), pairs[i].sdk.clone());
        i += 1;
        let (Some(orec), Some(srec)) = (ours.records.get(&o), sdk.records.get(&s)) else {
            continue;
        };
        let mut k = 0;
        for f in &orec.fields {
            if !ours.field_dirs(&o, &f.name).iter().any(|d| d == "anon") {
                continue;
            }
            k += 1;
            let Some(oty) = last_ident(&f.ty) else {
                continue;
            };
            let sname = format!("{ANON}{k}");
            let st = srec
                .fields
                .iter()
                .find(|g| g.name == sname)
                .and_then(|g| last_ident(&g.ty));
            if let Some(st) = st.and_then(|t| sdk_nominal(sdk, &t)) {
                rename.entry(oty.clone()).or_insert_with(|| st.clone());
                let label = format!("{oty} (anonymous member `{}` of {o})", f.name);
                pairs.push(Pair {
                    ours: oty,
                    sdk: st,
                    label,
                });
            }
        }
    }

    let co = Canon {
        model: ours,
        rename: &rename,
    };
    let empty = HashMap::new();
    let cs = Canon {
        model: sdk,
        rename: &empty,
    };

    // --- functions ---------------------------------------------------------------------
    for (name, f) in ours.fns.iter() {
        r.counts[0] += 1;
        let Some(g) = sdk.fns.get(name) else {
            // e.g. CUDA 13's header maps `cuDeviceGetUuid` to `cuDeviceGetUuid_v2`
            let versioned: Vec<&String> = sdk
                .fns
                .iter()
                .map(|(n, _)| n)
                .filter(|n| {
                    n.strip_prefix(name.as_str())
                        .is_some_and(|v| v.starts_with("_v"))
                })
                .collect();
            if versioned.is_empty() {
                r.diffs.push(format!("function {name}: not in the SDK"));
            } else {
                let v: Vec<&str> = versioned.iter().map(|s| s.as_str()).collect();
                r.diffs.push(format!(
                    "function {name}: not in the SDK, which has {}",
                    v.join(", ")
                ));
            }
            continue;
        };
        let op: Vec<Ty> = f.params.iter().map(|(_, t)| co.ty(t)).collect();
        let sp: Vec<Ty> = g.params.iter().map(|(_, t)| cs.ty(t)).collect();
        if op.len() != sp.len() || f.variadic != g.variadic {
            let show = |v: &[Ty], var: bool| {
                let mut s: Vec<String> = v.iter().map(|t| t.to_string()).collect();
                if var {
                    s.push("...".into());
                }
                s.join(", ")
            };
            r.diffs.push(format!(
                "function {name}: ours takes {} parameter(s) ({}), the SDK {} ({})",
                op.len(),
                show(&op, f.variadic),
                sp.len(),
                show(&sp, g.variadic)
            ));
        } else {
            for (k, (a, b)) in op.iter().zip(&sp).enumerate() {
                if !compat(a, b) {
                    r.diffs.push(format!(
                        "function {name}: parameter {} (`{}`): ours `{a}`, SDK `{b}`",
                        k + 1,
                        f.params[k].0
                    ));
                }
            }
        }
        let (a, b) = (co.ret(f.ret.as_ref()), cs.ret(g.ret.as_ref()));
        if !compat(&a, &b) {
            r.diffs.push(format!(
                "function {name}: return type: ours `{}`, SDK `{}`",
                ret_str(&a),
                ret_str(&b)
            ));
        }
    }

    // --- constants and enumerators ------------------------------------------------------
    for (name, c) in ours.consts.iter() {
        let Some(v) = c.value else { continue }; // not an integer (e.g. a struct value)
        r.counts[1] += 1;
        let our_enum = ours.enums.contains(&c.ty).then(|| c.ty.clone());
        let what = match &our_enum {
            Some(e) => format!("enumerator {name} of {e}"),
            None => format!("constant {name}"),
        };
        let version = ours.has_dir(name, "version");
        let Some(s) = sdk.consts.get(name) else {
            r.diffs.push(format!("{what}: not in the SDK"));
            continue;
        };
        let Some(w) = s.value else {
            r.warnings
                .push(format!("{what}: the SDK's value could not be evaluated"));
            continue;
        };
        let bits = match co.named(&c.ty) {
            Ty::Enum(_, size) => size * 8,
            Ty::Prim(p) => prim_size(&p).unwrap_or(8) * 8,
            _ => 64,
        };
        let m64 = 1i128 << 64;
        let same = v.rem_euclid(m64) == w.rem_euclid(m64)
            || (bits <= 32 && v.rem_euclid(1 << 32) == w.rem_euclid(1 << 32));
        if !same {
            let msg = format!("{what}: ours {}, SDK {}", num(v), num(w));
            if version && !strict_versions {
                r.warnings.push(format!("{msg} (version constant)"));
            } else {
                r.diffs.push(msg);
            }
        }
        let sdk_enum = sdk.enums.contains(&s.ty).then(|| s.ty.clone());
        match (&our_enum, &sdk_enum) {
            (Some(e), Some(t)) if rename.get(e) != Some(t) => {
                let t = if t.starts_with("_bindgen_ty_") {
                    "an anonymous enum".to_string()
                } else {
                    t.clone()
                };
                r.diffs
                    .push(format!("{what}: in the SDK an enumerator of {t}"));
            }
            (Some(_), None) => {
                r.diffs.push(format!("{what}: in the SDK a constant (`#define` or `static const`), not an enumerator"));
            }
            _ => {}
        }
    }

    // --- enums --------------------------------------------------------------------------
    for (name, e) in ours.enums.iter() {
        r.counts[2] += 1;
        let s = rename.get(name).filter(|s| sdk.enums.contains(s));
        let Some(s) = s else {
            let t = cs.named(name);
            if matches!(t, Ty::Named(ref n) if n == name)
                && !sdk.records.contains(name)
                && !sdk.opaque.contains(name)
            {
                r.diffs.push(format!("type {name}: not in the SDK"));
            } else {
                r.diffs
                    .push(format!("type {name}: a C enum in ours, `{t}` in the SDK"));
            }
            continue;
        };
        let size = |t: &syn::Type| {
            last_ident(t)
                .and_then(|n| prim_name(&n))
                .and_then(prim_size)
        };
        let (a, b) = (size(&e.repr), sdk.enums.get(s).and_then(|x| size(&x.repr)));
        if a != b {
            r.diffs
                .push(format!("size({name}): ours {}, SDK {}", opt(a), opt(b)));
        }
        if ours.has_dir(name, "subset") {
            continue;
        }
        let excepts: Vec<regex_lite::Regex> = ours
            .dir_args(name, "except")
            .iter()
            .filter_map(|re| match regex_lite::Regex::new(re) {
                Ok(x) => Some(x),
                Err(err) => {
                    r.diffs
                        .push(format!("type {name}: bad `except` pattern {re}: {err}"));
                    None
                }
            })
            .collect();
        let mine: HashSet<&String> = ours.enumerators(name).into_iter().collect();
        for m in sdk.enumerators(s) {
            if !mine.contains(m) && !excepts.iter().any(|x| x.is_match(m)) {
                r.diffs.push(format!(
                    "enumerator {m} of {name} is in the SDK but not in ours"
                ));
            }
        }
    }

    // --- type aliases -------------------------------------------------------------------
    for (name, _) in ours.aliases.iter() {
        r.counts[3] += 1;
        let known = sdk.aliases.contains(name)
            || sdk.records.contains(name)
            || sdk.enums.contains(name)
            || sdk.opaque.contains(name);
        if !known {
            r.diffs.push(format!("type {name}: not in the SDK"));
            continue;
        }
        let (a, b) = (co.named(name), cs.named(name));
        if !compat(&a, &b) {
            r.diffs.push(format!("type {name}: ours `{a}`, SDK `{b}`"));
        }
    }

    // --- opaque structs -----------------------------------------------------------------
    for (name, _) in ours.opaque.iter() {
        if !rename.contains_key(name) {
            r.diffs.push(format!("struct {name}: not in the SDK"));
        }
    }

    // --- structs and unions -------------------------------------------------------------
    let paired: HashSet<&String> = pairs.iter().map(|p| &p.ours).collect();
    for (name, rec) in ours.records.iter() {
        if paired.contains(name)
            || ours.has_dir(name, "skip")
            || !ours.dir_args(name, "c-path").is_empty()
        {
            continue;
        }
        let t = cs.named(name);
        if matches!(t, Ty::Named(ref n) if n == name) {
            r.diffs
                .push(format!("{} {name}: not in the SDK", rec.kind.word()));
        } else {
            r.diffs
                .push(format!("{} {name}: `{t}` in the SDK", rec.kind.word()));
        }
    }
    for p in &pairs {
        r.counts[4] += 1;
        compare_record(&mut r, ours, sdk, &co, &cs, p);
    }
    r
}

fn opt(v: Option<u64>) -> String {
    v.map_or("?".into(), |v| v.to_string())
}

fn compare_record(r: &mut Report, ours: &Model, sdk: &Model, co: &Canon, cs: &Canon, p: &Pair) {
    let (Some(orec), Some(srec)) = (ours.records.get(&p.ours), sdk.records.get(&p.sdk)) else {
        if sdk.opaque.contains(&p.sdk) {
            r.diffs.push(format!(
                "{}: declared in the SDK only as an incomplete (opaque) type",
                p.label
            ));
        } else {
            r.diffs.push(format!(
                "{}: `{}` in the SDK is not a struct or union",
                p.label, p.sdk
            ));
        }
        return;
    };
    let label = if p.ours == p.sdk {
        p.label.clone()
    } else {
        format!("{} [SDK {}]", p.label, p.sdk)
    };
    if orec.kind != srec.kind {
        r.diffs.push(format!(
            "{label}: a {} in ours, a {} in the SDK",
            orec.kind.word(),
            srec.kind.word()
        ));
    }
    if orec.packed != srec.packed {
        let (a, b) = if orec.packed {
            ("packed", "not packed")
        } else {
            ("not packed", "packed")
        };
        r.diffs
            .push(format!("{label}: {a} in ours, {b} in the SDK"));
    }
    // Field keys: anonymous members are matched by position (`__bindgen_anon_k`).
    let mut k = 0;
    let okeys: Vec<(String, String, bool)> = orec
        .fields
        .iter()
        .map(|f| {
            if ours
                .field_dirs(&p.ours, &f.name)
                .iter()
                .any(|d| d == "anon")
            {
                k += 1;
                (
                    format!("{ANON}{k}"),
                    format!("{} (anonymous member)", f.name),
                    true,
                )
            } else {
                (f.name.clone(), f.name.clone(), false)
            }
        })
        .collect();
    let sfields: Vec<_> = srec
        .fields
        .iter()
        .filter(|f| !is_padding(&f.name))
        .collect();
    let skeys: Vec<&String> = sfields.iter().map(|f| &f.name).collect();
    let show = |n: &String| {
        n.strip_prefix(ANON)
            .map_or(n.clone(), |k| format!("(anonymous member {k})"))
    };
    let oset: HashSet<&String> = okeys.iter().map(|k| &k.0).collect();
    let sset: HashSet<&String> = skeys.iter().copied().collect();
    for (key, disp, _) in &okeys {
        if !sset.contains(key) {
            r.diffs
                .push(format!("field {label}.{disp}: not in the SDK"));
        }
    }
    for key in &skeys {
        if !oset.contains(key) {
            r.diffs.push(format!(
                "field {label}.{}: in the SDK but not in ours",
                show(key)
            ));
        }
    }
    let ocommon: Vec<&String> = okeys
        .iter()
        .map(|k| &k.0)
        .filter(|k| sset.contains(k))
        .collect();
    let scommon: Vec<&String> = skeys.iter().copied().filter(|k| oset.contains(k)).collect();
    if ocommon != scommon {
        let o: Vec<String> = okeys.iter().map(|k| k.1.clone()).collect();
        let s: Vec<String> = skeys.iter().map(|k| show(k)).collect();
        r.diffs.push(format!(
            "{label}: fields in a different order: ours ({}), SDK ({})",
            o.join(", "),
            s.join(", ")
        ));
    }
    for (of, (key, disp, anon)) in orec.fields.iter().zip(&okeys) {
        let Some(sf) = sfields.iter().find(|f| &f.name == key) else {
            continue;
        };
        if !anon {
            let (a, b) = (co.ty(&of.ty), cs.ty(&sf.ty));
            if !compat(&a, &b) {
                r.diffs.push(format!(
                    "type of field {label}.{disp}: ours `{a}`, SDK `{b}`"
                ));
            }
        }
        let oo = ours.offset.get(&(p.ours.clone(), of.name.clone()));
        let so = sdk.offset.get(&(p.sdk.clone(), key.clone()));
        if let (Some(a), Some(b)) = (oo, so) {
            if a != b {
                r.diffs
                    .push(format!("offset({label}.{disp}): ours {a}, SDK {b}"));
            }
        }
    }
    for (what, om, sm) in [
        ("size", &ours.size, &sdk.size),
        ("align", &ours.align, &sdk.align),
    ] {
        match (om.get(&p.ours), sm.get(&p.sdk)) {
            (Some(a), Some(b)) if a != b => {
                r.diffs.push(format!("{what}({label}): ours {a}, SDK {b}"))
            }
            (None, Some(b)) => r
                .diffs
                .push(format!("{what}({label}): no assert in ours, SDK {b}")),
            _ => {}
        }
    }
}
