//! The internal fault-diagnostics module (`CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS`) and the
//! result a diagnostics task (`CUDLA_SUBMIT_DIAGNOSTICS_TASK`) writes into its one output.
//!
//! The vendor's diagnostics module and its result are not public; the SIL result is its own
//! 64-byte record (all integers little-endian), documented in `sil/README.md` ("cuDLA",
//! "Fault diagnostics"):
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | `[u8; 8]` | magic [`MAGIC`] |
//! | 8 | u32 | layout version [`VERSION`] |
//! | 12 | u32 | verdict: [`VERDICT_PASS`] or [`VERDICT_PERMANENT_FAULT`] |
//! | 16 | u32 | DLA instance |
//! | 20 | u32 | checks run ([`CHECKS`]) |
//! | 24 | u32 | failed-check mask (0 on a pass) |
//! | 28 | u32 | reserved, 0 |
//! | 32 | u64 | task sequence number on the device handle |
//! | 40 | u64 | start, ns of the DLA clock (the SIL clock) |
//! | 48 | u64 | end, ns |
//! | 56 | u64 | FNV-1a 64 of bytes 0..56 |

use cudla_sys::cudlaModuleTensorDescriptor;

/// Magic of a diagnostics result.
pub const MAGIC: [u8; 8] = *b"SILDIAG\x01";
/// Layout version.
pub const VERSION: u32 = 1;
/// Size of the result (the one output of the diagnostics module).
pub const RESULT_LEN: usize = 64;
/// No permanent fault found.
pub const VERDICT_PASS: u32 = 0;
/// A permanent fault was found (`CUDLA_SIL_FAULT_PERMANENT`).
pub const VERDICT_PERMANENT_FAULT: u32 = 1;
/// Number of checks the SIL diagnostics report as run.
pub const CHECKS: u32 = 8;
/// Name of the result output.
pub const OUTPUT_NAME: &[u8] = b"dla_fault_diagnostics";

/// The descriptor of the result output.
pub(crate) fn descriptor() -> cudlaModuleTensorDescriptor {
    let mut name = [0u8; 81];
    name[..OUTPUT_NAME.len()].copy_from_slice(OUTPUT_NAME);
    crate::device::byte_buffer_desc(&name, RESULT_LEN as u64)
}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What a diagnostics run reports.
pub(crate) struct Run {
    pub dla: u32,
    pub failed_mask: u32,
    pub seq: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// Writes the result record into `out` (at least [`RESULT_LEN`] bytes; nothing else).
pub(crate) fn write_result(r: &Run, out: &mut [u8]) {
    let Some(out) = out.get_mut(..RESULT_LEN) else {
        return;
    };
    let verdict = if r.failed_mask == 0 {
        VERDICT_PASS
    } else {
        VERDICT_PERMANENT_FAULT
    };
    out.fill(0);
    out[0..8].copy_from_slice(&MAGIC);
    out[8..12].copy_from_slice(&VERSION.to_le_bytes());
    out[12..16].copy_from_slice(&verdict.to_le_bytes());
    out[16..20].copy_from_slice(&r.dla.to_le_bytes());
    out[20..24].copy_from_slice(&CHECKS.to_le_bytes());
    out[24..28].copy_from_slice(&r.failed_mask.to_le_bytes());
    out[32..40].copy_from_slice(&r.seq.to_le_bytes());
    out[40..48].copy_from_slice(&r.start_ns.to_le_bytes());
    out[48..56].copy_from_slice(&r.end_ns.to_le_bytes());
    let sum = fnv1a64(&out[..56]);
    out[56..64].copy_from_slice(&sum.to_le_bytes());
}
