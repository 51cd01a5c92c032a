//! Rust code generation: `static` tables (`orin_exec::table::ScheduleTables`) and the
//! `Schedule` that `Schedule::check` makes of them at compile time.
//!
//! The output is laid out the way rustfmt (default configuration) lays it out, by a small
//! pretty printer that follows rustfmt's width heuristics for the few shapes used here
//! (struct literals, arrays, one-argument tuple variants, `include_bytes!`). A test checks
//! that rustfmt leaves the output unchanged.

use std::fmt::Write as _;
use std::path::Path;

use crate::analysis::Analysis;
use crate::manifest::Artifact;
use crate::model::{Action, BufKind, Model, Param, Scope, Work, const_name};
use crate::units::grouped;

const MAX_WIDTH: usize = 100;
/// rustfmt's `struct_lit_width`.
const STRUCT_LIT_WIDTH: usize = 18;
/// rustfmt's `array_width`.
const ARRAY_WIDTH: usize = 60;
/// rustfmt's `fn_call_width`.
const FN_CALL_WIDTH: usize = 60;
/// rustfmt's `short_array_element_width_threshold`.
const SHORT_ITEM: usize = 10;

/// An expression to print.
#[derive(Clone, Debug)]
enum E {
    /// Printed as is, never broken.
    Atom(String),
    /// `Path { field: value, ... }`.
    Struct(String, Vec<(String, E)>),
    /// `[items]` or `&[items]`.
    Array(bool, Vec<E>),
    /// `Path(arg)` with one argument.
    Call(String, Box<E>),
    /// `include_bytes!("path")`.
    Bytes(String),
}

fn atom(s: impl Into<String>) -> E {
    E::Atom(s.into())
}

fn strct(name: &str, fields: Vec<(&str, E)>) -> E {
    E::Struct(
        name.to_owned(),
        fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
    )
}

fn str_lit(s: &str) -> E {
    E::Atom(format!("{s:?}"))
}

fn num(v: u64) -> E {
    E::Atom(grouped(v))
}

impl E {
    fn flat(&self) -> String {
        match self {
            E::Atom(s) => s.clone(),
            E::Struct(name, fields) if fields.is_empty() => format!("{name} {{}}"),
            E::Struct(name, fields) => format!("{name} {{ {} }}", self.body(fields)),
            E::Array(amp, items) => {
                let items: Vec<String> = items.iter().map(E::flat).collect();
                format!("{}[{}]", if *amp { "&" } else { "" }, items.join(", "))
            }
            E::Call(name, arg) => format!("{name}({})", arg.flat()),
            E::Bytes(path) => format!("include_bytes!({path:?})"),
        }
    }

    fn body(&self, fields: &[(String, E)]) -> String {
        fields
            .iter()
            .map(|(k, v)| format!("{k}: {}", v.flat()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether rustfmt would keep it on one line (given room).
    fn fits_flat(&self) -> bool {
        match self {
            E::Atom(_) | E::Bytes(_) => true,
            E::Struct(_, fields) => {
                fields.is_empty()
                    || (self.body(fields).len() <= STRUCT_LIT_WIDTH
                        && fields.iter().all(|(_, v)| v.fits_flat()))
            }
            E::Array(_, items) => {
                items.iter().all(E::fits_flat)
                    && items.iter().map(|i| i.flat().len()).sum::<usize>()
                        + 2 * items.len().saturating_sub(1)
                        <= ARRAY_WIDTH
            }
            E::Call(_, arg) => arg.fits_flat() && arg.flat().len() <= FN_CALL_WIDTH,
        }
    }

    fn is_short_literal(&self) -> bool {
        match self {
            E::Atom(s) => s.len() <= SHORT_ITEM && s.starts_with(|c: char| c.is_ascii_digit()),
            _ => false,
        }
    }

    /// Prints at `indent`, with `used` columns already taken on the first line and `suffix`
    /// characters following on the last line.
    fn render(&self, indent: usize, used: usize, suffix: usize) -> String {
        let flat = self.flat();
        let fits_line = used + flat.len() + suffix <= MAX_WIDTH;
        let pad = " ".repeat(indent);
        let pad4 = " ".repeat(indent + 4);
        match self {
            E::Atom(s) => s.clone(),
            E::Bytes(path) => {
                if fits_line {
                    flat
                } else {
                    format!("include_bytes!(\n{pad4}{path:?}\n{pad})")
                }
            }
            E::Struct(name, fields) => {
                if fields.is_empty() || (self.fits_flat() && fits_line) {
                    return flat;
                }
                let mut out = format!("{name} {{\n");
                for (k, v) in fields {
                    let value = v.render(indent + 4, indent + 4 + k.len() + 2, 1);
                    let _ = writeln!(out, "{pad4}{k}: {value},");
                }
                out.push_str(&pad);
                out.push('}');
                out
            }
            E::Array(amp, items) => {
                let open = if *amp { "&[" } else { "[" };
                if items.is_empty() || (self.fits_flat() && fits_line) {
                    return flat;
                }
                if items.len() == 1 && matches!(items[0], E::Struct(..) | E::Call(..)) {
                    let inner = items[0].render(indent, used + open.len(), suffix + 1);
                    return format!("{open}{inner}]");
                }
                let mut out = format!("{open}\n");
                if items.iter().all(E::is_short_literal) {
                    let mut line = pad4.clone();
                    for item in items {
                        let text = format!("{},", item.flat());
                        let extra = if line.len() == pad4.len() {
                            text.len()
                        } else {
                            text.len() + 1
                        };
                        if line.len() + extra > MAX_WIDTH && line.len() > pad4.len() {
                            out.push_str(&line);
                            out.push('\n');
                            line = pad4.clone();
                        }
                        if line.len() > pad4.len() {
                            line.push(' ');
                        }
                        line.push_str(&text);
                    }
                    out.push_str(&line);
                    out.push('\n');
                } else {
                    for item in items {
                        let _ = writeln!(out, "{pad4}{},", item.render(indent + 4, indent + 4, 1));
                    }
                }
                out.push_str(&pad);
                out.push(']');
                out
            }
            E::Call(name, arg) => {
                if self.fits_flat() && fits_line {
                    return flat;
                }
                let inner = arg.render(indent, used + name.len() + 1, suffix + 1);
                format!("{name}({inner})")
            }
        }
    }
}

/// `pub static NAME: TYPE = EXPR;` or `static ...`.
fn item(out: &mut String, decl: &str, e: &E) {
    let head = format!("{decl} = ");
    let _ = writeln!(out, "{head}{};", e.render(0, head.len(), 1));
}

/// Renders the generated file.
pub(crate) fn render(
    model: &Model,
    analysis: &Analysis,
    table: &str,
    schedule_path: &Path,
    report: &str,
) -> String {
    let task_ref = |t: usize| atom(format!("task::{}", const_name(&model.tasks[t].name)));
    let buffer_ref = |b: usize| atom(format!("buffer::{}", const_name(&model.buffers[b].name)));
    let mode_ref = |m: usize| format!("mode::{}", const_name(&model.modes[m].name));
    let engine_ref = |e: usize| atom(format!("engine::{}", const_name(&model.engines[e].name)));

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// @generated by orin-exec-schedule {} from {}; do not edit.",
        env!("CARGO_PKG_VERSION"),
        schedule_path.display()
    );
    out.push_str(
        "//\n\
         // Include it in a module of its own (it imports the table types):\n\
         //\n\
         //     mod schedule {\n\
         //         include!(concat!(env!(\"OUT_DIR\"), \"/schedule.rs\"));\n\
         //     }\n\
         //\n",
    );
    for line in report.lines() {
        if line.is_empty() {
            out.push_str("//\n");
        } else {
            let _ = writeln!(out, "// {line}");
        }
    }
    out.push('\n');
    let _ = writeln!(out, "use {table}::*;\n");

    // Id modules.
    let id_module = |out: &mut String,
                     doc: &str,
                     name: &str,
                     ty: &str,
                     entries: Vec<(String, String, usize)>| {
        let _ = writeln!(out, "/// {doc}");
        let _ = writeln!(out, "#[allow(dead_code)]");
        let _ = writeln!(out, "pub mod {name} {{");
        let _ = writeln!(out, "    use {table}::{ty};\n");
        for (i, (cname, doc, value)) in entries.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "    /// {doc}");
            let _ = writeln!(out, "    pub const {cname}: {ty} = {ty}({value});");
        }
        let _ = writeln!(out, "}}\n");
    };
    id_module(
        &mut out,
        "Task ids, in submission order.",
        "task",
        "TaskId",
        analysis
            .order
            .iter()
            .enumerate()
            .map(|(pos, &t)| {
                let task = &model.tasks[t];
                let kind = match task.work {
                    Work::Cpu => "CPU task",
                    Work::Gpu { .. } => "GPU kernel",
                    Work::Dla { .. } => "DLA loadable",
                };
                (
                    const_name(&task.name),
                    format!(
                        "`{}`: {kind} on `{}`.",
                        task.name, model.engines[task.engine].name
                    ),
                    pos,
                )
            })
            .collect(),
    );
    id_module(
        &mut out,
        "Buffer ids.",
        "buffer",
        "BufferId",
        model
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| (const_name(&b.name), format!("`{}`.", b.name), i))
            .collect(),
    );
    id_module(
        &mut out,
        "Mode ids; the first is the initial mode.",
        "mode",
        "ModeId",
        model
            .modes
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let initial = if i == 0 { " (initial)" } else { "" };
                (const_name(&m.name), format!("`{}`{initial}.", m.name), i)
            })
            .collect(),
    );
    id_module(
        &mut out,
        "Engine instance ids.",
        "engine",
        "EngineId",
        model
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    const_name(&e.name),
                    format!(
                        "`{}`: {} {} {}.",
                        e.name,
                        e.kind.upper(),
                        e.kind.instance_key(),
                        e.instance
                    ),
                    i,
                )
            })
            .collect(),
    );

    // The schedule.
    let minor = E::Array(true, model.minor_frames.iter().map(|&m| num(m)).collect());
    let schedule = strct(
        "ScheduleTables",
        vec![
            ("name", str_lit(&model.name)),
            ("profile", str_lit(model.profile.name())),
            ("period_ns", num(model.period)),
            ("minor_frames_ns", minor),
            ("lookahead", num(u64::from(model.lookahead))),
            ("engines", atom("&ENGINES")),
            ("buffers", atom("&BUFFERS")),
            ("tasks", atom("&TASKS")),
            ("modes", atom("&MODES")),
            ("health", atom("&HEALTH")),
            ("cubins", atom("&CUBINS")),
            ("loadables", atom("&LOADABLES")),
            ("timeline", atom("&TIMELINE")),
        ],
    );
    let _ = writeln!(out, "/// The tables of the schedule `{}`.", model.name);
    item(&mut out, "static TABLES: ScheduleTables", &schedule);
    // Checked again by the compiler: `Schedule::check` is the only way to make a `Schedule`.
    let _ = writeln!(
        out,
        "\n/// The validated schedule `{}`, checked at compile time.\n\
         pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {{\n    \
         Ok(s) => s,\n    \
         Err(e) => panic!(\"{{}}\", e.message()),\n\
         }};",
        model.name
    );

    static_table(&mut out, "ENGINES", "EngineDesc", &model.engines, |e| {
        vec![
            ("name", str_lit(&e.name)),
            ("kind", atom(format!("EngineKind::{}", e.kind.variant()))),
            ("instance", num(u64::from(e.instance))),
            ("queue_capacity", num(u64::from(e.queue_capacity))),
        ]
    });

    static_table(&mut out, "BUFFERS", "BufferDesc", &model.buffers, |b| {
        vec![
            ("name", str_lit(&b.name)),
            ("kind", buffer_kind_expr(b.kind)),
            ("multiplicity", num(u64::from(b.multiplicity))),
            ("cpu_access", atom(b.cpu_access.to_string())),
        ]
    });

    let all_modes = model.all_modes();
    static_table(&mut out, "TASKS", "TaskDesc", &analysis.order, |&t| {
        let task = &model.tasks[t];
        let work = match &task.work {
            Work::Cpu => atom("Work::Cpu"),
            Work::Gpu {
                cubin,
                kernel,
                grid,
                block,
                shared_mem,
                params,
            } => {
                let params = params.iter().map(|p| param_expr(model, p));
                work_item(
                    "Gpu",
                    vec![
                        ("cubin", atom(format!("CubinId({cubin})"))),
                        ("kernel", str_lit(kernel)),
                        ("grid", dim3_expr(*grid)),
                        ("block", dim3_expr(*block)),
                        ("shared_mem_bytes", num(u64::from(*shared_mem))),
                        ("params", E::Array(true, params.collect())),
                    ],
                )
            }
            Work::Dla {
                loadable,
                inputs,
                outputs,
            } => {
                let bindings = |list: &[(String, usize)]| {
                    let items = list.iter().map(|(tensor, b)| {
                        strct(
                            "TensorBinding",
                            vec![("tensor", str_lit(tensor)), ("buffer", buffer_ref(*b))],
                        )
                    });
                    E::Array(true, items.collect())
                };
                work_item(
                    "Dla",
                    vec![
                        ("loadable", atom(format!("LoadableId({loadable})"))),
                        ("inputs", bindings(inputs)),
                        ("outputs", bindings(outputs)),
                    ],
                )
            }
        };
        let waits = E::Array(
            true,
            task.after
                .iter()
                .map(|d| {
                    strct(
                        "Wait",
                        vec![("task", task_ref(d.task)), ("lag", num(u64::from(d.lag)))],
                    )
                })
                .collect(),
        );
        let modes = if task.modes == all_modes {
            atom("ModeMask::ALL")
        } else {
            let shifts: Vec<String> = (0..model.modes.len())
                .filter(|&m| task.in_mode(m))
                .map(|m| format!("1 << {}.0", mode_ref(m)))
                .collect();
            let text = format!("ModeMask({})", shifts.join(" | "));
            // "        modes: " + text + ","
            if 8 + 7 + text.len() < MAX_WIDTH {
                atom(text)
            } else {
                atom(format!("ModeMask({:#b})", task.modes))
            }
        };
        let release = if matches!(task.work, Work::Cpu) {
            task.release
        } else {
            0
        };
        let buffer_refs =
            |list: Vec<usize>| E::Array(true, list.into_iter().map(buffer_ref).collect());
        vec![
            ("name", str_lit(&task.name)),
            ("engine", engine_ref(task.engine)),
            ("work", work),
            ("wcet_ns", num(task.wcet)),
            ("budget_ns", num(task.budget)),
            ("deadline_ns", num(task.deadline)),
            ("release_ns", num(release)),
            ("reads", buffer_refs(task.reads())),
            ("writes", buffer_refs(task.writes())),
            ("waits", waits),
            ("modes", modes),
        ]
    });

    static_table(&mut out, "MODES", "ModeDesc", &model.modes, |m| {
        vec![("name", str_lit(&m.name))]
    });

    static_table(&mut out, "HEALTH", "HealthRule", &model.health, |r| {
        let scope = match r.scope {
            Scope::Task(t) => atom(format!("FaultScope::Task({})", task_ref(t).flat())),
            Scope::Engine(e) => atom(format!("FaultScope::Engine({})", engine_ref(e).flat())),
            Scope::Any => atom("FaultScope::Any"),
        };
        let action = match r.action {
            Action::Log => atom("Action::Log"),
            Action::Skip => atom("Action::Skip"),
            Action::SwitchMode(m) => atom(format!("Action::SwitchMode({})", mode_ref(m))),
            Action::SafeStop => atom("Action::SafeStop"),
        };
        vec![
            ("fault", atom(format!("FaultKind::{}", r.fault.variant()))),
            ("scope", scope),
            ("action", action),
        ]
    });

    static_table(&mut out, "CUBINS", "CubinDesc", &model.cubins, |c| {
        let variants = c.variants.iter().map(|v| {
            let [sha256, image] = artifact_fields(&v.artifact);
            strct(
                "CubinVariant",
                vec![("sm", num(u64::from(v.sm))), sha256, image],
            )
        });
        vec![
            ("name", str_lit(&c.name)),
            ("variants", E::Array(true, variants.collect())),
        ]
    });

    static_table(
        &mut out,
        "LOADABLES",
        "LoadableDesc",
        &model.loadables,
        |l| {
            let specs = |list: &[crate::manifest::Tensor]| {
                let items = list.iter().map(|t| {
                    strct(
                        "TensorSpec",
                        vec![
                            ("name", str_lit(&t.name)),
                            ("size", num(t.size)),
                            ("dims", dims_expr(t.dims)),
                            (
                                "data_type",
                                atom(format!("TensorType::{}", t.data_type.variant())),
                            ),
                        ],
                    )
                });
                E::Array(true, items.collect())
            };
            let [sha256, image] = artifact_fields(&l.artifact);
            vec![
                ("name", str_lit(&l.name)),
                sha256,
                image,
                ("inputs", specs(&l.inputs)),
                ("outputs", specs(&l.outputs)),
            ]
        },
    );

    static_table(
        &mut out,
        "TIMELINE",
        "TimelineEntry",
        analysis
            .timelines
            .iter()
            .flat_map(|tl| tl.rows.iter().map(move |r| (tl.mode, r))),
        |(mode, r)| {
            let deadline = model.tasks[r.task].deadline;
            vec![
                ("mode", atom(mode_ref(mode))),
                ("task", task_ref(r.task)),
                ("latest_start_ns", num(r.start)),
                ("latest_finish_ns", num(r.finish)),
                ("slack_ns", num(deadline.saturating_sub(r.finish))),
            ]
        },
    );
    // No blank line at the end.
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `static NAME: [TY; n] = [TY { fields(row) }, ...];`, after a blank line.
fn static_table<'f, T>(
    out: &mut String,
    name: &str,
    ty: &str,
    rows: impl IntoIterator<Item = T>,
    fields: impl FnMut(T) -> Vec<(&'f str, E)>,
) {
    let items: Vec<E> = rows
        .into_iter()
        .map(fields)
        .map(|fields| strct(ty, fields))
        .collect();
    out.push('\n');
    let decl = format!("static {name}: [{ty}; {}]", items.len());
    item(out, &decl, &E::Array(false, items));
}

/// `Work::Kind(KindWork { fields })`.
fn work_item(kind: &str, fields: Vec<(&str, E)>) -> E {
    E::Call(
        format!("Work::{kind}"),
        Box::new(strct(&format!("{kind}Work"), fields)),
    )
}

fn dim3_expr(dims: [u32; 3]) -> E {
    E::Array(false, dims.iter().map(|&d| num(u64::from(d))).collect())
}

/// The `sha256` and `image` fields of an artifact.
fn artifact_fields(a: &Artifact) -> [(&'static str, E); 2] {
    [
        ("sha256", sha_expr(&a.sha256)),
        ("image", E::Bytes(a.file.display().to_string())),
    ]
}

fn buffer_kind_expr(kind: BufKind) -> E {
    match kind {
        BufKind::Raw { size, align } => strct(
            "BufferKind::Raw",
            vec![("size", num(size)), ("align", num(align))],
        ),
        BufKind::Tensor {
            data_type,
            dims,
            align,
        } => strct(
            "BufferKind::Tensor",
            vec![
                (
                    "data_type",
                    atom(format!("TensorType::{}", data_type.variant())),
                ),
                ("dims", dims_expr(dims)),
                ("align", num(align)),
            ],
        ),
        BufKind::Pinned { size } => strct("BufferKind::Pinned", vec![("size", num(size))]),
    }
}

fn dims_expr(dims: [u32; 4]) -> E {
    E::Array(false, dims.iter().map(|&d| atom(d.to_string())).collect())
}

fn sha_expr(sha: &[u8; 32]) -> E {
    E::Array(
        false,
        sha.iter().map(|b| atom(format!("{b:#04x}"))).collect(),
    )
}

fn param_expr(model: &Model, p: &Param) -> E {
    atom(match *p {
        Param::Buffer(b) => format!(
            "Param::Buffer(buffer::{})",
            const_name(&model.buffers[b].name)
        ),
        Param::U32(v) => format!("Param::U32({})", grouped(u64::from(v))),
        Param::I32(v) => format!("Param::I32({v})"),
        Param::U64(v) => format!("Param::U64({})", grouped(v)),
        Param::F32(v) => format!("Param::F32({v:?})"),
    })
}
