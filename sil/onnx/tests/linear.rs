//! The reader is linear in the model: lists whose checks compare each entry with the earlier
//! ones (graph inputs and outputs, statistics names) are counted as they are read and refused
//! at the first entry past their limit, before any later entry is looked at; graph inputs that
//! name initializers are recognised by a set look-up.
//!
//! Each test puts a defect far past the limit: a reader that went through the whole list
//! (quadratic in its length) would report that defect instead of the count.
//!
//! Covers: REQ-ROB-043

mod common;

use common::*;
use sil_onnx::proto::*;
use sil_onnx::{MAX_IO, OnnxError};

/// int8 x -> DQ -> Relu -> Q -> int8 y, all [1, 1, 2, 2].
fn relu() -> Net {
    let mut n = Net::new();
    n.input("x", &[1, 1, 2, 2])
        .output("y", &[1, 1, 2, 2])
        .dq("x", 1.0, 0, "xf");
    n.node("Relu", "relu", &["xf"], "r", vec![]);
    n.q("r", 1.0, 0, "y");
    n
}

fn model_error(n: &Net) -> String {
    match n.load() {
        Err(OnnxError::Model(m)) => m,
        other => panic!("expected a model error, got {other:?}"),
    }
}

const MANY: usize = 20_000;

#[test]
fn thousands_of_graph_outputs_are_refused_by_their_count() {
    let mut n = relu();
    // Every extra output repeats `y`: comparing them pairwise would report "listed twice".
    for _ in 0..MANY {
        n.output("y", &[1, 1, 2, 2]);
    }
    assert_eq!(
        model_error(&n),
        format!("more than {MAX_IO} graph outputs; a DLA network has 1..={MAX_IO}")
    );
    let mut n = relu();
    n.g().output.clear();
    assert_eq!(
        model_error(&n),
        format!("no graph outputs; a DLA network has 1..={MAX_IO}")
    );
}

#[test]
fn thousands_of_graph_inputs_stop_at_the_first_past_the_limit() {
    let mut n = relu();
    for i in 0..MANY {
        n.input(&format!("x{i}"), &[1, 1, 2, 2]);
    }
    // A defect at the end that a whole pass would find first.
    n.input("bad", &[2, 2]);
    assert_eq!(
        model_error(&n),
        format!("more than {MAX_IO} graph inputs; a DLA network has 1..={MAX_IO}")
    );
}

/// Old IR versions list the initializers among the graph inputs: many such entries are
/// skipped, each by one set look-up.
#[test]
fn graph_inputs_that_name_initializers_are_skipped() {
    let mut n = relu();
    for i in 0..MANY {
        let name = format!("c{i}");
        n.f32s(&name, &[], &[1.0]);
        n.g().input.push(value_info(&name, data_type::FLOAT, &[]));
    }
    let m = n.load().unwrap();
    assert_eq!(m.inputs().len(), 1);
}

#[test]
fn thousands_of_statistics_buffers_stop_at_the_first_past_the_limit() {
    let mut n = relu();
    let mut value: Vec<String> = (0..MANY).map(|i| format!("s{i}")).collect();
    // A repeated name far past the limit: a whole pass would report it as used twice.
    value.push("s0".into());
    n.m.metadata_props.push(StringStringEntryProto {
        key: sil_onnx::stats::METADATA_KEY.into(),
        value: value.join(";"),
    });
    match n.load() {
        Err(OnnxError::Statistics(m)) => assert!(
            m.contains(&format!(
                "more than {0} statistics buffers (1..={0})",
                sil_onnx::stats::MAX_STATS
            )),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
}
