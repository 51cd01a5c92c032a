//! Generated typed binding of the CPU task bodies (see `orin_exec::exec::bind`): per CPU task a
//! context struct exposing only its declared buffers, a body trait, and the `Bodies` struct
//! with one field per CPU task.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::model::{Kind, Model, Work, const_name};

/// `sensor_fallback` -> `SensorFallback`.
fn camel(name: &str) -> String {
    name.split(['_', '-'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A field or module identifier for a schedule name (raw when it is a keyword).
fn ident(name: &str) -> Ident {
    let name = name.replace('-', "_");
    if syn::parse_str::<Ident>(&name).is_ok() {
        Ident::new(&name, Span::call_site())
    } else {
        Ident::new_raw(&name, Span::call_site())
    }
}

/// The context field of a buffer: its name, unless it collides with `frame`/`inputs_valid`.
fn buffer_field(name: &str) -> Ident {
    match name {
        "frame" | "inputs_valid" => format_ident!("{}_buffer", name),
        _ => ident(name),
    }
}

/// Frames of trace records the ring holds while its drainer is late.
const TRACE_FRAMES: usize = 64;

/// Trace records one frame can produce: its release, two per CPU task (start, end) and three
/// per accelerator task (submit, start, end), and room for a few faults and reactions.
fn trace_records_per_frame(model: &Model) -> usize {
    let per_task: usize = model
        .tasks
        .iter()
        .map(|t| match model.engines[t.engine].kind {
            Kind::Cpu => 2,
            _ => 3,
        })
        .sum();
    1 + per_task + 4
}

/// The runtime's storage sized to the schedule: `rt::exec::Storage<tasks, buffers, copies,
/// CPU workers, trace records>`.
fn storage(model: &Model, rt: &syn::Path) -> TokenStream {
    // The per-task tables hold the GPU streams too (one per GPU engine, used or not).
    let gpu_engines = model.engines.iter().filter(|e| e.kind == Kind::Gpu).count();
    let tasks = model.tasks.len().max(gpu_engines);
    let buffers = model.buffers.len();
    let copies: usize = model.buffers.iter().map(|b| b.multiplicity as usize).sum();
    let workers = model.engines.iter().filter(|e| e.kind == Kind::Cpu).count();
    let per_frame = trace_records_per_frame(model);
    let trace = (per_frame * TRACE_FRAMES).next_power_of_two().max(256);
    let doc = format!(
        " The runtime's static storage, sized to this schedule: {tasks} tasks, {buffers} \
         buffers with {copies} copies in all, {workers} CPU workers, and a trace ring of \
         {trace} records ({TRACE_FRAMES} frames of at most {per_frame} records)."
    );
    let [tasks, buffers, copies, workers, trace] =
        [tasks, buffers, copies, workers, trace].map(proc_macro2::Literal::usize_unsuffixed);
    quote! {
        #[doc = #doc]
        pub type Storage = #rt::exec::Storage<#tasks, #buffers, #copies, #workers, #trace>;
    }
}

/// The runtime items: the storage type and, when the schedule has CPU tasks, their typed
/// binding. `rt` is the runtime crate's path (e.g. `::orin_exec`).
pub(crate) fn render(model: &Model, order: &[usize], rt: &syn::Path) -> Vec<TokenStream> {
    let mut items = vec![storage(model, rt)];
    items.extend(binding(model, order, rt));
    items
}

fn binding(model: &Model, order: &[usize], rt: &syn::Path) -> Vec<TokenStream> {
    let cpu: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&t| {
            matches!(model.tasks[t].work, Work::Cpu)
                && model.engines[model.tasks[t].engine].kind == Kind::Cpu
        })
        .collect();
    if cpu.is_empty() {
        return Vec::new();
    }
    let mut contexts = Vec::new();
    let mut bodies = Vec::new();
    let mut fields = Vec::new();
    let mut binds = Vec::new();
    for &t in &cpu {
        let task = &model.tasks[t];
        let ty = format_ident!("{}", camel(&task.name));
        let task_const = format_ident!("{}", const_name(&task.name));
        let field = ident(&task.name);
        let engine = &model.engines[task.engine].name;
        // Each buffer once, in declaration order; a write also allows reading.
        let mut accesses: Vec<(usize, bool)> = Vec::new();
        for a in &task.accesses {
            match accesses.iter_mut().find(|(b, _)| *b == a.buffer) {
                Some(entry) => entry.1 |= a.write,
                None => accesses.push((a.buffer, a.write)),
            }
        }
        let mut buffer_fields = Vec::new();
        let mut admits = Vec::new();
        for &(b, write) in &accesses {
            let name = &model.buffers[b].name;
            let f = buffer_field(name);
            let id = format_ident!("{}", const_name(name));
            let (doc, ty, admit) = if write {
                (
                    format!(" `{name}` (declared under `writes`)."),
                    quote!(#rt::exec::BufMut<'a>),
                    quote!(ctx.buf_mut(super::buffer::#id)?),
                )
            } else {
                (
                    format!(" `{name}` (declared under `reads`: read-only)."),
                    quote!(#rt::exec::Buf<'a>),
                    quote!(ctx.buf(super::buffer::#id)?),
                )
            };
            buffer_fields.push(quote! { #[doc = #doc] pub #f: #ty, });
            admits.push(quote! { #f: #admit, });
        }
        let cx_doc = format!(
            " What CPU task `{}` (on `{engine}`) sees in one run: the frame and its declared \
             buffers, nothing else.",
            task.name
        );
        contexts.push(quote! {
            #[doc = #cx_doc]
            pub struct #ty<'a> {
                /// The major frame being run.
                pub frame: u64,
                /// False when a dependency timed out: the inputs may be stale.
                pub inputs_valid: bool,
                #(#buffer_fields)*
                _run: ::core::marker::PhantomData<&'a mut ()>,
            }

            impl<'a> #rt::exec::TaskContext<'a> for #ty<'a> {
                const TASK: #rt::table::TaskId = super::task::#task_const;

                fn admit(ctx: &#rt::engine::cpu::CpuCtx<'a>) -> #rt::Result<Self> {
                    Ok(#ty {
                        frame: ctx.frame(),
                        inputs_valid: ctx.inputs_valid(),
                        #(#admits)*
                        _run: ::core::marker::PhantomData,
                    })
                }
            }
        });
        let body_doc = format!(" The body of CPU task `{}`.", task.name);
        bodies.push(quote! {
            #[doc = #body_doc]
            pub trait #ty: Send {
                /// Run once for the frame in `cx`.
                fn run(&mut self, cx: super::cx::#ty<'_>) -> Result<(), #rt::exec::TaskFault>;
            }

            impl #rt::exec::CpuTask for &'static mut dyn #ty {
                fn run(
                    &mut self,
                    ctx: &#rt::engine::cpu::CpuCtx<'_>,
                ) -> Result<(), #rt::exec::TaskFault> {
                    let cx = <super::cx::#ty<'_> as #rt::exec::TaskContext<'_>>::admit(ctx)?;
                    (**self).run(cx)
                }
            }
        });
        let field_doc = format!(" The body of `{}`.", task.name);
        fields.push(quote! { #[doc = #field_doc] pub #field: &'static mut dyn body::#ty, });
        binds.push(quote! { bind(task::#task_const, &mut self.#field); });
    }
    vec![
        quote! {
            /// Per CPU task, the context of one run: only the buffers the task declares,
            /// read-only for `reads`, writable for `writes`.
            pub mod cx {
                #(#contexts)*
            }
        },
        quote! {
            /// Per CPU task, the trait its body implements.
            pub mod body {
                #(#bodies)*
            }
        },
        quote! {
            /// The bodies of every CPU task: one field per task, so a missing body does not
            /// compile. Bind with `Builder::bodies`.
            pub struct Bodies {
                #(#fields)*
            }
        },
        quote! {
            impl #rt::exec::BodySet for Bodies {
            fn schedule(&self) -> &'static #rt::table::Schedule {
                &SCHEDULE
            }

            fn bind_each(
                &'static mut self,
                bind: &mut dyn FnMut(#rt::table::TaskId, &'static mut dyn #rt::exec::CpuTask),
            ) {
                #(#binds)*
            }
        }
        },
    ]
}

/// Covers: REQ-API-002
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(camel("sensor_fallback"), "SensorFallback");
        assert_eq!(camel("a-b_c"), "ABC");
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(buffer_field("frame").to_string(), "frame_buffer");
    }
}
