//! The AEB perception slice as a library: its schedule (generated from `schedule.toml` by
//! `build.rs`), its CPU task bodies, the synthetic scenario, and the evidence its runners
//! produce. The demo binary (`src/main.rs`) and the HIL scenario (`hil-tests`) both run it
//! through this crate, so there is one copy of the application.

pub mod app;
pub mod scenario;
pub mod tasks;

/// The schedule tables generated from `schedule.toml`.
#[allow(missing_docs)]
pub mod schedule {
    include!(concat!(env!("OUT_DIR"), "/schedule.rs"));
}
