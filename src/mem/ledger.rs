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

use crate::error::{Context, Error, Result};
use crate::limits::MAX_TASKS;
use crate::table::{BufferId, EngineKind, Schedule, TaskId};

/// Engine work that must be complete: `task` of frame `f - lag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prerequisite {
    /// The accelerator task.
    pub task: TaskId,
    /// How many frames back.
    pub lag: u8,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    cpu_task: TaskId,
    buffer: BufferId,
    write: bool,
    prerequisite: Prerequisite,
}

const MAX_ENTRIES: usize = 4 * MAX_TASKS;

/// Prerequisites of every CPU buffer access of a schedule, computed once at init.
///
/// ```
/// # use orin_exec::table::*;
/// # use orin_exec::mem::{AccessLedger, Prerequisite};
/// # static ENGINES: [EngineDesc; 2] = [
/// #   EngineDesc { name: "cpu0", kind: EngineKind::Cpu, instance: 0, queue_capacity: 4 },
/// #   EngineDesc { name: "dla0", kind: EngineKind::Dla, instance: 0, queue_capacity: 4 }];
/// # static BUFFERS: [BufferDesc; 1] = [BufferDesc { name: "out",
/// #   kind: BufferKind::Raw { size: 64, align: 64 }, multiplicity: 2, cpu_access: true }];
/// # static LOADABLES: [LoadableDesc; 1] = [LoadableDesc { name: "net", sha256: [0; 32],
/// #   image: &[], inputs: &[], outputs: &[] }];
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
/// #   minor_frames_ns: &[0], lookahead: 1, engines: &ENGINES, buffers: &BUFFERS, tasks: &TASKS,
/// #   modes: &[ModeDesc { name: "normal" }], health: &[], cubins: &[], loadables: &LOADABLES,
/// #   timeline: &[] };
/// # static S: Schedule = match Schedule::check(&TABLES) { Ok(s) => s, Err(e) => panic!("{}", e.message()) };
/// let ledger = AccessLedger::new(&S).unwrap();
/// let pre: Vec<_> = ledger.prerequisites(TaskId(1), BufferId(0), false).collect();
/// assert_eq!(pre, [Prerequisite { task: TaskId(0), lag: 0 }]);
/// ```
pub struct AccessLedger {
    entries: heapless::Vec<Entry, MAX_ENTRIES>,
}

/// Bit set of tasks ordered before each task within one frame.
pub(crate) fn predecessors(schedule: &Schedule) -> [u64; MAX_TASKS] {
    let mut before = [0u64; MAX_TASKS];
    for (i, t) in schedule.tasks.iter().enumerate().take(MAX_TASKS) {
        let mut set = 0u64;
        for w in t.waits.iter().filter(|w| w.lag == 0) {
            let u = w.task.0 as usize;
            if u < MAX_TASKS {
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
    before
}

impl AccessLedger {
    /// A ledger with no entries (static storage before init).
    pub const fn empty() -> Self {
        AccessLedger {
            entries: heapless::Vec::new(),
        }
    }

    /// Compute the prerequisites of every CPU access in `schedule`.
    pub fn new(schedule: &Schedule) -> Result<Self> {
        if schedule.tasks.len() > MAX_TASKS {
            return Err(Error::Capacity {
                what: "tasks",
                limit: MAX_TASKS as u32,
            });
        }
        let before = predecessors(schedule);
        let mut entries = heapless::Vec::new();
        let kind =
            |t: &crate::table::TaskDesc| schedule.engines.get(t.engine.0 as usize).map(|e| e.kind);
        for (i, t) in schedule.tasks.iter().enumerate() {
            if kind(t) != Some(EngineKind::Cpu) {
                continue;
            }
            let accesses = t
                .reads
                .iter()
                .map(|b| (*b, false))
                .chain(t.writes.iter().map(|b| (*b, true)));
            for (buffer, write) in accesses {
                let desc = schedule
                    .buffers
                    .get(buffer.0 as usize)
                    .ok_or(Error::BadSchedule {
                        what: "buffer index out of range",
                        context: Context::Task(t.name),
                    })?;
                for (j, u) in schedule.tasks.iter().enumerate() {
                    // The task's own worker runs its tasks in order: no check needed there.
                    if u.engine == t.engine {
                        continue;
                    }
                    let u_writes = u.writes.contains(&buffer);
                    let u_reads = u.reads.contains(&buffer);
                    if !(u_writes || (write && u_reads)) {
                        continue;
                    }
                    // U before T: this frame's U. U after T: the previous user of this copy.
                    // Unordered (a schedule the validator would reject): this frame's U, so
                    // a race shows up as a refused borrow rather than as corrupt data.
                    let after = before[j] & (1 << i) != 0;
                    let lag = if after { desc.multiplicity.max(1) } else { 0 };
                    let entry = Entry {
                        cpu_task: TaskId(i as u16),
                        buffer,
                        write,
                        prerequisite: Prerequisite {
                            task: TaskId(j as u16),
                            lag,
                        },
                    };
                    entries.push(entry).map_err(|_| Error::Capacity {
                        what: "CPU buffer prerequisites",
                        limit: MAX_ENTRIES as u32,
                    })?;
                }
            }
        }
        Ok(AccessLedger { entries })
    }

    /// The prerequisites of `task` reading (or, with `write`, writing) `buffer`.
    pub fn prerequisites(
        &self,
        task: TaskId,
        buffer: BufferId,
        write: bool,
    ) -> impl Iterator<Item = Prerequisite> + '_ {
        self.entries
            .iter()
            .filter(move |e| e.cpu_task == task && e.buffer == buffer && e.write == write)
            .map(|e| e.prerequisite)
    }

    /// Whether `task` declared this access in the schedule.
    pub fn declared(schedule: &Schedule, task: TaskId, buffer: BufferId, write: bool) -> bool {
        schedule.tasks.get(task.0 as usize).is_some_and(|t| {
            if write {
                t.writes.contains(&buffer)
            } else {
                t.reads.contains(&buffer) || t.writes.contains(&buffer)
            }
        })
    }
}
