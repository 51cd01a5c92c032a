#!/usr/bin/env bash
# Regenerates kernels/cubins/*.cubin from kernels/cuda/*.cu with the pinned nvcc and rewrites
# kernels/manifest.toml. Run it after changing a .cu file (or the flags below), then review and
# commit the cubins and the manifest together. `cargo build -p orin-exec-kernels` afterwards
# checks the result (and, with the pinned nvcc present, rebuilds and compares every hash).
#
# nvcc is looked up like build.rs does: $ORIN_EXEC_NVCC, then
# <workspace>/.venv/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc, then `nvcc` on PATH.
# It must report exactly "release 13.0, V13.0.88".
set -euo pipefail

NVCC_SEMVER="13.0.88"
NVCC_VERSION="V${NVCC_SEMVER}"
NVCC_RELEASE_LINE="release 13.0, ${NVCC_VERSION}"
SMS=(87 90)
# Everything except the per-SM -gencode; the full argv is: nvcc FLAGS... -o OUT SOURCE.
# SASS only: -cubin with code=sm_XX (never code=compute_XX, never -arch=sm_XX, which embeds PTX).
gencode_flags() { printf '%s\n' -cubin -gencode "arch=compute_$1,code=sm_$1" -O3 -Xptxas -O3; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"

find_nvcc() {
    if [[ -n "${ORIN_EXEC_NVCC:-}" ]]; then
        echo "$ORIN_EXEC_NVCC"
        return
    fi
    local c
    for c in "$root"/.venv/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc; do
        if [[ -x "$c" ]]; then
            echo "$c"
            return
        fi
    done
    command -v nvcc || true
}

nvcc="$(find_nvcc)"
if [[ -z "$nvcc" || ! -x "$nvcc" ]]; then
    echo "rebuild.sh: no nvcc found (set ORIN_EXEC_NVCC, or create $root/.venv with" >&2
    echo "  pip install nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-runtime==13.0.96)" >&2
    exit 1
fi
if ! "$nvcc" --version | grep -q "$NVCC_RELEASE_LINE"; then
    echo "rebuild.sh: $nvcc is not the pinned nvcc ($NVCC_RELEASE_LINE):" >&2
    "$nvcc" --version >&2
    exit 1
fi
host_cc="$( (g++ --version 2>/dev/null || true) | head -n1)"

sha() { sha256sum "$1" | cut -d' ' -f1; }
toml_list() {
    local first=1 x
    printf '['
    for x in "$@"; do
        if ((first)); then first=0; else printf ', '; fi
        printf '"%s"' "$x"
    done
    printf ']'
}

mkdir -p "$here/cubins"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

manifest="$tmp/manifest.toml"
{
    echo "# Written by kernels/rebuild.sh from kernels/cuda/*.cu; do not edit by hand."
    echo "# Each cubin is built as: nvcc <flags...> -o <file> <source>  (paths relative to kernels/)."
    echo "# kernels/build.rs checks every entry on every build (file and source sha256, cubin-check"
    echo "# for the SM, the kernel list against the cubin and orin_exec_kernels::SIGNATURES), and with"
    echo "# the pinned nvcc available rebuilds every cubin and fails if a sha256 differs."
    echo "schema = 1"
    echo
    echo "[toolchain]"
    echo "nvcc = \"$NVCC_SEMVER\""
    echo "nvcc_version = \"$NVCC_VERSION\""
    echo "# Informational: nvcc preprocesses with the host compiler (the sources only use <stdint.h>)."
    echo "host_compiler = \"$host_cc\""
} >"$manifest"

rm -f "$here"/cubins/*.cubin
for src in "$here"/cuda/*.cu; do
    base="$(basename "$src" .cu)"
    mapfile -t kernels < <(sed -nE 's/^extern "C" __global__ void ([A-Za-z_][A-Za-z0-9_]*)\(.*/\1/p' "$src")
    if ((${#kernels[@]} == 0)); then
        echo "rebuild.sh: $src declares no extern \"C\" __global__ kernel" >&2
        exit 1
    fi
    for sm in "${SMS[@]}"; do
        mapfile -t flags < <(gencode_flags "$sm")
        out="cubins/$base.sm_$sm.cubin"
        (cd "$here" && "$nvcc" "${flags[@]}" -o "$out" "cuda/$base.cu")
        echo "built kernels/$out"
        {
            echo
            echo "[[cubin]]"
            echo "name = \"$base\""
            echo "file = \"$out\""
            echo "sm = $sm"
            echo "sha256 = \"$(sha "$here/$out")\""
            echo "source = \"cuda/$base.cu\""
            echo "source_sha256 = \"$(sha "$src")\""
            echo "nvcc = \"$NVCC_SEMVER\""
            echo "nvcc_version = \"$NVCC_VERSION\""
            echo "flags = $(toml_list "${flags[@]}")"
            echo "kernels = $(toml_list "${kernels[@]}")"
        } >>"$manifest"
    done
done
cp "$manifest" "$here/manifest.toml"
echo "wrote kernels/manifest.toml"
