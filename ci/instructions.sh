#!/usr/bin/env bash
# The runtime's own instructions per dispatched task (callgrind, SIL virtual clock), for every
# shape and size of orin-exec-icount, against ci/instructions-ceiling.toml: fails on a figure
# above its shape's ceiling or on per-task counts that grow with the schedule (issue 13).
# Needs valgrind (apt `valgrind`). About a minute on the 2-core CI machine.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "ci/instructions.sh: valgrind is not installed (apt-get install valgrind)"; exit 1; }
target="${CARGO_TARGET_DIR:-target}"
# Release code with debug line tables (the workspace's release profile), as applications ship.
# Selected with the demo, so the runtime and the SIL libraries resolve the features of the
# demo's release build and are reused from it (alone, icount leaves out sil-common's
# `alloc-count`, a module it does not call, and would rebuild the whole runtime).
cargo build -q --release -p orin-exec-icount -p aeb-demo
bin="$target/release/orin-exec-icount"
out="$target/orin-exec/instructions"
rm -rf "$out"
mkdir -p "$out"
results="$out/results.txt"
: >"$results"
for shape in cpu-independent cpu-chain gpu-chain gpu-chain-nostamp; do
    # 64 is the largest schedule the limits allow for every shape (tools/icount/src/shapes.rs).
    for tasks in 4 16 64; do
        # The top runtime functions of each run are kept for when a figure is too high.
        timeout 600 "$bin" measure --shape "$shape" --tasks "$tasks" \
            >>"$results" 2>"$out/top.$shape.$tasks.txt" || {
            echo "ci/instructions.sh: $shape with $tasks tasks failed:"
            cat "$out/top.$shape.$tasks.txt"
            exit 1
        }
    done
done
if "$bin" check --ceiling ci/instructions-ceiling.toml "$results"; then
    exit 0
fi
echo "top runtime functions by exclusive instructions per task, per run:"
cat "$out"/top.*.txt
exit 1
