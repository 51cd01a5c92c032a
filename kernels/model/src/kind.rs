//! The kinds of kernel parameters.

use core::fmt;

/// The kind of one kernel parameter: what `kernelParams[i]` of `cuLaunchKernel` points to.
///
/// ```
/// use orin_exec_kernel_model::ParamKind;
/// assert_eq!(ParamKind::parse("ptr"), Some(ParamKind::DevPtr));
/// assert_eq!(ParamKind::parse("uint32_t"), Some(ParamKind::U32));
/// assert_eq!(ParamKind::F32.key(), "f32");
/// assert_eq!(ParamKind::DevPtr.size(), 8);
/// ```
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
    /// Every kind, in declaration order.
    pub const ALL: [ParamKind; 5] = [Self::DevPtr, Self::U32, Self::I32, Self::U64, Self::F32];

    /// Size of the value in bytes (also its alignment in the parameter buffer).
    pub const fn size(self) -> usize {
        match self {
            Self::DevPtr | Self::U64 => 8,
            Self::U32 | Self::I32 | Self::F32 => 4,
        }
    }

    /// The spelling in `kernels/manifest.toml` (`ptr`, `u32`, `i32`, `u64`, `f32`); also the
    /// value of the C enum `cuSilParamKind` is the index of the kind in [`ParamKind::ALL`].
    pub const fn key(self) -> &'static str {
        match self {
            Self::DevPtr => "ptr",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::U64 => "u64",
            Self::F32 => "f32",
        }
    }

    /// Parses a spelling, ignoring ASCII case: the manifest key (`ptr`, `u32`, `i32`, `u64`,
    /// `f32`), the C type (`uint32_t`, `int32_t`, `uint64_t`, `float`), or the variant name
    /// (`DevPtr`, ...). `buffer`, `pointer` and `devptr` are pointers too. `None` otherwise.
    pub fn parse(s: &str) -> Option<ParamKind> {
        const SPELLINGS: [(&str, ParamKind); 15] = [
            ("ptr", ParamKind::DevPtr),
            ("pointer", ParamKind::DevPtr),
            ("devptr", ParamKind::DevPtr),
            ("buffer", ParamKind::DevPtr),
            ("u32", ParamKind::U32),
            ("uint32_t", ParamKind::U32),
            ("uint32", ParamKind::U32),
            ("i32", ParamKind::I32),
            ("int32_t", ParamKind::I32),
            ("int32", ParamKind::I32),
            ("u64", ParamKind::U64),
            ("uint64_t", ParamKind::U64),
            ("uint64", ParamKind::U64),
            ("f32", ParamKind::F32),
            ("float", ParamKind::F32),
        ];
        SPELLINGS
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(s))
            .map(|&(_, kind)| kind)
    }
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::DevPtr => "a device pointer (ptr)",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::U64 => "u64",
            Self::F32 => "f32",
        })
    }
}

/// The byte offset of parameter `index` in the naturally aligned parameter buffer of a kernel
/// with these parameters (the layout a cubin's `EIATTR_KPARAM_INFO` records), or `None` for an
/// index out of range.
///
/// ```
/// use orin_exec_kernel_model::{ParamKind::*, param_offset};
/// // saxpy_f32(float a, const float* x, float* y, uint32_t n)
/// let kinds = [F32, DevPtr, DevPtr, U32];
/// assert_eq!(param_offset(&kinds, 1), Some(8));
/// assert_eq!(param_offset(&kinds, 3), Some(24));
/// assert_eq!(param_offset(&kinds, 4), None);
/// ```
pub const fn param_offset(kinds: &[ParamKind], index: usize) -> Option<usize> {
    if index >= kinds.len() {
        return None;
    }
    let mut off = 0usize;
    let mut i = 0usize;
    loop {
        let size = kinds[i].size();
        off = off.next_multiple_of(size);
        if i == index {
            return Some(off);
        }
        off += size;
        i += 1;
    }
}
