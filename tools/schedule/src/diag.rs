//! Diagnostics: errors and warnings with a file, a line and a column, printed like rustc's.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::node::Span;

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The schedule is rejected.
    Error,
    /// The schedule is accepted, but something looks wrong.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One message about a schedule (or one of its manifests), located at a key or a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file, as the caller named it (schedule) or as resolved from the schedule (manifests).
    pub file: PathBuf,
    /// 1-based line (0 when the problem has no position, e.g. an unreadable file).
    pub line: usize,
    /// 1-based column in characters (0 when the problem has no position).
    pub column: usize,
    /// What is wrong; names the tasks, buffers and engines involved.
    pub message: String,
    /// Further facts (`= note: ...`).
    pub notes: Vec<String>,
    /// A suggested fix (`= help: ...`).
    pub help: Option<String>,
    /// The source line and the 0-based character range on it to underline.
    pub snippet: Option<(String, usize, usize)>,
}

impl Diagnostic {
    /// A diagnostic without a position in a file.
    pub(crate) fn plain(severity: Severity, file: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
            notes: Vec::new(),
            help: None,
            snippet: None,
        }
    }

    /// Adds a note.
    pub(crate) fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Sets the help line.
    pub(crate) fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds "did you mean `...`?" for the candidate closest to `name`, or else `note()`.
    pub(crate) fn did_you_mean<'a>(
        &mut self,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str>,
        note: impl FnOnce() -> String,
    ) -> &mut Self {
        match suggest(name, candidates) {
            Some(s) => self.help = Some(format!("did you mean `{s}`?")),
            None => self.notes.push(note()),
        }
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.severity, self.message)?;
        let gutter = if self.line == 0 {
            1
        } else {
            self.line.to_string().len()
        };
        let pad = " ".repeat(gutter);
        if self.line == 0 {
            writeln!(f, "{pad}--> {}", self.file.display())?;
        } else {
            writeln!(
                f,
                "{pad}--> {}:{}:{}",
                self.file.display(),
                self.line,
                self.column
            )?;
        }
        if let Some((text, start, len)) = &self.snippet {
            writeln!(f, "{pad} |")?;
            writeln!(f, "{} | {}", self.line, text)?;
            writeln!(
                f,
                "{pad} | {}{}",
                " ".repeat(*start),
                "^".repeat((*len).max(1))
            )?;
        }
        for note in &self.notes {
            writeln!(f, "{pad} = note: {note}")?;
        }
        if let Some(help) = &self.help {
            writeln!(f, "{pad} = help: {help}")?;
        }
        Ok(())
    }
}

/// The diagnostics of one check: the `Err` of [`crate::check_file`] and [`crate::generate`].
///
/// It holds at least one error, possibly with warnings; `Display` prints them all, like rustc.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// The number of errors.
    pub fn error_count(&self) -> usize {
        self.0.iter().filter(|d| d.is_error()).count()
    }

    /// Iterates over the diagnostics in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        let errors = self.error_count();
        let file = self.0.first().map(|d| d.file.display().to_string());
        match (errors, file) {
            (0, _) => Ok(()),
            (n, Some(file)) => write!(
                f,
                "error: schedule rejected ({n} error{}; first in {file})",
                if n == 1 { "" } else { "s" }
            ),
            (n, None) => write!(f, "error: schedule rejected ({n} errors)"),
        }
    }
}

impl std::error::Error for Diagnostics {}

/// A source file: its text and a line index, to turn byte spans into lines and columns.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    /// The path as shown in diagnostics.
    pub path: PathBuf,
    pub text: String,
    line_starts: Vec<usize>,
}

impl Source {
    pub fn new(path: PathBuf, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Source {
            path,
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = self.text[start..offset].chars().count() + 1;
        (line + 1, column)
    }

    /// A diagnostic located at `span`.
    pub fn diag(&self, severity: Severity, span: &Span, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self.line_col(span.start);
        let start = self.line_starts[line - 1];
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        let text = self.text[start..end].trim_end_matches('\r').to_owned();
        let span_end = span.end.clamp(span.start, end.max(span.start));
        let len = self.text[span.start.min(end)..span_end.min(end)]
            .chars()
            .count();
        let mut d = Diagnostic::plain(severity, &self.path, message);
        d.line = line;
        d.column = column;
        d.snippet = Some((text, column - 1, len));
        d
    }

    /// An error located at `span`.
    pub fn error(&self, span: &Span, message: impl Into<String>) -> Diagnostic {
        self.diag(Severity::Error, span, message)
    }

    /// A warning located at `span`.
    pub fn warning(&self, span: &Span, message: impl Into<String>) -> Diagnostic {
        self.diag(Severity::Warning, span, message)
    }
}

/// The closest of `candidates` to `name` (edit distance at most a third of its length, at
/// least 1), for "did you mean" hints.
pub(crate) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let len = name.chars().count();
    let limit = (len / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, _)| d <= limit && d < len)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance (a transposition of neighbours counts as one edit).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Covers: REQ-SCH-002
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let s = Source::new("x.toml".into(), "a = 1\nbé = 2\n".into());
        assert_eq!(s.line_col(0), (1, 1));
        assert_eq!(s.line_col(6), (2, 1));
        let d = s.error(&(10..11), "bad");
        assert_eq!((d.line, d.column), (2, 4));
        assert_eq!(
            d.to_string(),
            "error: bad\n --> x.toml:2:4\n  |\n2 | bé = 2\n  |    ^\n"
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("sensr", ["sensor", "decision"]), Some("sensor"));
        assert_eq!(suggest("xyz", ["sensor"]), None);
        assert_eq!(suggest("wcte", ["wcet"]), Some("wcet"));
        assert_eq!(suggest("c", ["a", "b"]), None);
    }
}
