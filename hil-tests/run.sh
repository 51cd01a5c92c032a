#!/usr/bin/env bash
# The HIL rig run: executes the bundled `hil` binary on the GPU machine (no Rust toolchain
# needed) and writes every result to RESULTS_DIR, with summary.txt (PASS/FAIL per step).
#
#   run.sh RESULTS_DIR [options] [STEP...]
#
# Steps (default: all, in this order; each one's output is RESULTS_DIR/<step>.log):
#   platform     hil platform: libraries, GPU, SM, driver, real-time permissions, cubin hashes
#   nvidia-smi   nvidia-smi -q (SKIP where nvidia-smi is missing)
#   b2b          back-to-back: every kernel vs its reference model (RESULTS_DIR/b2b/b2b.json)
#   bench        hil bench: raw driver baselines vs the runtime (RESULTS_DIR/bench.log and
#                RESULTS_DIR/bench/bench.json); fails only on a wrong detection or an error
#   sanitizer    compute-sanitizer --tool memcheck on a short b2b run (SKIP without it / on --sil)
#   scenario     the AEB scenario, 10,000 frames in real time (RESULTS_DIR/scenario/)
#   compare      the scenario's per-frame outputs vs the bundled SIL reference run (exact)
#   projects     every user project of the bundle (bin/projects/NAME, built by bundle.sh from
#                HIL_PROJECTS), 1000 frames each, its run directory in RESULTS_DIR/projects/NAME;
#                the project's exit status is the verdict (SKIP when the bundle has none)
#
# Options:
#   --sil           use bin/hil-sil instead of bin/hil-rig (tests this script without a GPU)
#   --frames N      scenario frames (default 10000; fewer is a trial run: compare then checks
#                   the common prefix only and summary.txt says so)
#   --trials N      b2b trials per kernel (default 200)
#   --seed S        b2b seed (default 1)
#   --pack DIR      after every step, write DIR/hil-results.tar.gz (all of RESULTS_DIR) and
#                   DIR/summary.txt, so a run cut off by a time limit still leaves its results
# Environment: HIL_SCENARIO_ARGS (extra `hil scenario` arguments, e.g. --virtual-clock on
# --sil), HIL_BENCH_ARGS (extra `hil bench` arguments, e.g. --frames 200).
#
# Exit status: 0 if every step run passed (or was skipped), 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
case $1 in -h | --help) usage ;; esac
results=$1
shift
mode=rig frames=10000 trials=200 seed=1 pack= steps=()
while [ $# -gt 0 ]; do
    case $1 in
    --sil) mode=sil ;;
    --frames) frames=$2; shift ;;
    --trials) trials=$2; shift ;;
    --seed) seed=$2; shift ;;
    --pack) pack=$2; shift ;;
    -h | --help) usage ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) steps+=("$1") ;;
    esac
    shift
done
all=(platform nvidia-smi b2b bench sanitizer scenario compare projects)
[ ${#steps[@]} -gt 0 ] || steps=("${all[@]}")
for s in "${steps[@]}"; do
    case " ${all[*]} " in *" $s "*) ;; *) echo "run.sh: unknown step $s" >&2; exit 2 ;; esac
done

hil=$here/bin/hil-$mode
[ -x "$hil" ] || { echo "run.sh: $hil missing" >&2; exit 2; }
mkdir -p "$results/steps"
results=$(cd "$results" && pwd)
# The runtime checks these too (and sets them when unset): no lazy module loading, no PTX JIT.
export CUDA_MODULE_LOADING=EAGER CUDA_DISABLE_PTX_JIT=1
reference=$here/reference/sil-aeb

# step NAME TIMEOUT_S CMD...: run, log, record PASS / FAIL / TIMEOUT with exit code and time.
step() {
    local name=$1 limit=$2
    shift 2
    echo "=== $name: $*" | tee "$results/$name.log"
    local t0 rc
    t0=$(date +%s)
    timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$results/$name.log"
    rc=${PIPESTATUS[0]}
    local status=PASS
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status=TIMEOUT; elif [ "$rc" -ne 0 ]; then status=FAIL; fi
    echo "$status rc=$rc seconds=$(($(date +%s) - t0))" >"$results/steps/$name"
    echo "=== $name: $status (exit $rc)"
}

skip() {
    echo "SKIP $2" >"$results/steps/$1"
    echo "=== $1: SKIP ($2)" | tee "$results/$1.log"
}

summary() {
    local f=$results/summary.txt gpu driver overall=PASS
    if command -v nvidia-smi >/dev/null 2>&1; then
        gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
        driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
    fi
    [ -n "${gpu:-}" ] || gpu=$(sed -n 's/^CUDA driver *//p' "$results/platform.log" 2>/dev/null | head -1)
    {
        echo "orin-exec HIL rig run ($mode binary)"
        echo "date:      $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host:      $(uname -n) $(uname -sr) $(uname -m)"
        echo "gpu:       ${gpu:-unknown}"
        echo "driver:    ${driver:-unknown}"
        echo "bundle:    $(sed -n 's/^git: *//p' "$here/BUILD-INFO.txt" 2>/dev/null)"
        echo "scenario:  $frames frames$([ "$frames" -ne 10000 ] && echo ' (TRIAL RUN: the acceptance run is 10000 frames)')"
        echo
        # Each user project is a step of its own (project-NAME), listed after `projects`.
        local names=("${all[@]}") p
        for p in "$results"/steps/project-*; do
            [ -f "$p" ] && names+=("$(basename "$p")")
        done
        for s in "${names[@]}"; do
            if [ "$s" = projects ] && ls "$results"/steps/project-* >/dev/null 2>&1; then
                continue
            fi
            if [ -f "$results/steps/$s" ]; then
                local st
                st=$(cat "$results/steps/$s")
                printf '%-11s %s\n' "$s" "$st"
                case $st in PASS* | SKIP*) ;; *) overall=FAIL ;; esac
            else
                printf '%-11s %s\n' "$s" "not run"
            fi
        done
        echo
        echo "OVERALL: $overall (of the steps run)"
        echo
        [ -f "$results/b2b.log" ] && grep -E '^\s+\[(PASS|FAIL)\]|FAILURE' "$results/b2b.log"
        [ -f "$results/scenario.log" ] && grep -E '^\[(PASS|FAIL)\]|sha256|^decisions' "$results/scenario.log"
        [ -f "$results/compare.log" ] && grep -E '^(IDENTICAL|DIFFERENT)|^  [AB]:' "$results/compare.log"
        [ -f "$results/bench.log" ] && grep -E '^\[|^  (raw|orin-exec)|^    orin-exec' "$results/bench.log"
        [ -f "$results/sanitizer.log" ] && grep -E 'ERROR SUMMARY' "$results/sanitizer.log"
    } >"$f"
    if [ -n "$pack" ]; then
        mkdir -p "$pack"
        tar -czf "$pack/hil-results.tar.gz" -C "$(dirname "$results")" "$(basename "$results")"
        cp "$f" "$pack/summary.txt"
    fi
    [ "$overall" = PASS ]
}

sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
for s in "${steps[@]}"; do
    case $s in
    platform) step platform 120 "$hil" platform ;;
    nvidia-smi)
        if command -v nvidia-smi >/dev/null 2>&1; then
            step nvidia-smi 120 nvidia-smi -q
        else
            skip nvidia-smi "nvidia-smi not found"
        fi
        ;;
    b2b) step b2b 600 "$hil" b2b --trials "$trials" --seed "$seed" --out "$results/b2b" ;;
    bench)
        mkdir -p "$results/bench"
        # shellcheck disable=SC2086
        step bench 600 "$hil" bench --json "$results/bench/bench.json" ${HIL_BENCH_ARGS:-}
        ;;
    sanitizer)
        if [ "$mode" = sil ]; then
            skip sanitizer "the sil binary has no CUDA driver to check"
        elif [ -z "$sanitizer" ]; then
            skip sanitizer "compute-sanitizer not found"
        else
            step sanitizer 600 "$sanitizer" --tool memcheck --error-exitcode 99 --print-limit 50 \
                "$hil" b2b --trials 3 --seed 5 --max-elements 65536 --out "$results/sanitizer"
        fi
        ;;
    scenario)
        # shellcheck disable=SC2086
        step scenario $((frames / 30 + 120)) "$hil" scenario aeb --frames "$frames" \
            --out "$results/scenario" ${HIL_SCENARIO_ARGS:-}
        ;;
    compare)
        if [ "$frames" -eq 10000 ]; then
            step compare 120 "$hil" compare "$reference" "$results/scenario"
        else
            step compare 120 "$hil" compare --allow-prefix "$reference" "$results/scenario"
        fi
        ;;
    projects)
        if [ "$mode" = sil ] || ! ls "$here"/bin/projects/* >/dev/null 2>&1; then
            skip projects "no user project in the bundle (or --sil)"
        else
            for p in "$here"/bin/projects/*; do
                name=$(basename "$p")
                mkdir -p "$results/projects"
                step "project-$name" 300 "$p" --frames 1000 --out "$results/projects/$name"
            done
        fi
        ;;
    esac
    summary >/dev/null
done
summary
rc=$?
cat "$results/summary.txt"
exit $rc
