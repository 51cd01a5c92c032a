//! Typed binding of CPU task bodies, generated from the schedule (after RTIC's per-task
//! `Context`).
//!
//! For each CPU task the schedule generator emits
//! * a context struct (`cx::Sensor<'a>`) with one field per buffer the task declares: a
//!   read-only [`Buf`] for `reads`, a writable [`BufMut`] for `writes`, nothing else, so an
//!   undeclared access does not compile;
//! * a body trait (`body::Sensor`) whose `run` takes that context, and the glue that lets the
//!   executive call it ([`CpuTask`] for `&'static mut dyn body::Sensor`);
//! * one `Bodies` struct with a field per CPU task ([`BodySet`]), so a missing body does not
//!   compile.
//!
//! The executive still checks every access at run time (the context is built through
//! [`CpuCtx`], which admits only declared buffers whose engine work has reached its fence):
//! the types make mistakes compile errors, the checks make forged contexts harmless.
//!
//! ```ignore
//! // src/main.rs of an application; `schedule` is the generated module.
//! use schedule::{Bodies, body, cx};
//! struct Sensor;
//! impl body::Sensor for Sensor {
//!     fn run(&mut self, mut cx: cx::Sensor<'_>) -> Result<(), TaskFault> {
//!         cx.camera.bytes().fill(0); // `camera` is declared under `writes`
//!         Ok(())
//!     }
//! }
//! ```
//!
//! [`Buf`]: crate::engine::cpu::Buf
//! [`BufMut`]: crate::engine::cpu::BufMut

use crate::engine::cpu::CpuCtx;
use crate::error::Result;
use crate::exec::worker::CpuTask;
use crate::table::{Schedule, TaskId};

/// A per-task context: the typed view of one run of one CPU task. Implemented by generated
/// code.
pub trait TaskContext<'a>: Sized {
    /// The task it belongs to.
    const TASK: TaskId;
    /// Admit every buffer the task declares and build the context.
    fn admit(ctx: &CpuCtx<'a>) -> Result<Self>;
}

/// The CPU task bodies of one schedule. Implemented by the generated `Bodies` struct (one
/// field per CPU task).
pub trait BodySet: 'static {
    /// The schedule the bodies were generated for.
    fn schedule(&self) -> &'static Schedule;
    /// Hand every body to `bind`, with its task.
    fn bind_each(&'static mut self, bind: &mut dyn FnMut(TaskId, &'static mut dyn CpuTask));
}
