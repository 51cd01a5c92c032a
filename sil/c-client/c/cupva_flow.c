/*
 * cupva_flow.c: the cuPVA conformance client (issue 14): NvSciBuf memory in, an NvSciSync
 * pre-fence the CPU signals, a VPU program, its end-of-frame fence exported to NvSciSync, a
 * CPU wait, and the golden output. The program is a stand-in VPU ELF image (argv[1]) with the
 * SHA-256 argv[2]; the SIL runs it as the C model registered here (sil/README.md, "cuPVA").
 * Also: an image outside the allowlist is refused as PVA authentication refuses it.
 *
 * Usage: cupva_flow <elf image> <sha256 of the image, 64 hex digits>
 * Prints PASS and exits 0, or FAIL lines and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "cupva_api.h"

#include "check.h"

int failures;

#define PVA(call)                                                                  \
    do {                                                                           \
        cupvaError_t e_ = (call);                                                  \
        if (e_ != CUPVA_ERROR_NONE) {                                              \
            FAIL("%s returned %d", #call, (int)e_);                                \
            goto cleanup;                                                          \
        }                                                                          \
    } while (0)

enum { N = 256, GAIN = 5 };

/* scale(const uint8_t* src, uint8_t* dst, uint32_t n, uint32_t gain): dst[i] = src[i] * gain. */
static int32_t scale_model(void* user, const CupvaSilProgramRun* run) {
    int* calls = user;
    (*calls)++;
    if (run->numArgs != 4 || run->kinds[0] != CUPVA_SIL_PARAM_PTR ||
        run->kinds[1] != CUPVA_SIL_PARAM_PTR || run->kinds[2] != CUPVA_SIL_PARAM_U32) {
        return 1;
    }
    const uint8_t* src = (const uint8_t*)(uintptr_t)run->values[0];
    uint8_t* dst = (uint8_t*)(uintptr_t)run->values[1];
    uint32_t n = (uint32_t)run->values[2], gain = (uint32_t)run->values[3];
    for (uint32_t i = 0; i < n; i++) {
        dst[i] = (uint8_t)(src[i] * gain);
    }
    return 0;
}

static int parse_hash(const char* hex, uint8_t out[32]) {
    if (strlen(hex) != 64) {
        return -1;
    }
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    return 0;
}

static NvSciBufObj raw_buffer(NvSciBufModule mod, uint64_t size) {
    NvSciBufType ty = NvSciBufType_RawBuffer;
    NvSciBufAttrValAccessPerm perm = NvSciBufAccessPerm_ReadWrite;
    bool cpu = true;
    NvSciBufAttrKeyValuePair pairs[] = {
        {NvSciBufGeneralAttrKey_Types, &ty, sizeof ty},
        {NvSciBufRawBufferAttrKey_Size, &size, sizeof size},
        {NvSciBufGeneralAttrKey_RequiredPerm, &perm, sizeof perm},
        {NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu, sizeof cpu},
    };
    NvSciBufAttrList list = NULL, rec = NULL, conflict = NULL;
    NvSciBufObj obj = NULL;
    if (NvSciBufAttrListCreate(mod, &list) != NvSciError_Success ||
        CupvaMemFillAttributes(list) != CUPVA_ERROR_NONE ||
        NvSciBufAttrListSetAttrs(list, pairs, 4) != NvSciError_Success ||
        NvSciBufAttrListReconcile(&list, 1, &rec, &conflict) != NvSciError_Success ||
        NvSciBufObjAlloc(rec, &obj) != NvSciError_Success) {
        FAIL("NvSciBuf raw buffer of %llu bytes", (unsigned long long)size);
    }
    NvSciBufAttrListFree(list);
    NvSciBufAttrListFree(rec);
    return obj;
}

/* A deterministic NvSciSync object between the CPU and the PVA in role `pva`. */
static NvSciSyncObj sync_object(NvSciSyncModule mod, cupvaSyncClientType_t pva) {
    NvSciSyncAttrList pl = NULL, cl = NULL, rec = NULL, conflict = NULL;
    NvSciSyncObj obj = NULL;
    bool yes = true;
    NvSciSyncAccessPerm perm =
        pva == CUPVA_WAITER ? NvSciSyncAccessPerm_SignalOnly : NvSciSyncAccessPerm_WaitOnly;
    NvSciSyncAttrKeyValuePair pairs[] = {
        {NvSciSyncAttrKey_NeedCpuAccess, &yes, sizeof yes},
        {NvSciSyncAttrKey_RequiredPerm, &perm, sizeof perm},
        {NvSciSyncAttrKey_RequireDeterministicFences, &yes, sizeof yes},
    };
    if (NvSciSyncAttrListCreate(mod, &pl) != NvSciError_Success ||
        CupvaSyncObjFillAttributes(&pl, pva) != CUPVA_ERROR_NONE ||
        NvSciSyncAttrListCreate(mod, &cl) != NvSciError_Success ||
        NvSciSyncAttrListSetAttrs(cl, pairs, 3) != NvSciError_Success) {
        FAIL("NvSciSync attribute lists for role %d", (int)pva);
    } else {
        NvSciSyncAttrList lists[2] = {cl, pl};
        if (NvSciSyncAttrListReconcile(lists, 2, &rec, &conflict) != NvSciError_Success ||
            NvSciSyncObjAlloc(rec, &obj) != NvSciError_Success) {
            FAIL("NvSciSync object for role %d", (int)pva);
        }
    }
    NvSciSyncAttrListFree(pl);
    NvSciSyncAttrListFree(cl);
    NvSciSyncAttrListFree(rec);
    return obj;
}

static void set_u32(cupvaCmd_t* prog, const char* name, uint32_t v) {
    cupvaParameter_t p;
    if (CupvaCmdProgramGetParameter(prog, &p, name) != CUPVA_ERROR_NONE ||
        CupvaParameterSetValueScalar(&p, &v, sizeof v) != CUPVA_ERROR_NONE) {
        FAIL("parameter %s", name);
    }
}

static void set_ptr(cupvaCmd_t* prog, const char* name, const void* v) {
    cupvaParameter_t p;
    if (CupvaCmdProgramGetParameter(prog, &p, name) != CUPVA_ERROR_NONE ||
        CupvaParameterSetValuePointer(&p, v) != CUPVA_ERROR_NONE) {
        FAIL("parameter %s", name);
    }
}

int main(int argc, char** argv) {
    uint8_t hash[32], image[4096];
    size_t image_len = 0;
    int calls = 0;
    NvSciSyncModule sync_mod = NULL;
    NvSciBufModule buf_mod = NULL;
    NvSciSyncCpuWaitContext ctx = NULL;
    NvSciBufObj in_buf = NULL, out_buf = NULL;
    NvSciSyncObj pre_obj = NULL, eof_obj = NULL;
    NvSciSyncFence pre = {{0}}, eof = {{0}};
    cupvaExecutable_t exec = NULL;
    cupvaStream_t stream = NULL;
    cupvaSyncObj_t pre_sync = NULL, eof_sync = NULL;
    void *src = NULL, *dst = NULL;
    cupvaCmd_t prog, wait_cmd, req_cmd;
    cupvaFence_t wait_fence, eof_fence;
    cupvaCmdStatus_t status[3];
    uint8_t expected[N];

    if (argc != 3 || parse_hash(argv[2], hash) != 0) {
        fprintf(stderr, "usage: %s <elf image> <sha256 hex>\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[1], "rb");
    if (!f) {
        FAIL("cannot open %s", argv[1]);
        return 1;
    }
    image_len = fread(image, 1, sizeof image, f);
    fclose(f);

    /* Authentication: nothing is allowlisted yet. */
    CHECK(CupvaExecutableCreate(&exec, image, (int32_t)image_len) == CUPVA_DRIVER_API_ERROR,
          "an unlisted VPU ELF must be refused with CUPVA_DRIVER_API_ERROR");
    const char* names[4] = {"src", "dst", "n", "gain"};
    const uint32_t kinds[4] = {CUPVA_SIL_PARAM_PTR, CUPVA_SIL_PARAM_PTR, CUPVA_SIL_PARAM_U32,
                               CUPVA_SIL_PARAM_U32};
    PVA(CupvaSilRegisterProgramModel("scale", (const uint8_t(*)[32])hash, 1, names, kinds, 4,
                                     scale_model, &calls));
    PVA(CupvaSilAllowProgram(hash));
    PVA(CupvaExecutableCreate(&exec, image, (int32_t)image_len));

    SCI(NvSciSyncModuleOpen(&sync_mod));
    SCI(NvSciBufModuleOpen(&buf_mod));
    SCI(NvSciSyncCpuWaitContextAlloc(sync_mod, &ctx));
    in_buf = raw_buffer(buf_mod, N);
    out_buf = raw_buffer(buf_mod, N);
    pre_obj = sync_object(sync_mod, CUPVA_WAITER);
    eof_obj = sync_object(sync_mod, CUPVA_SIGNALER);
    if (failures) {
        goto cleanup;
    }
    uint8_t* in_cpu = NULL;
    const uint8_t* out_cpu = NULL;
    SCI(NvSciBufObjGetCpuPtr(in_buf, (void**)&in_cpu));
    SCI(NvSciBufObjGetConstCpuPtr(out_buf, (const void**)&out_cpu));
    for (int i = 0; i < N; i++) {
        in_cpu[i] = (uint8_t)(i * 13 + 1);
        expected[i] = (uint8_t)(((unsigned)(i * 13 + 1) % 256u) * GAIN % 256u);
    }

    PVA(CupvaMemImport(&src, in_buf, CUPVA_READ));
    PVA(CupvaMemImport(&dst, out_buf, CUPVA_READ_WRITE));
    PVA(CupvaSyncObjCreateFromNvsci(&pre_sync, pre_obj, CUPVA_WAITER));
    PVA(CupvaSyncObjCreateFromNvsci(&eof_sync, eof_obj, CUPVA_SIGNALER));
    PVA(CupvaStreamCreate(&stream, CUPVA_PVA0, CUPVA_VPU_ANY));
    PVA(CupvaCmdProgramCreate(&prog, exec));
    set_ptr(&prog, "src", src);
    set_ptr(&prog, "dst", dst);
    set_u32(&prog, "n", N);
    set_u32(&prog, "gain", GAIN);
    PVA(CupvaFenceInit(&wait_fence, pre_sync));
    PVA(CupvaCmdWaitOnFencesInit(&wait_cmd, &wait_fence, 1));
    PVA(CupvaFenceInit(&eof_fence, eof_sync));
    PVA(CupvaCmdRequestFencesInit(&req_cmd, &eof_fence, 1));

    /* The CPU's pre-fence, the program, the exported end-of-frame fence. */
    SCI(NvSciSyncObjGenerateFence(pre_obj, &pre));
    PVA(CupvaFenceImport(&wait_fence, &pre));
    const cupvaCmd_t* cmds[3] = {&wait_cmd, &prog, &req_cmd};
    PVA(CupvaStreamSubmit(stream, cmds, status, 3, CUPVA_IN_ORDER, 100, 100));
    PVA(CupvaFenceExport(&eof_fence, &eof));
    CHECK(NvSciSyncFenceWait(&eof, ctx, 20000) == NvSciError_Timeout,
          "the program must wait for the CPU's pre-fence");
    CHECK(calls == 0, "the model ran before the pre-fence was signalled");
    SCI(NvSciSyncObjSignal(pre_obj));
    SCI(NvSciSyncFenceWait(&eof, ctx, 10 * 1000 * 1000));
    cupvaError_t e = CUPVA_OPERATION_PENDING;
    PVA(CupvaCheckCommandStatus(status[1], &e));
    CHECK(e == CUPVA_ERROR_NONE, "program status %d", (int)e);
    CHECK(calls == 1, "the model ran %d times", calls);
    CHECK(memcmp(out_cpu, expected, N) == 0, "the output differs from the golden output");
    uint64_t ts = 0;
    PVA(CupvaFenceGetTimeStamp(&eof_fence, &ts));
    CHECK(ts > 0, "no timestamp on the end-of-frame fence");

cleanup:
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof);
    if (stream) CupvaStreamDestroy(stream);
    if (src) CupvaMemFree(src);
    if (dst) CupvaMemFree(dst);
    if (pre_sync) CupvaSyncObjDestroy(pre_sync);
    if (eof_sync) CupvaSyncObjDestroy(eof_sync);
    if (exec) CupvaExecutableDestroy(exec);
    if (pre_obj) NvSciSyncObjFree(pre_obj);
    if (eof_obj) NvSciSyncObjFree(eof_obj);
    if (in_buf) NvSciBufObjFree(in_buf);
    if (out_buf) NvSciBufObjFree(out_buf);
    if (ctx) NvSciSyncCpuWaitContextFree(ctx);
    if (buf_mod) NvSciBufModuleClose(buf_mod);
    if (sync_mod) NvSciSyncModuleClose(sync_mod);
    if (failures) {
        return 1;
    }
    printf("PASS\n");
    return 0;
}
