#!/usr/bin/env python3
"""Export a DLA network description (TOML) to ONNX for TensorRT's DLA builder.

    python3 loadables/export_onnx.py loadables/aeb_detector.toml --out-dir OUT [options]
    python3 loadables/export_onnx.py loadables/aeb_detector.toml --onnx loadables/aeb_detector.onnx

writes, for a description whose [network] name is NAME:

  OUT/NAME.qdq.onnx      the network with explicit quantisation: int8 input, int8 outputs,
                         QuantizeLinear/DequantizeLinear around every op, int8 weights exactly
                         as in the description, int32 biases, per-tensor power-of-two scales
                         derived from the requantisation shifts. The reference form: its
                         ONNX semantics reproduce the description's arithmetic bit for bit
                         (loadables/check_onnx.py checks this with onnxruntime).
  OUT/NAME.noqdq.onnx    the same network without Q/DQ nodes (float weights = int8 weight x
                         weight scale, float biases), for TensorRT's implicit quantisation;
  OUT/NAME.calib.cache   the per-tensor scales of the Q/DQ model as a TensorRT calibration
                         cache (computed from the description, no calibration data), for
                         `trtexec --int8 --calib=` with NAME.noqdq.onnx. This is the form the
                         DLA builds (TensorRT's DLA path supports implicit quantisation only,
                         see loadables/README.md);
  OUT/NAME.scales.json   every tensor's scale and every op's lowering, for people.

With --onnx FILE it writes only the Q/DQ model to FILE: the network the SIL DLA runs
(sil/onnx) and loadables/manifest.toml lists; --layer-statistics SPEC adds the SIL cuDLA's
layer-statistics metadata to it.

Dependencies: numpy and onnx (tested: Python 3.11.7, numpy 2.4.6, onnx 1.23.2; and Python
3.10.13, numpy 1.26.4, onnx 1.16.2, tomli 2.5.0; see
loadables/README.md). On Python < 3.11 it needs `tomli` instead of the standard `tomllib`.

Op mapping (every description op; the arithmetic is loadables/README.md, "Arithmetic"):

  conv2d          Conv (+ Relu). Weight scale = multiplier, output scale = input scale x
                  2^shift, so round(acc x multiplier / 2^shift) is the ONNX quantisation.
  dense           Conv with a kernel of the input's H x W (the flattened (c, h, w) order of
                  the description's dense weights is the [out][c][h][w] Conv weight layout).
  relu            Relu (same scale).
  maxpool         MaxPool (same scale; padding never wins, as in the SIL).
  global_maxpool  MaxPool with a kernel of the input's H x W.
  avgpool, global_avgpool without padding
                  depthwise Conv (group = channels) with weights 1 and output scale
                  input scale x count x 2^shift / multiplier: the sum of the window divided
                  by count x 2^shift / multiplier, rounded. (DLA int8 pooling needs equal
                  input and output scales, and the gain makes them differ.)
  avgpool with padding
                  AveragePool (count_include_pad = 0) quantised at input scale x 2^shift /
                  multiplier; not expected to run on the DLA (warning), and ±1 at rounding
                  ties (there is no bias to nudge).

Rounding: the description rounds half up; ONNX QuantizeLinear rounds half to even and the DLA is
reported to round half away from zero. With --ties=half-up (the default) every conv-like
op's bias gets a quarter of one accumulator step (a quarter of the input scale; for an
average pool a quarter of the input scale / multiplier) added, so that no exact tie is left
and any round-to-nearest gives the description's half-up result; the int32 bias is then
4 x multiplier x bias + 1 at a quarter of the usual bias scale. --ties=engine keeps the
description's biases and leaves ties to the engine.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PRODUCER = "orin-exec loadables/export_onnx.py"
PRODUCER_VERSION = "1"
OPSET = 13  # per-axis Q/DQ, int32 DequantizeLinear; TensorRT 8.x and 10.x parse it
IR_VERSION = 7  # the IR of opset 13 (ONNX 1.8): old parsers accept it
LAYER_STATISTICS_KEY = "sil_dla.layer_statistics"


class ExportError(Exception):
    """A description this exporter cannot translate (message names the layer)."""


# ---------------------------------------------------------------------------------------
# The description, parsed and checked (loadables/README.md, "Network description").


@dataclass
class Shape:
    c: int
    h: int
    w: int


@dataclass
class Layer:
    """One description op with its weights resolved."""

    op: str  # conv2d | dense | relu | maxpool | avgpool (global_* folded into kernel)
    name: str
    input: str
    output: str
    in_shape: Shape
    out_shape: Shape
    kernel: tuple = (0, 0)
    stride: tuple = (0, 0)
    pad: tuple = (0, 0, 0, 0)  # top, left, bottom, right
    relu: bool = False
    shift: int = 0
    multiplier: int = 1
    global_: bool = False
    weights: np.ndarray | None = None  # int64 [out][in][kh][kw] (dense: [out][c][h][w])
    bias: np.ndarray | None = None  # int64 [out]


@dataclass
class Network:
    name: str
    inputs: list  # [(name, Shape)]
    outputs: list  # [(name, from_tensor, Shape)]
    layers: list
    tensors: dict = field(default_factory=dict)  # name -> Shape


def _pair(v, what):
    if v is None:
        return None
    if isinstance(v, int):
        return (v, v)
    if isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v):
        return (v[0], v[1])
    raise ExportError(f"{what}: expected a number or [h, w], got {v!r}")


def _padding(v, what):
    if v is None:
        return (0, 0, 0, 0)
    if isinstance(v, int):
        return (v, v, v, v)
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        if len(v) == 2:
            return (v[0], v[1], v[0], v[1])
        if len(v) == 4:
            return tuple(v)
    raise ExportError(f"{what}: padding must be N, [v, h] or [top, left, bottom, right]")


def _window_out(n, k, s, lo, hi, what):
    if k < 1 or s < 1 or lo >= k or hi >= k or n + lo + hi < k:
        raise ExportError(f"{what}: kernel {k}, stride {s}, padding {lo}/{hi} do not fit {n}")
    return (n + lo + hi - k) // s + 1


def _i8(v, what):
    if not isinstance(v, int) or not -128 <= v <= 127:
        raise ExportError(f"{what}: weight {v!r} is outside -128..=127")
    return v


def _i32(v, what):
    if not isinstance(v, int) or not -(2**31) <= v < 2**31:
        raise ExportError(f"{what}: bias {v!r} is outside the i32 range")
    return v


def _layer_weights(l: dict, lname: str, outs: int, in_c: int, per_channel: int):
    """builder.rs `layer_weights`: returns (int64 [outs][in_c*per_channel], int64 [outs])."""
    taps = in_c * per_channel
    layer_fill = l.get("fill", 0)
    filters = l.get("filter", [])
    if "weights" in l:
        if filters:
            raise ExportError(f"{lname}: give either `weights` or `[[layer.filter]]`, not both")
        flat = l["weights"]
        if len(flat) != outs * taps:
            raise ExportError(f"{lname}: `weights` has {len(flat)} values, expected {outs * taps}")
        bias = l.get("bias", [0] * outs)
        if len(bias) != outs:
            raise ExportError(f"{lname}: `bias` has {len(bias)} values, expected {outs}")
        w = [_i8(v, f"{lname}: weights[{k}]") for k, v in enumerate(flat)]
        b = [_i32(v, f"{lname}: bias[{k}]") for k, v in enumerate(bias)]
        return np.array(w, np.int64).reshape(outs, taps), np.array(b, np.int64)
    if "bias" in l:
        raise ExportError(f"{lname}: `bias` goes with `weights`; use `filter.bias` with filters")
    if not filters:
        v = _i8(layer_fill, f"{lname}: fill")
        return np.full((outs, taps), v, np.int64), np.zeros(outs, np.int64)
    if len(filters) != outs:
        raise ExportError(f"{lname}: {len(filters)} filters, expected {outs}")
    w = np.zeros((outs, taps), np.int64)
    b = np.zeros(outs, np.int64)
    for o, f in enumerate(filters):
        fname = f"{lname}: filter {o}" + (f" ({f['name']})" if "name" in f else "")
        fw = [_i8(f.get("fill", layer_fill), f"{fname}: fill")] * taps
        if "weights" in f:
            if len(f["weights"]) != taps:
                raise ExportError(f"{fname}: `weights` has {len(f['weights'])} values, expected {taps}")
            fw = [_i8(v, f"{fname}: weights[{k}]") for k, v in enumerate(f["weights"])]
        seen = set()
        for ch in f.get("input", []):
            c = ch["channel"]
            if not 0 <= c < in_c:
                raise ExportError(f"{fname}: input channel {c} out of range (0..{in_c})")
            if c in seen:
                raise ExportError(f"{fname}: input channel {c} given twice")
            seen.add(c)
            if len(ch["weights"]) != per_channel:
                raise ExportError(
                    f"{fname}: input channel {c} has {len(ch['weights'])} weights, expected {per_channel}"
                )
            for k, v in enumerate(ch["weights"]):
                fw[c * per_channel + k] = _i8(v, f"{fname}: input channel {c} weights[{k}]")
        w[o] = fw
        b[o] = _i32(f.get("bias", 0), fname)
    return w, b


def parse_description(text: str) -> Network:
    d = tomllib.loads(text)
    net = d.get("network", {})
    if net.get("format_version", 1) != 1:
        raise ExportError(f"network: format_version {net['format_version']} is not supported")
    tensors: dict[str, Shape] = {}

    def define(name, shape, what):
        if name in tensors:
            raise ExportError(f"{what}: tensor `{name}` is defined twice")
        if min(shape.c, shape.h, shape.w) < 1:
            raise ExportError(f"{what}: tensor `{name}` has an empty dimension")
        tensors[name] = shape

    inputs = []
    for i in d.get("input", []):
        n, c, h, w = i["shape"]
        if n != 1:
            raise ExportError(f"input `{i['name']}`: n must be 1")
        define(i["name"], Shape(c, h, w), f"input `{i['name']}`")
        inputs.append((i["name"], Shape(c, h, w)))
    if not inputs:
        raise ExportError("no [[input]]")

    layers = []
    for li, l in enumerate(d.get("layer", [])):
        lname = f"layer {li}" + (f" ({l['name']})" if "name" in l else "")
        name = l.get("name", f"layer{li}")
        src = tensors.get(l["input"])
        if src is None:
            raise ExportError(f"{lname}: unknown input tensor `{l['input']}`")
        op = l["op"]
        mult = l.get("multiplier", 1)
        shift = l.get("shift", 0)
        if mult < 1:
            raise ExportError(f"{lname}: multiplier must be >= 1")
        if not 0 <= shift <= 31:
            raise ExportError(f"{lname}: shift must be 0..=31")
        pad = _padding(l.get("padding"), lname)
        if op == "conv2d":
            k = _pair(l.get("kernel"), lname)
            if k is None:
                raise ExportError(f"{lname}: `kernel` missing")
            s = _pair(l.get("stride"), lname) or (1, 1)
            oh = _window_out(src.h, k[0], s[0], pad[0], pad[2], lname)
            ow = _window_out(src.w, k[1], s[1], pad[1], pad[3], lname)
            oc = l["out_channels"]
            w, b = _layer_weights(l, lname, oc, src.c, k[0] * k[1])
            layer = Layer(
                "conv2d", name, l["input"], l["output"], src, Shape(oc, oh, ow), k, s, pad,
                bool(l.get("relu", False)), shift, mult, False,
                w.reshape(oc, src.c, k[0], k[1]), b,
            )
        elif op == "dense":
            of = l["out_features"]
            w, b = _layer_weights(l, lname, of, src.c, src.h * src.w)
            layer = Layer(
                "dense", name, l["input"], l["output"], src, Shape(of, 1, 1), (src.h, src.w),
                (1, 1), (0, 0, 0, 0), bool(l.get("relu", False)), shift, mult, False,
                w.reshape(of, src.c, src.h, src.w), b,
            )
        elif op in ("relu", "maxpool", "avgpool", "global_maxpool", "global_avgpool"):
            avg = op.endswith("avgpool")
            if not avg and (shift or "multiplier" in l):
                raise ExportError(f"{lname}: shift/multiplier apply to avgpool only")
            if op == "relu":
                layer = Layer("relu", name, l["input"], l["output"], src, src)
            elif op.startswith("global_"):
                layer = Layer(
                    op[len("global_"):], name, l["input"], l["output"], src, Shape(src.c, 1, 1),
                    (src.h, src.w), (1, 1), (0, 0, 0, 0), False, shift if avg else 0,
                    mult if avg else 1, True,
                )
            else:
                k = _pair(l.get("kernel"), lname)
                if k is None:
                    raise ExportError(f"{lname}: `kernel` missing")
                s = _pair(l.get("stride"), lname) or k
                oh = _window_out(src.h, k[0], s[0], pad[0], pad[2], lname)
                ow = _window_out(src.w, k[1], s[1], pad[1], pad[3], lname)
                layer = Layer(
                    op, name, l["input"], l["output"], src, Shape(src.c, oh, ow), k, s, pad,
                    False, shift if avg else 0, mult if avg else 1,
                )
        else:
            raise ExportError(f"{lname}: unknown op `{op}`")
        define(layer.output, layer.out_shape, lname)
        layers.append(layer)

    outputs = []
    for o in d.get("output", []):
        src_name = o.get("from", o["name"])
        shape = tensors.get(src_name)
        if shape is None:
            raise ExportError(f"output `{o['name']}`: no tensor named `{src_name}`")
        n, c, h, w = o["shape"]
        if n != 1 or (c, h, w) != (shape.c, shape.h, shape.w):
            raise ExportError(f"output `{o['name']}`: shape {o['shape']} does not match the tensor's")
        outputs.append((o["name"], src_name, shape))
    if not outputs:
        raise ExportError("no [[output]]")
    names = [n for n, _ in inputs] + [n for n, _, _ in outputs]
    if len(set(names)) != len(names):
        raise ExportError("duplicate I/O tensor name")
    return Network(net.get("name", "network"), inputs, outputs, layers, tensors)


# ---------------------------------------------------------------------------------------
# Scales and lowering.


@dataclass
class Lowered:
    """One op of the ONNX graph, before it is written out with or without Q/DQ."""

    layer: Layer
    kind: str  # conv | relu | maxpool | averagepool
    in_scale: float
    out_scale: float
    weights: np.ndarray | None = None  # int8-valued int64 [O][C/group][kh][kw]
    weight_scale: float = 1.0
    group: int = 1
    bias_int: np.ndarray | None = None  # int64 [O], at bias_scale
    bias_scale: float = 1.0
    note: str = ""


def lower(net: Network, ties: str = "half-up", warn=print) -> tuple[list, dict]:
    """Chooses every tensor's scale and the ONNX op of every layer."""
    if ties not in ("half-up", "engine"):
        raise ExportError(f"--ties must be half-up or engine, not {ties!r}")
    scales = {name: 1.0 for name, _ in net.inputs}
    ops = []
    for l in net.layers:
        s_in = scales[l.input]
        if l.op in ("conv2d", "dense"):
            s_out = s_in * 2.0**l.shift
            acc_scale = s_in * l.multiplier
            if ties == "half-up":
                # A quarter of the input scale: no accumulator value lies on a tie any more and
                # none crosses one (see the module docstring).
                bias_scale = s_in / 4.0
                bias_int = l.bias * 4 * l.multiplier + 1
            else:
                bias_scale, bias_int = acc_scale, l.bias.copy()
            note = (
                f"{l.op}: Conv k={l.kernel[0]}x{l.kernel[1]} s={l.stride[0]}x{l.stride[1]} "
                f"pad={list(l.pad)}{' + Relu' if l.relu else ''}; weight scale {l.multiplier}, "
                f"requant shift {l.shift} -> out scale = in scale x {2**l.shift}"
            )
            ops.append(Lowered(l, "conv", s_in, s_out, l.weights, float(l.multiplier), 1,
                               bias_int, bias_scale, note))
        elif l.op == "relu":
            s_out = s_in
            ops.append(Lowered(l, "relu", s_in, s_out, note="Relu"))
        elif l.op == "maxpool":
            s_out = s_in
            ops.append(Lowered(l, "maxpool", s_in, s_out,
                               note=f"MaxPool k={l.kernel[0]}x{l.kernel[1]} s={l.stride[0]}x{l.stride[1]} pad={list(l.pad)}"))
            if max(l.kernel) > 8:
                warn(f"{l.name}: max pool window {l.kernel[0]}x{l.kernel[1]} is larger than "
                     "8 (UNCONFIRMED that the DLA runs it)")
        elif l.op == "avgpool":
            count = l.kernel[0] * l.kernel[1]
            if any(l.pad):
                # The description excludes padding from the count; only AveragePool can say that.
                s_out = s_in * 2.0**l.shift / l.multiplier
                ops.append(Lowered(l, "averagepool", s_in, s_out,
                                   note="AveragePool count_include_pad=0 (padding excluded)"))
                warn(f"{l.name}: padded average pool exported as AveragePool; the DLA needs equal "
                     "input/output scales for int8 pooling and is not expected to exclude padding")
            else:
                s_out = s_in * count * 2.0**l.shift / l.multiplier
                c = l.in_shape.c
                w = np.ones((c, 1, l.kernel[0], l.kernel[1]), np.int64)
                if ties == "half-up":
                    bias_scale = s_in / (4.0 * l.multiplier)
                    bias_int = np.ones(c, np.int64)
                else:
                    bias_scale, bias_int = s_in, np.zeros(c, np.int64)
                note = (
                    f"{'global ' if l.global_ else ''}avgpool: depthwise Conv k={l.kernel[0]}x{l.kernel[1]} "
                    f"of ones, group {c}; out scale = in scale x {count} x 2^{l.shift} / {l.multiplier}"
                )
                ops.append(Lowered(l, "conv", s_in, s_out, w, 1.0, c, bias_int, bias_scale, note))
        else:
            raise ExportError(f"{l.name}: unexpected op {l.op}")
        scales[l.output] = s_out
    for lw in ops:
        if lw.bias_int is not None and np.abs(lw.bias_int).max(initial=0) >= 2**31:
            raise ExportError(f"{lw.layer.name}: bias does not fit int32 at scale {lw.bias_scale}")
    return ops, scales


# ---------------------------------------------------------------------------------------
# ONNX writers.


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


class _Graph:
    def __init__(self):
        self.nodes, self.inits, self.known = [], [], {}

    def init(self, name, array):
        """An initializer; a second one of the same name must have the same value."""
        if name in self.known:
            if not np.array_equal(self.known[name], array) or self.known[name].dtype != array.dtype:
                raise ExportError(f"initializer {name} defined twice with different values")
            return name
        self.known[name] = array
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, outputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0]


def _out_name(net: Network, tensor: str) -> str:
    """The ONNX name of a description tensor: an output routed from it takes the output's name."""
    for name, src, _ in net.outputs:
        if src == tensor:
            return name
    return tensor


def build_qdq(net: Network, ops: list, scales: dict, *, float_bias=False,
              trt_weights=False, layer_statistics=None) -> onnx.ModelProto:
    """The explicitly quantised model: int8 I/O, Q/DQ around every op.

    trt_weights: instead of the description's int8 weights at one per-tensor scale, requantise
    every output channel to the full int8 range (scale = max |w| / 127, rounding half away from
    zero) and keep float biases, as TensorRT's implicit quantisation does with float weights.
    Used by check_onnx.py to estimate what the DLA build computes; not for deployment.
    """
    g = _Graph()
    dq_of: dict[str, str] = {}  # int8 tensor -> its float (dequantised) tensor

    def scale_const(name, s):
        return g.init(name, np.array(s, np.float32))

    def dq(t8):
        if t8 not in dq_of:
            s = scale_const(f"{t8}/scale", scales_by_onnx[t8])
            z = g.init(f"{t8}/zero_point", np.array(0, np.int8))
            dq_of[t8] = g.node("DequantizeLinear", [t8, s, z], [f"{t8}/dq"], f"{t8}/dequantize")
        return dq_of[t8]

    scales_by_onnx = {}
    for name, _ in net.inputs:
        scales_by_onnx[name] = scales[name]
    for lw in ops:
        l = lw.layer
        x = dq(_out_name(net, l.input))
        if lw.kind == "conv":
            wname = f"{l.name}/weight"
            if trt_weights:
                wf = lw.weights.astype(np.float64) * lw.weight_scale
                amax = np.abs(wf).reshape(wf.shape[0], -1).max(axis=1)
                ws = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
                wq = np.clip(_round_half_away(wf / ws.astype(np.float64)[:, None, None, None]), -127, 127)
                w_in = g.init(f"{wname}_quantized", wq.astype(np.int8))
                w_s = g.init(f"{wname}/scale", ws)
                w_z = g.init(f"{wname}/zero_point", np.zeros(len(ws), np.int8))
                w = g.node("DequantizeLinear", [w_in, w_s, w_z], [wname], f"{wname}/dequantize", axis=0)
            else:
                w_in = g.init(f"{wname}_quantized", lw.weights.astype(np.int8))
                w_s = scale_const(f"{wname}/scale", lw.weight_scale)
                w_z = g.init(f"{wname}/zero_point", np.array(0, np.int8))
                w = g.node("DequantizeLinear", [w_in, w_s, w_z], [wname], f"{wname}/dequantize")
            bname = f"{l.name}/bias"
            if float_bias or trt_weights:
                b = g.init(bname, (lw.bias_int.astype(np.float64) * lw.bias_scale).astype(np.float32))
            else:
                b_in = g.init(f"{bname}_quantized", lw.bias_int.astype(np.int32))
                b_s = scale_const(f"{bname}/scale", lw.bias_scale)
                b_z = g.init(f"{bname}/zero_point", np.array(0, np.int32))
                b = g.node("DequantizeLinear", [b_in, b_s, b_z], [bname], f"{bname}/dequantize")
            y = g.node("Conv", [x, w, b], [f"{l.name}/conv"], l.name,
                       kernel_shape=list(l.kernel), strides=list(l.stride),
                       pads=[l.pad[0], l.pad[1], l.pad[2], l.pad[3]], group=lw.group)
            if l.relu:
                y = g.node("Relu", [y], [f"{l.name}/relu"], f"{l.name}/relu")
        elif lw.kind == "relu":
            y = g.node("Relu", [x], [f"{l.name}/relu"], l.name)
        elif lw.kind == "maxpool":
            y = g.node("MaxPool", [x], [f"{l.name}/pool"], l.name, kernel_shape=list(l.kernel),
                       strides=list(l.stride), pads=[l.pad[0], l.pad[1], l.pad[2], l.pad[3]])
        elif lw.kind == "averagepool":
            y = g.node("AveragePool", [x], [f"{l.name}/pool"], l.name, kernel_shape=list(l.kernel),
                       strides=list(l.stride), pads=[l.pad[0], l.pad[1], l.pad[2], l.pad[3]],
                       count_include_pad=0)
        else:
            raise ExportError(lw.kind)
        out8 = _out_name(net, l.output)
        scales_by_onnx[out8] = lw.out_scale
        s = scale_const(f"{out8}/scale", lw.out_scale)
        z = g.init(f"{out8}/zero_point", np.array(0, np.int8))
        g.node("QuantizeLinear", [y, s, z], [out8], f"{out8}/quantize")

    return _model(net, g, TensorProto.INT8, "explicitly quantised (Q/DQ)", _dup_outputs(net, g),
                  layer_statistics)


def build_noqdq(net: Network, ops: list, scales: dict) -> tuple[onnx.ModelProto, dict]:
    """The model without Q/DQ (float weights and biases) plus every tensor's scale, for
    TensorRT's implicit quantisation with a calibration cache."""
    g = _Graph()
    tensor_scales = {name: scales[name] for name, _ in net.inputs}
    for lw in ops:
        l = lw.layer
        x = _out_name(net, l.input)
        out = _out_name(net, l.output)
        if lw.kind == "conv":
            w = g.init(f"{l.name}/weight", (lw.weights.astype(np.float64) * lw.weight_scale).astype(np.float32))
            b = g.init(f"{l.name}/bias", (lw.bias_int.astype(np.float64) * lw.bias_scale).astype(np.float32))
            conv_out = f"{l.name}/conv" if l.relu else out
            g.node("Conv", [x, w, b], [conv_out], l.name, kernel_shape=list(l.kernel),
                   strides=list(l.stride), pads=[l.pad[0], l.pad[1], l.pad[2], l.pad[3]], group=lw.group)
            tensor_scales[conv_out] = lw.out_scale
            if l.relu:
                g.node("Relu", [conv_out], [out], f"{l.name}/relu")
        elif lw.kind == "relu":
            g.node("Relu", [x], [out], l.name)
        elif lw.kind == "maxpool":
            g.node("MaxPool", [x], [out], l.name, kernel_shape=list(l.kernel), strides=list(l.stride),
                   pads=[l.pad[0], l.pad[1], l.pad[2], l.pad[3]])
        elif lw.kind == "averagepool":
            g.node("AveragePool", [x], [out], l.name, kernel_shape=list(l.kernel), strides=list(l.stride),
                   pads=[l.pad[0], l.pad[1], l.pad[2], l.pad[3]], count_include_pad=0)
        tensor_scales[out] = lw.out_scale
    extra = _dup_outputs(net, g)
    for name, src in extra:
        tensor_scales[name] = tensor_scales[_out_name(net, src)]
    return _model(net, g, TensorProto.FLOAT, "float, no Q/DQ: build with the calibration cache", extra), tensor_scales


def _dup_outputs(net: Network, g: _Graph):
    """Outputs that route a tensor already exported under another output's name: Identity."""
    extra = []
    for name, src, _ in net.outputs:
        if _out_name(net, src) != name:
            g.node("Identity", [_out_name(net, src)], [name], f"{name}/identity")
            extra.append((name, src))
    return extra


def _model(net: Network, g: _Graph, io_type, what, _extra, layer_statistics=None) -> onnx.ModelProto:
    ins = [helper.make_tensor_value_info(n, io_type, [1, s.c, s.h, s.w]) for n, s in net.inputs]
    outs = [helper.make_tensor_value_info(n, io_type, [1, s.c, s.h, s.w]) for n, _, s in net.outputs]
    graph = helper.make_graph(g.nodes, net.name, ins, outs, g.inits)
    graph.doc_string = f"{net.name}: {what}. Generated by {PRODUCER} from the SIL network description."
    model = helper.make_model(graph, producer_name=PRODUCER, producer_version=PRODUCER_VERSION,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    if layer_statistics:
        # Read by the SIL cuDLA only (sil/onnx/src/stats.rs); other tools ignore metadata.
        helper.set_model_props(model, {LAYER_STATISTICS_KEY: layer_statistics})
    onnx.checker.check_model(model, full_check=True)
    return model


def calib_cache_text(tensor_scales: dict, trt_version: str) -> str:
    """A TensorRT calibration cache: header, then `name: <float32 scale as 8 hex digits>`.
    trtexec reads the scale back as line.substr(colon + 2, 8) (sampleEngines.cpp)."""
    lines = [f"TRT-{trt_version}-EntropyCalibration2"]
    for name, s in tensor_scales.items():
        bits = struct.unpack("<I", struct.pack("<f", s))[0]  # nearest float32, as in the Q/DQ model
        lines.append(f"{name}: {bits:08x}")
    return "\n".join(lines) + "\n"


def export(desc_path: Path, out_dir: Path, *, ties="half-up", float_bias=False,
           trt_version="8600", quiet=False) -> dict:
    """Writes the four files; returns their paths."""
    warn = (lambda m: None) if quiet else (lambda m: print(f"export_onnx.py: WARNING: {m}", file=sys.stderr))
    net = parse_description(desc_path.read_text())
    ops, scales = lower(net, ties, warn)
    qdq = build_qdq(net, ops, scales, float_bias=float_bias)
    noqdq, tensor_scales = build_noqdq(net, ops, scales)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "qdq": out_dir / f"{net.name}.qdq.onnx",
        "noqdq": out_dir / f"{net.name}.noqdq.onnx",
        "calib": out_dir / f"{net.name}.calib.cache",
        "scales": out_dir / f"{net.name}.scales.json",
    }
    paths["qdq"].write_bytes(qdq.SerializeToString(deterministic=True))
    paths["noqdq"].write_bytes(noqdq.SerializeToString(deterministic=True))
    paths["calib"].write_text(calib_cache_text(tensor_scales, trt_version))
    info = {
        "network": net.name,
        "description": desc_path.name,
        "ties": ties,
        "inputs": {n: {"shape": [1, s.c, s.h, s.w], "scale": scales[n]} for n, s in net.inputs},
        "outputs": {n: {"from": src, "shape": [1, s.c, s.h, s.w], "scale": scales[src]}
                    for n, src, s in net.outputs},
        "tensor_scales": tensor_scales,
        "ops": [{"name": lw.layer.name, "sil_op": ("global_" if lw.layer.global_ else "") + lw.layer.op,
                 "onnx": lw.note, "in_scale": lw.in_scale, "out_scale": lw.out_scale} for lw in ops],
    }
    paths["scales"].write_text(json.dumps(info, indent=2) + "\n")
    return paths


def export_qdq(desc_path: Path, out: Path, *, layer_statistics=None, quiet=False) -> Path:
    """Writes only the Q/DQ model (the SIL DLA's network, `--onnx`)."""
    warn = (lambda m: None) if quiet else (lambda m: print(f"export_onnx.py: WARNING: {m}", file=sys.stderr))
    net = parse_description(desc_path.read_text())
    ops, scales = lower(net, "half-up", warn)
    model = build_qdq(net, ops, scales, layer_statistics=layer_statistics)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(model.SerializeToString(deterministic=True))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", type=Path, help="the network description (.toml)")
    p.add_argument("--out-dir", type=Path, default=Path("."), help="where to write (default: .)")
    p.add_argument("--ties", choices=["half-up", "engine"], default="half-up",
                   help="half-up (default): bias nudge so that every round-to-nearest gives the SIL's "
                        "half-up result; engine: the description's biases, ties as the engine rounds")
    p.add_argument("--float-bias", action="store_true",
                   help="Q/DQ model: float biases instead of int32 + DequantizeLinear")
    p.add_argument("--trt-version", default="8600",
                   help="TensorRT version for the calibration cache header, as trtexec prints it "
                        "without the v (e.g. 8602, 100300; default 8600)")
    p.add_argument("--onnx", type=Path, metavar="FILE",
                   help="write only the Q/DQ model (default ties) to FILE: the network the SIL DLA runs "
                        "and the manifest lists (loadables/aeb_detector.onnx)")
    p.add_argument("--layer-statistics", metavar="SPEC",
                   help="with --onnx: declare SIL cuDLA layer-statistics buffers in the model's "
                        "metadata, e.g. 'layerwise; heads=map_head..presence_head' (sil/onnx/src/stats.rs)")
    p.add_argument("-q", "--quiet", action="store_true")
    a = p.parse_args(argv)
    if a.layer_statistics and not a.onnx:
        p.error("--layer-statistics goes with --onnx")
    if a.onnx:
        try:
            path = export_qdq(a.description, a.onnx, layer_statistics=a.layer_statistics, quiet=a.quiet)
        except (ExportError, KeyError, OSError, tomllib.TOMLDecodeError) as e:
            print(f"export_onnx.py: {e}", file=sys.stderr)
            return 1
        if not a.quiet:
            print(path)
        return 0
    if not a.trt_version.isdigit():
        p.error("--trt-version: digits only, e.g. 8602")
    try:
        paths = export(a.description, a.out_dir, ties=a.ties, float_bias=a.float_bias,
                       trt_version=a.trt_version, quiet=a.quiet)
    except (ExportError, KeyError, OSError, tomllib.TOMLDecodeError) as e:
        print(f"export_onnx.py: {type(e).__name__ if isinstance(e, KeyError) else ''}{e}", file=sys.stderr)
        return 1
    if not a.quiet:
        for k in ("qdq", "noqdq", "calib", "scales"):
            print(paths[k])
    return 0


if __name__ == "__main__":
    sys.exit(main())
