//! Layer statistics of networks that declare them (`sil_onnx::stats`): the raw buffer the
//! SIL DLA writes after each task, and its translation to CSV (what cuDLA's
//! `etiTranslateStats` returns).
//!
//! The vendor's raw layout is not public; this one is the SIL's own (all integers
//! little-endian), documented in `sil/README.md` ("SIL loadable in cuDLA"):
//!
//! | offset | type | field |
//! |---|---|---|
//! | 0 | `[u8; 8]` | magic [`RAW_MAGIC`] |
//! | 8 | u32 | layout version [`RAW_VERSION`] |
//! | 12 | u16 | statistics descriptor index |
//! | 14 | u16 | record count (= the descriptor's layer count) |
//! | 16 | u64 | task sequence number (per device handle, from 0) |
//! | 24 | u64 | task start, ns of the DLA clock (the SIL clock) |
//! | 32 | u64 | task end, ns |
//! | 40 | u16 | first layer covered |
//! | 42 | `[u8; 6]` | reserved, 0 |
//! | 48 + 32·i | record | layer `first_op + i` |
//!
//! Record (32 bytes): u16 layer index, u8 layer kind (`sil_onnx::LayerKind::code`), u8 bit 0:
//! a Relu is fused into the layer, u32 reserved 0, u64 layer start (ns), u64 layer end (ns),
//! u64 work (`sil_onnx::Layer::work`).
//!
//! The task's modelled time is split over **all** layers in proportion to their work: layer
//! `i` runs from `start + D·W(<i)/W` to `start + D·W(≤i)/W` (integer division, `D` = end −
//! start, `W` = total work), so the layers tile the task exactly and a seed of the timing
//! model gives the same records.

use core::fmt::{self, Write as _};

use sil_onnx::{LayerKind, Model, stats::StatsDesc};

/// The first 8 bytes of a raw statistics buffer written by the SIL DLA.
pub const RAW_MAGIC: [u8; 8] = *b"SILSTAT\x01";
/// The raw layout version (2: records of ONNX network layers).
pub const RAW_VERSION: u32 = 2;
/// Length of the raw buffer's header.
pub const RAW_HEADER_LEN: usize = 48;
/// Length of one raw per-layer record.
pub const RAW_RECORD_LEN: usize = 32;
/// The CSV header line (without its newline).
pub const CSV_HEADER: &str = "layer,name,op,start_us,end_us,duration_us,cycles";

fn rd<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    b.get(off..off + N)?.try_into().ok()
}

fn rd_u8(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

fn rd_u16(b: &[u8], off: usize) -> Option<u16> {
    rd(b, off).map(u16::from_le_bytes)
}

fn rd_u32(b: &[u8], off: usize) -> Option<u32> {
    rd(b, off).map(u32::from_le_bytes)
}

fn rd_u64(b: &[u8], off: usize) -> Option<u64> {
    rd(b, off).map(u64::from_le_bytes)
}

/// Bytes of the raw buffer of a statistics descriptor: the header and one record per layer.
pub fn raw_size(d: &StatsDesc) -> usize {
    RAW_HEADER_LEN + RAW_RECORD_LEN * d.count
}

/// Why a statistics buffer could not be written or translated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsError {
    /// The network has no statistics descriptor with this index.
    NoSuchStatistics,
    /// The buffer is smaller than the descriptor's size.
    BufferTooSmall,
    /// The raw buffer is not one the SIL DLA wrote for this descriptor (magic, version,
    /// index, counts, op indices or kinds, times).
    BadRaw,
    /// The DLA frequency is 0.
    BadFrequency,
}

impl fmt::Display for StatsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NoSuchStatistics => "no such statistics descriptor",
            Self::BufferTooSmall => "statistics buffer too small",
            Self::BadRaw => "not a raw statistics buffer of this descriptor",
            Self::BadFrequency => "DLA frequency must be above 0 MHz",
        })
    }
}

/// One task as the SIL DLA modelled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskTiming {
    /// Submission sequence number on the device handle.
    pub seq: u64,
    /// Start, ns (SIL clock).
    pub start_ns: u64,
    /// End, ns (≥ start).
    pub end_ns: u64,
}

/// `d · num / den` without overflow (`num ≤ den`); 0 when `den` is 0.
fn scale(d: u64, num: u64, den: u64) -> u64 {
    if den == 0 {
        return 0;
    }
    u64::try_from(u128::from(d) * u128::from(num) / u128::from(den)).unwrap_or(u64::MAX)
}

fn put(out: &mut [u8], off: usize, v: &[u8]) {
    if let Some(d) = out.get_mut(off..off + v.len()) {
        d.copy_from_slice(v);
    }
}

/// Writes the raw statistics of descriptor `index` for one task into `out` (at least
/// [`raw_size`] bytes; bytes beyond are not touched). Allocates nothing.
pub fn write_raw(
    m: &Model,
    index: usize,
    t: &TaskTiming,
    out: &mut [u8],
) -> Result<(), StatsError> {
    let desc = m
        .statistics()
        .get(index)
        .ok_or(StatsError::NoSuchStatistics)?;
    let size = raw_size(desc);
    if out.len() < size {
        return Err(StatsError::BufferTooSmall);
    }
    let out = &mut out[..size];
    out.fill(0);
    let u16_of = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
    put(out, 0, &RAW_MAGIC);
    put(out, 8, &RAW_VERSION.to_le_bytes());
    put(out, 12, &u16_of(index).to_le_bytes());
    put(out, 14, &u16_of(desc.count).to_le_bytes());
    put(out, 16, &t.seq.to_le_bytes());
    put(out, 24, &t.start_ns.to_le_bytes());
    put(out, 32, &t.end_ns.to_le_bytes());
    put(out, 40, &u16_of(desc.first).to_le_bytes());
    let total = m.work();
    let d = t.end_ns.saturating_sub(t.start_ns);
    let mut before = 0u64;
    for (i, layer) in m.layers().iter().enumerate().take(desc.first + desc.count) {
        let after = before.saturating_add(layer.work);
        if i >= desc.first {
            let rec = RAW_HEADER_LEN + RAW_RECORD_LEN * (i - desc.first);
            put(out, rec, &u16_of(i).to_le_bytes());
            put(out, rec + 2, &[layer.kind.code(), u8::from(layer.relu)]);
            put(
                out,
                rec + 8,
                &(t.start_ns + scale(d, before, total)).to_le_bytes(),
            );
            put(
                out,
                rec + 16,
                &(t.start_ns + scale(d, after, total)).to_le_bytes(),
            );
            put(out, rec + 24, &layer.work.to_le_bytes());
        }
        before = after;
    }
    Ok(())
}

/// A decoded raw record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRecord {
    /// Layer index.
    pub layer: u16,
    /// Layer kind.
    pub kind: LayerKind,
    /// A Relu is fused into the layer.
    pub relu: bool,
    /// Layer start, ns.
    pub start_ns: u64,
    /// Layer end, ns.
    pub end_ns: u64,
    /// Work.
    pub work: u64,
}

/// A validated raw statistics buffer.
#[derive(Clone, Copy, Debug)]
pub struct RawStats<'a> {
    bytes: &'a [u8],
    /// Task sequence number.
    pub seq: u64,
    /// Task start, ns.
    pub start_ns: u64,
    /// Task end, ns.
    pub end_ns: u64,
    /// Number of records.
    pub count: usize,
}

impl RawStats<'_> {
    /// Record `i` (validated by [`parse_raw`]).
    pub fn record(&self, i: usize) -> Option<RawRecord> {
        if i >= self.count {
            return None;
        }
        let r = RAW_HEADER_LEN + RAW_RECORD_LEN * i;
        Some(RawRecord {
            layer: rd_u16(self.bytes, r)?,
            kind: LayerKind::from_code(rd_u8(self.bytes, r + 2)?)?,
            relu: rd_u8(self.bytes, r + 3)? == 1,
            start_ns: rd_u64(self.bytes, r + 8)?,
            end_ns: rd_u64(self.bytes, r + 16)?,
            work: rd_u64(self.bytes, r + 24)?,
        })
    }
}

/// Validates a raw buffer against descriptor `index` of `m`: it must be what
/// [`write_raw`] writes for some task (`raw` holds at least [`raw_size`] bytes).
pub fn parse_raw<'r>(m: &Model, index: usize, raw: &'r [u8]) -> Result<RawStats<'r>, StatsError> {
    use StatsError::BadRaw;
    let desc = m
        .statistics()
        .get(index)
        .ok_or(StatsError::NoSuchStatistics)?;
    let raw = raw
        .get(..raw_size(desc))
        .ok_or(StatsError::BufferTooSmall)?;
    let start_ns = rd_u64(raw, 24).ok_or(BadRaw)?;
    let end_ns = rd_u64(raw, 32).ok_or(BadRaw)?;
    let as_usize = |v: Option<u16>| v.map(usize::from);
    if raw.get(..8) != Some(&RAW_MAGIC[..])
        || rd_u32(raw, 8) != Some(RAW_VERSION)
        || as_usize(rd_u16(raw, 12)) != Some(index)
        || as_usize(rd_u16(raw, 14)) != Some(desc.count)
        || as_usize(rd_u16(raw, 40)) != Some(desc.first)
        || raw.get(42..48).is_none_or(|r| r.iter().any(|&b| b != 0))
        || end_ns < start_ns
    {
        return Err(BadRaw);
    }
    let s = RawStats {
        bytes: raw,
        seq: rd_u64(raw, 16).ok_or(BadRaw)?,
        start_ns,
        end_ns,
        count: desc.count,
    };
    let mut prev_end = start_ns;
    for i in 0..s.count {
        let r = s.record(i).ok_or(BadRaw)?;
        let layer = desc.first + i;
        let base = RAW_HEADER_LEN + RAW_RECORD_LEN * i;
        let want = m.layers().get(layer).ok_or(BadRaw)?;
        if usize::from(r.layer) != layer
            || r.kind != want.kind
            || rd_u8(raw, base + 3) != Some(u8::from(want.relu))
            || rd_u32(raw, base + 4) != Some(0)
            || r.start_ns < prev_end
            || r.end_ns < r.start_ns
            || r.end_ns > end_ns
        {
            return Err(BadRaw);
        }
        prev_end = r.end_ns;
    }
    Ok(s)
}

/// Counts bytes and, with a buffer, writes them.
struct Sink<'b> {
    buf: Option<&'b mut [u8]>,
    len: usize,
}

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if let Some(b) = self.buf.as_deref_mut() {
            let dst = b.get_mut(self.len..self.len + s.len()).ok_or(fmt::Error)?;
            dst.copy_from_slice(s.as_bytes());
        }
        self.len += s.len();
        Ok(())
    }
}

/// Microseconds with three decimals.
struct Micros(u64);

impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:03}", self.0 / 1000, self.0 % 1000)
    }
}

/// Translates a raw buffer of descriptor `index` to CSV: the line [`CSV_HEADER`], then one
/// line per layer: `layer index, layer name, op (the ONNX operator, `+Relu` when one is
/// fused), start and end (µs from the task start, three decimals), duration (µs), cycles`
/// where cycles = duration (ns) · `dla_freq_mhz` / 1000 (rounded down). Every line ends with
/// `\n`; a NUL byte follows the last one.
///
/// Returns the stream length **including the NUL**. With `out`, the stream is written into it
/// (it must hold that many bytes, else [`StatsError::BufferTooSmall`] and `out` holds a
/// prefix). Allocates nothing.
pub fn translate_csv(
    m: &Model,
    index: usize,
    raw: &[u8],
    dla_freq_mhz: u32,
    out: Option<&mut [u8]>,
) -> Result<usize, StatsError> {
    if dla_freq_mhz == 0 {
        return Err(StatsError::BadFrequency);
    }
    let s = parse_raw(m, index, raw)?;
    let mut sink = Sink { buf: out, len: 0 };
    let mut lines = || -> fmt::Result {
        writeln!(sink, "{CSV_HEADER}")?;
        for i in 0..s.count {
            let r = s.record(i).ok_or(fmt::Error)?;
            let dur = r.end_ns - r.start_ns;
            let cycles = u128::from(dur) * u128::from(dla_freq_mhz) / 1000;
            let name = m
                .layers()
                .get(usize::from(r.layer))
                .map_or("", |l| l.name.as_str());
            writeln!(
                sink,
                "{},{},{}{},{},{},{},{}",
                r.layer,
                name,
                r.kind.op_type(),
                if r.relu { "+Relu" } else { "" },
                Micros(r.start_ns - s.start_ns),
                Micros(r.end_ns - s.start_ns),
                Micros(dur),
                cycles
            )?;
        }
        sink.write_str("\0")
    };
    lines().map_err(|_| StatsError::BufferTooSmall)?;
    Ok(sink.len)
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-LDB-005, REQ-DLA-009
    use super::*;

    fn model() -> Model {
        Model::load(include_bytes!(
            "../../../loadables/test/aeb_detector_stats.onnx"
        ))
        .unwrap()
    }

    const T: TaskTiming = TaskTiming {
        seq: 7,
        start_ns: 1_000_000,
        end_ns: 1_000_000 + 3_333_333,
    };

    #[test]
    fn raw_records_tile_the_task_in_proportion_to_work() {
        let m = model();
        let d = &m.statistics()[0];
        let mut raw = vec![0xEE; raw_size(d) + 4];
        write_raw(&m, 0, &T, &mut raw).unwrap();
        assert_eq!(
            &raw[raw_size(d)..],
            [0xEE; 4],
            "bytes beyond are not touched"
        );
        let s = parse_raw(&m, 0, &raw).unwrap();
        assert_eq!((s.seq, s.count), (7, 6));
        let mut at = T.start_ns;
        let total: u64 = m.layers().iter().map(|l| l.work).sum();
        let mut before = 0;
        for (i, l) in m.layers().iter().enumerate() {
            let r = s.record(i).unwrap();
            assert_eq!(
                (usize::from(r.layer), r.kind, r.relu, r.work),
                (i, l.kind, l.relu, l.work)
            );
            assert_eq!(r.start_ns, at, "layers tile the task");
            before += l.work;
            assert_eq!(r.end_ns, T.start_ns + 3_333_333 * before / total);
            at = r.end_ns;
        }
        assert_eq!(at, T.end_ns);
        // The second descriptor covers layers 3..6 with the same times.
        let d1 = &m.statistics()[1];
        let mut raw1 = vec![0; raw_size(d1)];
        write_raw(&m, 1, &T, &mut raw1).unwrap();
        let s1 = parse_raw(&m, 1, &raw1).unwrap();
        assert_eq!(s1.record(0).unwrap(), s.record(3).unwrap());
    }

    #[test]
    fn parse_refuses_what_was_not_written_for_the_descriptor() {
        let m = model();
        let mut raw = vec![0; raw_size(&m.statistics()[0])];
        write_raw(&m, 0, &T, &mut raw).unwrap();
        assert_eq!(parse_raw(&m, 1, &raw).unwrap_err(), StatsError::BadRaw);
        assert_eq!(
            parse_raw(&m, 9, &raw).unwrap_err(),
            StatsError::NoSuchStatistics
        );
        assert_eq!(
            parse_raw(&m, 0, &raw[..100]).unwrap_err(),
            StatsError::BufferTooSmall
        );
        for (off, v) in [
            (0, b'X'),
            (8, 9),
            (14, 5),
            (40, 1),
            (42, 1),
            (48 + 2, 4),
            (48 + 3, 0),
        ] {
            let mut bad = raw.clone();
            bad[off] = v;
            assert_eq!(
                parse_raw(&m, 0, &bad).unwrap_err(),
                StatsError::BadRaw,
                "byte {off}"
            );
        }
        let mut small = [0u8; 10];
        assert_eq!(
            write_raw(&m, 0, &T, &mut small),
            Err(StatsError::BufferTooSmall)
        );
    }

    #[test]
    fn csv_length_then_stream() {
        let m = model();
        let mut raw = vec![0; raw_size(&m.statistics()[1])];
        write_raw(&m, 1, &T, &mut raw).unwrap();
        let n = translate_csv(&m, 1, &raw, 1000, None).unwrap();
        let mut out = vec![0u8; n];
        assert_eq!(translate_csv(&m, 1, &raw, 1000, Some(&mut out)), Ok(n));
        let text = std::str::from_utf8(&out[..n - 1]).unwrap();
        assert_eq!(out[n - 1], 0, "NUL-terminated");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        assert!(lines[1].starts_with("3,map_head,Conv,"), "{text}");
        assert!(lines[3].starts_with("5,presence_head,Conv,"), "{text}");
        let mut short = vec![0u8; n - 1];
        assert_eq!(
            translate_csv(&m, 1, &raw, 1000, Some(&mut short)),
            Err(StatsError::BufferTooSmall)
        );
        assert_eq!(
            translate_csv(&m, 1, &raw, 0, None),
            Err(StatsError::BadFrequency)
        );
    }
}
