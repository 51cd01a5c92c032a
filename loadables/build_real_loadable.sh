#!/usr/bin/env bash
# Builds the REAL DLA standalone loadable of a network with TensorRT's trtexec, on a
# Jetson/DRIVE Orin (or any host whose TensorRT can compile for the Orin DLA), from the
# network's ONNX model: the same file the SIL DLA runs and loadables/manifest.toml lists.
#
#   loadables/build_real_loadable.sh MODEL.onnx [OUT.loadable] [CALIB.cache]
#
# MODEL.onnx   the network (e.g. loadables/aeb_detector.onnx). In the SIL DLA's Q/DQ form
#              (int8 I/O, QuantizeLinear/DequantizeLinear): with TensorRT >= 11 (strongly
#              typed; or QDQ=1) it is built as it is; before 11 (TensorRT's DLA path takes
#              implicit quantisation only) loadables/qdq_to_iq.py first turns it into a float
#              model plus a calibration cache with the model's own scales (needs python3 with
#              onnx and numpy). A float model without Q/DQ is built with CALIB.cache.
# OUT          where to write the loadable (default: MODEL without .onnx + .dla.loadable).
# CALIB.cache  only for a float model: its INT8 calibration cache (trtexec --calib).
#
# Every input and output gets TensorRT's int8 kDLA_LINEAR format (int8:dla_linear: line pitch
# rounded up to 64 bytes), the layout the SIL DLA's tensor descriptors mirror; the counts come
# from the model.
#
# Environment: TRTEXEC (default: trtexec on PATH, else /usr/src/tensorrt/bin/trtexec),
# DLA_CORE (default 0), PYTHON (default python3), EXPORT_DIR (keep the translated files
# there; default: a temporary directory, removed), QDQ=0/1 (see above).
#
# Flags (see loadables/README.md, "Building the real loadable on Orin", for which parts are
# confirmed): --buildDLAStandalone makes a cuDLA loadable instead of a TensorRT engine (and
# implies --skipInference, disallows --allowGPUFallback). One IO format is given per tensor, in
# network order.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 3 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

model=$1
out=${2:-${model%.onnx}.dla.loadable}
calib=${3:-}
dla_core=${DLA_CORE:-0}
python=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)

if [[ -n "${TRTEXEC:-}" ]]; then
    trtexec=$TRTEXEC
elif command -v trtexec >/dev/null 2>&1; then
    trtexec=$(command -v trtexec)
else
    trtexec=/usr/src/tensorrt/bin/trtexec
fi
if [[ ! -x "$trtexec" ]]; then
    echo "build_real_loadable.sh: trtexec not found (set TRTEXEC)" >&2
    exit 1
fi
if [[ ! -f "$model" ]]; then
    echo "build_real_loadable.sh: no such file: $model" >&2
    exit 1
fi
# Graph inputs (not initializers), outputs, and whether the model has Q/DQ nodes.
read -r n_in n_out has_qdq < <("$python" - "$model" <<'PY'
import sys, onnx
g = onnx.load(sys.argv[1]).graph
inits = {t.name for t in g.initializer}
qdq = any(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in g.node)
print(len([i for i in g.input if i.name not in inits]), len(g.output), int(qdq))
PY
) || { echo "build_real_loadable.sh: cannot read $model (python3 with onnx? set PYTHON)" >&2; exit 1; }

# "&&&& RUNNING TensorRT.trtexec [TensorRT v8602] # trtexec --help" -> 8602 (8.6.2);
# v100300 -> 10.3.0: major = leading digits before the last four.
trt_banner=$("$trtexec" --help 2>&1 | head -n 1 || true)
trt_version=$(sed -n 's/.*TensorRT v\([0-9][0-9]*\).*/\1/p' <<<"$trt_banner")
trt_major=0
if [[ ${#trt_version} -ge 4 ]]; then trt_major=$((10#${trt_version:0:${#trt_version}-3})); fi
if [[ ${#trt_version} -ge 6 ]]; then trt_major=$((10#${trt_version:0:${#trt_version}-4})); fi
# TensorRT 11 builds strongly typed networks only (no --int8, no calibration): Q/DQ form.
qdq=${QDQ:-}
if [[ -z "$qdq" ]]; then
    if [[ $trt_major -ge 11 ]]; then qdq=1; else qdq=0; fi
fi

log="$out.log"
: >"$log"
echo "network:  $model sha256 $(sha256sum "$model" | cut -d' ' -f1) ($n_in inputs, $n_out outputs)" | tee -a "$log"
onnx=$model
if [[ "$has_qdq" == 1 && "$qdq" == 0 ]]; then
    if [[ -n "$calib" ]]; then
        echo "build_real_loadable.sh: a Q/DQ model brings its own scales; no CALIB.cache" >&2
        exit 2
    fi
    if [[ -z "$trt_version" ]]; then
        trt_version=8600
        echo "build_real_loadable.sh: WARNING: cannot read the TensorRT version from '$trt_banner';" \
            "calibration cache header TRT-$trt_version" >&2
    fi
    if [[ -n "${EXPORT_DIR:-}" ]]; then
        export_dir=$EXPORT_DIR
        mkdir -p "$export_dir"
    else
        export_dir=$(mktemp -d)
        trap 'rm -rf "$export_dir"' EXIT
    fi
    echo "+ $python $here/qdq_to_iq.py $model --out-dir $export_dir --trt-version $trt_version" | tee -a "$log"
    mapfile -t translated < <("$python" "$here/qdq_to_iq.py" "$model" --out-dir "$export_dir" --trt-version "$trt_version")
    if [[ ${#translated[@]} -ne 2 ]]; then
        echo "build_real_loadable.sh: translation failed (see above)" >&2
        exit 1
    fi
    onnx=${translated[0]}
    calib=${translated[1]}
    for f in "$onnx" "$calib"; do
        echo "input:    $f sha256 $(sha256sum "$f" | cut -d' ' -f1)" | tee -a "$log"
    done
elif [[ "$has_qdq" == 1 ]]; then
    echo "build_real_loadable.sh: Q/DQ model built as it is; UNCONFIRMED that the DLA builder" \
        "accepts it (int32 bias DequantizeLinear included)" >&2
elif [[ -z "$calib" ]]; then
    echo "build_real_loadable.sh: WARNING: a float model without a calibration cache; INT8 scales" \
        "are placeholders" >&2
fi

formats() {
    local list=() i
    for ((i = 0; i < $1; i++)); do list+=(int8:dla_linear); done
    local IFS=,
    echo "${list[*]}"
}
args=(
    "--onnx=$onnx"
    "--useDLACore=$dla_core"
    --buildDLAStandalone
)
# --int8 selects int8 for implicit quantisation and is needed for Q/DQ networks before
# TensorRT 11, which removed it (networks are strongly typed there).
if [[ $trt_major -lt 11 ]]; then args+=(--int8); fi
args+=(
    "--inputIOFormats=$(formats "$n_in")"
    "--outputIOFormats=$(formats "$n_out")"
    "--saveEngine=$out"
    --verbose
)
if [[ -n "$calib" ]]; then
    if [[ ! -f "$calib" ]]; then
        echo "build_real_loadable.sh: no such calibration cache: $calib" >&2
        exit 1
    fi
    args+=("--calib=$calib")
fi

echo "+ $trtexec ${args[*]}" | tee -a "$log"
"$trtexec" "${args[@]}" 2>&1 | tee -a "$log"

cmd="loadables/build_real_loadable.sh $*"
echo
echo "loadable: $out ($(wc -c <"$out") bytes)"
echo "sha256:   $(sha256sum "$out" | cut -d' ' -f1)"
echo "trtexec:  $trt_banner"
echo "log:      $log"
echo "Register it in the network's [[network]] entry of loadables/manifest.toml (loadables/README.md):"
echo "  loadable = \"$(basename "$out")\""
echo "  loadable_size = $(wc -c <"$out")"
echo "  loadable_sha256 = \"$(sha256sum "$out" | cut -d' ' -f1)\""
echo "  loadable_build_command = \"$cmd\""
echo "  loadable_tool = \"$trt_banner; <JetPack / DRIVE OS release>; DLA core $dla_core\""
