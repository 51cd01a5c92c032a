#!/usr/bin/env bash
# The vendor calls of the `orin` build, and their SIL coverage (docs/orin-imports.md).
#
#   ci/orin-imports.sh [--update]
#
# 1. Builds `aeb` (the AEB demo) and `hil` (the HIL bundle binary) for aarch64 Linux with
#    `--features orin` against the link stubs (ORIN_EXEC_LINK_STUBS=1), reads their imported
#    vendor symbols (tools/orin-imports) and compares them with docs/orin-imports.toml;
#    `--update` rewrites that file instead.
# 2. Runs, on SIL, the AEB demo (virtual clock), the runtime's tests and the hil tests under gdb
#    with one breakpoint per listed symbol (tools/orin-imports/record.py) and checks that each
#    symbol was entered with shipped code (orin_exec, aeb, hil_tests) as its first caller
#    outside the -sys crates, or is listed with a reason in
#    tools/orin-imports/exceptions.toml. A new vendor call without such a SIL test fails.
#
# Needs gcc-aarch64-linux-gnu and gdb. Writes target/orin-exec/orin-imports/ (the cargo
# messages, the symbol list, one hits file per program, coverage.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
case ${1:-} in --update) update=1 ;; "") ;; *) sed -n '2,18p' "$0"; exit 2 ;; esac
command -v gdb >/dev/null || { echo "ci/orin-imports.sh: gdb is not installed (apt-get install gdb)"; exit 1; }
target=${CARGO_TARGET_DIR:-target}
out=$target/orin-exec/orin-imports
rm -rf "$out"
mkdir -p "$out/hits"

echo "== the orin build for aarch64 (link stubs)"
ORIN_EXEC_LINK_STUBS=1 \
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=${CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER:-aarch64-linux-gnu-gcc} \
    cargo build -q -p aeb-demo -p hil-tests --bins --no-default-features --features orin \
    --target aarch64-unknown-linux-gnu --message-format=json >"$out/orin-build.json"
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
# hil-tests but the compile-fail suite (it runs cargo, not the runtime).
cargo build -q -p aeb-demo --bin aeb --message-format=json >"$out/sil-build.json"
cargo test -q -p orin-exec -p hil-tests --no-run --message-format=json >"$out/sil-tests.json"
n=0
record() { # record NAME PROGRAM ARGS...
    local name=$((n += 1))-$1
    shift
    echo "-- $name"
    ORIN_IMPORTS_SYMBOLS=$out/symbols.txt ORIN_IMPORTS_HITS=$out/hits/$name.txt \
    ORIN_IMPORTS_SHIPPED=orin_exec,aeb,hil_tests \
        timeout 900 gdb -nx -batch -x tools/orin-imports/record.py --args "$@" \
        >"$out/hits/$name.log" 2>&1 || {
        echo "ci/orin-imports.sh: $name failed under gdb:"
        tail -n 40 "$out/hits/$name.log"
        exit 1
    }
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
done < <("$tool" executables "$out/sil-build.json" "$out/sil-tests.json")

"$tool" coverage docs/orin-imports.toml --exceptions tools/orin-imports/exceptions.toml \
    "$out"/hits/*.txt | tee "$out/coverage.txt"
