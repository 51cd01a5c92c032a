#!/usr/bin/env bash
# Runs a command while every CPU of the machine is kept busy by a load generator (one
# `yes > /dev/null` per CPU, at the command's own priority), and returns the command's status.
# CI runs the README's test command through it: the tests must hold on a saturated host.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: ci/under-load.sh COMMAND [ARGS...]" >&2; exit 2; }
cpus=$(nproc)
pids=()
stop_load() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true; }
trap stop_load EXIT
for _ in $(seq "$cpus"); do
    yes >/dev/null &
    pids+=($!)
done
echo "under-load: $cpus busy loops running (pids ${pids[*]})" >&2
"$@"
