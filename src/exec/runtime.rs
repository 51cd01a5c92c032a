//! Init → seal: build every object the schedule needs, warm every work item up, then hand
//! out the [`Executive`], whose API cannot allocate, load, register or reconcile anything.
//!
//! ```no_run
//! use orin_exec::exec::{Builder, Config};
//! use static_cell::StaticCell;
//! # fn schedule() -> &'static orin_exec::table::Schedule { unimplemented!() }
//! // The generator emits `Storage` for a schedule, sized to it; this one has room for
//! // 4 tasks, 3 buffers with 4 copies in all, and 1 CPU worker.
//! type Storage = orin_exec::exec::Storage<4, 3, 4, 1>;
//! static STORAGE: StaticCell<Storage> = StaticCell::new();
//! let storage = STORAGE.init_with(Storage::new);
//! // `schedule()`: the `SCHEDULE` static that orin-exec-schedule generated from the TOML.
//! let runtime = Builder::new(schedule(), storage).config(Config::default()).init()?;
//! let mut exec = runtime.seal()?;
//! for _ in 0..300 {
//!     exec.step()?;
//! }
//! exec.shutdown()?;
//! # Ok::<(), orin_exec::Error>(())
//! ```

use crate::engine::cpu::BufferView;
use crate::engine::gpu::Gpu;
use crate::engine::gpu::{GpuModule, GpuSemaphore};
use crate::engine::nvsci::SyncObj;
use crate::engine::os::{self, RealtimeStatus, ThreadGrant};
use crate::engine::platform::{Clock, ClockLease};
use crate::error::{Error, Result, Table};
use crate::exec::bind::BodySet;
use crate::exec::board::{Board, TaskRow};
use crate::exec::executive::{Executive, Sealed, TaskCounters};
use crate::exec::health::FaultCounts;
use crate::exec::init::{Init, Workers, check_table, spawn_workers, thread_request};
use crate::exec::state::{
    BufferCopy, DlaEntry, PvaExecEntry, PvaStreamEntry, State, StreamEntry, Submit, TaskRt,
    WorkerHandle, copy_index, copy_offsets,
};
use crate::exec::worker::{CauseSlot, CpuTask, Shared, TRACE_CAPACITY, WorkerTask};
use crate::limits::MAX_TASKS;
use crate::mem::{AccessLedger, BufferUsers};
use crate::table::FaultKind;
use crate::table::{BufferId, EngineKind, Schedule, TaskId, Thread};
use crate::trace::{TraceLog, TraceRing};
use heapless::vec::VecView;

/// Default for [`Config::virtual_wait_cap_us`].
pub const VIRTUAL_WAIT_CAP_US: u64 = 2_000_000;

/// Base-address alignment the DLA needs (cuDLA: imported addresses must be 32-byte aligned);
/// the validator and `Schedule::check` refuse less (`Limit::DlaAlign`).
pub use crate::table::DLA_ALIGN;

/// Init-time waits (warm-up) give up after this long.
pub(crate) const WARMUP_TIMEOUT_US: u64 = 10_000_000;

/// Runtime options.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Run on the SIL virtual clock (`sil` only): deterministic, as fast as the CPU allows.
    /// The SIL keeps one clock per process, so such a runtime must be the only one of its
    /// process while it runs: init refuses it beside another runtime, and another beside it
    /// (`PlatformFact::ClockInUse`).
    pub virtual_clock: bool,
    /// `SCHED_FIFO` priority for the executive and the CPU workers the schedule gives no
    /// priority (`None`: leave their policy as it is). A schedule's `priority` wins.
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

/// What a safe stop reports to the user's safe-state function (defined by the core).
pub use crate::exec::cycle::SafeStop;

/// Static storage for one runtime, sized to its schedule: put it in a `static` (e.g. a
/// `StaticCell`). The schedule generator emits the type for a schedule
/// (`schedule::Storage`); the parameters are the schedule's tasks (at most 64: task sets are
/// 64-bit masks), buffers, buffer copies (the sum of the multiplicities), CPU workers, and the
/// trace ring's capacity in records. Init checks that the schedule fits and says which table
/// does not.
pub struct Storage<
    const TASKS: usize,
    const BUFFERS: usize,
    const COPIES: usize,
    const WORKERS: usize,
    const TRACE: usize = TRACE_CAPACITY,
> {
    board: Board<'static>,
    rows: [TaskRow; TASKS],
    trace: TraceRing<TRACE>,
    before: [u64; TASKS],
    users: [BufferUsers; BUFFERS],
    offsets: [u16; BUFFERS],
    views: [BufferView; COPIES],
    virtual_costs: [u64; TASKS],
    causes: [CauseSlot; TASKS],
    counters: [TaskCounters; TASKS],
    faults: [FaultCounts; TASKS],
    bodies: [Option<&'static mut dyn CpuTask>; TASKS],
    tasks: heapless::Vec<TaskRt, TASKS>,
    sems: heapless::Vec<SyncObj, TASKS>,
    gpu_sems: heapless::Vec<Option<GpuSemaphore>, TASKS>,
    copies: heapless::Vec<BufferCopy, COPIES>,
    // A DLA device handle, a stream and a module each serve at least one task.
    dlas: heapless::Vec<DlaEntry, TASKS>,
    // A PVA stream and a PVA executable each serve at least one task.
    pva_streams: heapless::Vec<PvaStreamEntry, TASKS>,
    pva_execs: heapless::Vec<PvaExecEntry, TASKS>,
    pva_tasks: heapless::Vec<crate::engine::pva::PvaTask, TASKS>,
    streams: heapless::Vec<StreamEntry, TASKS>,
    modules: heapless::Vec<GpuModule, TASKS>,
    workers: heapless::Vec<WorkerHandle, WORKERS>,
    // Per worker: its tasks, and its handles of the semaphores it uses, indexed by task.
    worker_tasks: [[Option<WorkerTask>; TASKS]; WORKERS],
    worker_sems: [[Option<SyncObj>; TASKS]; WORKERS],
}

impl<
    const TASKS: usize,
    const BUFFERS: usize,
    const COPIES: usize,
    const WORKERS: usize,
    const TRACE: usize,
> Default for Storage<TASKS, BUFFERS, COPIES, WORKERS, TRACE>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
    const TASKS: usize,
    const BUFFERS: usize,
    const COPIES: usize,
    const WORKERS: usize,
    const TRACE: usize,
> Storage<TASKS, BUFFERS, COPIES, WORKERS, TRACE>
{
    /// Empty storage (usable in a `static` initialiser).
    pub const fn new() -> Self {
        Storage {
            board: Board::new(&[]),
            rows: [const { TaskRow::new() }; TASKS],
            trace: TraceRing::new(),
            before: [0; TASKS],
            users: [BufferUsers::NONE; BUFFERS],
            offsets: [0; BUFFERS],
            views: [BufferView::NONE; COPIES],
            virtual_costs: [0; TASKS],
            causes: [const { CauseSlot::new() }; TASKS],
            counters: [TaskCounters::ZERO; TASKS],
            faults: [[0; FaultKind::ALL.len()]; TASKS],
            bodies: [const { None }; TASKS],
            tasks: heapless::Vec::new(),
            sems: heapless::Vec::new(),
            gpu_sems: heapless::Vec::new(),
            copies: heapless::Vec::new(),
            dlas: heapless::Vec::new(),
            pva_streams: heapless::Vec::new(),
            pva_execs: heapless::Vec::new(),
            pva_tasks: heapless::Vec::new(),
            streams: heapless::Vec::new(),
            modules: heapless::Vec::new(),
            workers: heapless::Vec::new(),
            worker_tasks: [const { [const { None }; TASKS] }; WORKERS],
            worker_sems: [const { [const { None }; TASKS] }; WORKERS],
        }
    }

    /// Its size in bytes (the static footprint of a runtime with this storage).
    pub const fn footprint() -> usize {
        core::mem::size_of::<Self>()
    }
}

/// The tables of a [`Storage`], as views of any size.
pub(crate) struct Parts {
    pub board: &'static Board<'static>,
    pub trace: &'static TraceLog,
    pub before: &'static mut [u64],
    pub users: &'static mut [BufferUsers],
    pub offsets: &'static mut [u16],
    pub views: &'static mut [BufferView],
    pub virtual_costs: &'static mut [u64],
    pub causes: &'static [CauseSlot],
    pub counters: &'static mut [TaskCounters],
    pub faults: &'static mut [FaultCounts],
    pub bodies: &'static mut [Option<&'static mut dyn CpuTask>],
    pub tasks: &'static mut VecView<TaskRt>,
    pub sems: &'static mut VecView<SyncObj>,
    pub gpu_sems: &'static mut VecView<Option<GpuSemaphore>>,
    pub copies: &'static mut VecView<BufferCopy>,
    pub dlas: &'static mut VecView<DlaEntry>,
    pub pva_streams: &'static mut VecView<PvaStreamEntry>,
    pub pva_execs: &'static mut VecView<PvaExecEntry>,
    pub pva_tasks: &'static mut VecView<crate::engine::pva::PvaTask>,
    pub streams: &'static mut VecView<StreamEntry>,
    pub modules: &'static mut VecView<GpuModule>,
    pub workers: &'static mut VecView<WorkerHandle>,
    /// `workers` chunks of one entry per task.
    pub worker_tasks: &'static mut [Option<WorkerTask>],
    pub worker_sems: &'static mut [Option<SyncObj>],
}

impl<
    const TASKS: usize,
    const BUFFERS: usize,
    const COPIES: usize,
    const WORKERS: usize,
    const TRACE: usize,
> Storage<TASKS, BUFFERS, COPIES, WORKERS, TRACE>
{
    fn parts(&'static mut self) -> Parts {
        let Storage {
            board,
            rows,
            trace,
            before,
            users,
            offsets,
            views,
            virtual_costs,
            causes,
            counters,
            faults,
            bodies,
            tasks,
            sems,
            gpu_sems,
            copies,
            dlas,
            pva_streams,
            pva_execs,
            pva_tasks,
            streams,
            modules,
            workers,
            worker_tasks,
            worker_sems,
        } = self;
        board.set_rows(rows);
        Parts {
            board,
            trace,
            before,
            users,
            offsets,
            views,
            virtual_costs,
            causes,
            counters,
            faults,
            bodies,
            tasks: tasks.as_mut_view(),
            sems: sems.as_mut_view(),
            gpu_sems: gpu_sems.as_mut_view(),
            copies: copies.as_mut_view(),
            dlas: dlas.as_mut_view(),
            pva_streams: pva_streams.as_mut_view(),
            pva_execs: pva_execs.as_mut_view(),
            pva_tasks: pva_tasks.as_mut_view(),
            streams: streams.as_mut_view(),
            modules: modules.as_mut_view(),
            workers: workers.as_mut_view(),
            worker_tasks: worker_tasks.as_flattened_mut(),
            worker_sems: worker_sems.as_flattened_mut(),
        }
    }
}

/// Collects the application's CPU task bodies and options, then builds the runtime.
pub struct Builder {
    schedule: &'static Schedule,
    config: Config,
    parts: Parts,
    virtual_costs_set: u64,
    safe_state: Option<fn(&SafeStop)>,
    error: Option<Error>,
}

impl Builder {
    /// Start building a runtime for `schedule` in `storage` (the generated `Storage` of the
    /// schedule, or any larger one).
    pub fn new<
        const TASKS: usize,
        const BUFFERS: usize,
        const COPIES: usize,
        const WORKERS: usize,
        const TRACE: usize,
    >(
        schedule: &'static Schedule,
        storage: &'static mut Storage<TASKS, BUFFERS, COPIES, WORKERS, TRACE>,
    ) -> Self {
        let parts = storage.parts();
        let error = fit(schedule, &parts).err();
        Builder {
            schedule,
            config: Config::default(),
            parts,
            virtual_costs_set: 0,
            safe_state: None,
            error,
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
        let slots = &mut *self.parts.bodies;
        bodies.bind_each(&mut |task, body| {
            if let Some(slot) = slots.get_mut(task.0 as usize) {
                *slot = Some(body);
            }
        });
        self
    }

    /// Bind the body of one CPU task (tables written by hand; generated schedules use
    /// [`Builder::bodies`]).
    pub fn bind(mut self, task: TaskId, body: &'static mut dyn CpuTask) -> Self {
        if let Some(i) = self.cpu_task(task)
            && let Some(slot) = self.parts.bodies.get_mut(i)
        {
            *slot = Some(body);
        }
        self
    }

    /// Virtual clock only: how long CPU task `task` takes (default: half its WCET).
    pub fn virtual_cost(mut self, task: TaskId, ns: u64) -> Self {
        if let Some(i) = self.cpu_task(task)
            && let Some(cost) = self.parts.virtual_costs.get_mut(i)
        {
            *cost = ns;
            self.virtual_costs_set |= 1 << i;
        }
        self
    }

    /// The function the health monitor calls on a safe stop.
    pub fn safe_state(mut self, f: fn(&SafeStop)) -> Self {
        self.safe_state = Some(f);
        self
    }

    /// Create every object, warm every work item up and start the CPU workers.
    ///
    /// On a failure, init releases what it had built before it returns (as
    /// [`Builder::try_init`], whose error also says whether that release succeeded).
    pub fn init(self) -> Result<Initialized> {
        self.try_init().map_err(|f| f.error)
    }

    /// [`Builder::init`], whose error also says whether init released everything it had
    /// built: with [`InitFailure::released_all`], no thread or engine object that init
    /// started still uses the storage, the schedule or the bound task bodies, and their
    /// memory may be reused (a C partition frees it, and may init again).
    // Two `Error`s by value: called once, at init, and the runtime has no heap to box into.
    #[allow(clippy::result_large_err)]
    pub fn try_init(self) -> core::result::Result<Initialized, InitFailure> {
        // Before the clock starts nothing has been built: nothing to release.
        let nothing = |error| InitFailure {
            error,
            release: Ok(()),
        };
        if let Some(e) = self.error {
            return Err(nothing(e));
        }
        let s = self.schedule;
        check_table(s).map_err(nothing)?;
        let init_start = os::monotonic_ns();
        let p = self.parts;
        let board = p.board;
        let ledger = AccessLedger::new(s, p.before, p.users).map_err(nothing)?;
        copy_offsets(s, p.offsets);
        for (i, t) in s.tasks.iter().enumerate() {
            if self.virtual_costs_set & (1 << i) == 0 {
                p.virtual_costs[i] = t.wcet_ns / 2;
            }
        }
        // The executive runs on this thread (as `realtime_priority` assumes too): its frame
        // releases are absolute sleeps, which must not wait out the timer slack.
        os::tighten_timer_slack();
        // The CPUs before the executive pins itself: what a worker without `cpus` runs on.
        let process_cpus = os::thread_cpus().unwrap_or(0);
        let request = thread_request(s, Thread::Executive, self.config);
        let executive_thread = os::apply_thread("executive", request);
        let realtime = request.priority.map(|_| {
            let (locked, lock_errno) = os::lock_memory();
            RealtimeStatus {
                fifo: executive_thread.fifo_granted(),
                fifo_errno: executive_thread.fifo_errno,
                locked,
                lock_errno,
            }
        });
        // The clock starts first: warm-up timestamps and the engines' "free at" times are on it.
        let (clock, lease) =
            Clock::start(self.config.virtual_clock, 1_000_000_000).map_err(nothing)?;
        let state = State {
            tasks: p.tasks,
            sems: p.sems,
            gpu_sems: p.gpu_sems,
            copies: p.copies,
            dlas: p.dlas,
            pva_streams: p.pva_streams,
            pva_execs: p.pva_execs,
            pva_tasks: p.pva_tasks,
            streams: p.streams,
            modules: p.modules,
            workers: p.workers,
            gpu: None,
            stamps: None,
            dla_offset_ns: 0,
            dla_offset_window_ns: 0,
            sync_module: None,
            buf_module: None,
            wait: None,
        };
        let mut init = Init {
            s,
            state,
            offsets: p.offsets,
            config: self.config,
        };
        let views = p.views;
        let result = init.build(views);
        if let Err(error) = result {
            // No worker thread exists yet: releasing the engine objects releases everything.
            let release = init.release_all();
            drop(lease);
            return Err(InitFailure { error, release });
        }
        let shared = Shared {
            virtual_wait_cap_us: self.config.virtual_wait_cap_us,
            schedule: s,
            board,
            trace: p.trace,
            ledger,
            offsets: init.offsets,
            views,
            clock,
            virtual_costs: p.virtual_costs,
            causes: p.causes,
        };
        let mut state = init.state;
        let workers = Workers {
            bodies: p.bodies,
            tasks: p.worker_tasks,
            sems: p.worker_sems,
        };
        if let Err(error) = spawn_workers(s, &mut state, shared, workers, self.config, process_cpus)
        {
            // Joins every worker started (spawn_workers joins one it could not record), then
            // releases the engine objects.
            board.request_stop();
            let release = crate::exec::executive::release_state(&mut state, board);
            drop(lease);
            return Err(InitFailure { error, release });
        }
        Ok(Initialized {
            shared,
            state,
            counters: p.counters,
            faults: p.faults,
            clock,
            lease,
            realtime,
            executive_thread,
            safe_state: self.safe_state,
            init_ns: os::monotonic_ns() - init_start,
        })
    }
}

/// A failed [`Builder::try_init`]: why, and how releasing what init had built went.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct InitFailure {
    /// Why init failed.
    pub error: Error,
    /// Releasing what init had built (stop and join the CPU workers, release the engine
    /// objects in order, close the libraries): `Ok` when all of it was released, else the
    /// first failure on the way (a hung engine, a worker that failed or panicked, an object
    /// a library would not release). After a failure some engine (its library's threads) may
    /// still use what init gave it: the storage, the schedule and the task bodies must then
    /// stay valid.
    pub release: Result<()>,
}

impl InitFailure {
    /// Whether init released everything it had built: nothing it started still uses the
    /// storage, the schedule or the task bodies.
    pub fn released_all(&self) -> bool {
        self.release.is_ok()
    }
}

impl core::error::Error for InitFailure {}

impl From<InitFailure> for Error {
    fn from(f: InitFailure) -> Error {
        f.error
    }
}

impl core::fmt::Display for InitFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.release {
            Ok(()) => write!(f, "{}", self.error),
            Err(e) => write!(
                f,
                "{} (releasing what init had built failed too: {e})",
                self.error
            ),
        }
    }
}

/// Whether `schedule` fits the tables of `parts`; the first table that is too small.
fn fit(schedule: &Schedule, parts: &Parts) -> Result<()> {
    let s = schedule;
    Table::Tasks.fits(s.tasks.len(), parts.bodies.len().min(MAX_TASKS))?;
    Table::Buffers.fits(s.buffers.len(), parts.offsets.len())?;
    let copies: usize = s.buffers.iter().map(|b| b.multiplicity as usize).sum();
    Table::BufferCopies.fits(copies, parts.views.len())?;
    let workers = s
        .engines
        .iter()
        .filter(|e| e.kind == EngineKind::Cpu)
        .count();
    Table::CpuWorkers.fits(workers, parts.workers.capacity())
}

/// The runtime after init, before seal: still allowed to touch buffers from the outside.
pub struct Initialized {
    shared: Shared,
    state: State,
    counters: &'static mut [TaskCounters],
    faults: &'static mut [FaultCounts],
    clock: Clock,
    /// Held until the executive is shut down or dropped.
    lease: ClockLease,
    realtime: Option<RealtimeStatus>,
    executive_thread: ThreadGrant,
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
        let multiplicity = self
            .shared
            .schedule
            .buffers
            .get(buffer.0 as usize)
            .map_or(0, |b| b.multiplicity as usize);
        let view = (copy < multiplicity)
            .then(|| copy_index(self.shared.offsets, buffer.0 as usize, copy))
            .and_then(|i| self.shared.views.get(i))
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

    /// DLA clock minus the executive's clock, in ns, and how far below it the true offset may
    /// be (the calibration's uncertainty), if the schedule has DLA tasks.
    ///
    /// DLA task times come from the timestamps of the SOF and EOF fences cuDLA signals (µs
    /// of the DLA clock), moved onto the executive's clock by this offset. Init calibrates it
    /// from the warm-up tasks, which wait for nothing: each starts on the DLA no earlier than
    /// it was submitted (an upper bound of the offset) and ends no later than the CPU sees
    /// its fence (a lower bound). The offset is the tightest upper bound; the uncertainty is
    /// the DLA's start latency plus the CPU's wake-up latency of that sample (0 on the SIL
    /// virtual clock).
    pub fn dla_clock_offset_ns(&self) -> Option<(i64, i64)> {
        self.state
            .tasks
            .iter()
            .any(|t| t.start.is_some())
            .then_some((self.state.dla_offset_ns, self.state.dla_offset_window_ns))
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
        Executive::new(Sealed {
            shared: self.shared,
            st: self.state,
            counters: self.counters,
            faults: self.faults,
            clock: self.clock,
            lease: self.lease,
            t0,
            realtime: self.realtime,
            executive_thread: self.executive_thread,
            safe_state: self.safe_state,
        })
    }
}
