#!/usr/bin/env python3
"""Translate a Q/DQ DLA network (the ONNX model the SIL DLA runs and the manifest lists) into
the form TensorRT 8.x/10.x builds for the DLA: a float model without Q/DQ nodes plus an INT8
calibration cache holding every tensor's scale (implicit quantisation; those releases do not
take explicit quantisation on the DLA, see loadables/README.md).

    python3 loadables/qdq_to_iq.py MODEL.onnx --out-dir OUT [--trt-version 8602]

writes OUT/NAME.noqdq.onnx and OUT/NAME.calib.cache (NAME: the model file's stem) and prints
their paths. Needs numpy and onnx.

The model must be in the SIL DLA's Q/DQ form (sil/onnx): int8 graph inputs each consumed by
DequantizeLinear, int8 graph outputs each produced by QuantizeLinear, per-tensor activation
scales with zero point 0 (TensorRT's int8 is symmetric), weights and biases as initializers
behind DequantizeLinear (per-tensor or per-axis). The translation:

  * DequantizeLinear of an initializer becomes a float initializer ((q - zp) x scale, as the
    node computes it in float32);
  * a graph input `x` consumed by DequantizeLinear becomes a float input `x` with that scale;
  * QuantizeLinear(t) -> DequantizeLinear pairs disappear: `t` gets the QuantizeLinear's
    scale and the DequantizeLinear's consumers read `t`;
  * a graph output `y` = QuantizeLinear(t) becomes the float output `y` (t renamed), with the
    scale;
  * a tensor still without a scale that feeds a Relu, MaxPool, Identity, Reshape or Flatten
    whose output has one takes that scale (a Conv's output before its Relu).

The cache lines are `name: <float32 scale as 8 hex digits>` under the header
`TRT-<version>-EntropyCalibration2`, as trtexec's --calib reads them (see export_onnx.py).
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PASS_THROUGH = {"Relu", "MaxPool", "Identity", "Reshape", "Flatten", "GlobalMaxPool", "Concat", "Resize"}


class TranslateError(Exception):
    """A model this translator cannot handle (the message names the node or tensor)."""


def _scalar(a, what):
    a = np.asarray(a)
    if a.size != 1:
        raise TranslateError(f"{what}: per-axis activation scales are not supported (TensorRT's "
                             "calibration cache has one scale per tensor)")
    return float(a.reshape(()))


def translate(model: onnx.ModelProto) -> tuple[onnx.ModelProto, dict]:
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    graph_inputs = [i for i in g.input if i.name not in inits]
    out_names = [o.name for o in g.output]
    rename: dict[str, str] = {}  # dequantised / quantised name -> float tensor name
    scales: dict[str, float] = {}
    new_inits = {}
    keep = []
    producers = {o: n for n in g.node for o in n.output}

    def zero(node, i):
        if len(node.input) > i and node.input[i]:
            z = inits[node.input[i]]
            if np.any(z != 0):
                raise TranslateError(f"{node.name} ({node.op_type}): zero point must be 0 "
                                     "(TensorRT's int8 is symmetric)")

    # 1. QuantizeLinear: record scales; graph outputs take the float tensor's place.
    for n in g.node:
        if n.op_type != "QuantizeLinear":
            continue
        zero(n, 2)
        s = _scalar(inits[n.input[1]], f"{n.name} (QuantizeLinear)")
        t, y = n.input[0], n.output[0]
        if y in out_names:
            rename[t] = y
            scales[y] = s
        else:
            rename[y] = t
            scales[t] = s
    # 2. DequantizeLinear: initializers fold, activations map to their float tensor.
    in_names = {i.name for i in graph_inputs}
    for n in g.node:
        if n.op_type != "DequantizeLinear":
            continue
        x = n.input[0]
        if x in inits:
            q = inits[x].astype(np.int64)
            s = inits[n.input[1]].astype(np.float32)
            z = inits[n.input[2]].astype(np.int64) if len(n.input) > 2 and n.input[2] else 0
            if s.size > 1:
                axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
                shape = [1] * q.ndim
                shape[axis] = s.size
                s = s.reshape(shape)
                if np.ndim(z):
                    z = z.reshape(shape)
            new_inits[n.output[0]] = ((q - z).astype(np.float32) * s).astype(np.float32)
            continue
        zero(n, 2)
        s = _scalar(inits[n.input[1]], f"{n.name} (DequantizeLinear)")
        if x in in_names:
            rename[n.output[0]] = x
            scales[x] = s
        elif x in rename:  # int8 activation: read the float tensor it quantised
            rename[n.output[0]] = rename[x]
        elif x in out_names:  # a graph output that is read again inside the graph
            rename[n.output[0]] = x
        else:
            raise TranslateError(f"{n.name}: DequantizeLinear of `{x}`, which no QuantizeLinear "
                                 "produces")
    # 3. The other nodes, rewired.
    def name(t):
        seen = set()
        while t in rename and t not in seen:
            seen.add(t)
            t = rename[t]
        return t

    for n in g.node:
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            continue
        m = onnx.NodeProto()
        m.CopyFrom(n)
        del m.input[:]
        m.input.extend(name(i) if i else i for i in n.input)
        del m.output[:]
        m.output.extend(name(o) for o in n.output)
        keep.append(m)
    # 4. Scales of tensors between an op and its pass-through consumer (a Conv before Relu).
    changed = True
    while changed:
        changed = False
        for m in keep:
            if m.op_type in PASS_THROUGH and m.output[0] in scales:
                for i in m.input[:1]:
                    if i and i not in scales and i not in new_inits and i not in inits:
                        scales[i] = scales[m.output[0]]
                        changed = True
    used = {i for m in keep for i in m.input}
    initializers = [numpy_helper.from_array(v, k) for k, v in new_inits.items() if k in used]
    initializers += [numpy_helper.from_array(v, k) for k, v in inits.items()
                     if k in used and k not in new_inits]
    float_io = lambda vi: helper.make_tensor_value_info(  # noqa: E731
        vi.name, TensorProto.FLOAT, [d.dim_value for d in vi.type.tensor_type.shape.dim])
    graph = helper.make_graph(keep, g.name, [float_io(i) for i in graph_inputs],
                              [float_io(o) for o in g.output], initializers)
    graph.doc_string = f"{g.name}: float, no Q/DQ (loadables/qdq_to_iq.py); build with the calibration cache."
    out = helper.make_model(graph, producer_name="orin-exec loadables/qdq_to_iq.py",
                            opset_imports=list(model.opset_import))
    out.ir_version = model.ir_version
    onnx.checker.check_model(out, full_check=True)
    tensors = {o for m in keep for o in m.output} | {i.name for i in graph_inputs}
    missing = sorted(t for t in tensors if t not in scales)
    if missing:
        raise TranslateError(f"no scale for {', '.join(missing)} (not between Q/DQ nodes)")
    return out, {t: scales[t] for t in sorted(tensors)}


def cache_text(scales: dict, trt_version: str) -> str:
    lines = [f"TRT-{trt_version}-EntropyCalibration2"]
    for t, s in scales.items():
        lines.append(f"{t}: {struct.unpack('<I', struct.pack('<f', s))[0]:08x}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("--out-dir", type=Path, default=Path("."))
    p.add_argument("--trt-version", default="8600", help="cache header version, e.g. 8602")
    a = p.parse_args(argv)
    try:
        model, scales = translate(onnx.load(str(a.model)))
    except (TranslateError, KeyError, OSError, onnx.checker.ValidationError) as e:
        print(f"qdq_to_iq.py: {a.model}: {e}", file=sys.stderr)
        return 1
    a.out_dir.mkdir(parents=True, exist_ok=True)
    stem = a.model.name.removesuffix(".onnx")
    onnx_path = a.out_dir / f"{stem}.noqdq.onnx"
    cache_path = a.out_dir / f"{stem}.calib.cache"
    onnx_path.write_bytes(model.SerializeToString(deterministic=True))
    cache_path.write_text(cache_text(scales, a.trt_version))
    print(onnx_path)
    print(cache_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
