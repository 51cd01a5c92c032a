#!/usr/bin/env bash
# The AEB demo's memory must not grow with the run's length (issue 13, item 7):
#
#   1. peak RSS (`/usr/bin/time`) of a LONG-frame run <= 1.2x that of a SHORT-frame run, both on
#      the SIL virtual clock (defaults 1000 and 20000 frames; docs/performance.md records
#      1000 vs 100000);
#   2. the demo's total heap allocation count (valgrind memcheck's "total heap usage") is the
#      same for VG_SHORT and VG_LONG frames (defaults 200 and 2000: valgrind runs the demo about
#      50 times slower).
#
# Usage: ci/memory-flat.sh [SHORT LONG [VG_SHORT VG_LONG]]. Needs `time` and `valgrind`
# (Debian packages of those names). Exits 1 when a bound is broken, printing both numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
short=${1:-1000}
long=${2:-20000}
vg_short=${3:-200}
vg_long=${4:-2000}
for tool in /usr/bin/time valgrind; do
    command -v "$tool" >/dev/null || { echo "memory-flat: $tool is missing (apt-get install time valgrind)"; exit 2; }
done
cargo build -q --release -p aeb-demo
aeb="${CARGO_TARGET_DIR:-target}/release/aeb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# The runs' directories have names of one length (`run-a`, `run-b`): a longer path would
# cost the path joins a different number of allocations, which is not the run's length.

# peak_rss FRAMES NAME: the run's maximum resident set size, KiB.
peak_rss() {
    /usr/bin/time -f '%M' -o "$tmp/rss" "$aeb" --virtual-clock --quiet --frames "$1" \
        --out "$tmp/run-$2" >/dev/null
    tail -n 1 "$tmp/rss"
}

# allocations FRAMES NAME: valgrind's count of heap allocations over the whole process.
allocations() {
    valgrind --tool=memcheck --leak-check=no "$aeb" --virtual-clock --quiet --frames "$1" \
        --out "$tmp/vg-$2" 2>"$tmp/vg-$2.log" >/dev/null
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$tmp/vg-$2.log" | tr -d ,
}

# The two measurements run side by side: valgrind keeps one CPU busy, the demo runs alongside
# on the other, and neither figure depends on time (peak RSS, allocation count).
started=$(date +%s)
(
    a=$(peak_rss "$short" a)
    b=$(peak_rss "$long" b)
    echo "$a $b $(($(date +%s) - started))" >"$tmp/rss"
) &
rss_pid=$!
x=$(allocations "$vg_short" a)
y=$(allocations "$vg_long" b)
vg_s=$(($(date +%s) - started))
wait "$rss_pid" || { echo "memory-flat: FAIL: a peak RSS run of the demo failed"; exit 1; }
read -r a b rss_s <"$tmp/rss"
echo "peak RSS: $short frames $a KiB, $long frames $b KiB (ratio $(awk "BEGIN{printf \"%.3f\", $b/$a}"), bound 1.2)"
if ! awk "BEGIN{exit !($b <= 1.2 * $a)}"; then
    echo "memory-flat: FAIL: peak RSS grows with the run's length"
    failed=1
fi
echo "($rss_s s)"

echo "heap allocations (valgrind): $vg_short frames $x, $vg_long frames $y"
if [ -z "$x" ] || [ "$x" != "$y" ]; then
    echo "memory-flat: FAIL: the allocation count depends on the run's length"
    failed=1
fi
echo "($vg_s s, side by side with the peak RSS runs)"
exit "$failed"
