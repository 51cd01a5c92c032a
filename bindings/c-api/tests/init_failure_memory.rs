//! Nothing is lost when `orin_exec_init` fails: a C partition that retries keeps its memory.
//!
//! A global allocator counts the live bytes of the process (every thread: the executive, the
//! CPU workers, the SIL libraries' engine threads). The schedule is the two-task CPU pipeline
//! plus a GPU task whose cubin's SHA-256 does not match its image: `orin_exec_create` accepts
//! it (the tables are well formed), `Builder::init` opens NvSciSync, NvSciBuf and the GPU
//! context, then refuses the cubin (`HashMismatch`) and releases what it built. After 20
//! create/bind/init (failing)/destroy cycles the live bytes are those before the loop; so
//! they are after create/bind/init/seal/step/shutdown/destroy cycles of the good pipeline.
//! A control shows that the counter sees the runtime's memory (its storage alone is MiBs).
//! One cycle of each kind runs first: the libraries' one-time process state (registries, the
//! first thread's bookkeeping) is not the runtime's memory.
//!
//! Own `main` (no libtest harness), so no test-runner thread allocates behind our back.
//!
//! Covers: REQ-PART-038

mod common;

use std::ptr::null_mut;

use common::*;
use counting::{Counting, live};
use orin_exec_capi::orin_exec_status_t as S;
use orin_exec_capi::*;

#[path = "common/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const RETRIES: usize = 20;

/// The pipeline plus a GPU engine and a GPU task whose cubin's hash does not match its image.
struct BadCubin {
    pipeline: Box<Pipeline>,
    variants: Vec<orin_exec_cubin_variant_t>,
    cubins: Vec<orin_exec_cubin_desc_t>,
}

/// Not a cubin; its "hash" is zeros. Every SM has a variant, so the hash check is what fails.
static IMAGE: [u8; 64] = [0x7f; 64];

impl BadCubin {
    fn new() -> Box<BadCubin> {
        let mut pipeline = Pipeline::new();
        pipeline.engines.push(orin_exec_engine_desc_t {
            name: c"gpu0".as_ptr(),
            kind: ORIN_EXEC_ENGINE_GPU,
            instance: 0,
            graph: false,
            queue_capacity: 4,
            vpu: ORIN_EXEC_VPU_NONE,
        });
        let mut gpu = pipeline.tasks[0];
        gpu.name = c"kernel".as_ptr();
        gpu.engine = 1;
        gpu.work = ORIN_EXEC_WORK_GPU;
        gpu.artifact = 0;
        gpu.kernel = c"scale".as_ptr();
        gpu.grid = [1, 1, 1];
        gpu.block = [32, 1, 1];
        gpu.writes = std::ptr::null();
        gpu.writes_len = 0;
        gpu.waits = std::ptr::null();
        gpu.waits_len = 0;
        pipeline.tasks.push(gpu);
        let variants = [53, 72, 75, 80, 86, 87, 89, 90, 100, 120]
            .into_iter()
            .map(|sm| orin_exec_cubin_variant_t {
                sm,
                sha256: [0; 32],
                image: IMAGE.as_ptr(),
                image_len: IMAGE.len(),
            })
            .collect();
        let mut b = Box::new(BadCubin {
            pipeline,
            variants,
            cubins: Vec::new(),
        });
        let variants = &b.variants;
        let cubin = orin_exec_cubin_desc_t {
            name: c"bad".as_ptr(),
            variants: variants.as_ptr(),
            variants_len: variants.len(),
        };
        b.cubins.push(cubin);
        b
    }

    fn tables(&self) -> orin_exec_schedule_tables_t {
        let mut t = self.pipeline.tables();
        t.cubins = self.cubins.as_ptr();
        t.cubins_len = self.cubins.len();
        t
    }
}

/// A runtime of `tables` with both CPU tasks bound.
fn create_bound(tables: &orin_exec_schedule_tables_t) -> *mut orin_exec_runtime_t {
    let rt = create(tables).expect("create");
    assert_eq!(
        orin_exec_bind(rt, PRODUCER, Some(producer), null_mut()),
        S::ORIN_EXEC_OK
    );
    assert_eq!(
        orin_exec_bind(rt, CONSUMER, Some(consumer), null_mut()),
        S::ORIN_EXEC_OK
    );
    rt
}

/// create, bind, init (which fails on the cubin's hash), destroy. The live bytes while the
/// failed runtime exists (before destroy), above those before create.
fn failed_init(tables: &orin_exec_schedule_tables_t) -> i64 {
    let before = live();
    let rt = create_bound(tables);
    assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_E_INIT);
    let message = last_error();
    assert!(
        message.contains("SHA-256 differs"),
        "not the cubin's hash: {message}"
    );
    assert!(
        !message.contains("keeps this runtime's memory"),
        "init did not release everything: {message}"
    );
    let held = live() - before;
    assert_eq!(
        orin_exec_seal(rt),
        S::ORIN_EXEC_E_PHASE,
        "only destroy is left"
    );
    assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
    held
}

/// create, bind, init, seal, 20 frames, shutdown, destroy.
fn good_cycle(tables: &orin_exec_schedule_tables_t) {
    let rt = create_bound(tables);
    assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_OK, "{}", last_error());
    assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_OK, "{}", last_error());
    let mut r = orin_exec_frame_report_t::default();
    for _ in 0..20 {
        // SAFETY: a live handle and a valid report pointer.
        let s = unsafe { orin_exec_step(rt, &mut r) };
        assert_eq!(s, S::ORIN_EXEC_OK, "{}", last_error());
    }
    assert_eq!(r.frame, 19);
    assert_eq!(orin_exec_shutdown(rt), S::ORIN_EXEC_OK, "{}", last_error());
    assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
}

fn main() {
    let bad = BadCubin::new();
    let bad_tables = bad.tables();
    let good = Pipeline::new();
    let good_tables = good.tables();

    // One cycle of each first: the libraries' one-time process state.
    failed_init(&bad_tables);
    good_cycle(&good_tables);

    let before = live();
    let mut held = 0;
    for _ in 0..RETRIES {
        held = failed_init(&bad_tables);
    }
    let after = live();
    // Control: the counter sees the failed runtime's memory (its storage is MiBs).
    assert!(
        held > 1 << 20,
        "a failed runtime holds {held} bytes before destroy: the counter does not see it"
    );
    assert_eq!(
        after - before,
        0,
        "{RETRIES} failed inits lost {} bytes (a failed runtime holds {held})",
        after - before
    );
    println!("{RETRIES} failed inits (cubin hash) and destroys: 0 bytes lost ({held} freed each)");

    let before = live();
    for _ in 0..3 {
        good_cycle(&good_tables);
    }
    let after = live();
    assert_eq!(
        after - before,
        0,
        "create/init/seal/step/shutdown/destroy lost {} bytes",
        after - before
    );
    println!("3 create/init/seal/step/shutdown/destroy cycles: 0 bytes lost");
}
