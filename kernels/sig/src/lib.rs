#![no_std]
//! Kernel signatures: how `cuLaunchKernel`'s `kernelParams` is laid out for each kernel.
//!
//! A crate of its own so that both `orin-exec-kernels` and its build script use it; the build
//! script checks every signature against the parameter layout recorded in each cubin
//! (`EIATTR_KPARAM_INFO`: count and size of every parameter), so a signature that disagrees
//! with the CUDA source fails the build.

/// The kind of one kernel parameter. `kernelParams[i]` points to a value of this kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParamKind {
    /// A device pointer (`CUdeviceptr`, 8 bytes). In SIL CUDA it is a host address.
    DevPtr,
    /// `uint32_t` / `unsigned int`.
    U32,
    /// `int32_t` / `int`.
    I32,
    /// `uint64_t` / `unsigned long long`.
    U64,
    /// `float` (IEEE binary32).
    F32,
}

impl ParamKind {
    /// Size of the value in bytes (also its alignment in the parameter buffer).
    pub const fn size(self) -> usize {
        match self {
            Self::DevPtr | Self::U64 => 8,
            Self::U32 | Self::I32 | Self::F32 => 4,
        }
    }
}

/// The signature of one kernel entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSig {
    /// The `extern "C"` symbol name, as in the cubin and for `cuModuleGetFunction`.
    pub name: &'static str,
    /// The parameters, in order.
    pub params: &'static [ParamKind],
}

impl KernelSig {
    /// The byte offset of parameter `index` in the naturally aligned parameter buffer (the
    /// layout the cubin records), or `None` for an index out of range.
    pub const fn param_offset(&self, index: usize) -> Option<usize> {
        if index >= self.params.len() {
            return None;
        }
        let mut off = 0usize;
        let mut i = 0usize;
        loop {
            let size = self.params[i].size();
            off = off.next_multiple_of(size);
            if i == index {
                return Some(off);
            }
            off += size;
            i += 1;
        }
    }
}

use ParamKind::{DevPtr, F32, I32, U32};

/// Every kernel that has a reference model, with its parameters.
///
/// | kernel | parameters (C) | model |
/// |---|---|---|
/// | `aeb_preprocess` | `const uint8_t* src, int8_t* dst, uint32_t src_w, uint32_t src_h` | `aeb_preprocess` |
/// | `aeb_postprocess` | `const int8_t* map, uint32_t map_w, uint32_t map_h, int32_t threshold, uint32_t lane_x0, uint32_t lane_x1, float row_scale, float row_offset, float horizon, float fh, int32_t* out` | `aeb_postprocess` |
/// | `stamp_globaltimer` | `unsigned long long* slot` | `stamp_globaltimer` |
/// | `fill_pattern_u32` | `uint32_t* dst, uint32_t n, uint32_t seed` | `fill_pattern_u32` |
/// | `saxpy_f32` | `float a, const float* x, float* y, uint32_t n` | `saxpy_f32` |
pub static SIGNATURES: &[KernelSig] = &[
    KernelSig {
        name: "aeb_preprocess",
        params: &[DevPtr, DevPtr, U32, U32],
    },
    KernelSig {
        name: "aeb_postprocess",
        params: &[DevPtr, U32, U32, I32, U32, U32, F32, F32, F32, F32, DevPtr],
    },
    KernelSig {
        name: "stamp_globaltimer",
        params: &[DevPtr],
    },
    KernelSig {
        name: "fill_pattern_u32",
        params: &[DevPtr, U32, U32],
    },
    KernelSig {
        name: "saxpy_f32",
        params: &[F32, DevPtr, DevPtr, U32],
    },
];

/// The signature of the kernel with this name.
pub fn signature(name: &str) -> Option<&'static KernelSig> {
    SIGNATURES.iter().find(|s| s.name == name)
}
