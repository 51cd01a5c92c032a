//! Shutdown drains the accelerator work queued behind CPU tasks that will not run: a worker
//! that fell behind (its `produce` stalls for four periods) stops at a frame boundary with
//! released frames it never got to, and the frames planned ahead were never released. The
//! GPU tasks of those frames wait on `produce`'s semaphore; `shutdown` signals it up to the
//! last planned value, so the streams go idle and every engine object is released.
//!
//! Covers: REQ-RT-017
#![cfg(feature = "sil")]

use std::time::Duration;

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{Builder, Config, CpuTask, Storage, TaskFault};

mod user_kernel;
use user_kernel::chain::{self, IN, PRODUCE, VERIFY};
use user_kernel::{KERNEL, Produce, SCALE_INDEX, user_cubin};

/// The frame whose `produce` stalls.
const STALL_FRAME: u64 = 3;

/// `Produce`, but frame `STALL_FRAME` takes 40 ms (four periods).
struct Stalling(Produce);

impl CpuTask for Stalling {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        if ctx.frame() == STALL_FRAME {
            std::thread::sleep(Duration::from_millis(40));
        }
        self.0.run(ctx)
    }
}

#[test]
fn shutdown_drains_the_work_behind_a_worker_that_fell_behind() {
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    let schedule = chain::schedule(chain::Options {
        name: "shutdown",
        ..Default::default()
    });
    let mut exec = Builder::new(schedule, Box::leak(Box::new(Storage::<5, 4, 4, 1>::new())))
        .config(Config {
            virtual_clock: false,
            realtime_priority: None,
            ..Config::default()
        })
        .bind(PRODUCE, Box::leak(Box::new(Stalling(Produce(IN)))))
        .bind(VERIFY, Box::leak(Box::new(chain::Idle)))
        .init()
        .expect("init")
        .seal()
        .expect("seal");
    // Frame STALL_FRAME + 1 is released while its worker still runs STALL_FRAME's
    // `produce`; STALL_FRAME + 2 is planned ahead.
    for _ in 0..=STALL_FRAME + 1 {
        let _ = exec.step().expect("step");
    }
    assert!(
        exec.health().total() > 0,
        "the stall is seen as faults (the worker fell behind)"
    );
    exec.shutdown()
        .expect("shutdown drains the queued GPU work and releases everything");
}
