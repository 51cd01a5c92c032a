//! A human-readable dump of a loadable (`build-loadable --describe`).

use std::fmt::Write as _;
use std::format;
use std::string::String;

use crate::format::*;

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn category_name(v: u8) -> &'static str {
    match v {
        DATA_CATEGORY_IMAGE => "IMAGE",
        DATA_CATEGORY_FEATURE => "FEATURE",
        DATA_CATEGORY_PLANAR => "PLANAR",
        _ => "?",
    }
}

/// One line describing an I/O tensor.
pub fn tensor_line(d: &TensorDesc<'_>) -> String {
    format!(
        "`{}`: slot {}, n {} c {} h {} w {}, size {} bytes, format NCHW({}), type INT8({}), \
         category {}({}), pixel format {}, pixel mapping PITCH_LINEAR({}), strides {:?}",
        d.name_str(),
        d.slot,
        d.n,
        d.c,
        d.h,
        d.w,
        d.size,
        d.data_format,
        d.data_type,
        category_name(d.data_category),
        d.data_category,
        d.pixel_format,
        d.pixel_mapping,
        d.stride
    )
}

/// One line describing an op.
pub fn op_line(op: &Op<'_>) -> String {
    let mut s = format!("{} slot {} -> slot {}", op.kind.name(), op.input, op.output);
    match op.kind {
        OpKind::Conv2d | OpKind::MaxPool | OpKind::AvgPool if !op.global() => {
            let _ = write!(
                s,
                ", kernel {}x{}, stride {}x{}, padding [top {}, left {}, bottom {}, right {}]",
                op.kernel[0],
                op.kernel[1],
                op.stride[0],
                op.stride[1],
                op.pad[0],
                op.pad[1],
                op.pad[2],
                op.pad[3]
            );
        }
        _ => {}
    }
    if op.global() {
        s.push_str(", global");
    }
    match op.kind {
        OpKind::Conv2d => {
            let _ = write!(s, ", {} -> {} channels", op.in_channels, op.out_channels);
        }
        OpKind::Dense => {
            let _ = write!(s, ", {} -> {} features", op.in_channels, op.out_channels);
        }
        _ => {}
    }
    if matches!(op.kind, OpKind::Conv2d | OpKind::Dense | OpKind::AvgPool) {
        let _ = write!(s, ", multiplier {}, shift {}", op.multiplier, op.shift);
    }
    if op.relu() {
        s.push_str(", relu");
    }
    if !op.weights.is_empty() || !op.bias.is_empty() {
        let _ = write!(
            s,
            ", weights @{} ({} bytes), bias @{} ({} bytes)",
            op.weights_offset,
            op.weights.len(),
            op.bias_offset,
            op.bias.len()
        );
    }
    s
}

/// The full dump: header, sections, hash, tensors, slots, ops.
pub fn describe(l: &Loadable<'_>) -> String {
    let mut s = String::new();
    let b = l.bytes();
    let _ = writeln!(
        s,
        "SIL DLA loadable, format version {}, {} bytes",
        l.format_version(),
        b.len()
    );
    let _ = writeln!(
        s,
        "header: magic {:?}, header length {HEADER_LEN}, flags {}",
        core::str::from_utf8(&MAGIC[..6]).unwrap_or(""),
        if l.has_layer_stats() {
            "1 (layer statistics)"
        } else {
            "0"
        }
    );
    let _ = writeln!(
        s,
        "counts: {} inputs, {} outputs, {} slots, {} ops",
        l.num_inputs(),
        l.num_outputs(),
        l.num_slots(),
        l.num_ops()
    );
    let tensors = (l.num_inputs() + l.num_outputs()) * TENSOR_RECORD_LEN;
    let slots_off = HEADER_LEN + tensors;
    let ops_off = slots_off + l.num_slots() * SLOT_RECORD_LEN;
    let stats_off = ops_off + l.num_ops() * OP_RECORD_LEN;
    let stats_len = if l.has_layer_stats() {
        l.num_stats() * STATS_RECORD_LEN + l.num_ops() * LAYER_NAME_RECORD_LEN
    } else {
        0
    };
    let weights_off = stats_off + stats_len;
    let stats_part = if l.has_layer_stats() {
        format!("statistics @{stats_off} ({stats_len} bytes), ")
    } else {
        String::new()
    };
    let _ = writeln!(
        s,
        "sections: tensors @{HEADER_LEN} ({tensors} bytes), slots @{slots_off} ({} bytes), \
         ops @{ops_off} ({} bytes), {stats_part}weights @{weights_off} ({} bytes), sha256 @{}",
        l.num_slots() * SLOT_RECORD_LEN,
        l.num_ops() * OP_RECORD_LEN,
        l.weights().len(),
        b.len() - HASH_LEN
    );
    let _ = writeln!(
        s,
        "scratch: {} bytes; work: {} MACs/elements per run",
        l.scratch_size(),
        l.work()
    );
    let _ = writeln!(s, "sha256 (trailer, verified): {}", hex(l.hash()));
    let _ = writeln!(s, "sha256 (file): {}", hex(&sha256(b)));
    for (i, d) in l.inputs().enumerate() {
        let _ = writeln!(s, "input {i} {}", tensor_line(&d));
    }
    for (i, d) in l.outputs().enumerate() {
        let _ = writeln!(s, "output {i} {}", tensor_line(&d));
    }
    for i in 0..l.num_slots() {
        if let Some(sl) = l.slot(i) {
            let _ = writeln!(
                s,
                "slot {i}: {}x{}x{} (c x h x w) @scratch+{}",
                sl.c, sl.h, sl.w, sl.offset
            );
        }
    }
    for i in 0..l.num_ops() {
        if let Some(op) = l.op(i) {
            match l.layer_name(i) {
                Some(name) => {
                    let _ = writeln!(s, "op {i} `{name}`: {}", op_line(&op));
                }
                None => {
                    let _ = writeln!(s, "op {i}: {}", op_line(&op));
                }
            }
        }
    }
    for st in l.stats() {
        let _ = writeln!(
            s,
            "statistics {} `{}`: layers {}..{} ({} records), raw buffer {} bytes",
            st.index,
            st.name_str(),
            st.first_op,
            u32::from(st.first_op) + u32::from(st.num_ops),
            st.num_ops,
            st.size()
        );
    }
    s
}
