#!/usr/bin/env bash
# Run the `rig` build of `hil` on a machine WITHOUT a GPU, against a test double of
# libcuda.so.1 made of SIL CUDA (hil-tests/fake-libcuda). It exercises everything the rig
# platform does differently from sil (semaphore counters host-registered and waited on with
# cuStreamWaitValue64 / written with cuStreamWriteValue64, host-registered NvSciBuf memory,
# the GPU timer calibration, sm_90 cubins via SIL_CUDA_SM=90) before the bundle goes to the
# rig. It does not exercise the real driver or the GPU.
#
#   hil-tests/rig-smoke.sh OUT_DIR [FRAMES]        (FRAMES: scenario frames, default 300)
#
# The executable must export the SIL NvSciSync symbols the double calls back into, so the
# `hil` built here is linked with -rdynamic (its own target directory); it is not the bundled
# binary. Environment: CARGO_TARGET_DIR (default <repo>/target).
set -euo pipefail

[ $# -ge 1 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
frames=${2:-300}
mkdir -p "$out"
out=$(cd "$out" && pwd)
target=${CARGO_TARGET_DIR:-$root/target}

echo "== fake libcuda.so.1 (SIL CUDA)"
(cd "$root/hil-tests/fake-libcuda" && CARGO_TARGET_DIR=$target/fake-libcuda cargo build --release --offline)
mkdir -p "$out/lib"
cp "$target/fake-libcuda/release/libcuda.so" "$out/lib/libcuda.so.1"

echo "== hil (rig, -rdynamic)"
(cd "$root" && CARGO_TARGET_DIR=$target/rig-rdynamic RUSTFLAGS="-C link-arg=-rdynamic" \
    cargo build --release --locked -p hil-tests --no-default-features --features rig)
hil=$target/rig-rdynamic/release/hil

export LD_LIBRARY_PATH=$out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} SIL_CUDA_SM=90
rc=0
run() {
    echo "== hil $*"
    "$hil" "$@" || { echo "== FAILED (exit $?): hil $*"; rc=1; }
}
run platform
run b2b --trials 20 --seed 3 --max-elements 65536 --out "$out/b2b"
run scenario aeb --frames "$frames" --out "$out/scenario"
run bench --frames 200 --json "$out/bench/bench.json"
# The rig's outputs equal SIL's: compare with a SIL virtual-clock run of the same frames.
echo "== SIL reference (virtual clock)"
(cd "$root" && CARGO_TARGET_DIR=$target cargo run --release --locked -q -p hil-tests -- \
    scenario aeb --frames "$frames" --virtual-clock --realtime-priority 0 --quiet \
    --out "$out/sil-reference" >/dev/null)
run compare "$out/sil-reference" "$out/scenario"
echo "== rig smoke: $([ $rc -eq 0 ] && echo PASS || echo FAIL) (a real-time scenario on a busy build host may log deadline or budget faults)"
exit $rc
