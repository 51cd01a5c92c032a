//! Init: create every object the schedule needs, in order, and warm every work item up.

use std::thread;

use crate::engine::cpu::BufferView;
use crate::engine::dla::{DlaDevice, DlaPtr, DlaSyncRole, fill_sync_attributes as dla_attrs};
use crate::engine::gpu::{Gpu, GpuMemory, GpuModule, GpuSemaphore, ParamBlock, SlotKernel, Stream};
use crate::engine::nvsci::{
    BufModule, BufObj, BufSpec, CpuRole, CpuWaitContext, RawFence, SyncAttrList, SyncModule,
    SyncObj, Waited,
};
use crate::engine::os;
use crate::engine::platform::{Clock, GPU_SYNC, GpuSyncMode};
use crate::engine::pva::{
    PvaExecutable, PvaMem, PvaParams, PvaStream, PvaSync, PvaSyncRole, PvaTask,
    fill_sync_attributes as pva_attrs,
};
use crate::error::{Context, Error, Phase, PlatformFact, Result, ScheduleFault, Table};
use crate::exec::runtime::{Config, DLA_ALIGN, WARMUP_TIMEOUT_US};
use crate::exec::state::copy_index;
use crate::exec::state::*;
use crate::exec::worker::{CpuTask, Shared, Worker, WorkerTask};
use crate::kernel_model::ParamKind;
use crate::limits::*;
use crate::limits::{MAX_DLA_HANDLES_PER_BUFFER, MAX_DLA_HANDLES_PER_SEMAPHORE};
use crate::sync::SemaphoreLedger;
use crate::table::PvaAccess;
use crate::table::{
    BufferId, BufferKind, EngineId, EngineKind, Param, Schedule, TaskId, Thread, Work,
};

pub(crate) fn check_table(s: &Schedule) -> Result<()> {
    Table::Modes.fits(s.modes.len(), MAX_MODES)?;
    if s.period_ns == 0 || s.modes.is_empty() {
        return Err(Error::BadSchedule {
            fault: ScheduleFault::ZeroPeriodOrNoMode,
            context: Context::Platform,
        });
    }
    for (i, t) in s.tasks.iter().enumerate() {
        let context = Context::Task(t.name);
        if s.engines.get(t.engine.0 as usize).is_none() {
            return Err(Error::BadSchedule {
                fault: ScheduleFault::EngineOutOfRange,
                context,
            });
        }
        Table::WaitsPerTask.fits(t.waits.len(), MAX_WAITS)?;
        for w in t.waits {
            if w.task.0 as usize >= s.tasks.len() || (w.lag == 0 && w.task.0 as usize >= i) {
                return Err(Error::BadSchedule {
                    fault: ScheduleFault::DependencyOutOfOrder,
                    context,
                });
            }
            if w.lag as usize > MAX_LAG {
                return Err(Error::Capacity {
                    table: Table::DependencyLag,
                    limit: MAX_LAG as u32,
                });
            }
        }
        for b in t.reads.iter().chain(t.writes) {
            if b.0 as usize >= s.buffers.len() {
                return Err(Error::BadSchedule {
                    fault: ScheduleFault::BufferOutOfRange,
                    context,
                });
            }
        }
        if t.deadline_ns > s.period_ns {
            return Err(Error::BadSchedule {
                fault: ScheduleFault::DeadlineBeyondPeriod,
                context,
            });
        }
    }
    for b in s.buffers {
        // Submission data is prepared per copy index `f % MAX_COPIES`, so the multiplicity
        // must divide MAX_COPIES (1, 2 or 4).
        if b.multiplicity == 0 || !MAX_COPIES.is_multiple_of(b.multiplicity as usize) {
            return Err(Error::BadSchedule {
                fault: ScheduleFault::BadMultiplicity,
                context: Context::Buffer(b.name),
            });
        }
    }
    Ok(())
}

pub(crate) struct Init {
    pub(crate) s: &'static Schedule,
    pub(crate) state: State,
    /// Each buffer's first copy in the per-copy tables.
    pub(crate) offsets: &'static [u16],
    pub(crate) config: Config,
}

/// The storage of the CPU workers: the bound bodies (by task), and per worker a chunk of
/// `bodies.len()` task slots and semaphore slots.
pub(crate) struct Workers {
    pub bodies: &'static mut [Option<&'static mut dyn CpuTask>],
    pub tasks: &'static mut [Option<WorkerTask>],
    pub sems: &'static mut [Option<SyncObj>],
}

impl Init {
    fn kind(&self, t: TaskId) -> EngineKind {
        self.s.engines[self.s.task(t).engine.0 as usize].kind
    }

    fn touches(&self, buffer: BufferId, kind: EngineKind) -> bool {
        self.s.tasks.iter().any(|t| {
            self.s.engines[t.engine.0 as usize].kind == kind
                && (t.reads.contains(&buffer) || t.writes.contains(&buffer))
        })
    }

    pub(crate) fn build(&mut self, views: &mut [BufferView]) -> Result<()> {
        let s = self.s;
        let uses = |k| {
            s.tasks
                .iter()
                .any(|t| s.engines[t.engine.0 as usize].kind == k)
        };
        self.state.sync_module = Some(SyncModule::open()?);
        self.state.buf_module = Some(BufModule::open()?);
        self.state.wait = Some(CpuWaitContext::alloc(self.sync_module()?)?);
        if uses(EngineKind::Gpu) {
            os::require_cuda_environment()?;
            self.open_gpu()?;
        }
        self.open_dlas()?;
        self.open_pvas()?;
        self.alloc_buffers(views)?;
        self.check_dla_tensors()?;
        self.create_tasks()?;
        self.create_pva_tasks()?;
        self.warm_up()?;
        crate::exec::graphs::build(&mut self.state, self.s)?;
        Ok(())
    }

    fn sync_module(&self) -> Result<&SyncModule> {
        self.state
            .sync_module
            .as_ref()
            .ok_or(Error::Phase(Phase::NvSciSyncNotOpen))
    }

    fn open_gpu(&mut self) -> Result<()> {
        let gpu = Gpu::open(self.config.gpu_ordinal)?;
        let sm = gpu.sm();
        for c in self.s.cubins {
            let m = GpuModule::load(&gpu, c)?;
            let limit = self.state.modules.capacity() as u32;
            self.state.modules.push(m).map_err(|m| {
                let _ = m.unload();
                Error::Capacity {
                    table: Table::Cubins,
                    limit,
                }
            })?;
        }
        for (i, e) in self.s.engines.iter().enumerate() {
            if e.kind == EngineKind::Gpu {
                let stream = Stream::create(&gpu, e.name)?;
                let limit = self.state.streams.capacity() as u32;
                self.state
                    .streams
                    .push(StreamEntry {
                        engine: EngineId(i as u8),
                        stream,
                        graph: None,
                    })
                    .map_err(|e| {
                        let _ = e.stream.destroy();
                        Error::Capacity {
                            table: Table::GpuStreams,
                            limit,
                        }
                    })?;
            }
        }
        if self.config.gpu_timestamps {
            let timing = orin_exec_kernels::cubin_desc("timing").ok_or(Error::NoCubinForSm {
                module: "timing",
                sm,
            })?;
            // The runtime's own kernel gets its model like any application kernel.
            #[cfg(feature = "sil")]
            if let Some(model) = orin_exec_kernels::model("timing", "stamp_globaltimer") {
                crate::sil::register_kernel_model(timing, "stamp_globaltimer", model)?;
            }
            let module = GpuModule::load(&gpu, timing)?;
            let function = module.function_with_kinds(
                "stamp_globaltimer",
                &[ParamKind::DevPtr],
                Context::Cubin("timing"),
            )?;
            let gpu_tasks = self
                .s
                .tasks
                .iter()
                .filter(|t| matches!(t.work, Work::Gpu(_)))
                .count();
            let slots = 2 * FENCE_HISTORY * gpu_tasks.max(1);
            let memory = GpuMemory::pinned(&gpu, (slots * 8) as u64, Context::Cubin("timing"))?;
            let kernel = SlotKernel::new(function, &memory)?;
            self.state.stamps = Some(Stamps {
                module,
                kernel,
                memory,
                offset_ns: 0,
            });
        }
        self.state.gpu = Some(gpu);
        Ok(())
    }

    fn open_dlas(&mut self) -> Result<()> {
        for t in self.s.tasks {
            let Work::Dla(d) = t.work else { continue };
            let e = &self.s.engines[t.engine.0 as usize];
            if self
                .state
                .dlas
                .iter()
                .any(|x| x.core == e.instance && x.loadable == d.loadable.0)
            {
                continue;
            }
            let desc = self
                .s
                .loadables
                .get(d.loadable.0 as usize)
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::LoadableOutOfRange,
                    context: Context::Task(t.name),
                })?;
            let device = DlaDevice::open(e.instance, e.name, desc)?;
            let limit = self.state.dlas.capacity() as u32;
            self.state
                .dlas
                .push(DlaEntry {
                    core: e.instance,
                    loadable: d.loadable.0,
                    device,
                })
                .map_err(|d| {
                    let _ = d.device.close();
                    Error::Capacity {
                        table: Table::DlaDevices,
                        limit,
                    }
                })?;
        }
        Ok(())
    }

    /// A cuPVA stream per PVA engine that runs tasks (warmed up: the PVA's power-up delay),
    /// and an executable per program a task runs.
    fn open_pvas(&mut self) -> Result<()> {
        let s = self.s;
        for (ei, e) in s.engines.iter().enumerate() {
            let engine = EngineId(ei as u8);
            if e.kind != EngineKind::Pva || !s.tasks.iter().any(|t| t.engine == engine) {
                continue;
            }
            let vpu = e.vpu.ok_or(Error::BadSchedule {
                fault: ScheduleFault::PvaTaskWithoutStream,
                context: Context::Engine(e.name),
            })?;
            let stream = PvaStream::create(e.instance, vpu, e.name)?;
            let limit = self.state.pva_streams.capacity() as u32;
            if let Err(entry) = self
                .state
                .pva_streams
                .push(PvaStreamEntry { engine, stream })
            {
                let _ = entry.stream.destroy();
                return Err(Error::Capacity {
                    table: Table::PvaStreams,
                    limit,
                });
            }
            let warm_ms = (WARMUP_TIMEOUT_US / 1000) as i32;
            if let Some(last) = self.state.pva_streams.last() {
                last.stream.warm_up(warm_ms)?;
            }
        }
        for t in s.tasks {
            let Work::Pva(w) = t.work else { continue };
            if self
                .state
                .pva_execs
                .iter()
                .any(|x| x.program == w.program.0)
            {
                continue;
            }
            let desc = s
                .pva_programs
                .get(w.program.0 as usize)
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::PvaProgramOutOfRange,
                    context: Context::Task(t.name),
                })?;
            let exec = PvaExecutable::create(desc)?;
            let limit = self.state.pva_execs.capacity() as u32;
            if let Err(entry) = self.state.pva_execs.push(PvaExecEntry {
                program: w.program.0,
                exec,
            }) {
                let _ = entry.exec.destroy();
                return Err(Error::Capacity {
                    table: Table::PvaExecutables,
                    limit,
                });
            }
        }
        Ok(())
    }

    /// How the PVA programs reach `buffer`: the union of the accesses their parameters
    /// declare, `None` when no PVA task passes it.
    fn pva_access(&self, buffer: BufferId) -> Option<PvaAccess> {
        let (mut reads, mut writes) = (false, false);
        for t in self.s.tasks {
            let Work::Pva(w) = t.work else { continue };
            let Some(desc) = self.s.pva_programs.get(w.program.0 as usize) else {
                continue;
            };
            for (spec, value) in desc.params.iter().zip(w.params) {
                if let (crate::table::PvaParamKind::Pointer(a), Param::Buffer(b)) =
                    (spec.kind, *value)
                    && b == buffer
                {
                    reads |= a != PvaAccess::Write;
                    writes |= a != PvaAccess::Read;
                }
            }
        }
        match (reads, writes) {
            (true, true) => Some(PvaAccess::ReadWrite),
            (true, false) => Some(PvaAccess::Read),
            (false, true) => Some(PvaAccess::Write),
            (false, false) => None,
        }
    }

    fn dla_index(&self, task: TaskId) -> Option<usize> {
        let t = self.s.task(task);
        let Work::Dla(d) = t.work else { return None };
        let core = self.s.engines[t.engine.0 as usize].instance;
        self.state
            .dlas
            .iter()
            .position(|x| x.core == core && x.loadable == d.loadable.0)
    }

    fn alloc_buffers(&mut self, views: &mut [BufferView]) -> Result<()> {
        let s = self.s;
        let uuid = self.state.gpu.as_ref().map(Gpu::uuid);
        for (bi, b) in s.buffers.iter().enumerate() {
            let id = BufferId(bi as u16);
            let context = Context::Buffer(b.name);
            let on_gpu = self.touches(id, EngineKind::Gpu);
            let on_dla = self.touches(id, EngineKind::Dla);
            let on_pva = self.pva_access(id);
            if on_dla && b.kind.align() < DLA_ALIGN {
                return Err(Error::AlignmentTooSmall {
                    buffer: b.name,
                    needed: DLA_ALIGN,
                    declared: b.kind.align(),
                });
            }
            for c in 0..b.multiplicity as usize {
                let index = copy_index(self.offsets, bi, c);
                let limit = views.len() as u32;
                let view = views.get_mut(index).ok_or(Error::Capacity {
                    table: Table::BufferCopies,
                    limit,
                })?;
                let mut copy = BufferCopy {
                    obj: None,
                    gpu: None,
                    dla: heapless::Vec::new(),
                    pva: None,
                };
                if let BufferKind::Pinned { size } = b.kind {
                    let gpu = self
                        .state
                        .gpu
                        .as_ref()
                        .ok_or(Error::Phase(Phase::GpuNotOpen))?;
                    let mem = GpuMemory::pinned(gpu, size, context)?;
                    if let Some(v) = BufferView::of_pinned(&mem) {
                        *view = v;
                    }
                    copy.gpu = Some(mem);
                } else {
                    let spec = BufSpec {
                        kind: b.kind,
                        cpu_access: b.cpu_access,
                        as_tensor: on_dla
                            && !on_gpu
                            && on_pva.is_none()
                            && matches!(b.kind, BufferKind::Tensor { .. }),
                        gpu_uuid: if on_gpu { uuid } else { None },
                        pva: on_pva.is_some(),
                    };
                    let buf_module = self
                        .state
                        .buf_module
                        .as_ref()
                        .ok_or(Error::Phase(Phase::NvSciBufNotOpen))?;
                    let obj = BufObj::alloc(buf_module, &spec, context)?;
                    if let Some(v) = BufferView::of_buffer(&obj) {
                        if !v.addr().is_multiple_of(b.kind.align()) {
                            let addr = v.addr();
                            let _ = obj.free();
                            return Err(Error::BufferMisaligned {
                                buffer: b.name,
                                align: b.kind.align(),
                                addr,
                            });
                        }
                        *view = v;
                    }
                    if on_gpu {
                        let gpu = self
                            .state
                            .gpu
                            .as_ref()
                            .ok_or(Error::Phase(Phase::GpuNotOpen))?;
                        copy.gpu = Some(match GPU_SYNC {
                            GpuSyncMode::External => GpuMemory::import(gpu, &obj, context)?,
                            GpuSyncMode::Counter => GpuMemory::register(gpu, &obj, context)?,
                        });
                    }
                    for (di, dla) in self.state.dlas.iter_mut().enumerate() {
                        let used = s.tasks.iter().any(|t| {
                            matches!(t.work, Work::Dla(d) if d.loadable.0 == dla.loadable)
                                && s.engines[t.engine.0 as usize].instance == dla.core
                                && (t.reads.contains(&id) || t.writes.contains(&id))
                        });
                        if used {
                            let p = dla.device.import_memory(&obj, context)?;
                            copy.dla.push((di, p)).map_err(|_| Error::Capacity {
                                table: Table::DlaImportsPerBuffer,
                                limit: MAX_DLA_HANDLES_PER_BUFFER as u32,
                            })?;
                        }
                    }
                    if let Some(access) = on_pva {
                        copy.pva = Some(PvaMem::import(&obj, access, context)?);
                    }
                    copy.obj = Some(obj);
                }
                // Copies are pushed buffer by buffer, so the table index is `copy_index`.
                let limit = self.state.copies.capacity() as u32;
                self.state.copies.push(copy).map_err(|_| Error::Capacity {
                    table: Table::BufferCopies,
                    limit,
                })?;
            }
        }
        Ok(())
    }

    fn check_dla_tensors(&self) -> Result<()> {
        for (i, t) in self.s.tasks.iter().enumerate() {
            let Work::Dla(d) = t.work else { continue };
            let Some(di) = self.dla_index(TaskId(i as u16)) else {
                continue;
            };
            let desc = &self.s.loadables[d.loadable.0 as usize];
            let mut ins = [0u64; MAX_TENSORS];
            let mut outs = [0u64; MAX_TENSORS];
            for (slot, b) in ins.iter_mut().zip(d.inputs) {
                *slot = self.s.buffers[b.buffer.0 as usize].kind.size();
            }
            for (slot, b) in outs.iter_mut().zip(d.outputs) {
                *slot = self.s.buffers[b.buffer.0 as usize].kind.size();
            }
            let ni = d.inputs.len().min(MAX_TENSORS);
            let no = d.outputs.len().min(MAX_TENSORS);
            self.state.dlas[di]
                .device
                .check_tensors(desc, &ins[..ni], &outs[..no])?;
            for (bindings, specs) in [(d.inputs, desc.inputs), (d.outputs, desc.outputs)] {
                for (bind, spec) in bindings.iter().zip(specs) {
                    if bind.tensor != spec.name {
                        return Err(Error::Tensor {
                            loadable: desc.name,
                            tensor: bind.tensor,
                            mismatch: crate::error::TensorMismatch::Missing,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Semaphores, imports and submission data of every task.
    fn create_tasks(&mut self) -> Result<()> {
        let s = self.s;
        for (i, t) in s.tasks.iter().enumerate() {
            let id = TaskId(i as u16);
            let context = Context::Semaphore(t.name);
            let kind = self.kind(id);
            let dependents = || {
                s.tasks
                    .iter()
                    .enumerate()
                    .filter(move |(_, d)| d.waits.iter().any(|w| w.task == id))
                    .map(|(j, _)| TaskId(j as u16))
            };
            let dla_waits = dependents().any(|d| self.kind(d) == EngineKind::Dla);
            let gpu_waits = dependents().any(|d| self.kind(d) == EngineKind::Gpu);
            let pva_waits = dependents().any(|d| self.kind(d) == EngineKind::Pva);

            // Attribute lists: the signaler first, then the waiters.
            let module = self.sync_module()?;
            let mut lists: heapless::Vec<SyncAttrList, 5> = heapless::Vec::new();
            let add = |l: SyncAttrList, lists: &mut heapless::Vec<SyncAttrList, 5>| {
                lists.push(l).map_err(|_| Error::Capacity {
                    table: Table::AttributeListsPerSemaphore,
                    limit: 5,
                })
            };
            let result = (|| -> Result<SyncObj> {
                let mut signaler = SyncAttrList::create(module, context)?;
                signaler.require_deterministic(context)?;
                match (kind, GPU_SYNC) {
                    (EngineKind::Dla, _) => {
                        dla_attrs(&mut signaler, DlaSyncRole::Signaler, context)?
                    }
                    (EngineKind::Pva, _) => {
                        pva_attrs(&mut signaler, PvaSyncRole::Signaler, context)?
                    }
                    (EngineKind::Gpu, GpuSyncMode::External) => self
                        .state
                        .gpu
                        .as_ref()
                        .ok_or(Error::Phase(Phase::GpuNotOpen))?
                        .fill_sync_attributes(&mut signaler, true, context)?,
                    _ => signaler.cpu(CpuRole::Signaler, context)?,
                }
                add(signaler, &mut lists)?;
                let mut cpu_waiter = SyncAttrList::create(module, context)?;
                cpu_waiter.require_deterministic(context)?;
                // DLA and PVA ends are read from their fences' timestamps.
                cpu_waiter.cpu(
                    if matches!(kind, EngineKind::Dla | EngineKind::Pva) {
                        CpuRole::Waiter
                    } else {
                        CpuRole::WaiterNoTimestamps
                    },
                    context,
                )?;
                add(cpu_waiter, &mut lists)?;
                if dla_waits {
                    let mut l = SyncAttrList::create(module, context)?;
                    l.require_deterministic(context)?;
                    dla_attrs(&mut l, DlaSyncRole::Waiter, context)?;
                    add(l, &mut lists)?;
                }
                if pva_waits {
                    let mut l = SyncAttrList::create(module, context)?;
                    l.require_deterministic(context)?;
                    pva_attrs(&mut l, PvaSyncRole::Waiter, context)?;
                    add(l, &mut lists)?;
                }
                if gpu_waits && GPU_SYNC == GpuSyncMode::External {
                    let mut l = SyncAttrList::create(module, context)?;
                    l.require_deterministic(context)?;
                    self.state
                        .gpu
                        .as_ref()
                        .ok_or(Error::Phase(Phase::GpuNotOpen))?
                        .fill_sync_attributes(&mut l, false, context)?;
                    add(l, &mut lists)?;
                }
                crate::engine::nvsci::reconcile_and_alloc(&lists, context)
            })();
            while let Some(l) = lists.pop() {
                l.free();
            }
            let mut sem = result?;
            // A CPU-signalled semaphore (CPU tasks; GPU tasks that write the counter) takes its
            // primitive id from the CPU signaler's first fence; engine-signalled ones from the
            // engine's first EOF fence, at warm-up.
            let cpu_signals = match kind {
                EngineKind::Dla | EngineKind::Pva => false,
                EngineKind::Gpu => GPU_SYNC != GpuSyncMode::External,
                _ => true,
            };
            if cpu_signals {
                let mut first = RawFence::cleared();
                let adopted = sem
                    .cpu_fence(&mut first, context)
                    .and_then(|()| sem.adopt(&first, 1, context));
                first.clear();
                if let Err(e) = adopted {
                    let _ = sem.free();
                    return Err(e);
                }
            }

            let mut rt = TaskRt {
                ledger: SemaphoreLedger::new(id, t.engine),
                dla_imports: heapless::Vec::new(),
                submit: Submit::Cpu,
                waits: [const { RawFence::cleared() }; MAX_WAITS],
                eof: [const { RawFence::cleared() }; FENCE_HISTORY],
                start: None,
                monitor: RawFence::cleared(),
                submitted_at: [0; FENCE_HISTORY],
                ended_at: [(u64::MAX, 0); FENCE_HISTORY],
                failed_submit: None,
                pva_sync: None,
                due_sleep_ns: 0,
            };
            for d in dependents() {
                rt.ledger.add_waiter(s.task(d).engine);
            }
            // Imports: into the DLA handles that signal or wait on it, and into the GPU.
            let mut handles: heapless::Vec<usize, MAX_DLA_HANDLES_PER_SEMAPHORE> =
                heapless::Vec::new();
            for user in core::iter::once(id).chain(dependents()) {
                if let Some(di) = self.dla_index(user)
                    && !handles.contains(&di)
                {
                    handles.push(di).map_err(|_| Error::Capacity {
                        table: Table::DlaHandlesPerSemaphore,
                        limit: MAX_DLA_HANDLES_PER_SEMAPHORE as u32,
                    })?;
                }
            }
            let mut gpu_sem = None;
            let import = (|| -> Result<()> {
                if kind == EngineKind::Dla {
                    rt.start = Some(self.start_signal(id)?);
                }
                if let Some(role) = PvaSyncRole::of(kind == EngineKind::Pva, pva_waits) {
                    rt.pva_sync = Some(PvaSync::from_nvsci(&sem, role, context)?);
                }
                for di in handles {
                    let p = self.state.dlas[di].device.import_semaphore(&sem, context)?;
                    rt.dla_imports.push((di, p)).map_err(|_| Error::Capacity {
                        table: Table::DlaImportsPerSemaphore,
                        limit: MAX_DLA_HANDLES_PER_SEMAPHORE as u32,
                    })?;
                }
                if kind == EngineKind::Gpu || gpu_waits {
                    let gpu = self
                        .state
                        .gpu
                        .as_ref()
                        .ok_or(Error::Phase(Phase::GpuNotOpen))?;
                    gpu_sem = Some(match GPU_SYNC {
                        GpuSyncMode::External => GpuSemaphore::import(gpu, &sem, context)?,
                        GpuSyncMode::Counter => GpuSemaphore::map_counter(gpu, &sem, context)?,
                    });
                    // The real GPU writes the mapped counter of the semaphores it signals.
                    if GPU_SYNC == GpuSyncMode::Counter && kind == EngineKind::Gpu {
                        crate::engine::platform::mark_device_written(&sem, context)?;
                    }
                }
                rt.submit = self.submission(id)?;
                Ok(())
            })();
            let full = Error::Capacity {
                table: Table::Tasks,
                limit: self.state.tasks.capacity() as u32,
            };
            self.state.sems.push(sem).map_err(|_| full)?;
            self.state.gpu_sems.push(gpu_sem).map_err(|_| full)?;
            self.state.tasks.push(rt).map_err(|_| full)?;
            import?;
        }
        Ok(())
    }

    /// The commands of every PVA task, in task order (`Submit::Pva`'s index), in place in the
    /// PVA task table: a command program per buffer copy with its parameters, a wait command
    /// per dependency, the request of the task's fence.
    fn create_pva_tasks(&mut self) -> Result<()> {
        let s = self.s;
        for (i, t) in s.tasks.iter().enumerate() {
            let Work::Pva(w) = t.work else { continue };
            let context = Context::Task(t.name);
            let stream = self
                .state
                .pva_streams
                .iter()
                .position(|e| e.engine == t.engine)
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::PvaTaskWithoutStream,
                    context,
                })?;
            let desc = s
                .pva_programs
                .get(w.program.0 as usize)
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::PvaProgramOutOfRange,
                    context,
                })?;
            let exec = self
                .state
                .pva_execs
                .iter()
                .find(|x| x.program == w.program.0)
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::PvaProgramOutOfRange,
                    context,
                })?;
            // Every dependency's semaphore must be visible to the PVA (create_tasks wrapped it).
            for dep in t.waits {
                if self.state.tasks[dep.task.0 as usize].pva_sync.is_none() {
                    return Err(Error::BadSchedule {
                        fault: ScheduleFault::DependencyNotOnPva,
                        context,
                    });
                }
            }
            let own = self.state.tasks[i]
                .pva_sync
                .as_ref()
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::DependencyNotOnPva,
                    context,
                })?;
            // Frame f runs program f % copies: the largest multiplicity of its buffers.
            let copies = w
                .params
                .iter()
                .filter_map(|p| match p {
                    Param::Buffer(b) => s.buffers.get(b.0 as usize).map(|b| b.multiplicity),
                    _ => None,
                })
                .max()
                .unwrap_or(1) as usize;
            let (offsets, copies_table) = (self.offsets, &self.state.copies);
            let pointer = |copy: usize, param: usize| -> Result<*mut core::ffi::c_void> {
                let Some(Param::Buffer(b)) = w.params.get(param) else {
                    return Err(Error::BadSchedule {
                        fault: ScheduleFault::ParamBufferNotOnPva,
                        context,
                    });
                };
                let b = b.0 as usize;
                let mult = s.buffers[b].multiplicity as usize;
                copies_table
                    .get(copy_index(offsets, b, copy % mult))
                    .and_then(|c| c.pva.as_ref())
                    .map(PvaMem::device_ptr)
                    .ok_or(Error::BadSchedule {
                        fault: ScheduleFault::ParamBufferNotOnPva,
                        context: Context::Buffer(s.buffers[b].name),
                    })
            };
            let params = PvaParams {
                desc,
                values: w.params,
                pointer: &pointer,
                copies,
            };
            let limit = self.state.pva_tasks.capacity() as u32;
            self.state
                .pva_tasks
                .push(PvaTask::EMPTY)
                .map_err(|_| Error::Capacity {
                    table: Table::Tasks,
                    limit,
                })?;
            let Some(slot) = self.state.pva_tasks.last_mut() else {
                continue;
            };
            slot.init(
                s.engines[t.engine.0 as usize].name,
                stream,
                &exec.exec,
                &params,
                own,
                t.waits.len(),
                t.deadline_ns,
            )?;
        }
        Ok(())
    }

    /// The SOF semaphore of DLA task `id`: signalled by its DLA, waited for (with
    /// timestamps) by the CPU, imported into the task's DLA handle.
    fn start_signal(&mut self, id: TaskId) -> Result<StartSignal> {
        let context = Context::Semaphore(self.s.task(id).name);
        let device = self.dla_index(id).ok_or(Error::BadSchedule {
            fault: ScheduleFault::DlaTaskWithoutDevice,
            context,
        })?;
        let module = self.sync_module()?;
        let mut lists: heapless::Vec<SyncAttrList, 2> = heapless::Vec::new();
        let result = (|| -> Result<SyncObj> {
            // Pushed before they are filled, so that every list is freed below.
            let mut signaler = SyncAttrList::create(module, context)?;
            let filled = signaler
                .require_deterministic(context)
                .and_then(|()| dla_attrs(&mut signaler, DlaSyncRole::Signaler, context));
            let _ = lists.push(signaler); // room for two
            filled?;
            let mut waiter = SyncAttrList::create(module, context)?;
            let filled = waiter
                .require_deterministic(context)
                .and_then(|()| waiter.cpu(CpuRole::Waiter, context));
            let _ = lists.push(waiter);
            filled?;
            crate::engine::nvsci::reconcile_and_alloc(&lists, context)
        })();
        while let Some(l) = lists.pop() {
            l.free();
        }
        let sem = result?;
        match self.state.dlas[device]
            .device
            .import_semaphore(&sem, context)
        {
            Ok(import) => Ok(StartSignal {
                sem,
                import,
                fences: [const { RawFence::cleared() }; FENCE_HISTORY],
            }),
            Err(e) => {
                let _ = sem.free();
                Err(e)
            }
        }
    }

    fn submission(&self, id: TaskId) -> Result<Submit> {
        let s = self.s;
        let t = s.task(id);
        match t.work {
            Work::Cpu => Ok(Submit::Cpu),
            // Its commands are made by `create_pva_tasks`, in task order.
            Work::Pva(_) => Ok(Submit::Pva {
                task: s.tasks[..id.0 as usize]
                    .iter()
                    .filter(|x| matches!(x.work, Work::Pva(_)))
                    .count(),
            }),
            Work::Dla(d) => {
                let device = self.dla_index(id).ok_or(Error::BadSchedule {
                    fault: ScheduleFault::DlaTaskWithoutDevice,
                    context: Context::Task(t.name),
                })?;
                let none = DlaPtr::NONE;
                let mut inputs = [[none; MAX_TENSORS]; MAX_COPIES];
                let mut outputs = [[none; MAX_TENSORS]; MAX_COPIES];
                for copy in 0..MAX_COPIES {
                    for (slots, binds) in [
                        (&mut inputs[copy], d.inputs),
                        (&mut outputs[copy], d.outputs),
                    ] {
                        for (slot, bind) in slots.iter_mut().zip(binds) {
                            let b = bind.buffer.0 as usize;
                            let mult = s.buffers[b].multiplicity as usize;
                            let c = &self.state.copies[copy_index(self.offsets, b, copy % mult)];
                            *slot = c
                                .dla
                                .iter()
                                .find(|(di, _)| *di == device)
                                .map(|(_, p)| *p)
                                .ok_or(Error::BadSchedule {
                                    fault: ScheduleFault::TensorBufferNotImported,
                                    context: Context::Buffer(
                                        s.buffers[bind.buffer.0 as usize].name,
                                    ),
                                })?;
                        }
                    }
                }
                Ok(Submit::Dla {
                    device,
                    inputs,
                    outputs,
                    n_in: d.inputs.len(),
                    n_out: d.outputs.len(),
                })
            }
            Work::Gpu(g) => {
                let context = Context::Task(t.name);
                let stream = self
                    .state
                    .streams
                    .iter()
                    .position(|e| e.engine == t.engine)
                    .ok_or(Error::BadSchedule {
                        fault: ScheduleFault::GpuTaskWithoutStream,
                        context,
                    })?;
                let module =
                    self.state
                        .modules
                        .get(g.cubin.0 as usize)
                        .ok_or(Error::BadSchedule {
                            fault: ScheduleFault::CubinOutOfRange,
                            context,
                        })?;
                // The kinds come from the schedule's `params`: checked against the cubin's
                // parameter table (count and sizes) and, on SIL, the kernel model's kinds.
                let mut kinds = [ParamKind::U32; MAX_PARAMS];
                if g.params.len() > MAX_PARAMS {
                    return Err(Error::Capacity {
                        table: Table::KernelParams,
                        limit: MAX_PARAMS as u32,
                    });
                }
                for (k, p) in kinds.iter_mut().zip(g.params) {
                    *k = match p {
                        Param::Buffer(_) => ParamKind::DevPtr,
                        Param::U32(_) => ParamKind::U32,
                        Param::I32(_) => ParamKind::I32,
                        Param::U64(_) => ParamKind::U64,
                        Param::F32(_) => ParamKind::F32,
                    };
                }
                let function =
                    module.function_with_kinds(g.kernel, &kinds[..g.params.len()], context)?;
                let mut params = [const { ParamBlock::empty() }; MAX_COPIES];
                for (copy, block) in params.iter_mut().enumerate() {
                    let mut b = ParamBlock::builder(&function);
                    for p in g.params {
                        b = match *p {
                            Param::Buffer(buf) => {
                                let mult = s.buffers[buf.0 as usize].multiplicity as usize;
                                let c = &self.state.copies
                                    [copy_index(self.offsets, buf.0 as usize, copy % mult)];
                                b.memory(c.gpu.as_ref().ok_or(Error::BadSchedule {
                                    fault: ScheduleFault::ParamBufferNotOnGpu,
                                    context: Context::Buffer(s.buffers[buf.0 as usize].name),
                                })?)?
                            }
                            Param::U32(v) => b.u32(v)?,
                            Param::I32(v) => b.i32(v)?,
                            Param::U64(v) => b.u64(v)?,
                            Param::F32(v) => b.f32(v)?,
                        };
                    }
                    *block = b.finish()?;
                }
                let stamp = s.tasks[..id.0 as usize]
                    .iter()
                    .filter(|x| matches!(x.work, Work::Gpu(_)))
                    .count();
                Ok(Submit::Gpu {
                    stream,
                    function,
                    grid: g.grid,
                    block: g.block,
                    shared: g.shared_mem_bytes,
                    params,
                    stamp,
                })
            }
        }
    }

    /// One submission of every accelerator work item, then calibrate the GPU timer.
    fn warm_up(&mut self) -> Result<()> {
        let s = self.s;
        let clock = if self.config.virtual_clock {
            Clock::Virtual
        } else {
            Clock::Real
        };
        let mut dla_offset: Option<(i64, i64)> = None;
        for i in 0..s.tasks.len() {
            let id = TaskId(i as u16);
            let context = Context::Task(s.task(id).name);
            if matches!(self.state.tasks[i].submit, Submit::Cpu) {
                continue;
            }
            let submitted = clock.now_ns();
            crate::exec::executive::submit_task(&mut self.state, s, id, 0, &[], 1, false)?;
            let State {
                tasks,
                sems,
                dlas,
                pva_tasks,
                wait,
                ..
            } = &mut self.state;
            let rt = &mut tasks[i];
            let sem = &mut sems[i];
            // The engine's fences give the primitive ids (checked against the value 1 the
            // runtime expects of the first signal); GPU counter writes return no fence.
            if !rt.eof[0].is_cleared() {
                sem.adopt(&rt.eof[0], 1, context)?;
            }
            if let Some(start) = rt.start.as_mut() {
                start.sem.adopt(&start.fences[0], 1, context)?;
            }
            sem.fence_at(1, &mut rt.monitor, context)?;
            let waited = wait
                .as_mut()
                .ok_or(Error::Phase(Phase::NoWaitContext))?
                .wait(&rt.monitor, WARMUP_TIMEOUT_US, context)?;
            if waited != Waited::Reached {
                return Err(Error::FenceTimeout {
                    task: s.task(id).name,
                    value: 1,
                });
            }
            let engine_error = match rt.submit {
                Submit::Dla { device, .. } => dlas[device].device.poll_error(),
                Submit::Pva { task } => pva_tasks[task].poll_error(0),
                _ => None,
            };
            if let Some(status) = engine_error {
                return Err(Error::EngineFailed {
                    engine: s.engines[s.task(id).engine.0 as usize].name,
                    status,
                });
            }
            if let Some(start) = rt.start.as_ref() {
                // The warm-up task waits for nothing: the DLA starts it no earlier than it was
                // submitted, so its SOF timestamp (DLA clock) minus `submitted` (executive
                // clock) bounds the clocks' offset from above; it ended no later than the CPU
                // saw its fence, so EOF minus `seen` bounds it from below. The offset is the
                // tightest upper bound (exact on the SIL virtual clock, where the DLA starts
                // at submission and the CPU's clock does not move while it waits); the
                // window between the bounds is the stated uncertainty.
                let seen = clock.now_ns() as i64;
                let sof_ns = start.fences[0].timestamp_us(context)?.saturating_mul(1000) as i64;
                let eof_ns = rt.eof[0].timestamp_us(context)?.saturating_mul(1000) as i64;
                let upper = sof_ns - submitted as i64;
                let lower = eof_ns - seen;
                if dla_offset.is_none_or(|(o, _)| upper < o) {
                    dla_offset = Some((upper, (upper - lower).max(0)));
                }
            }
        }
        let (offset, window) = dla_offset.unwrap_or((0, 0));
        self.state.dla_offset_ns = offset;
        self.state.dla_offset_window_ns = window;
        self.calibrate_gpu_timer()
    }

    /// GPU timer minus CPU clock: the best of a few stamp round trips.
    fn calibrate_gpu_timer(&mut self) -> Result<()> {
        let State {
            streams, stamps, ..
        } = &mut self.state;
        let (Some(stamps), Some(first)) = (stamps.as_mut(), streams.first()) else {
            return Ok(());
        };
        if cfg!(platform = "sil") {
            stamps.offset_ns = 0; // SIL CUDA stamps the SIL clock, which is the CPU clock.
            return Ok(());
        }
        // The CPU spins on the pinned slot until the GPU's write shows up: the stamp was
        // taken at most the write's visibility latency (about a microsecond) before the CPU
        // saw it. (A midpoint of launch and synchronize would be off by the asymmetry of the
        // launch and completion latencies, hundreds of microseconds in a VM.) The sample
        // with the shortest launch-to-visible time wins.
        let mut best = (u64::MAX, 0i64);
        for _ in 0..32 {
            stamps.memory.write_bytes(0, &[0; 8])?;
            let before = os::monotonic_ns();
            stamps
                .kernel
                .launch(&first.stream, 0, Context::Cubin("timing"))?;
            let (gpu, seen) = loop {
                let now = os::monotonic_ns();
                match stamps.memory.read_u64(0) {
                    Some(g) if g != 0 => break (g, now),
                    _ if now - before > 1_000_000_000 => {
                        return Err(Error::FenceTimeout {
                            task: "gpu timer calibration",
                            value: 0,
                        });
                    }
                    _ => core::hint::spin_loop(),
                }
            };
            first.stream.synchronize()?;
            if seen - before < best.0 {
                best = (seen - before, gpu as i64 - seen as i64);
            }
        }
        stamps.offset_ns = best.1;
        Ok(())
    }

    pub(crate) fn release_all(&mut self) -> Result<()> {
        crate::exec::executive::release_engines(&mut self.state)
    }
}

/// What to ask the OS for `thread`: the schedule's priority, else `config`'s, and the
/// schedule's CPUs.
pub(crate) fn thread_request(s: &Schedule, thread: Thread, config: Config) -> os::ThreadRequest {
    let t = s.thread(thread);
    os::ThreadRequest {
        priority: match t.priority {
            0 => config.realtime_priority,
            p => Some(i32::from(p)),
        },
        cpus: t.cpus,
    }
}

pub(crate) fn spawn_workers(
    s: &'static Schedule,
    state: &mut State,
    shared: Shared,
    workers: Workers,
    config: Config,
    process_cpus: u64,
) -> Result<()> {
    let module = state
        .sync_module
        .as_ref()
        .ok_or(Error::Phase(Phase::NvSciSyncNotOpen))?;
    let Workers {
        bodies,
        mut tasks,
        mut sems,
    } = workers;
    let per_worker = bodies.len();
    for (ei, e) in s.engines.iter().enumerate() {
        if e.kind != EngineKind::Cpu {
            continue;
        }
        let engine = EngineId(ei as u8);
        // This worker's chunks of the task and semaphore tables.
        let limit = state.workers.capacity() as u32;
        let full = Error::Capacity {
            table: Table::CpuWorkers,
            limit,
        };
        if tasks.len() < per_worker || sems.len() < per_worker {
            return Err(full);
        }
        let (my_tasks, rest) = core::mem::take(&mut tasks).split_at_mut(per_worker);
        tasks = rest;
        let (my_sems, rest) = core::mem::take(&mut sems).split_at_mut(per_worker);
        sems = rest;
        let mut n = 0;
        let mut need: u64 = 0;
        for (ti, t) in s.tasks.iter().enumerate() {
            if t.engine != engine {
                continue;
            }
            let body = bodies
                .get_mut(ti)
                .and_then(Option::take)
                .ok_or(Error::UnboundTask { task: t.name })?;
            my_tasks[n] = Some(WorkerTask {
                id: TaskId(ti as u16),
                body,
            });
            n += 1;
            need |= 1 << ti;
            for w in t.waits {
                need |= 1 << w.task.0;
            }
            for b in t.reads.iter().chain(t.writes) {
                for write in [false, true] {
                    for p in shared.ledger.prerequisites(TaskId(ti as u16), *b, write) {
                        need |= 1 << p.task.0;
                    }
                }
            }
        }
        for (ti, sem) in state.sems.iter().enumerate() {
            if need & (1 << ti) != 0 {
                my_sems[ti] = Some(sem.dup(Context::Semaphore(s.tasks[ti].name))?);
            }
        }
        // A worker that spins on a dependency from the frame's release must be awake at the
        // release: it spins for the release too, instead of parking until the executive's
        // wake-up reaches it (tens to hundreds of µs from an idle core).
        let spin_for_release = s.tasks.iter().filter(|t| t.engine == engine).any(|t| {
            t.waits.iter().any(|w| {
                matches!(
                    s.cpu_wait(w.task),
                    crate::table::CpuWait::Spin { from_ns: 0, .. }
                )
            })
        });
        let worker = Worker {
            shared,
            spin_for_release,
            tasks: my_tasks,
            sems: my_sems,
            wait: CpuWaitContext::alloc(module)?,
            fence: RawFence::cleared(),
            owed: heapless::Vec::new(),
            stopped: false,
        };
        let mut request = thread_request(s, Thread::Worker(engine), config);
        // A new thread starts on its creator's CPUs (Linux): a worker without `cpus` asks for
        // the ones the executive had before it pinned itself, so it is not pinned with it.
        if request.cpus == 0 && s.thread(Thread::Executive).cpus != 0 {
            request.cpus = process_cpus;
        }
        let name = e.name;
        // Init waits until the thread runs and reports what the OS granted it: its start-up
        // (which allocates) belongs to init.
        let (granted, grant_rx) = std::sync::mpsc::sync_channel(1);
        let join = thread::Builder::new()
            .name(std::format!("orin-exec-{}", e.name))
            .spawn(move || {
                os::tighten_timer_slack();
                let _ = granted.send(os::apply_thread(name, request));
                drop(granted);
                worker.run()
            })
            .map_err(|_| Error::Platform(PlatformFact::WorkerThreadNotStarted))?;
        let Ok(grant) = grant_rx.recv() else {
            // The thread ended (it panicked) before it ran the worker: join it, so that no
            // thread of this runtime outlives init's failure.
            let _ = join.join();
            return Err(Error::Platform(PlatformFact::WorkerThreadNotStarted));
        };
        let thread = join.thread().clone();
        let handle = WorkerHandle {
            join,
            thread,
            grant,
        };
        if let Err(w) = state.workers.push(handle) {
            // Not recorded, so the caller's release would not join it: stop and join it here.
            shared.board.request_stop();
            w.thread.unpark();
            let _ = w.join.join();
            return Err(full);
        }
    }
    Ok(())
}
