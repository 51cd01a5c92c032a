//! Per-crate coverage from `cargo llvm-cov --json --summary-only` (LLVM's coverage export),
//! written as the coverage summary that the run report's appendix reads
//! (`target/orin-exec/coverage.json`):
//!
//! ```json
//! {"tool": "cargo llvm-cov 0.9.1",
//!  "crates": [{"name": "orin-exec",
//!              "lines": {"covered": 10, "total": 12, "percent": 83.33},
//!              "regions": {"covered": 20, "total": 30, "percent": 66.67}}]}
//! ```
//!
//! A file belongs to the package whose directory is the longest prefix of its path.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Covered and total counts of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Covered.
    pub covered: u64,
    /// In all.
    pub total: u64,
    /// `100 * covered / total`, two decimals (100 when there is nothing to cover).
    pub percent: f64,
}

impl Counts {
    fn new(covered: u64, total: u64) -> Self {
        let percent = if total == 0 {
            100.0
        } else {
            (covered as f64 * 10000.0 / total as f64).round() / 100.0
        };
        Counts {
            covered,
            total,
            percent,
        }
    }
}

/// One crate's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrateCoverage {
    /// The package name.
    pub name: String,
    /// Lines.
    pub lines: Counts,
    /// LLVM code regions.
    pub regions: Counts,
}

/// `target/orin-exec/coverage.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageSummary {
    /// `cargo llvm-cov <version>`.
    pub tool: String,
    /// In the order asked for.
    pub crates: Vec<CrateCoverage>,
}

/// Why the export could not be summarised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoverageError {
    /// Not LLVM's JSON export.
    Format(String),
    /// A crate asked for is not a package of the workspace.
    UnknownCrate(String),
    /// A crate asked for has no file in the export.
    NoFiles(String),
}

impl fmt::Display for CoverageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Format(e) => write!(f, "not an llvm-cov JSON export: {e}"),
            Self::UnknownCrate(c) => write!(f, "`{c}` is not a package of the workspace"),
            Self::NoFiles(c) => write!(
                f,
                "no file of `{c}` in the coverage export (were its tests run under llvm-cov?)"
            ),
        }
    }
}

impl std::error::Error for CoverageError {}

#[derive(Deserialize)]
struct Export {
    data: Vec<ExportData>,
}

#[derive(Deserialize)]
struct ExportData {
    files: Vec<ExportFile>,
}

#[derive(Deserialize)]
struct ExportFile {
    filename: String,
    summary: FileSummary,
}

#[derive(Deserialize)]
struct FileSummary {
    lines: ExportCounts,
    regions: ExportCounts,
}

#[derive(Deserialize)]
struct ExportCounts {
    count: u64,
    covered: u64,
}

/// Sums the export's files per crate. `packages` are (name, directory) of the workspace's
/// packages; `crates` the names to report, in order.
pub fn summarise(
    export_json: &str,
    tool: &str,
    packages: &[(String, PathBuf)],
    crates: &[String],
) -> Result<CoverageSummary, CoverageError> {
    let export: Export =
        serde_json::from_str(export_json).map_err(|e| CoverageError::Format(e.to_string()))?;
    let mut sums: Vec<(u64, u64, u64, u64, usize)> = vec![(0, 0, 0, 0, 0); crates.len()];
    for c in crates {
        if !packages.iter().any(|(n, _)| n == c) {
            return Err(CoverageError::UnknownCrate(c.clone()));
        }
    }
    for file in export.data.iter().flat_map(|d| d.files.iter()) {
        let path = Path::new(&file.filename);
        let owner = packages
            .iter()
            .filter(|(_, dir)| path.starts_with(dir))
            .max_by_key(|(_, dir)| dir.components().count());
        let Some((name, _)) = owner else { continue };
        let Some(i) = crates.iter().position(|c| c == name) else {
            continue;
        };
        let s = &mut sums[i];
        s.0 += file.summary.lines.covered;
        s.1 += file.summary.lines.count;
        s.2 += file.summary.regions.covered;
        s.3 += file.summary.regions.count;
        s.4 += 1;
    }
    let mut out = Vec::new();
    for (c, s) in crates.iter().zip(sums) {
        if s.4 == 0 {
            return Err(CoverageError::NoFiles(c.clone()));
        }
        out.push(CrateCoverage {
            name: c.clone(),
            lines: Counts::new(s.0, s.1),
            regions: Counts::new(s.2, s.3),
        });
    }
    Ok(CoverageSummary {
        tool: tool.to_string(),
        crates: out,
    })
}

impl CoverageSummary {
    /// A Markdown table: crate, lines, regions (covered/total and percent).
    pub fn table(&self) -> String {
        let mut s = String::from("| crate | lines | regions |\n|---|---:|---:|\n");
        for c in &self.crates {
            s += &format!(
                "| `{}` | {:.1} % ({}/{}) | {:.1} % ({}/{}) |\n",
                c.name,
                c.lines.percent,
                c.lines.covered,
                c.lines.total,
                c.regions.percent,
                c.regions.covered,
                c.regions.total
            );
        }
        s
    }
}

#[cfg(test)]
/// Covers: REQ-TRC-006
mod tests {
    use super::*;

    fn file(name: &str, lines: (u64, u64), regions: (u64, u64)) -> String {
        format!(
            r#"{{"filename": "{name}", "summary": {{
                "lines": {{"count": {}, "covered": {}, "percent": 0}},
                "regions": {{"count": {}, "covered": {}, "notcovered": 0, "percent": 0}},
                "functions": {{"count": 1, "covered": 1, "percent": 100}}}}}}"#,
            lines.1, lines.0, regions.1, regions.0
        )
    }

    fn packages() -> Vec<(String, PathBuf)> {
        vec![
            ("orin-exec".into(), PathBuf::from("/w")),
            ("orin-exec-table".into(), PathBuf::from("/w/table")),
            ("sil-cuda".into(), PathBuf::from("/w/sil/cuda")),
        ]
    }

    #[test]
    fn files_are_summed_per_crate_by_the_longest_directory() {
        let export = format!(
            r#"{{"type": "llvm.coverage.json.export", "version": "2.0.1", "data": [{{"files": [{}, {}, {}, {}],
               "totals": {{}}}}]}}"#,
            file("/w/src/lib.rs", (8, 10), (15, 20)),
            file("/w/src/exec/mod.rs", (2, 10), (5, 20)),
            file("/w/table/src/lib.rs", (3, 3), (0, 0)),
            file("/w/sil/cuda/src/lib.rs", (1, 100), (1, 100)),
        );
        let crates = vec!["orin-exec".to_string(), "orin-exec-table".to_string()];
        let s = summarise(&export, "cargo llvm-cov 0.9.1", &packages(), &crates).unwrap();
        assert_eq!(s.tool, "cargo llvm-cov 0.9.1");
        assert_eq!(s.crates.len(), 2);
        let rt = &s.crates[0];
        assert_eq!((rt.lines.covered, rt.lines.total), (10, 20));
        assert_eq!(rt.lines.percent, 50.0);
        assert_eq!((rt.regions.covered, rt.regions.total), (20, 40));
        let table = &s.crates[1];
        assert_eq!(table.lines.percent, 100.0);
        assert_eq!(
            table.regions.percent, 100.0,
            "nothing to cover counts as covered"
        );
        let md = s.table();
        assert!(
            md.contains("| `orin-exec` | 50.0 % (10/20) | 50.0 % (20/40) |"),
            "{md}"
        );
        // The summary is the contract's JSON.
        let v: serde_json::Value = serde_json::to_value(&s).unwrap();
        assert_eq!(v["crates"][0]["lines"]["covered"], 10);
        assert_eq!(v["crates"][0]["regions"]["percent"], 50.0);
    }

    #[test]
    fn unknown_crates_missing_files_and_bad_input_are_errors() {
        let export = format!(
            r#"{{"data": [{{"files": [{}]}}]}}"#,
            file("/w/src/lib.rs", (1, 2), (1, 2))
        );
        let err = summarise(&export, "t", &packages(), &["nope".into()]).unwrap_err();
        assert_eq!(err, CoverageError::UnknownCrate("nope".into()));
        let err = summarise(&export, "t", &packages(), &["orin-exec-table".into()]).unwrap_err();
        assert_eq!(err, CoverageError::NoFiles("orin-exec-table".into()));
        assert!(matches!(
            summarise("{}", "t", &packages(), &[]).unwrap_err(),
            CoverageError::Format(_)
        ));
    }
}
