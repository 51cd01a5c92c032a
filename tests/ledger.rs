//! The access ledger's indexed look-ups give what its definition gives, computed here the
//! slow way: every task on another engine that conflicts with the access, at lag 0 if it runs
//! before the accessing task within a frame, else at the buffer's multiplicity.
//!
//! Covers: REQ-RT-016

mod common;

use common::*;
use orin_exec::mem::{AccessLedger, BufferUsers, Prerequisite};
use orin_exec::table::{BufferId, Schedule, TaskId};

/// Tasks ordered before `t` within a frame: same-frame waits and earlier tasks of the same
/// engine, transitively (the definition, without bit sets).
fn ordered_before(s: &Schedule, t: usize, u: usize) -> bool {
    let task = &s.tasks[t];
    task.waits
        .iter()
        .filter(|w| w.lag == 0 && (w.task.0 as usize) < t)
        .map(|w| w.task.0 as usize)
        .chain((0..t).filter(|&j| s.tasks[j].engine == task.engine))
        .any(|j| j == u || ordered_before(s, j, u))
}

fn definition(s: &Schedule, t: usize, b: BufferId, write: bool) -> Vec<Prerequisite> {
    let task = &s.tasks[t];
    let cpu = s.engines[task.engine.0 as usize].kind == orin_exec::table::EngineKind::Cpu;
    let declared = task.writes.contains(&b) || (!write && task.reads.contains(&b));
    if !cpu || !declared {
        return Vec::new();
    }
    let multiplicity = s.buffers[b.0 as usize].multiplicity.max(1);
    (0..s.tasks.len())
        .filter(|&j| s.tasks[j].engine != task.engine)
        .filter(|&j| s.tasks[j].writes.contains(&b) || (write && s.tasks[j].reads.contains(&b)))
        .map(|j| Prerequisite {
            task: TaskId(j as u16),
            lag: if ordered_before(s, j, t) {
                multiplicity
            } else {
                0
            },
        })
        .collect()
}

#[test]
fn indexed_prerequisites_equal_the_definition_for_every_access() {
    for v in [
        Variant::default(),
        Variant {
            period_ns: 20_000_000,
            ..Variant::default()
        },
    ] {
        let s = schedule(v);
        let mut before = vec![0u64; s.tasks.len()];
        let mut users = vec![BufferUsers::NONE; s.buffers.len()];
        let ledger = AccessLedger::new(s, &mut before, &mut users).expect("ledger");
        let mut compared = 0;
        for t in 0..s.tasks.len() {
            for b in 0..s.buffers.len() as u16 {
                for write in [false, true] {
                    let got: Vec<_> = ledger
                        .prerequisites(TaskId(t as u16), BufferId(b), write)
                        .collect();
                    let want = definition(s, t, BufferId(b), write);
                    assert_eq!(got, want, "task {t}, buffer {b}, write {write}");
                    let task = &s.tasks[t];
                    let declared = task.writes.contains(&BufferId(b))
                        || (!write && task.reads.contains(&BufferId(b)));
                    assert_eq!(
                        ledger.declared(TaskId(t as u16), BufferId(b), write),
                        declared
                    );
                    compared += want.len();
                }
            }
        }
        assert!(
            compared > 0,
            "the pipeline has CPU accesses with prerequisites"
        );
    }
}

#[test]
fn storage_too_small_for_the_buffers_is_a_capacity_error() {
    let s = schedule(Variant::default());
    let mut before = vec![0u64; s.tasks.len()];
    let mut users = vec![BufferUsers::NONE; s.buffers.len() - 1];
    let e = AccessLedger::new(s, &mut before, &mut users).unwrap_err();
    assert!(matches!(e, orin_exec::Error::Capacity { .. }), "{e:?}");
}
