//! `docs/requirements.toml`: the requirements, in groups, each with a stable id.
//!
//! ```toml
//! [[group]]
//! code = "RT"
//! title = "Core runtime"
//!
//! [[requirement]]
//! id = "REQ-RT-001"
//! issues = [4]
//! text = "Init, seal, run: no allocation after seal over 10,000 frames"
//! evidence = ["`tests/no_alloc_after_seal.rs`"]   # optional: other evidence, shown as is
//! ci = ["ThreadSanitizer (SIL libraries, executive, CPU workers, trace ring)"] # optional
//! ```
//!
//! `ci` names `.ci/run` steps (their `step "..."` titles) that check the requirement, and
//! `records` files that record a review or a run on hardware CI does not have. A requirement
//! needs at least one of: a tagged test, a CI step, a record.

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirements {
    /// Groups, in document order.
    #[serde(rename = "group", default)]
    pub groups: Vec<Group>,
    /// Requirements, in document order.
    #[serde(rename = "requirement", default)]
    pub requirements: Vec<Requirement>,
}

/// A group of requirements (a heading of the generated document).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// The middle part of its requirements' ids (`RT` for `REQ-RT-001`).
    pub code: String,
    /// The heading.
    pub title: String,
}

/// One requirement.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// `REQ-<group code>-<three digits>`, never reused.
    pub id: String,
    /// The issues that state it.
    #[serde(default)]
    pub issues: Vec<u32>,
    /// What must hold, in one sentence.
    pub text: String,
    /// Evidence besides the tests (files, commands, recorded runs), shown as written.
    #[serde(default)]
    pub evidence: Vec<String>,
    /// `.ci/run` steps that check it, by title.
    #[serde(default)]
    pub ci: Vec<String>,
    /// Files that record a review or a run outside CI (a manual section, results on real
    /// hardware), for requirements no test or CI step can show; paths from the workspace root.
    #[serde(default)]
    pub records: Vec<String>,
}

/// Why `docs/requirements.toml` was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequirementsError {
    /// Not TOML, or not the layout above.
    Parse(String),
    /// An id not of the form `REQ-<CODE>-<NNN>`.
    BadId(String),
    /// An id whose group code has no `[[group]]`.
    UnknownGroup {
        /// The requirement.
        id: String,
        /// Its code.
        code: String,
    },
    /// The same id twice.
    Duplicate(String),
    /// The same group code twice.
    DuplicateGroup(String),
    /// A requirement without text.
    EmptyText(String),
}

impl fmt::Display for RequirementsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Parse(e) => write!(f, "requirements file: {e}"),
            Self::BadId(id) => write!(
                f,
                "requirement id `{id}` is not of the form REQ-<GROUP>-<NNN>"
            ),
            Self::UnknownGroup { id, code } => {
                write!(f, "requirement `{id}`: no [[group]] with code `{code}`")
            }
            Self::Duplicate(id) => write!(f, "requirement id `{id}` appears twice"),
            Self::DuplicateGroup(code) => write!(f, "group code `{code}` appears twice"),
            Self::EmptyText(id) => write!(f, "requirement `{id}` has no text"),
        }
    }
}

impl std::error::Error for RequirementsError {}

/// The group code of a well-formed id (`RT` of `REQ-RT-001`), or `None`.
///
/// ```
/// use orin_exec_traceability::requirements::group_of;
/// assert_eq!(group_of("REQ-RT-001"), Some("RT"));
/// assert_eq!(group_of("REQ-RT-1"), None);
/// assert_eq!(group_of("RT-001"), None);
/// ```
pub fn group_of(id: &str) -> Option<&str> {
    let rest = id.strip_prefix("REQ-")?;
    let (code, num) = rest.rsplit_once('-')?;
    let code_ok = !code.is_empty()
        && code
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    let num_ok = num.len() == 3 && num.chars().all(|c| c.is_ascii_digit());
    (code_ok && num_ok).then_some(code)
}

impl Requirements {
    /// Parses and validates the file's text.
    pub fn parse(text: &str) -> Result<Self, RequirementsError> {
        let r: Requirements =
            toml::from_str(text).map_err(|e| RequirementsError::Parse(e.to_string()))?;
        let mut codes = HashSet::new();
        for g in &r.groups {
            if !codes.insert(g.code.as_str()) {
                return Err(RequirementsError::DuplicateGroup(g.code.clone()));
            }
        }
        let mut ids = HashSet::new();
        for q in &r.requirements {
            let code = group_of(&q.id).ok_or_else(|| RequirementsError::BadId(q.id.clone()))?;
            if !codes.contains(code) {
                return Err(RequirementsError::UnknownGroup {
                    id: q.id.clone(),
                    code: code.to_string(),
                });
            }
            if !ids.insert(q.id.as_str()) {
                return Err(RequirementsError::Duplicate(q.id.clone()));
            }
            if q.text.trim().is_empty() {
                return Err(RequirementsError::EmptyText(q.id.clone()));
            }
        }
        Ok(r)
    }

    /// The requirement with this id.
    pub fn get(&self, id: &str) -> Option<&Requirement> {
        self.requirements.iter().find(|q| q.id == id)
    }
}

#[cfg(test)]
/// Covers: REQ-TRC-001
mod tests {
    use super::*;

    const OK: &str = r#"
[[group]]
code = "RT"
title = "Core runtime"

[[requirement]]
id = "REQ-RT-001"
issues = [4]
text = "No allocation after seal"
"#;

    #[test]
    fn a_valid_file_parses() {
        let r = Requirements::parse(OK).unwrap();
        assert_eq!(r.requirements.len(), 1);
        assert_eq!(r.get("REQ-RT-001").unwrap().issues, vec![4]);
        assert!(r.get("REQ-RT-002").is_none());
    }

    #[test]
    fn bad_ids_unknown_groups_and_duplicates_are_refused() {
        let bad = OK.replace("REQ-RT-001", "REQ-RT-01");
        assert_eq!(
            Requirements::parse(&bad).unwrap_err(),
            RequirementsError::BadId("REQ-RT-01".into())
        );
        let unknown = OK.replace("REQ-RT-001", "REQ-XX-001");
        assert!(matches!(
            Requirements::parse(&unknown).unwrap_err(),
            RequirementsError::UnknownGroup { .. }
        ));
        let twice = format!("{OK}\n[[requirement]]\nid = \"REQ-RT-001\"\ntext = \"again\"\n");
        assert_eq!(
            Requirements::parse(&twice).unwrap_err(),
            RequirementsError::Duplicate("REQ-RT-001".into())
        );
        let unknown_field = OK.replace("issues", "issue");
        assert!(matches!(
            Requirements::parse(&unknown_field).unwrap_err(),
            RequirementsError::Parse(_)
        ));
        let empty = OK.replace("No allocation after seal", " ");
        assert_eq!(
            Requirements::parse(&empty).unwrap_err(),
            RequirementsError::EmptyText("REQ-RT-001".into())
        );
    }
}
