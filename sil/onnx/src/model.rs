//! Loading (decode, validate, infer shapes, fold constants, plan) and running a model.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use prost::Message;

use crate::data::{DType, Data, onnx_type_name};
use crate::error::{NodeRef, OnnxError, RunError};
use crate::exact::{self, Range, Rounding, RoundingNote};
use crate::ops::{self, Kernel, MAX_RANK};
use crate::proto::{self, ModelProto, NodeProto, TensorProto, ValueInfoProto, attribute_type};
use crate::stats::{self, StatsDesc};
use crate::{Layer, LayerKind};

/// Longest I/O tensor name in bytes (`cudlaModuleTensorDescriptor::name` holds 80 and a NUL).
pub const MAX_IO_NAME: usize = 80;

/// Whether `bytes` are an ONNX model: they decode as a protobuf `ModelProto` with a graph.
/// (What cuDLA on SIL tells an ONNX network from other images, such as a real DLA loadable.)
pub fn is_onnx(bytes: &[u8]) -> bool {
    ModelProto::decode(bytes).is_ok_and(|m| m.graph.is_some())
}

/// Input or output tensors a network may have (cuDLA's SIL limit).
pub const MAX_IO: usize = 16;
/// Nodes a graph may have.
pub const MAX_NODES: usize = 4096;
/// Inputs a node may have.
pub const MAX_NODE_INPUTS: usize = 16;
/// Bytes of all tensors together (constants and run-time values).
pub const MAX_TOTAL_BYTES: usize = 1 << 28;
/// Largest I/O dimension (c, h, w), as cuDLA descriptors keep them.
pub const MAX_IO_DIM: usize = 65_535;

type Result<T> = core::result::Result<T, OnnxError>;

/// A graph input or output: int8, `[1, c, h, w]`, dense NCHW in [`Model::run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IoTensor {
    /// The ONNX value name (the cuDLA tensor name).
    pub name: String,
    /// `[n, c, h, w]`, `n` = 1.
    pub dims: [u32; 4],
}

impl IoTensor {
    /// Elements (= bytes: int8).
    pub fn len(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }

    /// Whether it has no elements (never, for a loaded model).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a value lives: a constant of the model, or a slot of the run's scratch space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Loc {
    Const(usize),
    Slot(usize),
}

/// A value of the graph.
#[derive(Clone, Debug)]
struct Value {
    dtype: DType,
    shape: Vec<usize>,
    loc: Loc,
    range: Range,
    /// The step that computes it (None: graph input or constant).
    producer: Option<usize>,
}

impl Value {
    fn len(&self) -> usize {
        self.shape.iter().product()
    }
}

/// One kernel call of a run.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    node: usize,
    kernel: Kernel,
    ins: Vec<(Loc, usize)>,
    in_values: Vec<usize>,
    out: usize,
    out_len: usize,
    out_value: usize,
    layer: Option<(LayerKind, u64)>,
}

/// A loaded, validated ONNX network, ready to run.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../loadables/examples/tiny.onnx"))?;
/// let model = sil_onnx::Model::load(&bytes)?;
/// let mut scratch = model.scratch();
/// let input = vec![3u8; model.inputs()[0].len()];
/// let mut output = vec![0u8; model.outputs()[0].len()];
/// model.run(&[&input], &mut [&mut output], &mut scratch)?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Model {
    id: u64,
    graph_name: String,
    producer: String,
    opset: i64,
    inputs: Vec<IoTensor>,
    outputs: Vec<IoTensor>,
    input_slots: Vec<usize>,
    output_slots: Vec<usize>,
    consts: Vec<Data>,
    slots: Vec<(DType, usize)>,
    steps: Vec<Step>,
    nodes: Vec<NodeRef>,
    layers: Vec<Layer>,
    stats: Vec<StatsDesc>,
    notes: Vec<RoundingNote>,
}

/// The run-time tensors of one model ([`Model::scratch`]): allocated once, reused by every
/// [`Model::run`] (which allocates nothing).
#[derive(Debug)]
pub struct Scratch {
    model: u64,
    bufs: Vec<Data>,
}

static NEXT_MODEL: AtomicU64 = AtomicU64::new(1);
static EMPTY: Data = Data::F32(Vec::new());

impl Model {
    /// Decodes and validates an ONNX model: protobuf, opset, every node's operator,
    /// attributes, element types and shapes, the I/O rules of a DLA network (int8
    /// `[1, c, h, w]`), initializers and the layer-statistics metadata. Constant sub-graphs
    /// (dequantised weights) are computed here. Never panics on any input.
    pub fn load(bytes: &[u8]) -> Result<Model> {
        let m = ModelProto::decode(bytes).map_err(|e| OnnxError::Decode(e.to_string()))?;
        Loader::default().load(m)
    }

    /// The graph inputs, in graph order.
    pub fn inputs(&self) -> &[IoTensor] {
        &self.inputs
    }

    /// The graph outputs, in graph order.
    pub fn outputs(&self) -> &[IoTensor] {
        &self.outputs
    }

    /// The graph's name.
    pub fn graph_name(&self) -> &str {
        &self.graph_name
    }

    /// `producer_name` of the model.
    pub fn producer(&self) -> &str {
        &self.producer
    }

    /// The default-domain operator set the model imports.
    pub fn opset(&self) -> i64 {
        self.opset
    }

    /// The network's layers in execution order (compute nodes; a Relu that alone consumes a
    /// Conv, Gemm, MatMul or Add is fused into it, as the DLA runs them).
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Total work of all layers (≥ 1).
    pub fn work(&self) -> u64 {
        self.layers.iter().map(|l| l.work).sum::<u64>().max(1)
    }

    /// Layer-statistics buffers the model declares (empty: none), see [`crate::stats`].
    pub fn statistics(&self) -> &[StatsDesc] {
        &self.stats
    }

    /// Nodes whose float result is not provably the same on every engine (see
    /// [`crate::exact`]); [`Rounding::Unproven`] ones are warnings.
    pub fn rounding_notes(&self) -> &[RoundingNote] {
        &self.notes
    }

    /// Whether every node is [`Rounding::Exact`] or [`Rounding::Specified`].
    pub fn exactness_argued(&self) -> bool {
        !self
            .notes
            .iter()
            .any(|n| matches!(n.rounding, Rounding::Unproven(_)))
    }

    /// The operator types of the nodes, in graph order (for reports).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Allocates the run-time tensors.
    pub fn scratch(&self) -> Scratch {
        Scratch {
            model: self.id,
            bufs: self.slots.iter().map(|&(t, n)| Data::zeros(t, n)).collect(),
        }
    }

    /// Runs the network: `inputs[i]` holds input `i` as dense int8 NCHW (at least
    /// [`IoTensor::len`] bytes, read as `i8`), `outputs[i]` receives output `i` the same
    /// way (bytes beyond are not touched). Allocates nothing.
    pub fn run(
        &self,
        inputs: &[&[u8]],
        outputs: &mut [&mut [u8]],
        scratch: &mut Scratch,
    ) -> core::result::Result<(), RunError> {
        if scratch.model != self.id {
            return Err(RunError::ForeignScratch);
        }
        if inputs.len() != self.inputs.len() {
            return Err(RunError::InputCount {
                expected: self.inputs.len(),
                found: inputs.len(),
            });
        }
        if outputs.len() != self.outputs.len() {
            return Err(RunError::OutputCount {
                expected: self.outputs.len(),
                found: outputs.len(),
            });
        }
        for (i, (buf, t)) in inputs.iter().zip(&self.inputs).enumerate() {
            if buf.len() < t.len() {
                return Err(RunError::InputTooSmall {
                    index: i,
                    need: t.len(),
                });
            }
        }
        for (i, (buf, t)) in outputs.iter().zip(&self.outputs).enumerate() {
            if buf.len() < t.len() {
                return Err(RunError::OutputTooSmall {
                    index: i,
                    need: t.len(),
                });
            }
        }
        for ((buf, t), &slot) in inputs.iter().zip(&self.inputs).zip(&self.input_slots) {
            if let Some(Data::I8(dst)) = scratch.bufs.get_mut(slot) {
                for (d, &s) in dst.iter_mut().zip(&buf[..t.len()]) {
                    *d = s as i8;
                }
            }
        }
        for step in &self.steps {
            let Some(slot) = scratch.bufs.get_mut(step.out) else {
                return Err(RunError::ForeignScratch);
            };
            let mut out = core::mem::take(slot);
            let mut ins: [&Data; MAX_NODE_INPUTS] = [&EMPTY; MAX_NODE_INPUTS];
            let mut ok = out.len() == step.out_len;
            for (dst, &(loc, len)) in ins.iter_mut().zip(&step.ins) {
                let d = match loc {
                    Loc::Const(i) => self.consts.get(i),
                    Loc::Slot(i) => scratch.bufs.get(i),
                };
                match d {
                    Some(d) if d.len() == len => *dst = d,
                    _ => ok = false,
                }
            }
            if ok {
                ops::exec(&step.kernel, &ins[..step.ins.len()], &mut out);
            }
            scratch.bufs[step.out] = out;
            if !ok {
                return Err(RunError::ForeignScratch);
            }
        }
        for ((buf, t), &slot) in outputs
            .iter_mut()
            .zip(&self.outputs)
            .zip(&self.output_slots)
        {
            if let Some(Data::I8(src)) = scratch.bufs.get(slot) {
                for (d, &s) in buf[..t.len()].iter_mut().zip(src) {
                    *d = s as u8;
                }
            }
        }
        Ok(())
    }
}

// ------------------------------------------------------------------------------ loading

#[derive(Default)]
struct Loader {
    names: HashMap<String, usize>,
    values: Vec<Value>,
    consts: Vec<Data>,
    slots: Vec<(DType, usize)>,
    steps: Vec<Step>,
    nodes: Vec<NodeRef>,
    notes: Vec<RoundingNote>,
    bytes: usize,
    opset: i64,
}

/// What a node builder returns: the kernel, the run-time inputs it reads (value ids, in
/// kernel order), the output's type, shape and range, and how it rounds.
struct Built {
    kernel: Kernel,
    ins: Vec<usize>,
    dtype: DType,
    shape: Vec<usize>,
    range: Range,
    rounding: Rounding,
    layer: Option<(LayerKind, u64)>,
}

fn graph_ref() -> NodeRef {
    NodeRef {
        name: "graph".into(),
        op_type: "inputs/outputs".into(),
    }
}

fn numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

/// Work of a layer: the product of `factors`, saturating (never overflows).
fn work_of(factors: &[usize]) -> u64 {
    factors.iter().fold(1u64, |a, &f| {
        a.saturating_mul(u64::try_from(f).unwrap_or(u64::MAX))
    })
}

impl Loader {
    fn load(mut self, m: ModelProto) -> Result<Model> {
        if !(3..=crate::MAX_IR_VERSION).contains(&m.ir_version) {
            return Err(OnnxError::Model(format!(
                "IR version {} is not supported (3..={})",
                m.ir_version,
                crate::MAX_IR_VERSION
            )));
        }
        if !m.functions.is_empty() {
            return Err(OnnxError::Model(
                "model-local functions are not supported (inline them when exporting)".into(),
            ));
        }
        let opset = m
            .opset_import
            .iter()
            .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
            .map(|o| o.version)
            .ok_or_else(|| {
                OnnxError::Model("the model imports no default (ai.onnx) operator set".into())
            })?;
        if !(crate::MIN_OPSET..=crate::MAX_OPSET).contains(&opset) {
            return Err(OnnxError::Opset { version: opset });
        }
        self.opset = opset;
        let g = m
            .graph
            .ok_or_else(|| OnnxError::Model("the model has no graph".into()))?;
        if !g.sparse_initializer.is_empty() {
            return Err(OnnxError::Model(
                "sparse initializers are not supported".into(),
            ));
        }
        if g.node.len() > MAX_NODES {
            return Err(OnnxError::TooLarge(format!(
                "{} nodes (at most {MAX_NODES})",
                g.node.len()
            )));
        }
        for t in &g.initializer {
            if t.name.is_empty() {
                return Err(OnnxError::Initializer {
                    name: String::new(),
                    reason: "an initializer has no name".into(),
                });
            }
            let (dtype, shape, data) = tensor_data(t, &t.name)?;
            self.add_const(&t.name, dtype, shape, data)?;
        }

        // Graph inputs (those that are not initializers, which old IR versions list too). A set
        // of the initializers' names keeps this linear in the number of inputs.
        let initializers: HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
        let mut inputs = Vec::new();
        let mut input_slots = Vec::new();
        for vi in &g.input {
            if initializers.contains(vi.name.as_str()) {
                continue;
            }
            // Counted as they come, so that a list of thousands stops at the first too many.
            io_count(inputs.len() + 1, "inputs")?;
            io_name(&vi.name)?;
            let dims = io_dims(vi)?;
            let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            let slot = self.new_slot(DType::I8, shape.iter().product())?;
            self.define(
                &vi.name,
                Value {
                    dtype: DType::I8,
                    shape,
                    loc: Loc::Slot(slot),
                    range: Range::integers(128.0),
                    producer: None,
                },
            )?;
            inputs.push(IoTensor {
                name: vi.name.clone(),
                dims,
            });
            input_slots.push(slot);
        }
        io_count(inputs.len(), "inputs")?;

        for (i, n) in g.node.iter().enumerate() {
            let node = NodeRef {
                name: if n.name.is_empty() {
                    format!("#{i}")
                } else {
                    n.name.clone()
                },
                op_type: n.op_type.clone(),
            };
            self.node(i, n, node)?;
        }

        // Declared types of intermediate values must agree with the computed ones.
        for vi in &g.value_info {
            if let Some(&id) = self.names.get(&vi.name) {
                check_declared(vi, &self.values[id], &graph_ref())?;
            }
        }

        // Counted first: the duplicate check below compares each output with the earlier ones.
        io_count(g.output.len(), "outputs")?;
        let mut outputs = Vec::new();
        let mut output_slots = Vec::new();
        for vi in &g.output {
            let io_err = |reason: String| OnnxError::Io {
                name: vi.name.clone(),
                reason,
            };
            io_name(&vi.name)?;
            let &id = self
                .names
                .get(&vi.name)
                .ok_or_else(|| io_err("no node computes it".into()))?;
            let v = &self.values[id];
            if outputs.iter().any(|o: &IoTensor| o.name == vi.name) {
                return Err(io_err("listed twice among the graph outputs".into()));
            }
            let Loc::Slot(slot) = v.loc else {
                return Err(io_err(
                    "it is a constant; a DLA network's outputs are computed".into(),
                ));
            };
            if v.producer.is_none() {
                return Err(io_err(
                    "it is a graph input; a DLA network's outputs are computed".into(),
                ));
            }
            if v.dtype != DType::I8 {
                return Err(io_err(format!(
                    "it is {}; a DLA network's outputs are int8 (end the graph with \
                     QuantizeLinear, TensorRT's int8 kDLA_LINEAR I/O)",
                    v.dtype.name()
                )));
            }
            let dims = io_shape(&v.shape).map_err(io_err)?;
            check_declared(vi, v, &graph_ref())?;
            outputs.push(IoTensor {
                name: vi.name.clone(),
                dims,
            });
            output_slots.push(slot);
        }

        let layers = self.layers(&g.output.iter().map(|o| o.name.clone()).collect::<Vec<_>>());
        let names: Vec<&str> = inputs
            .iter()
            .chain(&outputs)
            .map(|t| t.name.as_str())
            .collect();
        let stats = stats::from_metadata(&m.metadata_props, &layers, &names)?;
        Ok(Model {
            id: NEXT_MODEL.fetch_add(1, Ordering::Relaxed),
            graph_name: g.name,
            producer: m.producer_name,
            opset,
            inputs,
            outputs,
            input_slots,
            output_slots,
            consts: self.consts,
            slots: self.slots,
            steps: self.steps,
            nodes: self.nodes,
            layers,
            stats,
            notes: self.notes,
        })
    }

    fn charge(&mut self, dtype: DType, len: usize) -> Result<()> {
        self.bytes = len
            .checked_mul(dtype.size())
            .and_then(|b| self.bytes.checked_add(b))
            .filter(|&b| b <= MAX_TOTAL_BYTES)
            .ok_or_else(|| {
                OnnxError::TooLarge(format!(
                    "the tensors need more than {MAX_TOTAL_BYTES} bytes"
                ))
            })?;
        Ok(())
    }

    fn new_slot(&mut self, dtype: DType, len: usize) -> Result<usize> {
        self.charge(dtype, len)?;
        self.slots.push((dtype, len));
        Ok(self.slots.len() - 1)
    }

    fn define(&mut self, name: &str, v: Value) -> Result<usize> {
        if name.is_empty() {
            return Err(OnnxError::Model("a value has an empty name".into()));
        }
        if self.names.contains_key(name) {
            return Err(OnnxError::DuplicateValue {
                value: name.to_owned(),
            });
        }
        self.values.push(v);
        let id = self.values.len() - 1;
        self.names.insert(name.to_owned(), id);
        Ok(id)
    }

    fn add_const(
        &mut self,
        name: &str,
        dtype: DType,
        shape: Vec<usize>,
        data: Data,
    ) -> Result<usize> {
        self.charge(dtype, data.len())?;
        let range = if dtype == DType::I64 {
            Range::unknown()
        } else {
            Range::of(data.as_f64())
        };
        self.consts.push(data);
        let loc = Loc::Const(self.consts.len() - 1);
        self.define(
            name,
            Value {
                dtype,
                shape,
                loc,
                range,
                producer: None,
            },
        )
    }

    fn node(&mut self, index: usize, n: &NodeProto, node: NodeRef) -> Result<()> {
        if !(n.domain.is_empty() || n.domain == "ai.onnx") {
            return Err(OnnxError::UnsupportedOp {
                node,
                domain: n.domain.clone(),
            });
        }
        if n.input.len() > MAX_NODE_INPUTS {
            return Err(OnnxError::Arity {
                node,
                reason: format!("{} inputs (at most {MAX_NODE_INPUTS})", n.input.len()),
            });
        }
        self.nodes.push(node.clone());
        let mut a = Attrs::new(&node, n);
        if n.op_type == "Constant" {
            let (dtype, shape, data) = constant(&mut a)?;
            a.finish()?;
            let out = single_output(&node, n)?;
            self.add_const(out, dtype, shape, data)?;
            return Ok(());
        }
        let ctx = NodeCtx {
            node: &node,
            proto: n,
            loader: self,
        };
        let built = match n.op_type.as_str() {
            "DequantizeLinear" => ctx.dequantize(&mut a)?,
            "QuantizeLinear" => ctx.quantize(&mut a)?,
            "Conv" => ctx.conv(&mut a)?,
            "Relu" => ctx.relu()?,
            "MaxPool" => ctx.pool(&mut a, true)?,
            "AveragePool" => ctx.pool(&mut a, false)?,
            "GlobalMaxPool" => ctx.global_pool(true)?,
            "GlobalAveragePool" => ctx.global_pool(false)?,
            "Gemm" => ctx.gemm(&mut a)?,
            "MatMul" => ctx.matmul()?,
            "Add" => ctx.add()?,
            "Concat" => ctx.concat(&mut a)?,
            "Resize" => ctx.resize(&mut a)?,
            "Identity" => ctx.identity()?,
            "Flatten" => ctx.flatten(&mut a)?,
            "Reshape" => ctx.reshape(&mut a)?,
            _ => {
                return Err(OnnxError::UnsupportedOp {
                    node,
                    domain: n.domain.clone(),
                });
            }
        };
        a.finish()?;
        let out = single_output(&node, n)?;
        if built.shape.len() > MAX_RANK {
            return Err(OnnxError::Shape {
                node,
                reason: format!("rank {} (at most {MAX_RANK})", built.shape.len()),
            });
        }
        let out_len = numel(&built.shape)
            .filter(|&n| n.saturating_mul(built.dtype.size()) <= MAX_TOTAL_BYTES)
            .ok_or_else(|| {
                OnnxError::TooLarge(format!(
                    "{node}: output {:?} exceeds {MAX_TOTAL_BYTES} bytes",
                    built.shape
                ))
            })?;
        let ins: Vec<(Loc, usize)> = built
            .ins
            .iter()
            .map(|&v| (self.values[v].loc, self.values[v].len()))
            .collect();
        if ins.iter().all(|(l, _)| matches!(l, Loc::Const(_))) {
            // Constant folding (dequantised weights and biases, shapes): computed once, here.
            let mut data = Data::zeros(built.dtype, out_len);
            let refs: Vec<&Data> = ins
                .iter()
                .map(|(l, _)| match l {
                    Loc::Const(i) => &self.consts[*i],
                    Loc::Slot(_) => &EMPTY,
                })
                .collect();
            ops::exec(&built.kernel, &refs, &mut data);
            self.add_const(out, built.dtype, built.shape, data)?;
            return Ok(());
        }
        if built.rounding != Rounding::Exact {
            self.notes.push(RoundingNote {
                node,
                rounding: built.rounding,
            });
        }
        let slot = self.new_slot(built.dtype, out_len)?;
        let step = self.steps.len();
        let out_value = self.define(
            out,
            Value {
                dtype: built.dtype,
                shape: built.shape,
                loc: Loc::Slot(slot),
                range: built.range,
                producer: Some(step),
            },
        )?;
        self.steps.push(Step {
            node: index,
            kernel: built.kernel,
            ins,
            in_values: built.ins,
            out: slot,
            out_len,
            out_value,
            layer: built.layer,
        });
        Ok(())
    }

    /// Groups the run-time steps into layers, fusing a Relu into the layer before it when it
    /// is that layer's only consumer.
    fn layers(&self, graph_outputs: &[String]) -> Vec<Layer> {
        let mut consumers = vec![0usize; self.values.len()];
        for s in &self.steps {
            for &v in &s.in_values {
                consumers[v] += 1;
            }
        }
        for o in graph_outputs {
            if let Some(&v) = self.names.get(o) {
                consumers[v] += 1;
            }
        }
        let mut layers: Vec<Layer> = Vec::new();
        let mut last_out: Option<usize> = None;
        for s in &self.steps {
            let Some((kind, work)) = s.layer else {
                continue;
            };
            if kind == LayerKind::Relu
                && let Some(l) = layers.last_mut()
                && matches!(
                    l.kind,
                    LayerKind::Conv | LayerKind::Gemm | LayerKind::MatMul | LayerKind::Add
                )
                && !l.relu
                && s.in_values.first().copied() == last_out
                && last_out.is_some_and(|v| consumers[v] == 1)
            {
                l.relu = true;
                l.work = l.work.saturating_add(work);
                last_out = Some(s.out_value);
                continue;
            }
            layers.push(Layer {
                name: self.nodes[s.node].name.clone(),
                kind,
                relu: false,
                work: work.max(1),
            });
            last_out = Some(s.out_value);
        }
        layers
    }
}

fn single_output<'a>(node: &NodeRef, n: &'a NodeProto) -> Result<&'a str> {
    match n.output.as_slice() {
        [o] if !o.is_empty() => Ok(o),
        [o, rest @ ..] if !o.is_empty() && rest.iter().all(|r| r.is_empty()) => Ok(o),
        [] | [_] => Err(OnnxError::Arity {
            node: node.clone(),
            reason: "needs one named output".into(),
        }),
        _ => Err(OnnxError::UnsupportedAttribute {
            node: node.clone(),
            attribute: n.output[1].clone(),
            reason: "optional outputs (e.g. MaxPool's Indices) are not supported".into(),
        }),
    }
}

/// Checks an I/O tensor name against the cuDLA descriptor's name field.
fn io_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_IO_NAME || name.contains('\0') {
        return Err(OnnxError::Io {
            name: name.to_owned(),
            reason: format!(
                "a DLA tensor name has 1..={MAX_IO_NAME} bytes (cudlaModuleTensorDescriptor)"
            ),
        });
    }
    Ok(())
}

/// `[1, c, h, w]` of a shape, or why not.
fn io_shape(shape: &[usize]) -> core::result::Result<[u32; 4], String> {
    match shape {
        [1, c, h, w] if [*c, *h, *w].iter().all(|&d| (1..=MAX_IO_DIM).contains(&d)) => {
            Ok([1, *c as u32, *h as u32, *w as u32])
        }
        _ => Err(format!(
            "shape {shape:?}; a DLA network's I/O is [1, c, h, w] with c, h, w in 1..={MAX_IO_DIM} \
             (TensorRT's kDLA_LINEAR formats)"
        )),
    }
}

/// The static `[1, c, h, w]` int8 shape of a graph input.
fn io_dims(vi: &ValueInfoProto) -> Result<[u32; 4]> {
    let err = |reason: String| OnnxError::Io {
        name: vi.name.clone(),
        reason,
    };
    let t = vi
        .r#type
        .as_ref()
        .and_then(|t| t.tensor_type.as_ref())
        .ok_or_else(|| err("not a tensor".into()))?;
    if t.elem_type != proto::data_type::INT8 {
        return Err(err(format!(
            "it is {}; a DLA network's inputs are int8 (start the graph with \
             DequantizeLinear; TensorRT's int8 kDLA_LINEAR I/O)",
            onnx_type_name(t.elem_type)
        )));
    }
    let shape = declared_shape(t.shape.as_ref()).map_err(err)?;
    io_shape(&shape).map_err(err)
}

/// The fixed dimensions of a declared shape.
fn declared_shape(s: Option<&proto::TensorShapeProto>) -> core::result::Result<Vec<usize>, String> {
    let s = s.ok_or("no shape declared (a DLA network has static shapes)")?;
    s.dim
        .iter()
        .map(|d| match &d.value {
            Some(proto::DimensionValue::DimValue(v)) if *v >= 1 => Ok(*v as usize),
            Some(proto::DimensionValue::DimParam(p)) => Err(format!(
                "symbolic dimension `{p}`; a DLA network has static shapes"
            )),
            _ => Err("a dimension that is not a positive number".to_owned()),
        })
        .collect()
}

/// Checks a declared type against a computed value (dimensions only where declared).
fn check_declared(vi: &ValueInfoProto, v: &Value, node: &NodeRef) -> Result<()> {
    let Some(t) = vi.r#type.as_ref().and_then(|t| t.tensor_type.as_ref()) else {
        return Ok(());
    };
    if t.elem_type != 0 && DType::from_onnx(t.elem_type) != Some(v.dtype) {
        return Err(OnnxError::DataType {
            node: node.clone(),
            value: vi.name.clone(),
            reason: format!(
                "declared {}, computed {}",
                onnx_type_name(t.elem_type),
                v.dtype.name()
            ),
        });
    }
    if let Some(s) = &t.shape {
        let fits = s.dim.len() == v.shape.len()
            && s.dim.iter().zip(&v.shape).all(|(d, &n)| match d.value {
                Some(proto::DimensionValue::DimValue(x)) => x == n as i64,
                _ => true,
            });
        if !fits {
            return Err(OnnxError::Shape {
                node: node.clone(),
                reason: format!(
                    "value `{}`: declared shape {:?} differs from the computed {:?}",
                    vi.name,
                    s.dim
                        .iter()
                        .map(|d| match &d.value {
                            Some(proto::DimensionValue::DimValue(x)) => x.to_string(),
                            Some(proto::DimensionValue::DimParam(p)) => p.clone(),
                            None => "?".into(),
                        })
                        .collect::<Vec<_>>(),
                    v.shape
                ),
            });
        }
    }
    Ok(())
}

/// The element type, shape and elements of an initializer or constant.
fn tensor_data(t: &TensorProto, name: &str) -> Result<(DType, Vec<usize>, Data)> {
    let err = |reason: String| OnnxError::Initializer {
        name: name.to_owned(),
        reason,
    };
    if t.data_location == proto::DATA_LOCATION_EXTERNAL {
        return Err(err(
            "external data is not supported (save the model with its weights inside)".into(),
        ));
    }
    if t.segment.is_some() {
        return Err(err("segmented tensors are not supported".into()));
    }
    let dtype = DType::from_onnx(t.data_type).ok_or_else(|| {
        err(format!(
            "element type {} is not supported (float, int8, int32, int64)",
            onnx_type_name(t.data_type)
        ))
    })?;
    if t.dims.len() > MAX_RANK {
        return Err(err(format!("rank {} (at most {MAX_RANK})", t.dims.len())));
    }
    let mut shape = Vec::with_capacity(t.dims.len());
    for &d in &t.dims {
        if d < 0 {
            return Err(err(format!("negative dimension {d}")));
        }
        shape.push(usize::try_from(d).map_err(|_| err("dimension too large".into()))?);
    }
    let len = numel(&shape)
        .filter(|&n| n.saturating_mul(dtype.size()) <= MAX_TOTAL_BYTES)
        .ok_or_else(|| err("too many elements".into()))?;
    let wrong = |found: usize| {
        err(format!(
            "{found} elements stored for shape {shape:?} ({len} elements)"
        ))
    };
    let data = if !t.raw_data.is_empty() {
        let raw = &t.raw_data;
        if raw.len() != len * dtype.size() {
            return Err(wrong(raw.len() / dtype.size()));
        }
        match dtype {
            DType::F32 => Data::F32(
                raw.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            DType::I8 => Data::I8(raw.iter().map(|&b| b as i8).collect()),
            DType::I32 => Data::I32(
                raw.chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            DType::I64 => Data::I64(
                raw.chunks_exact(8)
                    .map(|c| {
                        let mut b = [0u8; 8];
                        b.copy_from_slice(c);
                        i64::from_le_bytes(b)
                    })
                    .collect(),
            ),
        }
    } else {
        match dtype {
            DType::F32 if t.float_data.len() == len => Data::F32(t.float_data.clone()),
            DType::F32 => return Err(wrong(t.float_data.len())),
            DType::I8 if t.int32_data.len() == len => {
                let mut v = Vec::with_capacity(len);
                for &x in &t.int32_data {
                    v.push(i8::try_from(x).map_err(|_| err(format!("int8 value {x}")))?);
                }
                Data::I8(v)
            }
            DType::I32 if t.int32_data.len() == len => Data::I32(t.int32_data.clone()),
            DType::I8 | DType::I32 => return Err(wrong(t.int32_data.len())),
            DType::I64 if t.int64_data.len() == len => Data::I64(t.int64_data.clone()),
            DType::I64 => return Err(wrong(t.int64_data.len())),
        }
    };
    if let Data::F32(v) = &data
        && v.iter().any(|x| !x.is_finite())
    {
        return Err(err("a value that is not finite".into()));
    }
    Ok((dtype, shape, data))
}

/// The `Constant` node's value.
fn constant(a: &mut Attrs<'_>) -> Result<(DType, Vec<usize>, Data)> {
    if let Some(t) = a.tensor("value")? {
        return tensor_data(t, &a.node.name);
    }
    if let Some(f) = a.get("value_float", attribute_type::FLOAT)? {
        return Ok((DType::F32, vec![], Data::F32(vec![f.f])));
    }
    if let Some(f) = a.get("value_floats", attribute_type::FLOATS)? {
        return Ok((
            DType::F32,
            vec![f.floats.len()],
            Data::F32(f.floats.clone()),
        ));
    }
    if let Some(i) = a.get("value_int", attribute_type::INT)? {
        return Ok((DType::I64, vec![], Data::I64(vec![i.i])));
    }
    if let Some(i) = a.get("value_ints", attribute_type::INTS)? {
        return Ok((DType::I64, vec![i.ints.len()], Data::I64(i.ints.clone())));
    }
    Err(OnnxError::UnsupportedAttribute {
        node: a.node.clone(),
        attribute: "value".into(),
        reason: "a Constant needs `value`, `value_float(s)` or `value_int(s)`".into(),
    })
}

/// A node's attributes; [`Attrs::finish`] refuses every attribute no builder asked for.
struct Attrs<'a> {
    node: &'a NodeRef,
    list: &'a [proto::AttributeProto],
    used: Vec<bool>,
}

impl<'a> Attrs<'a> {
    fn new(node: &'a NodeRef, n: &'a NodeProto) -> Self {
        Attrs {
            node,
            list: &n.attribute,
            used: vec![false; n.attribute.len()],
        }
    }

    fn bad(&self, attribute: &str, reason: impl Into<String>) -> OnnxError {
        OnnxError::UnsupportedAttribute {
            node: self.node.clone(),
            attribute: attribute.into(),
            reason: reason.into(),
        }
    }

    fn get(&mut self, name: &str, ty: i32) -> Result<Option<&'a proto::AttributeProto>> {
        let Some(i) = self.list.iter().position(|a| a.name == name) else {
            return Ok(None);
        };
        self.used[i] = true;
        let a = &self.list[i];
        if !a.ref_attr_name.is_empty() {
            return Err(self.bad(name, "attribute references (functions) are not supported"));
        }
        if a.r#type != ty {
            return Err(self.bad(name, format!("attribute type {} (expected {ty})", a.r#type)));
        }
        Ok(Some(a))
    }

    fn int(&mut self, name: &str, default: i64) -> Result<i64> {
        Ok(self
            .get(name, attribute_type::INT)?
            .map_or(default, |a| a.i))
    }

    fn ints(&mut self, name: &str) -> Result<Option<Vec<i64>>> {
        Ok(self
            .get(name, attribute_type::INTS)?
            .map(|a| a.ints.clone()))
    }

    fn float(&mut self, name: &str, default: f32) -> Result<f32> {
        Ok(self
            .get(name, attribute_type::FLOAT)?
            .map_or(default, |a| a.f))
    }

    fn string(&mut self, name: &str, default: &str) -> Result<String> {
        Ok(self.get(name, attribute_type::STRING)?.map_or_else(
            || default.to_owned(),
            |a| String::from_utf8_lossy(&a.s).into_owned(),
        ))
    }

    fn tensor(&mut self, name: &str) -> Result<Option<&'a TensorProto>> {
        Ok(self
            .get(name, attribute_type::TENSOR)?
            .and_then(|a| a.t.as_ref()))
    }

    /// An int attribute that must be one of `allowed`.
    fn int_in(&mut self, name: &str, default: i64, allowed: &[i64], what: &str) -> Result<i64> {
        let v = self.int(name, default)?;
        if allowed.contains(&v) {
            Ok(v)
        } else {
            Err(self.bad(name, format!("value {v} is not supported ({what})")))
        }
    }

    fn finish(&self) -> Result<()> {
        match self.used.iter().position(|u| !u) {
            Some(i) => Err(self.bad(
                &self.list[i].name,
                "attribute not supported by the SIL DLA for this operator",
            )),
            None => Ok(()),
        }
    }
}

/// The window attributes of a 2-D Conv or pool.
struct Window {
    /// Top, left, bottom, right.
    pads: [usize; 4],
    strides: [usize; 2],
    dil: [usize; 2],
    kernel: [usize; 2],
}

/// A DLA network has 1 to `MAX_IO` graph inputs, and as many outputs.
fn io_count(n: usize, what: &str) -> Result<()> {
    let count = match n {
        0 => "no".to_owned(),
        n if n > MAX_IO => format!("more than {MAX_IO}"),
        _ => return Ok(()),
    };
    Err(OnnxError::Model(format!(
        "{count} graph {what}; a DLA network has 1..={MAX_IO}"
    )))
}

/// A node being built, with access to the values defined so far.
struct NodeCtx<'a> {
    node: &'a NodeRef,
    proto: &'a NodeProto,
    loader: &'a Loader,
}

/// Normalises an axis attribute for a rank (`-rank..rank`, or `..=rank` for Flatten).
fn axis_of(axis: i64, rank: usize, inclusive: bool) -> Option<usize> {
    let r = rank as i64;
    let hi = if inclusive { r } else { r - 1 };
    let a = if axis < 0 { axis + r } else { axis };
    (0..=hi).contains(&a).then_some(a as usize)
}

impl NodeCtx<'_> {
    /// An output shape whose element count stays within the SIL's limit.
    fn output_shape(&self, shape: Vec<usize>) -> Result<Vec<usize>> {
        match numel(&shape) {
            Some(n) if n <= MAX_TOTAL_BYTES => Ok(shape),
            _ => Err(OnnxError::TooLarge(format!(
                "{}: output {shape:?} has more than {MAX_TOTAL_BYTES} elements",
                self.node
            ))),
        }
    }

    fn shape_err(&self, reason: impl Into<String>) -> OnnxError {
        OnnxError::Shape {
            node: self.node.clone(),
            reason: reason.into(),
        }
    }

    fn bad(&self, attribute: &str, reason: impl Into<String>) -> OnnxError {
        OnnxError::UnsupportedAttribute {
            node: self.node.clone(),
            attribute: attribute.into(),
            reason: reason.into(),
        }
    }

    /// Input `i` (required): its value id.
    fn input(&self, i: usize) -> Result<usize> {
        self.opt_input(i)?.ok_or_else(|| OnnxError::Arity {
            node: self.node.clone(),
            reason: format!("input {i} is missing"),
        })
    }

    /// Input `i` if present (an empty name means absent).
    fn opt_input(&self, i: usize) -> Result<Option<usize>> {
        match self.proto.input.get(i) {
            None => Ok(None),
            Some(n) if n.is_empty() => Ok(None),
            Some(n) => {
                self.loader
                    .names
                    .get(n)
                    .copied()
                    .map(Some)
                    .ok_or_else(|| OnnxError::UnknownValue {
                        node: self.node.clone(),
                        value: n.clone(),
                    })
            }
        }
    }

    fn max_inputs(&self, n: usize) -> Result<()> {
        if self.proto.input.len() > n {
            return Err(OnnxError::Arity {
                node: self.node.clone(),
                reason: format!(
                    "{} inputs (this operator takes at most {n})",
                    self.proto.input.len()
                ),
            });
        }
        Ok(())
    }

    fn v(&self, id: usize) -> &Value {
        &self.loader.values[id]
    }

    fn name(&self, i: usize) -> String {
        self.proto.input.get(i).cloned().unwrap_or_default()
    }

    /// Input `i` of type `t`.
    fn typed(&self, i: usize, t: DType, why: &str) -> Result<usize> {
        let id = self.input(i)?;
        self.expect_type(i, id, &[t], why)?;
        Ok(id)
    }

    fn expect_type(&self, i: usize, id: usize, ts: &[DType], why: &str) -> Result<()> {
        let d = self.v(id).dtype;
        if ts.contains(&d) {
            Ok(())
        } else {
            Err(OnnxError::DataType {
                node: self.node.clone(),
                value: self.name(i),
                reason: format!("it is {}; {why}", d.name()),
            })
        }
    }

    /// Input `i` as constant data (an initializer or a folded constant).
    fn constant(&self, i: usize, what: &str) -> Result<Option<&Data>> {
        let Some(id) = self.opt_input(i)? else {
            return Ok(None);
        };
        match self.v(id).loc {
            Loc::Const(c) => Ok(Some(&self.loader.consts[c])),
            Loc::Slot(_) => Err(self.bad(
                &self.name(i),
                format!("{what} must be a constant (an initializer)"),
            )),
        }
    }

    fn rank4(&self, i: usize, id: usize) -> Result<[usize; 4]> {
        match self.v(id).shape.as_slice() {
            &[n, c, h, w] => Ok([n, c, h, w]),
            s => Err(self.shape_err(format!(
                "input `{}` has shape {s:?}; this operator needs 4-D NCHW",
                self.name(i)
            ))),
        }
    }

    fn built(&self, kernel: Kernel, ins: Vec<usize>, dtype: DType, shape: Vec<usize>) -> Built {
        Built {
            kernel,
            ins,
            dtype,
            shape,
            range: Range::unknown(),
            rounding: Rounding::Exact,
            layer: None,
        }
    }

    /// Scales and zero points of Q/DQ (`x` is the quantised or float input, `zt` the
    /// zero point's required type).
    fn qparams(&self, a: &mut Attrs<'_>, x: usize, zt: DType) -> Result<ops::QParams> {
        let axis_attr = a.int("axis", 1)?;
        if a.int("block_size", 0)? != 0 {
            return Err(self.bad("block_size", "blocked quantisation is not supported"));
        }
        let scale = self
            .constant(1, "the scale")?
            .ok_or_else(|| OnnxError::Arity {
                node: self.node.clone(),
                reason: "input 1 (scale) is missing".into(),
            })?;
        let sid = self.input(1)?;
        self.expect_type(1, sid, &[DType::F32], "scales are float")?;
        let scales = scale.f32s().to_vec();
        if scales.iter().any(|&s| !(s.is_finite() && s > 0.0)) {
            return Err(self.bad(&self.name(1), "scales must be finite and positive"));
        }
        let xshape = &self.v(x).shape;
        let (axis_len, inner) = match self.v(sid).shape.as_slice() {
            [] | [1] => (1, 1),
            [c] => {
                let ax = axis_of(axis_attr, xshape.len(), false)
                    .ok_or_else(|| self.bad("axis", format!("axis {axis_attr} out of range")))?;
                if xshape[ax] != *c {
                    return Err(self.shape_err(format!(
                        "{c} per-axis scales for axis {ax} of length {}",
                        xshape[ax]
                    )));
                }
                (*c, xshape[ax + 1..].iter().product())
            }
            s => {
                return Err(self.shape_err(format!(
                    "scale shape {s:?}; a scalar or a 1-D per-axis scale"
                )));
            }
        };
        let zero_points = match self.constant(2, "the zero point")? {
            None => vec![0; scales.len()],
            Some(z) => {
                let zid = self.input(2)?;
                self.expect_type(2, zid, &[zt], "the zero point has the quantised type")?;
                if self.v(zid).len() != scales.len() {
                    return Err(self.shape_err("zero point and scale sizes differ"));
                }
                match z {
                    Data::I8(v) => v.iter().map(|&x| i32::from(x)).collect(),
                    Data::I32(v) => v.clone(),
                    _ => vec![0; scales.len()],
                }
            }
        };
        Ok(ops::QParams {
            scales,
            zero_points,
            axis_len,
            inner,
        })
    }

    fn dequantize(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(3)?;
        let x = self.input(0)?;
        self.expect_type(
            0,
            x,
            &[DType::I8, DType::I32],
            "DequantizeLinear takes int8 (activations, weights) or int32 (biases)",
        )?;
        let zt = self.v(x).dtype;
        let q = self.qparams(a, x, zt)?;
        if zt == DType::I32 && q.zero_points.iter().any(|&z| z != 0) {
            return Err(self.bad(&self.name(2), "an int32 zero point must be 0"));
        }
        let range = if zt == DType::I8 {
            // Every value a dequantised int8 can take, computed as the kernel does.
            let mut vals = Vec::with_capacity(256 * q.scales.len());
            for (&s, &z) in q.scales.iter().zip(&q.zero_points) {
                for v in -128..=127i32 {
                    vals.push(f64::from((v - z) as f32 * s));
                }
            }
            Range::of(vals)
        } else {
            Range::unknown()
        };
        let shape = self.v(x).shape.clone();
        let mut b = self.built(Kernel::Dequantize(q), vec![x], DType::F32, shape);
        b.range = range;
        Ok(b)
    }

    fn quantize(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(3)?;
        let x = self.typed(0, DType::F32, "QuantizeLinear takes float")?;
        if a.int("saturate", 1)? != 1 {
            return Err(self.bad("saturate", "only saturate = 1 (the int8 rule)"));
        }
        let od = a.int("output_dtype", 0)?;
        if od != 0 && od != i64::from(proto::data_type::INT8) {
            return Err(self.bad("output_dtype", "the SIL DLA quantises to int8 only"));
        }
        if self.opt_input(2)?.is_none() {
            return Err(OnnxError::DataType {
                node: self.node.clone(),
                value: self.name(0),
                reason: "QuantizeLinear without a zero point outputs uint8; give an int8 zero \
                         point (the DLA is int8)"
                    .into(),
            });
        }
        let q = self.qparams(a, x, DType::I8)?;
        let rounding = if q.scales.iter().all(|&s| exact::is_power_of_two(s)) {
            Rounding::Exact
        } else {
            Rounding::Specified(
                "divides by a scale that is not a power of two, one correctly rounded float32 \
                 division as ONNX QuantizeLinear specifies",
            )
        };
        let shape = self.v(x).shape.clone();
        let mut b = self.built(Kernel::Quantize(q), vec![x], DType::I8, shape);
        b.range = Range::integers(128.0);
        b.rounding = rounding;
        Ok(b)
    }

    /// The window attributes of a 2-D Conv or pool; `kernel` from the attribute or the
    /// weights.
    fn window(&self, a: &mut Attrs<'_>, kernel: Option<[usize; 2]>) -> Result<Window> {
        let two = |name: &str, v: Option<Vec<i64>>, default: usize| -> Result<[usize; 2]> {
            match v.as_deref() {
                None => Ok([default; 2]),
                Some(&[a, b]) if a >= 1 && b >= 1 && a <= 1 << 16 && b <= 1 << 16 => {
                    Ok([a as usize, b as usize])
                }
                Some(v) => Err(self.bad(name, format!("{v:?}: two positive values (2-D)"))),
            }
        };
        let ks = a.ints("kernel_shape")?;
        let k = match (ks.as_deref(), kernel) {
            (None, Some(k)) => k,
            (Some(&[h, w]), Some(k)) if [h, w] == [k[0] as i64, k[1] as i64] => k,
            (Some(v), Some(k)) => {
                return Err(self.bad(
                    "kernel_shape",
                    format!("{v:?} differs from the weights' {k:?}"),
                ));
            }
            (v, None) => two("kernel_shape", v.map(|v| v.to_vec()), 0).and_then(|k| {
                if k[0] == 0 {
                    Err(self.bad("kernel_shape", "required"))
                } else {
                    Ok(k)
                }
            })?,
        };
        let strides = two("strides", a.ints("strides")?, 1)?;
        let dil = two("dilations", a.ints("dilations")?, 1)?;
        let auto_pad = a.string("auto_pad", "NOTSET")?;
        let pads = a.ints("pads")?;
        let pads = match (auto_pad.as_str(), pads.as_deref()) {
            ("NOTSET", None) | ("VALID", None) => [0; 4],
            ("NOTSET", Some(&[t, l, b, r]))
                if [t, l, b, r].iter().all(|&p| (0..=1 << 16).contains(&p)) =>
            {
                [t as usize, l as usize, b as usize, r as usize]
            }
            ("NOTSET", Some(v)) => {
                return Err(self.bad("pads", format!("{v:?}: four non-negative values")));
            }
            (other, _) => {
                return Err(self.bad(
                    "auto_pad",
                    format!("`{other}` is not supported (NOTSET with explicit pads, or VALID)"),
                ));
            }
        };
        Ok(Window {
            pads,
            strides,
            dil,
            kernel: k,
        })
    }

    /// Output length along one axis, or a shape error.
    fn out_len(
        &self,
        len: usize,
        k: usize,
        s: usize,
        d: usize,
        lo: usize,
        hi: usize,
    ) -> Result<usize> {
        let eff = (k - 1) * d + 1;
        let padded = len + lo + hi;
        if padded < eff {
            return Err(self.shape_err(format!(
                "a window of {eff} does not fit an input of {len} padded by {lo} + {hi}"
            )));
        }
        Ok((padded - eff) / s + 1)
    }

    /// The window `win` of kernel `k` over an `h × w` input, with its output size.
    fn plane(&self, [h, w]: [usize; 2], k: [usize; 2], win: &Window) -> Result<ops::Plane> {
        let Window {
            pads, strides, dil, ..
        } = *win;
        Ok(ops::Plane {
            h,
            w,
            oh: self.out_len(h, k[0], strides[0], dil[0], pads[0], pads[2])?,
            ow: self.out_len(w, k[1], strides[1], dil[1], pads[1], pads[3])?,
            kh: k[0],
            kw: k[1],
            sh: strides[0],
            sw: strides[1],
            dh: dil[0],
            dw: dil[1],
            pt: pads[0],
            pl: pads[1],
        })
    }

    fn conv(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(3)?;
        let why = "Conv computes in float (DequantizeLinear its int8 operands)";
        let x = self.typed(0, DType::F32, why)?;
        let w = self.typed(1, DType::F32, why)?;
        let b = self.opt_input(2)?;
        if let Some(b) = b {
            self.expect_type(2, b, &[DType::F32], why)?;
        }
        let [n, c, h, wd] = self.rank4(0, x)?;
        let [m, cg, kh, kw] = self.rank4(1, w)?;
        let group = a.int("group", 1)?;
        let win = self.window(a, Some([kh, kw]))?;
        if group < 1
            || c % group as usize != 0
            || m % group as usize != 0
            || c / group as usize != cg
        {
            return Err(self.shape_err(format!(
                "group {group} does not fit {c} input channels, {m} filters of {cg} channels"
            )));
        }
        if let Some(b) = b
            && self.v(b).shape != [m]
        {
            return Err(self.shape_err(format!("bias shape {:?}, expected [{m}]", self.v(b).shape)));
        }
        let plane = self.plane([h, wd], [kh, kw], &win)?;
        let (oh, ow) = (plane.oh, plane.ow);
        let g = ops::Conv {
            n,
            c,
            m,
            group: group as usize,
            bias: b.is_some(),
            plane,
        };
        let taps = cg * kh * kw;
        let (rx, rw) = (self.v(x).range, self.v(w).range);
        let bound = self.weight_bound(w, m, taps, rx, rw);
        let (rounding, range) = exact::sum_with_bias(
            rx.q.zip(rw.q).map(|(a, b)| a + b),
            bound,
            b.map(|b| self.v(b).range),
            "products of Conv",
        );
        let mut ins = vec![x, w];
        ins.extend(b);
        let shape = self.output_shape(vec![n, m, oh, ow])?;
        let mut bt = self.built(Kernel::Conv(g), ins, DType::F32, shape);
        bt.range = range;
        bt.rounding = rounding;
        bt.layer = Some((LayerKind::Conv, work_of(&[n, m, oh, ow, taps])));
        Ok(bt)
    }

    /// The largest sum of |x·w| over one output: per output row of constant weights
    /// (`rows` rows of `taps` weights, row-major), else `taps · max|x| · max|w|`.
    fn weight_bound(&self, w: usize, rows: usize, taps: usize, rx: Range, rw: Range) -> f64 {
        match self.v(w).loc {
            Loc::Const(i) => {
                let wv = self.loader.consts[i].f32s();
                (0..rows)
                    .map(|r| {
                        wv[r * taps..(r + 1) * taps]
                            .iter()
                            .map(|v| f64::from(v.abs()))
                            .sum::<f64>()
                    })
                    .fold(0.0, f64::max)
                    * rx.max_abs
            }
            Loc::Slot(_) => taps as f64 * rx.max_abs * rw.max_abs,
        }
    }

    fn relu(&self) -> Result<Built> {
        self.max_inputs(1)?;
        let x = self.typed(0, DType::F32, "Relu computes in float")?;
        let shape = self.v(x).shape.clone();
        let len = work_of(&[self.v(x).len()]);
        let mut b = self.built(Kernel::Relu, vec![x], DType::F32, shape);
        b.range = self.v(x).range;
        b.layer = Some((LayerKind::Relu, len));
        Ok(b)
    }

    fn pool(&self, a: &mut Attrs<'_>, max: bool) -> Result<Built> {
        self.max_inputs(1)?;
        let x = self.typed(0, DType::F32, "pooling computes in float")?;
        let [n, c, h, w] = self.rank4(0, x)?;
        a.int_in("ceil_mode", 0, &[0], "floor mode only")?;
        let include_pad = if max {
            a.int_in("storage_order", 0, &[0], "row major only")?;
            false
        } else {
            a.int_in("count_include_pad", 0, &[0, 1], "0 or 1")? == 1
        };
        let win = self.window(a, None)?;
        let Window {
            pads,
            dil,
            kernel: k,
            ..
        } = win;
        if pads[0].max(pads[2]) > (k[0] - 1) * dil[0] || pads[1].max(pads[3]) > (k[1] - 1) * dil[1]
        {
            return Err(self.shape_err("padding must be smaller than the pooling window"));
        }
        let plane = self.plane([h, w], k, &win)?;
        let (oh, ow) = (plane.oh, plane.ow);
        let p = ops::Pool {
            planes: n * c,
            plane,
            include_pad,
        };
        let rx = self.v(x).range;
        // Refuse a huge output before the window counts below walk it.
        self.output_shape(vec![n, c, oh, ow])?;
        let work = work_of(&[n, c, oh, ow, k[0], k[1]]);
        if max {
            let mut b = self.built(Kernel::MaxPool(p), vec![x], DType::F32, vec![n, c, oh, ow]);
            b.range = rx;
            b.layer = Some((LayerKind::MaxPool, work));
            return Ok(b);
        }
        // Every divisor a window can have.
        let mut counts = std::collections::BTreeSet::new();
        if include_pad {
            counts.insert(k[0] * k[1]);
        } else {
            for oy in 0..oh {
                for ox in 0..ow {
                    let mut n = 0;
                    plane.for_each_tap(oy, ox, |_, _| n += 1);
                    counts.insert(n);
                }
            }
        }
        let (rounding, range) = average(rx, &counts);
        let mut b = self.built(Kernel::AvgPool(p), vec![x], DType::F32, vec![n, c, oh, ow]);
        b.range = range;
        b.rounding = rounding;
        b.layer = Some((LayerKind::AveragePool, work));
        Ok(b)
    }

    fn global_pool(&self, max: bool) -> Result<Built> {
        self.max_inputs(1)?;
        let x = self.typed(0, DType::F32, "pooling computes in float")?;
        let [n, c, h, w] = self.rank4(0, x)?;
        let kernel = Kernel::GlobalPool {
            max,
            planes: n * c,
            size: h * w,
        };
        let rx = self.v(x).range;
        let mut b = self.built(kernel, vec![x], DType::F32, vec![n, c, 1, 1]);
        let work = work_of(&[n, c, h, w]);
        if max {
            b.range = rx;
            b.layer = Some((LayerKind::GlobalMaxPool, work));
        } else {
            let (rounding, range) = average(rx, &[h * w].into_iter().collect());
            b.range = range;
            b.rounding = rounding;
            b.layer = Some((LayerKind::GlobalAveragePool, work));
        }
        Ok(b)
    }

    fn gemm(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(3)?;
        let why = "Gemm computes in float (DequantizeLinear its int8 operands)";
        let ai = self.typed(0, DType::F32, why)?;
        let bi = self.typed(1, DType::F32, why)?;
        let ci = self.opt_input(2)?;
        if let Some(c) = ci {
            self.expect_type(2, c, &[DType::F32], why)?;
        }
        for name in ["alpha", "beta"] {
            let v = a.float(name, 1.0)?;
            if v != 1.0 {
                return Err(self.bad(
                    name,
                    format!("{v}: only 1.0 (the DLA's fully connected layer)"),
                ));
            }
        }
        let ta = a.int_in("transA", 0, &[0, 1], "0 or 1")? == 1;
        let tb = a.int_in("transB", 0, &[0, 1], "0 or 1")? == 1;
        let (sa, sb) = (&self.v(ai).shape, &self.v(bi).shape);
        let (&[a0, a1], &[b0, b1]) = (sa.as_slice(), sb.as_slice()) else {
            return Err(self.shape_err(format!("Gemm needs 2-D A and B, got {sa:?} and {sb:?}")));
        };
        let (m, k) = if ta { (a1, a0) } else { (a0, a1) };
        let (kb, n) = if tb { (b1, b0) } else { (b0, b1) };
        if k != kb {
            return Err(self.shape_err(format!("inner dimensions differ: A {sa:?}, B {sb:?}")));
        }
        let c = match ci.map(|c| self.v(c).shape.as_slice()) {
            None => None,
            Some([] | [1] | [1, 1]) => Some(ops::Bias2 { rows: 1, cols: 1 }),
            Some([x] | [1, x]) if *x == n => Some(ops::Bias2 { rows: 1, cols: n }),
            Some([x, 1]) if *x == m => Some(ops::Bias2 { rows: m, cols: 1 }),
            Some([x, y]) if *x == m && *y == n => Some(ops::Bias2 { rows: m, cols: n }),
            Some(s) => {
                return Err(
                    self.shape_err(format!("C of shape {s:?} does not broadcast to [{m}, {n}]"))
                );
            }
        };
        let (ra, rb) = (self.v(ai).range, self.v(bi).range);
        // The bound per output column of a constant B (rows of B^T).
        let bound = match self.v(bi).loc {
            Loc::Const(i) => {
                let bv = self.loader.consts[i].f32s();
                (0..n)
                    .map(|j| {
                        (0..k)
                            .map(|kk| {
                                f64::from(if tb { bv[j * k + kk] } else { bv[kk * n + j] }.abs())
                            })
                            .sum::<f64>()
                    })
                    .fold(0.0, f64::max)
                    * ra.max_abs
            }
            Loc::Slot(_) => k as f64 * ra.max_abs * rb.max_abs,
        };
        let (rounding, range) = exact::sum_with_bias(
            ra.q.zip(rb.q).map(|(a, b)| a + b),
            bound,
            ci.map(|c| self.v(c).range),
            "products of Gemm",
        );
        let g = ops::Gemm {
            m,
            k,
            n,
            trans_a: ta,
            trans_b: tb,
            c,
        };
        let mut ins = vec![ai, bi];
        ins.extend(ci);
        let mut b = self.built(Kernel::Gemm(g), ins, DType::F32, vec![m, n]);
        b.range = range;
        b.rounding = rounding;
        b.layer = Some((LayerKind::Gemm, work_of(&[m, n, k])));
        Ok(b)
    }

    fn matmul(&self) -> Result<Built> {
        self.max_inputs(2)?;
        let why = "MatMul computes in float (DequantizeLinear its int8 operands)";
        let ai = self.typed(0, DType::F32, why)?;
        let bi = self.typed(1, DType::F32, why)?;
        let (sa, sb) = (self.v(ai).shape.clone(), self.v(bi).shape.clone());
        if sa.len() < 2 || sb.len() < 2 {
            return Err(self.shape_err(format!(
                "MatMul needs operands of rank >= 2, got {sa:?} and {sb:?}"
            )));
        }
        let (m, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
        let (kb, n) = (sb[sb.len() - 2], sb[sb.len() - 1]);
        let batch_a = &sa[..sa.len() - 2];
        let b_batched = sb.len() > 2;
        if k != kb || (b_batched && sb[..sb.len() - 2] != *batch_a) {
            return Err(self.shape_err(format!(
                "shapes {sa:?} and {sb:?} do not multiply (B is [K, N] or has A's batch dimensions)"
            )));
        }
        let batch: usize = batch_a.iter().product();
        let (ra, rb) = (self.v(ai).range, self.v(bi).range);
        let bound = match self.v(bi).loc {
            Loc::Const(i) if !b_batched => {
                let bv = self.loader.consts[i].f32s();
                (0..n)
                    .map(|j| {
                        (0..k)
                            .map(|kk| f64::from(bv[kk * n + j].abs()))
                            .sum::<f64>()
                    })
                    .fold(0.0, f64::max)
                    * ra.max_abs
            }
            _ => k as f64 * ra.max_abs * rb.max_abs,
        };
        let (rounding, range) = exact::sum_with_bias(
            ra.q.zip(rb.q).map(|(a, b)| a + b),
            bound,
            None,
            "products of MatMul",
        );
        let mut shape = batch_a.to_vec();
        shape.extend([m, n]);
        let g = ops::MatMul {
            batch,
            m,
            k,
            n,
            b_batched,
        };
        let mut b = self.built(Kernel::MatMul(g), vec![ai, bi], DType::F32, shape);
        b.range = range;
        b.rounding = rounding;
        b.layer = Some((LayerKind::MatMul, work_of(&[batch, m, n, k])));
        Ok(b)
    }

    fn add(&self) -> Result<Built> {
        self.max_inputs(2)?;
        let why = "Add computes in float (DequantizeLinear its int8 operands)";
        let ai = self.typed(0, DType::F32, why)?;
        let bi = self.typed(1, DType::F32, why)?;
        let (sa, sb) = (&self.v(ai).shape, &self.v(bi).shape);
        let rank = sa.len().max(sb.len());
        if rank > MAX_RANK {
            return Err(self.shape_err(format!("rank {rank} (at most {MAX_RANK})")));
        }
        // Right-aligned, padded to MAX_RANK.
        let pad = |s: &[usize]| {
            let mut p = [1usize; MAX_RANK];
            p[MAX_RANK - s.len()..].copy_from_slice(s);
            p
        };
        let (pa, pb) = (pad(sa), pad(sb));
        let mut shape = [1usize; MAX_RANK];
        for d in 0..MAX_RANK {
            shape[d] = match (pa[d], pb[d]) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                _ => {
                    return Err(
                        self.shape_err(format!("shapes {sa:?} and {sb:?} do not broadcast"))
                    );
                }
            };
        }
        let strides = |p: &[usize; MAX_RANK]| {
            let mut s = [0usize; MAX_RANK];
            let mut acc = 1;
            for d in (0..MAX_RANK).rev() {
                s[d] = if p[d] == 1 { 0 } else { acc };
                acc *= p[d];
            }
            s
        };
        let bc = ops::Broadcast {
            shape,
            a: strides(&pa),
            b: strides(&pb),
        };
        let (ra, rb) = (self.v(ai).range, self.v(bi).range);
        let max_abs = ra.max_abs + rb.max_abs;
        let q =
            ra.q.zip(rb.q)
                .map(|(a, b)| a.min(b))
                .filter(|&q| exact::fits(max_abs, q));
        let out_shape = shape[MAX_RANK - rank..].to_vec();
        let len = numel(&out_shape).unwrap_or(0) as u64;
        let mut b = self.built(Kernel::Add(bc), vec![ai, bi], DType::F32, out_shape);
        b.range = Range { max_abs, q };
        b.layer = Some((LayerKind::Add, len));
        Ok(b)
    }

    fn concat(&self, a: &mut Attrs<'_>) -> Result<Built> {
        let axis = a
            .get("axis", attribute_type::INT)?
            .map(|x| x.i)
            .ok_or_else(|| self.bad("axis", "required"))?;
        let n = self.proto.input.len();
        if n == 0 {
            return Err(OnnxError::Arity {
                node: self.node.clone(),
                reason: "Concat needs at least one input".into(),
            });
        }
        let ids = (0..n).map(|i| self.input(i)).collect::<Result<Vec<_>>>()?;
        let first = self.v(ids[0]);
        let dtype = first.dtype;
        let rank = first.shape.len();
        let ax = axis_of(axis, rank, false)
            .ok_or_else(|| self.bad("axis", format!("axis {axis} out of range for rank {rank}")))?;
        let mut shape = first.shape.clone();
        shape[ax] = 0;
        let mut chunks = Vec::with_capacity(n);
        let mut range: Option<Range> = None;
        for (i, &id) in ids.iter().enumerate() {
            let v = self.v(id);
            self.expect_type(i, id, &[dtype], "Concat inputs share one element type")?;
            if v.shape.len() != rank
                || v.shape
                    .iter()
                    .enumerate()
                    .any(|(d, &x)| d != ax && x != first.shape[d])
            {
                return Err(self.shape_err(format!(
                    "input `{}` of shape {:?} does not concatenate with {:?} on axis {ax}",
                    self.name(i),
                    v.shape,
                    first.shape
                )));
            }
            shape[ax] += v.shape[ax];
            chunks.push(v.shape[ax..].iter().product());
            range = Some(range.map_or(v.range, |r| r.join(v.range)));
        }
        let outer = first.shape[..ax].iter().product();
        let len = numel(&shape).unwrap_or(0) as u64;
        let mut b = self.built(
            Kernel::Concat(ops::Concat { outer, chunks }),
            ids,
            dtype,
            shape,
        );
        b.range = range.unwrap_or_else(Range::unknown);
        b.layer = Some((LayerKind::Concat, len));
        Ok(b)
    }

    fn resize(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(4)?;
        let x = self.input(0)?;
        self.expect_type(0, x, &[DType::F32, DType::I8], "Resize takes float or int8")?;
        let [n, c, h, w] = self.rank4(0, x)?;
        let mode = a.string("mode", "nearest")?;
        if mode != "nearest" {
            return Err(self.bad("mode", format!("`{mode}`: only `nearest` is supported")));
        }
        let ctm = a.string("coordinate_transformation_mode", "half_pixel")?;
        if ![
            "half_pixel",
            "asymmetric",
            "align_corners",
            "pytorch_half_pixel",
            "tf_half_pixel_for_nn",
        ]
        .contains(&ctm.as_str())
        {
            return Err(self.bad(
                "coordinate_transformation_mode",
                format!(
                    "`{ctm}` is not supported (half_pixel, asymmetric, align_corners, \
                     pytorch_half_pixel, tf_half_pixel_for_nn)"
                ),
            ));
        }
        let nm = a.string("nearest_mode", "round_prefer_floor")?;
        if !["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"].contains(&nm.as_str()) {
            return Err(self.bad("nearest_mode", format!("`{nm}` is not supported")));
        }
        // Attributes of other modes, harmless with `nearest`.
        a.float("cubic_coeff_a", -0.75)?;
        a.float("extrapolation_value", 0.0)?;
        a.int_in("exclude_outside", 0, &[0], "0 only")?;
        a.int_in("antialias", 0, &[0], "0 only")?;
        if a.ints("axes")?.is_some() {
            return Err(self.bad("axes", "not supported (give all four scales or sizes)"));
        }
        let policy = a.string("keep_aspect_ratio_policy", "stretch")?;
        if policy != "stretch" {
            return Err(self.bad("keep_aspect_ratio_policy", "only `stretch`"));
        }
        // roi only matters for tf_crop_and_resize (refused above).
        let scales = self.constant(2, "the scales")?.map(|d| d.f32s().to_vec());
        let sizes = self.constant(3, "the sizes")?.map(|d| d.i64s().to_vec());
        let (scale_h, scale_w, oh, ow) = match (
            scales.filter(|s| !s.is_empty()),
            sizes.filter(|s| !s.is_empty()),
        ) {
            (Some(s), None) if s.len() == 4 => {
                if s[0] != 1.0 || s[1] != 1.0 {
                    return Err(self.bad(&self.name(2), "resizing N or C is not supported"));
                }
                if !(s[2].is_finite() && s[2] > 0.0 && s[3].is_finite() && s[3] > 0.0) {
                    return Err(self.bad(&self.name(2), "scales must be positive"));
                }
                // onnxruntime: output = (int64)(input · scale) in float.
                let oh = (h as f32 * s[2]) as usize;
                let ow = (w as f32 * s[3]) as usize;
                (s[2], s[3], oh, ow)
            }
            (None, Some(z)) if z.len() == 4 => {
                if z[0] != n as i64 || z[1] != c as i64 {
                    return Err(self.bad(&self.name(3), "resizing N or C is not supported"));
                }
                if !(1..=1 << 16).contains(&z[2]) || !(1..=1 << 16).contains(&z[3]) {
                    return Err(self.bad(&self.name(3), "sizes out of range"));
                }
                let (oh, ow) = (z[2] as usize, z[3] as usize);
                (oh as f32 / h as f32, ow as f32 / w as f32, oh, ow)
            }
            _ => {
                return Err(self.bad(
                    "scales",
                    "give exactly one of `scales` or `sizes` (4 values, constant)",
                ));
            }
        };
        if oh == 0 || ow == 0 || oh > 1 << 16 || ow > 1 << 16 {
            return Err(self.shape_err(format!("output size {oh} x {ow}")));
        }
        let map = |out: usize, inp: usize, scale: f32| -> Vec<usize> {
            (0..out)
                .map(|o| {
                    let x = original(&ctm, o as f32, scale, out as f32, inp as f32);
                    let i = nearest(&nm, x);
                    i.clamp(0, inp as i64 - 1) as usize
                })
                .collect()
        };
        let r = ops::Resize {
            planes: n * c,
            h,
            w,
            map_h: map(oh, h, scale_h),
            map_w: map(ow, w, scale_w),
        };
        let dtype = self.v(x).dtype;
        let shape = self.output_shape(vec![n, c, oh, ow])?;
        let len = work_of(&shape);
        let mut b = self.built(Kernel::Resize(r), vec![x], dtype, shape);
        b.range = self.v(x).range;
        b.layer = Some((LayerKind::Resize, len));
        Ok(b)
    }

    fn identity(&self) -> Result<Built> {
        self.max_inputs(1)?;
        let x = self.input(0)?;
        let v = self.v(x);
        let mut b = self.built(Kernel::Copy, vec![x], v.dtype, v.shape.clone());
        b.range = v.range;
        Ok(b)
    }

    fn flatten(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(1)?;
        let x = self.input(0)?;
        let v = self.v(x);
        let axis = a.int("axis", 1)?;
        let ax = axis_of(axis, v.shape.len(), true)
            .ok_or_else(|| self.bad("axis", format!("axis {axis} out of range")))?;
        let shape = vec![
            v.shape[..ax].iter().product(),
            v.shape[ax..].iter().product(),
        ];
        let mut b = self.built(Kernel::Copy, vec![x], v.dtype, shape);
        b.range = v.range;
        Ok(b)
    }

    fn reshape(&self, a: &mut Attrs<'_>) -> Result<Built> {
        self.max_inputs(2)?;
        let x = self.input(0)?;
        let sid = self.input(1)?;
        self.expect_type(1, sid, &[DType::I64], "Reshape's shape is int64")?;
        let target = self
            .constant(1, "the shape")?
            .map(|d| d.i64s().to_vec())
            .unwrap_or_default();
        let allowzero = a.int_in("allowzero", 0, &[0, 1], "0 or 1")?;
        let v = self.v(x);
        let mut shape = Vec::with_capacity(target.len());
        let mut infer = None;
        for (i, &d) in target.iter().enumerate() {
            match d {
                0 if allowzero == 0 => shape.push(*v.shape.get(i).ok_or_else(|| {
                    self.shape_err(format!(
                        "shape {target:?}: 0 copies a dimension the input lacks"
                    ))
                })?),
                -1 if infer.is_none() => {
                    infer = Some(i);
                    shape.push(1);
                }
                d if d >= 1 => shape.push(d as usize),
                _ => return Err(self.shape_err(format!("shape {target:?} is not supported"))),
            }
        }
        let total = v.len();
        let known = numel(&shape)
            .ok_or_else(|| self.shape_err(format!("shape {target:?} is too large")))?;
        if let Some(i) = infer {
            if known == 0 || !total.is_multiple_of(known) {
                return Err(self.shape_err(format!("cannot reshape {:?} to {target:?}", v.shape)));
            }
            shape[i] = total / known;
        }
        if numel(&shape) != Some(total) {
            return Err(self.shape_err(format!("cannot reshape {:?} to {target:?}", v.shape)));
        }
        let mut b = self.built(Kernel::Copy, vec![x], v.dtype, shape);
        b.range = v.range;
        Ok(b)
    }
}

/// The rounding and range of averages of values in `rx` over windows of these counts.
fn average(rx: Range, counts: &std::collections::BTreeSet<usize>) -> (Rounding, Range) {
    let max_count = counts.iter().copied().max().unwrap_or(1);
    let Some(q) = rx.q else {
        return (
            Rounding::Unproven("the pooled values are not on a power-of-two grid".into()),
            Range::unknown(),
        );
    };
    let bound = max_count as f64 * rx.max_abs;
    if !exact::fits(bound, q) {
        return (
            Rounding::Unproven(format!("the window sum can exceed 2^24 steps of 2^{q}")),
            Range::unknown(),
        );
    }
    if counts.iter().all(|c| c.is_power_of_two()) {
        let shift = max_count.trailing_zeros() as i32;
        (
            Rounding::Exact,
            Range {
                max_abs: rx.max_abs,
                q: Some(q - shift),
            },
        )
    } else {
        (
            Rounding::Specified(
                "divides the exact window sum by a count that is not a power of two, one \
                 correctly rounded float32 division",
            ),
            Range {
                max_abs: rx.max_abs,
                q: None,
            },
        )
    }
}

/// onnxruntime's `get_original_coordinate` (float arithmetic, in its order).
fn original(mode: &str, x: f32, scale: f32, len_out: f32, len_in: f32) -> f32 {
    match mode {
        "asymmetric" => x / scale,
        "pytorch_half_pixel" => {
            if len_out > 1.0 {
                (x + 0.5) / scale - 0.5
            } else {
                0.0
            }
        }
        "align_corners" => {
            if len_out == 1.0 {
                0.0
            } else {
                x * (len_in - 1.0) / (len_out - 1.0)
            }
        }
        "tf_half_pixel_for_nn" => (x + 0.5) / scale,
        _ => (x + 0.5) / scale - 0.5,
    }
}

/// onnxruntime's `get_nearest_pixel` for the four nearest modes.
fn nearest(mode: &str, x: f32) -> i64 {
    match mode {
        "floor" => x.floor() as i64,
        "ceil" => x.ceil() as i64,
        "round_prefer_ceil" => x.round() as i64,
        _ => {
            // A tie (x = integer part + 0.5) goes down; anything else rounds to nearest.
            if x == (x as i64) as f32 + 0.5 {
                x.floor() as i64
            } else {
                x.round() as i64
            }
        }
    }
}
