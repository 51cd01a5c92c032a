//! Schedule TOML: parser, validator, worst-case timeline and code generation.
//!
//! One library for both users of a schedule file (format: `docs/schedule.md`):
//!
//! * the `orin-exec check FILE` command: [`check_file`] returns a [`Report`] (the worst-case
//!   timeline per mode) or [`Diagnostics`] (rustc-style errors with file, line and column);
//! * an application's `build.rs`: [`generate`] (or [`build_script`]) validates the schedule
//!   and writes Rust source that builds `orin_exec::table::Schedule` as a `static`.
//!
//! ```no_run
//! // build.rs of an application: `fn main() { ... }` with
//! orin_exec_schedule::build_script("schedule.toml");
//! ```
//!
//! ```ignore
//! // src/main.rs
//! mod schedule {
//!     include!(concat!(env!("OUT_DIR"), "/schedule.rs"));
//! }
//! use schedule::{SCHEDULE, task};
//! ```

// Diagnostics are large, and errors are the slow path of a build tool.
#![allow(clippy::result_large_err)]

mod analysis;
mod bind;
mod codegen;
mod codegen_c;
mod diag;
mod limits;
mod manifest;
mod model;
mod node;
mod read;
mod report;
mod units;

use std::path::{Path, PathBuf};

pub use codegen_c::CTables;
pub use diag::{Diagnostic, Diagnostics, Severity};
pub use limits::markdown as limits_markdown;
pub use manifest::ParamKind;
pub use read::{FileError, MAX_BINARY_BYTES, MAX_TEXT_BYTES, read_file, read_text};
pub use report::{EngineLoad, ModeReport, Report, TaskTiming};

/// The default path of the table types in generated code.
pub const DEFAULT_TABLE_PATH: &str = "::orin_exec::table";

/// The default path of the runtime crate in generated code.
pub const DEFAULT_RUNTIME_PATH: &str = "::orin_exec";

/// Options for checking and generating.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rust path of the module holding the table types (default
    /// [`DEFAULT_TABLE_PATH`]); tests use e.g. `::orin_exec_table`.
    pub table_path: String,
    /// Rust path of the runtime crate for the typed binding of the CPU task bodies (the
    /// `cx`, `body` modules and the `Bodies` struct; default `::orin_exec`). `None` emits
    /// the tables alone (e.g. to compile them against `orin-exec-table` only).
    pub runtime_path: Option<String>,
    /// Print `cargo::rerun-if-changed=` for the schedule and every file it references
    /// (on by default; turn off outside build scripts).
    pub cargo_directives: bool,
    /// Also write a copy of the generated file here.
    pub copy_to: Option<PathBuf>,
    /// The directory of the package that compiles the generated file. Artifacts are then
    /// included by their path relative to it (a generated `package_file!` macro:
    /// `include_bytes!` under `CARGO_MANIFEST_DIR`) and the header names the schedule
    /// relative to it, so the output does not depend on where the repository is checked out
    /// and can be committed and compared. Without it, artifacts are included by absolute path
    /// and the header gives the schedule's file name. [`generate`] and [`build_script`] take it
    /// from `CARGO_MANIFEST_DIR` when they run in a build script.
    pub package_dir: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            table_path: DEFAULT_TABLE_PATH.to_owned(),
            runtime_path: Some(DEFAULT_RUNTIME_PATH.to_owned()),
            cargo_directives: true,
            copy_to: None,
            package_dir: None,
        }
    }
}

/// The output of [`generate_with`] and [`render`].
#[derive(Clone, Debug)]
pub struct Generated {
    /// The Rust source.
    pub source: String,
    /// The validation report (timelines, warnings).
    pub report: Report,
    /// Every file the schedule depends on: itself, the manifests, the cubins and loadables.
    pub inputs: Vec<PathBuf>,
}

struct Checked {
    model: model::Model,
    analysis: analysis::Analysis,
    report: Report,
}

fn read_schedule(path: &Path) -> Result<String, Diagnostics> {
    read_text(path).map_err(|e| {
        Diagnostics(vec![Diagnostic::plain(
            Severity::Error,
            path,
            format!("schedule: {e}"),
        )])
    })
}

/// Validation takes no options: `orin-exec check` and a build script judge a schedule alike.
fn check_inner(path: &Path, text: String) -> Result<Checked, (Diagnostics, Vec<PathBuf>)> {
    check_rules(path, text, true)
}

/// Every rule of the validator; `pva_final`: with the final rule that refuses PVA tasks
/// (off only for [`render_str_with_pva_tasks`]).
fn check_rules(
    path: &Path,
    text: String,
    pva_final: bool,
) -> Result<Checked, (Diagnostics, Vec<PathBuf>)> {
    let (model, warnings) =
        model::parse(path, text).map_err(|d| (Diagnostics(d), vec![path.to_path_buf()]))?;
    let not_run = if pva_final {
        pva_not_run_yet(&model)
    } else {
        Vec::new()
    };
    // The analysis assumes a schedule the runtime can hold.
    let mut beyond = limits::check(&model);
    if !beyond.is_empty() {
        beyond.extend(not_run);
        beyond.extend(warnings);
        return Err((Diagnostics(beyond), model.files.clone()));
    }
    match analysis::analyse(&model) {
        Ok(_) if !not_run.is_empty() => {
            let mut errors = not_run;
            errors.extend(warnings);
            Err((Diagnostics(errors), model.files.clone()))
        }
        Ok(analysis) => {
            let report = Report::new(&model, &analysis, warnings);
            Ok(Checked {
                model,
                analysis,
                report,
            })
        }
        Err(mut errors) => {
            errors.extend(not_run);
            errors.extend(warnings);
            Err((Diagnostics(errors), model.files.clone()))
        }
    }
}

/// The validator's final rule: the runtime does not run PVA tasks yet (its init refuses them
/// with `PlatformFact::PvaUnsupported`, and `Schedule::check` with
/// `TableError::PvaNotRunYet`), so each one is an error, reported after every other rule's
/// diagnostics. The runtime's PVA engine deletes this rule.
fn pva_not_run_yet(model: &model::Model) -> Vec<Diagnostic> {
    model
        .tasks
        .iter()
        .filter(|t| matches!(t.work, model::Work::Pva { .. }))
        .map(|t| {
            model
                .src
                .error(
                    &t.span,
                    format!(
                        "task `{}` runs on PVA engine `{}`, but the runtime does not run PVA \
                         tasks yet",
                        t.name, model.engines[t.engine].name
                    ),
                )
                .note(
                    "every other rule accepts it; `orin_exec` init refuses PVA work \
                     (`PlatformFact::PvaUnsupported`) until its PVA engine lands",
                )
        })
        .collect()
}

/// Validates a schedule file; the `orin-exec check FILE` command.
pub fn check_file(path: &Path) -> Result<Report, Diagnostics> {
    let text = read_schedule(path)?;
    check_str(path, &text)
}

/// Validates schedule text; `path` names it in messages and anchors the relative manifest
/// paths.
pub fn check_str(path: &Path, text: &str) -> Result<Report, Diagnostics> {
    check_inner(path, text.to_owned())
        .map(|c| c.report)
        .map_err(|(d, _)| d)
}

/// Validates a schedule and returns the generated Rust source without writing anything.
pub fn render(schedule_path: &Path, options: &Options) -> Result<Generated, Diagnostics> {
    let text = read_schedule(schedule_path)?;
    render_str(schedule_path, &text, options)
}

/// [`render`] for schedule text; `path` names it and anchors the relative manifest paths.
pub fn render_str(path: &Path, text: &str, options: &Options) -> Result<Generated, Diagnostics> {
    let checked = check_inner(path, text.to_owned()).map_err(|(d, _)| d)?;
    render_checked(path, &checked, options)
}

/// [`render_str`] without the validator's final rule that refuses PVA tasks: the tables a
/// PVA schedule will generate, for the tests of the PVA tables and their `Schedule::check`
/// (which still refuses them with `TableError::PvaNotRunYet`, so the generated `SCHEDULE`
/// does not build). Goes with that rule.
#[doc(hidden)]
pub fn render_str_with_pva_tasks(
    path: &Path,
    text: &str,
    options: &Options,
) -> Result<Generated, Diagnostics> {
    let checked = check_rules(path, text.to_owned(), false).map_err(|(d, _)| d)?;
    render_checked(path, &checked, options)
}

fn render_checked(
    schedule_path: &Path,
    checked: &Checked,
    options: &Options,
) -> Result<Generated, Diagnostics> {
    let package_dir = options.package_dir.as_deref().map(read::absolute);
    let shown = shown_name(schedule_path, package_dir.as_deref());
    let mut summary = checked.report.clone();
    summary.warnings.clear();
    summary.file = PathBuf::from(&shown);
    let provenance = codegen::Provenance {
        schedule: &shown,
        package_dir: package_dir.as_deref(),
    };
    let runtime_items = match &options.runtime_path {
        Some(rt) => {
            let rt: syn::Path = syn::parse_str(rt).map_err(|e| {
                Diagnostics(vec![Diagnostic::plain(
                    Severity::Error,
                    schedule_path,
                    format!("`runtime_path` `{rt}` is not a Rust path: {e}"),
                )])
            })?;
            bind::render(&checked.model, &checked.analysis.order, &rt)
        }
        None => Vec::new(),
    };
    let source = codegen::render(
        &checked.model,
        &checked.analysis,
        &options.table_path,
        provenance,
        &summary.to_string(),
        runtime_items,
    )
    .map_err(|message| {
        Diagnostics(vec![Diagnostic::plain(
            Severity::Error,
            schedule_path,
            message,
        )])
    })?;
    Ok(Generated {
        source,
        report: checked.report.clone(),
        inputs: checked.model.files.clone(),
    })
}

/// Validates a schedule and returns its C tables for the C API (`orin_exec.h`):
/// `<schedule>_tables.h` (ids, typed CPU task contexts) and `<schedule>_tables.c` (the
/// `const` tables, artifacts as byte arrays). Only `package_dir` of `options` is used (how
/// the comments name the schedule).
///
/// ```no_run
/// # use std::path::Path;
/// let c = orin_exec_schedule::render_c(Path::new("schedule.toml"), &Default::default())
///     .map_err(|d| d.to_string())?;
/// std::fs::write(format!("{}.h", c.stem), &c.header).map_err(|e| e.to_string())?;
/// std::fs::write(format!("{}.c", c.stem), &c.source).map_err(|e| e.to_string())?;
/// # Ok::<(), String>(())
/// ```
pub fn render_c(schedule_path: &Path, options: &Options) -> Result<CTables, Diagnostics> {
    let text = read_schedule(schedule_path)?;
    let checked = check_inner(schedule_path, text).map_err(|(d, _)| d)?;
    let package_dir = options.package_dir.as_deref().map(read::absolute);
    let shown = shown_name(schedule_path, package_dir.as_deref());
    let mut summary = checked.report.clone();
    summary.warnings.clear();
    summary.file = PathBuf::from(&shown);
    codegen_c::render(
        &checked.model,
        &checked.analysis,
        &shown,
        &summary.to_string(),
    )
    .map_err(|message| {
        Diagnostics(vec![Diagnostic::plain(
            Severity::Error,
            schedule_path,
            message,
        )])
    })
}

/// How the generated header names the schedule: relative to the package directory when it
/// lies below it, else by file name (never an absolute path of the generating machine).
fn shown_name(schedule_path: &Path, package_dir: Option<&Path>) -> String {
    let schedule = read::absolute(schedule_path);
    let below = package_dir.and_then(|dir| schedule.strip_prefix(dir).ok());
    let shown = below.or_else(|| schedule.file_name().map(Path::new));
    shown
        .unwrap_or(schedule_path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Validates `schedule_path` and writes the generated tables to `out_file` (for build.rs).
/// Prints `cargo::rerun-if-changed` for the schedule and every referenced file.
pub fn generate(schedule_path: &Path, out_file: &Path) -> Result<(), Diagnostics> {
    generate_with(schedule_path, out_file, &Options::default()).map(|_| ())
}

/// [`generate`] with options.
pub fn generate_with(
    schedule_path: &Path,
    out_file: &Path,
    options: &Options,
) -> Result<Generated, Diagnostics> {
    // In a build script (`OUT_DIR` set), the package being built is the one that compiles
    // the output.
    let mut options = options.clone();
    if options.package_dir.is_none() && std::env::var_os("OUT_DIR").is_some() {
        options.package_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    }
    let options = &options;
    let directives = |files: &[PathBuf]| {
        if options.cargo_directives {
            for f in files {
                println!("cargo::rerun-if-changed={}", f.display());
            }
        }
    };
    let text = match read_schedule(schedule_path) {
        Ok(t) => t,
        Err(d) => {
            directives(&[schedule_path.to_path_buf()]);
            return Err(d);
        }
    };
    let checked = match check_inner(schedule_path, text) {
        Ok(c) => c,
        Err((d, files)) => {
            directives(&files);
            return Err(d);
        }
    };
    let generated = render_checked(schedule_path, &checked, options)?;
    directives(&generated.inputs);
    let write = |path: &Path| -> Result<(), Diagnostics> {
        write_if_changed(path, &generated.source).map_err(|e| {
            Diagnostics(vec![Diagnostic::plain(
                Severity::Error,
                path,
                format!("cannot write `{}`: {e}", path.display()),
            )])
        })
    };
    write(out_file)?;
    if let Some(copy) = &options.copy_to {
        write(copy)?;
    }
    Ok(generated)
}

/// Writes `contents` to `path` (creating its directory) unless the file already holds them: an
/// identical file is left untouched (its mtime), so nothing rebuilds needlessly.
fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(());
    }
    std::fs::write(path, contents)
}

/// Where [`build_script`] puts the inspectable copy: `<target>/orin-exec/schedule-<name>.rs`,
/// found from `OUT_DIR` (`<target>/[<triple>/]<profile>/build/<pkg>-<hash>/out`).
pub fn inspectable_copy_path(out_dir: &Path, schedule_name: &str) -> Option<PathBuf> {
    let build = out_dir.parent()?.parent()?;
    if build.file_name()? != "build" {
        return None;
    }
    let target = build.parent()?.parent()?;
    Some(
        target
            .join("orin-exec")
            .join(format!("schedule-{schedule_name}.rs")),
    )
}

/// The whole job of an application's `build.rs`: generates `$OUT_DIR/schedule.rs` from
/// `schedule_path` (relative to the package), writes an inspectable copy to
/// `<target>/orin-exec/schedule-<name>.rs`, prints the warnings as `cargo::warning`, and on
/// errors prints the diagnostics and exits with status 1 (failing the build).
pub fn build_script(schedule_path: impl AsRef<Path>) {
    build_script_with(schedule_path, &Options::default());
}

/// [`build_script`] with output options (where the table types live, an extra copy, ...).
/// Validation does not depend on them.
///
/// ```no_run
/// use orin_exec_schedule::Options;
/// let options = Options { copy_to: Some("generated/schedule.rs".into()), ..Options::default() };
/// orin_exec_schedule::build_script_with("schedule.toml", &options);
/// ```
pub fn build_script_with(schedule_path: impl AsRef<Path>, options: &Options) {
    let path = schedule_path.as_ref();
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        eprintln!("orin-exec-schedule: build_script() must run in a build script (no OUT_DIR)");
        std::process::exit(1);
    };
    let out = out_dir.join("schedule.rs");
    match generate_with(path, &out, options) {
        Ok(generated) => {
            if let Some(copy) = inspectable_copy_path(&out_dir, &generated.report.name) {
                let _ = write_if_changed(&copy, &generated.source);
            }
            for w in &generated.report.warnings {
                println!(
                    "cargo::warning={}: {}:{}:{}",
                    w.message,
                    w.file.display(),
                    w.line,
                    w.column
                );
            }
        }
        Err(diags) => {
            eprintln!("{diags}");
            for d in diags.iter().filter(|d| d.is_error()) {
                println!(
                    "cargo::error={} ({}:{}:{})",
                    d.message,
                    d.file.display(),
                    d.line,
                    d.column
                );
            }
            std::process::exit(1);
        }
    }
}
