//! Layer statistics: the optional statistics section (builder, parser, malformed files), the
//! raw records and their CSV translation, and the committed `tests/data/aeb_detector_stats.sildla`
//! (the AEB network with statistics: same descriptors, same golden output).
//!
//! Covers: REQ-LDB-005
#![cfg(feature = "std")]

mod common;

use common::*;
use sil_loadable::builder::build;
use sil_loadable::stats::{
    self, CSV_HEADER, RAW_HEADER_LEN, RAW_MAGIC, RAW_RECORD_LEN, StatsError, TaskTiming,
};
use sil_loadable::{FLAG_LAYER_STATS, Loadable, LoadableError as E, OpKind};

fn data_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The AEB description with the committed statistics fragment appended.
fn aeb_stats_text() -> String {
    let aeb = std::fs::read_to_string(loadables_dir().join("aeb_detector.toml")).unwrap();
    let frag =
        std::fs::read_to_string(data_dir().join("aeb_detector_stats.fragment.toml")).unwrap();
    format!("{aeb}\n{frag}")
}

fn aeb_stats() -> Vec<u8> {
    build(&aeb_stats_text()).unwrap()
}

/// Covers: REQ-LDB-004
#[test]
fn committed_stats_loadable_matches_a_fresh_build_and_the_aeb_golden_output() {
    let bytes = aeb_stats();
    let path = data_dir().join("aeb_detector_stats.sildla");
    if std::env::var_os("SIL_LOADABLE_BLESS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    assert!(
        std::fs::read(&path).unwrap() == bytes,
        "aeb_detector_stats.sildla differs from a fresh build; run with SIL_LOADABLE_BLESS=1"
    );
    let l = Loadable::parse(&bytes).unwrap();
    let aeb_bytes = std::fs::read(loadables_dir().join("aeb_detector.sildla")).unwrap();
    let aeb = Loadable::parse(&aeb_bytes).unwrap();
    assert!(!aeb.has_layer_stats());
    assert_eq!(aeb.num_stats(), 0);
    assert_eq!(aeb.layer_name(0), None);
    // Same I/O descriptors, same network, same output.
    assert_eq!(
        l.inputs().collect::<Vec<_>>(),
        aeb.inputs().collect::<Vec<_>>()
    );
    assert_eq!(
        l.outputs().collect::<Vec<_>>(),
        aeb.outputs().collect::<Vec<_>>()
    );
    assert_eq!(l.work(), aeb.work());
    let golden_in = std::fs::read(loadables_dir().join("aeb_detector.golden_input.bin")).unwrap();
    let golden_out = std::fs::read(loadables_dir().join("aeb_detector.golden_output.bin")).unwrap();
    assert_eq!(run_all(&l, &[&golden_in]).unwrap().concat(), golden_out);
    // Header flag and count.
    assert_eq!(get_u32(&bytes, 20), FLAG_LAYER_STATS);
    assert_eq!(u16::from_le_bytes([bytes[56], bytes[57]]), 2);
}

#[test]
fn descriptors_and_layer_names() {
    let bytes = aeb_stats();
    let l = Loadable::parse(&bytes).unwrap();
    assert!(l.has_layer_stats());
    assert_eq!(l.num_stats(), 2);
    let s0 = l.stat(0).unwrap();
    assert_eq!(
        (s0.name_str(), s0.index, s0.first_op, s0.num_ops),
        ("layerwise", 0, 0, 6)
    );
    assert_eq!(s0.size(), (RAW_HEADER_LEN + 6 * RAW_RECORD_LEN) as u64);
    let s1 = l.stat(1).unwrap();
    assert_eq!(
        (s1.name_str(), s1.first_op, s1.num_ops, s1.size()),
        ("heads", 3, 3, 48 + 3 * 32)
    );
    assert_eq!(&s1.name_c()[..6], b"heads\0");
    assert!(l.stat(2).is_none());
    let names: Vec<_> = (0..l.num_ops()).map(|i| l.layer_name(i).unwrap()).collect();
    assert_eq!(
        names,
        [
            "conv1",
            "pool1",
            "conv2",
            "map_head",
            "gap",
            "presence_head"
        ]
    );
    assert_eq!(l.layer_name(6), None);
    let total: u64 = (0..l.num_ops()).map(|i| l.op_work(i).unwrap()).sum();
    assert_eq!(total, l.work());
    assert_eq!(l.op_work(6), None);
    let text = sil_loadable::describe::describe(&l);
    assert!(text.contains("flags 1 (layer statistics)"), "{text}");
    assert!(
        text.contains("statistics 1 `heads`: layers 3..6 (3 records)"),
        "{text}"
    );
    assert!(text.contains("op 4 `gap`"), "{text}");
}

/// Covers: REQ-DLA-009
#[test]
fn raw_records_tile_the_task_in_proportion_to_work() {
    let bytes = aeb_stats();
    let l = Loadable::parse(&bytes).unwrap();
    let t = TaskTiming {
        seq: 7,
        start_ns: 1_000_000_000,
        end_ns: 1_002_345_679,
    };
    let mut raw = vec![0xa5u8; 4096];
    stats::write_raw(&l, 0, &t, &mut raw).unwrap();
    let size = l.stat(0).unwrap().size() as usize;
    assert!(
        raw[size..].iter().all(|&b| b == 0xa5),
        "wrote past the size"
    );
    assert_eq!(&raw[..8], &RAW_MAGIC);
    let r = stats::parse_raw(&l, 0, &raw).unwrap();
    assert_eq!(
        (r.seq, r.start_ns, r.end_ns, r.count),
        (7, t.start_ns, t.end_ns, 6)
    );
    let d = t.end_ns - t.start_ns;
    let mut before = 0u64;
    let mut prev_end = t.start_ns;
    for i in 0..6 {
        let rec = r.record(i).unwrap();
        let w = l.op_work(i).unwrap();
        assert_eq!(rec.op as usize, i);
        assert_eq!(rec.kind, l.op(i).unwrap().kind);
        assert_eq!(rec.work, w);
        assert_eq!(rec.start_ns, prev_end, "layers are contiguous");
        let want_end =
            t.start_ns + (u128::from(d) * u128::from(before + w) / u128::from(l.work())) as u64;
        assert_eq!(rec.end_ns, want_end);
        before += w;
        prev_end = rec.end_ns;
    }
    assert_eq!(prev_end, t.end_ns, "the layers end with the task");
    assert_eq!(r.record(0).unwrap().kind, OpKind::Conv2d);

    // Descriptor 1 covers ops 3..6 with the same global timing.
    let mut raw1 = vec![0u8; 4096];
    stats::write_raw(&l, 1, &t, &mut raw1).unwrap();
    let r1 = stats::parse_raw(&l, 1, &raw1).unwrap();
    assert_eq!(r1.count, 3);
    for i in 0..3 {
        assert_eq!(r1.record(i).unwrap(), r.record(3 + i).unwrap());
    }
    // A raw buffer of one descriptor is not one of the other.
    assert_eq!(
        stats::parse_raw(&l, 1, &raw).map(|_| ()),
        Err(StatsError::BadRaw)
    );
    assert_eq!(
        stats::write_raw(&l, 2, &t, &mut raw).map(|_| ()),
        Err(StatsError::NoSuchStatistics)
    );
    assert_eq!(
        stats::write_raw(&l, 0, &t, &mut raw[..size - 1]),
        Err(StatsError::BufferTooSmall)
    );
}

#[test]
fn csv_length_then_stream() {
    let bytes = aeb_stats();
    let l = Loadable::parse(&bytes).unwrap();
    let t = TaskTiming {
        seq: 0,
        start_ns: 5_000,
        end_ns: 5_000 + 2_000_000,
    };
    let mut raw = vec![0u8; 512];
    stats::write_raw(&l, 0, &t, &mut raw).unwrap();
    let len = stats::translate_csv(&l, 0, &raw, 1000, None).unwrap();
    let mut out = vec![0xffu8; len + 8];
    assert_eq!(
        stats::translate_csv(&l, 0, &raw, 1000, Some(&mut out)).unwrap(),
        len
    );
    assert_eq!(out[len - 1], 0, "NUL-terminated");
    assert!(
        out[len..].iter().all(|&b| b == 0xff),
        "nothing past the length"
    );
    let text = std::str::from_utf8(&out[..len - 1]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + l.num_ops(), "{text}");
    assert_eq!(lines[0], CSV_HEADER);
    assert!(text.ends_with('\n'));
    let r = stats::parse_raw(&l, 0, &raw).unwrap();
    let mut total_cycles = 0u64;
    for (i, line) in lines[1..].iter().enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 7, "{line}");
        let rec = r.record(i).unwrap();
        assert_eq!(f[0], i.to_string());
        assert_eq!(f[1], l.layer_name(i).unwrap());
        assert_eq!(f[2], rec.kind.name());
        let us = |ns: u64| format!("{}.{:03}", ns / 1000, ns % 1000);
        assert_eq!(f[3], us(rec.start_ns - t.start_ns));
        assert_eq!(f[4], us(rec.end_ns - t.start_ns));
        assert_eq!(f[5], us(rec.end_ns - rec.start_ns));
        // 1000 MHz: one cycle per ns.
        assert_eq!(f[6], (rec.end_ns - rec.start_ns).to_string());
        total_cycles += f[6].parse::<u64>().unwrap();
    }
    assert_eq!(total_cycles, 2_000_000);
    assert!(
        lines[1].starts_with("0,conv1,conv2d,0.000,"),
        "{}",
        lines[1]
    );
    assert!(lines[6].ends_with(",2000.000,") || lines[6].contains(",2000.000,"));
    // Another frequency scales the cycles only.
    let len2 = stats::translate_csv(&l, 0, &raw, 1400, None).unwrap();
    let mut out2 = vec![0u8; len2];
    stats::translate_csv(&l, 0, &raw, 1400, Some(&mut out2)).unwrap();
    let text2 = std::str::from_utf8(&out2[..len2 - 1]).unwrap();
    let c0: u64 = text2
        .lines()
        .nth(1)
        .unwrap()
        .rsplit(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let d0 = r.record(0).unwrap().end_ns - r.record(0).unwrap().start_ns;
    assert_eq!(c0, d0 * 1400 / 1000);
    // Errors.
    assert_eq!(
        stats::translate_csv(&l, 0, &raw, 0, None),
        Err(StatsError::BadFrequency)
    );
    assert_eq!(
        stats::translate_csv(&l, 2, &raw, 1000, None),
        Err(StatsError::NoSuchStatistics)
    );
    let mut short = vec![0u8; len - 1];
    assert_eq!(
        stats::translate_csv(&l, 0, &raw, 1000, Some(&mut short)),
        Err(StatsError::BufferTooSmall)
    );
    assert_eq!(
        stats::translate_csv(&l, 0, &raw[..100], 1000, None),
        Err(StatsError::BufferTooSmall)
    );
    let zeros = vec![0u8; 512];
    assert_eq!(
        stats::translate_csv(&l, 0, &zeros, 1000, None),
        Err(StatsError::BadRaw),
        "a buffer nothing was written to"
    );
    // Every corrupted header or record field is refused.
    let size = l.stat(0).unwrap().size() as usize;
    for off in (0..size).filter(|o| !(16..40).contains(o)) {
        let mut bad = raw.clone();
        bad[off] ^= 0x40;
        let ok = stats::parse_raw(&l, 0, &bad).is_ok();
        // Times may move within their neighbours' bounds; everything else is checked.
        let rec_off = off.checked_sub(RAW_HEADER_LEN).map(|o| o % RAW_RECORD_LEN);
        let is_time_or_work = rec_off.is_some_and(|o| o >= 8);
        assert!(!ok || is_time_or_work, "flip at {off} accepted");
    }
    // Times out of order are refused.
    let mut bad = raw.clone();
    let rec1 = RAW_HEADER_LEN + RAW_RECORD_LEN;
    bad[rec1 + 8..rec1 + 16].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(
        stats::parse_raw(&l, 0, &bad).map(|_| ()),
        Err(StatsError::BadRaw)
    );
}

fn parse_patched(bytes: &[u8], f: impl FnOnce(&mut Vec<u8>)) -> Result<(), E> {
    let mut b = bytes.to_vec();
    f(&mut b);
    rehash(&mut b);
    Loadable::parse(&b).map(|_| ())
}

#[test]
fn malformed_statistics_sections() {
    let good = aeb_stats();
    assert!(parse_patched(&good, |_| {}).is_ok());
    let ops_off = get_u32(&good, 40) as usize;
    let num_ops = 6usize;
    let stats_off = ops_off + 48 * num_ops;
    let names_off = stats_off + 2 * 88;
    // Header: flag without count, count without flag, too many, unknown flag bits.
    assert_eq!(
        parse_patched(&good, |b| put_u16(b, 56, 0)),
        Err(E::BadHeader)
    );
    assert_eq!(
        parse_patched(&good, |b| put_u16(b, 56, 17)),
        Err(E::BadHeader)
    );
    assert_eq!(
        parse_patched(&good, |b| put_u32(b, 20, 0)),
        Err(E::BadHeader)
    );
    assert_eq!(
        parse_patched(&good, |b| put_u32(b, 20, 3)),
        Err(E::BadHeader)
    );
    assert_eq!(parse_patched(&good, |b| b[58] = 1), Err(E::BadHeader));
    // A count that does not match the section: the weights move.
    assert_eq!(
        parse_patched(&good, |b| put_u16(b, 56, 1)),
        Err(E::SectionOutOfRange)
    );
    // Descriptors.
    let bad0 = Err(E::BadStatistics { index: 0 });
    let bad1 = Err(E::BadStatistics { index: 1 });
    assert_eq!(parse_patched(&good, |b| b[stats_off] = 0), bad0);
    assert_eq!(parse_patched(&good, |b| b[stats_off] = 0x7f), bad0);
    assert_eq!(
        parse_patched(&good, |b| b[stats_off + 79] = b'x'),
        bad0,
        "after the NUL"
    );
    assert_eq!(
        parse_patched(&good, |b| put_u16(b, stats_off + 82, 0)),
        bad0,
        "no layers"
    );
    assert_eq!(
        parse_patched(&good, |b| put_u16(b, stats_off + 82, 7)),
        bad0,
        "past the last op"
    );
    assert_eq!(
        parse_patched(&good, |b| put_u16(b, stats_off + 88 + 80, 4)),
        bad1
    );
    assert_eq!(
        parse_patched(&good, |b| b[stats_off + 84] = 1),
        bad0,
        "reserved"
    );
    // Names: equal to another statistics descriptor, or to a tensor.
    assert_eq!(
        parse_patched(&good, |b| {
            let (a, c) = b.split_at_mut(stats_off + 88);
            c[..80].copy_from_slice(&a[stats_off..stats_off + 80]);
        }),
        bad1
    );
    assert_eq!(
        parse_patched(&good, |b| {
            b[stats_off..stats_off + 80].fill(0);
            b[stats_off..stats_off + 5].copy_from_slice(b"image");
        }),
        bad0
    );
    // Layer names.
    let badname = |op: u16| Err(E::BadLayerName { op });
    assert_eq!(parse_patched(&good, |b| b[names_off] = 0), badname(0));
    assert_eq!(
        parse_patched(&good, |b| b[names_off + 32 + 1] = b','),
        badname(1)
    );
    assert_eq!(
        parse_patched(&good, |b| b[names_off + 64 + 1] = b'"'),
        badname(2)
    );
    assert_eq!(
        parse_patched(&good, |b| b[names_off + 31] = b'x'),
        badname(0)
    );
}

#[test]
fn builder_rules() {
    let aeb = std::fs::read_to_string(loadables_dir().join("aeb_detector.toml")).unwrap();
    let with = |frag: &str| build(&format!("{aeb}\n{frag}"));
    let msg = |frag: &str| with(frag).unwrap_err().0;
    assert!(msg("[[statistics]]\nname = \"image\"").contains("duplicate name"));
    assert!(
        msg("[[statistics]]\nname = \"a\"\n[[statistics]]\nname = \"a\"").contains("duplicate")
    );
    assert!(msg("[[statistics]]\nname = \"a\"\nfirst_layer = \"nope\"").contains("not a layer"));
    assert!(
        msg("[[statistics]]\nname = \"a\"\nfirst_layer = \"gap\"\nlast_layer = \"conv1\"")
            .contains("before")
    );
    assert!(msg("[[statistics]]\nname = \"\"").contains("printable"));
    let many: String = (0..17)
        .map(|i| format!("[[statistics]]\nname = \"s{i}\"\n"))
        .collect();
    assert!(msg(&many).contains("at most 16"));
    // A layer name that cannot go into a CSV field.
    let bad_layer = aeb.replacen("name = \"gap\"", "name = \"g,ap\"", 1);
    let e = build(&format!("{bad_layer}\n[[statistics]]\nname = \"s\"")).unwrap_err();
    assert!(e.0.contains("layer 4"), "{e}");
    // ... is fine without statistics (the name is not stored).
    assert!(build(&bad_layer).is_ok());
    // A single-layer range, and unnamed layers get `layer<i>`.
    let b = build(&format!(
        "{}\n[[statistics]]\nname = \"one\"\nfirst_layer = \"gap\"\nlast_layer = \"gap\"",
        MINI
    ))
    .unwrap_err();
    assert!(b.0.contains("not a layer"), "MINI has no layer `gap`: {b}");
    let mini = build(&format!("{MINI}\n[[statistics]]\nname = \"all\"")).unwrap();
    let l = Loadable::parse(&mini).unwrap();
    assert_eq!(l.layer_name(0), Some("conv"));
    assert_eq!(l.layer_name(3), Some("layer3"));
    assert_eq!(l.stat(0).unwrap().num_ops as usize, l.num_ops());
}
