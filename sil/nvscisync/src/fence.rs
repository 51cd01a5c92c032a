//! The SIL fence layout (`NvSciSyncFence::payload`, 6 × u64):
//!
//! | word | contents |
//! |---|---|
//! | 0 | [`MAGIC`] (layout tag and version) |
//! | 1 | registry id of the object (never reused in a process) |
//! | 2 | primitive id (always 0: one primitive per object) |
//! | 3 | fence value (the counter value that expires the fence) |
//! | 4 | bits 0–31: timestamp slot (`u32::MAX` = none); bits 32–63: task-status slot |
//! | 5 | check word over words 0–4 |
//!
//! All zeros is the cleared fence. Anything else that does not carry the magic and a
//! matching check word is an invalid fence (`NvSciError_BadParameter`).

use nvsci_sys::NvSciSyncFence;

/// Word 0 of every SIL fence ("NvSSilF" + layout version 1).
pub(crate) const MAGIC: u64 = 0x4E76_5353_696C_4601;

/// Timestamp slot of a fence of an object without timestamps.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// The decoded contents of a non-cleared fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FenceData {
    pub obj_id: u64,
    pub prim_id: u64,
    pub value: u64,
    pub ts_slot: u32,
    pub task_slot: u32,
}

/// What a fence holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// All zeros.
    Cleared,
    /// A SIL fence.
    Valid(FenceData),
    /// Not a fence this library made.
    Invalid,
}

fn check(p: &[u64; 6]) -> u64 {
    p[0] ^ p[1].rotate_left(13)
        ^ p[2].rotate_left(29)
        ^ p[3].rotate_left(41)
        ^ p[4].rotate_left(53)
        ^ 0xA5A5_5A5A_C3C3_3C3C
}

/// Reads a fence.
pub(crate) fn decode(f: &NvSciSyncFence) -> Decoded {
    let p = &f.payload;
    if p.iter().all(|w| *w == 0) {
        return Decoded::Cleared;
    }
    if p[0] != MAGIC || p[5] != check(p) || p[1] == 0 {
        return Decoded::Invalid;
    }
    Decoded::Valid(FenceData {
        obj_id: p[1],
        prim_id: p[2],
        value: p[3],
        ts_slot: p[4] as u32,
        task_slot: (p[4] >> 32) as u32,
    })
}

/// Builds a fence.
pub(crate) fn encode(d: FenceData) -> NvSciSyncFence {
    let mut p = [
        MAGIC,
        d.obj_id,
        d.prim_id,
        d.value,
        u64::from(d.ts_slot) | (u64::from(d.task_slot) << 32),
        0,
    ];
    p[5] = check(&p);
    NvSciSyncFence { payload: p }
}

/// Covers: REQ-SYNC-005
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_tamper_detection() {
        let d = FenceData {
            obj_id: 7,
            prim_id: 0,
            value: u64::MAX,
            ts_slot: 511,
            task_slot: 0,
        };
        let f = encode(d);
        assert_eq!(decode(&f), Decoded::Valid(d));
        let mut g = f;
        g.payload[3] ^= 1;
        assert_eq!(decode(&g), Decoded::Invalid);
        assert_eq!(
            decode(&NvSciSyncFence { payload: [0; 6] }),
            Decoded::Cleared
        );
        assert_eq!(
            decode(&NvSciSyncFence {
                payload: [1, 0, 0, 0, 0, 0]
            }),
            Decoded::Invalid
        );
    }
}
