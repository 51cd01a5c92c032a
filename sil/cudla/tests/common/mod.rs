//! Helpers shared by the sil-cudla integration tests: everything goes through the C ABI
//! (`cudla-sys`, `nvsci-sys`), as a C client would.
#![allow(dead_code, missing_docs)]

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::{Mutex, MutexGuard};

pub use cudla_sys::sil::*;
pub use cudla_sys::*;
pub use nvsci_sys::sil::*;
pub use nvsci_sys::*;

#[path = "../../../common/test-support/nvsci.rs"]
mod nvsci;
pub use nvsci::*;

use cudla as _;
use nvscibuf as _;
use nvscisync as _;

/// How long destroying a handle with a hung task may take: it must not wait for the task's
/// 30 s default timeout, and a loaded host can delay the worker thread's exit by far less
/// than this.
pub const DESTROY_BOUND: std::time::Duration = std::time::Duration::from_secs(10);

/// The committed AEB detector network (ONNX) and its golden data.
pub const AEB: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../loadables/aeb_detector.onnx"
));
pub const GOLDEN_IN: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../loadables/aeb_detector.golden_input.bin"
));
pub const GOLDEN_OUT: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../loadables/aeb_detector.golden_output.bin"
));

/// The AEB network declaring layer statistics (same tensors, same golden output).
pub const AEB_STATS: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../loadables/test/aeb_detector_stats.onnx"
));

/// The AEB network re-encoded with another default-domain operator set version.
pub fn aeb_with_opset(version: i64) -> Vec<u8> {
    use prost::Message;
    let mut m = sil_onnx::proto::ModelProto::decode(AEB).unwrap();
    m.opset_import[0].version = version;
    m.encode_to_vec()
}

/// What kind of NvSciSync object a test makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No deterministic request: reconciles to a sync point (cuDLA lists sync points first).
    Syncpoint,
    /// `RequireDeterministicFences`: the 64-bit semaphore, +1 per signal.
    Deterministic,
    /// The CPU list allows only the 64-bit semaphore, without determinism: a regular
    /// semaphore, which cuDLA refuses.
    Regular,
}

static SERIAL: Mutex<()> = Mutex::new(());

/// Tests of one binary share the DLA handles (16 per DLA) and the clock: run them one at
/// a time.
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The start of most tests: the serial guard, NvSci modules and a handle on DLA 0.
pub fn setup() -> (MutexGuard<'static, ()>, Sci, Dla) {
    let s = serial();
    let sci = Sci::new();
    let dla = Dla::new(&sci, 0);
    (s, sci, dla)
}

#[track_caller]
pub fn ok(s: cudlaStatus) {
    assert_eq!(s, cudlaSuccess);
}

impl Sci {
    /// A CPU-accessible Tensor buffer as NVIDIA's standalone sample allocates it.
    pub fn tensor(&self, size: u64) -> NvSciBufObj {
        let ty = NvSciBufType_Tensor;
        let dt = NvSciDataType_Int8;
        let dims = 1u32;
        let sizes = [size];
        let align = [1u32];
        let base = 512u64;
        let perm = NvSciBufAccessPerm_ReadWrite;
        let cpu = true;
        let mut pairs = [
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufTensorAttrKey_DataType, &dt),
            pair(NvSciBufTensorAttrKey_NumDims, &dims),
            pair(NvSciBufTensorAttrKey_SizePerDim, &sizes),
            pair(NvSciBufTensorAttrKey_AlignmentPerDim, &align),
            pair(NvSciBufTensorAttrKey_BaseAddrAlign, &base),
            pair(NvSciBufGeneralAttrKey_RequiredPerm, &perm),
            pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu),
        ];
        self.buf_with(&mut pairs, |_| {})
    }

    /// A CPU-accessible raw buffer.
    pub fn raw(&self, size: u64) -> NvSciBufObj {
        self.raw_with(size, |_| {})
    }

    /// A deterministic semaphore (`deterministic`) or a sync point between the CPU and a DLA.
    /// `dla` is `CUDLA_NVSCISYNC_ATTR_WAIT` (the CPU signals, the DLA waits) or `_SIGNAL`
    /// (the DLA signals, the CPU waits).
    pub fn sem(&self, dla: cudlaNvSciSyncAttributes, deterministic: bool) -> NvSciSyncObj {
        let kind = if deterministic {
            Kind::Deterministic
        } else {
            Kind::Syncpoint
        };
        self.sem_with(dla, kind, false)
    }

    /// An object of `kind` between the CPU and a DLA; `timestamps`: the CPU waiter asks for
    /// timestamps (`WaiterRequireTimestamps`, with `NeedCpuAccess`).
    pub fn sem_with(
        &self,
        dla: cudlaNvSciSyncAttributes,
        kind: Kind,
        timestamps: bool,
    ) -> NvSciSyncObj {
        let (det, ts) = (true, true);
        let sem_only = [NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b];
        let mut extra = Vec::new();
        match kind {
            Kind::Deterministic => {
                extra.push(spair(NvSciSyncAttrKey_RequireDeterministicFences, &det))
            }
            Kind::Regular => extra.push(spair(NvSciSyncAttrKey_PrimitiveInfo, &sem_only)),
            Kind::Syncpoint => {}
        }
        if timestamps {
            extra.push(spair(NvSciSyncAttrKey_WaiterRequireTimestamps, &ts));
        }
        self.sync_with(dla == CUDLA_NVSCISYNC_ATTR_WAIT, &extra, |l| {
            // SAFETY: a live unreconciled list.
            ok(unsafe { cudlaGetNvSciSyncAttributes(*l as *mut u64, dla.0) })
        })
    }
}

pub fn cpu_ptr(obj: NvSciBufObj) -> *mut u8 {
    let mut p = null_mut();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciBufObjGetCpuPtr(obj, &mut p)) };
    p as *mut u8
}

/// Reads `len` bytes of a buffer.
pub fn read(obj: NvSciBufObj, len: usize) -> Vec<u8> {
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { std::slice::from_raw_parts(cpu_ptr(obj), len).to_vec() }
}

/// Writes bytes into a buffer.
pub fn write(obj: NvSciBufObj, data: &[u8]) {
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), cpu_ptr(obj), data.len()) };
}

pub fn create(device: u64) -> cudlaDevHandle {
    let mut h = null_mut();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaCreateDevice(device, &mut h, CUDLA_STANDALONE.0)) };
    h
}

pub fn import_mem(dev: cudlaDevHandle, obj: NvSciBufObj, size: u64, flags: u32) -> *mut u64 {
    let desc = cudlaExternalMemoryHandleDesc {
        extBufObject: obj as *const c_void,
        size,
    };
    let mut p = null_mut();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaImportExternalMemory(dev, &desc, &mut p, flags)) };
    p
}

pub fn import_sem(dev: cudlaDevHandle, obj: NvSciSyncObj) -> *mut u64 {
    let desc = cudlaExternalSemaphoreHandleDesc {
        extSyncObject: obj as *const c_void,
    };
    let mut p = null_mut();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaImportExternalSemaphore(dev, &desc, &mut p, 0)) };
    p
}

/// A module's (input tensors, output tensors, statistics descriptors) from the count queries
/// `CUDLA_NUM_INPUT_TENSORS`, `CUDLA_NUM_OUTPUT_TENSORS` and
/// `CUDLA_NUM_OUTPUT_TASK_STATISTICS`; each must succeed and overwrite a sentinel.
pub fn module_counts(m: cudlaModule) -> (u32, u32, u32) {
    let count = |kind: cudlaModuleAttributeType| {
        let mut a = cudlaModuleAttribute {
            numInputTensors: u32::MAX,
        };
        // SAFETY: C ABI calls with live handles from this test and pointers to live locals;
        // both count members are a `uint32_t` at offset 0 of the union.
        unsafe {
            ok(cudlaModuleGetAttributes(m, kind, &mut a));
            assert_ne!(a.numInputTensors, u32::MAX, "{kind:?} wrote nothing");
            a.numInputTensors
        }
    };
    (
        count(CUDLA_NUM_INPUT_TENSORS),
        count(CUDLA_NUM_OUTPUT_TENSORS),
        count(CUDLA_NUM_OUTPUT_TASK_STATISTICS),
    )
}

/// A descriptor's name (the bytes before its first NUL).
pub fn tensor_name(d: &cudlaModuleTensorDescriptor) -> String {
    let bytes: Vec<u8> = d
        .name
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8(bytes).unwrap()
}

pub fn fence_value(f: &NvSciSyncFence) -> u64 {
    fence_id_value(f).1
}

/// (primitive id, value) of a fence.
pub fn fence_id_value(f: &NvSciSyncFence) -> (u64, u64) {
    let (mut id, mut v) = (0, 0);
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSyncFenceExtractFence(f, &mut id, &mut v)) };
    (id, v)
}

/// The timestamp of an expired fence in µs (`NvSciSyncFenceGetTimestamp`).
pub fn fence_ts_us(f: &NvSciSyncFence) -> u64 {
    let mut us = 0;
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSyncFenceGetTimestamp(f, &mut us)) };
    us
}

pub fn signal_ts(obj: NvSciSyncObj, value: u64) -> u64 {
    let mut ts = 0;
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSyncSilObjGetSignalTimestamp(obj, value, &mut ts)) };
    ts
}

pub fn counter(obj: NvSciSyncObj) -> u64 {
    let mut c = null_mut();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        sok(NvSciSyncSilObjGetCounter(obj, &mut c));
        std::ptr::read_volatile(c)
    }
}

/// A handle with the AEB module loaded and its three tensors imported.
pub struct Dla {
    pub dev: cudlaDevHandle,
    pub module: cudlaModule,
    pub input: NvSciBufObj,
    pub outputs: [NvSciBufObj; 2],
    pub in_ptrs: [*const u64; 1],
    pub out_ptrs: [*mut u64; 2],
    pub in_size: usize,
    pub out_sizes: [usize; 2],
}

impl Dla {
    pub fn new(sci: &Sci, device: u64) -> Self {
        Self::with_loadable(sci, device, AEB)
    }

    /// A handle with `image` (the AEB network, with or without statistics) loaded.
    pub fn with_loadable(sci: &Sci, device: u64, image: &[u8]) -> Self {
        let dev = create(device);
        let mut module = null_mut();
        // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
        unsafe {
            ok(cudlaModuleLoadFromMemory(
                dev,
                image.as_ptr(),
                image.len(),
                &mut module,
                0,
            ))
        };
        let (in_size, out_sizes) = (3072usize, [1536usize, 128usize]);
        let input = sci.tensor(in_size as u64);
        let outputs = [
            sci.tensor(out_sizes[0] as u64),
            sci.tensor(out_sizes[1] as u64),
        ];
        let in_ptrs = [import_mem(dev, input, in_size as u64, 0) as *const u64];
        let out_ptrs = [
            import_mem(dev, outputs[0], out_sizes[0] as u64, 0),
            import_mem(dev, outputs[1], out_sizes[1] as u64, 0),
        ];
        write(input, &GOLDEN_IN[..in_size]);
        Dla {
            dev,
            module,
            input,
            outputs,
            in_ptrs,
            out_ptrs,
            in_size,
            out_sizes,
        }
    }

    /// A task over the imported tensors.
    pub fn task(
        &self,
        waits: Option<&cudlaWaitEvents>,
        signals: Option<&mut cudlaSignalEvents>,
    ) -> cudlaTask {
        cudlaTask {
            moduleHandle: self.module,
            outputTensor: self.out_ptrs.as_ptr(),
            numOutputTensors: 2,
            numInputTensors: 1,
            inputTensor: self.in_ptrs.as_ptr(),
            waitEvents: waits.map_or(null(), |w| w as *const _),
            signalEvents: signals.map_or(null_mut(), |s| s as *mut _),
        }
    }

    /// Both outputs, concatenated as the golden file is.
    pub fn outputs(&self) -> Vec<u8> {
        let mut v = read(self.outputs[0], self.out_sizes[0]);
        v.extend(read(self.outputs[1], self.out_sizes[1]));
        v
    }

    pub fn submit(&self, task: &cudlaTask, flags: u32) -> cudlaStatus {
        // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
        unsafe { cudlaSubmitTask(self.dev, task, 1, null_mut(), flags) }
    }

    /// A deterministic semaphore the CPU signals and this handle waits on, imported.
    pub fn wait_sem(&self, sci: &Sci) -> NvSciSyncObj {
        let obj = sci.sem(CUDLA_NVSCISYNC_ATTR_WAIT, true);
        import_sem(self.dev, obj);
        obj
    }

    /// A deterministic semaphore this handle signals and the CPU waits on, imported: the
    /// object and its device pointer (as `cudlaSignalEvents::devPtrs` takes it).
    pub fn signal_sem(&self, sci: &Sci) -> (NvSciSyncObj, [*mut u64; 1]) {
        let obj = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, true);
        (obj, [import_sem(self.dev, obj)])
    }

    /// A sync point this handle signals and the CPU waits on (with timestamps), imported.
    pub fn signal_sp(&self, sci: &Sci) -> (NvSciSyncObj, [*mut u64; 1]) {
        let obj = sci.sem_with(CUDLA_NVSCISYNC_ATTR_SIGNAL, Kind::Syncpoint, true);
        (obj, [import_sem(self.dev, obj)])
    }

    /// A sync point the CPU signals and this handle waits on, imported.
    pub fn wait_sp(&self, sci: &Sci) -> NvSciSyncObj {
        let obj = sci.sem_with(CUDLA_NVSCISYNC_ATTR_WAIT, Kind::Syncpoint, false);
        import_sem(self.dev, obj);
        obj
    }

    /// Submits one task that waits on `pre` (if given) and signals `sp` with its EOF
    /// fence written to `eof`.
    pub fn submit_fences(
        &self,
        pre: Option<&mut NvSciSyncFence>,
        sp: &[*mut u64; 1],
        eof: &mut NvSciSyncFence,
        flags: u32,
    ) -> cudlaStatus {
        let pf = pre.map(|f| [cfence(f, CUDLA_NVSCISYNC_FENCE)]);
        let w = pf.as_ref().map(|pf| waits(pf));
        let mut ef = [cfence(eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(sp, &mut ef);
        self.submit(&self.task(w.as_ref(), Some(&mut s)), flags)
    }

    /// Submits one task that waits on a new CPU pre-fence of `wait_obj` (written to `pre`)
    /// and signals `sp` with its EOF fence written to `eof`.
    pub fn submit_after(
        &self,
        wait_obj: NvSciSyncObj,
        pre: &mut NvSciSyncFence,
        sp: &[*mut u64; 1],
        eof: &mut NvSciSyncFence,
        flags: u32,
    ) -> cudlaStatus {
        // SAFETY: C ABI call with a live object and a live fence.
        sok(unsafe { NvSciSyncObjGenerateFence(wait_obj, pre) });
        self.submit_fences(Some(pre), sp, eof, flags)
    }

    pub fn destroy(self) {
        // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
        unsafe { ok(cudlaDestroyDevice(self.dev)) };
    }
}

/// Wait events over `fences`.
pub fn waits(fences: &[CudlaFence]) -> cudlaWaitEvents {
    cudlaWaitEvents {
        preFences: fences.as_ptr(),
        numEvents: fences.len() as u32,
    }
}

/// One signal event.
pub fn signals(dev_ptr: &[*mut u64; 1], eof: &mut [CudlaFence; 1]) -> cudlaSignalEvents {
    cudlaSignalEvents {
        devPtrs: dev_ptr.as_ptr(),
        eofFences: eof.as_mut_ptr(),
        numEvents: 1,
    }
}

pub fn cfence(f: &mut NvSciSyncFence, ty: cudlaFenceType) -> CudlaFence {
    CudlaFence {
        fence: f as *mut NvSciSyncFence as *mut c_void,
        r#type: ty,
    }
}

pub fn timing(dev: cudlaDevHandle, kind: u32, min: u64, max: u64, seed: u64) {
    let m = cudlaSilTimingModel {
        kind,
        numBins: 0,
        minNs: min,
        maxNs: max,
        binUpperNs: null(),
        binWeights: null(),
        seed,
    };
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaSilSetTimingModel(dev, &m)) };
}

pub fn fault(dev: cudlaDevHandle, kind: u32, status: i32, skip: u64, count: u64, extra: u64) {
    let f = cudlaSilFault {
        kind,
        status,
        skipTasks: skip,
        count,
        extraDelayNs: extra,
    };
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { ok(cudlaSilInjectFault(dev, &f)) };
}
