/*
 * cupva_common.c: the pieces the cuPVA C clients share (see cupva_common.h).
 */
#include "cupva_common.h"

#include <stdio.h>
#include <string.h>

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

int scale_image_read(struct scale_image* img, int argc, char** argv) {
    if (argc != 3 || parse_hash(argv[2], img->hash) != 0) {
        fprintf(stderr, "usage: %s <elf image> <sha256 hex>\n", argv[0]);
        return -1;
    }
    FILE* f = fopen(argv[1], "rb");
    if (!f) {
        FAIL("cannot open %s", argv[1]);
        return -1;
    }
    img->len = (int32_t)fread(img->bytes, 1, sizeof img->bytes, f);
    fclose(f);
    if (img->len <= 0) {
        FAIL("%s is empty", argv[1]);
        return -1;
    }
    return 0;
}

NvSciBufObj pva_raw_buffer(NvSciBufModule mod, uint64_t size) {
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

NvSciSyncObj pva_sync_object(NvSciSyncModule mod, cupvaSyncClientType_t pva) {
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

static int set_param(cupvaCmd_t* prog, const char* name, const void* ptr, uint32_t v) {
    cupvaParameter_t p;
    cupvaError_t e = CupvaCmdProgramGetParameter(prog, &p, name);
    if (e == CUPVA_ERROR_NONE) {
        e = ptr ? CupvaParameterSetValuePointer(&p, ptr)
                : CupvaParameterSetValueScalar(&p, &v, sizeof v);
    }
    if (e != CUPVA_ERROR_NONE) {
        FAIL("parameter %s: cupvaError_t %d", name, (int)e);
        return -1;
    }
    return 0;
}

int scale_set_params(struct scale* s) {
    return set_param(&s->prog, "src", s->src, 0) | set_param(&s->prog, "dst", s->dst, 0) |
           set_param(&s->prog, "n", NULL, SCALE_N) |
           set_param(&s->prog, "gain", NULL, SCALE_GAIN);
}

int scale_open(struct scale* s, const struct scale_image* img) {
    static const char* const names[4] = {"src", "dst", "n", "gain"};
    static const uint32_t kinds[4] = {CUPVA_SIL_PARAM_PTR, CUPVA_SIL_PARAM_PTR,
                                      CUPVA_SIL_PARAM_U32, CUPVA_SIL_PARAM_U32};
    memset(s, 0, sizeof(*s));
    PVA(CupvaSilRegisterProgramModel("scale", (const uint8_t(*)[32])img->hash, 1, names,
                                     kinds, 4, scale_model, &s->calls));
    PVA(CupvaSilAllowProgram(img->hash));
    PVA(CupvaExecutableCreate(&s->exec, img->bytes, img->len));

    SCI(NvSciSyncModuleOpen(&s->sync_mod));
    SCI(NvSciBufModuleOpen(&s->buf_mod));
    SCI(NvSciSyncCpuWaitContextAlloc(s->sync_mod, &s->ctx));
    s->in_buf = pva_raw_buffer(s->buf_mod, SCALE_N);
    s->out_buf = pva_raw_buffer(s->buf_mod, SCALE_N);
    if (!s->in_buf || !s->out_buf) {
        goto cleanup;
    }
    SCI(NvSciBufObjGetCpuPtr(s->in_buf, (void**)&s->in_cpu));
    SCI(NvSciBufObjGetCpuPtr(s->out_buf, (void**)&s->out_cpu));
    for (int i = 0; i < SCALE_N; i++) {
        s->in_cpu[i] = (uint8_t)(i * 13 + 1);
        s->expected[i] = (uint8_t)(((unsigned)(i * 13 + 1) % 256u) * SCALE_GAIN % 256u);
    }

    PVA(CupvaMemImport(&s->src, s->in_buf, CUPVA_READ));
    PVA(CupvaMemImport(&s->dst, s->out_buf, CUPVA_READ_WRITE));
    PVA(CupvaStreamCreate(&s->stream, CUPVA_PVA0, CUPVA_VPU_ANY));
    PVA(CupvaCmdProgramCreate(&s->prog, s->exec));
    s->have_prog = true;
    return scale_set_params(s);
cleanup:
    return -1;
}

void scale_poison_output(struct scale* s) {
    if (s->out_cpu) {
        memset(s->out_cpu, 0xA5, SCALE_N);
    }
}

int scale_check_output(const struct scale* s, const char* what) {
    if (!s->out_cpu || memcmp(s->out_cpu, s->expected, SCALE_N) != 0) {
        FAIL("%s: the output differs from the golden output", what);
        return -1;
    }
    return 0;
}

void scale_close(struct scale* s) {
    if (s->stream) CHECK(CupvaStreamDestroy(s->stream) == CUPVA_ERROR_NONE, "stream destroy");
    if (s->have_prog) CHECK(CupvaCmdDestroy(&s->prog) == CUPVA_ERROR_NONE, "program destroy");
    if (s->src) CHECK(CupvaMemFree(s->src) == CUPVA_ERROR_NONE, "free src");
    if (s->dst) CHECK(CupvaMemFree(s->dst) == CUPVA_ERROR_NONE, "free dst");
    if (s->exec) CHECK(CupvaExecutableDestroy(s->exec) == CUPVA_ERROR_NONE, "exec destroy");
    if (s->in_buf) NvSciBufObjFree(s->in_buf);
    if (s->out_buf) NvSciBufObjFree(s->out_buf);
    if (s->ctx) NvSciSyncCpuWaitContextFree(s->ctx);
    if (s->buf_mod) NvSciBufModuleClose(s->buf_mod);
    if (s->sync_mod) NvSciSyncModuleClose(s->sync_mod);
    memset(s, 0, sizeof(*s));
}
