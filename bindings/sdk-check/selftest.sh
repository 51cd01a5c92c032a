#!/usr/bin/env bash
# Self-test of sdkcheck.py without a vendor SDK: generate fake headers from the
# bindings themselves, check that they pass, then break them one way at a time and
# check that each break is reported (and makes the check fail).
# Prerequisites: python3, a C compiler (cc/gcc/clang; override with CC=...).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
TOOL=(python3 "$HERE/sdkcheck.py")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fails=0

"${TOOL[@]}" --emit-fake-headers "$TMP/base" >/dev/null || { echo "FAIL: emitting fake headers"; exit 1; }

# run NAME EXPECTED_RC PATTERN DIR [ARGS...]
run() {
    local name=$1 want=$2 pat=$3 dir=$4; shift 4
    local out rc
    out="$("${TOOL[@]}" "$@" "$dir" 2>&1)"; rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -qE -- "$pat" <<<"$out"; then
        echo "FAIL: $name (rc $rc, want $want; pattern '$pat')"; echo "$out" | sed 's/^/    /'
        fails=$((fails + 1))
    else
        echo "ok:   $name"
    fi
}

# mutate NAME FILE PERL-EXPR PATTERN [RC]: copy the base headers, apply the edit, expect
# exit status RC (default 1: a DIFF) and PATTERN in the output.
mutate() {
    local name=$1 file=$2 expr=$3 pat=$4 want=${5:-1} dir="$TMP/m$RANDOM$RANDOM"
    cp -r "$TMP/base" "$dir"
    perl -0pi -e "$expr" "$dir/$file"
    if cmp -s "$TMP/base/$file" "$dir/$file"; then
        echo "FAIL: $name (the edit changed nothing)"; fails=$((fails + 1)); return
    fi
    run "$name" "$want" "$pat" "$dir"
}

run "fake headers match the bindings" 0 "^0 difference" "$TMP/base"

mutate "enum value changed" nvscierror.h 's/NvSciError_Timeout = 512,/NvSciError_Timeout = 513,/' \
    "DIFF: nvsci-sys: constant NvSciError_Timeout: bindings 512, header 513"
mutate "macro value changed" nvscisync.h 's/(NvSciSyncAccessPerm_SignalOnly \(\(NvSciSyncAccessPerm\))2ULL/${1}4ULL/' \
    "constant NvSciSyncAccessPerm_SignalOnly"
mutate "field inserted" cudla.h 's/(cudlaSignalEvents \{.*?)(    uint32_t numEvents;)/$1    uint32_t extra;\n$2/s' \
    "offsetof\(cudlaSignalEvents, numEvents\): bindings 16, header 20"
mutate "field type changed" nvscisync.h 's/uint64_t payload\[6\];/uint64_t payload[7];/' \
    "type of NvSciSyncFence.payload = uint64_t\[6\]: incompatible"
mutate "fields swapped" cudla.h 's/(    uint64_t \* const \* outputTensor;\n)(.*?)(    uint64_t const \* const \* inputTensor;\n)/$3$2$1/s' \
    "offsetof\(cudlaTask, outputTensor\): bindings 8, header 24"
mutate "function removed" cuda.h 's/^CUresult cuEventQuery\(.*\n//m' \
    "cuEventQuery: .* not in the headers"
mutate "parameter constness changed" nvscibuf.h 's/NvSciBufAttrKeyValuePair \* pairArray, size_t pairCount\);\nNvSciError NvSciBufAttrListGetAttrs/NvSciBufAttrKeyValuePair const * pairArray, size_t pairCount);\nNvSciError NvSciBufAttrListGetAttrs/' \
    "NvSciBufAttrListSetAttrs: .* incompatible"
mutate "parameter added" cudla.h 's/cudlaStatus cudlaGetLastError\(cudlaDevHandle devHandle\);/cudlaStatus cudlaGetLastError(cudlaDevHandle devHandle, uint32_t flags);/' \
    "cudlaGetLastError: .* incompatible"
mutate "return type changed" cuda.h 's/^CUresult cuCtxSynchronize\(void\);/int cuCtxSynchronize(void);/m' \
    "cuCtxSynchronize: .* incompatible"
mutate "enumerator added to a complete enum" nvscisync.h 's/(NvSciSyncAttrKey_UpperBound = 14,)/$1\n    NvSciSyncAttrKey_Extra = 15,/' \
    "enumerator NvSciSyncAttrKey_Extra of NvSciSyncAttrKey is in the header but not in the bindings"
mutate "enumerator added to a subset enum is not reported" cuda.h 's/(CUDA_SUCCESS = 0,)/$1\n    CUDA_ERROR_SOMETHING_NEW = 12345,/' \
    "^0 difference" 0
mutate "symbol renamed by a macro" cuda.h 's/#endif\s*$/#define cuEventElapsedTime cuEventElapsedTime_v2\nCUresult cuEventElapsedTime_v2(float * a, CUevent b, CUevent c);\n#endif\n/' \
    "maps cuEventElapsedTime to .cuEventElapsedTime_v2."
mutate "packed attribute dropped" nvscisync.h 's/typedef struct __attribute__\(\(packed\)\) NvSciSyncTaskStatus/typedef struct NvSciSyncTaskStatus/' \
    "align\(NvSciSyncTaskStatus\): bindings 1, header 8"
mutate "alias changed" cuda.h 's/typedef unsigned long long CUdeviceptr;/typedef unsigned int CUdeviceptr;/' \
    "typedef CUdeviceptr = unsigned long long: incompatible"
mutate "anonymous union member moved" cuda.h 's/(CUstreamMemOpWaitValueParams_st \{\n.*?\n.*?\n)(    union \{\n.*?\n.*?\n    \};\n)(    unsigned int flags;\n)/$1$3$2/s' \
    "offsetof\(CUstreamMemOpWaitValueParams_st, value64\) \(anonymous member\): bindings 16"

# version constants: a warning, an error only with --strict-versions
vdir="$TMP/version"; cp -r "$TMP/base" "$vdir"
perl -pi -e 's/(#define CUDA_VERSION \(\(int\))12060ULL/${1}13000ULL/' "$vdir/cuda.h"
run "version differs: warning only" 0 "warning: cuda-sys: constant CUDA_VERSION" "$vdir"
run "version differs: --strict-versions" 1 "DIFF: cuda-sys: constant CUDA_VERSION" "$vdir" --strict-versions

# a missing header is a difference unless the crate is left out with --only
hdir="$TMP/noheader"; cp -r "$TMP/base" "$hdir"; rm "$hdir/cudla.h"
run "missing header" 1 "cudla-sys: header\(s\) cudla.h not found" "$hdir"
run "missing header, --only" 0 "^0 difference" "$hdir" --only nvsci-sys,cuda-sys

if [ "$fails" -ne 0 ]; then echo "selftest: $fails failure(s)"; exit 1; fi
echo "selftest: all passed"
