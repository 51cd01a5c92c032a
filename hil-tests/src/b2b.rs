//! Back-to-back tests: every kernel of `orin-exec-kernels` run through the CUDA driver API
//! (the real GPU on `rig`/`orin`, SIL CUDA on `sil`) against its reference model, on seeded
//! random inputs, sizes and launch shapes. The oracle is the kernel's `KernelModel` (the one
//! SIL CUDA runs), launched with the same arguments and shape on host copies
//! (`HostMemory`).
//!
//! Comparison (kernels/README.md, "Floating-point tolerance policy"):
//!
//! | kernel | comparison |
//! |---|---|
//! | `aeb_preprocess` | bit-exact, over the output and a guard band behind it |
//! | `aeb_postprocess` | `found`, `row`, `score` bit-exact; `distance_mm` within 1 mm; guard band untouched |
//! | `fill_pattern_u32` | bit-exact, output and guard band |
//! | `saxpy_f32` | within 1 ulp (any NaN equals any NaN); guard band bit-exact |
//! | `stamp_globaltimer` | non-zero, non-decreasing over a burst of launches, and it advances by about a host sleep |
//!
//! Every launch goes: copy inputs into pinned memory, `cuLaunchKernel` on a non-blocking
//! stream with a parameter block, `cuStreamSynchronize`, copy outputs out. Trial `t` of a
//! kernel draws everything from `Rng::derive(seed, kernel_index << 32 | t)`, so one failing
//! trial can be replayed alone.

use std::time::{Duration, Instant};

use orin_exec::engine::gpu::{Function, Gpu, GpuModule, ParamBlock, Stream};
use orin_exec::engine::os;
use orin_exec::error::Context;
use orin_exec::kernel_model::{Arg, HostMemory, Launch, ModelError};
use orin_exec_kernels::fp::{DISTANCE_MM_TOLERANCE, SAXPY_MAX_ULPS, f32_ulp_distance};
use orin_exec_kernels::{PostprocessParams, fp};
use serde::Serialize;

use crate::pinned::HostMapped;
use crate::rng::Rng;

/// Options of a back-to-back run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Trials per kernel.
    pub trials: u32,
    /// Seed of every random choice.
    pub seed: u64,
    /// Largest element count of the 1D kernels (`fill_pattern_u32`, `saxpy_f32`).
    pub max_elements: u32,
    /// Host sleep between two `stamp_globaltimer` launches, ms.
    pub stamp_sleep_ms: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            trials: 200,
            seed: 1,
            max_elements: 1 << 20,
            stamp_sleep_ms: 20,
        }
    }
}

/// Result of one kernel.
#[derive(Clone, Debug, Default, Serialize)]
pub struct KernelReport {
    /// Kernel name.
    pub kernel: &'static str,
    /// The cubin it came from (`name.sm_XX`) and its sha256.
    pub cubin: String,
    /// How GPU and model outputs are compared.
    pub comparison: &'static str,
    /// Trials run.
    pub trials: u32,
    /// Kernel launches.
    pub launches: u64,
    /// Output elements compared (guard bands included).
    pub elements_compared: u64,
    /// Elements outside the tolerance.
    pub mismatches: u64,
    /// Largest difference seen (unit: `diff_unit`).
    pub max_diff: f64,
    /// Unit of `max_diff`.
    pub diff_unit: &'static str,
    /// The tolerance (unit: `diff_unit`).
    pub tolerance: f64,
    /// Launch shapes and sizes exercised.
    pub coverage: Coverage,
    /// The first few failures, each with its trial number and shape.
    pub failures: Vec<String>,
    /// Observations worth keeping (e.g. the timer's granularity).
    pub notes: Vec<String>,
    /// No mismatch and no error.
    pub pass: bool,
}

/// Ranges of what the trials exercised.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Coverage {
    /// Smallest and largest problem size (elements, or width × height).
    pub size: (u64, u64),
    /// Smallest and largest threads per block.
    pub threads_per_block: (u32, u32),
    /// Smallest and largest number of blocks.
    pub blocks: (u32, u32),
    /// Trials whose grid covered less than the problem (grid-stride loops exercised).
    pub grid_stride_trials: u32,
}

impl Coverage {
    fn note(&mut self, size: u64, block: [u32; 3], grid: [u32; 3], covered: bool) {
        let first = self.threads_per_block == (0, 0);
        let tpb = block[0] * block[1] * block[2];
        let nb = grid[0] * grid[1] * grid[2];
        if first {
            self.size = (size, size);
            self.threads_per_block = (tpb, tpb);
            self.blocks = (nb, nb);
        }
        self.size = (self.size.0.min(size), self.size.1.max(size));
        self.threads_per_block = (
            self.threads_per_block.0.min(tpb),
            self.threads_per_block.1.max(tpb),
        );
        self.blocks = (self.blocks.0.min(nb), self.blocks.1.max(nb));
        self.grid_stride_trials += u32::from(!covered);
    }
}

/// Result of a back-to-back run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `sil`, `rig` or `orin`.
    pub platform: &'static str,
    /// The device name.
    pub device: String,
    /// Its SM.
    pub sm: u32,
    /// `cuDriverGetVersion`.
    pub driver_version: i32,
    /// How the kernels crate obtained its cubins (rebuilt and compared, or committed files).
    pub cubin_provenance: &'static str,
    /// The seed.
    pub seed: u64,
    /// Trials per kernel.
    pub trials: u32,
    /// Per kernel.
    pub kernels: Vec<KernelReport>,
    /// Every kernel passed.
    pub pass: bool,
    /// Wall time, s.
    pub elapsed_s: f64,
}

const MAX_FAILURES: usize = 10;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A string from a NUL-padded C name.
pub fn c_name(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

struct Kernels {
    preprocess: Function,
    postprocess: Function,
    stamp: Function,
    fill: Function,
    saxpy: Function,
}

/// The device, the three modules, one non-blocking stream.
struct Harness {
    gpu: Gpu,
    modules: Vec<GpuModule>,
    stream: Stream,
    k: Kernels,
    cubins: Vec<(&'static str, String)>,
}

impl Harness {
    fn open() -> Result<Harness, Box<dyn std::error::Error>> {
        os::require_cuda_environment()?;
        let gpu = Gpu::open(0)?;
        let sm = gpu.sm();
        let mut modules = Vec::new();
        let mut cubins = Vec::new();
        for name in ["aeb", "selftest", "timing"] {
            let c = orin_exec_kernels::cubin(name, sm).ok_or_else(|| {
                format!("orin-exec-kernels has no `{name}` cubin for the device's sm_{sm}")
            })?;
            if !c.sha256_matches() {
                return Err(format!("cubin {}: sha256 differs from the manifest", c.file).into());
            }
            c.check()
                .map_err(|e| format!("cubin {} rejected by cubin-check: {e:?}", c.file))?;
            let desc = orin_exec_kernels::cubin_desc(name)
                .ok_or_else(|| format!("orin-exec-kernels has no module `{name}`"))?;
            crate::register_cubin_models(desc)?;
            let module = GpuModule::load(&gpu, desc)?;
            cubins.push((c.name, format!("{}.sm_{} {}", c.name, c.sm, hex(&c.sha256))));
            modules.push(module);
        }
        let f = |m: usize, k: &'static str| modules[m].function(k, Context::Cubin(k));
        let k = Kernels {
            preprocess: f(0, "aeb_preprocess")?,
            postprocess: f(0, "aeb_postprocess")?,
            fill: f(1, "fill_pattern_u32")?,
            saxpy: f(1, "saxpy_f32")?,
            stamp: f(2, "stamp_globaltimer")?,
        };
        let stream = Stream::create(&gpu, "b2b")?;
        Ok(Harness {
            gpu,
            modules,
            stream,
            k,
            cubins,
        })
    }

    fn cubin_of(&self, module: &str) -> String {
        self.cubins
            .iter()
            .find(|(n, _)| *n == module)
            .map_or_else(String::new, |(_, s)| s.clone())
    }

    /// Launch and wait for completion.
    fn launch_sync(
        &self,
        f: &Function,
        grid: [u32; 3],
        block: [u32; 3],
        params: &ParamBlock,
        what: &'static str,
    ) -> orin_exec::Result<()> {
        self.stream
            .launch(f, grid, block, 0, params, Context::Cubin(what))?;
        self.stream.synchronize()
    }

    fn close(self) -> orin_exec::Result<()> {
        let Harness {
            gpu,
            modules,
            stream,
            k,
            ..
        } = self;
        let mut first = stream.destroy();
        // The kernel handles keep their modules loaded.
        drop(k);
        for m in modules {
            let r = m.unload();
            if first.is_ok() {
                first = r;
            }
        }
        let r = gpu.close();
        first.and(r)
    }
}

/// The oracle: the project's model of `kernel` (module `module`) launched with `args` and the
/// GPU launch's shape on the host memory `mem` (whose slices the pointer arguments point at).
fn oracle(
    module: &str,
    kernel: &str,
    args: &[Arg],
    mem: &mut HostMemory<'_>,
    grid: [u32; 3],
    block: [u32; 3],
) -> Result<(), ModelError> {
    let model = orin_exec_kernels::model(module, kernel).ok_or(ModelError::Refused {
        reason: "orin-exec-kernels has no model of this kernel",
    })?;
    Launch::new(args, mem).with_dims(grid, block).run(model)
}

/// A random block shape with at most `max_threads` threads and `dims` dimensions used.
fn block_shape(rng: &mut Rng, dims: usize, max_threads: u32) -> [u32; 3] {
    if rng.chance(25) {
        // A usual shape.
        return match dims {
            1 => [
                rng.pick(&[32, 64, 128, 256, 512, 1024]).min(max_threads),
                1,
                1,
            ],
            _ => [16, 16, 1],
        };
    }
    let bx = rng.log_uniform(1, max_threads);
    let mut b = [bx, 1, 1];
    if dims >= 2 {
        b[1] = rng.log_uniform(1, (max_threads / bx).max(1));
    }
    if dims >= 3 {
        b[2] = rng.log_uniform(1, (max_threads / (b[0] * b[1])).clamp(1, 64));
    }
    b
}

/// Blocks along one axis: enough to cover `n` most of the time, sometimes fewer (the kernels
/// use grid-stride loops), sometimes more (idle blocks).
fn grid_dim(rng: &mut Rng, n: u64, block: u32, max: u32) -> u32 {
    let cover = n.div_ceil(u64::from(block.max(1))).clamp(1, u64::from(max)) as u32;
    match rng.below(8) {
        0 | 1 => rng.range(1, cover),
        2 => cover.saturating_add(rng.range(1, 3)).min(max),
        _ => cover,
    }
}

struct Tally {
    r: KernelReport,
}

impl Tally {
    fn new(
        kernel: &'static str,
        cubin: String,
        comparison: &'static str,
        unit: &'static str,
        tol: f64,
    ) -> Self {
        Tally {
            r: KernelReport {
                kernel,
                cubin,
                comparison,
                diff_unit: unit,
                tolerance: tol,
                ..KernelReport::default()
            },
        }
    }

    fn fail(&mut self, msg: String) {
        if self.r.failures.len() < MAX_FAILURES {
            self.r.failures.push(msg);
        }
    }

    fn diff(&mut self, d: f64) {
        if d > self.r.max_diff {
            self.r.max_diff = d;
        }
    }

    fn finish(mut self) -> KernelReport {
        self.r.pass = self.r.mismatches == 0 && self.r.failures.is_empty() && self.r.trials > 0;
        self.r
    }
}

/// Buffers shared by the trials (allocated once at their largest size).
struct Buffers {
    a: HostMapped,
    b: HostMapped,
    c: HostMapped,
}

const GUARD: usize = 64;
const PRE_MAX_W: u32 = 512;
const PRE_MAX_H: u32 = 384;
const POST_MAX_W: u32 = 160;
const POST_MAX_H: u32 = 96;

/// Run the suite.
pub fn run(opts: &Options) -> Result<Report, Box<dyn std::error::Error>> {
    let started = Instant::now();
    let h = Harness::open()?;
    let n_max = opts.max_elements.max(1) as usize;
    let bytes = (n_max + GUARD) * 4;
    let pre_bytes = (PRE_MAX_W * PRE_MAX_H) as usize + GUARD;
    let mut bufs = Buffers {
        a: HostMapped::alloc(&h.gpu, bytes.max(pre_bytes), "b2b.a")?,
        b: HostMapped::alloc(&h.gpu, bytes.max(pre_bytes), "b2b.b")?,
        c: HostMapped::alloc(&h.gpu, 4096, "b2b.c")?,
    };
    let mut kernels = Vec::new();
    let result = (|| -> orin_exec::Result<()> {
        kernels.push(preprocess(&h, &mut bufs, opts)?);
        kernels.push(postprocess(&h, &mut bufs, opts)?);
        kernels.push(fill(&h, &mut bufs, opts)?);
        kernels.push(saxpy(&h, &mut bufs, opts)?);
        kernels.push(stamp(&h, &mut bufs, opts)?);
        Ok(())
    })();
    let Buffers { a, b, c } = bufs;
    let released = a.release().and(b.release()).and(c.release());
    let device = c_name(&h.gpu.name());
    let (sm, driver_version) = (h.gpu.sm(), h.gpu.driver_version());
    let closed = h.close();
    result?;
    released?;
    closed?;
    let pass = kernels.iter().all(|k| k.pass);
    Ok(Report {
        platform: orin_exec::engine::platform::NAME,
        device,
        sm,
        driver_version,
        cubin_provenance: orin_exec_kernels::CUBIN_PROVENANCE,
        seed: opts.seed,
        trials: opts.trials,
        kernels,
        pass,
        elapsed_s: started.elapsed().as_secs_f64(),
    })
}

fn trial_rng(opts: &Options, kernel: u64, t: u32) -> Rng {
    Rng::derive(opts.seed, kernel << 32 | u64::from(t))
}

fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mode = rng.below(6);
    (0..n)
        .map(|_| match mode {
            0 => 255,
            1 => 0,
            2 => rng.pick(&[0, 1, 127, 128, 254, 255]),
            _ => rng.next_u32() as u8,
        })
        .collect()
}

fn preprocess(h: &Harness, bufs: &mut Buffers, opts: &Options) -> orin_exec::Result<KernelReport> {
    let mut t = Tally::new(
        "aeb_preprocess",
        h.cubin_of("aeb"),
        "bit-exact (output and guard band)",
        "bytes differing",
        0.0,
    );
    for trial in 0..opts.trials {
        let mut rng = trial_rng(opts, 0, trial);
        let (w, hh) = if rng.chance(15) {
            (128, 96)
        } else {
            (rng.log_uniform(1, PRE_MAX_W), rng.log_uniform(1, PRE_MAX_H))
        };
        let (dw, dh) = (w / 2, hh / 2);
        let src = random_bytes(&mut rng, (w * hh) as usize);
        let dst_len = (dw * dh) as usize + GUARD;
        let dst0: Vec<u8> = (0..dst_len).map(|_| rng.next_u32() as u8).collect();
        let block = block_shape(&mut rng, 2, 1024);
        let grid = [
            grid_dim(&mut rng, u64::from(dw), block[0], 4096),
            grid_dim(&mut rng, u64::from(dh), block[1], 4096),
            1,
        ];
        let covered = u64::from(grid[0] * block[0]) >= u64::from(dw)
            && u64::from(grid[1] * block[1]) >= u64::from(dh);
        t.r.coverage
            .note(u64::from(w) * u64::from(hh), block, grid, covered);
        bufs.a.write(0, &src);
        bufs.b.write(0, &dst0);
        let p = ParamBlock::builder(&h.k.preprocess)
            .memory(bufs.a.memory())?
            .memory(bufs.b.memory())?
            .u32(w)?
            .u32(hh)?
            .finish()?;
        h.launch_sync(&h.k.preprocess, grid, block, &p, "aeb_preprocess")?;
        t.r.launches += 1;
        t.r.trials += 1;
        let mut got = vec![0u8; dst_len];
        bufs.b.read(0, &mut got);
        let mut want: Vec<i8> = dst0.iter().map(|&b| b as i8).collect();
        let ran = (|| {
            let mut mem = HostMemory::new();
            let args = [mem.read(&src)?, mem.write(&mut want)?, w.into(), hh.into()];
            oracle("aeb", "aeb_preprocess", &args, &mut mem, grid, block)
        })();
        if let Err(e) = ran {
            t.fail(format!("trial {trial}: model refused {w}x{hh}: {e}"));
            continue;
        }
        t.r.elements_compared += dst_len as u64;
        let bad: Vec<usize> = (0..dst_len).filter(|&i| got[i] != want[i] as u8).collect();
        if let Some(&i) = bad.first() {
            t.r.mismatches += bad.len() as u64;
            t.diff(bad.len() as f64);
            t.fail(format!(
                "trial {trial}: src {w}x{hh}, grid {grid:?} block {block:?}: {} bytes differ, first at {i} ({}): gpu {} model {}",
                bad.len(),
                if i < dst_len - GUARD { "output" } else { "guard band" },
                got[i] as i8,
                want[i]
            ));
        }
    }
    Ok(t.finish())
}

fn random_map(rng: &mut Rng, n: usize, threshold: i32) -> Vec<i8> {
    let mode = rng.below(5);
    let t = threshold.clamp(-128, 127);
    (0..n)
        .map(|_| match mode {
            0 => rng.next_u32() as i8,
            1 => -128,
            2 => 127,
            // Background below the threshold with a few spikes above it.
            _ => {
                if rng.chance(3) {
                    rng.range_i32(t, 127) as i8
                } else {
                    rng.range_i32(-128, t) as i8
                }
            }
        })
        .collect()
}

fn postprocess(h: &Harness, bufs: &mut Buffers, opts: &Options) -> orin_exec::Result<KernelReport> {
    let mut t = Tally::new(
        "aeb_postprocess",
        h.cubin_of("aeb"),
        "found, row, score bit-exact; distance_mm |gpu - model| <= 1 mm; guard band untouched",
        "mm (distance_mm)",
        f64::from(DISTANCE_MM_TOLERANCE),
    );
    const SENTINEL: i32 = 0x5A5A_5A5A;
    for trial in 0..opts.trials {
        let mut rng = trial_rng(opts, 1, trial);
        let (w, hh) = if rng.chance(15) {
            (64, 24)
        } else {
            (
                rng.log_uniform(1, POST_MAX_W),
                if rng.chance(5) {
                    0
                } else {
                    rng.log_uniform(1, POST_MAX_H)
                },
            )
        };
        let threshold = match rng.below(10) {
            0 => rng.pick(&[i32::MIN, -129, -128, 127, 128, i32::MAX]),
            1..=3 => rng.range_i32(-128, 127),
            _ => rng.range_i32(-10, 60),
        };
        let map = random_map(&mut rng, (w * hh) as usize, threshold);
        let (x0, x1) = if rng.chance(70) {
            let a = rng.range(0, w.saturating_sub(1));
            (a, rng.range(a + 1, w + 4))
        } else {
            (rng.range(0, w + 4), rng.range(0, w + 8))
        };
        let pp = if rng.chance(70) {
            PostprocessParams {
                threshold,
                lane_x0: x0,
                lane_x1: x1,
                row_scale: rng.f32_in(0.25, 8.0),
                row_offset: rng.f32_in(-8.0, 8.0),
                horizon: rng.f32_in(0.0, 48.0),
                fh: rng.f32_in(1.0, 2000.0),
            }
        } else {
            PostprocessParams {
                threshold,
                lane_x0: x0,
                lane_x1: x1,
                row_scale: rng.f32_interesting(),
                row_offset: rng.f32_interesting(),
                horizon: rng.f32_interesting(),
                fh: rng.f32_interesting(),
            }
        };
        let block = if rng.chance(20) {
            [rng.pick(&[1, 7, 32, 256, 1024]), 1, 1]
        } else {
            block_shape(&mut rng, 3, 1024)
        };
        let grid = [if rng.chance(80) { 1 } else { rng.range(2, 3) }, 1, 1];
        t.r.coverage
            .note(u64::from(w) * u64::from(hh), block, grid, true);
        let map_bytes: Vec<u8> = map.iter().map(|&v| v as u8).collect();
        if !map_bytes.is_empty() {
            bufs.a.write(0, &map_bytes);
        }
        bufs.c.write_words(0, &[SENTINEL; 8]);
        let p = ParamBlock::builder(&h.k.postprocess)
            .memory(bufs.a.memory())?
            .u32(w)?
            .u32(hh)?
            .i32(pp.threshold)?
            .u32(pp.lane_x0)?
            .u32(pp.lane_x1)?
            .f32(pp.row_scale)?
            .f32(pp.row_offset)?
            .f32(pp.horizon)?
            .f32(pp.fh)?
            .memory(bufs.c.memory())?
            .finish()?;
        h.launch_sync(&h.k.postprocess, grid, block, &p, "aeb_postprocess")?;
        t.r.launches += 1;
        t.r.trials += 1;
        let got: Vec<i32> = bufs.c.read_words(0, 8);
        let mut want = [0i32; 4];
        let ran = (|| {
            let mut mem = HostMemory::new();
            let args = [
                mem.read(&map)?,
                w.into(),
                hh.into(),
                pp.threshold.into(),
                pp.lane_x0.into(),
                pp.lane_x1.into(),
                pp.row_scale.into(),
                pp.row_offset.into(),
                pp.horizon.into(),
                pp.fh.into(),
                mem.write(&mut want)?,
            ];
            oracle("aeb", "aeb_postprocess", &args, &mut mem, grid, block)
        })();
        if let Err(e) = ran {
            t.fail(format!("trial {trial}: model refused {w}x{hh}: {e}"));
            continue;
        }
        t.r.elements_compared += 8;
        let dd = (i64::from(got[3]) - i64::from(want[3])).unsigned_abs();
        t.diff(dd as f64);
        let exact_ok = got[..3] == want[..3];
        let dist_ok = dd <= DISTANCE_MM_TOLERANCE as u64;
        let guard_ok = got[4..].iter().all(|&v| v == SENTINEL);
        let bad = u64::from(!exact_ok) + u64::from(!dist_ok) + u64::from(!guard_ok);
        if bad > 0 {
            t.r.mismatches += bad;
            t.fail(format!(
                "trial {trial}: map {w}x{hh}, grid {grid:?} block {block:?}, {pp:?}: gpu {:?} model {want:?}{}",
                &got[..4],
                if guard_ok { "" } else { " (guard band written)" }
            ));
        }
    }
    Ok(t.finish())
}

fn fill(h: &Harness, bufs: &mut Buffers, opts: &Options) -> orin_exec::Result<KernelReport> {
    let mut t = Tally::new(
        "fill_pattern_u32",
        h.cubin_of("selftest"),
        "bit-exact (output and guard band)",
        "elements differing",
        0.0,
    );
    for trial in 0..opts.trials {
        let mut rng = trial_rng(opts, 2, trial);
        let n = if rng.chance(5) {
            0
        } else {
            rng.log_uniform(1, opts.max_elements.max(1))
        };
        let seed = rng.next_u32();
        let total = n as usize + GUARD;
        let init: Vec<u32> = (0..total).map(|_| rng.next_u32()).collect();
        let block = block_shape(&mut rng, 1, 1024);
        let grid = [grid_dim(&mut rng, u64::from(n), block[0], 65_535), 1, 1];
        let covered = u64::from(grid[0]) * u64::from(block[0]) >= u64::from(n);
        t.r.coverage.note(u64::from(n), block, grid, covered);
        bufs.a.write_words(0, &init);
        let p = ParamBlock::builder(&h.k.fill)
            .memory(bufs.a.memory())?
            .u32(n)?
            .u32(seed)?
            .finish()?;
        h.launch_sync(&h.k.fill, grid, block, &p, "fill_pattern_u32")?;
        t.r.launches += 1;
        t.r.trials += 1;
        let got: Vec<u32> = bufs.a.read_words(0, total);
        let mut want = init.clone();
        let ran = (|| {
            let mut mem = HostMemory::new();
            let args = [mem.write(&mut want)?, n.into(), seed.into()];
            oracle("selftest", "fill_pattern_u32", &args, &mut mem, grid, block)
        })();
        if let Err(e) = ran {
            t.fail(format!("trial {trial}: model refused n={n}: {e}"));
            continue;
        }
        t.r.elements_compared += total as u64;
        let bad: Vec<usize> = (0..total).filter(|&i| got[i] != want[i]).collect();
        if let Some(&i) = bad.first() {
            t.r.mismatches += bad.len() as u64;
            t.diff(bad.len() as f64);
            t.fail(format!(
                "trial {trial}: n {n} seed {seed:#x}, grid {grid:?} block {block:?}: {} elements differ, first at {i}: gpu {:#010x} model {:#010x}",
                bad.len(),
                got[i],
                want[i]
            ));
        }
    }
    Ok(t.finish())
}

fn saxpy(h: &Harness, bufs: &mut Buffers, opts: &Options) -> orin_exec::Result<KernelReport> {
    let mut t = Tally::new(
        "saxpy_f32",
        h.cubin_of("selftest"),
        "|gpu - model| <= 1 ulp, any NaN equals any NaN; guard band bit-exact",
        "ulp",
        f64::from(SAXPY_MAX_ULPS),
    );
    for trial in 0..opts.trials {
        let mut rng = trial_rng(opts, 3, trial);
        let n = if rng.chance(5) {
            0
        } else {
            rng.log_uniform(1, opts.max_elements.max(1))
        };
        let total = n as usize + GUARD;
        let a = if rng.chance(60) {
            rng.f32_in(-4.0, 4.0)
        } else {
            rng.f32_interesting()
        };
        let plain = rng.chance(50);
        let value = |rng: &mut Rng| {
            if plain && !rng.chance(2) {
                rng.f32_in(-1000.0, 1000.0)
            } else {
                rng.f32_interesting()
            }
        };
        let x: Vec<f32> = (0..total).map(|_| value(&mut rng)).collect();
        let y0: Vec<f32> = (0..total).map(|_| value(&mut rng)).collect();
        let block = block_shape(&mut rng, 1, 1024);
        let grid = [grid_dim(&mut rng, u64::from(n), block[0], 65_535), 1, 1];
        let covered = u64::from(grid[0]) * u64::from(block[0]) >= u64::from(n);
        t.r.coverage.note(u64::from(n), block, grid, covered);
        bufs.a.write_words(0, &x);
        bufs.b.write_words(0, &y0);
        let p = ParamBlock::builder(&h.k.saxpy)
            .f32(a)?
            .memory(bufs.a.memory())?
            .memory(bufs.b.memory())?
            .u32(n)?
            .finish()?;
        h.launch_sync(&h.k.saxpy, grid, block, &p, "saxpy_f32")?;
        t.r.launches += 1;
        t.r.trials += 1;
        let got: Vec<f32> = bufs.b.read_words(0, total);
        let mut want = y0.clone();
        let ran = (|| {
            let mut mem = HostMemory::new();
            let args = [a.into(), mem.read(&x)?, mem.write(&mut want)?, n.into()];
            oracle("selftest", "saxpy_f32", &args, &mut mem, grid, block)
        })();
        if let Err(e) = ran {
            t.fail(format!("trial {trial}: model refused n={n}: {e}"));
            continue;
        }
        t.r.elements_compared += total as u64;
        let mut bad = 0u64;
        let mut first = None;
        for i in 0..total {
            let (g, w) = (got[i], want[i]);
            let ok = if i < n as usize {
                let d = f32_ulp_distance(g, w);
                if let Some(d) = d {
                    t.diff(f64::from(d));
                }
                fp::f32_within_ulps(g, w, SAXPY_MAX_ULPS)
            } else {
                g.to_bits() == w.to_bits()
            };
            if !ok {
                bad += 1;
                first.get_or_insert(i);
            }
        }
        if let Some(i) = first {
            t.r.mismatches += bad;
            t.fail(format!(
                "trial {trial}: n {n} a {a:e} ({:#010x}), grid {grid:?} block {block:?}: {bad} elements out of tolerance, first at {i}{}: x {:e} y {:e} -> gpu {:e} ({:#010x}) model {:e} ({:#010x})",
                a.to_bits(),
                if i < n as usize { "" } else { " (guard band)" },
                x[i],
                y0[i],
                got[i],
                got[i].to_bits(),
                want[i],
                want[i].to_bits()
            ));
        }
    }
    Ok(t.finish())
}

fn stamp(h: &Harness, bufs: &mut Buffers, opts: &Options) -> orin_exec::Result<KernelReport> {
    let mut t = Tally::new(
        "stamp_globaltimer",
        h.cubin_of("timing"),
        "non-zero and non-decreasing over a burst of 256 launches; advances by the host sleep \
         (at least 90% of it, at most 1 s more)",
        "ns (worst |gpu advance - host time between the launches|)",
        1e9,
    );
    const BURST: usize = 256;
    // A burst: 256 launches into consecutive slots, one synchronisation.
    bufs.c.write_words(0, &[0u64; BURST]);
    let stream = &h.stream;
    for i in 0..BURST {
        let p = ParamBlock::builder(&h.k.stamp)
            .memory_at(bufs.c.memory(), 8 * i as u64)?
            .finish()?;
        stream.launch(
            &h.k.stamp,
            [1; 3],
            [1; 3],
            0,
            &p,
            Context::Cubin("stamp_globaltimer"),
        )?;
    }
    stream.synchronize()?;
    t.r.launches += BURST as u64;
    t.r.trials += 1;
    let burst: Vec<u64> = bufs.c.read_words(0, BURST);
    t.r.elements_compared += BURST as u64;
    if let Some(i) = burst.iter().position(|&v| v == 0) {
        t.r.mismatches += 1;
        t.fail(format!("burst: slot {i} was not written"));
    }
    if let Some(i) = burst.windows(2).position(|w| w[1] < w[0]) {
        t.r.mismatches += 1;
        t.fail(format!(
            "burst: slot {} ({}) is before slot {i} ({})",
            i + 1,
            burst[i + 1],
            burst[i]
        ));
    }
    let steps: Vec<u64> = burst
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .collect();
    let granularity = steps.iter().copied().filter(|&d| d > 0).min();
    t.r.notes.push(format!(
        "burst of {BURST} back-to-back stamps spans {} ns; smallest non-zero step {} ; {} of {} steps are 0",
        burst[BURST - 1].saturating_sub(burst[0]),
        granularity.map_or("none (all equal)".to_string(), |g| format!("{g} ns")),
        steps.iter().filter(|&&d| d == 0).count(),
        steps.len()
    ));
    t.r.coverage.note(BURST as u64, [1; 3], [1; 3], true);
    // Sleeps: the timer advances like the host clock.
    let sleep = Duration::from_millis(opts.stamp_sleep_ms.max(1));
    let slot = |i: u64| {
        ParamBlock::builder(&h.k.stamp)
            .memory_at(bufs.c.memory(), 8 * i)?
            .finish()
    };
    let (slot0, slot1) = (slot(0)?, slot(1)?);
    let checks = opts.trials.clamp(1, 5);
    for k in 0..checks {
        bufs.c.write_words(0, &[0u64; 2]);
        let host0 = Instant::now();
        h.launch_sync(&h.k.stamp, [1; 3], [1; 3], &slot0, "stamp_globaltimer")?;
        std::thread::sleep(sleep);
        h.launch_sync(&h.k.stamp, [1; 3], [1; 3], &slot1, "stamp_globaltimer")?;
        let host = host0.elapsed();
        t.r.launches += 2;
        t.r.trials += 1;
        t.r.elements_compared += 2;
        let v: Vec<u64> = bufs.c.read_words(0, 2);
        let adv = v[1].wrapping_sub(v[0]);
        let s = sleep.as_nanos() as u64;
        t.diff((i128::from(adv) - host.as_nanos() as i128).unsigned_abs() as f64);
        t.r.notes.push(format!(
            "sleep check {k}: timer advanced {adv} ns while the host slept {s} ns ({} ns between the launches)",
            host.as_nanos()
        ));
        if v[0] == 0 || v[1] <= v[0] || adv < s / 10 * 9 || adv > s + 1_000_000_000 {
            t.r.mismatches += 1;
            t.fail(format!(
                "sleep check {k}: stamps {} -> {} advanced {adv} ns over a {s} ns host sleep",
                v[0], v[1]
            ));
        }
    }
    Ok(t.finish())
}
