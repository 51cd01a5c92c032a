//! `cudlaGetExternalExportTable` and its entries (`cudlaExternalEtbl.hpp`, cuDLA 1.5):
//! translation of raw layer statistics into CSV.

use cudla_sys::{
    CUDLA_GET_CSV_LENGTH, CUDLA_GET_CSV_STATS, cudlaDevHandle, cudlaErrorInvalidParam,
    cudlaErrorUmd, cudlaExternalEtbl, cudlaModule, cudlaStatus, cudlaSuccess,
    cudlaTranslateAttributeType, cudlaTranslateCsvAttribute,
};

use crate::device::lock;
use crate::stats::{self, StatsError};
use crate::{guard, registry};

static ETBL: cudlaExternalEtbl = cudlaExternalEtbl {
    etiTranslateStats: Some(eti_translate_stats),
    etiTranslateStatsForMultiModule: Some(eti_translate_stats_for_multi_module),
};

/// Returns the export table (a static that lives as long as the library). `flags` other
/// than 0 or a NULL `exportTable`: `cudlaErrorInvalidParam`, nothing written.
///
/// # Safety
/// `exportTable` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaGetExternalExportTable(
    exportTable: *mut *const cudlaExternalEtbl,
    flags: u32,
) -> cudlaStatus {
    guard(|| {
        if exportTable.is_null() || flags != 0 {
            return cudlaErrorInvalidParam;
        }
        // SAFETY: non-NULL, writable by contract.
        unsafe { *exportTable = &ETBL };
        cudlaSuccess
    })
}

/// Defines an export-table entry with the header's parameters (the multi-module entry names
/// the module after the handle) that forwards to [`translate`] under [`guard`].
macro_rules! translate_entry {
    ($(#[$doc:meta])* $name:ident($($module:ident: $module_ty:ty)?) => $pick:expr) => {
        $(#[$doc])*
        unsafe extern "C" fn $name(
            devHandle: cudlaDevHandle,
            $($module: $module_ty,)?
            input: *mut u8,
            dlaFreqMHz: u32,
            idx: u32,
            csvAttrType: cudlaTranslateAttributeType,
            csvAttribute: *mut cudlaTranslateCsvAttribute,
        ) -> cudlaStatus {
            guard(|| {
                let module = $pick;
                // SAFETY: forwarded contract.
                unsafe {
                    translate(devHandle, module, input, dlaFreqMHz, idx, csvAttrType, csvAttribute)
                }
            })
        }
    };
}

translate_entry! {
    /// `etiTranslateStats`: the handle's module (the SIL allows one per handle; none loaded
    /// is `cudlaErrorInvalidParam`).
    ///
    /// # Safety
    /// As `cudlaExternalEtbl.hpp` requires: `input` NULL or readable for the statistics
    /// descriptor's size; `csvAttribute` NULL or valid, its `csvStreamStats` NULL or writable
    /// for the length a `CUDLA_GET_CSV_LENGTH` query returned.
    eti_translate_stats() => None
}

translate_entry! {
    /// `etiTranslateStatsForMultiModule`: `hModule` must be the handle's loaded module (else
    /// `cudlaErrorInvalidParam`).
    ///
    /// # Safety
    /// As for [`eti_translate_stats`].
    eti_translate_stats_for_multi_module(hModule: cudlaModule) => Some(hModule)
}

/// Both entries. Errors (nothing written): `cudlaErrorInvalidParam` for a NULL or unknown
/// handle, NULL `input`, `dlaFreqMHz` 0, NULL `csvAttribute`, an unknown `csvAttrType`, a
/// NULL `csvStreamStats` for `CUDLA_GET_CSV_STATS`, no (matching) module, or `idx` not below
/// the module's number of statistics descriptors; `cudlaErrorUmd` when `input` is not a raw
/// buffer the SIL DLA wrote for that descriptor.
///
/// # Safety
/// As for [`eti_translate_stats`].
unsafe fn translate(
    devHandle: cudlaDevHandle,
    hModule: Option<cudlaModule>,
    input: *mut u8,
    dla_freq_mhz: u32,
    idx: u32,
    ty: cudlaTranslateAttributeType,
    attr: *mut cudlaTranslateCsvAttribute,
) -> cudlaStatus {
    if devHandle.is_null() || input.is_null() || dla_freq_mhz == 0 || attr.is_null() {
        return cudlaErrorInvalidParam;
    }
    if ty != CUDLA_GET_CSV_LENGTH && ty != CUDLA_GET_CSV_STATS {
        return cudlaErrorInvalidParam;
    }
    let Some(dev) = registry::lookup(devHandle) else {
        return cudlaErrorInvalidParam;
    };
    let Some(module) = lock(&dev.state).module.clone() else {
        return cudlaErrorInvalidParam;
    };
    if hModule.is_some_and(|h| h as u64 != module.token) {
        return cudlaErrorInvalidParam;
    }
    let Some(net) = module.net.as_ref() else {
        return cudlaErrorInvalidParam;
    };
    let m = &net.model;
    let index = idx as usize;
    let Some(desc) = m.statistics().get(index) else {
        return cudlaErrorInvalidParam;
    };
    // SAFETY: the caller passes the raw buffer, at least the descriptor's size.
    let raw = unsafe { std::slice::from_raw_parts(input, stats::raw_size(desc)) };
    let len = match stats::translate_csv(m, index, raw, dla_freq_mhz, None) {
        Ok(n) => n,
        Err(StatsError::BadFrequency) => return cudlaErrorInvalidParam,
        Err(_) => return cudlaErrorUmd,
    };
    if ty == CUDLA_GET_CSV_LENGTH {
        // SAFETY: `attr` is non-NULL and valid by contract.
        unsafe { (*attr).csvStreamLength = len as u64 };
        return cudlaSuccess;
    }
    // SAFETY: `attr` is non-NULL and valid; the caller stored its buffer pointer.
    let out = unsafe { (*attr).csvStreamStats } as *mut u8;
    if out.is_null() {
        return cudlaErrorInvalidParam;
    }
    // SAFETY: the caller's buffer holds the length the length query returned (= `len`).
    let out = unsafe { std::slice::from_raw_parts_mut(out, len) };
    match stats::translate_csv(m, index, raw, dla_freq_mhz, Some(out)) {
        Ok(_) => cudlaSuccess,
        Err(_) => cudlaErrorUmd,
    }
}
