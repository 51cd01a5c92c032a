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

# The `extern "C" __global__ void name(params)` declarations of a source, one per line, each
# joined from the lines it spans: "name<TAB>param, param, ...".
kernel_decls() {
    awk '
        /^extern "C" __global__ void / { decl = ""; on = 1 }
        on {
            decl = decl " " $0
            if (index($0, ")")) {
                on = 0
                sub(/^.*__global__ void[ \t]+/, "", decl)
                name = decl; sub(/[ \t]*\(.*$/, "", name)
                params = decl; sub(/^[^(]*\(/, "", params); sub(/\).*$/, "", params)
                gsub(/[ \t]+/, " ", params)
                print name "\t" params
            }
        }' "$1"
}

# The manifest kind of one C parameter declaration (`const float* __restrict__ x` -> ptr).
param_kind() {
    local p="$1" t
    if [[ "$p" == *"*"* ]]; then
        echo ptr
        return
    fi
    # The type is everything but the last word (the parameter's name).
    t="$(sed -E 's/\bconst\b//g; s/^ +//; s/ +$//; s/ +[A-Za-z_][A-Za-z0-9_]*$//; s/ +/ /g' <<<"$p")"
    case "$t" in
    uint32_t | "unsigned int" | unsigned) echo u32 ;;
    int32_t | int) echo i32 ;;
    uint64_t | "unsigned long long" | "unsigned long long int") echo u64 ;;
    float) echo f32 ;;
    *) return 1 ;;
    esac
}

# The manifest's `kernels` value of a source: [{ name = "...", params = ["ptr", ...] }, ...].
kernels_toml() {
    local src="$1" name params p kind first=1 kinds
    printf '['
    while IFS=$'\t' read -r name params; do
        kinds=()
        if [[ -n "${params// /}" && "${params// /}" != void ]]; then
            IFS=',' read -ra ps <<<"$params"
            for p in "${ps[@]}"; do
                if ! kind="$(param_kind "$p")"; then
                    echo "rebuild.sh: $src: kernel $name: parameter '${p# }' has a type the manifest" >&2
                    echo "  cannot name (use a pointer, uint32_t, int32_t, uint64_t or float)" >&2
                    return 1
                fi
                kinds+=("$kind")
            done
        fi
        if ((first)); then first=0; else printf ', '; fi
        printf '{ name = "%s", params = %s }' "$name" "$(toml_list "${kinds[@]}")"
    done < <(kernel_decls "$src")
    printf ']'
}

mkdir -p "$here/cubins"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

manifest="$tmp/manifest.toml"
{
    echo "# Written by kernels/rebuild.sh from kernels/cuda/*.cu; do not edit by hand."
    echo "# Each cubin is built as: nvcc <flags...> -o <file> <source>  (paths relative to kernels/)."
    echo "# Each kernel's params are the kinds of its C parameters (ptr, u32, i32, u64, f32)."
    echo "# kernels/build.rs checks every entry on every build (file and source sha256, cubin-check"
    echo "# for the SM, the kernel list and each kernel's parameter sizes and offsets against the"
    echo "# cubin's EIATTR_KPARAM_INFO), and with the pinned nvcc available rebuilds every cubin"
    echo "# and fails if a sha256 differs."
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
    if [[ -z "$(kernel_decls "$src")" ]]; then
        echo "rebuild.sh: $src declares no extern \"C\" __global__ kernel" >&2
        exit 1
    fi
    kernels="$(kernels_toml "$src")"
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
            echo "kernels = $kernels"
        } >>"$manifest"
    done
done
cp "$manifest" "$here/manifest.toml"
echo "wrote kernels/manifest.toml"
