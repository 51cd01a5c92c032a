//! A TOML document as a tree of values that keep their byte spans and the order of their keys.
//!
//! The `toml` crate parses; this module only deserializes its output (through
//! [`toml::Spanned`]) into a generic tree, so that the validator can report every problem with
//! its line and column instead of stopping at the first `serde` error.

use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

/// A byte range in a source file.
pub(crate) type Span = Range<usize>;

/// The entries of a table, in source order.
pub(crate) type Table = Vec<(Key, Node)>;

/// A key of a table, with its span.
#[derive(Clone, Debug)]
pub(crate) struct Key {
    pub name: String,
    pub span: Span,
}

/// A value with its span.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub span: Span,
    pub value: Value,
}

/// A TOML value whose children are [`Node`]s.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool,
    Datetime,
    Array(Vec<Node>),
    Table(Vec<(Key, Node)>),
}

impl Value {
    /// The TOML type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool => "a boolean",
            Value::Datetime => "a date-time",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

/// The key toml uses to pass a date-time through serde.
const DATETIME_KEY: &str = "$__toml_private_datetime";

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let span = spanned.span();
        Ok(Node {
            span,
            value: spanned.into_inner(),
        })
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Bool)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::Int)
            .map_err(|_| E::custom("integer out of range"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(node) = seq.next_element::<Node>()? {
            items.push(node);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            if key.get_ref() == DATETIME_KEY {
                let _: String = map.next_value()?;
                return Ok(Value::Datetime);
            }
            let node = map.next_value::<Node>()?;
            let span = key.span();
            entries.push((
                Key {
                    name: key.into_inner(),
                    span,
                },
                node,
            ));
        }
        Ok(Value::Table(entries))
    }
}

/// Parses a TOML document into its root table. The error carries the span toml reports.
pub(crate) fn parse(text: &str) -> Result<Table, (String, Option<Span>)> {
    match toml::from_str::<Value>(text) {
        Ok(Value::Table(entries)) => Ok(entries),
        Ok(other) => Err((
            format!("expected a table, found {}", other.type_name()),
            None,
        )),
        Err(e) if e.message().contains(DATETIME_KEY) => Err((
            "date-times are not valid values in a schedule".to_owned(),
            e.span(),
        )),
        Err(e) => Err((e.message().to_owned(), e.span())),
    }
}

/// The entries of one table, with the keys taken so far, to report unknown keys at the end.
pub(crate) struct Fields<'a> {
    entries: &'a [(Key, Node)],
    used: Vec<bool>,
}

impl<'a> Fields<'a> {
    /// The fields of a table node, or `None` if it is not a table.
    pub fn of(node: &'a Node) -> Option<Self> {
        match &node.value {
            Value::Table(entries) => Some(Self::from_entries(entries)),
            _ => None,
        }
    }

    /// The fields of a list of entries (the root table).
    pub fn from_entries(entries: &'a [(Key, Node)]) -> Self {
        Fields {
            entries,
            used: vec![false; entries.len()],
        }
    }

    /// Takes the entry for `key`, if present.
    pub fn take(&mut self, key: &str) -> Option<&'a (Key, Node)> {
        let i = self.entries.iter().position(|(k, _)| k.name == key)?;
        self.used[i] = true;
        Some(&self.entries[i])
    }

    /// The value for `key`, if present.
    pub fn value(&mut self, key: &str) -> Option<&'a Node> {
        self.take(key).map(|(_, n)| n)
    }

    /// The entries not taken.
    pub fn rest(&self) -> impl Iterator<Item = &'a (Key, Node)> + '_ {
        self.entries
            .iter()
            .zip(&self.used)
            .filter(|(_, used)| !**used)
            .map(|(e, _)| e)
    }
}

/// Covers: REQ-SCH-002
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_spans_and_order() {
        let src = "b = 1\na = [\"x\", { y = 2.5 }]\n[[t]]\nname = \"n\"\n";
        let root = parse(src).unwrap();
        let names: Vec<&str> = root.iter().map(|(k, _)| k.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "t"]);
        assert_eq!(&src[root[0].0.span.clone()], "b");
        assert_eq!(&src[root[0].1.span.clone()], "1");
        let Value::Array(items) = &root[1].1.value else {
            panic!()
        };
        assert_eq!(&src[items[0].span.clone()], "\"x\"");
        let Value::Array(tables) = &root[2].1.value else {
            panic!()
        };
        let Value::Table(fields) = &tables[0].value else {
            panic!()
        };
        assert_eq!(&src[fields[0].1.span.clone()], "\"n\"");
    }

    #[test]
    fn reports_syntax_errors_with_span() {
        let (msg, span) = parse("a = \n").unwrap_err();
        assert!(!msg.is_empty());
        assert!(span.is_some());
    }
}
