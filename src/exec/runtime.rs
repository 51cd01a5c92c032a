//! Init → seal: build every object the schedule needs, warm every work item up, then hand
//! out the [`Executive`], whose API cannot allocate, load, register or reconcile anything.
//!
//! ```no_run
//! use orin_exec::exec::{Builder, Config, Storage};
//! use static_cell::StaticCell;
//! # fn schedule() -> &'static orin_exec::table::Schedule { unimplemented!() }
//! static STORAGE: StaticCell<Storage> = StaticCell::new();
//! let storage = STORAGE.init_with(Storage::new);
//! // `schedule()`: the `SCHEDULE` static that orin-exec-schedule generated from the TOML.
//! let runtime = Builder::new(schedule()).config(Config::default()).init(storage)?;
//! let mut exec = runtime.seal()?;
//! for _ in 0..300 {
//!     exec.step()?;
//! }
//! exec.shutdown()?;
//! # Ok::<(), orin_exec::Error>(())
//! ```

use crate::engine::cpu::BufferView;
use crate::engine::gpu::Gpu;
use crate::engine::os::{self, RealtimeStatus};
use crate::engine::platform::Clock;
use crate::error::{Error, Result};
use crate::exec::bind::BodySet;
use crate::exec::board::Board;
use crate::exec::executive::Executive;
use crate::exec::init::{Init, check_table, spawn_workers};
use crate::exec::state::{State, Submit};
use crate::exec::worker::{Causes, CpuTask, Shared, Trace, VirtualCosts};
use crate::limits::*;
use crate::mem::AccessLedger;
use crate::table::{BufferId, EngineKind, Schedule, TaskId};

/// Default for [`Config::virtual_wait_cap_us`].
pub const VIRTUAL_WAIT_CAP_US: u64 = 2_000_000;

/// Base-address alignment the DLA needs (cuDLA: imported addresses must be 32-byte aligned).
pub const DLA_ALIGN: u64 = 32;

/// Init-time waits (warm-up) give up after this long.
pub(crate) const WARMUP_TIMEOUT_US: u64 = 10_000_000;

/// Runtime options.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Run on the SIL virtual clock (`sil` only): deterministic, as fast as the CPU allows.
    pub virtual_clock: bool,
    /// `SCHED_FIFO` priority for the executive and the CPU workers (`None`: leave as is).
    pub realtime_priority: Option<i32>,
    /// CUDA device ordinal.
    pub gpu_ordinal: i32,
    /// Record GPU start/end times with timer-stamp kernels around each launch.
    pub gpu_timestamps: bool,
    /// Virtual clock only: how long a wait may take in real time before it counts as a
    /// timeout (a hung SIL engine never signals; everything else completes in microseconds).
    pub virtual_wait_cap_us: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            virtual_clock: false,
            realtime_priority: Some(10),
            gpu_ordinal: 0,
            gpu_timestamps: true,
            virtual_wait_cap_us: VIRTUAL_WAIT_CAP_US,
        }
    }
}

/// What a safe stop reports to the user's safe-state function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SafeStop {
    /// The frame in which the fault was detected.
    pub frame: u64,
    /// The task whose fault triggered it.
    pub task: &'static str,
    /// The fault.
    pub fault: crate::table::FaultKind,
}

/// Static storage for one runtime: put it in a `static` (e.g. a `StaticCell`).
pub struct Storage {
    pub(crate) board: Board,
    pub(crate) trace: Trace,
    pub(crate) ledger: AccessLedger,
    pub(crate) views: [[BufferView; MAX_COPIES]; MAX_BUFFERS],
    pub(crate) virtual_costs: VirtualCosts,
    pub(crate) causes: Causes,
    pub(crate) state: State,
}

impl Default for Storage {
    fn default() -> Self {
        Self::new()
    }
}

impl Storage {
    /// Empty storage.
    pub const fn new() -> Self {
        Storage {
            board: Board::new(),
            trace: Trace::new(),
            ledger: AccessLedger::empty(),
            views: [[BufferView::NONE; MAX_COPIES]; MAX_BUFFERS],
            virtual_costs: [0; MAX_TASKS],
            causes: Causes::new(),
            state: State::new(),
        }
    }
}

/// Collects the application's CPU task bodies and options, then builds the runtime.
pub struct Builder {
    schedule: &'static Schedule,
    config: Config,
    bodies: [Option<&'static mut dyn CpuTask>; MAX_TASKS],
    virtual_costs: [Option<u64>; MAX_TASKS],
    safe_state: Option<fn(&SafeStop)>,
    error: Option<Error>,
}

impl Builder {
    /// Start building a runtime for `schedule`.
    pub fn new(schedule: &'static Schedule) -> Self {
        Builder {
            schedule,
            config: Config::default(),
            bodies: [const { None }; MAX_TASKS],
            virtual_costs: [None; MAX_TASKS],
            safe_state: None,
            error: None,
        }
    }

    /// Set the options.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The index of CPU task `task`, or the error (kept for `init`) if it is none.
    fn cpu_task(&mut self, task: TaskId) -> Option<usize> {
        let s = self.schedule;
        let is_cpu = s.tasks.get(task.0 as usize).is_some_and(|t| {
            s.engines
                .get(t.engine.0 as usize)
                .is_some_and(|e| e.kind == EngineKind::Cpu)
        });
        if !is_cpu {
            self.error
                .get_or_insert(Error::NotACpuTask { task: task.0 });
            return None;
        }
        Some(task.0 as usize)
    }

    /// Bind every CPU task body at once: the generated `Bodies` struct of this schedule (one
    /// field per CPU task, so a missing body is a compile error).
    pub fn bodies<B: BodySet>(mut self, bodies: &'static mut B) -> Self {
        if !core::ptr::eq(bodies.schedule(), self.schedule) {
            self.error.get_or_insert(Error::BodiesOfAnotherSchedule {
                schedule: bodies.schedule().name,
            });
            return self;
        }
        let mut slots = self.bodies;
        bodies.bind_each(&mut |task, body| {
            if let Some(slot) = slots.get_mut(task.0 as usize) {
                *slot = Some(body);
            }
        });
        self.bodies = slots;
        self
    }

    /// Bind the body of one CPU task (tables written by hand; generated schedules use
    /// [`Builder::bodies`]).
    pub fn bind(mut self, task: TaskId, body: &'static mut dyn CpuTask) -> Self {
        if let Some(i) = self.cpu_task(task) {
            self.bodies[i] = Some(body);
        }
        self
    }

    /// Virtual clock only: how long CPU task `task` takes (default: half its WCET).
    pub fn virtual_cost(mut self, task: TaskId, ns: u64) -> Self {
        if let Some(i) = self.cpu_task(task) {
            self.virtual_costs[i] = Some(ns);
        }
        self
    }

    /// The function the health monitor calls on a safe stop.
    pub fn safe_state(mut self, f: fn(&SafeStop)) -> Self {
        self.safe_state = Some(f);
        self
    }

    /// Create every object, warm every work item up and start the CPU workers.
    pub fn init(self, storage: &'static mut Storage) -> Result<Initialized> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let s = self.schedule;
        check_table(s)?;
        let init_start = os::monotonic_ns();
        let Storage {
            board,
            trace,
            ledger,
            views,
            virtual_costs,
            causes,
            state,
        } = storage;
        *ledger = AccessLedger::new(s)?;
        for (i, t) in s.tasks.iter().enumerate() {
            virtual_costs[i] = self.virtual_costs[i].unwrap_or(t.wcet_ns / 2);
        }
        let realtime = self.config.realtime_priority.map(os::request_realtime);
        // The clock starts first: warm-up timestamps and the engines' "free at" times are on it.
        let clock = Clock::start(self.config.virtual_clock, 1_000_000_000)?;
        let mut init = Init {
            s,
            state,
            config: self.config,
        };
        let result = init.build(views);
        if let Err(e) = result {
            let _ = init.release_all();
            clock.stop();
            return Err(e);
        }
        let shared = Shared {
            virtual_wait_cap_us: self.config.virtual_wait_cap_us,
            schedule: s,
            board,
            trace,
            ledger,
            views,
            clock,
            virtual_costs,
            causes,
        };
        let state = init.state;
        if let Err(e) = spawn_workers(s, state, shared, self.bodies, self.config) {
            board.request_stop();
            let _ = crate::exec::executive::release_state(state, board);
            clock.stop();
            return Err(e);
        }
        Ok(Initialized {
            shared,
            state,
            clock,
            realtime,
            safe_state: self.safe_state,
            init_ns: os::monotonic_ns() - init_start,
        })
    }
}

/// The runtime after init, before seal: still allowed to touch buffers from the outside.
pub struct Initialized {
    shared: Shared,
    state: &'static mut State,
    clock: Clock,
    realtime: Option<RealtimeStatus>,
    safe_state: Option<fn(&SafeStop)>,
    init_ns: u64,
}

impl Initialized {
    /// Copy `bytes` into copy `copy` of a CPU-visible buffer (test inputs, constants).
    pub fn write_buffer(&mut self, buffer: BufferId, copy: usize, bytes: &[u8]) -> Result<usize> {
        let view = self.view(buffer, copy)?;
        Ok(view.fill_from(bytes))
    }

    /// Copy copy `copy` of a CPU-visible buffer out.
    pub fn read_buffer(&self, buffer: BufferId, copy: usize, out: &mut [u8]) -> Result<usize> {
        let view = self.view(buffer, copy)?;
        Ok(view.copy_to(out))
    }

    fn view(&self, buffer: BufferId, copy: usize) -> Result<BufferView> {
        let name = self
            .shared
            .schedule
            .buffers
            .get(buffer.0 as usize)
            .map_or("?", |b| b.name);
        let view = self
            .shared
            .views
            .get(buffer.0 as usize)
            .and_then(|c| c.get(copy))
            .copied()
            .filter(BufferView::is_mapped)
            .ok_or(Error::BufferNotDeclared {
                task: "(init)",
                buffer: name,
            })?;
        Ok(view)
    }

    /// SIL only: set the execution-time model of the DLA device(s) of engine `engine`.
    #[cfg(any(platform = "sil", platform = "rig"))]
    pub fn set_dla_timing(
        &self,
        engine: crate::table::EngineId,
        model: &crate::engine::platform::dla_sil::TimingModel,
    ) -> Result<()> {
        let s = self.shared.schedule;
        let core = match s.engines.get(engine.0 as usize) {
            Some(e) if e.kind == EngineKind::Dla => e.instance,
            _ => return Err(Error::NotADlaEngine { engine: engine.0 }),
        };
        for d in self.state.dlas.iter().filter(|d| d.core == core) {
            d.device.set_timing_model(model)?;
        }
        Ok(())
    }

    /// How long init took.
    pub fn init_ns(&self) -> u64 {
        self.init_ns
    }

    /// The GPU's SM, if the schedule uses a GPU.
    pub fn gpu_sm(&self) -> Option<u32> {
        self.state.gpu.as_ref().map(Gpu::sm)
    }

    /// Seal: from now on nothing is allocated, loaded, registered or reconciled. Call
    /// [`Executive::step`] from the thread that sealed (it holds the GPU context).
    pub fn seal(self) -> Result<Executive> {
        if let Some(gpu) = self.state.gpu.as_ref() {
            gpu.make_current()?;
        }
        for t in self.state.tasks.iter_mut() {
            // Warm-up left one signal on every accelerator semaphore.
            let base = match t.submit {
                Submit::Cpu => 0,
                _ => 1,
            };
            t.ledger.set_base(base);
        }
        // Frame 0 is released one period from now: warm-up work has drained by then.
        let t0 = self.clock.now_ns() + self.shared.schedule.period_ns;
        Ok(Executive::new(
            self.shared,
            self.state,
            self.clock,
            t0,
            self.realtime,
            self.safe_state,
        ))
    }
}
