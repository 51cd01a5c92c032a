//! `Schedule::check` and the schedule validator (`orin-exec-schedule`) agree: thousands of
//! random schedules are written both as TOML (for the validator) and as tables (for
//! `Schedule::check`); each is accepted by both or rejected by both, and a rejection by
//! `Schedule::check` names a race or deadline miss that the validator reports too (same
//! buffer, tasks, mode and frame distance).
//!
//! The schedules are declared in a valid submission order (same-frame waits point backward),
//! so the validator's table order is the declaration order and task ids match.
//!
//! Covers: REQ-API-005

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use orin_exec_schedule::{Diagnostics, check_str};
use orin_exec_table::*;
use sha2::{Digest, Sha256};

const MS: u64 = 1_000_000;
const PERIOD: u64 = 10 * MS;
const ENGINES: [(&str, EngineKind); 4] = [
    ("cpu0", EngineKind::Cpu),
    ("cpu1", EngineKind::Cpu),
    ("gpu0", EngineKind::Gpu),
    ("gpu1", EngineKind::Gpu),
];
const BUFFERS: [&str; 3] = ["b0", "b1", "b2"];
const MODES: [&str; 2] = ["a", "b"];

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

#[derive(Clone, Debug)]
struct Task {
    engine: usize,
    wcet_ms: u64,
    deadline_ms: Option<u64>,
    release_ms: Option<u64>,
    reads: Vec<usize>,
    writes: Vec<usize>,
    /// (task, lag)
    waits: Vec<(usize, u8)>,
    /// Bit m = mode m; 0b11 = every mode.
    modes: u32,
}

#[derive(Clone, Debug)]
struct Spec {
    multiplicity: [u8; 3],
    lookahead: u8,
    tasks: Vec<Task>,
}

fn random_spec(rng: &mut Rng) -> Spec {
    let n = 2 + rng.below(6) as usize;
    let mut tasks = Vec::new();
    for i in 0..n {
        let engine = rng.below(ENGINES.len() as u64) as usize;
        let cpu = ENGINES[engine].1 == EngineKind::Cpu;
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for b in 0..BUFFERS.len() {
            match rng.below(6) {
                0 => reads.push(b),
                1 => writes.push(b),
                2 if rng.chance(30) => {
                    reads.push(b);
                    writes.push(b);
                }
                _ => {}
            }
        }
        let mut waits = Vec::new();
        for j in 0..n {
            if j < i && rng.chance(35) {
                waits.push((j, 0));
            } else if rng.chance(15) {
                waits.push((j, 1 + rng.below(3) as u8));
            }
        }
        tasks.push(Task {
            engine,
            wcet_ms: 1 + rng.below(3),
            deadline_ms: rng.chance(30).then(|| 3 + rng.below(8)),
            release_ms: (cpu && rng.chance(30)).then(|| rng.below(6)),
            reads,
            writes,
            waits,
            modes: [0b01, 0b10, 0b11, 0b11][rng.below(4) as usize],
        });
    }
    Spec {
        // Now and then a multiplicity the runtime does not take (3): both refuse it.
        multiplicity: [(); 3].map(|_| {
            if rng.chance(3) {
                3
            } else {
                [1, 2, 4][rng.below(3) as usize]
            }
        }),
        lookahead: rng.below(2) as u8,
        tasks,
    }
}

fn toml(spec: &Spec) -> String {
    let mut s = format!(
        "name = \"r\"\nprofile = \"sil\"\nperiod = \"10ms\"\nlookahead = {}\n\
         kernels_manifest = \"kernels.toml\"\nmodes = [\"a\", \"b\"]\n\n[engines]\n\
         cpu = [{{ name = \"cpu0\" }}, {{ name = \"cpu1\" }}]\n\
         gpu = [{{ name = \"gpu0\", stream = 0, queue_capacity = 32 }}, \
         {{ name = \"gpu1\", stream = 1, queue_capacity = 32 }}]\n",
        spec.lookahead
    );
    for (b, name) in BUFFERS.iter().enumerate() {
        let _ = write!(
            s,
            "\n[[buffer]]\nname = \"{name}\"\nkind = \"raw\"\nsize = 64\nmultiplicity = {}\n",
            spec.multiplicity[b]
        );
    }
    let list = |v: &[usize]| {
        v.iter()
            .map(|&b| format!("\"{}\"", BUFFERS[b]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (i, t) in spec.tasks.iter().enumerate() {
        let _ = write!(
            s,
            "\n[[task]]\nname = \"t{i}\"\nengine = \"{}\"\nwcet = \"{}ms\"\nreads = [{}]\nwrites = [{}]\n",
            ENGINES[t.engine].0,
            t.wcet_ms,
            list(&t.reads),
            list(&t.writes)
        );
        if ENGINES[t.engine].1 == EngineKind::Gpu {
            // The kernel takes no parameters: the task's accesses are its reads and writes.
            s.push_str("cubin = \"k\"\nkernel = \"copy\"\ngrid = 1\nblock = 1\n");
        }
        if let Some(d) = t.deadline_ms {
            let _ = writeln!(s, "deadline = \"{d}ms\"");
        }
        if let Some(r) = t.release_ms {
            let _ = writeln!(s, "release = \"{r}ms\"");
        }
        let after: Vec<String> = t
            .waits
            .iter()
            .map(|&(j, lag)| {
                if lag == 0 {
                    format!("\"t{j}\"")
                } else {
                    format!("\"t{j}@-{lag}\"")
                }
            })
            .collect();
        let _ = writeln!(s, "after = [{}]", after.join(", "));
        let modes: Vec<String> = (0..2)
            .filter(|m| t.modes & (1 << m) != 0)
            .map(|m| format!("\"{}\"", MODES[m]))
            .collect();
        let _ = writeln!(s, "modes = [{}]", modes.join(", "));
    }
    s
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn tables(spec: &Spec) -> &'static ScheduleTables {
    static CUBINS: [CubinDesc; 1] = [CubinDesc {
        name: "k",
        variants: &[],
    }];
    let engines = ENGINES
        .iter()
        .enumerate()
        .map(|(i, &(name, kind))| EngineDesc {
            name,
            kind,
            instance: (i % 2) as u8,
            queue_capacity: 32,
            graph: false,
            vpu: None,
        })
        .collect();
    let buffers = BUFFERS
        .iter()
        .zip(spec.multiplicity)
        .map(|(&name, multiplicity)| BufferDesc {
            name,
            kind: BufferKind::Raw {
                size: 64,
                align: 256,
            },
            multiplicity,
            cpu_access: true,
        })
        .collect();
    let names = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
    let tasks = spec
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| TaskDesc {
            name: names[i],
            engine: EngineId(t.engine as u8),
            work: match ENGINES[t.engine].1 {
                EngineKind::Gpu => Work::Gpu(GpuWork {
                    cubin: CubinId(0),
                    kernel: "copy",
                    grid: [1, 1, 1],
                    block: [1, 1, 1],
                    shared_mem_bytes: 0,
                    params: &[],
                }),
                _ => Work::Cpu,
            },
            wcet_ns: t.wcet_ms * MS,
            budget_ns: t.wcet_ms * MS,
            deadline_ns: t.deadline_ms.map_or(PERIOD, |d| d * MS),
            release_ns: t.release_ms.unwrap_or(0) * MS,
            reads: leak(t.reads.iter().map(|&b| BufferId(b as u16)).collect()),
            writes: leak(t.writes.iter().map(|&b| BufferId(b as u16)).collect()),
            waits: leak(
                t.waits
                    .iter()
                    .map(|&(j, lag)| Wait {
                        task: TaskId(j as u16),
                        lag,
                    })
                    .collect(),
            ),
            modes: if t.modes == 0b11 {
                ModeMask::ALL
            } else {
                ModeMask(t.modes)
            },
        })
        .collect();
    Box::leak(Box::new(ScheduleTables {
        name: "r",
        profile: "sil",
        period_ns: PERIOD,
        minor_frames_ns: &[0],
        lookahead: spec.lookahead,
        threads: &[],
        engines: leak(engines),
        buffers: leak(buffers),
        tasks: leak(tasks),
        modes: &[ModeDesc { name: "a" }, ModeDesc { name: "b" }],
        health: &[],
        cubins: &CUBINS,
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }))
}

/// A directory with `kernels.toml` listing cubin `k` (kernel `copy`) for sm_87 and sm_90.
fn kernels_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("orin-exec-table-agreement-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest = String::from("schema = 1\n");
    // Real cubins (the validator reads kernel layouts from them): the schedule crate's fixture
    // module, whose `copy` takes no parameters.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/schedule/tests/fixtures");
    for sm in [87, 90] {
        let bytes = std::fs::read(fixtures.join(format!("k.sm_{sm}.cubin"))).unwrap();
        std::fs::write(dir.join(format!("k.sm_{sm}.cubin")), &bytes).unwrap();
        let sha: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let _ = write!(
            manifest,
            "\n[[cubin]]\nname = \"k\"\nfile = \"k.sm_{sm}.cubin\"\nsm = {sm}\nsha256 = \"{sha}\"\nkernels = [\"copy\"]\n"
        );
    }
    std::fs::write(dir.join("kernels.toml"), manifest).unwrap();
    dir
}

/// The fragments a validator diagnostic must contain to report the same problem as `e`.
fn fragments(e: &TableError) -> Vec<String> {
    match *e {
        TableError::RaceWithinFrame {
            buffer_name,
            mode_name,
            first_name,
            second_name,
            ..
        } => vec![
            format!("buffer race on `{buffer_name}` within a frame ("),
            format!("`{mode_name}`"),
            format!("): `{first_name}` writes it and `{second_name}` "),
        ],
        TableError::RaceAcrossFrames {
            buffer_name,
            mode_name,
            first_name,
            second_name,
            distance,
            ..
        } => vec![
            format!("buffer race on `{buffer_name}` across frames ("),
            format!("`{mode_name}`"),
            format!("): `{first_name}` of frame f "),
            format!(" and `{second_name}` of frame f+{distance} "),
        ],
        TableError::DeadlineMiss {
            task_name,
            mode_name,
            finish_ns,
            ..
        } => vec![format!(
            "task `{task_name}` can finish at {}.{:03}ms in mode `{mode_name}`",
            finish_ns / MS,
            finish_ns % MS / 1_000
        )],
        TableError::Release { task_name, .. } => {
            vec![format!("task `{task_name}` is released at ")]
        }
        TableError::Limit { limit, name, value } => vec![limit.exceeded(name, value).to_string()],
        ref other => panic!("unexpected rejection {other:?}"),
    }
}

fn validator_reports(d: &Diagnostics, e: &TableError) -> bool {
    let want = fragments(e);
    d.iter()
        .any(|x| x.is_error() && want.iter().all(|w| x.message.contains(w.as_str())))
}

#[test]
fn random_schedules_are_accepted_or_rejected_by_both() {
    let dir = kernels_dir();
    let path = dir.join("schedule.toml");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut races, mut misses, mut limits) = (0, 0, 0, 0);
    for round in 0..5000 {
        let spec = random_spec(&mut rng);
        let text = toml(&spec);
        let validator = check_str(&path, &text);
        let table = Schedule::check(tables(&spec));
        match (&validator, &table) {
            (Ok(_), Ok(_)) => accepted += 1,
            (Err(d), Err(e)) => {
                assert!(
                    validator_reports(d, e),
                    "round {round}: Schedule::check says {e}, the validator:\n{d}\n{text}"
                );
                match e {
                    TableError::DeadlineMiss { .. } => misses += 1,
                    TableError::Limit { .. } => limits += 1,
                    _ => races += 1,
                }
            }
            (Ok(_), Err(e)) => {
                panic!("round {round}: the validator accepts, Schedule::check says {e}\n{text}")
            }
            (Err(d), Ok(_)) => {
                panic!("round {round}: Schedule::check accepts, the validator says:\n{d}\n{text}")
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{accepted} accepted, {races} races, {misses} deadline misses and {limits} limits \
         rejected by both"
    );
    // The generator must exercise every outcome, or the agreement says little.
    assert!(accepted > 300, "{accepted} accepted");
    assert!(races > 300, "{races} races");
    assert!(misses > 100, "{misses} deadline misses");
    assert!(limits > 50, "{limits} limits");
}
