//! A CPU task whose dependencies have not ended when it does (it gave up waiting for them at
//! its latest start, or its worker reached it after its deadline) owes its signal until they
//! end. The validator orders buffer hazards through chains of waits, so a signal given early
//! would release accelerator work that the dependencies' buffers are still in use by.
//!
//! The chain of `tests/user_kernel`: `other_stream` (on `gpu1`) of frame 4 reads `out` for
//! 30 ms, three periods (frames 0 to 2 before it are the control: they show whether this host
//! keeps the period at all). `verify` waits for it, gives up at its latest start and runs;
//! `produce` of the next frame waits for `verify`; `first` and `second` (on `gpu0`) of that
//! frame wait for `produce`, and `second` writes `out`. Had `verify` signalled when it ran,
//! `second` would write `out` while `other_stream` still reads it. The kernel model here
//! records every launch that writes a buffer another launch is reading.
//!
//! Each owed run waits for its own dependencies only: `produce` waits for the previous
//! frame's `verify`, so a run waiting for a later run's dependencies would wait for itself.
//! The pipeline must recover once the slow read is over.
//!
//! Covers: REQ-RT-019
#![cfg(feature = "sil")]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use orin_exec::exec::Storage;
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use orin_exec::table::{GpuWork, Param, Work};

mod user_kernel;
use user_kernel::chain::{self, LAST, OTHER_STREAM, OUT, VERIFY};
use user_kernel::{KERNEL, N, SCALE_INDEX, leak, user_cubin};

/// The factor `other_stream` is given: the model reads slowly when it sees it.
const SLOW_K: i32 = 5;
const SLOW_READ: Duration = Duration::from_millis(30);
/// The frame of `other_stream`'s slow launch (launches count from 0, one a frame).
const SLOW_FRAME: u64 = 4;

/// Launches of `other_stream` so far: the fifth one (frame 4) is slow.
static SLOW_LAUNCHES: AtomicU64 = AtomicU64::new(0);
/// Buffers (their addresses) some launch is reading now.
static READING: Mutex<Vec<usize>> = Mutex::new(Vec::new());
/// Launches that wrote a buffer while another launch read it.
static OVERLAPS: AtomicU64 = AtomicU64::new(0);

/// The user's kernel (`ScaleIndex`), watching for a write into a buffer being read; the
/// launch with `SLOW_K` in frame `SLOW_FRAME` holds its input for `SLOW_READ` first.
struct Watching;

impl Watching {
    fn writes_while_read(out: usize) {
        if READING.lock().unwrap().contains(&out) {
            OVERLAPS.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl KernelModel for Watching {
    fn params(&self) -> &[ParamKind] {
        SCALE_INDEX.params()
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let n = l.u32(3)? as usize;
        let (input, out) = l.buffers((read::<i32>(0, n), write::<i32>(1, n)))?;
        let (input, out) = (input.as_ptr() as usize, out.as_ptr() as usize);
        Self::writes_while_read(out);
        if l.i32(2)? == SLOW_K && SLOW_LAUNCHES.fetch_add(1, Ordering::SeqCst) == SLOW_FRAME {
            READING.lock().unwrap().push(input);
            std::thread::sleep(SLOW_READ);
            READING.lock().unwrap().retain(|a| *a != input);
        }
        SCALE_INDEX.launch(l)?;
        Self::writes_while_read(out);
        Ok(())
    }
}

static WATCHING: Watching = Watching;

#[test]
fn a_cpu_task_past_its_dependencies_signals_only_after_they_end() {
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &WATCHING).expect("model");
    let chain = chain::schedule(chain::Options {
        name: "owed_signals",
        ..Default::default()
    });
    // `other_stream` with SLOW_K.
    let mut tables = *chain.tables();
    let mut tasks = tables.tasks.to_vec();
    let slow = &mut tasks[OTHER_STREAM.0 as usize];
    slow.work = Work::Gpu(GpuWork {
        params: leak(vec![
            Param::Buffer(OUT),
            Param::Buffer(LAST),
            Param::I32(SLOW_K),
            Param::U32(N),
        ]),
        ..match chain::gpu(OUT, LAST) {
            Work::Gpu(g) => g,
            _ => unreachable!("chain::gpu is GPU work"),
        }
    });
    tables.tasks = leak(tasks);
    let schedule = chain::check(tables);

    let mut exec = chain::builder(schedule, Storage::<5, 4, 4, 1>::new(), false, false)
        .bind(VERIFY, Box::leak(Box::new(chain::Idle)))
        .init()
        .expect("init")
        .seal()
        .expect("seal");
    let faults: Vec<u32> = (0..16).map(|_| exec.step().expect("step").faults).collect();
    println!("faults per frame: {faults:?}");
    assert!(
        faults[3..10].iter().sum::<u32>() > 0,
        "the slow read is seen as faults: {faults:?}"
    );
    // Frames 0 to 2 run before the slow read has any effect. Faults there mean that this host
    // cannot keep the period at all (e.g. ci/orin-imports.sh's debugger stops the program at
    // every driver call), so faults cannot tell whether the pipeline recovered. The overlap
    // check below holds on any host.
    if faults[..3] == [0; 3] {
        assert_eq!(
            faults[12..],
            [0; 4],
            "the pipeline recovers after the slow read: {faults:?}"
        );
    } else {
        eprintln!("frames 0 to 2 had faults, so recovery is not judged on this host: {faults:?}");
    }
    exec.shutdown()
        .expect("shutdown drains the queued work in order");
    assert_eq!(
        OVERLAPS.load(Ordering::SeqCst),
        0,
        "a launch wrote `out` while `other_stream` still read it"
    );
    assert!(READING.lock().unwrap().is_empty());
}
