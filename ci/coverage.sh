#!/usr/bin/env bash
# Coverage of the runtime (`orin-exec`, `orin-exec-table`) and the validator
# (`orin-exec-schedule`) by their own tests (unit and integration tests, on `sil`), measured
# with `cargo llvm-cov` (LLVM source-based coverage: lines and code regions).
#
#   ci/coverage.sh
#
# Installs the pinned cargo-llvm-cov and the llvm-tools-preview component when missing. Writes
#   target/orin-exec/coverage.json       per-crate summary, read by the run report's appendix
#                                        ({"tool", "crates": [{"name", "lines", "regions"}]})
#   target/orin-exec/coverage-llvm.json  LLVM's JSON export (per file), for a closer look
# and prints the per-crate table (the README and docs/safety-manual.md quote it).
#
# What the numbers mean and do not mean: docs/safety-manual.md, "Structural coverage".
# Test files (`tests/`) are not counted; `#[cfg(test)]` modules inside `src/` are. The two
# wall-clock tests (#[ignore]) and doc tests (they need nightly under llvm-cov) are not run,
# nor these test targets, which add no coverage:
#   compile_fail (two): trybuild runs the compiler, not the crates' code; under llvm-cov it
#     would build the runtime a second time, instrumented, for its test projects;
#   no_alloc_after_seal: 30,000 frames of pipelines that the other tests run, to count
#     allocations; instrumented (the SIL's ONNX interpreter too) it took 7.5 of the step's
#     11 minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."

LLVM_COV_VERSION=0.9.1
CRATES=(orin-exec orin-exec-table orin-exec-schedule)
OUT=target/orin-exec

rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools-preview
if [ "$(cargo llvm-cov --version 2>/dev/null)" != "cargo-llvm-cov $LLVM_COV_VERSION" ]; then
    cargo install --locked cargo-llvm-cov --version "$LLVM_COV_VERSION"
fi

mkdir -p "$OUT"
packages=()
for c in "${CRATES[@]}"; do packages+=(-p "$c"); done

started=$(date +%s)
# One instrumented build and test run for the three crates, then one report, in a target
# directory of their own: cargo llvm-cov builds into <dir>/llvm-cov-target, so no instrumented
# artifact is left where a normal build would pick it up (and write stray .profraw files).
cov_target="${CARGO_TARGET_DIR:-target}/coverage"
CARGO_TARGET_DIR="$cov_target" cargo llvm-cov clean --workspace
targets=(--lib --bins)
for f in tests/*.rs table/tests/*.rs tools/schedule/tests/*.rs; do
    name=$(basename "$f" .rs)
    case $name in compile_fail | no_alloc_after_seal) ;; *) targets+=(--test "$name") ;; esac
done
CARGO_TARGET_DIR="$cov_target" cargo llvm-cov --no-report "${packages[@]}" "${targets[@]}"
CARGO_TARGET_DIR="$cov_target" cargo llvm-cov report "${packages[@]}" \
    --json --summary-only --output-path "$OUT/coverage-llvm.json"

crate_args=()
for c in "${CRATES[@]}"; do crate_args+=(--crate "$c"); done
cargo run -q -p orin-exec-traceability -- coverage \
    --export "$OUT/coverage-llvm.json" \
    --tool "$(cargo llvm-cov --version | sed "s/^cargo-llvm-cov/cargo llvm-cov/")" \
    "${crate_args[@]}" \
    --out "$OUT/coverage.json"
echo "coverage: $(($(date +%s) - started)) s"
