#!/usr/bin/env bash
# Compares what must be reproducible byte for byte with the files committed in ci/expected/:
#
#   aeb-schedule.rs        the AEB demo's generated schedule tables (rendered by the test
#   gpu_bench-schedule.rs  `tools/schedule/tests/expected.rs`; the demo's build script's own
#                          copy must match too, which shows the test uses the demo's options);
#   aeb-virtual-clock.txt  the AEB demo's output on the SIL virtual clock (deterministic).
#
# A difference prints a unified diff and fails. `ORIN_EXEC_BLESS=1 ci/compare-expected.sh`
# writes the new files instead; review them with `git diff ci/expected` and commit.
set -euo pipefail
cd "$(dirname "$0")/.."
expected=ci/expected
bless=${ORIN_EXEC_BLESS:-0}
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# compare NAME FILE: FILE against ci/expected/NAME.
compare() {
    if diff -u --label "$expected/$1 (committed)" --label "$1 (now)" "$expected/$1" "$2"; then
        echo "same as $expected/$1"
    else
        echo "DIFFERENT from $expected/$1 (ORIN_EXEC_BLESS=1 $0 to accept the new output)"
        failed=1
    fi
}

echo "--- generated schedule tables"
# `--workspace`: the README test command's build of the test, not a rebuild with other features.
cargo test -q --workspace --test expected
cargo build -q --release -p aeb-demo
# The build script writes an inspectable copy to <target>/orin-exec/schedule-<name>.rs.
compare aeb-schedule.rs "${CARGO_TARGET_DIR:-target}/orin-exec/schedule-aeb.rs"

echo "--- the AEB demo on the virtual clock"
# `--out` relative to the repository, so the paths it prints do not depend on the target dir.
cargo run -q --release -p aeb-demo -- --virtual-clock --frames 300 \
    --out target/orin-exec/virtual-clock >"$tmp/aeb-virtual-clock.txt"
if [ "$bless" = 1 ]; then
    cp "$tmp/aeb-virtual-clock.txt" "$expected/aeb-virtual-clock.txt"
    echo "blessed $expected/aeb-virtual-clock.txt"
else
    compare aeb-virtual-clock.txt "$tmp/aeb-virtual-clock.txt"
fi
exit "$failed"
