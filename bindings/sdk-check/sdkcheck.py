#!/usr/bin/env python3
"""Compare the hand-written -sys crates with vendor headers (stdlib only).

How it works (see bindings/README.md, "Checking against an SDK"):

1. Parse the Rust declarations of nvsci-sys, cudla-sys, cupva-sys and cuda-sys (src/*.rs, the
   SIL module `sil.rs` excluded): constants, C-enum newtypes, type aliases,
   structs/unions with their compile-time layout asserts, and extern functions.
2. Generate one C probe program per crate that includes the vendor headers and
   prints, for every declared item: constant values, sizeof/_Alignof/offsetof of
   every struct and field, and __builtin_types_compatible_p() of every field, alias
   and function type against the C type our Rust type stands for. Items the headers
   lack make the probe line fail to compile; those lines are reported and dropped.
3. Preprocess the headers and list the members of every C enum this crate mirrors
   completely, to find enumerators the bindings lack; list the macros to find C names
   that the header renames (e.g. `#define cuMemFree cuMemFree_v2`).
4. Report every difference; exit 1 if there is any.

Then the bindgen stage (`--no-bindgen` skips it, `--bindgen-only` runs only it):

5. Run bindgen (bindgen-cli, pinned to BINDGEN_VERSION; installed with `cargo install`
   into the cache directory when it is not on PATH) over the headers of each crate, with
   an allow-list of the names the crates declare.
6. Parse bindgen's output and the crate sources with `syn` (the small Rust tool in this
   directory, `sdkcmp`, built on demand) and compare names, constant values, function
   signatures, struct/union fields (names, order, types) and bindgen's size/align/offset
   asserts with ours. Every difference is a `DIFF: bindgen: ...` line.

`--emit-fake-headers DIR` writes headers generated from the Rust declarations (used by
selftest.sh to check the checker).
"""

import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BINDINGS = os.path.dirname(HERE)

# crate -> (source files, headers the probe includes)
CRATES = {
    "nvsci-sys": (["error.rs", "buf.rs", "sync.rs"], ["nvscierror.h", "nvscibuf.h", "nvscisync.h"]),
    "cudla-sys": (["lib.rs"], ["cudla.h", "cudlaExternalEtbl.hpp"]),
    "cuda-sys": (["lib.rs"], ["cuda.h"]),
    # PVA SDK: cupva_host.h includes cupva_host_types.h and the scheduling/workload
    # headers; the NvSci interop calls are in cupva_host_nvsci.h.
    "cupva-sys": (["lib.rs"], ["cupva_host.h", "cupva_host_nvsci.h"]),
}
# Headers that older SDKs do not have (cuDLA before 1.5 has no export table): included when
# present; the declarations they would hold are then reported as not in the headers.
# crate -> crates whose types it uses (their aliases resolve ours in the bindgen stage)
CRATE_DEPS = {"cupva-sys": ["nvsci-sys"]}
OPTIONAL_HEADERS = {"cudlaExternalEtbl.hpp", "cupva_host_nvsci.h"}
# source file -> fake header it becomes
FAKE_HEADER = {
    ("nvsci-sys", "error.rs"): "nvscierror.h",
    ("nvsci-sys", "buf.rs"): "nvscibuf.h",
    ("nvsci-sys", "sync.rs"): "nvscisync.h",
    ("cudla-sys", "lib.rs"): "cudla.h",
    ("cuda-sys", "lib.rs"): "cuda.h",
    ("cupva-sys", "lib.rs"): "cupva_host.h",
}
FAKE_INCLUDES = {"nvscisync.h": ["nvscierror.h", "nvscibuf.h"], "nvscibuf.h": ["nvscierror.h"],
                 "cupva_host.h": ["nvscibuf.h", "nvscisync.h"]}

# bindgen stage: the pinned bindgen-cli, its Rust target, and per crate the allow-lists
# (functions, types, variables/constants) of the names the crate declares. Names of ours
# that a pattern misses are added to it by name (see bindgen_allowlists).
BINDGEN_VERSION = "0.73.2"
BINDGEN_RUST_TARGET = "1.82"
BINDGEN_ALLOW = {
    "nvsci-sys": ("NvSci.*", "NvSci.*", "NvSci.*"),
    "cudla-sys": ("cudla.*", "cudla.*|Cudla.*", "CUDLA_.*|cudla.*"),
    "cuda-sys": ("cu[A-Z].*", "CU.*|cu.*", "CU_.*|CUDA_.*"),
    "cupva-sys": ("Cupva.*", "cupva.*", "CUPVA_.*"),
}
REPO = os.path.dirname(BINDINGS)

PRIM = {
    "u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t",
    "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
    "usize": "size_t", "isize": "ptrdiff_t", "bool": "_Bool", "f32": "float", "f64": "double",
    "c_char": "char", "c_schar": "signed char", "c_uchar": "unsigned char",
    "c_short": "short", "c_ushort": "unsigned short", "c_int": "int", "c_uint": "unsigned int",
    "c_long": "long", "c_ulong": "unsigned long", "c_longlong": "long long",
    "c_ulonglong": "unsigned long long", "c_void": "void", "()": "void",
}
INT_SIZE = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


# --------------------------------------------------------------------------------------
# Rust side
# --------------------------------------------------------------------------------------

class Item:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class Model:
    def __init__(self):
        self.consts = []      # Item(name, ty, expr, value, dirs, crate, file)
        self.newtypes = {}    # name -> Item(name, repr, dirs, crate, file)
        self.aliases = []     # Item(name, ty, crate, file)
        self.records = {}     # name -> Item(name, kind, packed, fields[(name, ty, dirs)], dirs, crate, file, order)
        self.opaque = set()
        self.fns = []         # Item(name, params[(name, ty)], ret, crate, file)
        self.size = {}
        self.align = {}
        self.offset = {}      # (type, field) -> int
        self.errors = []


def clean_source(text):
    """Strip comments; put `@sdk[...]@ ` markers for `// sdk-check:` directives in front
    of the next line that starts an item or field."""
    out, pending = [], []
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"//\s*sdk-check:\s*(.*)$", s)
        if m:
            pending.append(m.group(1).strip())
            continue
        code = re.sub(r"//.*$", "", line)
        if code.strip() and not code.strip().startswith("#[") and pending:
            indent = len(code) - len(code.lstrip())
            code = code[:indent] + "".join("@sdk[%s]@ " % d for d in pending) + code[indent:]
            pending = []
        out.append(code)
    return "\n".join(out)


def dirs_of(prefix):
    return re.findall(r"@sdk\[([^\]]*)\]@", prefix or "")


def split_top(s, sep=","):
    parts, depth, cur = [], 0, ""
    for i, ch in enumerate(s):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and i > 0 and s[i - 1] == "-"):  # `->` is no bracket
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def norm_ty(t):
    t = re.sub(r"\s+", " ", t.strip())
    t = re.sub(r"^(core::ffi::|std::os::raw::|core::)", "", t)
    return t


def parse_crate(model, crate):
    files, _ = CRATES[crate]
    for f in files:
        path = os.path.join(BINDINGS, crate, "src", f)
        with open(path) as fh:
            text = clean_source(fh.read())
        parse_text(model, crate, f, text)


MARK = r"((?:@sdk\[[^\]]*\]@\s*)*)"


def parse_text(model, crate, fname, text):
    order = len(model.records)
    # code macros: `macro_rules! NAME` marked `codes TYPE`, then `NAME! { A = v; ... }`
    code_macros = {}
    for m in re.finditer(MARK + r"macro_rules!\s*(\w+)", text):
        for d in dirs_of(m.group(1)):
            if d.startswith("codes "):
                code_macros[m.group(2)] = d.split()[1]
    for mac, ty in code_macros.items():
        for m in re.finditer(r"^" + re.escape(mac) + r"!\s*\{(.*?)^\}", text, re.S | re.M):
            body = re.sub(r"#\[[^\]]*\]", "", m.group(1))
            for e in re.finditer(r"(\w+)\s*=\s*([^;]+);", body):
                model.consts.append(Item(name=e.group(1), ty=ty, expr=e.group(2).strip(), dirs=[],
                                         crate=crate, file=fname, value=None))
    # newtypes
    for m in re.finditer(r"^" + MARK + r"pub struct (\w+)\(pub ([\w:]+)\);", text, re.M):
        model.newtypes[m.group(2)] = Item(name=m.group(2), repr=norm_ty(m.group(3)),
                                          dirs=dirs_of(m.group(1)), crate=crate, file=fname)
    # records
    for m in re.finditer(r"((?:#\[[^\]]*\]\s*)*)^" + MARK + r"pub (struct|union) (\w+)\s*\{([^{}]*)\}",
                         text, re.M):
        attrs, dirs, kind, name, body = m.group(1), dirs_of(m.group(2)), m.group(3), m.group(4), m.group(5)
        fields = []
        for part in split_top(body):
            fm = re.match(MARK + r"(pub\s+)?(?:r#)?(\w+)\s*:\s*(.+)$", part, re.S)
            if not fm:
                continue
            fields.append((fm.group(3), norm_ty(fm.group(4)), dirs_of(fm.group(1))))
        if len(fields) == 1 and fields[0][0] == "_opaque" and fields[0][1].startswith("[u8; 0]"):
            model.opaque.add(name)
            continue
        order += 1
        model.records[name] = Item(name=name, kind=kind, packed="packed" in attrs, fields=fields,
                                   dirs=dirs, crate=crate, file=fname, order=order)
    # consts (top level only)
    for m in re.finditer(r"^" + MARK + r"pub const (\w+)\s*:\s*([^=]+?)\s*=\s*(.+?);\s*$", text, re.M | re.S):
        model.consts.append(Item(name=m.group(2), ty=norm_ty(m.group(3)), expr=m.group(4).strip(),
                                 dirs=dirs_of(m.group(1)), crate=crate, file=fname, value=None))
    # aliases
    for m in re.finditer(r"^" + MARK + r"pub type (\w+)\s*=\s*([^;]+);", text, re.M):
        model.aliases.append(Item(name=m.group(2), ty=norm_ty(m.group(3)), crate=crate, file=fname))
    # extern blocks
    for m in re.finditer(r'extern "C"\s*\{', text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        block = text[m.end():i - 1]
        for fm in re.finditer(r"pub (?:safe |unsafe )?fn (\w+)\s*\(([^)]*)\)\s*(?:->\s*([^;]+))?;", block):
            params = []
            for p in split_top(fm.group(2)):
                pn, pt = p.split(":", 1)
                params.append((pn.strip(), norm_ty(pt)))
            model.fns.append(Item(name=fm.group(1), params=params, ret=norm_ty(fm.group(3) or "()"),
                                  crate=crate, file=fname))
    # layout asserts
    for m in re.finditer(r"size_of::<(\w+)>\(\)\s*==\s*(\d+)", text):
        model.size[m.group(1)] = int(m.group(2))
    for m in re.finditer(r"align_of::<(\w+)>\(\)\s*==\s*(\d+)", text):
        model.align[m.group(1)] = int(m.group(2))
    for m in re.finditer(r"offset_of!\(\s*(\w+)\s*,\s*(?:r#)?(\w+)\s*\)\s*==\s*(\d+)", text):
        model.offset[(m.group(1), m.group(2))] = int(m.group(3))


def eval_consts(model):
    env = {}
    for c in model.consts:
        e = c.expr
        m = re.match(r"^(\w+)\((.*)\)$", e, re.S)
        if m and m.group(1) in model.newtypes:
            e = m.group(2)
        e = re.sub(r"\bas\s+\w+", "", e).replace("/", "//")
        if re.search(r"[{\[\"']", e):
            continue  # struct or array value: not an integer constant
        try:
            c.value = int(eval(e, {"__builtins__": {}}, dict(env)))
        except Exception:
            continue
        env[c.name] = c.value


def const_value(model, name):
    for c in model.consts:
        if c.name == name:
            return c.value
    return None


def c_path_of(rec):
    for d in rec.dirs:
        if d.startswith("c-path "):
            root, *path = d.split()[1].split(".")
            return "__typeof__(((%s*)0)->%s)" % (root, ".".join(path))
    return None


FN_PTR = re.compile(r'^Option\s*<\s*unsafe extern "C" fn\s*\((.*)\)\s*(?:->\s*(.+?))?\s*,?\s*>$', re.S)


def fn_ptr_parts(model, t):
    """(C return type, [C parameter types]) of `Option<unsafe extern "C" fn(..) -> R>`."""
    m = FN_PTR.match(norm_ty(t))
    if not m:
        return None
    params = [c_type(model, p.split(":", 1)[1]) for p in split_top(m.group(1))]
    return c_type(model, m.group(2) or "()"), params or ["void"]


def c_type(model, t):
    """C type-name for a Rust type."""
    t = norm_ty(t)
    fp = fn_ptr_parts(model, t)
    if fp:
        return "%s (*)(%s)" % (fp[0], ", ".join(fp[1]))
    m = re.match(r"^\*(mut|const) (.+)$", t)
    if m:
        inner = c_type(model, m.group(2))
        return inner + (" *" if m.group(1) == "mut" else " const *")
    m = re.match(r"^\[(.+);\s*(.+)\]$", t)
    if m:
        return "%s[%d]" % (c_type(model, m.group(1)), array_len(model, m.group(2)))
    if t in PRIM:
        return PRIM[t]
    if t in model.opaque:
        return "struct " + t
    rec = model.records.get(t)
    if rec is not None and c_path_of(rec):
        return c_path_of(rec)
    return t


def array_len(model, e):
    e2 = re.sub(r"\bas\s+\w+", "", e)
    env = {c.name: c.value for c in model.consts if c.value is not None}
    return int(eval(e2, {"__builtins__": {}}, env))


def c_decl(model, t, name):
    """C declaration `type name` (arrays become `elem name[N]`)."""
    m = re.match(r"^\[(.+);\s*(.+)\]$", norm_ty(t))
    if m:
        return "%s %s[%d]" % (c_type(model, m.group(1)), name, array_len(model, m.group(2)))
    fp = fn_ptr_parts(model, t)
    if fp:
        return "%s (*%s)(%s)" % (fp[0], name, ", ".join(fp[1]))
    return "%s %s" % (c_type(model, t), name)


def fn_ptr_type(model, fn):
    args = ", ".join(c_type(model, t) for _, t in fn.params) or "void"
    return "%s (*)(%s)" % (c_type(model, fn.ret), args)


def num(v):
    return "%d" % v if v < 4096 else "%#x (%d)" % (v, v)


def is_version(c):
    return "version" in c.dirs


# --------------------------------------------------------------------------------------
# Probe program
# --------------------------------------------------------------------------------------

class Probe:
    def __init__(self):
        self.lines = []   # (id, C statement)
        self.what = {}    # id -> (kind, description, expected)

    def add(self, kind, desc, expr, expected):
        pid = "p%d" % len(self.lines)
        self.lines.append((pid, 'P("%s", %s);' % (pid, expr)))
        self.what[pid] = (kind, desc, expected)


def build_probe(model, crate):
    pr = Probe()
    for c in model.consts:
        if c.crate != crate or c.value is None:
            continue
        pr.add("const", c.name, "(unsigned long long)(%s)" % c.name, c.value % (1 << 64))
    for nt in model.newtypes.values():
        if nt.crate == crate:
            pr.add("size", "sizeof(%s)" % nt.name, "sizeof(%s)" % nt.name, INT_SIZE.get(nt.repr))
    for a in model.aliases:
        if a.crate == crate:
            pr.add("compat", "typedef %s = %s" % (a.name, c_type(model, a.ty)),
                   "__builtin_types_compatible_p(%s, %s)" % (a.name, c_type(model, a.ty)), 1)
    for rec in sorted(model.records.values(), key=lambda r: r.order):
        if rec.crate != crate or "skip" in rec.dirs:
            continue
        ct = c_path_of(rec) or rec.name
        label = rec.name
        for what, table, expr in (("size", model.size, "sizeof(%s)"), ("align", model.align, "_Alignof(%s)")):
            exp = table.get(rec.name)
            if exp is None:
                model.errors.append("%s: no %s assert for %s" % (crate, what, rec.name))
            pr.add(what, "%s(%s)" % (what, label), expr % ct, exp)
        for fname, fty, fdirs in rec.fields:
            off = model.offset.get((rec.name, fname))
            if off is None:
                model.errors.append("%s: no offset_of assert for %s.%s" % (crate, rec.name, fname))
            if "anon" in fdirs:
                inner = model.records.get(fty)
                for iname, _, _ in inner.fields:
                    ioff = model.offset.get((inner.name, iname))
                    exp = None if off is None or ioff is None else off + ioff
                    pr.add("offset", "offsetof(%s, %s) (anonymous member)" % (label, iname),
                           "offsetof(%s, %s)" % (ct, iname), exp)
                continue
            pr.add("offset", "offsetof(%s, %s)" % (label, fname), "offsetof(%s, %s)" % (ct, fname), off)
            pr.add("compat", "type of %s.%s = %s" % (label, fname, c_type(model, fty)),
                   "__builtin_types_compatible_p(__typeof__(((%s*)0)->%s), %s)"
                   % (ct, fname, c_type(model, fty)), 1)
    for fn in model.fns:
        if fn.crate == crate:
            pr.add("fn", "%s: %s" % (fn.name, fn_ptr_type(model, fn)),
                   "__builtin_types_compatible_p(__typeof__(&%s), %s)" % (fn.name, fn_ptr_type(model, fn)), 1)
    return pr


def probe_source(headers, pr, skip):
    src = ["#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>", "#include <stdio.h>"]
    src += ['#include "%s"' % h for h in headers]
    src += ['#define P(id, v) printf("%s %llu\\n", id, (unsigned long long)(v))', "int main(void) {"]
    first = len(src) + 1
    line_of = {}
    for i, (pid, stmt) in enumerate(pr.lines):
        line_of[first + i] = pid
        src.append("/* %s: not in the headers */" % pid if pid in skip else stmt)
    src += ["return 0;", "}"]
    return "\n".join(src) + "\n", line_of


def run_probe(args, crate, headers, pr, tmp):
    skip = set()
    cflags = shlex.split(args.cflags or "")
    ver = subprocess.run(shlex.split(args.cc) + ["--version"], capture_output=True, text=True).stdout
    limit = ["-ferror-limit=0"] if "clang" in ver else ["-fmax-errors=0"]
    for _ in range(20):
        src, line_of = probe_source(headers, pr, skip)
        cpath = os.path.join(tmp, crate + "-probe.c")
        exe = os.path.join(tmp, crate + "-probe")
        with open(cpath, "w") as fh:
            fh.write(src)
        cmd = shlex.split(args.cc) + ["-std=gnu11", "-w"] + limit + ["-I", args.include] + cflags + ["-o", exe, cpath]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            break
        bad = set()
        for m in re.finditer(re.escape(cpath) + r":(\d+):(?:\d+:)?\s*(?:fatal )?error", r.stderr):
            ln = int(m.group(1))
            if ln in line_of:
                bad.add(line_of[ln])
        if not bad:
            sys.stderr.write(r.stderr)
            raise ToolError("probe for %s does not compile outside the probe lines (see above)" % crate)
        skip |= bad
    else:
        raise ToolError("probe for %s still fails after 20 rounds" % crate)
    run = shlex.split(args.runner or "") + [exe]
    r = subprocess.run(run, capture_output=True, text=True, check=True)
    values = {}
    for line in r.stdout.splitlines():
        pid, v = line.split()
        values[pid] = int(v)
    return values, skip


# --------------------------------------------------------------------------------------
# Header-side listings (enums, macros)
# --------------------------------------------------------------------------------------

def preprocess(args, headers, dump_macros):
    src = "".join('#include "%s"\n' % h for h in headers)
    cmd = shlex.split(args.cc) + ["-E", "-P", "-I", args.include] + shlex.split(args.cflags or "")
    if dump_macros:
        cmd.append("-dM")
    cmd += ["-x", "c", "-"]
    r = subprocess.run(cmd, input=src, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        raise ToolError("preprocessing %s failed" % headers)
    return r.stdout


def header_enums(text):
    """typedef name -> [enumerator names]."""
    by_tag, by_name = {}, {}
    for m in re.finditer(r"\benum\s*(\w+)?\s*\{([^{}]*)\}\s*(\w+)?", text):
        members = []
        for part in m.group(2).split(","):
            mm = re.match(r"\s*([A-Za-z_]\w*)", part)
            if mm:
                members.append(mm.group(1))
        if m.group(1):
            by_tag[m.group(1)] = members
        if m.group(3):
            by_name[m.group(3)] = members
    for m in re.finditer(r"typedef\s+enum\s+(\w+)\s+(\w+)\s*;", text):
        if m.group(1) in by_tag:
            by_name[m.group(2)] = by_tag[m.group(1)]
    return by_name


def header_macros(text):
    out = {}
    for m in re.finditer(r"^#define (\w+)(?:\s+(.*))?$", text, re.M):
        out[m.group(1)] = (m.group(2) or "").strip()
    return out


# --------------------------------------------------------------------------------------
# Compare
# --------------------------------------------------------------------------------------

def include_dirs(args):
    flags = shlex.split(args.cflags or "")
    return [args.include] + [f[2:] or (flags[i + 1] if i + 1 < len(flags) else "")
                             for i, f in enumerate(flags) if f.startswith("-I")]


def header_present(args, h):
    return any(os.path.exists(os.path.join(d, h)) for d in include_dirs(args))


def crate_headers(args, crate):
    """The headers a crate's probe includes: the required ones, and the optional ones present."""
    return [h for h in CRATES[crate][1] if h not in OPTIONAL_HEADERS or header_present(args, h)]


def missing_headers(args, crate):
    return [h for h in CRATES[crate][1] if h not in OPTIONAL_HEADERS and not header_present(args, h)]


def check(args, model, crates, tmp):
    """The C-probe stage; prints its report and returns the number of differences."""
    diffs, warns = list(model.errors), []
    nprobes = 0
    for crate in crates:
        files, headers = CRATES[crate][0], crate_headers(args, crate)
        missing = missing_headers(args, crate)
        if missing:
            diffs.append("%s: header(s) %s not found in %s (use --only to skip this crate)"
                         % (crate, ", ".join(missing), " ".join(include_dirs(args))))
            continue
        pr = build_probe(model, crate)
        values, skipped = run_probe(args, crate, headers, pr, tmp)
        nprobes += len(pr.lines)
        for pid, (kind, desc, exp) in pr.what.items():
            if pid in skipped:
                diffs.append("%s: %s: not in the headers (does not compile)" % (crate, desc))
                continue
            got = values.get(pid)
            if exp is None or got == exp:
                continue
            if kind == "const":
                c = next(c for c in model.consts if c.name == desc)
                msg = "%s: constant %s: bindings %s, header %s" % (crate, desc, num(exp), num(got))
                (warns if is_version(c) and not args.strict_versions else diffs).append(msg)
            elif kind in ("compat", "fn"):
                diffs.append("%s: %s: incompatible with the header" % (crate, desc))
            else:
                diffs.append("%s: %s: bindings %d, header %d" % (crate, desc, exp, got))
        # enums the bindings mirror completely
        enums = header_enums(preprocess(args, headers, False))
        for nt in model.newtypes.values():
            if nt.crate != crate or "subset" in nt.dirs:
                continue
            members = enums.get(nt.name)
            if members is None:
                warns.append("%s: enum %s not found by the header scan; completeness not checked"
                             % (crate, nt.name))
                continue
            ours = {c.name for c in model.consts if c.ty == nt.name}
            except_re = [d.split(None, 1)[1] for d in nt.dirs if d.startswith("except ")]
            for name in members:
                if name not in ours and not any(re.search(e, name) for e in except_re):
                    diffs.append("%s: enumerator %s of %s is in the header but not in the bindings"
                                 % (crate, name, nt.name))
        # C names that the header maps to another symbol
        macros = header_macros(preprocess(args, headers, True))
        for fn in model.fns:
            if fn.crate == crate and fn.name in macros and macros[fn.name] != fn.name:
                diffs.append("%s: the header maps %s to `%s`; declare the exported symbol"
                             % (crate, fn.name, macros[fn.name]))
    for w in warns:
        print("warning: " + w)
    for d in diffs:
        print("DIFF: " + d)
    print("%d difference(s), %d warning(s); %d probes in %s"
          % (len(diffs), len(warns), nprobes, ", ".join(crates)))
    return len(diffs)


# --------------------------------------------------------------------------------------
# bindgen stage
# --------------------------------------------------------------------------------------

class ToolError(Exception):
    pass


def cache_dir():
    """Where the pinned bindgen and sdkcmp are installed and built."""
    if os.environ.get("SDKCHECK_CACHE"):
        return os.environ["SDKCHECK_CACHE"]
    return os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target"), "sdk-check")


def bindgen_version(exe):
    try:
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    m = re.search(r"bindgen (\S+)", r.stdout)
    return m.group(1) if r.returncode == 0 and m else None


def find_libclang():
    """A libclang shared library bindgen can load, or None (same places clang-sys looks)."""
    dirs = []
    if os.environ.get("LIBCLANG_PATH"):
        dirs.append(os.environ["LIBCLANG_PATH"])
    try:
        r = subprocess.run(["llvm-config", "--libdir"], capture_output=True, text=True)
        dirs.append(r.stdout.strip())
    except OSError:
        pass
    dirs += sorted(glob.glob("/usr/lib/llvm-*/lib"), reverse=True)
    dirs += ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
             "/usr/local/lib"]
    for d in dirs:
        if d and (glob.glob(os.path.join(d, "libclang.so*")) or glob.glob(os.path.join(d, "libclang-*.so*"))):
            return d
    return None


def find_bindgen(args, install=True):
    """Path of the bindgen to use: --bindgen/$BINDGEN, the pinned version on PATH, the
    pinned version in the cache, or (install=True) a fresh `cargo install` into the cache."""
    explicit = args.bindgen or os.environ.get("BINDGEN")
    if explicit:
        if not bindgen_version(explicit):
            raise ToolError("%s does not run (`%s --version` failed)" % (explicit, explicit))
        return explicit
    on_path = shutil.which("bindgen")
    if on_path and bindgen_version(on_path) == BINDGEN_VERSION:
        return on_path
    root = os.path.join(cache_dir(), "bindgen-" + BINDGEN_VERSION)
    cached = os.path.join(root, "bin", "bindgen")
    if bindgen_version(cached) == BINDGEN_VERSION:
        return cached
    if not install:
        return None
    if shutil.which("cargo") is None:
        if on_path:
            print("warning: bindgen %s on PATH is not the pinned %s, and there is no cargo to "
                  "install that; using %s" % (bindgen_version(on_path), BINDGEN_VERSION, on_path))
            return on_path
        raise ToolError("bindgen %s is not on PATH and there is no cargo to install it "
                        "(install Rust, or pass --no-bindgen)" % BINDGEN_VERSION)
    print("installing bindgen-cli %s into %s (a few minutes, once)" % (BINDGEN_VERSION, root), flush=True)
    cmd = ["cargo", "install", "bindgen-cli", "--version", BINDGEN_VERSION, "--locked",
           "--root", root, "--target-dir", os.path.join(cache_dir(), "bindgen-build")]
    r = subprocess.run(cmd, stdout=sys.stderr)
    if r.returncode != 0 or bindgen_version(cached) != BINDGEN_VERSION:
        raise ToolError("`%s` failed" % " ".join(cmd))
    shutil.rmtree(os.path.join(cache_dir(), "bindgen-build"), ignore_errors=True)
    return cached


def build_sdkcmp():
    """Builds the syn-based comparison tool (its own Cargo workspace) and returns its path."""
    if shutil.which("cargo") is None:
        raise ToolError("the bindgen stage needs cargo to build sdk-check/sdkcmp "
                        "(install Rust, or pass --no-bindgen)")
    target = os.path.join(cache_dir(), "sdkcmp")
    cmd = ["cargo", "build", "--quiet", "--locked", "--manifest-path", os.path.join(HERE, "Cargo.toml"),
           "--target-dir", target]
    r = subprocess.run(cmd, stdout=sys.stderr)
    if r.returncode != 0:
        raise ToolError("building sdkcmp failed: `%s`" % " ".join(cmd))
    return os.path.join(target, "debug", "sdkcmp")


def declared_names(model, crate):
    """(functions, types, variables) that crate declares (sil.rs is never parsed)."""
    fns = {f.name for f in model.fns if f.crate == crate}
    types = {n.name for n in model.newtypes.values() if n.crate == crate}
    types |= {a.name for a in model.aliases if a.crate == crate}
    types |= {r.name for r in model.records.values() if r.crate == crate and not c_path_of(r)
              and "skip" not in r.dirs}
    consts = {c.name for c in model.consts if c.crate == crate and c.ty not in model.newtypes}
    return fns, types, consts


def bindgen_allowlists(model, crate):
    """The crate's allow-list patterns, plus the names of ours that they miss."""
    out = []
    for pat, names in zip(BINDGEN_ALLOW[crate], declared_names(model, crate)):
        extra = sorted(n for n in names if not re.fullmatch(pat, n))
        out.append("|".join([pat] + [re.escape(n) for n in extra]))
    return out


def bindgen_command(args, bindgen, model, crate, wrapper, out):
    fns, types, vars_ = bindgen_allowlists(model, crate)
    cmd = [bindgen, wrapper, "-o", out,
           "--rust-target", BINDGEN_RUST_TARGET, "--use-core", "--no-doc-comments",
           "--default-enum-style", "newtype", "--no-prepend-enum-name", "--merge-extern-blocks",
           "--clang-macro-fallback",
           "--allowlist-function", fns, "--allowlist-type", types, "--allowlist-var", vars_,
           "--", "-I", args.include]
    return cmd + shlex.split(args.cflags or "") + shlex.split(args.clang_args or "")


def bindgen_stage(args, model, crates, tmp):
    """Prints the bindgen stage's report and returns the number of differences."""
    bindgen = find_bindgen(args)
    sdkcmp = build_sdkcmp()
    print("bindgen: using %s (bindgen %s)" % (bindgen, bindgen_version(bindgen)))
    ndiff, nwarn = 0, 0
    for crate in crates:
        files, headers = CRATES[crate][0], crate_headers(args, crate)
        missing = missing_headers(args, crate)
        if missing:
            print("DIFF: bindgen: %s: header(s) %s not found in %s (use --only to skip this crate)"
                  % (crate, ", ".join(missing), " ".join(include_dirs(args))))
            ndiff += 1
            continue
        outdir = args.bindgen_out or tmp
        os.makedirs(outdir, exist_ok=True)
        wrapper = os.path.join(tmp, crate + "-bindgen.h")
        with open(wrapper, "w") as fh:
            fh.write("#include <stddef.h>\n#include <stdint.h>\n#include <stdbool.h>\n")
            fh.write("".join('#include "%s"\n' % h for h in headers))
        out = os.path.join(outdir, crate + "-bindgen.rs")
        cmd = bindgen_command(args, bindgen, model, crate, wrapper, out)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            hint = "" if find_libclang() else " (no libclang found: install libclang-dev and clang)"
            raise ToolError("bindgen failed on the %s headers%s: %s" % (crate, hint, " ".join(map(shlex.quote, cmd))))
        ours = [os.path.join(BINDINGS, crate, "src", f) for f in files]
        deps = [a for d in CRATE_DEPS.get(crate, [])
                for f in CRATES[d][0] for a in ("--dep", os.path.join(BINDINGS, d, "src", f))]
        cmp_cmd = ([sdkcmp, "--crate", crate, "--sdk", out] + deps
                   + (["--strict-versions"] if args.strict_versions else []) + ours)
        r = subprocess.run(cmp_cmd, capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode not in (0, 1):
            sys.stderr.write(r.stderr)
            raise ToolError("sdkcmp failed: %s" % " ".join(cmp_cmd))
        ndiff += sum(1 for line in r.stdout.splitlines() if line.startswith("DIFF: "))
        nwarn += sum(1 for line in r.stdout.splitlines() if line.startswith("warning: "))
    print("bindgen stage: %d difference(s), %d warning(s) in %s" % (ndiff, nwarn, ", ".join(crates)))
    return ndiff


# --------------------------------------------------------------------------------------
# Fake headers (for the self-test)
# --------------------------------------------------------------------------------------

def emit_fake_headers(model, outdir):
    os.makedirs(outdir, exist_ok=True)
    for (crate, fname), header in FAKE_HEADER.items():
        guard = "FAKE_" + re.sub(r"\W", "_", header.upper())
        out = ["/* Generated by sdkcheck.py --emit-fake-headers from the %s declarations. */" % crate,
               "#ifndef " + guard, "#define " + guard,
               "#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>"]
        out += ['#include "%s"' % h for h in FAKE_INCLUDES.get(header, [])]
        mine = lambda it: it.crate == crate and it.file == fname
        for a in model.aliases:
            if mine(a):
                inner = re.match(r"^\*(mut|const) (\w+)$", a.ty)
                if inner and inner.group(2) in model.opaque:
                    out.append("struct %s;" % inner.group(2))
                out.append("typedef %s;" % c_decl(model, a.ty, a.name))
        for nt in model.newtypes.values():
            if not mine(nt):
                continue
            members = ["    %s = %s," % (c.name, c.value) for c in model.consts if c.ty == nt.name]
            # C has no empty enums: a `subset` type whose values are unknown gets one
            # placeholder enumerator (the checks ignore a subset enum's extra members).
            members = members or ["    %s_SDKCHECK_PLACEHOLDER = 0," % nt.name]
            out.append("typedef enum {\n%s\n} %s;" % ("\n".join(members), nt.name))
        for c in model.consts:
            if mine(c) and c.ty not in model.newtypes and c.value is not None:
                out.append("#define %s ((%s)%dULL)" % (c.name, c_type(model, c.ty), c.value % (1 << 64))
                           if c.value >= 0 else "#define %s ((%s)(%d))" % (c.name, c_type(model, c.ty), c.value))
        done = set()

        def emit_record(rec):
            if rec.name in done:
                return
            done.add(rec.name)
            for _, fty, _ in rec.fields:
                base = re.sub(r"^\[(.+);.*\]$", r"\1", fty)
                dep = model.records.get(base)
                if dep is not None and mine(dep):
                    emit_record(dep)
            if "skip" in rec.dirs:
                return
            body = []
            for fname_, fty, fdirs in rec.fields:
                if "anon" in fdirs:
                    inner = model.records[fty]
                    body.append("    %s {\n%s\n    };" % (inner.kind, "\n".join(
                        "        %s;" % c_decl(model, t, n) for n, t, _ in inner.fields)))
                else:
                    ft = fty
                    dep = model.records.get(fty)
                    decl = ("%s %s" % (fty, fname_)) if dep is not None else c_decl(model, ft, fname_)
                    body.append("    %s;" % decl)
            attr = " __attribute__((packed))" if rec.packed else ""
            out.append("typedef %s%s %s {\n%s\n} %s;" % (rec.kind, attr, rec.name, "\n".join(body), rec.name))

        for rec in sorted(model.records.values(), key=lambda r: r.order):
            if mine(rec):
                emit_record(rec)
        for fn in model.fns:
            if mine(fn):
                args = ", ".join(c_decl(model, t, n) for n, t in fn.params) or "void"
                out.append("%s %s(%s);" % (c_type(model, fn.ret), fn.name, args))
        out.append("#endif")
        with open(os.path.join(outdir, header), "w") as fh:
            fh.write("\n".join(out) + "\n")
    print("fake headers written to " + outdir)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("include", nargs="?", help="directory holding nvscisync.h, nvscibuf.h, nvscierror.h, cudla.h, cuda.h, cupva_host.h")
    ap.add_argument("--only", help="comma-separated subset of: " + ",".join(CRATES))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler (default $CC or cc)")
    ap.add_argument("--cflags", default=os.environ.get("SDKCHECK_CFLAGS", ""), help="extra compiler flags, e.g. more -I (also given to bindgen's clang)")
    ap.add_argument("--runner", default=os.environ.get("SDKCHECK_RUNNER", ""),
                    help="run the probe through this (e.g. 'qemu-aarch64 -L /usr/aarch64-linux-gnu')")
    ap.add_argument("--strict-versions", action="store_true", help="version constants that differ are errors")
    ap.add_argument("--emit-fake-headers", metavar="DIR", help="write headers generated from the bindings and exit")
    stage = ap.add_mutually_exclusive_group()
    stage.add_argument("--no-bindgen", action="store_true", help="only the C-probe stage")
    stage.add_argument("--bindgen-only", action="store_true", help="only the bindgen stage")
    ap.add_argument("--bindgen", metavar="PATH", help="bindgen executable (default: $BINDGEN, bindgen %s on "
                    "PATH, or the one installed into the cache)" % BINDGEN_VERSION)
    ap.add_argument("--clang-args", default=os.environ.get("SDKCHECK_CLANG_ARGS", ""),
                    help="extra clang flags for bindgen only (e.g. --target=aarch64-linux-gnu)")
    ap.add_argument("--bindgen-out", metavar="DIR", help="keep bindgen's output here (CRATE-bindgen.rs)")
    ap.add_argument("--bindgen-setup", action="store_true",
                    help="install the pinned bindgen if needed, build sdkcmp, print their paths, and exit")
    ap.add_argument("--bindgen-status", action="store_true",
                    help="say whether the bindgen stage can run here (exit 0) or not (exit 1), and exit")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)

    if args.bindgen_setup:
        try:
            print("bindgen: %s" % find_bindgen(args))
            print("sdkcmp: %s" % build_sdkcmp())
        except ToolError as e:
            sys.stderr.write("sdkcheck: error: %s\n" % e)
            return 2
        return 0
    if args.bindgen_status:
        try:
            return bindgen_status(args)
        except ToolError as e:
            print("bindgen: %s" % e)
            return 1
    model = Model()
    for crate in CRATES:
        parse_crate(model, crate)
    eval_consts(model)
    if args.emit_fake_headers:
        emit_fake_headers(model, args.emit_fake_headers)
        return 0
    if not args.include:
        ap.error("give the SDK include directory")
    crates = args.only.split(",") if args.only else list(CRATES)
    unknown = [c for c in crates if c not in CRATES]
    if unknown:
        ap.error("unknown crate(s) %s; choose from %s" % (", ".join(unknown), ", ".join(CRATES)))
    tmp = tempfile.mkdtemp(prefix="sdkcheck-")
    try:
        ndiff = 0
        if not args.bindgen_only:
            print("== C-probe stage")
            ndiff += check(args, model, crates, tmp)
        if not args.no_bindgen:
            print("== bindgen stage")
            ndiff += bindgen_stage(args, model, crates, tmp)
    except ToolError as e:
        sys.stderr.write("sdkcheck: error: %s\n" % e)
        return 2
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not args.bindgen_only and not args.no_bindgen:
        print("total: %d difference(s)" % ndiff)
    return 1 if ndiff else 0


def bindgen_status(args):
    """What the bindgen stage needs here: libclang, and bindgen or cargo to install it."""
    lib = find_libclang()
    bg = find_bindgen(args, install=False)
    cargo = shutil.which("cargo")
    print("libclang: %s" % (lib or "not found (apt install libclang-dev clang)"))
    print("bindgen %s: %s" % (BINDGEN_VERSION, bg or ("not installed; cargo will install it into %s"
                                                      % cache_dir() if cargo else "not installed, and no cargo")))
    print("cargo (builds sdk-check/sdkcmp): %s" % (cargo or "not found"))
    return 0 if lib and cargo else 1


if __name__ == "__main__":
    sys.exit(main())
