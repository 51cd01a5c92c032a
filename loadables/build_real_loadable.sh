#!/usr/bin/env bash
# Builds the REAL DLA standalone loadable of the AEB detector with TensorRT's trtexec, on a
# Jetson/DRIVE Orin (or any host whose TensorRT can compile for the Orin DLA).
#
#   loadables/build_real_loadable.sh DESCRIPTION.toml [OUT.loadable]
#   loadables/build_real_loadable.sh MODEL.onnx [OUT.loadable] [CALIB.cache]
#
# DESCRIPTION.toml  a network description (loadables/aeb_detector.toml): exported first with
#              loadables/export_onnx.py (needs python3 with onnx and numpy), then built from
#              NAME.noqdq.onnx with the scales of the description as calibration cache
#              NAME.calib.cache (implicit quantisation, what TensorRT's DLA path takes);
#              with QDQ=1 (the default with TensorRT >= 11, which has no calibration) from
#              NAME.qdq.onnx instead: explicit Q/DQ scales, no cache (TensorRT 8.x/10.x are
#              documented not to support explicit quantisation on the DLA).
# MODEL.onnx   an ONNX model with input `image` [1,1,48,64] and outputs `obstacle_map`
#              [1,1,24,32] then `presence` [1,2,1,1], in that order.
# OUT          where to write the loadable (default: aeb_detector.dla.loadable).
# CALIB.cache  (ONNX form) an INT8 calibration cache (trtexec --calib). Without one trtexec
#              uses placeholder dynamic ranges: the loadable builds and loads, but its numbers
#              are meaningless.
#
# Environment: TRTEXEC (default: trtexec on PATH, else /usr/src/tensorrt/bin/trtexec),
# DLA_CORE (default 0), PYTHON (default python3), EXPORT_DIR (keep the exported files there;
# default: a temporary directory, removed), QDQ=0/1 (see above).
#
# Flags (see loadables/README.md, "Building the real loadable on Orin", for which parts are
# confirmed): --buildDLAStandalone makes a cuDLA loadable instead of a TensorRT engine (and
# implies --skipInference, disallows --allowGPUFallback); int8:dla_linear is TensorRT's
# kDLA_LINEAR layout (line pitch rounded up to 64 bytes), which the SIL loadable's tensor
# descriptors mirror. One IO format is given per tensor, in network order.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 3 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

model=$1
out=${2:-aeb_detector.dla.loadable}
calib=${3:-}
dla_core=${DLA_CORE:-0}
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
case "$model" in
*.toml)
    if [[ -n "$calib" ]]; then
        echo "build_real_loadable.sh: a description brings its own scales; no CALIB.cache" >&2
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
    export_args=("$model" --out-dir "$export_dir" --trt-version "$trt_version")
    if [[ "$qdq" == 1 ]]; then export_args+=(--float-bias); fi
    echo "+ ${PYTHON:-python3} $here/export_onnx.py ${export_args[*]}" | tee -a "$log"
    # Prints NAME.qdq.onnx, NAME.noqdq.onnx, NAME.calib.cache, NAME.scales.json.
    mapfile -t exported < <("${PYTHON:-python3}" "$here/export_onnx.py" "${export_args[@]}")
    if [[ ${#exported[@]} -ne 4 ]]; then
        echo "build_real_loadable.sh: export failed (python3 with onnx and numpy? set PYTHON)" >&2
        exit 1
    fi
    if [[ "$qdq" == 1 ]]; then
        onnx=${exported[0]}
        calib=
        echo "build_real_loadable.sh: QDQ=1: explicit quantisation; UNCONFIRMED that the DLA" \
            "builder accepts Q/DQ networks" >&2
    else
        onnx=${exported[1]}
        calib=${exported[2]}
    fi
    for f in "$onnx" ${calib:+"$calib"}; do
        echo "input:    $f sha256 $(sha256sum "$f" | cut -d' ' -f1)" | tee -a "$log"
    done
    ;;
*)
    onnx=$model
    if [[ -z "$calib" ]]; then
        echo "build_real_loadable.sh: WARNING: no calibration cache; INT8 scales are placeholders" >&2
    fi
    ;;
esac

args=(
    "--onnx=$onnx"
    "--useDLACore=$dla_core"
    --buildDLAStandalone
)
# --int8 selects int8 for implicit quantisation and is needed for Q/DQ networks before
# TensorRT 11, which removed it (networks are strongly typed there).
if [[ $trt_major -lt 11 ]]; then args+=(--int8); fi
args+=(
    --inputIOFormats=int8:dla_linear
    --outputIOFormats=int8:dla_linear,int8:dla_linear
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

echo
echo "loadable: $out ($(wc -c <"$out") bytes)"
echo "sha256:   $(sha256sum "$out" | cut -d' ' -f1)"
echo "trtexec:  $trt_banner"
echo "log:      $log"
echo "Register it in loadables/manifest.toml below the line" \
    "'# ---- real loadables: registered by hand below this line' (loadables/README.md)."
