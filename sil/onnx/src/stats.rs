//! Layer-statistics buffers a network declares for the SIL cuDLA.
//!
//! A real DLA loadable carries layer statistics when TensorRT builds it with them; an ONNX
//! model says so in its metadata (`ModelProto.metadata_props`, ignored by other tools),
//! key [`METADATA_KEY`], value: entries separated by `;`, each `NAME` (all layers) or
//! `NAME=FIRST..LAST` (the layers from `FIRST` to `LAST`, by layer name, in execution
//! order). For example `layerwise; heads=map_head..presence_head`. Up to [`MAX_STATS`]
//! entries; a name has 1..=80 printable ASCII characters other than `;` and `=`, unique
//! among the statistics and the I/O tensors; with statistics, every layer name must be
//! printable ASCII without `,` and `"` (they go into a CSV).

use crate::Layer;
use crate::error::OnnxError;
use crate::proto::StringStringEntryProto;

/// The metadata key.
pub const METADATA_KEY: &str = "sil_dla.layer_statistics";
/// Statistics buffers per network.
pub const MAX_STATS: usize = 16;
/// Longest statistics buffer name (a cuDLA tensor name).
pub const NAME_MAX_LEN: usize = 80;

/// One statistics buffer: a contiguous run of layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatsDesc {
    /// The buffer's name (its cuDLA descriptor name).
    pub name: String,
    /// Index of the first layer covered.
    pub first: usize,
    /// Number of layers covered (≥ 1).
    pub count: usize,
}

fn bad(m: String) -> OnnxError {
    OnnxError::Statistics(m)
}

/// Parses the metadata entry, if any.
pub(crate) fn from_metadata(
    props: &[StringStringEntryProto],
    layers: &[Layer],
    io_names: &[&str],
) -> Result<Vec<StatsDesc>, OnnxError> {
    let mut entries = props.iter().filter(|p| p.key == METADATA_KEY);
    let Some(prop) = entries.next() else {
        return Ok(Vec::new());
    };
    if entries.next().is_some() {
        return Err(bad(format!("`{METADATA_KEY}` is given twice")));
    }
    if layers.is_empty() {
        return Err(bad("the network has no layers to report".into()));
    }
    for l in layers {
        if l.name.is_empty()
            || !l
                .name
                .bytes()
                .all(|b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'"')
        {
            return Err(bad(format!(
                "layer name `{}` is not CSV-safe (printable ASCII without `,` and `\"`)",
                l.name
            )));
        }
    }
    let position = |name: &str| {
        layers
            .iter()
            .position(|l| l.name == name)
            .ok_or_else(|| bad(format!("no layer is named `{name}`")))
    };
    let mut out: Vec<StatsDesc> = Vec::new();
    for entry in prop.value.split(';') {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let (name, range) = match entry.split_once('=') {
            Some((n, r)) => (n.trim(), Some(r.trim())),
            None => (entry, None),
        };
        if name.is_empty()
            || name.len() > NAME_MAX_LEN
            || !name.bytes().all(|b| (0x20..=0x7e).contains(&b))
        {
            return Err(bad(format!(
                "statistics name `{name}`: 1..={NAME_MAX_LEN} printable ASCII characters"
            )));
        }
        // Counted as they come: the check below compares each name with the earlier ones.
        if out.len() == MAX_STATS {
            return Err(count_error(&format!("more than {MAX_STATS}")));
        }
        if io_names.contains(&name) || out.iter().any(|s| s.name == name) {
            return Err(bad(format!(
                "statistics name `{name}` is used twice (names are unique among tensors)"
            )));
        }
        let (first, last) = match range {
            None => (0, layers.len() - 1),
            Some(r) => {
                let (a, b) = r
                    .split_once("..")
                    .ok_or_else(|| bad(format!("`{entry}`: write NAME=FIRST..LAST")))?;
                (position(a.trim())?, position(b.trim())?)
            }
        };
        if first > last {
            return Err(bad(format!(
                "`{entry}`: the first layer comes after the last"
            )));
        }
        out.push(StatsDesc {
            name: name.to_owned(),
            first,
            count: last - first + 1,
        });
    }
    if out.is_empty() {
        return Err(count_error("no"));
    }
    Ok(out)
}

fn count_error(count: &str) -> OnnxError {
    bad(format!("{count} statistics buffers (1..={MAX_STATS})"))
}
