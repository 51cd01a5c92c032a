#!/usr/bin/env python3
"""Check the DLA networks without TensorRT, with onnxruntime: the committed ONNX files are
reproducible, the AEB export agrees with its description's int8 arithmetic, and the SIL DLA's
ONNX interpreter (sil/onnx, `sil-onnx-run`) is bit-exact with onnxruntime on every committed
network.

    cargo build -p sil-onnx --bin sil-onnx-run
    .venv-onnx/bin/python loadables/check_onnx.py --sil-onnx-run target/debug/sil-onnx-run

Needs numpy, onnx and onnxruntime (tested: Python 3.11.7, numpy 2.4.6, onnx 1.23.2,
onnxruntime 1.31.1). Four parts:

1. Reproducibility: loadables/aeb_detector.onnx and loadables/test/aeb_detector_stats.onnx
   are re-exported from aeb_detector.toml with export_onnx.py --onnx, and the networks of
   make_test_onnx.py (test/ops.onnx, test/unsupported_op.onnx, examples/tiny.onnx) are
   regenerated; every file must be byte-identical to the committed one.

2. The AEB export against the description: aeb_detector.toml exported into a temporary
   directory and run, on the golden input (loadables/aeb_detector.golden_*.bin), on the
   scenes of the AEB demo (obstacle every 5 cm from 5 m to 60 m with one and with two shadow
   rows, plus no obstacle) and on seeded random images, against a numpy port of the
   description's int8 arithmetic (loadables/README.md, "Network description"):

  qdq             the exported Q/DQ model (the default --ties=half-up): what ships;
  qdq-ties-engine the same with --ties=engine (description biases, onnxruntime's
                  round-half-to-even at ties): how far plain Q/DQ arithmetic is from the
                  description's half-up rounding;
  qdq-float-bias-ort-optimised
                  the Q/DQ model with --float-bias (the form build_real_loadable.sh gives
                  TensorRT >= 11) run with onnxruntime's graph optimisations, which round the
                  float bias to the accumulator step (input x weight scale) as an int8 engine
                  does, dropping the tie nudge;
  trt-iq-emulated the Q/DQ model with every output channel's weights requantised to the full
                  int8 range and float biases, as TensorRT's implicit quantisation treats the
                  NAME.noqdq.onnx + calib cache build: an ESTIMATE of the DLA build, not a
                  TensorRT run (the DLA's own rounding and fixed-point rescaling are not modelled).

   All but the third run without onnxruntime's graph optimisations, i.e. op by op as the
   ONNX semantics say. The numpy reference must reproduce the golden output byte for byte.
   Reports, per output, the exact-match fraction and the maximum absolute difference, and
   what the application uses: the presence decision (presence[1] > presence[0]) and the
   lowest map row with a score > 32.

3. The SIL interpreter against onnxruntime (ORT_DISABLE_ALL, op by op): every committed
   network (aeb_detector.onnx, test/aeb_detector_stats.onnx, test/ops.onnx,
   examples/tiny.onnx) on --random seeded inputs (half uniform int8, half 2x2-smoothed), and
   the AEB network also on the golden input and every scene; `sil-onnx-run` runs all cases of
   a network in one batch. Outputs must be equal byte for byte. The golden input in the DLA
   buffer layout (--layout dla_linear) must give the golden output file, and
   test/unsupported_op.onnx must be refused naming its node.

4. The TensorRT < 11 input built from the network (loadables/qdq_to_iq.py, what
   build_real_loadable.sh gives trtexec): aeb_detector.onnx translated into a float model and
   a calibration cache must compute what export_onnx.py's float model computes (onnxruntime,
   seeded random images) with the same set of scales; examples/tiny.onnx must translate.

Exit status 1 if a committed file is not reproducible, the translation differs, the numpy reference does not match the
golden output, `qdq` is not bit-exact with the reference, a variant changes a presence
decision or a lowest row on a scene, or the SIL interpreter differs from onnxruntime anywhere.
"""

from __future__ import annotations

import argparse
import shutil
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
# The statistics declaration of loadables/test/aeb_detector_stats.onnx (the SIL cuDLA tests).
AEB_STATS = "layerwise; heads=map_head..presence_head"
# The networks the SIL interpreter is checked on.
SIL_MODELS = ["aeb_detector.onnx", "test/aeb_detector_stats.onnx", "test/ops.onnx", "examples/tiny.onnx"]

# ---------------------------------------------------------------------------------------
# The description's int8 arithmetic in numpy (loadables/README.md, "Arithmetic"), on dense
# int64 (c, h, w) arrays.


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
# The synthetic scene of examples/aeb/README.md (as sil/onnx/tests/common/mod.rs renders it).

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


def session(path, optimise=False):
    """An onnxruntime session; without graph optimisations it evaluates the ONNX semantics op
    by op."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1  # tiny networks: threads only spin
    so.inter_op_num_threads = 1
    if not optimise:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def random_cases(shapes, n, seed):
    """n seeded int8 inputs (dicts name -> (c, h, w)): half uniform, half 2x2-smoothed (the
    smoothed ones give mid-range features and rounding ties)."""
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        inputs = {}
        for name, (c, h, w) in shapes:
            x = rng.integers(-128, 128, size=(c, h, w))
            if i % 2:
                x = (x + np.roll(x, 1, -1) + np.roll(x, 1, -2) + np.roll(x, (1, 1), (-2, -1))) // 4
            inputs[name] = x
        cases.append((f"random {i}", inputs))
    return cases


def aeb_scenes(step_mm):
    scenes = [(f"d={d}mm shadow={s}", {"image": preprocess(render(d, s))[None]})
              for s in (1, 2) for d in range(5_000, 60_001, step_mm)]
    scenes.append(("no obstacle", {"image": preprocess(render(None, 2))[None]}))
    return scenes


def check_reproducible(entry, failures):
    """Part 1: the committed ONNX files are what the scripts generate."""
    import make_test_onnx as mk

    with tempfile.TemporaryDirectory(prefix="check_onnx-repro-") as td:
        tmp = Path(td)
        fresh = {
            entry["onnx"]: ex.export_qdq(HERE / entry["description"], tmp / "net.onnx", quiet=True),
            "test/aeb_detector_stats.onnx": ex.export_qdq(
                HERE / entry["description"], tmp / "stats.onnx", quiet=True,
                layer_statistics=AEB_STATS),
        }
        for path in mk.write_all(tmp / "gen"):
            fresh[str(path.relative_to(tmp / "gen"))] = path
        for rel, path in fresh.items():
            same = (HERE / rel).is_file() and (HERE / rel).read_bytes() == path.read_bytes()
            print(f"loadables/{rel}: {'reproduced byte for byte' if same else 'DIFFERS from a fresh export'}")
            if not same:
                failures.append(f"loadables/{rel} is not reproducible (regenerate it: loadables/README.md)")


def check_description(a, net, entry, failures):
    """Part 2: the AEB export against the description's int8 arithmetic."""
    out_names = [n for n, _, _ in net.outputs]
    is_aeb = set(out_names) == {"obstacle_map", "presence"} and [n for n, _ in net.inputs] == ["image"]
    app = aeb_view if is_aeb else None
    with tempfile.TemporaryDirectory(prefix="check_onnx-") as tmpdir:
        tmp = Path(tmpdir)
        paths = ex.export(a.description, tmp / "half-up", quiet=True)
        paths_engine = ex.export(a.description, tmp / "engine", ties="engine", quiet=True)
        paths_fb = ex.export(a.description, tmp / "float-bias", float_bias=True, quiet=True)
        ops, scales = ex.lower(net, "half-up", lambda m: None)
        emu_path = tmp / "trt-iq-emulated.onnx"
        emu_path.write_bytes(ex.build_qdq(net, ops, scales, trt_weights=True).SerializeToString())
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

    def section(title, cases, app_required=True):
        stats = {name: Stats(out_names, app) for name in sessions}
        for label, inputs in cases:
            ref = reference(inputs)
            for name, sess in sessions.items():
                stats[name].add(label, run(sess, inputs), ref)
        print(f"\n{title}:")
        for name, st in stats.items():
            print(f"  {name}: {st.line()}")
            if st.first_app_bad and app_required:
                print(f"    first application-level difference (got, description): {st.first_app_bad}")
                failures.append(f"{title}: {name}: application view differs on {st.cases - st.app_ok} cases")
        if stats["qdq"].cases_exact != stats["qdq"].cases:
            failures.append(f"{title}: qdq is not bit-exact")

    gin = golden_inputs(entry)
    gold = golden_outputs(entry)
    golden_ok = all(np.array_equal(reference(gin)[k], gold[k]) for k in gold)
    print(f"\nnumpy description reference vs golden output: {'bit-exact' if golden_ok else 'DIFFERENT'}")
    if not golden_ok:
        failures.append("numpy reference differs from the golden output")
    if is_aeb:
        v = aeb_view(gold)
        print(f"golden output: presence {gold['presence'].ravel().tolist()}, obstacle {v[0]}, "
              f"lowest row with score > {THRESHOLD}: {v[2]}")
    section(f"golden input ({entry['golden_scene']})", [("golden", gin)])
    if is_aeb:
        scenes = aeb_scenes(a.step_mm)
        section(f"scenes ({len(scenes)}: 5..60 m every {a.step_mm} mm with 1 and 2 shadow rows, and none)",
                scenes)
    cases = random_cases([(n, (s.c, s.h, s.w)) for n, s in net.inputs], a.random, 20240611)
    if cases:
        section(f"random inputs ({a.random}, seeded; half uniform int8, half 2x2-smoothed)", cases,
                app_required=False)


def golden_inputs(entry):
    return {d["name"]: unpack((HERE / f).read_bytes(), d) for d, f in zip(entry["input"], entry["golden_input"])}


def golden_outputs(entry):
    graw, gold, off = (HERE / entry["golden_output"]).read_bytes(), {}, 0
    for d in entry["output"]:
        gold[d["name"]] = unpack(graw[off:off + d["size"]], d)[None]
        off += d["size"]
    return gold


def sil_batch(tool, model, names_shapes, cases, td, layout="dense"):
    """Runs every case through `sil-onnx-run` in one batch; returns a list of output dicts."""
    import onnx

    outs = [o.name for o in onnx.load(str(model)).graph.output]
    args = []
    for name, _ in names_shapes:
        f = td / f"in-{name.replace('/', '_')}.bin"
        f.write_bytes(b"".join(c[name] for _, c in cases))
        args += ["--input", str(f)]
    out_dir = td / "out"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    r = subprocess.run([str(tool), str(model), "--layout", layout, *args, "--out", str(out_dir)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"sil-onnx-run {model.name}: {r.stderr.strip()}")
    raw = {o: (out_dir / f"{o.replace('/', '_')}.bin").read_bytes() for o in outs}
    n = len(cases)
    return [{o: raw[o][k * len(raw[o]) // n:(k + 1) * len(raw[o]) // n] for o in outs} for k in range(n)]


def check_sil(a, entry, failures):
    """Part 3: the SIL interpreter against onnxruntime, byte for byte."""
    import onnx

    tool = a.sil_onnx_run
    if tool is None or not tool.is_file():
        failures.append(f"sil-onnx-run not found at {tool}: build it (cargo build -p sil-onnx) and pass "
                        "--sil-onnx-run")
        return
    print(f"\nSIL interpreter ({tool}) vs onnxruntime, byte for byte:")
    with tempfile.TemporaryDirectory(prefix="check_onnx-sil-") as td:
        td = Path(td)
        for rel in SIL_MODELS:
            model = HERE / rel
            m = onnx.load(str(model))
            shapes = [(i.name, tuple(d.dim_value for d in i.type.tensor_type.shape.dim)) for i in m.graph.input]
            outs = [o.name for o in m.graph.output]
            cases = random_cases([(n, s[1:]) for n, s in shapes], a.sil_random, 20260612)
            if rel in (entry["onnx"], "test/aeb_detector_stats.onnx"):
                cases = [("golden", golden_inputs(entry))] + aeb_scenes(a.step_mm) + cases
            feeds = [(label, {n: inp[n].astype(np.int8).reshape(s) for n, s in shapes}) for label, inp in cases]
            sess = session(model)
            ref = [dict(zip(outs, sess.run(outs, f))) for _, f in feeds]
            got = sil_batch(tool, model, shapes, [(l, {n: x.tobytes() for n, x in f.items()}) for l, f in feeds], td)
            bad = [feeds[k][0] for k in range(len(feeds))
                   if any(got[k][o] != ref[k][o].astype(np.int8).tobytes() for o in outs)]
            elems = sum(int(ref[0][o].size) for o in outs) * len(feeds)
            print(f"  {rel}: {len(feeds) - len(bad)}/{len(feeds)} cases bit-exact ({elems} output bytes)"
                  + (f"; first difference: {bad[0]}" if bad else ""))
            if bad:
                failures.append(f"SIL interpreter differs from onnxruntime on {rel} ({len(bad)} cases)")
        # The golden input in the DLA's buffer layout gives the golden output file.
        model = HERE / entry["onnx"]
        golden = [("golden", {d["name"]: (HERE / f).read_bytes() for d, f in zip(entry["input"], entry["golden_input"])})]
        got = sil_batch(tool, model, [(d["name"], None) for d in entry["input"]], golden, td, layout="dla_linear")[0]
        raw = b"".join(got[d["name"]] for d in entry["output"])
        same = raw == (HERE / entry["golden_output"]).read_bytes()
        print(f"  {entry['onnx']} on the golden input, kDLA_LINEAR buffers: "
              f"{'golden output byte for byte' if same else 'DIFFERS from the golden output'}")
        if not same:
            failures.append("sil-onnx-run --layout dla_linear does not reproduce the golden output")
    r = subprocess.run([str(tool), str(HERE / "test/unsupported_op.onnx"), "--describe"],
                       capture_output=True, text=True)
    refused = r.returncode == 2 and "head/sigmoid" in r.stderr
    print(f"  test/unsupported_op.onnx: {'refused: ' + r.stderr.strip() if refused else 'NOT refused'}")
    if not refused:
        failures.append("test/unsupported_op.onnx was not refused naming head/sigmoid")


def check_translation(a, failures):
    """Part 4: qdq_to_iq.py on the committed networks."""
    import onnx
    import qdq_to_iq as iq

    print("\nTensorRT < 11 input (qdq_to_iq.py):")
    with tempfile.TemporaryDirectory(prefix="check_onnx-iq-") as td:
        tmp = Path(td)
        model, scales = iq.translate(onnx.load(str(HERE / "aeb_detector.onnx")))
        (tmp / "iq.onnx").write_bytes(model.SerializeToString())
        paths = ex.export(a.description, tmp / "export", quiet=True)
        ref_scales = [ln.split(": ")[1] for ln in paths["calib"].read_text().splitlines()[1:]]
        got_scales = [ln.split(": ")[1] for ln in iq.cache_text(scales, "8600").splitlines()[1:]]
        same_scales = sorted(ref_scales) == sorted(got_scales)
        sa, sb = session(tmp / "iq.onnx"), session(paths["noqdq"])
        rng = np.random.default_rng(7)
        diffs = 0
        for _ in range(a.random // 4):
            x = rng.integers(-128, 128, (1, 1, 48, 64)).astype(np.float32)
            ra = sa.run(None, {"image": x})
            rb = sb.run(None, {"image": x})
            diffs += sum(int((p != q).sum()) for p, q in zip(ra, rb))
        ok = same_scales and diffs == 0
        print(f"  aeb_detector.onnx: {len(scales)} tensor scales "
              f"({'the export cache' if same_scales else 'DIFFERENT from the export cache'}), float model "
              f"{'equal to' if diffs == 0 else 'DIFFERENT from'} export_onnx.py's on {a.random // 4} images")
        if not ok:
            failures.append("qdq_to_iq.py does not reproduce export_onnx.py's TensorRT input for the AEB")
        try:
            iq.translate(onnx.load(str(HERE / "examples/tiny.onnx")))
            print("  examples/tiny.onnx: translated")
        except iq.TranslateError as e:
            failures.append(f"qdq_to_iq.py refuses examples/tiny.onnx: {e}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--description", type=Path, default=HERE / "aeb_detector.toml",
                   help="the AEB network description (default aeb_detector.toml)")
    p.add_argument("--manifest", type=Path, default=HERE / "manifest.toml")
    p.add_argument("--sil-onnx-run", type=Path, default=HERE.parent / "target/debug/sil-onnx-run",
                   help="the sil-onnx-run binary (default target/debug/sil-onnx-run)")
    p.add_argument("--step-mm", type=int, default=50, help="distance step of the scenes (default 50)")
    p.add_argument("--random", type=int, default=400,
                   help="random inputs for the description check (default 400)")
    p.add_argument("--sil-random", type=int, default=1000,
                   help="random inputs per network for the SIL check (default 1000)")
    a = p.parse_args(argv)

    t0 = time.time()
    net = ex.parse_description(a.description.read_text())
    man = tomllib.loads(a.manifest.read_text())
    entry = next((e for e in man["network"] if e.get("description") == a.description.name), None)
    if entry is None:
        print(f"no [[network]] in {a.manifest} has description = {a.description.name!r}")
        return 1
    failures = []
    check_reproducible(entry, failures)
    check_description(a, net, entry, failures)
    check_sil(a, entry, failures)
    check_translation(a, failures)

    print(f"\n{time.time() - t0:.1f} s")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
