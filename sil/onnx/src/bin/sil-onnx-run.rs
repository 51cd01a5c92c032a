//! `sil-onnx-run`: loads an ONNX DLA network with the SIL's validator and runs it with the
//! SIL's interpreter, for comparisons with other engines (`loadables/check_onnx.py`).
//!
//! ```text
//! sil-onnx-run MODEL.onnx --describe
//! sil-onnx-run MODEL.onnx --input IN.bin [--input IN2.bin ...] --out DIR [--layout dense|dla_linear] [--strict]
//! ```
//!
//! Each `--input` file (one per graph input, in graph order) holds one or more records of
//! that tensor back to back: `c·h·w` int8 bytes each with `--layout dense` (the default), or
//! the `kDLA_LINEAR` buffer (descriptor `size` bytes, line padding) with `--layout
//! dla_linear`. Every input file must hold the same number of records. The outputs go to
//! `DIR/<output name>.bin`, the same number of records in the same layout. Rounding notes
//! (`sil_onnx::exact`) are printed to stderr; `--strict` fails (exit 1) when a node's
//! exactness cannot be argued. Exit status 2 for a usage error or a model the SIL refuses.

use std::path::PathBuf;
use std::process::ExitCode;

use sil_onnx::{Model, Rounding, dla};

struct Args {
    model: PathBuf,
    inputs: Vec<PathBuf>,
    out: Option<PathBuf>,
    strided: bool,
    describe: bool,
    strict: bool,
}

const USAGE: &str = "usage: sil-onnx-run MODEL.onnx [--describe] [--input FILE]... [--out DIR] \
                     [--layout dense|dla_linear] [--strict]";

fn parse() -> Result<Args, String> {
    let mut it = std::env::args_os().skip(1);
    let mut a = Args {
        model: PathBuf::new(),
        inputs: Vec::new(),
        out: None,
        strided: false,
        describe: false,
        strict: false,
    };
    let mut model = None;
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--input") => a
                .inputs
                .push(it.next().ok_or("--input needs a file")?.into()),
            Some("--out") => a.out = Some(it.next().ok_or("--out needs a directory")?.into()),
            Some("--layout") => {
                a.strided = match it.next().as_ref().and_then(|s| s.to_str()) {
                    Some("dense") => false,
                    Some("dla_linear") => true,
                    _ => return Err("--layout is dense or dla_linear".into()),
                }
            }
            Some("--describe") => a.describe = true,
            Some("--strict") => a.strict = true,
            Some("-h" | "--help") => return Err(USAGE.into()),
            Some(s) if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            _ if model.is_none() => model = Some(PathBuf::from(arg)),
            _ => return Err(format!("one model only\n{USAGE}")),
        }
    }
    a.model = model.ok_or(USAGE)?;
    if !a.describe && (a.inputs.is_empty() || a.out.is_none()) {
        return Err(format!("give --describe, or --input and --out\n{USAGE}"));
    }
    Ok(a)
}

fn describe(m: &Model) {
    println!(
        "graph `{}` (producer `{}`, opset {}), {} nodes",
        m.graph_name(),
        m.producer(),
        m.opset(),
        m.node_count()
    );
    for (what, list) in [("input", m.inputs()), ("output", m.outputs())] {
        for t in list {
            let d = dla::linear_desc(t);
            println!(
                "{what} `{}`: int8 {:?}, kDLA_LINEAR size {} strides {:?}",
                t.name, t.dims, d.size, d.strides
            );
        }
    }
    for (i, l) in m.layers().iter().enumerate() {
        let relu = if l.relu { " + Relu" } else { "" };
        println!(
            "layer {i} `{}`: {}{relu}, work {}",
            l.name,
            l.kind.op_type(),
            l.work
        );
    }
    for s in m.statistics() {
        println!(
            "statistics `{}`: layers {}..{}",
            s.name,
            s.first,
            s.first + s.count
        );
    }
}

fn run(a: &Args, m: &Model) -> Result<(), String> {
    if a.inputs.len() != m.inputs().len() {
        return Err(format!(
            "{} --input files for a model with {} inputs",
            a.inputs.len(),
            m.inputs().len()
        ));
    }
    let rec = |t: &sil_onnx::IoTensor| {
        if a.strided {
            dla::linear_desc(t).size as usize
        } else {
            t.len()
        }
    };
    let mut files = Vec::new();
    let mut records = None;
    for (p, t) in a.inputs.iter().zip(m.inputs()) {
        let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let r = rec(t);
        if b.is_empty() || b.len() % r != 0 {
            return Err(format!(
                "{}: {} bytes is not a whole number of {r}-byte records of `{}`",
                p.display(),
                b.len(),
                t.name
            ));
        }
        if records.is_some_and(|n| n != b.len() / r) {
            return Err("the input files hold different numbers of records".into());
        }
        records = Some(b.len() / r);
        files.push(b);
    }
    let records = records.unwrap_or(0);
    let mut outs: Vec<Vec<u8>> = m
        .outputs()
        .iter()
        .map(|t| vec![0; rec(t) * records])
        .collect();
    let mut scratch = m.scratch();
    let mut dense_in: Vec<Vec<u8>> = m.inputs().iter().map(|t| vec![0; t.len()]).collect();
    let mut dense_out: Vec<Vec<u8>> = m.outputs().iter().map(|t| vec![0; t.len()]).collect();
    for k in 0..records {
        for ((f, t), d) in files.iter().zip(m.inputs()).zip(&mut dense_in) {
            let r = rec(t);
            let src = &f[k * r..(k + 1) * r];
            if a.strided {
                dla::unpack(&dla::linear_desc(t), src, d);
            } else {
                d.copy_from_slice(src);
            }
        }
        let ins: Vec<&[u8]> = dense_in.iter().map(|v| v.as_slice()).collect();
        let mut os: Vec<&mut [u8]> = dense_out.iter_mut().map(|v| v.as_mut_slice()).collect();
        m.run(&ins, &mut os, &mut scratch)
            .map_err(|e| e.to_string())?;
        for ((o, t), d) in outs.iter_mut().zip(m.outputs()).zip(&dense_out) {
            let r = rec(t);
            let dst = &mut o[k * r..(k + 1) * r];
            if a.strided {
                dla::pack(&dla::linear_desc(t), d, dst);
            } else {
                dst.copy_from_slice(d);
            }
        }
    }
    let dir = a.out.as_ref().ok_or(USAGE)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (o, t) in outs.iter().zip(m.outputs()) {
        let p = dir.join(format!("{}.bin", t.name.replace(['/', '\\'], "_")));
        std::fs::write(&p, o).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    eprintln!("{records} records");
    Ok(())
}

fn main() -> ExitCode {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let m = match std::fs::read(&a.model)
        .map_err(|e| e.to_string())
        .and_then(|b| Model::load(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}: {e}", a.model.display());
            return ExitCode::from(2);
        }
    };
    for n in m.rounding_notes() {
        let level = if matches!(n.rounding, Rounding::Unproven(_)) {
            "warning"
        } else {
            "note"
        };
        eprintln!("{level}: {n}");
    }
    if a.describe {
        describe(&m);
    }
    if !a.inputs.is_empty()
        && let Err(e) = run(&a, &m)
    {
        eprintln!("{e}");
        return ExitCode::from(2);
    }
    if a.strict && !m.exactness_argued() {
        eprintln!("--strict: bit-exactness cannot be argued for every node");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
