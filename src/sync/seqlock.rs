//! A versioned seqlock made of atomics alone: `W` words that writers publish under a version
//! (a frame, a trace index) and readers take out for the version they ask for, never torn.
//!
//! The board, the trace ring and the demo's decision log are all built on it.
//!
//! # Protocol
//!
//! One sequence word per slot says what the slot holds: `0` nothing yet, `2v + 1` version `v`
//! being written, `2v + 2` version `v` written. The sequence only ever grows, so a reader that
//! sees the same value before and after reading the words knows no write started in between
//! (no ABA: a version is written at most once).
//!
//! Writer of version `v`:
//! 1. claim: compare-and-swap the sequence from an even value below `2v + 2` to `2v + 1`
//!    (`Acquire` on success). If the slot is being written, or already holds or claims `v` or a
//!    newer version, the write is **dropped** and `write` returns `false`: two writers never
//!    store into the same words at once, which is what tears records;
//! 2. `fence(Release)`;
//! 3. the words, `Relaxed`;
//! 4. store `2v + 2`, `Release`.
//!
//! Reader of version `v`:
//! 1. load the sequence, `Acquire`; anything but `2v + 2` means "not available";
//! 2. the words, `Relaxed`;
//! 3. `fence(Acquire)`;
//! 4. load the sequence again, `Relaxed`; only if it is still `2v + 2` are the words `v`'s.
//!
//! Why each ordering:
//! * reader 1 (`Acquire`) pairs with writer 4 (`Release`): the words stored before the even
//!   sequence are visible to a reader that saw it, so it cannot read older words;
//! * writer 2 with reader 3 (both fences) make the check in reader 4 work: if a reader's word
//!   load saw a store of a later writer (made after that writer's release fence), the fences
//!   synchronise, the later writer's claim happens-before the re-load and the re-load sees a
//!   changed sequence. Without the release fence the claim could become visible after the new
//!   words (a `Release` claim store alone does not order the stores *after* it), which is the
//!   torn read on weakly ordered CPUs such as aarch64;
//! * writer 1 (`Acquire` on the claim) pairs with the previous writer's step 4: its words
//!   happen-before ours, so ours come later in each word's modification order and a reader
//!   that saw our sequence cannot be handed a word of the previous write;
//! * the words themselves need no ordering: they are atomics only so that the racing read
//!   that the sequence check then discards is not undefined behaviour.
//!
//! Checked by loom models of one and of two writers with a reader (`loom_*` tests, run with
//! `RUSTFLAGS="--cfg loom"`), of the trace ring and of the board, and by the unit tests under
//! Miri. Each of the orderings above, weakened, fails the loom models.
//!
//! The sequence of version `v` is `2v + 2`, so versions go up to [`SeqLock::MAX_VERSION`]
//! (2^63 - 2); a larger one is never stored (`write` returns `false`, `read` `None`).
//!
//! ```
//! use orin_exec::sync::SeqLock;
//! static SLOT: SeqLock<2> = SeqLock::new();
//! assert!(SLOT.write(7, [70, 71]));
//! assert_eq!(SLOT.read(7), Some([70, 71]));
//! assert_eq!(SLOT.read(6), None); // not the version held
//! assert!(!SLOT.write(5, [50, 51])); // older than what it holds: dropped
//! assert!(SLOT.write(9, [90, 91]));
//! assert_eq!(SLOT.latest(), Some(9));
//! ```

use super::atomic::{AtomicU64, Ordering, fence};

/// What a [`SeqLock`] holds at one moment (see [`SeqLock::state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqState {
    /// Never written.
    Empty,
    /// This version is being written.
    Writing(u64),
    /// This version is written.
    Written(u64),
}

impl SeqState {
    /// The version held or being written, if any.
    pub const fn version(self) -> Option<u64> {
        match self {
            SeqState::Empty => None,
            SeqState::Writing(v) | SeqState::Written(v) => Some(v),
        }
    }

    const fn of(seq: u64) -> Self {
        match seq {
            0 => SeqState::Empty,
            s if s % 2 == 1 => SeqState::Writing((s - 1) / 2),
            s => SeqState::Written((s - 2) / 2),
        }
    }
}

/// `W` words written under a version by any number of writers, read by any number of readers
/// (see the [module documentation](self) for the protocol).
pub struct SeqLock<const W: usize> {
    seq: AtomicU64,
    words: [AtomicU64; W],
}

impl<const W: usize> Default for SeqLock<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> SeqLock<W> {
    /// The largest version a slot can hold.
    pub const MAX_VERSION: u64 = u64::MAX / 2 - 1;

    /// An empty slot (usable in a `static`).
    pub const fn new() -> Self {
        SeqLock {
            seq: AtomicU64::new(0),
            words: [const { AtomicU64::new(0) }; W],
        }
    }

    /// Publish `words` as `version`. Never blocks. Returns `false` (and stores nothing) when
    /// the slot is being written, already holds or claims this or a newer version, or
    /// `version` is above [`Self::MAX_VERSION`].
    #[inline]
    pub fn write(&self, version: u64, words: [u64; W]) -> bool {
        let claimed = self.claim(version);
        if claimed {
            self.publish(version, words);
        }
        claimed
    }

    /// Writer step 1: move the sequence to "`version` being written", unless that would let
    /// two writers in or take the slot back to an older version.
    fn claim(&self, version: u64) -> bool {
        if version > Self::MAX_VERSION {
            return false;
        }
        let claimed = 2 * version + 1;
        // The first attempt guesses an empty slot instead of loading the sequence: a failed
        // compare-and-swap returns the current value as a load would, and it takes the cache
        // line exclusive at once. (It also keeps loom's exploration complete: loom forgets a
        // reader's load of a word when a writer loads it too, tokio-rs/loom#166 and #392.)
        let mut seq = 0;
        loop {
            // Acquire: the previous writer's words happen-before ours (see the module docs).
            match self
                .seq
                .compare_exchange(seq, claimed, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => seq = now,
            }
            // Odd: someone is writing. At or above `claimed`: this or a newer version is (or
            // was) here. Otherwise another writer got in first and left an older version.
            if seq % 2 == 1 || seq >= claimed {
                return false;
            }
        }
    }

    /// Writer steps 2 to 4, by the writer holding the claim of `version`.
    fn publish(&self, version: u64, words: [u64; W]) {
        // The claim is ordered before every word below for a reader that sees one of them.
        fence(Ordering::Release);
        for (word, value) in self.words.iter().zip(words) {
            word.store(value, Ordering::Relaxed);
        }
        self.seq.store(2 * version + 2, Ordering::Release);
    }

    /// Tests: a writer that stops right after its claim ([`Self::finish_claimed`] resumes it).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn claim_only(&self, version: u64) -> bool {
        self.claim(version)
    }

    /// Tests: resume a writer stopped by [`Self::claim_only`].
    #[cfg(all(test, not(loom)))]
    pub(crate) fn finish_claimed(&self, version: u64, words: [u64; W]) {
        self.publish(version, words);
    }

    /// The words of `version`, if the slot holds exactly that version and no write changed it
    /// while they were read. Never blocks, never returns a mix of two writes.
    pub fn read(&self, version: u64) -> Option<[u64; W]> {
        if version > Self::MAX_VERSION {
            return None;
        }
        let written = 2 * version + 2;
        if self.seq.load(Ordering::Acquire) != written {
            return None;
        }
        let words = core::array::from_fn(|i| self.words[i].load(Ordering::Relaxed));
        fence(Ordering::Acquire);
        (self.seq.load(Ordering::Relaxed) == written).then_some(words)
    }

    /// What the slot holds or is being written with now (a snapshot: it may change at once;
    /// only [`Self::read`] hands out words).
    pub fn state(&self) -> SeqState {
        SeqState::of(self.seq.load(Ordering::Relaxed))
    }

    /// The newest version held or claimed, if any.
    pub fn latest(&self) -> Option<u64> {
        self.state().version()
    }

    /// Loom: create this slot's atomics before the model spawns threads.
    #[cfg(all(loom, test))]
    pub(crate) fn register(&self) {
        self.seq.register();
        self.words.iter().for_each(AtomicU64::register);
    }
}

/// Covers: REQ-API-006
#[cfg(all(test, not(loom)))]
mod tests {
    extern crate std;
    use super::*;
    use std::sync::Arc;
    use std::vec::Vec;

    #[test]
    fn empty_until_written() {
        let slot: SeqLock<3> = SeqLock::new();
        assert_eq!(slot.state(), SeqState::Empty);
        assert_eq!(slot.latest(), None);
        assert_eq!(slot.read(0), None);
        assert!(slot.write(0, [1, 2, 3]));
        assert_eq!(slot.state(), SeqState::Written(0));
        assert_eq!(slot.read(0), Some([1, 2, 3]));
    }

    #[test]
    fn only_the_version_asked_for() {
        let slot: SeqLock<1> = SeqLock::new();
        assert!(slot.write(4, [40]));
        assert_eq!(slot.read(3), None);
        assert_eq!(slot.read(5), None);
        assert_eq!(slot.read(4), Some([40]));
        assert!(slot.write(12, [120]));
        assert_eq!(slot.read(4), None, "replaced by a newer version");
        assert_eq!(slot.read(12), Some([120]));
    }

    #[test]
    fn older_and_equal_versions_are_dropped() {
        let slot: SeqLock<2> = SeqLock::new();
        assert!(slot.write(10, [1, 1]));
        assert!(!slot.write(9, [2, 2]));
        assert!(!slot.write(10, [3, 3]), "a version is written once");
        assert_eq!(slot.read(10), Some([1, 1]));
        assert_eq!(slot.read(9), None);
    }

    #[test]
    fn versions_up_to_the_largest() {
        let slot: SeqLock<1> = SeqLock::new();
        let max = SeqLock::<1>::MAX_VERSION;
        assert!(slot.write(max, [7]));
        assert_eq!(slot.read(max), Some([7]));
        assert_eq!(slot.state(), SeqState::Written(max));
        assert!(!slot.write(max + 1, [8]));
        assert!(!slot.write(u64::MAX, [8]));
        assert_eq!(slot.read(u64::MAX), None);
        assert_eq!(slot.read(max), Some([7]));
    }

    #[test]
    fn state_decodes_every_sequence_kind() {
        assert_eq!(SeqState::of(0), SeqState::Empty);
        assert_eq!(SeqState::of(1), SeqState::Writing(0));
        assert_eq!(SeqState::of(2), SeqState::Written(0));
        assert_eq!(SeqState::of(2 * 41 + 1), SeqState::Writing(41));
        assert_eq!(SeqState::of(2 * 41 + 2), SeqState::Written(41));
        assert_eq!(SeqState::Writing(3).version(), Some(3));
        assert_eq!(SeqState::Empty.version(), None);
    }

    #[test]
    fn a_write_in_progress_drops_others_and_hides_the_slot() {
        let slot: SeqLock<2> = SeqLock::new();
        assert!(slot.write(1, [1, 1]));
        assert!(
            slot.claim_only(5),
            "a writer stopped between its claim and its words"
        );
        assert_eq!(slot.state(), SeqState::Writing(5));
        assert!(!slot.write(6, [6, 6]), "never two writers at once");
        assert!(!slot.write(4, [4, 4]));
        assert_eq!(slot.read(1), None);
        assert_eq!(slot.read(5), None);
        slot.finish_claimed(5, [5, 5]);
        assert_eq!(slot.read(5), Some([5, 5]));
        assert!(slot.write(6, [6, 6]));
    }

    /// Several threads write versions concurrently (each value derived from its version) while
    /// readers check that every read returns one whole write.
    #[test]
    fn concurrent_writers_and_readers_never_tear() {
        const WRITERS: u64 = 3;
        const VERSIONS: u64 = if cfg!(miri) { 60 } else { 20_000 };
        let slot: Arc<SeqLock<4>> = Arc::new(SeqLock::new());
        let words = |v: u64| [v, v ^ 0x5555, v.wrapping_mul(3), !v];
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let slot = slot.clone();
                std::thread::spawn(move || {
                    let mut stored = 0u64;
                    for v in (w..VERSIONS).step_by(WRITERS as usize) {
                        stored += slot.write(v, words(v)) as u64;
                    }
                    stored
                })
            })
            .collect();
        let mut reads = 0u64;
        while !writers.iter().all(|w| w.is_finished()) {
            if let Some(v) = slot.latest()
                && let Some(got) = slot.read(v)
            {
                assert_eq!(got, words(v), "torn read of version {v}");
                reads += 1;
            }
            std::thread::yield_now();
        }
        let stored: u64 = writers.into_iter().map(|w| w.join().unwrap()).sum();
        assert!(stored >= 1);
        let last = slot.latest().unwrap();
        assert_eq!(slot.read(last), Some(words(last)));
        std::eprintln!("{stored} writes stored, {reads} reads checked");
    }
}

/// Loom models: every interleaving and every value the memory model allows.
///
/// Covers: REQ-API-006
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    fn words(version: u64) -> [u64; 2] {
        [version, version * 10 + 1]
    }

    fn slot() -> Arc<SeqLock<2>> {
        let slot = Arc::new(SeqLock::new());
        slot.register();
        slot
    }

    /// Whatever the reader gets is one whole write.
    fn check_read(slot: &SeqLock<2>) {
        if let Some(version) = slot.latest()
            && let Some(got) = slot.read(version)
        {
            assert_eq!(got, words(version), "torn read");
        }
    }

    #[test]
    fn loom_seqlock_one_writer_and_a_reader() {
        loom::model(|| {
            let slot = slot();
            let writer = {
                let slot = slot.clone();
                thread::spawn(move || {
                    assert!(slot.write(1, words(1)));
                    assert!(slot.write(2, words(2)));
                })
            };
            check_read(&slot);
            check_read(&slot);
            writer.join().unwrap();
            assert_eq!(slot.read(2), Some(words(2)));
            assert_eq!(slot.read(1), None);
        });
    }

    #[test]
    fn loom_seqlock_two_writers_and_a_reader() {
        loom::model(|| {
            let slot = slot();
            let spawn_writer = |version: u64| {
                let slot = slot.clone();
                thread::spawn(move || slot.write(version, words(version)))
            };
            let (older, newer) = (spawn_writer(1), spawn_writer(2));
            check_read(&slot);
            let (older, newer) = (older.join().unwrap(), newer.join().unwrap());
            // At least one write lands; the newer one wins unless it came while the older one
            // was being written (then it is dropped, never interleaved).
            assert!(older || newer);
            let expected = if newer { 2 } else { 1 };
            assert_eq!(slot.state(), SeqState::Written(expected));
            assert_eq!(slot.read(expected), Some(words(expected)));
        });
    }
}
