#!/usr/bin/env bash
# Build the HIL rig bundle on the build host (no GPU needed): a self-contained directory that
# runs on an x86_64 Linux GPU machine with the NVIDIA driver (libcuda.so.1) and no Rust
# toolchain.
#
#   hil-tests/bundle.sh OUT_DIR
#
# OUT_DIR/
#   run.sh                 the rig run (see README.md, "Running the bundle")
#   README.md              hil-tests/README.md
#   BUILD-INFO.txt         git revision, toolchain, features, glibc, hashes of the binaries
#   SHA256SUMS             every file of the bundle
#   bin/hil-rig            `hil` for the rig: real CUDA (DT_NEEDED libcuda.so.1), SIL NvSci/cuDLA/cuPVA
#   bin/hil-sil            `hil` on SIL everything (the reference run; run.sh --sil)
#   bin/projects/NAME      each user project of HIL_PROJECTS (an `orin-exec new` crate),
#                          built with `--no-default-features --features rig` (run.sh `projects`)
#   reference/sil-aeb/     the AEB scenario on SIL, virtual clock, 10,000 frames:
#                          outputs.csv, outputs.json, summary.json (the comparison reference)
#   artifacts/             for the record only (the binaries embed what they run): the kernel
#                          and loadable manifests, cubins, loadable, schedules
#
# Environment: CARGO_TARGET_DIR (default <repo>/target), HIL_REFERENCE_FRAMES (default 10000),
# HIL_KEEP_DEBUG=1 (do not strip debug info from the binaries), HIL_PROJECTS (space-separated
# directories of user projects to carry; each builds in its own target/).
set -euo pipefail

[ $# -eq 1 ] || { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
export CARGO_TARGET_DIR=$target
frames=${HIL_REFERENCE_FRAMES:-10000}
cd "$root"

rm -rf "$out/bin" "$out/reference" "$out/artifacts"
mkdir -p "$out/bin" "$out/reference" "$out/artifacts/kernels/cubins" "$out/artifacts/loadables" \
    "$out/artifacts/schedules"

build() { # build FEATURE NAME
    echo "== cargo build --release -p hil-tests --no-default-features --features $1"
    cargo build --release --locked -p hil-tests --no-default-features --features "$1"
    cp "$target/release/hil" "$out/bin/$2"
    if [ "${HIL_KEEP_DEBUG:-0}" != 1 ]; then
        strip --strip-debug "$out/bin/$2"
    fi
}
build rig hil-rig
build sil hil-sil
for project in ${HIL_PROJECTS:-}; do
    name=$(sed -n 's/^name = "\(.*\)"/\1/p' "$project/Cargo.toml" | head -n 1)
    echo "== user project $name ($project): cargo build --release --no-default-features --features rig"
    (cd "$project" && env -u CARGO_TARGET_DIR cargo build --release --no-default-features --features rig)
    mkdir -p "$out/bin/projects"
    cp "$project/target/release/$name" "$out/bin/projects/$name"
done

# The rig binary must load the real driver at run time and nothing else unusual.
needed=$(readelf -d "$out/bin/hil-rig" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "hil-rig needs: $needed"
case " $needed " in *" libcuda.so.1 "*) ;; *) echo "bundle.sh: hil-rig does not link libcuda.so.1" >&2; exit 1 ;; esac
if readelf -d "$out/bin/hil-sil" | grep -q 'libcuda'; then
    echo "bundle.sh: hil-sil links libcuda" >&2
    exit 1
fi

# The SIL reference run (virtual clock: deterministic; same inputs as the rig run).
echo "== SIL reference: $frames frames on the virtual clock"
ref=$out/reference/sil-aeb
"$out/bin/hil-sil" scenario aeb --frames "$frames" --virtual-clock --realtime-priority 0 \
    --quiet --out "$ref" | tail -n 12
# Keep what the comparison and the record need; the trace is reproducible from the binary.
rm -f "$ref/trace.bin" "$ref/trace.perfetto.json"

cp kernels/manifest.toml "$out/artifacts/kernels/"
cp kernels/cubins/*.cubin "$out/artifacts/kernels/cubins/"
cp loadables/manifest.toml loadables/aeb_detector.toml loadables/aeb_detector.onnx \
    "$out/artifacts/loadables/"
cp examples/aeb/schedule.toml "$out/artifacts/schedules/aeb.toml"
cp hil-tests/schedules/gpu_bench.toml "$out/artifacts/schedules/gpu_bench.toml"
cp hil-tests/schedules/dla_bench.toml "$out/artifacts/schedules/dla_bench.toml"
cp hil-tests/run.sh "$out/run.sh"
chmod +x "$out/run.sh"
cp hil-tests/README.md "$out/README.md"

rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$( (git status --porcelain 2>/dev/null || true) | wc -l)
{
    echo "git:       $rev$([ "$dirty" -gt 0 ] && echo " (+$dirty uncommitted changes)")"
    echo "built:     $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(uname -sm))"
    echo "rustc:     $(rustc -V)"
    echo "cargo:     $(cargo -V)"
    echo "glibc:     built with $(ldd --version | head -1 | sed 's/.* //'); the binaries need glibc >= $(objdump -T "$out/bin/hil-rig" "$out/bin/hil-sil" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | sed 's/GLIBC_//')"
    echo "profile:   release$([ "${HIL_KEEP_DEBUG:-0}" != 1 ] && echo ', debug info stripped')"
    echo "hil-rig:   --no-default-features --features rig; needs $needed"
    echo "hil-sil:   --no-default-features --features sil"
    echo "reference: hil-sil scenario aeb --frames $frames --virtual-clock"
    echo
    "$out/bin/hil-sil" platform | grep -E '^(kernels|  cubin)'
    echo
    echo "Embedded in both binaries: the cubins above (hash-checked against the manifest at"
    echo "build time and again at init), the DLA network aeb_detector.onnx (the SIL DLA runs it), and the"
    echo "schedules aeb (examples/aeb/schedule.toml), gpu_bench and dla_bench (hil-tests/schedules)."
} >"$out/BUILD-INFO.txt"

(cd "$out" && find . -type f ! -name SHA256SUMS | sort | xargs sha256sum >SHA256SUMS)
echo "== bundle: $out ($(du -sh "$out" | cut -f1))"
