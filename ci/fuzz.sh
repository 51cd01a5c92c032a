#!/usr/bin/env bash
# Runs each fuzz target of fuzz/ (schedule, network, cubin, trace) for a bounded time and fails
# on a crash: a panic (debug assertions on, so an arithmetic overflow is one), an input that
# takes longer than FUZZ_TIMEOUT seconds, or one that needs more than FUZZ_RSS_MB of memory.
#
#   ci/fuzz.sh                 every target, FUZZ_SECONDS (default 45) each, FUZZ_JOBS
#                              (default: the number of CPUs) targets at a time: on 2 CPUs
#                              about 1.5 minutes plus the build
#   ci/fuzz.sh cubin trace     those targets only
#
# A libFuzzer run is one process on one CPU, so targets run side by side, each on a CPU of
# its own: every target still gets FUZZ_SECONDS of a whole CPU.
#
# Installs what it needs: the nightly toolchain (libFuzzer's instrumentation) and cargo-fuzz.
# Each target starts from its committed seed corpus (fuzz/corpus/<target>, copied, so the
# tree stays clean). A crashing input is kept in fuzz/artifacts/<target>/ and named in the
# output: turn it into a regression test of the crate that owns the parser (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-45}
timeout_s=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
jobs=${FUZZ_JOBS:-$(nproc)}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(schedule network cubin trace)

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# No sanitizer: the parsers are safe Rust (cubin-check forbids unsafe; the others have none on
# these paths), so what can go wrong is a panic, an overflow, a hang or a runaway allocation,
# which libFuzzer catches without ASan at twice the speed.
flags=(--sanitizer none --debug-assertions)
cargo +nightly fuzz build "${flags[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# fuzz_one TARGET: one bounded run; its status in $work/TARGET.status.
fuzz_one() {
    local t=$1 status=0
    mkdir -p "$work/$t"
    cp fuzz/corpus/"$t"/* "$work/$t/"
    cargo +nightly fuzz run "${flags[@]}" "$t" "$work/$t" -- \
        -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
        -print_final_stats=1 2>"$work/$t.log" || status=$?
    echo "$status" >"$work/$t.status"
}
# Runs FUZZ_JOBS targets at a time (each waits for a free slot), then reports in order.
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "--- fuzz $t: ${seconds}s"
    fuzz_one "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
    echo "--- fuzz $t"
    if [ "$(cat "$work/$t.status")" != 0 ]; then
        grep -E 'ERROR|panicked|Test unit written|artifact' "$work/$t.log" || tail -40 "$work/$t.log"
        failed+=("$t")
    else
        grep -E '^stat::number_of_executed_units|^Done' "$work/$t.log" || true
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crash in ${failed[*]} (inputs in fuzz/artifacts/)"
    exit 1
fi
echo "fuzz: ${targets[*]}: no crash in ${seconds}s each"
