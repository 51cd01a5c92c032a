//! Smoke test of `hil bench` on the SIL platform: a few frames, every table row and the JSON
//! are there (the numbers are not judged: it is a benchmark).
//!
//! Covers: REQ-RT-015, REQ-GPU-017
#![cfg(feature = "sil")]

use std::process::Command;

#[test]
fn bench_prints_every_row_and_writes_the_json() {
    let json = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-smoke.json");
    let _ = std::fs::remove_file(&json);
    let out = Command::new(env!("CARGO_BIN_EXE_hil"))
        .args(["bench", "--frames", "12", "--warmup", "4", "--json"])
        .arg(&json)
        .output()
        .expect("run hil");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "hil bench failed: {:?}", out.status);
    for row in [
        "[gpu_bench:",
        "raw launch + synchronize ",
        "raw CUDA graph per frame ",
        "raw pre-enqueued + busy-poll ",
        "raw runtime shape (3 waits, 2 writes) ",
        "orin-exec, gpu_timestamps off ",
        "orin-exec, gpu_timestamps on ",
        "orin-exec, graph submission ",
        "orin-exec, cpu_wait spin ",
        "host submission per frame of the GPU chain (mean): ",
        "host time of one cuGraphLaunch (mean): ",
        "submission and CPU",
        "ratios runtime / raw (p50, p99):",
        "[dla_bench:",
        "raw CPU->GPU->DLA->GPU->CPU",
        "SIL engine threads:",
    ] {
        assert!(text.contains(row), "no row `{row}` in the output");
    }
    // Every runtime line reports the executive's CPU and wake-ups, and a ratio against each
    // measured baseline of its pipeline.
    let runtime_wakeups = text
        .lines()
        .filter(|l| !l.starts_with("SIL engine threads"))
        .map(|l| l.matches(" wake-ups").count())
        .sum::<usize>();
    assert_eq!(runtime_wakeups, 5);
    // ... and beside it the baseline of a thread that only sleeps, from the same run.
    assert_eq!(text.matches("(sleep-only thread: ").count(), 5);
    // Each runtime row of `gpu_bench` with samples has a latency ratio against each baseline.
    // On a loaded machine a row can lose every frame to a fault (then it has no sample and no
    // ratio).
    let gpu_bench = text.split("[dla_bench:").next().unwrap_or_default();
    let measured_runtime_rows = gpu_bench
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("orin-exec") && !l.contains(" / "))
        .filter(|l| {
            l.split_whitespace()
                .find_map(|w| w.parse::<u64>().ok())
                .is_some_and(|n| n > 0)
        })
        .count();
    assert!(measured_runtime_rows > 0, "no runtime row has a sample");
    for baseline in [
        "raw launch + synchronize",
        "raw CUDA graph per frame",
        "raw pre-enqueued + busy-poll",
        "raw runtime shape",
    ] {
        let ratios = text
            .lines()
            .filter(|l| {
                l.trim_start().starts_with("orin-exec")
                    && l.contains(&format!("/ {baseline}"))
                    && l.contains("latency")
            })
            .count();
        assert_eq!(
            ratios, measured_runtime_rows,
            "{ratios} latency ratios against `{baseline}`, {measured_runtime_rows} runtime rows measured"
        );
    }
    // The graph row's chain submission against the raw graph's `cuGraphLaunch`.
    assert!(
        text.lines().any(
            |l| l.trim_start().starts_with("orin-exec, graph submission")
                && l.contains("/ raw CUDA graph per frame")
                && l.contains("GPU chain submission per frame")
        ),
        "no chain submission ratio of the graph row"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written"))
            .expect("json parses");
    let pipelines = v["pipelines"].as_array().expect("pipelines");
    assert_eq!(pipelines.len(), 2);
    let lines: Vec<usize> = pipelines
        .iter()
        .map(|p| p["lines"].as_array().map_or(0, Vec::len))
        .collect();
    assert_eq!(lines, [8, 2]);
    let graph_row = pipelines[0]["lines"]
        .as_array()
        .and_then(|l| {
            l.iter()
                .find(|l| l["name"] == "orin-exec, graph submission")
        })
        .expect("graph submission row");
    assert!(
        graph_row["graph_launches"].as_u64().is_some_and(|n| n > 0),
        "{graph_row}"
    );
    for p in pipelines {
        for l in p["lines"].as_array().expect("lines") {
            if l["not_available"].as_str() == Some("") {
                // A raw baseline fails on any lost frame; the runtime may skip or fault one
                // on a loaded machine (its frame then has no sample).
                let n = l["latency_ns"]["n"].as_u64().unwrap_or(0);
                let raw = l["name"].as_str().is_some_and(|n| n.starts_with("raw"));
                let faults = l["faults"].as_u64().unwrap_or(0);
                assert!(
                    if raw { n == 12 } else { n > 0 || faults > 0 },
                    "{}: n = {n}, faults = {faults}",
                    l["name"]
                );
                assert_eq!(l["wrong"].as_u64(), Some(0), "{}", l["name"]);
            }
        }
    }
}
