#!/usr/bin/env python3
"""Generate the small ONNX networks that test the SIL DLA's ONNX interpreter (sil/onnx).

    python3 loadables/make_test_onnx.py [--out-dir loadables]

writes, byte for byte the same on every run (fixed seed, deterministic serialisation):

  test/ops.onnx            every operator the AEB detector does not use, in Q/DQ form with
                           int8 I/O: per-channel int8 weights and int32 biases, grouped,
                           strided and dilated Conv, AveragePool with padding excluded and
                           included (window counts that are not powers of two), MaxPool,
                           GlobalAveragePool (over 16 and 42 elements), GlobalMaxPool, Add
                           (same shape and broadcast), Concat, Resize nearest (asymmetric +
                           floor, half_pixel + round_prefer_floor, asymmetric +
                           round_prefer_floor with ties, align_corners + round_prefer_ceil
                           with sizes, pytorch_half_pixel + ceil),
                           Flatten, Gemm (transB, bias), MatMul, Reshape, Identity,
                           non-zero zero points and scales that are not powers of two;
  test/unsupported_op.onnx a network with a Sigmoid node (`head/sigmoid`): the SIL refuses it
                           at load, naming the node;
  examples/tiny.onnx       the smallest useful DLA network, for a user project template:
                           int8 [1, 1, 8, 8] -> Conv 3x3 (box blur, padding 1) -> Relu -> int8
                           [1, 1, 8, 8], output = round(sum of the 3x3 neighbourhood / 8),
                           negative sums give 0.

Needs numpy and onnx (tested: Python 3.11.7, numpy 2.4.6, onnx 1.23.2). loadables/check_onnx.py
regenerates them and fails if a committed file differs, then runs each with onnxruntime and
the SIL interpreter and compares the outputs byte for byte.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

PRODUCER = "orin-exec loadables/make_test_onnx.py"
OPSET = 13
IR_VERSION = 7
SEED = 20260612


class G:
    """A graph under construction with Q/DQ helpers."""

    def __init__(self, rng):
        self.rng, self.nodes, self.inits, self.n = rng, [], [], 0

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, name, **attrs):
        out = f"{name}/out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def dq(self, x8, scale, zp=0, name=None):
        name = name or f"{x8}/dequantize"
        s = self.init(f"{name}/scale", np.array(scale, np.float32))
        z = self.init(f"{name}/zero_point", np.array(zp, np.int8))
        return self.node("DequantizeLinear", [x8, s, z], name)

    def q(self, x, scale, name, zp=0, out=None):
        s = self.init(f"{name}/scale", np.array(scale, np.float32))
        z = self.init(f"{name}/zero_point", np.array(zp, np.int8))
        o = out or f"{name}/q"
        self.nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [o], name=name))
        return o

    def weights(self, name, w8, scales, axis=0):
        """int8 weights behind a (per-axis when scales is a list) DequantizeLinear."""
        wq = self.init(f"{name}/weight_quantized", w8.astype(np.int8))
        per_axis = np.ndim(scales) > 0
        s = self.init(f"{name}/weight/scale", np.array(scales, np.float32))
        z = self.init(f"{name}/weight/zero_point",
                      np.zeros(len(scales), np.int8) if per_axis else np.array(0, np.int8))
        attrs = {"axis": axis} if per_axis else {}
        return self.node("DequantizeLinear", [wq, s, z], f"{name}/weight/dequantize", **attrs)

    def bias(self, name, b32, scales):
        """int32 bias at scale input scale x weight scale (per output channel)."""
        bq = self.init(f"{name}/bias_quantized", b32.astype(np.int32))
        per_axis = np.ndim(scales) > 0
        s = self.init(f"{name}/bias/scale", np.array(scales, np.float32))
        z = self.init(f"{name}/bias/zero_point",
                      np.zeros(len(scales), np.int32) if per_axis else np.array(0, np.int32))
        attrs = {"axis": 0} if per_axis else {}
        return self.node("DequantizeLinear", [bq, s, z], f"{name}/bias/dequantize", **attrs)

    def i8(self, shape, lo=-128, hi=128):
        return self.rng.integers(lo, hi, size=shape).astype(np.int8)


def model(g: G, name, inputs, outputs, doc) -> onnx.ModelProto:
    graph = helper.make_graph(g.nodes, name, inputs, outputs, g.inits)
    graph.doc_string = doc
    m = helper.make_model(graph, producer_name=PRODUCER, producer_version="1",
                          opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = IR_VERSION
    onnx.checker.check_model(m, full_check=True)
    return m


def io(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.INT8, shape)


def ops_model() -> onnx.ModelProto:
    g = G(np.random.default_rng(SEED))
    sx = 1 / 16
    x = g.dq("x", sx)

    # conv1: 3 -> 6, 3x3, pad 1, per-channel weights and int32 bias, Relu.
    ws1 = [1 / 64, 3 / 128, 1 / 32, 5 / 256, 1 / 64, 3 / 64]
    w1 = g.weights("conv1", g.i8((6, 3, 3, 3), -40, 40), ws1)
    b1 = g.bias("conv1", g.rng.integers(-3000, 3000, 6), [sx * s for s in ws1])
    c1 = g.node("Conv", [x, w1, b1], "conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    c1 = g.node("Relu", [c1], "conv1/relu")
    s1 = 1 / 8
    c1 = g.q(c1, s1, "conv1/quantize", out="c1")  # [1, 6, 8, 8]
    c1f = g.dq(c1, s1)

    # conv2: grouped (3 groups), stride 2, dilation 2, asymmetric pads; no Relu.
    w2 = g.weights("conv2", g.i8((6, 2, 3, 3), -60, 60), 1 / 32)
    b2 = g.bias("conv2", g.rng.integers(-500, 500, 6), s1 / 32)
    c2 = g.node("Conv", [c1f, w2, b2], "conv2", kernel_shape=[3, 3], group=3, strides=[2, 2],
                dilations=[2, 2], pads=[2, 1, 1, 2])
    s2 = 1 / 4
    c2 = g.q(c2, s2, "conv2/quantize", zp=3, out="c2")  # [1, 6, 4, 4]

    # Average pools: padding excluded (counts 4, 6, 9) and included (always 9).
    p1 = g.node("AveragePool", [c1f], "avgpool_excl", kernel_shape=[3, 3], strides=[2, 2],
                pads=[1, 1, 1, 1], count_include_pad=0)
    p1 = g.q(p1, 3 / 32, "avgpool_excl/quantize", out="p1")  # [1, 6, 4, 4]
    p2 = g.node("AveragePool", [c1f], "avgpool_incl", kernel_shape=[3, 3], strides=[2, 2],
                pads=[1, 1, 1, 1], count_include_pad=1)
    p2 = g.q(p2, 1 / 16, "avgpool_incl/quantize", out="p2")

    # Add: same shapes, then a broadcast per-channel constant.
    a1 = g.node("Add", [g.dq(c2, s2, zp=3), g.dq(p1, 3 / 32)], "add")
    bc = g.init("add_bias/quantized", g.i8((1, 6, 1, 1), -20, 20))
    bcs = g.init("add_bias/scale", np.array(1 / 8, np.float32))
    bcz = g.init("add_bias/zero_point", np.array(0, np.int8))
    bcf = g.node("DequantizeLinear", [bc, bcs, bcz], "add_bias/dequantize")
    a1 = g.node("Add", [a1, bcf], "add_broadcast")
    a1 = g.node("Add", [a1, g.dq(p2, 1 / 16)], "add3")
    sa = 1 / 4
    a1 = g.q(a1, sa, "add/quantize", out="a1")  # [1, 6, 4, 4]

    # The second input: resized four ways.
    sy = 1 / 8
    y = g.dq("y", sy, zp=-5)  # [1, 2, 4, 4]
    empty = g.init("resize/roi", np.zeros(0, np.float32))
    up2 = g.init("resize/scales_2x", np.array([1, 1, 2, 2], np.float32))
    r1 = g.node("Resize", [y, empty, up2], "resize_asym_floor", mode="nearest",
                coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    r2 = g.node("Resize", [y, empty, up2], "resize_half_pixel", mode="nearest")
    sizes = g.init("resize/sizes", np.array([1, 2, 7, 6], np.int64))
    r3 = g.node("Resize", [y, empty, "", sizes], "resize_align_corners", mode="nearest",
                coordinate_transformation_mode="align_corners", nearest_mode="round_prefer_ceil")
    up3 = g.init("resize/scales_3x", np.array([1, 1, 3, 1.5], np.float32))
    r4 = g.node("Resize", [y, empty, up3], "resize_pytorch_ceil", mode="nearest",
                coordinate_transformation_mode="pytorch_half_pixel", nearest_mode="ceil")
    r5 = g.node("Resize", [y, empty, up2], "resize_asym_prefer_floor", mode="nearest",
                coordinate_transformation_mode="asymmetric")  # ties at every odd output
    up = g.node("Concat", [r1, r2, r5], "concat_up", axis=1)
    up = g.q(up, sy, "up/quantize", zp=-5, out="up")  # [1, 6, 8, 8]
    r3q = g.q(r3, sy, "up7x6/quantize", out="up7x6")  # [1, 2, 7, 6]
    r4q = g.q(r4, sy, "up12x6/quantize", out="up12x6")  # [1, 2, 12, 6]

    # Concat of a1 and y on channels, MaxPool, Global pools.
    cat = g.node("Concat", [g.dq(a1, sa), y], "concat", axis=-3)  # [1, 8, 4, 4]
    mp = g.node("MaxPool", [cat], "maxpool", kernel_shape=[2, 2], strides=[2, 2])
    gap = g.node("GlobalAveragePool", [cat], "gap16")
    gmp = g.node("GlobalMaxPool", [cat], "gmp")
    gap42 = g.node("GlobalAveragePool", [g.dq(r3q, sy)], "gap42")
    pools = g.node("Concat", [gap, gmp, gap42], "concat_pools", axis=1)  # [1, 18, 1, 1]
    g.q(pools, 1 / 16, "pools/quantize", out="pools")

    # Fully connected head: Flatten, Gemm (transB, bias), MatMul, Reshape, Identity.
    mpq = g.q(mp, sa, "maxpool/quantize", out="mp")  # [1, 8, 2, 2]
    fl = g.node("Flatten", [g.dq(mpq, sa)], "flatten", axis=1)  # [1, 32]
    wg = g.weights("fc1", g.i8((10, 32), -50, 50), 1 / 64)
    bg = g.bias("fc1", g.rng.integers(-800, 800, 10), sa / 64)
    fc = g.node("Gemm", [fl, wg, bg], "fc1", transB=1)
    fc = g.node("Relu", [fc], "fc1/relu")
    fcq = g.q(fc, 1 / 2, "fc1/quantize", out="fc1")  # [1, 10]
    wm = g.weights("fc2", g.i8((10, 4), -90, 90), 3 / 64)
    mm = g.node("MatMul", [g.dq(fcq, 1 / 2), wm], "fc2")  # [1, 4]
    shape = g.init("head/shape", np.array([1, -1, 1, 1], np.int64))
    mm = g.node("Reshape", [mm, shape], "head/reshape")
    mm = g.node("Identity", [mm], "head/identity")
    g.q(mm, 0.1, "head/quantize", out="head")  # [1, 4, 1, 1], scale 0.1

    outputs = [io("c2", [1, 6, 4, 4]), io("a1", [1, 6, 4, 4]), io("up", [1, 6, 8, 8]),
               io("up7x6", [1, 2, 7, 6]), io("up12x6", [1, 2, 12, 6]), io("pools", [1, 18, 1, 1]),
               io("head", [1, 4, 1, 1])]
    return model(g, "ops", [io("x", [1, 3, 8, 8]), io("y", [1, 2, 4, 4])], outputs,
                 "Operator coverage for the SIL DLA's ONNX interpreter (random weights, fixed seed).")


def unsupported_model() -> onnx.ModelProto:
    g = G(np.random.default_rng(SEED))
    x = g.dq("x", 1 / 16)
    w = g.weights("conv", g.i8((1, 1, 3, 3), -8, 8), 1 / 8)
    c = g.node("Conv", [x, w], "conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    s = g.node("Sigmoid", [c], "head/sigmoid")
    g.q(s, 1 / 128, "head/quantize", out="y")
    return model(g, "unsupported_op", [io("x", [1, 1, 4, 4])], [io("y", [1, 1, 4, 4])],
                 "A Sigmoid: not an operator the SIL DLA runs (load must fail naming head/sigmoid).")


def tiny_model() -> onnx.ModelProto:
    g = G(np.random.default_rng(SEED))
    x = g.dq("input", 1.0)
    w = g.weights("blur", np.ones((1, 1, 3, 3), np.int8), 1 / 8)
    c = g.node("Conv", [x, w], "blur", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    c = g.node("Relu", [c], "blur/relu")
    g.q(c, 1.0, "output/quantize", out="output")
    return model(g, "tiny", [io("input", [1, 1, 8, 8])], [io("output", [1, 1, 8, 8])],
                 "int8 [1,1,8,8] -> 3x3 box sum / 8 (padding 1) -> Relu -> int8: a template network.")


MODELS = {
    "test/ops.onnx": ops_model,
    "test/unsupported_op.onnx": unsupported_model,
    "examples/tiny.onnx": tiny_model,
}


def write_all(out_dir: Path) -> list:
    paths = []
    for rel, make in MODELS.items():
        p = out_dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(make().SerializeToString(deterministic=True))
        paths.append(p)
    return paths


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent)
    a = p.parse_args(argv)
    for path in write_all(a.out_dir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
