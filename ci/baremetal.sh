#!/usr/bin/env bash
# The bare-metal example (examples/baremetal): the no_std executive core on a Cortex-M3 under
# QEMU (`lm3s6965evb`), as RTIC checks its QEMU examples. Builds the image, runs it with a
# timeout, decodes its defmt output with `defmt-print` and compares the log with the committed
# examples/baremetal/expected.txt. The image's clock is virtual, so the log is the same on
# every run.
#
# Needs: the thumbv7m-none-eabi target, qemu-system-arm and defmt-print on PATH
# (`cargo install defmt-print --locked`). A difference prints a unified diff and fails;
# `ORIN_EXEC_BLESS=1 ci/baremetal.sh` writes the new expected file instead (review it with
# `git diff` and commit).
set -euo pipefail
cd "$(dirname "$0")/../examples/baremetal"
bless=${ORIN_EXEC_BLESS:-0}
target_dir=${CARGO_TARGET_DIR:-../../target}/baremetal
elf=$target_dir/thumbv7m-none-eabi/release/baremetal-demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Its own workspace and target directory: a thumbv7m build (see .cargo/config.toml); outside
# the host workspace, so its formatting and lints are checked here.
cargo fmt --check
CARGO_TARGET_DIR=$target_dir cargo clippy -q --release --locked -- -D warnings
CARGO_TARGET_DIR=$target_dir cargo build -q --release --locked
# No allocator in the image: no crate in it (the core included) may allocate.
if nm "$elf" | grep -E '__rust_(alloc|dealloc|realloc)|\bmalloc\b'; then
    echo "the bare-metal image references an allocator"
    exit 1
fi
# The image ends with a semihosting exit: its status is QEMU's (0: the run went as planned).
status=0
timeout 60 qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -nographic \
    -semihosting-config enable=on,target=native -kernel "$elf" \
    >"$tmp/defmt.bin" 2>"$tmp/qemu.err" || status=$?
# Level and message only: the log does not change when a source line moves.
defmt-print -e "$elf" --log-format '{L} {s}' <"$tmp/defmt.bin" >"$tmp/log.txt"
if [ "$status" != 0 ]; then
    cat "$tmp/log.txt" "$tmp/qemu.err"
    echo "the image failed under QEMU (status $status; 124: the 60 s timeout)"
    exit 1
fi

if [ "$bless" = 1 ]; then
    cp "$tmp/log.txt" expected.txt
    echo "blessed examples/baremetal/expected.txt"
elif diff -u --label "expected.txt (committed)" --label "log (now)" expected.txt "$tmp/log.txt"; then
    echo "same as examples/baremetal/expected.txt ($(wc -l <expected.txt) lines)"
else
    echo "DIFFERENT from examples/baremetal/expected.txt (ORIN_EXEC_BLESS=1 $0 to accept)"
    exit 1
fi
