//! The trace file: the drainer that writes it and the lenient reader.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use orin_exec::trace::record::NO_TASK;
use orin_exec::trace::ring::Pop;
use orin_exec::trace::{Event, Record, TraceLog};

use crate::TraceMeta;

/// Bytes per record in a trace file.
pub const RECORD_BYTES: usize = 32;

/// Magic at the start of a trace file (format 2: ends with an end marker).
pub const MAGIC: &[u8; 8] = b"OXTRACE2";

/// Magic of format 1 (no end marker); still read.
pub const MAGIC_V1: &[u8; 8] = b"OXTRACE1";

/// First 8 bytes of the end marker. The marker is a record-sized block: this magic, the
/// number of records before it (u64), then an all-ones word (task `0xffff`, event code
/// `0xffff`, which no record has), then a zero word.
pub const END_MAGIC: &[u8; 8] = b"OXTRCEND";

const END_CODE_WORD: u64 = u64::MAX;

fn encode(r: &Record) -> [u8; RECORD_BYTES] {
    words_to_bytes(r.pack())
}

fn words_to_bytes(words: [u64; 4]) -> [u8; RECORD_BYTES] {
    let mut out = [0u8; RECORD_BYTES];
    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

fn end_marker(records: u64) -> [u8; RECORD_BYTES] {
    words_to_bytes([u64::from_le_bytes(*END_MAGIC), records, END_CODE_WORD, 0])
}

fn bytes_to_words(chunk: &[u8]) -> [u64; 4] {
    let mut words = [0u64; 4];
    for (w, c) in words.iter_mut().zip(chunk.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        *w = u64::from_le_bytes(b);
    }
    words
}

/// Drains a trace ring into a file from its own thread, every `period`. Allocates only in
/// [`Drainer::start`], which returns once the thread runs (its start-up allocations done);
/// writing goes through a fixed-size buffer.
///
/// The meta header is written and flushed (and synced) before [`Drainer::start`] returns, the
/// records are flushed at every drain period, and [`Drainer::finish`] (or dropping the
/// drainer) drains what is left and writes the end marker. A run killed at any point after
/// `start` therefore leaves a file that [`read_trace`] reads up to the last drain.
pub struct Drainer {
    ring: &'static TraceLog,
    stop: Arc<AtomicBool>,
    records: Arc<AtomicU64>,
    join: Option<JoinHandle<io::Result<u64>>>,
}

impl Drainer {
    /// Start draining `ring` into `path` (parent directories are created); the file starts
    /// with `meta`.
    pub fn start(
        ring: &'static TraceLog,
        meta: &TraceMeta,
        path: &Path,
        period: Duration,
    ) -> io::Result<Drainer> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        out.write_all(MAGIC)?;
        let header = serde_json::to_vec(meta).map_err(io::Error::other)?;
        out.write_all(&(header.len() as u64).to_le_bytes())?;
        out.write_all(&header)?;
        out.flush()?;
        out.get_ref().sync_all()?;
        let stop = Arc::new(AtomicBool::new(false));
        let records = Arc::new(AtomicU64::new(0));
        let (stop2, records2) = (stop.clone(), records.clone());
        let (ready, running) = std::sync::mpsc::sync_channel::<()>(1);
        let join = std::thread::Builder::new()
            .name("orin-exec-trace".into())
            .spawn(move || {
                // The thread's start-up (which allocates) is over: `start` may return.
                let _ = ready.send(());
                drop(ready);
                let mut written = 0u64;
                loop {
                    let stopping = stop2.load(Ordering::Acquire);
                    loop {
                        let r = match ring.pop() {
                            Pop::Record(r) => r,
                            Pop::Lost(n) => Record {
                                time_ns: 0,
                                frame: 0,
                                task: NO_TASK,
                                event: Event::Overflow,
                                value: n,
                            },
                            Pop::Empty => break,
                        };
                        out.write_all(&encode(&r))?;
                        written += 1;
                    }
                    out.flush()?;
                    records2.store(written, Ordering::Relaxed);
                    if stopping {
                        out.write_all(&end_marker(written))?;
                        out.flush()?;
                        out.get_ref().sync_data()?;
                        return Ok(written);
                    }
                    std::thread::sleep(period);
                }
            })?;
        // Return once the thread runs, so that a caller counting allocations from here on
        // (the demo, after seal) does not count the thread's start-up; draining allocates
        // nothing.
        let _ = running.recv();
        Ok(Drainer {
            ring,
            stop,
            records,
            join: Some(join),
        })
    }

    /// Records written (and flushed to the file) so far.
    pub fn written(&self) -> u64 {
        self.records.load(Ordering::Relaxed)
    }

    /// Wait until at most half the ring holds records not yet written. For runs faster than
    /// real time (the SIL virtual clock), which would otherwise lap the ring between drains;
    /// never call it on the real clock's run path (the executive never waits for its trace).
    pub fn keep_up(&self) {
        let half = self.ring.capacity() as u64 / 2;
        while self.ring.pushed().saturating_sub(self.written()) > half
            && self.join.as_ref().is_some_and(|j| !j.is_finished())
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Drain what is left, write the end marker, flush and stop; returns the number of
    /// records written.
    pub fn finish(mut self) -> io::Result<u64> {
        self.stop_and_join()
    }

    fn stop_and_join(&mut self) -> io::Result<u64> {
        self.stop.store(true, Ordering::Release);
        match self.join.take() {
            Some(j) => j
                .join()
                .map_err(|_| io::Error::other("trace drainer panicked"))?,
            None => Ok(self.written()),
        }
    }
}

impl Drop for Drainer {
    /// Like [`Drainer::finish`], ignoring errors (an early return of the caller still closes
    /// the trace).
    fn drop(&mut self) {
        if self.join.is_some() {
            let _ = self.stop_and_join();
        }
    }
}

/// A trace file as read by [`read_trace`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceFile {
    /// The meta header.
    pub meta: TraceMeta,
    /// Every whole record, in file order.
    pub records: Vec<Record>,
    /// The file does not end the way a finished drainer leaves it: it ends inside a record,
    /// in a zero-filled tail, or (format 2) without the end marker. The run was killed or
    /// crashed; `records` is what it recorded up to its last drain.
    pub truncated: bool,
    /// The highest frame number any record names (`None` without records).
    pub last_frame: Option<u64>,
}

/// Read a trace file written by [`Drainer`], leniently: a file cut off anywhere after the
/// meta header reads, with the whole records before the cut and [`TraceFile::truncated`]
/// set. Errors (`InvalidData`, naming the file) for what no killed run leaves: a bad magic,
/// a header that is cut or not valid JSON, an unknown event code followed by data, records
/// after the end marker, an end marker whose record count is wrong.
///
/// Holds every record in memory; [`TraceReader`] reads the same file record by record.
pub fn read_trace(path: &Path) -> io::Result<TraceFile> {
    let mut reader = TraceReader::open(path)?;
    let mut records = Vec::new();
    let mut last_frame = None;
    while let Some(r) = reader.next_record()? {
        if r.event != Event::Overflow {
            last_frame = last_frame.max(Some(r.frame));
        }
        records.push(r);
    }
    Ok(TraceFile {
        truncated: reader.truncated(),
        meta: reader.meta,
        records,
        last_frame,
    })
}

/// Read a trace file written by [`Drainer`]: its meta and records (as leniently as
/// [`read_trace`], whose `truncated` flag this drops).
pub fn read_file(path: &Path) -> io::Result<(TraceMeta, Vec<Record>)> {
    read_trace(path).map(|t| (t.meta, t.records))
}

/// Reads a trace file record by record through a fixed-size buffer, so that memory does not
/// grow with the run's length (the streaming counterpart of [`read_trace`], with the same
/// leniency and the same errors).
///
/// ```
/// # use orin_exec::trace::{Event, Record, TraceRing};
/// # use orin_exec_trace::{Drainer, TraceMeta, TraceReader};
/// # use std::time::Duration;
/// # static RING: TraceRing<64> = TraceRing::new();
/// # let path = std::env::temp_dir().join(format!("doc-reader-{}.bin", std::process::id()));
/// # let drainer = Drainer::start(RING.as_log(), &TraceMeta::default(), &path,
/// #                              Duration::from_millis(1))?;
/// # RING.push(Record { time_ns: 1_000, frame: 0, task: 0, event: Event::TaskStart, value: 0 });
/// # drainer.finish()?;
/// let mut reader = TraceReader::open(&path)?;
/// let mut n = 0;
/// while let Some(record) = reader.next_record()? {
///     n += 1;
/// }
/// assert_eq!((n, reader.truncated()), (1, false));
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TraceReader {
    /// The meta header.
    pub meta: TraceMeta,
    input: Box<dyn Read>,
    path: String,
    v2: bool,
    /// Byte offset of the next record.
    offset: u64,
    /// Records returned so far.
    index: u64,
    truncated: bool,
    done: bool,
}

impl TraceReader {
    /// Open `path` and read its meta header (errors as [`read_trace`]'s, naming the file).
    pub fn open(path: &Path) -> io::Result<TraceReader> {
        let file = BufReader::with_capacity(1 << 16, File::open(path)?);
        TraceReader::new(Box::new(file), &path.display().to_string())
    }

    /// Read a trace from `input`; `name` names it in errors.
    pub fn new(mut input: Box<dyn Read>, name: &str) -> io::Result<TraceReader> {
        let fail =
            |what: String| io::Error::new(io::ErrorKind::InvalidData, format!("{name}: {what}"));
        let mut magic = [0u8; 8];
        let got = read_full(&mut input, &mut magic)?;
        let magic = &magic[..got];
        let v2 = if got == 0 {
            return Err(fail(
                "empty trace file: the run stopped before the drainer wrote its header".into(),
            ));
        } else if magic == MAGIC {
            true
        } else if magic == MAGIC_V1 {
            false
        } else if MAGIC.starts_with(magic) {
            return Err(fail(format!(
                "trace file cut inside its magic ({got} bytes)"
            )));
        } else {
            return Err(fail("not an orin-exec trace file (bad magic)".into()));
        };
        let mut len = [0u8; 8];
        let got = read_full(&mut input, &mut len)?;
        if got < 8 {
            return Err(fail(format!(
                "trace file cut inside its header length ({} bytes)",
                8 + got
            )));
        }
        let len = u64::from_le_bytes(len);
        if len.checked_add(16).is_none() || usize::try_from(len).is_err() {
            return Err(fail(format!("meta header length {len} is impossible")));
        }
        // The header is read in bounded steps, so that a corrupt length fails at the end of
        // the file instead of allocating it.
        let mut header = Vec::new();
        let got = (&mut input).take(len).read_to_end(&mut header)?;
        if (got as u64) < len {
            return Err(fail(format!(
                "trace file cut inside its meta header ({got} of {len} header bytes)"
            )));
        }
        let meta: TraceMeta =
            serde_json::from_slice(&header).map_err(|e| fail(format!("meta header: {e}")))?;
        Ok(TraceReader {
            meta,
            input,
            path: name.into(),
            v2,
            offset: 16 + len,
            index: 0,
            truncated: false,
            done: false,
        })
    }

    /// The next record; `None` at the end of the file, at the end marker or where the file is
    /// cut off (then [`TraceReader::truncated`] is true).
    pub fn next_record(&mut self) -> io::Result<Option<Record>> {
        if self.done {
            return Ok(None);
        }
        let mut chunk = [0u8; RECORD_BYTES];
        let got = read_full(&mut self.input, &mut chunk)?;
        if got < RECORD_BYTES {
            // The end of the file; inside a record (a killed run) or without the end marker
            // (format 2) the file is cut off.
            self.done = true;
            self.truncated = got > 0 || self.v2;
            return Ok(None);
        }
        let offset = self.offset;
        self.offset += RECORD_BYTES as u64;
        let words = bytes_to_words(&chunk);
        if self.v2 && chunk[..8] == END_MAGIC[..] && words[2] == END_CODE_WORD {
            self.done = true;
            if words[1] != self.index {
                return Err(self.fail(format!(
                    "end marker at byte {offset} counts {} records, the file holds {}",
                    words[1], self.index
                )));
            }
            if read_full(&mut self.input, &mut [0u8; 1])? > 0 {
                return Err(self.fail(format!("data after the end marker at byte {offset}")));
            }
            return Ok(None);
        }
        match Record::unpack(words) {
            Some(r) => {
                self.index += 1;
                Ok(Some(r))
            }
            None => {
                self.done = true;
                if chunk.iter().all(|&b| b == 0) && self.rest_is_zero()? {
                    // A zero-filled tail (a file system that extended the file before a crash).
                    self.truncated = true;
                    return Ok(None);
                }
                Err(self.fail(format!(
                    "record {} (byte {offset}): unknown event code {:#06x}",
                    self.index,
                    words[2] & 0xffff
                )))
            }
        }
    }

    /// The file does not end the way a finished drainer leaves it (see
    /// [`TraceFile::truncated`]); known once [`TraceReader::next_record`] returned `None`.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Records read so far.
    pub fn records_read(&self) -> u64 {
        self.index
    }

    fn rest_is_zero(&mut self) -> io::Result<bool> {
        let mut buf = [0u8; 4096];
        loop {
            let n = read_full(&mut self.input, &mut buf)?;
            if buf[..n].iter().any(|&b| b != 0) {
                return Ok(false);
            }
            if n < buf.len() {
                return Ok(true);
            }
        }
    }

    fn fail(&self, what: String) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, format!("{}: {what}", self.path))
    }
}

/// Fill `buf` as far as the input goes; returns the bytes read (less than `buf.len()` only at
/// the end of the input).
fn read_full(input: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use orin_exec::table::FaultKind;
    use orin_exec::trace::TraceRing;
    use std::path::PathBuf;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!(
            "orin-exec-trace-{}-{name}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ))
    }

    fn meta() -> TraceMeta {
        TraceMeta {
            run_id: "20250102T030405Z-deadbeef".into(),
            name: "cut".into(),
            platform: "sil".into(),
            period_ns: 1_000_000,
            engines: vec![("cpu0".into(), "cpu".into(), 0)],
            tasks: vec![crate::TaskMeta {
                name: "t".into(),
                ..Default::default()
            }],
            modes: vec!["normal".into()],
            timeline: vec![crate::TimelineMeta {
                mode: 0,
                task: 0,
                latest_start_ns: 10,
                latest_finish_ns: 20,
                slack_ns: 30,
            }],
        }
    }

    fn records(frames: u64) -> Vec<Record> {
        let mut out = Vec::new();
        for f in 0..frames {
            let t0 = 1_000_000 + f * 1_000_000;
            out.push(Record {
                time_ns: t0,
                frame: f,
                task: NO_TASK,
                event: Event::FrameRelease,
                value: 5,
            });
            out.push(Record {
                time_ns: t0 + 100,
                frame: f,
                task: 0,
                event: Event::TaskStart,
                value: 0,
            });
            out.push(Record {
                time_ns: t0 + 900,
                frame: f,
                task: 0,
                event: Event::TaskEnd,
                value: 800,
            });
        }
        out.push(Record {
            time_ns: 1_000_000 + frames * 1_000_000,
            frame: frames - 1,
            task: 0,
            event: Event::Fault(FaultKind::DeadlineMiss),
            value: 0,
        });
        out
    }

    /// Writes through a real drainer from a static ring.
    fn write_trace(path: &Path, records: &[Record]) -> u64 {
        let ring = new_ring();
        let d = Drainer::start(ring.as_log(), &meta(), path, Duration::from_millis(1)).unwrap();
        for r in records {
            ring.push(*r);
        }
        d.finish().unwrap()
    }

    /// A ring of its own per test (tests run in parallel).
    fn new_ring() -> &'static TraceRing<256> {
        Box::leak(Box::new(TraceRing::new()))
    }

    /// A run faster than the drainer (virtual clock) loses nothing when it lets the drainer
    /// keep up between frames.
    ///
    /// Covers: REQ-SCH-014
    #[test]
    fn keep_up_waits_until_the_drainer_has_room() {
        let path = temp("keep-up");
        let ring = new_ring();
        // A slow drainer: without keep_up the loop below laps the 256-record ring.
        let d = Drainer::start(ring.as_log(), &meta(), &path, Duration::from_millis(20)).unwrap();
        let recs = records(200);
        for chunk in recs.chunks(100) {
            for r in chunk {
                ring.push(*r);
            }
            d.keep_up();
            assert!(
                ring.pushed() - d.written() <= 128,
                "keep_up returned with a full ring"
            );
        }
        assert_eq!(d.finish().unwrap(), recs.len() as u64);
        assert_eq!(ring.overwritten(), 0);
        let _ = std::fs::remove_file(&path);
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn a_running_drainer_leaves_a_readable_file() {
        let path = temp("live");
        let ring = new_ring();
        let d = Drainer::start(ring.as_log(), &meta(), &path, Duration::from_millis(2)).unwrap();
        // The header is on disk before the first record.
        let t = read_trace(&path).unwrap();
        assert_eq!(t.meta, meta());
        assert!(t.records.is_empty() && t.truncated && t.last_frame.is_none());
        let recs = records(3);
        for r in &recs {
            ring.push(*r);
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while d.written() < recs.len() as u64 {
            assert!(
                std::time::Instant::now() < deadline,
                "drainer never drained"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        // What a kill now would leave: every drained record, no end marker.
        let t = read_trace(&path).unwrap();
        assert_eq!(t.records, recs);
        assert!(t.truncated);
        assert_eq!(t.last_frame, Some(2));
        // Dropping the drainer (an early return) still closes the file.
        drop(d);
        let t = read_trace(&path).unwrap();
        assert_eq!(t.records, recs);
        assert!(!t.truncated);
        std::fs::remove_file(&path).unwrap();
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn lost_records_are_written_as_overflow() {
        let path = temp("lost");
        let ring: &'static TraceRing<4> = Box::leak(Box::new(TraceRing::new()));
        let recs = records(3);
        // Fill the ring past its capacity before the drainer runs.
        for r in &recs {
            ring.push(*r);
        }
        let d = Drainer::start(ring.as_log(), &meta(), &path, Duration::from_millis(1)).unwrap();
        d.finish().unwrap();
        let t = read_trace(&path).unwrap();
        assert_eq!(t.records[0].event, Event::Overflow);
        assert_eq!(t.records[0].value, (recs.len() - 4) as u64);
        assert_eq!(t.records[1..], recs[recs.len() - 4..]);
        assert!(!t.truncated);
        std::fs::remove_file(&path).unwrap();
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn complete_file_reads_whole_and_not_truncated() {
        let path = temp("complete");
        let recs = records(4);
        assert_eq!(write_trace(&path, &recs), recs.len() as u64);
        let t = read_trace(&path).unwrap();
        assert_eq!(t.meta, meta());
        assert_eq!(t.records, recs);
        assert!(!t.truncated);
        assert_eq!(t.last_frame, Some(3));
        // The legacy reader agrees.
        let (m, r) = read_file(&path).unwrap();
        assert_eq!((m, r), (meta(), recs));
        std::fs::remove_file(&path).unwrap();
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn cut_anywhere_after_the_header_keeps_whole_records() {
        let path = temp("cut-src");
        let recs = records(5);
        write_trace(&path, &recs);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let header_len = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
        let body = 16 + header_len;
        assert_eq!(bytes.len(), body + (recs.len() + 1) * RECORD_BYTES);
        let cut_path = temp("cut");
        // Every cut from the end of the header to one byte before the end of the file.
        for cut in body..bytes.len() {
            std::fs::write(&cut_path, &bytes[..cut]).unwrap();
            let t = read_trace(&cut_path).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            let whole = ((cut - body) / RECORD_BYTES).min(recs.len());
            assert_eq!(t.records, recs[..whole], "cut at {cut}");
            assert!(t.truncated, "cut at {cut}");
            assert_eq!(
                t.last_frame,
                recs[..whole].iter().map(|r| r.frame).max(),
                "cut at {cut}"
            );
            assert_eq!(t.meta.run_id, "20250102T030405Z-deadbeef");
        }
        // Cuts inside the header are refused with a message saying so.
        for cut in [0, 3, 8, 12, 16, body - 1] {
            std::fs::write(&cut_path, &bytes[..cut]).unwrap();
            let e = read_trace(&cut_path).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
            let msg = e.to_string();
            assert!(
                msg.contains("cut inside") || msg.contains("empty trace file"),
                "cut at {cut}: {msg}"
            );
        }
        std::fs::remove_file(&cut_path).unwrap();
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn zero_tail_is_a_truncation_garbage_is_an_error() {
        let path = temp("zero");
        let recs = records(2);
        write_trace(&path, &recs);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(bytes.len() - RECORD_BYTES); // drop the end marker
        let full = bytes.clone();
        bytes.extend_from_slice(&[0u8; 3 * RECORD_BYTES + 7]);
        std::fs::write(&path, &bytes).unwrap();
        let t = read_trace(&path).unwrap();
        assert_eq!(t.records, recs);
        assert!(t.truncated);
        // An unknown event code with data after it is corruption, not a cut.
        let mut bad = full.clone();
        let mut rec = [0u8; RECORD_BYTES];
        rec[16] = 0x7f;
        bad.extend_from_slice(&rec);
        bad.extend_from_slice(&encode(&recs[0]));
        std::fs::write(&path, &bad).unwrap();
        let e = read_trace(&path).unwrap_err().to_string();
        assert!(e.contains("unknown event code 0x007f"), "{e}");
        // Records after the end marker, or a marker with the wrong count, are refused.
        let mut after = full.clone();
        after.extend_from_slice(&end_marker(recs.len() as u64));
        after.extend_from_slice(&encode(&recs[0]));
        std::fs::write(&path, &after).unwrap();
        let e = read_trace(&path).unwrap_err().to_string();
        assert!(e.contains("data after the end marker"), "{e}");
        let mut wrong = full;
        wrong.extend_from_slice(&end_marker(1));
        std::fs::write(&path, &wrong).unwrap();
        let e = read_trace(&path).unwrap_err().to_string();
        assert!(e.contains("counts 1 records"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn format_1_and_old_meta_still_read() {
        // A format-1 file as the previous drainer wrote it: no run id, timeline, waits or
        // modes in the meta, no end marker.
        let header = br#"{"name":"old","platform":"sil","period_ns":5,"engines":[["cpu0","cpu",0]],"tasks":[{"name":"a","engine":0,"wcet_ns":1,"budget_ns":2,"deadline_ns":3}],"modes":["normal"]}"#;
        let mut bytes = MAGIC_V1.to_vec();
        bytes.extend_from_slice(&(header.len() as u64).to_le_bytes());
        bytes.extend_from_slice(header);
        let recs = records(1);
        for r in &recs {
            bytes.extend_from_slice(&encode(r));
        }
        let path = temp("v1");
        std::fs::write(&path, &bytes).unwrap();
        let t = read_trace(&path).unwrap();
        assert_eq!(t.meta.run_id, "");
        assert!(t.meta.timeline.is_empty());
        assert_eq!(t.meta.tasks[0].modes, u32::MAX);
        assert!(t.meta.tasks[0].waits.is_empty());
        assert_eq!(t.records, recs);
        assert!(!t.truncated);
        bytes.truncate(bytes.len() - 5);
        std::fs::write(&path, &bytes).unwrap();
        let t = read_trace(&path).unwrap();
        assert_eq!(t.records, recs[..recs.len() - 1]);
        assert!(t.truncated);
        std::fs::remove_file(&path).unwrap();
    }

    /// Covers: REQ-EVD-004
    #[test]
    fn bad_magic_is_refused() {
        let path = temp("magic");
        std::fs::write(&path, b"GARBAGE!\0\0\0\0\0\0\0\0").unwrap();
        let e = read_trace(&path).unwrap_err().to_string();
        assert!(e.contains("bad magic"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }
}
