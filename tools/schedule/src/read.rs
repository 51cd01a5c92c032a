//! Typed access to [`Node`]s, reporting type errors as diagnostics, and the one bounded
//! reader of every file a schedule or manifest names ([`read_file`]).

use std::fmt;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::diag::{Diagnostic, Source};
use crate::node::{Fields, Node, Value};
use crate::units::parse_duration;

/// The largest schedule or manifest (TOML text) the tools read: 16 MiB.
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// The largest cubin, ONNX model or DLA loadable the tools read: 1 GiB.
pub const MAX_BINARY_BYTES: u64 = 1 << 30;

/// Why [`read_file`] refused a file. Every variant names the path.
#[derive(Debug)]
pub enum FileError {
    /// The file could not be opened or read.
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        error: std::io::Error,
    },
    /// Not a regular file (a device such as `/dev/zero`, a FIFO, a directory).
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// Larger than the limit for its kind.
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// Not UTF-8 text ([`read_text`]).
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io { path, error } => write!(f, "cannot read `{}`: {error}", path.display()),
            FileError::NotRegular { path } => write!(
                f,
                "`{}` is not a regular file (a device, FIFO or directory); name a file",
                path.display()
            ),
            FileError::TooLarge { path, limit } => write!(
                f,
                "`{}` is larger than the limit of {limit} bytes for this kind of file",
                path.display()
            ),
            FileError::NotUtf8 { path } => write!(f, "`{}` is not UTF-8 text", path.display()),
        }
    }
}

impl std::error::Error for FileError {}

/// Reads a whole file named by a user, a schedule or a manifest: it must be a regular file
/// (symbolic links are followed) of at most `limit` bytes. The read itself stops after
/// `limit + 1` bytes, so a file that grows while it is read cannot exhaust memory either.
///
/// ```
/// use orin_exec_schedule::{FileError, MAX_TEXT_BYTES, read_file};
/// let e = read_file("/dev/zero".as_ref(), MAX_TEXT_BYTES).unwrap_err();
/// assert!(matches!(e, FileError::NotRegular { .. }));
/// assert!(e.to_string().contains("/dev/zero"));
/// ```
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let io = |error| FileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(FileError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let too_large = || FileError::TooLarge {
        path: path.to_path_buf(),
        limit,
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_file`] of a UTF-8 text file (a schedule or manifest: [`MAX_TEXT_BYTES`]).
pub fn read_text(path: &Path) -> Result<String, FileError> {
    String::from_utf8(read_file(path, MAX_TEXT_BYTES)?).map_err(|_| FileError::NotUtf8 {
        path: path.to_path_buf(),
    })
}

/// A string value.
pub(crate) fn string<'n>(src: &Source, n: &'n Node, what: &str) -> Result<&'n str, Diagnostic> {
    match &n.value {
        Value::Str(s) => Ok(s),
        other => Err(src.error(
            &n.span,
            format!("{what} must be a string, found {}", other.type_name()),
        )),
    }
}

/// An integer value in `min..=max`.
pub(crate) fn int_in(
    src: &Source,
    n: &Node,
    what: &str,
    min: i64,
    max: i64,
) -> Result<i64, Diagnostic> {
    match &n.value {
        Value::Int(v) if (min..=max).contains(v) => Ok(*v),
        Value::Int(v) if *v <= 0 && min > 0 => {
            Err(src.error(&n.span, format!("{what} must be positive, found {v}")))
        }
        Value::Int(v) => Err(src.error(
            &n.span,
            format!("{what} must be in {min}..={max}, found {v}"),
        )),
        other => Err(src.error(
            &n.span,
            format!("{what} must be an integer, found {}", other.type_name()),
        )),
    }
}

/// An array value.
pub(crate) fn array<'n>(src: &Source, n: &'n Node, what: &str) -> Result<&'n [Node], Diagnostic> {
    match &n.value {
        Value::Array(items) => Ok(items),
        other => Err(src.error(
            &n.span,
            format!("{what} must be an array, found {}", other.type_name()),
        )),
    }
}

/// A table value.
pub(crate) fn table<'n>(src: &Source, n: &'n Node, what: &str) -> Result<Fields<'n>, Diagnostic> {
    Fields::of(n).ok_or_else(|| {
        src.error(
            &n.span,
            format!("{what} must be a table, found {}", n.value.type_name()),
        )
    })
}

/// A duration: a string with a unit or an integer number of nanoseconds.
pub(crate) fn duration(src: &Source, n: &Node, what: &str) -> Result<u64, Diagnostic> {
    match &n.value {
        Value::Str(s) => parse_duration(s).map_err(|e| src.error(&n.span, format!("{what}: {e}"))),
        Value::Int(v) if *v >= 0 => Ok(*v as u64),
        Value::Int(v) => Err(src.error(&n.span, format!("{what} must not be negative, found {v}"))),
        other => Err(src
            .error(&n.span, format!("{what} must be a duration, found {}", other.type_name()))
            .help("write durations as strings with a unit (\"2.5ms\", \"500us\") or as integer nanoseconds")),
    }
}

/// An array of strings.
pub(crate) fn strings<'n>(
    src: &Source,
    n: &'n Node,
    what: &str,
) -> Result<Vec<(&'n str, &'n Node)>, Diagnostic> {
    array(src, n, what)?
        .iter()
        .map(|item| string(src, item, &format!("each entry of {what}")).map(|s| (s, item)))
        .collect()
}

/// Reports the keys of `fields` that were not taken.
pub(crate) fn unknown_keys(
    src: &Source,
    fields: &Fields<'_>,
    known: &[&str],
    what: &str,
    diags: &mut Vec<Diagnostic>,
) {
    for (key, _) in fields.rest() {
        let mut d = src.error(&key.span, format!("unknown key `{}` in {what}", key.name));
        d.did_you_mean(&key.name, known.iter().copied(), || {
            format!("expected one of: {}", quoted(known))
        });
        diags.push(d);
    }
}

/// `a`, `b`, `c`.
pub(crate) fn quoted<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A name usable as a Rust constant once upper-cased: a letter, then letters, digits, `_`, `-`.
pub(crate) fn check_name(src: &Source, n: &Node, what: &str) -> Result<String, Diagnostic> {
    let s = string(src, n, what)?;
    let mut chars = s.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(s.to_owned())
    } else {
        Err(src.error(
            &n.span,
            format!(
                "{what} `{s}` is not a valid name (a letter, then letters, digits, `_` or `-`)"
            ),
        ))
    }
}

/// Removes `.` and resolvable `..` components without touching the file system.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                match last {
                    Some(Component::Normal(_)) => {
                        out.pop();
                    }
                    Some(Component::RootDir | Component::Prefix(_)) => {}
                    _ => out.push(".."),
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `rel` resolved against the directory of `base` (lexically).
pub(crate) fn relative_to(base: &Path, rel: &str) -> PathBuf {
    let dir = base.parent().unwrap_or(Path::new(""));
    normalize(&dir.join(rel))
}

/// An absolute form of `path` (canonical when it exists).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path).map(|p| normalize(&p)))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Covers: REQ-SCH-002
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(
            normalize(Path::new("a/b/../../c/./d")),
            PathBuf::from("c/d")
        );
        assert_eq!(
            normalize(Path::new("../a/../../b")),
            PathBuf::from("../../b")
        );
        assert_eq!(normalize(Path::new("/x/../../y")), PathBuf::from("/y"));
        assert_eq!(
            relative_to(
                Path::new("examples/aeb/schedule.toml"),
                "../../kernels/manifest.toml"
            ),
            PathBuf::from("kernels/manifest.toml")
        );
    }
}
