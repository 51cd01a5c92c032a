#!/usr/bin/env bash
# The vendor calls of the `orin` build, and their SIL coverage (docs/orin-imports.md).
#
#   ci/orin-imports.sh [--update | --build]
#
# 1. Builds `aeb` (the AEB demo) and `hil` (the HIL bundle binary) for aarch64 Linux with
#    `--features orin` against the link stubs (ORIN_EXEC_LINK_STUBS=1), reads their imported
#    vendor symbols (tools/orin-imports) and compares them with docs/orin-imports.toml;
#    `--update` rewrites that file instead; `--build` only builds (CI's aarch64 step, so that
#    this script finds the build done).
# 2. Runs, on SIL, the AEB demo (virtual clock), the runtime's tests and the hil tests under gdb
#    with one breakpoint per listed symbol (tools/orin-imports/record.py) and checks that each
#    symbol was entered with shipped code (orin_exec, aeb, hil_tests) as its first caller
#    outside the -sys crates, or is listed with a reason in
#    tools/orin-imports/exceptions.toml. A new vendor call without such a SIL test fails.
#    The SIL programs are those of the README's test command's build (`cargo test
#    --workspace`), which CI has done before: no second build of the runtime.
#
# Needs gcc-aarch64-linux-gnu and gdb. Writes target/orin-exec/orin-imports/ (the cargo
# messages, the symbol list, one hits file per program, coverage.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
update=0 build_only=0
case ${1:-} in --update) update=1 ;; --build) build_only=1 ;; "") ;; *) sed -n '2,20p' "$0"; exit 2 ;; esac
[ "$build_only" = 1 ] || command -v gdb >/dev/null || { echo "ci/orin-imports.sh: gdb is not installed (apt-get install gdb)"; exit 1; }
target=${CARGO_TARGET_DIR:-target}
out=$target/orin-exec/orin-imports
rm -rf "$out"
mkdir -p "$out/hits"

echo "== the orin build for aarch64 (link stubs)"
ORIN_EXEC_LINK_STUBS=1 \
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=${CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER:-aarch64-linux-gnu-gcc} \
    cargo build -q -p aeb-demo -p hil-tests --bins --no-default-features --features orin \
    --target aarch64-unknown-linux-gnu --message-format=json >"$out/orin-build.json"
[ "$build_only" = 0 ] || exit 0
cargo build -q -p orin-exec-orin-imports
tool=$target/debug/orin-imports
if [ "$update" = 1 ]; then
    "$tool" list --cargo-messages "$out/orin-build.json" --bin aeb --bin hil --out docs/orin-imports.toml
else
    "$tool" list --cargo-messages "$out/orin-build.json" --bin aeb --bin hil --check docs/orin-imports.toml
fi
"$tool" symbols docs/orin-imports.toml >"$out/symbols.txt"
echo "$(wc -l <"$out/symbols.txt") vendor symbols imported"

echo "== SIL: the demo, the runtime's tests and the hil tests under gdb"
# The demo, `hil bench`, and every unit and integration test executable of the runtime and of
# hil-tests but the compile-fail suite (it runs cargo, not the runtime). They come from the
# workspace's test build (the README's test command: fresh when that ran before; a build of
# `-p orin-exec -p hil-tests` alone would resolve other features and rebuild the runtime),
# kept to those packages: the `aeb` program of aeb-demo, everything of orin-exec and hil-tests.
cargo test -q --workspace --no-run --message-format=json >"$out/sil-workspace.json"
python3 - "$(pwd -P)" "$out/sil-workspace.json" >"$out/sil-tests.json" <<'PY'
import json, sys
root, messages = sys.argv[1], sys.argv[2]
whole = {root + "/Cargo.toml", root + "/hil-tests/Cargo.toml"}
demo = root + "/examples/aeb/Cargo.toml"
for line in open(messages):
    m = json.loads(line)
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    demo_bin = m["target"]["kind"] == ["bin"] and not m["profile"]["test"]
    if m["manifest_path"] in whole or (m["manifest_path"] == demo and demo_bin):
        print(line, end="")
PY
n=0
# A program under gdb keeps about one CPU busy (gdb stops it at every listed call), so
# ORIN_IMPORTS_JOBS (default: the number of CPUs) programs run side by side; each has its
# own hits and log files, and the statuses are judged once all have ended.
jobs=${ORIN_IMPORTS_JOBS:-$(nproc)}
names=()
record() { # record NAME PROGRAM ARGS...
    local name=$((n += 1))-$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "-- $name"
    names+=("$name")
    (
        status=0
        ORIN_IMPORTS_SYMBOLS=$out/symbols.txt ORIN_IMPORTS_HITS=$out/hits/$name.txt \
        ORIN_IMPORTS_SHIPPED=orin_exec,aeb,hil_tests \
            timeout 900 gdb -nx -batch -x tools/orin-imports/record.py --args "$@" \
            >"$out/hits/$name.log" 2>&1 || status=$?
        echo "$status" >"$out/hits/$name.status"
    ) &
}
while read -r kind name exe; do
    case $kind:$name in
    bin:aeb) record aeb "$exe" --virtual-clock --frames 60 --quiet --out "$out/aeb-run" ;;
    # hil-tests' tests run `hil` as a child process, which gdb does not follow: `hil` itself
    # runs here, as tests/bench.rs runs it (its raw baselines are hil's own vendor calls).
    bin:hil) record hil-bench "$exe" bench --frames 12 --warmup 4 --json "$out/bench.json" ;;
    test:compile_fail | bin:*) ;;
    test:*) record "$name" "$exe" -q ;;
    esac
done < <("$tool" executables "$out/sil-tests.json")
wait
for name in "${names[@]}"; do
    if [ "$(cat "$out/hits/$name.status")" != 0 ]; then
        echo "ci/orin-imports.sh: $name failed under gdb:"
        tail -n 40 "$out/hits/$name.log"
        exit 1
    fi
done

"$tool" coverage docs/orin-imports.toml --exceptions tools/orin-imports/exceptions.toml \
    "$out"/hits/*.txt | tee "$out/coverage.txt"
