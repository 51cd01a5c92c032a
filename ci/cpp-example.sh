#!/usr/bin/env bash
# The C++ partition example (examples/cpp-partition) against the Rust AEB demo, and its cross
# build for aarch64 Linux.
#
#   ci/cpp-example.sh [FRAMES]        (default 1000)
#
# 1. Builds liborin_exec_capi (the C API, `sil`) with cargo, configures and builds the example with
#    CMake against bindings/c-api/include/orin_exec.h and the library (the schedule's C tables
#    are generated from examples/aeb/schedule.toml by the build), runs it for FRAMES frames on
#    the SIL virtual clock, runs the Rust demo (`aeb --virtual-clock`) for as many, and compares
#    their decisions: the demo's progress lines (every 30th frame: mode, obstacle, decision,
#    running match count) and its summary lines against the same lines of the example's
#    per-frame output; then every frame's decision, mode and flags through the Rust test
#    `cpp-partition` (tests/decisions.rs). Any difference fails.
# 2. Cross build for aarch64-linux-gnu: the C API with cargo (linker aarch64-linux-gnu-gcc),
#    the example with CMake and examples/cpp-partition/cmake/aarch64-linux-gnu.cmake; the
#    executable must exist and be an aarch64 ELF. With qemu-aarch64 installed it also runs
#    (FRAMES frames) and its decisions must equal the host build's.
#
# ORIN_EXEC_CLI: another `orin-exec` to generate the C tables with (default: the one built here).
# Installs nothing: needs cmake, g++, g++-aarch64-linux-gnu and the Rust target
# aarch64-unknown-linux-gnu (.ci/run installs them). Writes target/orin-exec/cpp-partition/.
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-1000}
target=${CARGO_TARGET_DIR:-target}
case $target in /*) ;; *) target=$PWD/$target ;; esac
out=$PWD/target/orin-exec/cpp-partition
rm -rf "$out"
mkdir -p "$out"
src=examples/cpp-partition
jobs=$(nproc)

echo "== liborin_exec_capi (sil), the generator and the example, host"
cargo build -q --release -p orin-exec-capi -p orin-exec-cli
cli=${ORIN_EXEC_CLI:-$target/release/orin-exec}
cmake -S "$src" -B "$target/cpp-partition/host" -DCMAKE_BUILD_TYPE=Release \
    -DORIN_EXEC_CLI="$cli" -DORIN_EXEC_LIB_DIR="$target/release" >"$out/cmake-host.log"
cmake --build "$target/cpp-partition/host" -j "$jobs"
bin=$target/cpp-partition/host/aeb-partition

echo "== $frames frames on the virtual clock: the C++ example, then the Rust demo"
"$bin" --frames "$frames" --decisions "$out/cpp-decisions.txt" >"$out/cpp.txt"
status=0
cargo run -q --release -p aeb-demo -- --virtual-clock --frames "$frames" \
    --out target/orin-exec/cpp-partition/rust-run >"$out/rust.txt" || status=$?
[ "$status" = 0 ] || { echo "the Rust demo exited $status"; cat "$out/rust.txt"; exit 1; }

# The demo prints its progress line every 30th frame (stdout not a terminal), the example every
# frame in the same format: keep the example's lines of the demo's frames, and both summaries.
grep -E '^(frame +[0-9]+/|brake decisions:|faults detected:)' "$out/rust.txt" >"$out/rust-reduced.txt"
awk '/^frame / { split($2, n, "/"); if (n[1] % 30 == 0) print; next }
     /^(brake decisions:|faults detected:)/ { print }' "$out/cpp.txt" >"$out/cpp-reduced.txt"
if ! diff -u --label "Rust demo" --label "C++ example" "$out/rust-reduced.txt" "$out/cpp-reduced.txt"; then
    echo "the C++ example and the Rust demo decide differently (above)"
    exit 1
fi
echo "same $(grep -c '^frame ' "$out/rust-reduced.txt") progress lines and summary as the Rust demo"
[ "$(grep -c '^frame ' "$out/cpp.txt")" = "$frames" ] || { echo "the C++ example did not print $frames frames"; exit 1; }
grep '^brake decisions:' "$out/cpp.txt"

echo "== every frame's decision (cargo test -p cpp-partition)"
CPP_PARTITION_BIN=$bin cargo test -q --release -p cpp-partition -- --ignored

echo "== cross build for aarch64-linux-gnu"
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=${CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER:-aarch64-linux-gnu-gcc} \
    cargo build -q --release -p orin-exec-capi --target aarch64-unknown-linux-gnu
cmake -S "$src" -B "$target/cpp-partition/aarch64" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/$src/cmake/aarch64-linux-gnu.cmake" -DORIN_EXEC_CLI="$cli" \
    -DORIN_EXEC_LIB_DIR="$target/aarch64-unknown-linux-gnu/release" >"$out/cmake-aarch64.log"
cmake --build "$target/cpp-partition/aarch64" -j "$jobs"
cross=$target/cpp-partition/aarch64/aeb-partition
file "$cross" | tee "$out/aarch64-file.txt"
grep -q 'ELF 64-bit LSB .*ARM aarch64' "$out/aarch64-file.txt" || { echo "not an aarch64 executable"; exit 1; }
if command -v qemu-aarch64 >/dev/null; then
    echo "== the aarch64 build under qemu-aarch64 ($frames frames)"
    qemu-aarch64 -L /usr/aarch64-linux-gnu "$cross" --frames "$frames" --decisions "$out/aarch64-decisions.txt" >/dev/null
    diff -u --label host --label aarch64 "$out/cpp-decisions.txt" "$out/aarch64-decisions.txt"
    echo "aarch64 under QEMU: the same $frames decisions as the host build"
else
    echo "qemu-aarch64 not installed: the aarch64 build is linked, not run"
fi
