//! The trace reader is linear in the file: it reads every byte once, through a constant number
//! of `read` calls per record, and a header length larger than the file fails at the end of
//! the file without allocating that length. Work is counted by a reader that counts the calls
//! and the bytes.
//!
//! Covers: REQ-ROB-044

use std::cell::Cell;
use std::io::{self, Cursor, Read};
use std::rc::Rc;

use orin_exec::trace::{Event, Record};
use orin_exec_trace::{END_MAGIC, MAGIC, RECORD_BYTES, TraceMeta, TraceReader};

/// Counts the `read` calls and the bytes they return.
struct Counting {
    inner: Cursor<Vec<u8>>,
    calls: Rc<Cell<u64>>,
    bytes: Rc<Cell<u64>>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.calls.set(self.calls.get() + 1);
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }
}

/// Reads `file` to its end; returns (records, truncated or the error, read calls, bytes read).
fn read_all(file: Vec<u8>) -> (u64, Result<bool, String>, u64, u64) {
    let calls = Rc::new(Cell::new(0));
    let bytes = Rc::new(Cell::new(0));
    let input = Counting {
        inner: Cursor::new(file),
        calls: calls.clone(),
        bytes: bytes.clone(),
    };
    let result = TraceReader::new(Box::new(input), "t.bin").and_then(|mut r| {
        while r.next_record()?.is_some() {}
        Ok((r.records_read(), r.truncated()))
    });
    match result {
        Ok((n, truncated)) => (n, Ok(truncated), calls.get(), bytes.get()),
        Err(e) => (0, Err(e.to_string()), calls.get(), bytes.get()),
    }
}

fn header(len: u64, meta: &[u8]) -> Vec<u8> {
    let mut f = MAGIC.to_vec();
    f.extend_from_slice(&len.to_le_bytes());
    f.extend_from_slice(meta);
    f
}

fn file(records: u64) -> Vec<u8> {
    let meta = serde_json::to_vec(&TraceMeta::default()).unwrap();
    let mut f = header(meta.len() as u64, &meta);
    for i in 0..records {
        let r = Record {
            time_ns: i * 1000,
            frame: i / 4,
            task: (i % 4) as u16,
            event: Event::TaskStart,
            value: 0,
        };
        for w in r.pack() {
            f.extend_from_slice(&w.to_le_bytes());
        }
    }
    for w in [u64::from_le_bytes(*END_MAGIC), records, u64::MAX, 0] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    f
}

#[test]
fn every_byte_is_read_once_with_constant_calls_per_record() {
    for n in [0, 1, 1000, 100_000] {
        let f = file(n);
        let len = f.len() as u64;
        let (records, end, calls, bytes) = read_all(f);
        assert_eq!((records, end), (n, Ok(false)));
        assert_eq!(bytes, len, "{n} records");
        // Magic, length, header (and its end), each record, the end marker, the final probe.
        assert!(calls <= n + 8, "{n} records: {calls} read calls");
    }
}

#[test]
fn a_zero_filled_tail_is_read_once() {
    let mut f = file(10);
    f.truncate(f.len() - RECORD_BYTES);
    let len = f.len() as u64 + (1 << 20);
    f.resize(len as usize, 0);
    let (records, end, _, bytes) = read_all(f);
    assert_eq!((records, end, bytes), (10, Ok(true), len));
}

#[test]
fn a_header_length_past_the_end_fails_without_reading_more_than_the_file() {
    let f = header(1 << 40, b"{}");
    let len = f.len() as u64;
    let (_, end, _, bytes) = read_all(f);
    let e = end.unwrap_err();
    assert!(
        e.contains("cut inside its meta header (2 of 1099511627776"),
        "{e}"
    );
    assert_eq!(bytes, len);
}
