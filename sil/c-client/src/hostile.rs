//! The hostile-argument clients' cases (`c/hostile_*.c`) against a library's exports.
//!
//! A client defines one case per entry point as `HOSTILE(name) { ... }` (`c/hostile.h`): a
//! line starting with the marker. That marker list is the one place that says what is
//! called; [`compare`] holds it against the exported functions of the library's dynamic
//! symbol table and against the `hostile case <name>` lines the client printed after each
//! case it survived.

use std::collections::BTreeSet;

/// Entry points of cuDLA reached through `cudlaGetExternalExportTable`'s table, not
/// through a symbol: they need a case too.
pub const CUDLA_EXPORT_TABLE: [&str; 2] = ["etiTranslateStats", "etiTranslateStatsForMultiModule"];

const MARKER: &str = "HOSTILE(";

/// The cases of a client's source, sorted: the names of its `HOSTILE(name)` lines. An
/// error for a malformed marker, a name marked twice, or a case whose body (up to the next
/// marker) never calls `name(`.
///
/// ```
/// let c = "HOSTILE(f) {\n    f(NULL);\n}\nHOSTILE(g) {\n    g(0);\n}\n";
/// assert_eq!(sil_c_client::hostile::cases(c).unwrap(), ["f", "g"]);
/// assert!(sil_c_client::hostile::cases("HOSTILE(f) {\n    g(0);\n}\n").is_err());
/// ```
pub fn cases(text: &str) -> Result<Vec<String>, String> {
    let starts: Vec<usize> = text
        .match_indices(MARKER)
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')
        .collect();
    let mut names = BTreeSet::new();
    for (n, &start) in starts.iter().enumerate() {
        let line = text.get(..start).map_or(0, |t| t.lines().count()) + 1;
        let rest = &text[start + MARKER.len()..];
        let name = rest.split(')').next().unwrap_or("");
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "line {line}: `HOSTILE({name}` is not a case marker"
            ));
        }
        let end = starts.get(n + 1).copied().unwrap_or(text.len());
        let body = &text[start + MARKER.len() + name.len() + 1..end];
        if !calls(body, name) {
            return Err(format!(
                "line {line}: the case of `{name}` never calls `{name}(`"
            ));
        }
        if !names.insert(name.to_string()) {
            return Err(format!("line {line}: `{name}` has two cases"));
        }
    }
    Ok(names.into_iter().collect())
}

/// Whether `body` calls `name(` (not as the tail of a longer identifier).
fn calls(body: &str, name: &str) -> bool {
    let call = format!("{name}(");
    body.match_indices(&call).any(|(i, _)| {
        !body[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The names of the `hostile case <name>` lines a client printed.
pub fn ran(stdout: &str) -> BTreeSet<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("hostile case "))
        .map(str::to_string)
        .collect()
}

/// One message per disagreement between the cases, the exported entry points and the
/// cases that ran (empty: every export has a case, every case an export, and all ran).
pub fn compare(
    cases: &[String],
    exported: &BTreeSet<String>,
    ran: &BTreeSet<String>,
) -> Vec<String> {
    let cases: BTreeSet<&String> = cases.iter().collect();
    let mut problems = Vec::new();
    for e in exported.iter().filter(|e| !cases.contains(e)) {
        problems.push(format!("`{e}` is exported but has no HOSTILE({e}) case"));
    }
    for c in cases.iter().filter(|c| !exported.contains(c.as_str())) {
        problems.push(format!("HOSTILE({c}) names no exported entry point"));
    }
    for c in cases.iter().filter(|c| !ran.contains(c.as_str())) {
        problems.push(format!(
            "the case of `{c}` did not come back (`hostile case {c}` missing)"
        ));
    }
    problems
}

/// Covers: REQ-ROB-131
#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_markers_at_line_starts_only() {
        let c = "#define HOSTILE(fn) x\nHOSTILE(b) { b(1); }\nHOSTILE(a) {\n  a(2);\n}\n";
        assert_eq!(cases(c).unwrap(), ["a", "b"]);
    }

    #[test]
    fn refuses_bad_markers_duplicates_and_bodies_without_the_call() {
        for bad in [
            "HOSTILE() { }\n",
            "HOSTILE(a b) { a b(); }\n",
            "HOSTILE(a) { a(); }\nHOSTILE(a) { a(); }\n",
            "HOSTILE(a) { xa(); }\n",
            "HOSTILE(a) { }\nHOSTILE(b) { a(); b(); }\n",
        ] {
            assert!(cases(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn compare_names_each_missing_extra_and_unfinished_case() {
        let cases = vec!["a".to_string(), "b".to_string(), "x".to_string()];
        let p = compare(&cases, &set(&["a", "b", "c"]), &set(&["a", "x"]));
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("`c` is exported"), "{p:?}");
        assert!(p[1].contains("HOSTILE(x)"), "{p:?}");
        assert!(p[2].contains("case of `b`"), "{p:?}");
        assert!(compare(&cases, &set(&["a", "b", "x"]), &set(&["a", "b", "x"])).is_empty());
    }

    #[test]
    fn ran_reads_the_case_lines() {
        assert_eq!(
            ran("x\nhostile case f\nPASS\nhostile case g\n"),
            set(&["f", "g"])
        );
    }
}
