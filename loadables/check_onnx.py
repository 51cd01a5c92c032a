#!/usr/bin/env python3
"""Validate loadables/export_onnx.py without TensorRT: run the exported ONNX models with
onnxruntime and compare them with the SIL interpreter's results.

    .venv-onnx/bin/python loadables/check_onnx.py [--sil-tool PATH] [--scenes N]

Needs numpy, onnx and onnxruntime (tested: Python 3.11.7, numpy 2.4.6, onnx 1.23.2,
onnxruntime 1.31.1). Exports aeb_detector.toml into a temporary directory with
export_onnx.py and runs, on the golden input (loadables/aeb_detector.golden_*.bin) and on
the scenes that sil/loadable/tests/aeb_detector.rs renders (obstacle every 5 cm from 5 m to
60 m with one and with two shadow rows, plus no obstacle):

  qdq             the exported NAME.qdq.onnx (the default --ties=half-up): what ships;
  qdq-ties-engine the same with --ties=engine (description biases, onnxruntime's
                  round-half-to-even at ties): how far plain Q/DQ arithmetic is from the SIL;
  qdq-float-bias-ort-optimised
                  NAME.qdq.onnx with --float-bias (the form build_real_loadable.sh gives
                  TensorRT >= 11) run with onnxruntime's graph optimisations, which round the
                  float bias to the accumulator step (input x weight scale) as an int8 engine
                  does, dropping the tie nudge;
  trt-iq-emulated NAME.qdq.onnx with every output channel's weights requantised to the full
                  int8 range and float biases, as TensorRT's implicit quantisation treats the
                  NAME.noqdq.onnx + calib cache build: an ESTIMATE of the DLA build, not a
                  TensorRT run (the DLA's own rounding and fixed-point rescaling are not modelled).

All but the third run without onnxruntime's graph optimisations, i.e. op by op as the ONNX
semantics say.

The reference is a numpy port of the SIL interpreter (sil/loadable/src/exec.rs); it must
reproduce the golden output byte for byte, and with --sil-tool (the `build-loadable` binary)
it is also compared with the Rust interpreter on every scene. Reports, per output, the
exact-match fraction and the maximum absolute difference, and what the application uses:
the presence decision (presence[1] > presence[0], i.e. the argmax) and the lowest map row with
a score > 32. Exit status 1 if the reference does not match the golden output, if `qdq` is not
bit-exact, or if any variant changes a presence decision or a lowest row on any scene.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # no loadables/__pycache__
import export_onnx as ex  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

THRESHOLD = 32  # obstacle_map cell is an obstacle when score > THRESHOLD (manifest.toml)

# ---------------------------------------------------------------------------------------
# The SIL interpreter in numpy (sil/loadable/src/exec.rs), on dense int64 (c, h, w) arrays.


def _requantize(acc, multiplier, shift):
    v = acc * multiplier
    if shift > 0:
        v = (v + (1 << (shift - 1))) >> shift  # arithmetic shift: rounding half up
    return np.clip(v, -128, 127)


def _windows(x, kernel, stride, pad, fill):
    """Yields (dy, dx, patch, valid) for every kernel tap over the padded input."""
    c, h, w = x.shape
    kh, kw = kernel
    sh, sw = stride
    pt, pl, pb, pr = pad
    xp = np.full((c, h + pt + pb, w + pl + pr), fill, np.int64)
    xp[:, pt:pt + h, pl:pl + w] = x
    vp = np.zeros((h + pt + pb, w + pl + pr), bool)
    vp[pt:pt + h, pl:pl + w] = True
    oh = (h + pt + pb - kh) // sh + 1
    ow = (w + pl + pr - kw) // sw + 1
    for dy in range(kh):
        for dx in range(kw):
            ys = slice(dy, dy + sh * (oh - 1) + 1, sh)
            xs = slice(dx, dx + sw * (ow - 1) + 1, sw)
            yield dy, dx, xp[:, ys, xs], vp[ys, xs]


def sil_run(net: ex.Network, inputs: dict) -> dict:
    t = {k: np.asarray(v, np.int64) for k, v in inputs.items()}
    for l in net.layers:
        x = t[l.input]
        if l.op in ("conv2d", "dense"):
            acc = np.zeros((l.out_shape.c, l.out_shape.h, l.out_shape.w), np.int64)
            acc += l.bias[:, None, None]
            for dy, dx, patch, _ in _windows(x, l.kernel, l.stride, l.pad, 0):
                acc += np.einsum("oc,chw->ohw", l.weights[:, :, dy, dx], patch)
            if np.abs(acc).max() >= 2**31:
                raise SystemExit(f"{l.name}: accumulator leaves i32 (saturation order not modelled)")
            y = _requantize(acc, l.multiplier, l.shift)
            t[l.output] = np.maximum(y, 0) if l.relu else y
        elif l.op == "relu":
            t[l.output] = np.maximum(x, 0)
        elif l.op == "maxpool":
            m = None
            for _, _, patch, _ in _windows(x, l.kernel, l.stride, l.pad, -(2**40)):
                m = patch if m is None else np.maximum(m, patch)
            t[l.output] = m
        elif l.op == "avgpool":
            s = cnt = 0
            for _, _, patch, valid in _windows(x, l.kernel, l.stride, l.pad, 0):
                s = s + patch
                cnt = cnt + valid.astype(np.int64)
            d = cnt << l.shift
            t[l.output] = np.clip((2 * s * l.multiplier + d) // (2 * d), -128, 127)
        else:
            raise SystemExit(f"unknown op {l.op}")
    return {name: t[src] for name, src, _ in net.outputs}


# ---------------------------------------------------------------------------------------
# The synthetic scene of sil/loadable/tests/common/mod.rs.

CAM_W, CAM_H, HORIZON, CENTRE = 128, 96, 24, 64


def _round_div(a, b):
    return (2 * a + b) // (2 * b)


def render(d_mm, shadow_rows):
    img = np.zeros((CAM_H, CAM_W), np.int64)
    for y in range(CAM_H):
        img[y, :] = 170 if y < HORIZON else 60 + (y - HORIZON) // 3
        if y >= HORIZON:
            off = (y - HORIZON) * 3 // 2
            for x in (CENTRE - off, CENTRE + off):
                img[y, min(max(x, 0), CAM_W - 1)] = 140
    if d_mm is not None:
        yb = HORIZON + _round_div(240_000, d_mm)
        height = _round_div(300_000, d_mm)
        width = _round_div(360_000, d_mm)
        x0 = CENTRE - width // 2
        xs = slice(max(x0, 0), min(x0 + width, CAM_W))
        img[max(yb - height, 0):min(yb, CAM_H), xs] = 230
        if yb < CAM_H:
            img[max(yb, 0):min(yb + shadow_rows, CAM_H), xs] = 20
    return img


def preprocess(cam):
    s = cam[0::2, 0::2] + cam[0::2, 1::2] + cam[1::2, 0::2] + cam[1::2, 1::2]
    return ((s + 2) // 4 - 128).astype(np.int64)  # 48 x 64


# ---------------------------------------------------------------------------------------
# I/O buffers as the manifest describes them (strided kDLA_LINEAR).


def unpack(buf: bytes, desc: dict) -> np.ndarray:
    _, c, h, w = desc["shape"]
    st = desc["strides"]
    a = np.frombuffer(buf, np.int8)
    return np.array([[a[ci * st[2] + y * st[1]: ci * st[2] + y * st[1] + w] for y in range(h)]
                     for ci in range(c)], np.int64)


def pack(x: np.ndarray, desc: dict) -> bytes:
    _, c, h, w = desc["shape"]
    st = desc["strides"]
    out = np.zeros(desc["size"], np.int8)
    for ci in range(c):
        for y in range(h):
            out[ci * st[2] + y * st[1]: ci * st[2] + y * st[1] + w] = x[ci, y]
    return out.tobytes()


def lowest_row(m):
    rows = [r for r in range(m.shape[-2]) if (m[..., r, :] > THRESHOLD).any()]
    return max(rows) if rows else None


def aeb_view(out):
    """What the AEB application reads: presence decision, argmax, lowest row with score > 32."""
    p = out["presence"].ravel()
    return bool(p[1] > p[0]), int(np.argmax(p)), lowest_row(out["obstacle_map"][0])


# ---------------------------------------------------------------------------------------


class Stats:
    def __init__(self, names, app=None):
        self.app = app
        self.n = {k: 0 for k in names}
        self.same = {k: 0 for k in names}
        self.maxdiff = {k: 0 for k in names}
        self.cases = self.cases_exact = self.app_ok = 0
        self.first_app_bad = None

    def add(self, label, got, ref):
        exact = True
        for k in self.n:
            d = np.abs(got[k].astype(np.int64) - ref[k])
            self.n[k] += d.size
            self.same[k] += int((d == 0).sum())
            self.maxdiff[k] = max(self.maxdiff[k], int(d.max()))
            exact &= bool((d == 0).all())
        self.cases += 1
        self.cases_exact += exact
        if self.app:
            ok = self.app(got) == self.app(ref)
            self.app_ok += ok
            if not ok and self.first_app_bad is None:
                self.first_app_bad = (label, self.app(got), self.app(ref))

    def line(self):
        parts = [f"{k}: exact {self.same[k] / self.n[k]:.4%} ({self.same[k]}/{self.n[k]}), "
                 f"max |diff| {self.maxdiff[k]}" for k in self.n]
        app = (f"; presence decision + lowest row agree on {self.app_ok}/{self.cases}" if self.app else "")
        return f"{self.cases_exact}/{self.cases} bit-exact; " + "; ".join(parts) + app


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--description", type=Path, default=HERE / "aeb_detector.toml",
                   help="network description (default aeb_detector.toml); golden files and scenes "
                        "are used when the manifest lists it, otherwise random inputs only")
    p.add_argument("--manifest", type=Path, default=HERE / "manifest.toml")
    p.add_argument("--sil-tool", type=Path, help="build-loadable binary: also check the numpy "
                   "reference against the Rust interpreter (`--run`) on every scene")
    p.add_argument("--step-mm", type=int, default=50, help="distance step of the scenes (default 50)")
    p.add_argument("--random", type=int, default=400, help="random inputs (default 400)")
    a = p.parse_args(argv)

    import onnxruntime as ort

    t0 = time.time()
    net = ex.parse_description(a.description.read_text())
    man = tomllib.loads(a.manifest.read_text())
    entry = next((e for e in man["loadable"] if e["description"] == a.description.name), None)
    out_names = [n for n, _, _ in net.outputs]
    is_aeb = (entry is not None and set(out_names) == {"obstacle_map", "presence"}
              and [n for n, _ in net.inputs] == ["image"])
    app = aeb_view if is_aeb else None
    failures = []

    with tempfile.TemporaryDirectory(prefix="check_onnx-") as tmpdir:
        tmp = Path(tmpdir)
        paths = ex.export(a.description, tmp / "half-up", quiet=True)
        paths_engine = ex.export(a.description, tmp / "engine", ties="engine", quiet=True)
        paths_fb = ex.export(a.description, tmp / "float-bias", float_bias=True, quiet=True)
        ops, scales = ex.lower(net, "half-up", lambda m: None)
        emu_path = tmp / "trt-iq-emulated.onnx"
        emu_path.write_bytes(ex.build_qdq(net, ops, scales, trt_weights=True).SerializeToString())

        def session(path, optimise=False):
            # Without graph optimisations onnxruntime evaluates the ONNX semantics op by op.
            so = ort.SessionOptions()
            so.log_severity_level = 3
            so.intra_op_num_threads = 1  # a tiny network: threads only spin
            so.inter_op_num_threads = 1
            if not optimise:
                so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

        sessions = {
            "qdq": session(paths["qdq"]),
            "qdq-ties-engine": session(paths_engine["qdq"]),
            "qdq-float-bias-ort-optimised": session(paths_fb["qdq"], optimise=True),
            "trt-iq-emulated": session(emu_path),
        }

    def run(sess, inputs):
        feed = {k: v.astype(np.int8)[None] for k, v in inputs.items()}  # (c, h, w) -> (1, c, h, w)
        return dict(zip(out_names, sess.run(out_names, feed)))

    def reference(inputs):
        return {k: v[None] for k, v in sil_run(net, inputs).items()}

    def section(title, cases, check_tool=None, app_required=True):
        stats = {name: Stats(out_names, app) for name in sessions}
        for label, inputs in cases:
            ref = reference(inputs)
            if check_tool:
                check_tool(label, inputs, ref)
            for name, sess in sessions.items():
                stats[name].add(label, run(sess, inputs), ref)
        print(f"\n{title}:")
        for name, st in stats.items():
            print(f"  {name}: {st.line()}")
            if st.first_app_bad and app_required:
                print(f"    first application-level difference (got, SIL): {st.first_app_bad}")
                failures.append(f"{title}: {name}: application view differs on {st.cases - st.app_ok} cases")
        if stats["qdq"].cases_exact != stats["qdq"].cases:
            failures.append(f"{title}: qdq is not bit-exact")
        return stats

    in_descs = {d["name"]: d for d in entry["input"]} if entry else {}
    if entry is not None:
        # 1. The numpy reference against the golden files.
        gin = {d["name"]: unpack((HERE / f).read_bytes(), d) for d, f in zip(entry["input"], entry["golden_input"])}
        graw, gold, off = (HERE / entry["golden_output"]).read_bytes(), {}, 0
        for d in entry["output"]:
            gold[d["name"]] = unpack(graw[off:off + d["size"]], d)[None]
            off += d["size"]
        golden_ok = all(np.array_equal(reference(gin)[k], gold[k]) for k in gold)
        print(f"numpy SIL reference vs golden output: {'bit-exact' if golden_ok else 'DIFFERENT'}")
        if not golden_ok:
            failures.append("numpy reference differs from the golden output")
        # 2. Golden input.
        if is_aeb:
            v = aeb_view(gold)
            print(f"golden output: presence {gold['presence'].ravel().tolist()}, obstacle {v[0]}, "
                  f"lowest row with score > {THRESHOLD}: {v[2]}")
        section(f"golden input ({entry['golden_scene']})", [("golden", gin)])

    def tool(label, inputs, ref):
        """Compares the numpy reference with the Rust interpreter (build-loadable --run)."""
        with tempfile.TemporaryDirectory() as td:
            fin, fout = Path(td) / "in.bin", Path(td) / "out.bin"
            fin.write_bytes(pack(inputs["image"], in_descs["image"]))
            subprocess.run([str(a.sil_tool), "--run", str(HERE / entry["file"]), "--input", str(fin),
                            "-o", str(fout)], check=True, capture_output=True)
            raw, off, rust = fout.read_bytes(), 0, {}
            for dsc in entry["output"]:
                rust[dsc["name"]] = unpack(raw[off:off + dsc["size"]], dsc)[None]
                off += dsc["size"]
            if not all(np.array_equal(rust[k], ref[k]) for k in ref):
                failures.append(f"numpy reference differs from build-loadable --run on {label}")

    use_tool = tool if (a.sil_tool and is_aeb) else None
    tool_note = "; numpy reference checked against build-loadable --run on each" if use_tool else ""
    if is_aeb:
        # 3. The scenes of sil/loadable/tests/aeb_detector.rs.
        scenes = [(f"d={d}mm shadow={s}", {"image": preprocess(render(d, s))[None]})
                  for s in (1, 2) for d in range(5_000, 60_001, a.step_mm)]
        scenes.append(("no obstacle", {"image": preprocess(render(None, 2))[None]}))
        section(f"scenes ({len(scenes)}: 5..60 m every {a.step_mm} mm with 1 and 2 shadow rows, "
                f"and none{tool_note})", scenes, use_tool)

    # 4. Random inputs: the scenes saturate most features; uniform int8 noise (and noise
    # smoothed to give mid-range features) exercises rounding ties and every weight.
    rng = np.random.default_rng(20240611)
    cases = []
    for i in range(a.random):
        inputs = {}
        for name, sh in net.inputs:
            x = rng.integers(-128, 128, size=(sh.c, sh.h, sh.w))
            if i % 2:
                x = (x + np.roll(x, 1, -1) + np.roll(x, 1, -2) + np.roll(x, (1, 1), (-2, -1))) // 4
            inputs[name] = x
        cases.append((f"random {i}", inputs))
    if cases:
        section(f"random inputs ({a.random}, seeded; half uniform int8, half 2x2-smoothed{tool_note})",
                cases, use_tool, app_required=False)

    print(f"\n{time.time() - t0:.1f} s")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
