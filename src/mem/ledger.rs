//! Which engine work must be complete before the CPU touches a buffer.
//!
//! For a CPU task `T` touching buffer `B` in frame `f`, every task `U` on another engine that
//! conflicts with the access (it writes `B`, or `T` writes and `U` reads) must have completed
//! its most recent frame that used the same copy of `B` and is ordered before `T`:
//! frame `f - multiplicity` if `U` comes after `T` within a frame, otherwise frame `f`
//! (`U` before `T`, or not ordered at all, which the validator rejects and the runtime
//! refuses at run time).
//! The validator proved such an ordering exists; the ledger turns it into fences the CPU can
//! check without blocking, so a mistake shows up as a typed error instead of a data race.

use crate::error::{Error, Result, Table};
use crate::table::{BufferId, EngineKind, Schedule, TaskId};

/// Engine work that must be complete: `task` of frame `f - lag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prerequisite {
    /// The accelerator task.
    pub task: TaskId,
    /// How many frames back.
    pub lag: u8,
}

/// Which tasks read and which write one buffer (a bit per task index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferUsers {
    /// Tasks that declare the buffer in `reads`.
    pub readers: u64,
    /// Tasks that declare the buffer in `writes`.
    pub writers: u64,
}

impl BufferUsers {
    /// No task uses the buffer (a `static` initialiser).
    pub const NONE: BufferUsers = BufferUsers {
        readers: 0,
        writers: 0,
    };
}

/// Prerequisites of every CPU buffer access of a schedule, derived on demand from two tables
/// computed once at init into storage sized to the schedule: each task's set of same-frame
/// predecessors (one `u64` per task) and each buffer's readers and writers (one
/// [`BufferUsers`] per buffer). A look-up costs the same whatever the schedule's size: it
/// visits only the tasks that use the buffer.
///
/// ```
/// # use orin_exec::table::*;
/// # use orin_exec::mem::{AccessLedger, BufferUsers, Prerequisite};
/// # static ENGINES: [EngineDesc; 2] = [
/// #   EngineDesc { name: "cpu0", kind: EngineKind::Cpu, instance: 0, queue_capacity: 4, graph: false, vpu: None },
/// #   EngineDesc { name: "dla0", kind: EngineKind::Dla, instance: 0, queue_capacity: 4, graph: false, vpu: None }];
/// # static BUFFERS: [BufferDesc; 1] = [BufferDesc { name: "out",
/// #   kind: BufferKind::Raw { size: 64, align: 64 }, multiplicity: 2, cpu_access: true }];
/// # static LOADABLES: [LoadableDesc; 1] = [LoadableDesc { name: "net", onnx_sha256: [0; 32],
/// #   onnx: &[], loadable: None, inputs: &[], outputs: &[] }];
/// # const fn task(name: &'static str, engine: u8, work: Work, reads: &'static [BufferId],
/// #   writes: &'static [BufferId], waits: &'static [Wait]) -> TaskDesc {
/// #   TaskDesc { name, engine: EngineId(engine), work, wcet_ns: 1, budget_ns: 1,
/// #     deadline_ns: 10, release_ns: 0, reads, writes, waits, modes: ModeMask::ALL } }
/// # const INFER: Work = Work::Dla(DlaWork { loadable: LoadableId(0), inputs: &[],
/// #   outputs: &[TensorBinding { tensor: "out", buffer: BufferId(0) }] });
/// // The DLA writes `out`, the CPU reads it after waiting for the DLA; the DLA overwrites
/// // that copy two frames later, after the CPU's read (so there is no race).
/// static TASKS: [TaskDesc; 2] = [
///     task("infer", 1, INFER, &[], &[BufferId(0)], &[Wait { task: TaskId(1), lag: 2 }]),
///     task("use", 0, Work::Cpu, &[BufferId(0)], &[], &[Wait { task: TaskId(0), lag: 0 }]),
/// ];
/// # static TABLES: ScheduleTables = ScheduleTables { name: "s", profile: "sil", period_ns: 10,
/// #   minor_frames_ns: &[0], lookahead: 1, threads: &[], engines: &ENGINES, buffers: &BUFFERS, tasks: &TASKS,
/// #   modes: &[ModeDesc { name: "normal" }], health: &[], cubins: &[], loadables: &LOADABLES,
/// #   pva_programs: &[], timeline: &[], cpu_waits: &[] };
/// # static S: Schedule = match Schedule::check(&TABLES) { Ok(s) => s, Err(e) => panic!("{}", e.message()) };
/// let (mut before, mut users) = ([0u64; 2], [BufferUsers::NONE; 1]);
/// let ledger = AccessLedger::new(&S, &mut before, &mut users).unwrap();
/// let pre: Vec<_> = ledger.prerequisites(TaskId(1), BufferId(0), false).collect();
/// assert_eq!(pre, [Prerequisite { task: TaskId(0), lag: 0 }]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AccessLedger<'a> {
    schedule: &'a Schedule,
    /// Per task, the tasks ordered before it within a frame (bit per task index).
    before: &'a [u64],
    /// Per buffer, its readers and writers.
    users: &'a [BufferUsers],
}

/// Fill `before[i]` with the set of tasks ordered before task `i` within one frame: its
/// same-frame dependencies and the tasks ahead of it in its engine's FIFO, transitively.
/// Tasks past `before.len()` (or past 64, the width of a task set) are left out.
pub(crate) fn predecessors(schedule: &Schedule, before: &mut [u64]) {
    for (i, t) in schedule.tasks.iter().enumerate().take(before.len().min(64)) {
        let mut set = 0u64;
        for w in t.waits.iter().filter(|w| w.lag == 0) {
            let u = w.task.0 as usize;
            if u < i {
                set |= (1 << u) | before[u];
            }
        }
        for (j, u) in schedule.tasks.iter().enumerate().take(i) {
            if u.engine == t.engine {
                set |= (1 << j) | before[j];
            }
        }
        before[i] = set;
    }
}

impl<'a> AccessLedger<'a> {
    /// The ledger of `schedule`, with `before` (one entry per task) and `users` (one per
    /// buffer) as its storage.
    pub fn new(
        schedule: &'a Schedule,
        before: &'a mut [u64],
        users: &'a mut [BufferUsers],
    ) -> Result<Self> {
        let tasks = schedule.tasks.len();
        if tasks > before.len().min(64) {
            return Err(Error::Capacity {
                table: Table::Tasks,
                limit: before.len().min(64) as u32,
            });
        }
        let buffers = schedule.buffers.len();
        if buffers > users.len() {
            return Err(Error::Capacity {
                table: Table::Buffers,
                limit: users.len() as u32,
            });
        }
        predecessors(schedule, before);
        let users = &mut users[..buffers];
        users.fill(BufferUsers::NONE);
        for (i, t) in schedule.tasks.iter().enumerate() {
            let bit = 1u64 << i;
            for b in t.reads {
                if let Some(u) = users.get_mut(b.0 as usize) {
                    u.readers |= bit;
                }
            }
            for b in t.writes {
                if let Some(u) = users.get_mut(b.0 as usize) {
                    u.writers |= bit;
                }
            }
        }
        Ok(AccessLedger {
            schedule,
            before: &before[..tasks],
            users,
        })
    }

    /// The prerequisites of `task` reading (or, with `write`, writing) `buffer`: every task
    /// `U` on another engine that conflicts with the access (it writes `buffer`, or the access
    /// writes and `U` reads it), at the lag of `U`'s last use of the same copy: this frame's
    /// `U` if `U` runs before `task`, the previous user of the copy (`multiplicity` frames
    /// back) if `U` runs after it. Unordered pairs (which the validator rejects) get lag 0, so
    /// a race shows up as a refused borrow rather than as corrupt data. Nothing is allocated.
    pub fn prerequisites(
        &self,
        task: TaskId,
        buffer: BufferId,
        write: bool,
    ) -> impl Iterator<Item = Prerequisite> + '_ {
        let s = self.schedule;
        let t = s.tasks.get(task.0 as usize);
        let multiplicity = s
            .buffers
            .get(buffer.0 as usize)
            .map_or(1, |b| b.multiplicity.max(1));
        let is_cpu = t.is_some_and(|t| {
            s.engines
                .get(t.engine.0 as usize)
                .is_some_and(|e| e.kind == EngineKind::Cpu)
        });
        let users = self
            .users
            .get(buffer.0 as usize)
            .copied()
            .unwrap_or_default();
        // Tasks that conflict with the access: the writers, and the readers too if it writes.
        let mut conflicting = if is_cpu && self.declared(task, buffer, write) {
            users.writers | if write { users.readers } else { 0 }
        } else {
            0
        };
        core::iter::from_fn(move || {
            let t = t?;
            while conflicting != 0 {
                let j = conflicting.trailing_zeros() as usize;
                conflicting &= conflicting - 1;
                // The task's own worker runs its tasks in order: no check needed there.
                if s.tasks.get(j).is_none_or(|u| u.engine == t.engine) {
                    continue;
                }
                let after = self.before.get(j).is_some_and(|b| b & (1 << task.0) != 0);
                return Some(Prerequisite {
                    task: TaskId(j as u16),
                    lag: if after { multiplicity } else { 0 },
                });
            }
            None
        })
    }

    /// Whether `task` declared this access in the schedule (a write, or with `write` false a
    /// read or a write).
    pub fn declared(&self, task: TaskId, buffer: BufferId, write: bool) -> bool {
        let Some(users) = self.users.get(buffer.0 as usize) else {
            return false;
        };
        let mask = if write {
            users.writers
        } else {
            users.readers | users.writers
        };
        task.0 < 64 && mask & (1 << task.0) != 0
    }
}
