//! What the platform's libraries and devices say about themselves (for `--platform-report`
//! and the evidence bundle).

use core::fmt;

use crate::engine::gpu::Gpu;
use crate::engine::os;
use crate::engine::platform;

/// Versions and devices the runtime sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlatformReport {
    /// `sil`, `rig` or `orin`.
    pub platform: &'static str,
    /// `cudlaGetVersion` (1000000·major + 1000·minor + patch), if the call succeeded.
    pub cudla_version: Option<u64>,
    /// `cudlaDeviceGetCount`.
    pub dla_count: Option<u64>,
    /// `CupvaGetRuntimeVersion` and `CupvaGetDriverVersion`, as returned (the PVA SDK docs
    /// do not give their encoding), if both calls succeeded.
    pub cupva_versions: Option<(u32, u32)>,
    /// `cuDriverGetVersion` (e.g. 13000).
    pub cuda_driver: Option<i32>,
    /// GPU SM (e.g. 87).
    pub gpu_sm: Option<u32>,
    /// GPU name, NUL-padded.
    pub gpu_name: [u8; 64],
    /// NvSciSync major.minor the bindings were written against.
    pub nvscisync_bindings: (u32, u32),
    /// NvSciBuf major.minor the bindings were written against.
    pub nvscibuf_bindings: (u32, u32),
    /// Whether `SCHED_FIFO` and `mlockall` were granted when probed.
    pub realtime: os::RealtimeStatus,
}

impl PlatformReport {
    /// Probe the libraries and devices (opens and closes the GPU's primary context).
    pub fn probe() -> Self {
        let mut version = 0u64;
        // SAFETY: valid out-pointer.
        let cudla_version = (unsafe { cudla_sys::cudlaGetVersion(&mut version) }
            == cudla_sys::cudlaSuccess)
            .then_some(version);
        let mut count = 0u64;
        // SAFETY: valid out-pointer.
        let dla_count = (unsafe { cudla_sys::cudlaDeviceGetCount(&mut count) }
            == cudla_sys::cudlaSuccess)
            .then_some(count);
        let (mut runtime, mut driver) = (0u32, 0u32);
        // SAFETY: valid out-pointers.
        let cupva_versions = (unsafe { cupva_sys::CupvaGetRuntimeVersion(&mut runtime) }
            == cupva_sys::CUPVA_ERROR_NONE
            && unsafe { cupva_sys::CupvaGetDriverVersion(&mut driver) }
                == cupva_sys::CUPVA_ERROR_NONE)
            .then_some((runtime, driver));
        let (mut cuda_driver, mut gpu_sm, mut gpu_name) = (None, None, [0u8; 64]);
        if os::require_cuda_environment().is_ok()
            && let Ok(gpu) = Gpu::open(0)
        {
            cuda_driver = Some(gpu.driver_version());
            gpu_sm = Some(gpu.sm());
            gpu_name = gpu.name();
            let _ = gpu.close();
        }
        PlatformReport {
            platform: platform::NAME,
            cudla_version,
            dla_count,
            cupva_versions,
            cuda_driver,
            gpu_sm,
            gpu_name,
            nvscisync_bindings: (
                nvsci_sys::NvSciSyncMajorVersion,
                nvsci_sys::NvSciSyncMinorVersion,
            ),
            nvscibuf_bindings: (
                nvsci_sys::NvSciBufMajorVersion,
                nvsci_sys::NvSciBufMinorVersion,
            ),
            realtime: os::probe_realtime(),
        }
    }
}

impl fmt::Display for PlatformReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name_len = self.gpu_name.iter().position(|&b| b == 0).unwrap_or(64);
        let gpu_name = core::str::from_utf8(&self.gpu_name[..name_len]).unwrap_or("?");
        writeln!(f, "platform            {}", self.platform)?;
        match self.cudla_version {
            Some(v) => writeln!(
                f,
                "cuDLA               {}.{}.{}",
                v / 1_000_000,
                v / 1000 % 1000,
                v % 1000
            )?,
            None => writeln!(f, "cuDLA               unavailable")?,
        }
        match self.dla_count {
            Some(n) => writeln!(f, "DLA cores           {n}")?,
            None => writeln!(f, "DLA cores           unavailable")?,
        }
        match self.cupva_versions {
            Some((runtime, driver)) => {
                writeln!(f, "cuPVA (PVA)         runtime {runtime}, driver {driver}")?
            }
            None => writeln!(f, "cuPVA (PVA)         unavailable")?,
        }
        match (self.cuda_driver, self.gpu_sm) {
            (Some(d), Some(sm)) => writeln!(
                f,
                "CUDA driver         {}.{} ({gpu_name}, sm_{sm})",
                d / 1000,
                d % 1000 / 10
            )?,
            _ => writeln!(f, "CUDA driver         unavailable")?,
        }
        writeln!(
            f,
            "NvSciSync bindings  {}.{}",
            self.nvscisync_bindings.0, self.nvscisync_bindings.1
        )?;
        writeln!(
            f,
            "NvSciBuf bindings   {}.{}",
            self.nvscibuf_bindings.0, self.nvscibuf_bindings.1
        )?;
        let rt = self.realtime;
        writeln!(
            f,
            "real time           SCHED_FIFO {}, mlockall {}",
            if rt.fifo { "granted" } else { "not permitted" },
            if rt.locked {
                "granted"
            } else {
                "not permitted"
            }
        )
    }
}
