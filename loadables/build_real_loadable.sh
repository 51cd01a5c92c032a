#!/usr/bin/env bash
# Builds the REAL DLA standalone loadable of the AEB detector with TensorRT's trtexec, on a
# Jetson/DRIVE Orin (or any host whose TensorRT can compile for the Orin DLA).
#
#   loadables/build_real_loadable.sh MODEL.onnx [OUT.loadable] [CALIB.cache]
#
# MODEL.onnx   the network of loadables/aeb_detector.toml exported to ONNX (not part of this
#              repository): input `image` [1,1,48,64], outputs `obstacle_map` [1,1,24,32] then
#              `presence` [1,2,1,1], in that order.
# OUT          where to write the loadable (default: aeb_detector.dla.loadable).
# CALIB.cache  an INT8 calibration cache (trtexec --calib). Without one trtexec uses
#              placeholder dynamic ranges: the loadable builds and loads, but its numbers
#              are meaningless.
#
# Environment: TRTEXEC (default: trtexec on PATH, else /usr/src/tensorrt/bin/trtexec),
# DLA_CORE (default 0).
#
# Flags (see loadables/README.md, "Building the real loadable on Orin", for which parts are
# confirmed): --buildDLAStandalone makes a cuDLA loadable instead of a TensorRT engine (and
# implies --skipInference, disallows --allowGPUFallback); int8:dla_linear is TensorRT's
# kDLA_LINEAR layout (line pitch rounded up to 64 bytes), which the SIL loadable's tensor
# descriptors mirror. One IO format is given per tensor, in network order.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 3 || "$1" == "-h" || "$1" == "--help" ]]; then
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi

onnx=$1
out=${2:-aeb_detector.dla.loadable}
calib=${3:-}
dla_core=${DLA_CORE:-0}

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
if [[ ! -f "$onnx" ]]; then
    echo "build_real_loadable.sh: no such ONNX file: $onnx" >&2
    exit 1
fi

args=(
    "--onnx=$onnx"
    "--useDLACore=$dla_core"
    --buildDLAStandalone
    --int8
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
else
    echo "build_real_loadable.sh: WARNING: no calibration cache; INT8 scales are placeholders" >&2
fi

log="$out.log"
echo "+ $trtexec ${args[*]}" | tee "$log"
"$trtexec" "${args[@]}" 2>&1 | tee -a "$log"

echo
echo "loadable: $out ($(wc -c <"$out") bytes)"
echo "sha256:   $(sha256sum "$out" | cut -d' ' -f1)"
echo "trtexec:  $("$trtexec" --help 2>&1 | head -n 1 || true)"
echo "log:      $log"
echo "Record these in loadables/manifest.toml under a new [[loadable]] entry with format = \"nvdla\"."
