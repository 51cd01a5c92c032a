//! sdkcmp: the bindgen stage of `bindings/check-against-sdk.sh`.
//!
//! ```text
//! sdkcmp --crate NAME --sdk BINDGEN_OUTPUT.rs [--dep DEP.rs]... [--strict-versions] [--dump] OURS.rs...
//! ```
//!
//! `--dep` names a source file of a crate ours depends on (nvsci-sys for cupva-sys): its
//! type aliases resolve the types ours imports from it; nothing of it is compared.
//!
//! Parses bindgen's output for the vendor headers and our crate's sources (the SIL
//! module left out by the caller) with `syn`, and prints every difference in names,
//! values, types and layouts as `DIFF: bindgen: NAME: ...`. Exit status: 0 no
//! difference, 1 differences, 2 usage or parse error.

mod compare;
mod model;
mod types;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: sdkcmp --crate NAME --sdk BINDGEN_OUTPUT.rs [--dep DEP.rs]... [--strict-versions] [--dump] OURS.rs..."
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut krate = None;
    let mut sdk = None;
    let mut strict = false;
    let mut dump = false;
    let mut ours = Vec::new();
    let mut deps = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--crate" => krate = args.next(),
            "--sdk" => sdk = args.next(),
            "--dep" => match args.next() {
                Some(d) => deps.push(d),
                None => return usage(),
            },
            "--strict-versions" => strict = true,
            "--dump" => dump = true,
            "-h" | "--help" => return usage(),
            s if s.starts_with("--") => return usage(),
            _ => ours.push(a),
        }
    }
    let (Some(krate), Some(sdk)) = (krate, sdk) else {
        return usage();
    };
    if ours.is_empty() {
        return usage();
    }
    let mut ours_model = match model::parse_files(&ours, true) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("sdkcmp: {e}");
            return ExitCode::from(2);
        }
    };
    if !deps.is_empty() {
        match model::parse_files(&deps, true) {
            Ok(m) => ours_model.dep_aliases = m.aliases,
            Err(e) => {
                eprintln!("sdkcmp: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let sdk_model = match model::parse_files(&[sdk], false) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("sdkcmp: {e}");
            return ExitCode::from(2);
        }
    };
    if dump {
        model::dump("ours", &ours_model);
        model::dump("SDK (bindgen)", &sdk_model);
    }
    let report = compare::compare(&ours_model, &sdk_model, strict);
    for w in &report.warnings {
        println!("warning: bindgen: {krate}: {w}");
    }
    for d in &report.diffs {
        println!("DIFF: bindgen: {krate}: {d}");
    }
    let [f, c, e, a, r] = report.counts;
    println!(
        "bindgen: {krate}: {} difference(s), {} warning(s); compared {f} functions, {c} constants, {e} enums, {a} type aliases, {r} structs/unions",
        report.diffs.len(),
        report.warnings.len()
    );
    if report.diffs.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
