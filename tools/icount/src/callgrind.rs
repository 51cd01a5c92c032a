//! A reader of callgrind's profile format (the subset `--dump-instr=no` writes): exclusive
//! cost per function, and which of it is the runtime's own code.
//!
//! The format (valgrind's "Callgrind Format Specification"): header lines (`events:`,
//! `positions:`, `summary:`, `totals:` ...), position specifications (`ob=`, `fl=`, `fi=`,
//! `fe=`, `fn=` and their `c..=` call forms), cost lines (`position cost...`, positions possibly
//! relative `+n`/`-n` or `*`), and `calls=` lines, whose following cost line is the inclusive
//! cost of a call and therefore not part of the caller's exclusive cost. Names may be
//! compressed: `(id) name` defines an id, `(id)` refers to it later.
//!
//! ```
//! use orin_exec_icount::callgrind::Profile;
//! let text = "events: Ir\nfn=(1) orin_exec::step\n3 100\ncfn=(2) libc::write\ncalls=1 0\n3 40\nfn=(2)\n1 40\n";
//! let p = Profile::parse(text)?;
//! assert_eq!(p.exclusive("orin_exec::step"), 100);
//! assert_eq!(p.runtime_own(), 100);
//! assert_eq!(p.total(), 140);
//! # Ok::<(), String>(())
//! ```

use std::collections::HashMap;

/// Exclusive instruction counts (event `Ir`) per function of one callgrind profile.
#[derive(Debug, Default)]
pub struct Profile {
    exclusive: HashMap<String, u64>,
    /// The file's own total: the sum of its parts' `totals:`, else its `summary:`.
    stated_totals: Option<u64>,
    stated_summary: Option<u64>,
}

/// Whether `function` (a demangled symbol) is the runtime's own code: a function of the
/// runtime crate `orin_exec` or of its table crate `orin_exec_table`, including their methods
/// of trait impls (`<orin_exec::.. as ..>::..`) and closures. Generic code of other crates
/// instantiated for the runtime (core, heapless) keeps its own crate's path and is not
/// counted; whatever the compiler inlined into a runtime function is.
///
/// ```
/// use orin_exec_icount::callgrind::is_runtime;
/// assert!(is_runtime("orin_exec::exec::executive::Executive::step"));
/// assert!(is_runtime("<orin_exec_table::Schedule as core::ops::Deref>::deref"));
/// assert!(!is_runtime("orin_exec_kernels::models::FillPatternU32::run"));
/// assert!(!is_runtime("sil_nvscisync::fence::wait"));
/// ```
pub fn is_runtime(function: &str) -> bool {
    let f = function.strip_prefix('<').unwrap_or(function);
    f.starts_with("orin_exec::") || f.starts_with("orin_exec_table::")
}

/// Names of one kind (`fn`, `fl`, `ob`), with callgrind's `(id)` compression.
#[derive(Default)]
struct Names(HashMap<u64, String>);

impl Names {
    /// Resolves `(id) name`, `(id)` or a plain name.
    fn resolve(&mut self, spec: &str, line: usize) -> Result<String, String> {
        let spec = spec.trim();
        let Some(rest) = spec.strip_prefix('(') else {
            return Ok(spec.to_string());
        };
        let (id, name) = rest
            .split_once(')')
            .ok_or_else(|| format!("line {line}: unclosed name id in {spec:?}"))?;
        let id: u64 = id
            .parse()
            .map_err(|_| format!("line {line}: bad name id in {spec:?}"))?;
        let name = name.trim();
        if name.is_empty() {
            self.0
                .get(&id)
                .cloned()
                .ok_or_else(|| format!("line {line}: name id ({id}) used before it is defined"))
        } else {
            self.0.insert(id, name.to_string());
            Ok(name.to_string())
        }
    }
}

impl Profile {
    /// Reads the text of a callgrind out file.
    ///
    /// # Errors
    /// No `events:` line with `Ir`, a malformed cost line or name, a cost line outside a
    /// function, or exclusive costs that do not add up to the file's stated total.
    pub fn parse(text: &str) -> Result<Profile, String> {
        let mut profile = Profile::default();
        let mut ir: Option<usize> = None;
        let mut positions = 1usize;
        let mut fns = Names::default();
        let mut current: Option<String> = None;
        // The next cost line is a call's inclusive cost.
        let mut call_cost = false;
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let l = raw.trim_end();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let first = l.as_bytes()[0];
            if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
                let Some(ir) = ir else {
                    return Err(format!("line {line}: a cost line before the events: line"));
                };
                if call_cost {
                    call_cost = false;
                    continue;
                }
                let f = current
                    .as_ref()
                    .ok_or_else(|| format!("line {line}: a cost line outside any fn="))?;
                let cost = l
                    .split_ascii_whitespace()
                    .nth(positions + ir)
                    .map(|v| v.parse::<u64>())
                    .transpose()
                    .map_err(|_| format!("line {line}: bad cost in {l:?}"))?
                    .unwrap_or(0);
                *profile.exclusive.entry(f.clone()).or_default() += cost;
                continue;
            }
            let Some((key, value)) = l.split_once(['=', ':']) else {
                return Err(format!("line {line}: not a callgrind line: {l:?}"));
            };
            match key {
                "events" => {
                    ir = value.split_ascii_whitespace().position(|e| e == "Ir");
                    if ir.is_none() {
                        return Err(format!("line {line}: the events ({value}) have no Ir"));
                    }
                }
                "positions" => positions = value.split_ascii_whitespace().count().max(1),
                "summary" | "totals" => {
                    let i = ir.ok_or_else(|| format!("line {line}: {key} before events:"))?;
                    let v = value
                        .split_ascii_whitespace()
                        .nth(i)
                        .map(str::parse::<u64>)
                        .transpose()
                        .map_err(|_| format!("line {line}: bad {key} {value:?}"))?
                        .unwrap_or(0);
                    if key == "summary" {
                        profile.stated_summary = Some(v);
                    } else {
                        // Several parts: their totals add up.
                        profile.stated_totals = Some(profile.stated_totals.unwrap_or(0) + v);
                    }
                }
                "fn" => current = Some(fns.resolve(value, line)?),
                // The callee's name is compressed in the same space as fn=.
                "cfn" => {
                    fns.resolve(value, line)?;
                }
                "calls" => call_cost = true,
                // Other positions and headers (ob, fl, fi, fe, cob, cfi, cfl, jump, jcnd,
                // version, creator, pid, cmd, part, desc, thread) do not change whose
                // exclusive cost a line is.
                _ => {}
            }
        }
        if ir.is_none() {
            return Err("no events: line (is this a callgrind out file?)".into());
        }
        if let Some(stated) = profile.stated_totals.or(profile.stated_summary)
            && stated != profile.total()
        {
            return Err(format!(
                "the exclusive costs add up to {} but the file states {stated}",
                profile.total()
            ));
        }
        Ok(profile)
    }

    /// Exclusive `Ir` of `function` (0 if it did not run).
    pub fn exclusive(&self, function: &str) -> u64 {
        self.exclusive.get(function).copied().unwrap_or(0)
    }

    /// All instructions of the profile.
    pub fn total(&self) -> u64 {
        self.exclusive.values().sum()
    }

    /// Instructions of the runtime's own functions ([`is_runtime`]).
    pub fn runtime_own(&self) -> u64 {
        self.exclusive
            .iter()
            .filter(|(f, _)| is_runtime(f))
            .map(|(_, c)| c)
            .sum()
    }

    /// The `k` runtime functions with the most exclusive instructions, most first (ties by
    /// name, so the list is stable).
    pub fn top_runtime(&self, k: usize) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self
            .exclusive
            .iter()
            .filter(|(f, _)| is_runtime(f))
            .map(|(f, c)| (f.as_str(), *c))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.truncate(k);
        v
    }
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-PERF-001
    use super::*;

    const SAMPLE: &str = include_str!("../tests/data/sample.callgrind");

    #[test]
    fn sample_exclusive_costs_per_function() {
        let p = Profile::parse(SAMPLE).expect("the sample parses");
        // Compressed names defined in cfn= and used later in fn=; relative positions; the
        // cost line after calls= is the call's inclusive cost, not the caller's.
        assert_eq!(
            p.exclusive("orin_exec::exec::executive::Executive::step"),
            1200
        );
        assert_eq!(
            p.exclusive("<orin_exec::engine::nvsci::SyncObj as core::ops::drop::Drop>::drop"),
            30
        );
        assert_eq!(p.exclusive("orin_exec_table::Schedule::task"), 70);
        assert_eq!(p.exclusive("sil_nvscisync::NvSciSyncFenceWait"), 5000);
        assert_eq!(p.exclusive("orin_exec_kernels::models::fill"), 800);
        assert_eq!(p.exclusive("core::ptr::drop_in_place<orin_exec::Foo>"), 9);
        assert_eq!(p.total(), 1200 + 30 + 70 + 5000 + 800 + 9);
        assert_eq!(p.runtime_own(), 1300);
        let top = p.top_runtime(2);
        assert_eq!(
            top,
            vec![
                ("orin_exec::exec::executive::Executive::step", 1200),
                ("orin_exec_table::Schedule::task", 70)
            ]
        );
    }

    #[test]
    fn totals_that_do_not_add_up_are_refused() {
        let text = SAMPLE.replace("totals: 7109", "totals: 7110");
        let e = Profile::parse(&text).expect_err("a wrong total");
        assert!(e.contains("7109") && e.contains("7110"), "{e}");
    }

    #[test]
    fn malformed_input_is_refused_with_the_line() {
        assert!(
            Profile::parse("fn=x\n1 2\n")
                .unwrap_err()
                .contains("events")
        );
        let e = Profile::parse("events: Ir\nfn=(3)\n1 2\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("(3)"), "{e}");
        let e = Profile::parse("events: Ir\n1 2\n").unwrap_err();
        assert!(e.contains("outside any fn="), "{e}");
        let e = Profile::parse("events: Dr\n").unwrap_err();
        assert!(e.contains("no Ir"), "{e}");
    }

    #[test]
    fn ir_is_found_among_several_events() {
        let p = Profile::parse("events: Dr Ir\nfn=orin_exec::a\n1 5 7\n+2 1\n").unwrap();
        // The second line has no Ir column: 0.
        assert_eq!(p.runtime_own(), 7);
    }
}
