//! The orin-exec executive core on a Cortex-M3 (QEMU `lm3s6965evb`): the CPU-only schedule of
//! `schedule.toml` for at most [`FRAMES`] frames on a virtual clock, logged with defmt over
//! semihosting, then a semihosting exit.
//!
//! The clock is virtual (each task body "takes" a fixed time, the platform's sleeps move the
//! clock), so the log is the same on every run and every host: CI compares it with
//! `expected.txt` (ci/baremetal.sh). Frame 4's `filter` takes 4 ms longer than usual: a
//! deadline miss, and the degraded mode from frame 5 on; `hold` rejects a sample above 90
//! (frame 8): a task error whose reaction is a safe stop.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

use cortex_m_rt::entry;
use cortex_m_semihosting::debug::{self, EXIT_FAILURE, EXIT_SUCCESS};
use defmt_semihosting as _;
use orin_exec::exec::cycle::{
    Completion, CpuCall, CpuDispatch, Cycle, Deps, Event, Outcome, Platform, SafeStop,
};
use orin_exec::exec::health::FaultCounts;
use orin_exec::table::{FaultKind, TaskId};

#[allow(missing_docs, dead_code, unused_imports)]
mod schedule {
    include!(concat!(env!("OUT_DIR"), "/schedule.rs"));
}
use schedule::{SCHEDULE, task};

/// The most frames the image runs.
const FRAMES: u64 = 12;

/// The application's state: what the task bodies compute.
#[derive(Default)]
struct Loop {
    sample: u32,
    filtered: u32,
    command: u32,
}

/// The bare-metal platform: a virtual clock and the task bodies, run on the calling thread.
struct Board {
    now_ns: u64,
    app: Loop,
}

impl Board {
    /// Run `task`'s body for `frame`; the virtual time it takes.
    fn run(&mut self, task: TaskId, frame: u64) -> (Outcome, u64) {
        let app = &mut self.app;
        match task {
            task::SAMPLE => {
                app.sample = (frame as u32 * 37) % 100;
                (Outcome::Ok, 400_000)
            }
            task::FILTER => {
                app.filtered = (3 * app.filtered + app.sample) / 4;
                let slow = if frame == 4 { 4_000_000 } else { 0 };
                (Outcome::Ok, 1_500_000 + slow)
            }
            task::COMMAND => {
                app.command = 2 * app.filtered;
                (Outcome::Ok, 300_000)
            }
            task::HOLD if app.sample > 90 => (Outcome::TaskFailed(1), 200_000),
            _ => (Outcome::Ok, 200_000),
        }
    }
}

fn name(task: TaskId) -> &'static str {
    SCHEDULE.task(task).name
}

impl Platform for Board {
    fn now_ns(&mut self) -> u64 {
        self.now_ns
    }

    fn sleep_until(&mut self, t_ns: u64) {
        self.now_ns = self.now_ns.max(t_ns);
    }

    fn dispatch_cpu(&mut self, call: CpuCall) -> CpuDispatch {
        if !call.run {
            return CpuDispatch::Ran(Outcome::Ok);
        }
        let (outcome, cost) = self.run(call.task, call.frame);
        self.now_ns += cost;
        CpuDispatch::Ran(outcome)
    }

    fn signal(&mut self, _task: TaskId, _frame: u64, _at_ns: u64) {
        // Nothing waits for a CPU task but later CPU tasks, which the core orders itself.
    }

    fn submit(&mut self, task: TaskId, _: u64, _: Deps<'_>, _: bool) -> Result<(), i32> {
        defmt::error!("no accelerator on this board: {=str}", name(task));
        Err(-1)
    }

    fn wait(&mut self, _task: TaskId, _frame: u64, limit_ns: u64) -> orin_exec::Result<Completion> {
        self.sleep_until(limit_ns);
        Ok(Completion::Pending)
    }

    fn safe_state(&mut self, stop: &SafeStop) {
        defmt::warn!(
            "safe state: frame {=u64}, {=str}: {}; last command {=u32}",
            stop.frame,
            stop.task,
            stop.fault,
            self.app.command
        );
    }

    fn event(&mut self, event: &Event) {
        let us = self.now_ns / 1_000;
        match *event {
            Event::Release { frame, error_ns } => {
                defmt::info!(
                    "{=u64} us: frame {=u64} released (error {=i64} ns)",
                    us,
                    frame,
                    error_ns
                )
            }
            Event::MinorFrame { frame, index } => {
                defmt::info!(
                    "{=u64} us: frame {=u64} minor frame {=u8}",
                    us,
                    frame,
                    index
                )
            }
            Event::ModeSwitch { frame, mode } => {
                let mode = SCHEDULE.modes[mode.0 as usize].name;
                defmt::info!("{=u64} us: frame {=u64} mode {=str}", us, frame, mode)
            }
            Event::Submit { frame, task } => {
                defmt::info!(
                    "{=u64} us: frame {=u64} submit {=str}",
                    us,
                    frame,
                    name(task)
                )
            }
            Event::TaskEnd {
                frame,
                task,
                run,
                skipped,
            } => defmt::info!(
                "{=u64} us: frame {=u64} {=str} {=u64}..{=u64} us skipped={=bool} {}",
                us,
                frame,
                name(task),
                run.start_ns / 1_000,
                run.end_ns / 1_000,
                skipped,
                run.outcome
            ),
            Event::Fault {
                frame,
                task,
                kind,
                action,
                ..
            } => defmt::warn!(
                "{=u64} us: frame {=u64} fault {} of {=str} -> {}",
                us,
                frame,
                kind,
                name(task),
                action
            ),
        }
    }
}

fn run() -> Result<(), orin_exec::Error> {
    let mut counts: [FaultCounts; 4] = [[0; FaultKind::ALL.len()]; 4];
    let mut cycle = Cycle::new(&SCHEDULE, &mut counts, 0)?;
    let mut board = Board {
        now_ns: 0,
        app: Loop::default(),
    };
    while cycle.next_frame() < FRAMES && !cycle.stopped() {
        let r = cycle.step(&mut board)?;
        defmt::info!(
            "frame {=u64} done: {=u32} faults, stopped={=bool}",
            r.frame,
            r.faults,
            r.stopped
        );
    }
    defmt::info!(
        "{=u64} frames, {=u64} faults, last command {=u32}",
        cycle.next_frame(),
        cycle.health().total(),
        board.app.command
    );
    Ok(())
}

#[entry]
fn main() -> ! {
    let code = match run() {
        Ok(()) => EXIT_SUCCESS,
        Err(e) => {
            defmt::error!("the core failed: {}", e);
            EXIT_FAILURE
        }
    };
    debug::exit(code);
    // Only reached without a debugger attached.
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    defmt::error!("panic");
    debug::exit(EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
