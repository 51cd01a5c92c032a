#!/usr/bin/env bash
# Self-test of sdkcheck.py without a vendor SDK: generate fake headers from the
# bindings themselves, check that they pass, then break them one way at a time and
# check that each break is reported (and makes the check fail). Part 1 tests the C-probe
# stage, part 2 the bindgen stage.
#
# Prerequisites: python3, a C compiler (cc/gcc/clang; override with CC=...). Part 2 also
# needs libclang (apt install libclang-dev clang) and cargo; it installs the pinned
# bindgen-cli into the cache directory if it is not on PATH (about 1.5 minutes on
# 2 cores, once). SDKCHECK_BINDGEN=1 makes part 2 mandatory (missing prerequisites fail
# the self-test), SDKCHECK_BINDGEN=0 skips it; unset, part 2 runs when libclang and
# cargo are there and is skipped with a notice otherwise.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
TOOL=(python3 "$HERE/sdkcheck.py")
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fails=0
STAGE=(--no-bindgen)

"${TOOL[@]}" --emit-fake-headers "$TMP/base" >/dev/null || { echo "FAIL: emitting fake headers"; exit 1; }

# run NAME EXPECTED_RC PATTERN DIR [ARGS...]: run the stage(s) in STAGE on DIR. PATTERN
# is one or more extended regexes separated by " ;; ", each of which must match a line.
run() {
    local name=$1 want=$2 pat=$3 dir=$4; shift 4
    local out rc found=1 p rest
    out="$("${TOOL[@]}" "${STAGE[@]}" "$@" "$dir" 2>&1)"; rc=$?
    rest=$pat
    while :; do
        p=${rest%% ;; *}
        grep -qE -- "$p" <<<"$out" || found=0
        [ "$p" = "$rest" ] && break
        rest=${rest#* ;; }
    done
    if [ "$rc" -ne "$want" ] || [ "$found" -ne 1 ]; then
        echo "FAIL: $name (rc $rc, want $want; pattern '$pat')"; echo "$out" | sed 's/^/    /'
        fails=$((fails + 1))
    else
        echo "ok:   $name"
    fi
}

# mutate NAME FILE PERL-EXPR PATTERN [RC]: copy the base headers, apply the edit, expect
# exit status RC (default 1: a DIFF) and PATTERN in the output. The bindgen stage checks
# only the crate whose header was edited (the C-probe stage checks all three).
mutate() {
    local name=$1 file=$2 expr=$3 pat=$4 want=${5:-1} dir="$TMP/m$RANDOM$RANDOM" only=()
    cp -r "$TMP/base" "$dir"
    perl -0pi -e "$expr" "$dir/$file"
    if cmp -s "$TMP/base/$file" "$dir/$file"; then
        echo "FAIL: $name (the edit changed nothing)"; fails=$((fails + 1)); return
    fi
    if [ "${STAGE[0]}" = --bindgen-only ]; then
        case $file in
            nvsci*) only=(--only nvsci-sys) ;;
            cudla.h) only=(--only cudla-sys) ;;
            cuda.h) only=(--only cuda-sys) ;;
            cupva_host.h) only=(--only cupva-sys) ;;
        esac
    fi
    run "$name" "$want" "$pat" "$dir" "${only[@]}"
}

echo "== part 1: C-probe stage"
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
mutate "parameter constness changed" nvscibuf.h 's/(NvSciBufAttrListSetAttrs\(NvSciBufAttrList attrList, )NvSciBufAttrKeyValuePair \* pairArray/${1}NvSciBufAttrKeyValuePair const * pairArray/' \
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
# cuPVA (cupva-sys): the by-value fence storage, an enum value, the submit timeouts and
# an NvSci interop call
mutate "cuPVA: fence size changed" cupva_host.h 's/(cupvaFence_t \{\n    uint64_t data)\[6\]/${1}[8]/' \
    "size\(cupvaFence_t\): bindings 48, header 64 ;; type of cupvaFence_t.data = uint64_t\[6\]: incompatible"
mutate "cuPVA: enum value changed" cupva_host.h 's/CUPVA_VPU0 = 1,/CUPVA_VPU0 = 5,/' \
    "DIFF: cupva-sys: constant CUPVA_VPU0: bindings 1, header 5"
mutate "cuPVA: timeout parameter widened" cupva_host.h 's/int32_t executionTimeout/int64_t executionTimeout/' \
    "CupvaStreamSubmit: .* incompatible"
mutate "cuPVA: function removed" cupva_host.h 's/^cupvaError_t CupvaFenceExport\(.*\n//m' \
    "CupvaFenceExport: .* not in the headers"

# version constants: a warning, an error only with --strict-versions
vdir="$TMP/version"; cp -r "$TMP/base" "$vdir"
perl -pi -e 's/(#define CUDA_VERSION \(\(int\))12060ULL/${1}13000ULL/' "$vdir/cuda.h"
run "version differs: warning only" 0 "warning: cuda-sys: constant CUDA_VERSION" "$vdir"
run "version differs: --strict-versions" 1 "DIFF: cuda-sys: constant CUDA_VERSION" "$vdir" --strict-versions

# a missing header is a difference unless the crate is left out with --only
hdir="$TMP/noheader"; cp -r "$TMP/base" "$hdir"; rm "$hdir/cudla.h"
run "missing header" 1 "cudla-sys: header\(s\) cudla.h not found" "$hdir"
run "missing header, --only" 0 "^0 difference" "$hdir" --only nvsci-sys,cuda-sys

# ------------------------------------------------------------------------------------
# Part 2: the bindgen stage (bindgen + sdkcmp), on the same fake headers and breaks.
# ------------------------------------------------------------------------------------
echo "== part 2: bindgen stage"
bindgen_part=${SDKCHECK_BINDGEN:-auto}
if [ "$bindgen_part" = 0 ]; then
    echo "skipped: SDKCHECK_BINDGEN=0"
elif [ "$bindgen_part" = auto ]; then
    if "${TOOL[@]}" --bindgen-status >"$TMP/status" 2>&1; then
        bindgen_part=1
    else
        echo "skipped: the bindgen stage needs libclang and cargo (set SDKCHECK_BINDGEN=1 to require it):"
        sed 's/^/    /' "$TMP/status"
        bindgen_part=0
    fi
fi
if [ "$bindgen_part" = 1 ]; then
    if ! "${TOOL[@]}" --bindgen-setup >"$TMP/setup" 2>&1; then
        echo "FAIL: bindgen stage setup (bindgen-cli install or sdkcmp build)"; sed 's/^/    /' "$TMP/setup"
        exit 1
    fi
    sed 's/^/    /' "$TMP/setup"
    STAGE=(--bindgen-only --bindgen "$(sed -n 's/^bindgen: //p' "$TMP/setup")")
    B="DIFF: bindgen"

    run "bindgen: fake headers match the bindings" 0 "^bindgen stage: 0 difference" "$TMP/base"
    STAGE_SAVED=("${STAGE[@]}"); STAGE=("${STAGE[@]:1}")  # both stages at once
    run "both stages: fake headers match the bindings" 0 "^total: 0 difference" "$TMP/base"
    STAGE=("${STAGE_SAVED[@]}")

    mutate "bindgen: enum value changed" nvscierror.h 's/NvSciError_Timeout = 512,/NvSciError_Timeout = 513,/' \
        "$B: nvsci-sys: enumerator NvSciError_Timeout of NvSciError: ours 512, SDK 513"
    mutate "bindgen: macro value changed" nvscisync.h 's/(NvSciSyncAccessPerm_SignalOnly \(\(NvSciSyncAccessPerm\))2ULL/${1}4ULL/' \
        "$B: nvsci-sys: constant NvSciSyncAccessPerm_SignalOnly: ours 2, SDK 4"
    mutate "bindgen: fields reordered" cudla.h 's/(    uint64_t \* const \* outputTensor;\n)(.*?)(    uint64_t const \* const \* inputTensor;\n)/$3$2$1/s' \
        "$B: cudla-sys: cudlaTask: fields in a different order: ours \(moduleHandle, outputTensor, .* ;; $B: cudla-sys: offset\(cudlaTask.outputTensor\): ours 8, SDK 24"
    mutate "bindgen: struct size changed" nvscisync.h 's/uint64_t payload\[6\];/uint64_t payload[7];/' \
        "$B: nvsci-sys: type of field NvSciSyncFence.payload: ours .\[u64; 6\]., SDK .\[u64; 7\]. ;; $B: nvsci-sys: size\(NvSciSyncFence\): ours 48, SDK 56"
    mutate "bindgen: parameter type changed" cudla.h 's/(cudlaCreateDevice\(uint64_t device, cudlaDevHandle \* devHandle, )uint32_t flags/${1}uint16_t flags/' \
        "$B: cudla-sys: function cudlaCreateDevice: parameter 3 \(.flags.\): ours .u32., SDK .u16."
    mutate "bindgen: parameter constness changed" nvscibuf.h 's/(NvSciBufAttrListSetAttrs\(NvSciBufAttrList attrList, )NvSciBufAttrKeyValuePair \* pairArray/${1}NvSciBufAttrKeyValuePair const * pairArray/' \
        "$B: nvsci-sys: function NvSciBufAttrListSetAttrs: parameter 2 \(.pairArray.\): ours .\*mut NvSciBufAttrKeyValuePair., SDK .\*const"
    mutate "bindgen: parameter added" cudla.h 's/cudlaStatus cudlaGetLastError\(cudlaDevHandle devHandle\);/cudlaStatus cudlaGetLastError(cudlaDevHandle devHandle, uint32_t flags);/' \
        "$B: cudla-sys: function cudlaGetLastError: ours takes 1 parameter\(s\) \(\*mut cudlaDevHandle_t\), the SDK 2"
    mutate "bindgen: return type changed" cuda.h 's/^CUresult cuCtxSynchronize\(void\);/int64_t cuCtxSynchronize(void);/m' \
        "$B: cuda-sys: function cuCtxSynchronize: return type: ours .CUresult., SDK .i64."
    mutate "bindgen: function removed" cuda.h 's/^CUresult cuEventQuery\(.*\n//m' \
        "$B: cuda-sys: function cuEventQuery: not in the SDK"
    mutate "bindgen: function renamed by a macro" cuda.h 's/^CUresult cuEventElapsedTime\(/#define cuEventElapsedTime cuEventElapsedTime_v2\nCUresult cuEventElapsedTime(/m' \
        "$B: cuda-sys: function cuEventElapsedTime: not in the SDK, which has cuEventElapsedTime_v2"
    mutate "bindgen: constant removed" cudla.h 's/^#define CUDLA_PIXEL_FORMAT_FEATURE .*\n//m' \
        "$B: cudla-sys: constant CUDLA_PIXEL_FORMAT_FEATURE: not in the SDK"
    mutate "bindgen: enumerator added to a complete enum" nvscisync.h 's/(NvSciSyncAttrKey_UpperBound = 14,)/$1\n    NvSciSyncAttrKey_Extra = 15,/' \
        "$B: nvsci-sys: enumerator NvSciSyncAttrKey_Extra of NvSciSyncAttrKey is in the SDK but not in ours"
    mutate "bindgen: enumerator added to a subset enum is not reported" cuda.h 's/(CUDA_SUCCESS = 0,)/$1\n    CUDA_ERROR_SOMETHING_NEW = 12345,/' \
        "^bindgen stage: 0 difference" 0
    mutate "bindgen: enumerator matching \`except\` is not reported" nvscierror.h 's/(NvSciError_Timeout = 512,)/$1\n    NvSciError_StreamBadPacket = 50331650,/' \
        "^bindgen stage: 0 difference" 0
    mutate "bindgen: field inserted" cudla.h 's/(cudlaSignalEvents \{.*?)(    uint32_t numEvents;)/$1    uint32_t extra;\n$2/s' \
        "$B: cudla-sys: field cudlaSignalEvents.extra: in the SDK but not in ours"
    mutate "bindgen: field type changed, same size" cudla.h 's/(cudlaWaitEvents \{.*?)uint32_t numEvents;/${1}int32_t numEvents;/s' \
        "$B: cudla-sys: type of field cudlaWaitEvents.numEvents: ours .u32., SDK .i32."
    mutate "bindgen: packed attribute dropped" nvscisync.h 's/typedef struct __attribute__\(\(packed\)\) NvSciSyncTaskStatus/typedef struct NvSciSyncTaskStatus/' \
        "$B: nvsci-sys: NvSciSyncTaskStatus: packed in ours, not packed in the SDK ;; $B: nvsci-sys: align\(NvSciSyncTaskStatus\): ours 1, SDK 8"
    mutate "bindgen: alias changed" cuda.h 's/typedef unsigned long long CUdeviceptr;/typedef unsigned int CUdeviceptr;/' \
        "$B: cuda-sys: type CUdeviceptr: ours .u64., SDK .u32."
    mutate "bindgen: anonymous union member moved" cuda.h 's/(CUstreamMemOpWaitValueParams_st \{\n.*?\n.*?\n)(    union \{\n.*?\n.*?\n    \};\n)(    unsigned int flags;\n)/$1$3$2/s' \
        "$B: cuda-sys: CUstreamMemOpWaitValueParams_st: fields in a different order: ours \(operation, address, value \(anonymous member\), flags, alias\), SDK \(operation, address, flags, \(anonymous member 1\), alias\)"
    mutate "bindgen: anonymous union member type changed" cuda.h 's/(CUstreamMemOpWaitValueParams_st \{.*?)cuuint64_t value64;/${1}cuuint32_t value64;/s' \
        "$B: cuda-sys: type of field CUstreamMemOpValue \(anonymous member .value. of CUstreamMemOpWaitValueParams_st\) \[SDK CUstreamMemOpWaitValueParams_st__bindgen_ty_1\]\.value64: ours .u64., SDK .u32. ;; $B: cuda-sys: size\(CUstreamMemOpValue .*\): ours 8, SDK 4"
    mutate "bindgen: nested struct changed" cuda.h 's/(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params \{.*?)unsigned int reserved\[10\];/${1}unsigned int reserved[12];/s' \
        "$B: cuda-sys: type of field CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params.reserved: ours .\[u32; 10\]., SDK .\[u32; 12\]. ;; $B: cuda-sys: size\(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params\): ours 72, SDK 80"
    mutate "bindgen: cuPVA: fence size changed" cupva_host.h 's/(cupvaFence_t \{\n    uint64_t data)\[6\]/${1}[8]/' \
        "$B: cupva-sys: type of field cupvaFence_t.data: ours .\[u64; 6\]., SDK .\[u64; 8\]. ;; $B: cupva-sys: size\(cupvaFence_t\): ours 48, SDK 64"
    mutate "bindgen: cuPVA: enum value changed" cupva_host.h 's/CUPVA_VPU0 = 1,/CUPVA_VPU0 = 5,/' \
        "$B: cupva-sys: enumerator CUPVA_VPU0 of cupvaAffinityType_t: ours 1, SDK 5"
    mutate "bindgen: cuPVA: timeout parameter widened" cupva_host.h 's/int32_t executionTimeout/int64_t executionTimeout/' \
        "$B: cupva-sys: function CupvaStreamSubmit: parameter 6 \(.executionTimeout.\): ours .i32., SDK .i64."
    mutate "bindgen: cuPVA: NvSci interop call removed" cupva_host.h 's/^cupvaError_t CupvaFenceExport\(.*\n//m' \
        "$B: cupva-sys: function CupvaFenceExport: not in the SDK"

    vdir="$TMP/version"
    run "bindgen: version differs: warning only" 0 "warning: bindgen: cuda-sys: constant CUDA_VERSION: ours 0x2f1c \(12060\), SDK 0x32c8 \(13000\)" "$vdir"
    run "bindgen: version differs: --strict-versions" 1 "$B: cuda-sys: constant CUDA_VERSION" "$vdir" --strict-versions
    run "bindgen: missing header" 1 "$B: cudla-sys: header\(s\) cudla.h not found" "$hdir"
    run "bindgen: missing header, --only" 0 "^bindgen stage: 0 difference" "$hdir" --only nvsci-sys,cuda-sys
fi

if [ "$fails" -ne 0 ]; then echo "selftest: $fails failure(s)"; exit 1; fi
echo "selftest: all passed"
