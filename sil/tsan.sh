#!/usr/bin/env bash
# ThreadSanitizer run of the SIL libraries' tests (NvSciSync, NvSciBuf, the cuDLA FIFO worker,
# SIL CUDA streams) and of the runtime's own concurrent code (executive, CPU workers, board,
# trace ring), with std rebuilt with TSan.
#
#   sil/tsan.sh                 # every crate, every test
#   sil/tsan.sh --test stress   # extra arguments go to `cargo test`
#
# Needs the nightly toolchain with rust-src (`rustup component add rust-src --toolchain
# nightly`). No TSAN_OPTIONS or suppressions are needed: with -Zbuild-std the standard
# library (Mutex, Condvar, Arc, thread) is instrumented too, so TSan sees its
# synchronisation. `halt_on_error=1` makes the first report fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${TSAN_TARGET_DIR:-${CARGO_TARGET_DIR:-target}-tsan}"
export RUSTFLAGS="-Zsanitizer=thread ${RUSTFLAGS:-}"
export RUSTDOCFLAGS="-Zsanitizer=thread ${RUSTDOCFLAGS:-}"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# TSan enlarges stack frames; the runtime's test storage is built on the test thread's stack.
export RUST_MIN_STACK="${RUST_MIN_STACK:-33554432}"
# Without arguments, the tests that judge real-time behaviour are skipped: TSan slows every
# thread down by an order of magnitude, so their deadlines say nothing under it.
# The compile-fail test compares the stable compiler's messages; this run uses nightly.
[ $# -gt 0 ] || set -- -- --skip real_time_frames_match --skip no_drift_in_real_time \
    --skip forging_routes_do_not_compile
exec cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu \
    -p sil-nvscisync -p sil-nvscibuf -p sil-cudla -p sil-cuda -p orin-exec --lib --tests "$@"
