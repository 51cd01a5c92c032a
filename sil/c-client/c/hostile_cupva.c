/*
 * hostile_cupva.c: every entry point of the SIL cuPVA (libcupva_host.so.2.10) called with
 * hostile arguments: NULL and misaligned pointers; forged, stale (destroyed) and wrong-kind
 * handles; garbage (0xFF bytes) and tampered caller-owned command, fence and parameter
 * storage; out-of-range enums; counts 0, negative, past the limits and INT32_MAX; sizes no
 * memory can hold; timeouts out of range; NvSci handles that are NULL, forged, freed or of
 * the other library. Each call returns the exact cupvaError_t the twin documents (sil/cupva/
 * src/api.rs, sil/README.md "cuPVA") and writes nothing on failure; the process neither
 * aborts, crashes nor hangs. Afterwards `scale` still produces the golden output
 * (sil/README.md, "Hostile arguments").
 *
 * usage: hostile_cupva <elf image> <sha256 of the image, 64 hex digits>
 */
#include <stdio.h>
#include <string.h>

#include "cupva_common.h"
#include "hostile.h"

int failures;

#define OK(call) EXPECT_PVA(call, CUPVA_ERROR_NONE)
#define BAD CUPVA_INVALID_ARGUMENT
#define UNINIT CUPVA_UNINITIALIZED_OBJECT
#define STATE CUPVA_INVALID_STATE
#define FORGED(T) ((T)FORGED_HANDLE)
/* Into the garbage (hostile_garbage is 16-aligned, so + 1 is misaligned for any struct). */
#define MISALIGNED(T) ((T*)(void*)(hostile_garbage + 1))
#define GARBAGE(T) ((T*)(void*)hostile_garbage)
/* Waits of the cases that must succeed: 10 s, so a bug fails instead of hanging. */
#define WAIT_US 10000000

static const int32_t BAD_I32[] = {0, -1, -5, INT32_MIN, INT32_MAX};
#define NBAD_I32 (sizeof(BAD_I32) / sizeof(BAD_I32[0]))

static struct scale g;            /* the scale program on g.stream, parameters set */
static const struct scale_image* g_img;
static cupvaExecutable_t g_dead_exec;
static cupvaStream_t g_dead_stream;
static cupvaSyncObj_t g_ts_sync;     /* native, signaler and waiter, timestamps */
static cupvaSyncObj_t g_plain_sync;  /* native, signaler and waiter, no timestamps */
static cupvaSyncObj_t g_waiter_sync; /* native, waiter only */
static cupvaSyncObj_t g_dead_sync;   /* native, destroyed after its fence was reached */
static cupvaSyncObj_t g_cpu_sync;    /* imported g_cpu_obj: the CPU signals, the PVA waits */
static cupvaSyncObj_t g_pva_sync;    /* imported g_pva_obj: the PVA signals */
static cupvaSyncObj_t g_gate_sync;   /* imported g_gate_obj, for the pending fence */
static NvSciSyncObj g_cpu_obj, g_pva_obj, g_gate_obj;
static NvSciSyncObj g_lone_obj;   /* the CPU signals; never imported */
static NvSciSyncObj g_freed_obj;  /* allocated, then freed */
static NvSciBufObj g_freed_buf;   /* allocated, then freed */
static cupvaCmd_t g_barrier;
static cupvaCmd_t g_stale_cmd;    /* a copy of a program command since destroyed */
static cupvaCmd_t g_cleared_cmd;  /* that command's own storage after CupvaCmdDestroy */
static cupvaParameter_t g_stale_param; /* parameter "n" of that command */
static cupvaCmdStatus_t g_status; /* the status of a command g.stream finished */
/* Fences filled by one request and reached, on g_ts_sync, g_plain_sync, g_pva_sync and
 * g_dead_sync (destroyed since: a stale fence). */
enum { R_TS, R_PLAIN, R_SCI, R_STALE, R_COUNT };
static cupvaFence_t g_reached[R_COUNT];
static cupvaFence_t g_unfilled;   /* initialised on g_ts_sync, never requested */
static cupvaFence_t g_tampered;   /* g_reached[R_TS] with its value changed */

/* Whether `n` bytes at `p` are all `v` (an out-parameter the failing call left alone). */
static bool all_bytes(const void* p, size_t n, unsigned char v) {
    const unsigned char* b = p;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != v) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------------------------- */
/* One case per exported entry point (hostile.h).                                      */
/* ---------------------------------------------------------------------------------- */

HOSTILE(CupvaGetDriverVersion) {
    uint32_t v = 0, r = 0;
    EXPECT_PVA(CupvaGetDriverVersion(NULL), BAD);
    EXPECT_PVA(CupvaGetDriverVersion(MISALIGNED(uint32_t)), BAD);
    OK(CupvaGetDriverVersion(&v));
    OK(CupvaGetRuntimeVersion(&r));
    CHECK(v == r && v != 0, "driver version %u, runtime version %u", v, r);
}
HOSTILE(CupvaGetRuntimeVersion) {
    EXPECT_PVA(CupvaGetRuntimeVersion(NULL), BAD);
    EXPECT_PVA(CupvaGetRuntimeVersion(MISALIGNED(uint32_t)), BAD);
}
HOSTILE(CupvaGetLastError) {
    const char* msg = NULL;
    /* The last failure is returned once, also when the message cannot be written. */
    EXPECT_PVA(CupvaGetRuntimeVersion(NULL), BAD);
    EXPECT_PVA(CupvaGetLastError(NULL), BAD);
    OK(CupvaGetLastError(&msg));
    CHECK(msg != NULL, "no message for CUPVA_ERROR_NONE");
    EXPECT_PVA(CupvaStreamDestroy(NULL), BAD);
    EXPECT_PVA(CupvaGetLastError(MISALIGNED(const char*)), BAD);
    OK(CupvaGetLastError(NULL));
}

HOSTILE(CupvaExecutableCreate) {
    cupvaExecutable_t ex = NULL;
    size_t i;
    EXPECT_PVA(CupvaExecutableCreate(NULL, g_img->bytes, g_img->len), BAD);
    EXPECT_PVA(CupvaExecutableCreate(MISALIGNED(cupvaExecutable_t), g_img->bytes, g_img->len),
               BAD);
    EXPECT_PVA(CupvaExecutableCreate(&ex, NULL, g_img->len), BAD);
    for (i = 0; i < NBAD_I32; i++) {
        if (BAD_I32[i] <= 0) {
            EXPECT_PVA(CupvaExecutableCreate(&ex, g_img->bytes, BAD_I32[i]), BAD);
        }
    }
    /* Garbage as an image: not in the allowlist, refused as PVA authentication refuses it. */
    EXPECT_PVA(CupvaExecutableCreate(&ex, hostile_garbage, (int32_t)sizeof(hostile_garbage)),
               CUPVA_DRIVER_API_ERROR);
    CHECK(ex == NULL, "a refused executable was written");
}
HOSTILE(CupvaExecutableDestroy) {
    EXPECT_PVA(CupvaExecutableDestroy(NULL), BAD);
    EXPECT_PVA(CupvaExecutableDestroy(FORGED(cupvaExecutable_t)), BAD);
    EXPECT_PVA(CupvaExecutableDestroy(g_dead_exec), BAD);
    EXPECT_PVA(CupvaExecutableDestroy((cupvaExecutable_t)g.stream), BAD);
    EXPECT_PVA(CupvaExecutableDestroy((cupvaExecutable_t)g_ts_sync), BAD);
}

HOSTILE(CupvaCmdProgramCreate) {
    cupvaCmd_t c;
    memset(&c, 0, sizeof(c));
    EXPECT_PVA(CupvaCmdProgramCreate(&c, NULL), BAD);
    EXPECT_PVA(CupvaCmdProgramCreate(&c, FORGED(cupvaExecutable_t)), BAD);
    EXPECT_PVA(CupvaCmdProgramCreate(&c, g_dead_exec), BAD);
    EXPECT_PVA(CupvaCmdProgramCreate(&c, (cupvaExecutable_t)g.stream), BAD);
    EXPECT_PVA(CupvaCmdProgramCreate(NULL, g.exec), BAD);
    EXPECT_PVA(CupvaCmdProgramCreate(MISALIGNED(cupvaCmd_t), g.exec), BAD);
    CHECK(all_bytes(&c, sizeof(c), 0), "a refused program command was written");
}
HOSTILE(CupvaCmdProgramAddDataFlow) {
    /* Dataflows are not modelled: the same answer for any argument. */
    cupvaDataFlow_t df = NULL;
    EXPECT_PVA(CupvaCmdProgramAddDataFlow(NULL, NULL, 0), CUPVA_UNSUPPORTED_FEATURE);
    EXPECT_PVA(CupvaCmdProgramAddDataFlow(GARBAGE(cupvaCmd_t), &df, UINT32_MAX),
               CUPVA_UNSUPPORTED_FEATURE);
    EXPECT_PVA(CupvaCmdProgramAddDataFlow(&g.prog, MISALIGNED(cupvaDataFlow_t), 1),
               CUPVA_UNSUPPORTED_FEATURE);
    EXPECT_PVA(CupvaCmdProgramAddDataFlow(&g.prog, &df, 1), CUPVA_UNSUPPORTED_FEATURE);
    CHECK(df == NULL, "a dataflow was written");
}
HOSTILE(CupvaCmdProgramCompileDataFlows) {
    EXPECT_PVA(CupvaCmdProgramCompileDataFlows(NULL), BAD);
    EXPECT_PVA(CupvaCmdProgramCompileDataFlows(MISALIGNED(cupvaCmd_t)), BAD);
    EXPECT_PVA(CupvaCmdProgramCompileDataFlows(GARBAGE(cupvaCmd_t)), BAD);
    EXPECT_PVA(CupvaCmdProgramCompileDataFlows(&g_stale_cmd), BAD);
    EXPECT_PVA(CupvaCmdProgramCompileDataFlows(&g_cleared_cmd), BAD);
    EXPECT_PVA(CupvaCmdProgramCompileDataFlows(&g_barrier), BAD);
    OK(CupvaCmdProgramCompileDataFlows(&g.prog));
}
HOSTILE(CupvaCmdProgramGetParameter) {
    cupvaParameter_t p;
    memset(&p, 0x5A, sizeof(p));
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g.prog, &p, "no_such_param"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g.prog, &p, ""), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g.prog, &p, "N"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g.prog, &p, NULL), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g.prog, NULL, "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g.prog, MISALIGNED(cupvaParameter_t), "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(NULL, &p, "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(MISALIGNED(cupvaCmd_t), &p, "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(GARBAGE(cupvaCmd_t), &p, "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g_stale_cmd, &p, "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g_cleared_cmd, &p, "n"), BAD);
    EXPECT_PVA(CupvaCmdProgramGetParameter(&g_barrier, &p, "n"), BAD);
    CHECK(all_bytes(&p, sizeof(p), 0x5A), "a refused parameter was written");
}

/* Parameters "n" (uint32_t) and "src" (pointer) of g.prog, and "n" with its index forged. */
static int params(cupvaParameter_t* n, cupvaParameter_t* src, cupvaParameter_t* forged) {
    if (CupvaCmdProgramGetParameter(&g.prog, n, "n") != CUPVA_ERROR_NONE ||
        CupvaCmdProgramGetParameter(&g.prog, src, "src") != CUPVA_ERROR_NONE) {
        FAIL("parameters n and src of the scale program");
        return -1;
    }
    *forged = *n;
    forged->data[1] |= 0xffffu; /* the low bits that select the parameter: none has 65535 */
    return 0;
}

HOSTILE(CupvaParameterSetValueScalar) {
    cupvaParameter_t n, src, forged;
    uint64_t v64 = 5;
    uint32_t v32 = 5;
    size_t i;
    if (params(&n, &src, &forged) != 0) {
        return;
    }
    /* A size other than the kind's (4 bytes), read from an 8-byte value. */
    for (i = 0; i < NBAD_I32; i++) {
        EXPECT_PVA(CupvaParameterSetValueScalar(&n, &v64, BAD_I32[i]), BAD);
    }
    EXPECT_PVA(CupvaParameterSetValueScalar(&n, &v64, 8), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(&n, &v64, 2), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(&n, NULL, 4), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(&src, &v32, 4), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(&src, &v64, 8), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(NULL, &v32, 4), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(MISALIGNED(cupvaParameter_t), &v32, 4), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(GARBAGE(cupvaParameter_t), &v32, 4), UNINIT);
    EXPECT_PVA(CupvaParameterSetValueScalar(&forged, &v32, 4), BAD);
    EXPECT_PVA(CupvaParameterSetValueScalar(&g_stale_param, &v32, 4), BAD);
}
HOSTILE(CupvaParameterSetValuePointer) {
    cupvaParameter_t n, src, forged;
    uint8_t local[16];
    void* freed = NULL;
    if (params(&n, &src, &forged) != 0) {
        return;
    }
    /* Only PVA memory (or NULL) may be a pointer argument. */
    EXPECT_PVA(CupvaParameterSetValuePointer(&src, local), BAD);
    EXPECT_PVA(CupvaParameterSetValuePointer(&src, FORGED_HANDLE), BAD);
    OK(CupvaMemAlloc(&freed, 64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM));
    OK(CupvaMemFree(freed));
    EXPECT_PVA(CupvaParameterSetValuePointer(&src, freed), BAD);
    EXPECT_PVA(CupvaParameterSetValuePointer(&n, g.src), BAD);
    EXPECT_PVA(CupvaParameterSetValuePointer(NULL, g.src), BAD);
    EXPECT_PVA(CupvaParameterSetValuePointer(MISALIGNED(cupvaParameter_t), g.src), BAD);
    EXPECT_PVA(CupvaParameterSetValuePointer(GARBAGE(cupvaParameter_t), g.src), UNINIT);
    EXPECT_PVA(CupvaParameterSetValuePointer(&forged, g.src), BAD);
    EXPECT_PVA(CupvaParameterSetValuePointer(&g_stale_param, g.src), BAD);
}

HOSTILE(CupvaMemAlloc) {
    static const int64_t sizes[] = {0, -1, INT64_MIN, INT64_MAX};
    void* p = NULL;
    size_t i;
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        EXPECT_PVA(CupvaMemAlloc(&p, sizes[i], CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM), BAD);
    }
    /* A size an allocation may have but no memory holds: out of memory, not an abort. */
    EXPECT_PVA(CupvaMemAlloc(&p, INT64_C(1) << 62, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM), STATE);
    EXPECT_PVA(CupvaMemAlloc(&p, 64, (cupvaMemAccessType_t)0, CUPVA_ALLOC_DRAM), BAD);
    EXPECT_PVA(CupvaMemAlloc(&p, 64, (cupvaMemAccessType_t)4, CUPVA_ALLOC_DRAM), BAD);
    EXPECT_PVA(CupvaMemAlloc(&p, 64, (cupvaMemAccessType_t)0x7fffffff, CUPVA_ALLOC_DRAM), BAD);
    EXPECT_PVA(CupvaMemAlloc(&p, 64, CUPVA_READ_WRITE, (cupvaMemAllocType_t)0), BAD);
    EXPECT_PVA(CupvaMemAlloc(&p, 64, CUPVA_READ_WRITE, (cupvaMemAllocType_t)3), BAD);
    EXPECT_PVA(CupvaMemAlloc(NULL, 64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM), BAD);
    EXPECT_PVA(CupvaMemAlloc(MISALIGNED(void*), 64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM), BAD);
    CHECK(p == NULL, "a refused allocation was written");
}
HOSTILE(CupvaMemFree) {
    uint8_t local[16];
    void* p = NULL;
    EXPECT_PVA(CupvaMemFree(NULL), BAD);
    EXPECT_PVA(CupvaMemFree(local), BAD);
    EXPECT_PVA(CupvaMemFree(FORGED_HANDLE), BAD);
    EXPECT_PVA(CupvaMemFree((uint8_t*)g.src + 1), BAD); /* inside, not the start */
    OK(CupvaMemAlloc(&p, 64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM));
    OK(CupvaMemFree(p));
    EXPECT_PVA(CupvaMemFree(p), BAD);
}
HOSTILE(CupvaMemGetHostPointer) {
    uint8_t local[16];
    void *h = NULL, *freed = NULL;
    EXPECT_PVA(CupvaMemGetHostPointer(&h, NULL), BAD);
    EXPECT_PVA(CupvaMemGetHostPointer(&h, local), BAD);
    EXPECT_PVA(CupvaMemGetHostPointer(&h, FORGED_HANDLE), BAD);
    OK(CupvaMemAlloc(&freed, 64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM));
    OK(CupvaMemFree(freed));
    EXPECT_PVA(CupvaMemGetHostPointer(&h, freed), BAD);
    EXPECT_PVA(CupvaMemGetHostPointer(NULL, g.src), BAD);
    EXPECT_PVA(CupvaMemGetHostPointer(MISALIGNED(void*), g.src), BAD);
    CHECK(h == NULL, "a refused host pointer was written");
    OK(CupvaMemGetHostPointer(&h, g.src));
    CHECK(h == g.src, "the SIL host pointer is the PVA pointer");
}

HOSTILE(CupvaStreamCreate) {
    static const unsigned engines[] = {0, 3, 0x7fffffff};
    static const unsigned vpus[] = {0, 4, 0x7fffffff};
    cupvaStream_t st = NULL;
    size_t i;
    for (i = 0; i < 3; i++) {
        EXPECT_PVA(CupvaStreamCreate(&st, (cupvaEngineType_t)engines[i], CUPVA_VPU0), BAD);
        EXPECT_PVA(CupvaStreamCreate(&st, CUPVA_PVA0, (cupvaAffinityType_t)vpus[i]), BAD);
    }
    EXPECT_PVA(CupvaStreamCreate(NULL, CUPVA_PVA0, CUPVA_VPU0), BAD);
    EXPECT_PVA(CupvaStreamCreate(MISALIGNED(cupvaStream_t), CUPVA_PVA0, CUPVA_VPU0), BAD);
    CHECK(st == NULL, "a refused stream was written");
}
HOSTILE(CupvaStreamDestroy) {
    EXPECT_PVA(CupvaStreamDestroy(NULL), BAD);
    EXPECT_PVA(CupvaStreamDestroy(FORGED(cupvaStream_t)), BAD);
    EXPECT_PVA(CupvaStreamDestroy(g_dead_stream), BAD);
    EXPECT_PVA(CupvaStreamDestroy((cupvaStream_t)g_ts_sync), BAD);
    EXPECT_PVA(CupvaStreamDestroy((cupvaStream_t)g.exec), BAD);
}

/* Submits `n` commands to g.stream into `st` with no timeouts; the case's status array. */
static cupvaError_t submit(const cupvaCmd_t* const* cmds, cupvaCmdStatus_t* st, int32_t n) {
    return CupvaStreamSubmit(g.stream, cmds, st, n, CUPVA_IN_ORDER, -1, -1);
}

HOSTILE(CupvaStreamSubmit) {
    static const int32_t counts[] = {0, -1, INT32_MIN, 257, INT32_MAX};
    static const int32_t timeouts[] = {0, -2, INT32_MIN};
    cupvaCmdStatus_t st[2];
    const cupvaCmd_t* one[1] = {&g.prog};
    const cupvaCmd_t* bad[2] = {&g.prog, NULL};
    cupvaCmd_t fresh, wait_cmd, req_cmd;
    cupvaFence_t f;
    int calls = g.calls;
    size_t i;

    memset(st, 0x77, sizeof(st));
    EXPECT_PVA(CupvaStreamSubmit(NULL, one, st, 1, CUPVA_IN_ORDER, -1, -1), BAD);
    EXPECT_PVA(CupvaStreamSubmit(FORGED(cupvaStream_t), one, st, 1, CUPVA_IN_ORDER, -1, -1),
               BAD);
    EXPECT_PVA(CupvaStreamSubmit(g_dead_stream, one, st, 1, CUPVA_IN_ORDER, -1, -1), BAD);
    EXPECT_PVA(CupvaStreamSubmit((cupvaStream_t)g.exec, one, st, 1, CUPVA_IN_ORDER, -1, -1),
               BAD);
    /* Counts outside 1..=256 over a one-command array: refused before it is read. */
    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        EXPECT_PVA(submit(one, st, counts[i]), BAD);
        EXPECT_PVA(submit(NULL, st, counts[i]), BAD);
    }
    EXPECT_PVA(submit(NULL, st, 1), BAD);
    EXPECT_PVA(submit(MISALIGNED(const cupvaCmd_t*), st, 1), BAD);
    EXPECT_PVA(CupvaStreamSubmit(g.stream, one, MISALIGNED(cupvaCmdStatus_t), 1, CUPVA_IN_ORDER,
                                 -1, -1),
               BAD);
    EXPECT_PVA(CupvaStreamSubmit(g.stream, one, st, 1, (cupvaOrderType_t)0, -1, -1), BAD);
    EXPECT_PVA(CupvaStreamSubmit(g.stream, one, st, 1, (cupvaOrderType_t)3, -1, -1), BAD);
    EXPECT_PVA(CupvaStreamSubmit(g.stream, one, st, 1, (cupvaOrderType_t)0x7fffffff, -1, -1),
               BAD);
    for (i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
        EXPECT_PVA(CupvaStreamSubmit(g.stream, one, st, 1, CUPVA_IN_ORDER, timeouts[i], -1), BAD);
        EXPECT_PVA(CupvaStreamSubmit(g.stream, one, st, 1, CUPVA_IN_ORDER, -1, timeouts[i]), BAD);
    }
    /* One bad command refuses the whole submission (the good program first). */
    EXPECT_PVA(submit(bad, st, 2), BAD);
    bad[1] = MISALIGNED(cupvaCmd_t);
    EXPECT_PVA(submit(bad, st, 2), BAD);
    bad[1] = GARBAGE(cupvaCmd_t);
    EXPECT_PVA(submit(bad, st, 2), BAD);
    bad[1] = &g_stale_cmd;
    EXPECT_PVA(submit(bad, st, 2), BAD);
    bad[1] = &g_cleared_cmd;
    EXPECT_PVA(submit(bad, st, 2), BAD);

    /* A program with its parameters never set. */
    if (CupvaCmdProgramCreate(&fresh, g.exec) == CUPVA_ERROR_NONE) {
        bad[1] = &fresh;
        EXPECT_PVA(submit(bad, st, 2), UNINIT);
        OK(CupvaCmdDestroy(&fresh));
    } else {
        FAIL("a second program command");
    }
    /* Waits: on a fence nobody filled; on fence storage garbled after the init; on a fence
     * of a destroyed sync object; on a fence of an object the PVA may only signal. */
    bad[1] = &wait_cmd;
    OK(CupvaCmdWaitOnFencesInit(&wait_cmd, &g_unfilled, 1));
    EXPECT_PVA(submit(bad, st, 2), STATE);
    OK(CupvaCmdDestroy(&wait_cmd));
    OK(CupvaFenceInit(&f, g_ts_sync));
    OK(CupvaCmdWaitOnFencesInit(&wait_cmd, &f, 1));
    memset(&f, 0xFF, sizeof(f));
    EXPECT_PVA(submit(bad, st, 2), UNINIT);
    OK(CupvaCmdDestroy(&wait_cmd));
    OK(CupvaCmdWaitOnFencesInit(&wait_cmd, &g_reached[R_STALE], 1));
    EXPECT_PVA(submit(bad, st, 2), BAD);
    OK(CupvaCmdDestroy(&wait_cmd));
    OK(CupvaCmdWaitOnFencesInit(&wait_cmd, &g_reached[R_SCI], 1));
    EXPECT_PVA(submit(bad, st, 2), BAD);
    OK(CupvaCmdDestroy(&wait_cmd));
    /* Requests: on an object the PVA may only wait on; into garbled fence storage. */
    bad[1] = &req_cmd;
    OK(CupvaFenceInit(&f, g_waiter_sync));
    OK(CupvaCmdRequestFencesInit(&req_cmd, &f, 1));
    EXPECT_PVA(submit(bad, st, 2), BAD);
    memset(&f, 0xFF, sizeof(f));
    EXPECT_PVA(submit(bad, st, 2), UNINIT);
    CHECK(all_bytes(&f, sizeof(f), 0xFF), "a refused request wrote its fence");
    OK(CupvaCmdDestroy(&req_cmd));

    CHECK(all_bytes(st, sizeof(st), 0x77), "a refused submission wrote statuses");
    CHECK(g.calls == calls, "a refused submission ran the program");
}
HOSTILE(CupvaCheckCommandStatus) {
    cupvaError_t e = (cupvaError_t)77;
    cupvaStream_t t = NULL;
    cupvaCmdStatus_t st = NULL;
    const cupvaCmd_t* one[1] = {&g_barrier};
    EXPECT_PVA(CupvaCheckCommandStatus(NULL, &e), BAD);
    EXPECT_PVA(CupvaCheckCommandStatus(FORGED(cupvaCmdStatus_t), &e), BAD);
    EXPECT_PVA(CupvaCheckCommandStatus((cupvaCmdStatus_t)g.stream, &e), BAD);
    /* A status no submission gave out: 4096 commands after the last one of g.stream. */
    EXPECT_PVA(CupvaCheckCommandStatus((cupvaCmdStatus_t)((uintptr_t)g_status + 4096), &e), BAD);
    EXPECT_PVA(CupvaCheckCommandStatus(g_status, NULL), BAD);
    EXPECT_PVA(CupvaCheckCommandStatus(g_status, MISALIGNED(cupvaError_t)), BAD);
    /* The status of a destroyed stream. */
    OK(CupvaStreamCreate(&t, CUPVA_PVA1, CUPVA_VPU1));
    OK(CupvaStreamSubmit(t, one, &st, 1, CUPVA_IN_ORDER, -1, -1));
    OK(CupvaStreamDestroy(t));
    EXPECT_PVA(CupvaCheckCommandStatus(st, &e), BAD);
    CHECK(e == (cupvaError_t)77, "a refused status check wrote the code");
    OK(CupvaCheckCommandStatus(g_status, &e));
    CHECK(e == CUPVA_ERROR_NONE, "the fixture's request finished with %d", (int)e);
}

HOSTILE(CupvaCmdDestroy) {
    cupvaCmd_t b;
    EXPECT_PVA(CupvaCmdDestroy(NULL), BAD);
    EXPECT_PVA(CupvaCmdDestroy(MISALIGNED(cupvaCmd_t)), BAD);
    EXPECT_PVA(CupvaCmdDestroy(GARBAGE(cupvaCmd_t)), BAD);
    EXPECT_PVA(CupvaCmdDestroy(&g_stale_cmd), BAD);
    EXPECT_PVA(CupvaCmdDestroy(&g_cleared_cmd), BAD);
    OK(CupvaCmdBarrierInit(&b));
    OK(CupvaCmdDestroy(&b));
    EXPECT_PVA(CupvaCmdDestroy(&b), BAD);
}
HOSTILE(CupvaCmdBarrierInit) {
    EXPECT_PVA(CupvaCmdBarrierInit(NULL), BAD);
    EXPECT_PVA(CupvaCmdBarrierInit(MISALIGNED(cupvaCmd_t)), BAD);
}
HOSTILE(CupvaCmdRequestFencesInit) {
    cupvaCmd_t c;
    cupvaFence_t f[4];
    size_t i;
    memset(&c, 0, sizeof(c));
    memset(f, 0, sizeof(f));
    /* Counts outside 1..=4 (MAX_CMD_REQUEST_FENCES_ARRAY_SIZE). */
    for (i = 0; i < NBAD_I32; i++) {
        EXPECT_PVA(CupvaCmdRequestFencesInit(&c, f, BAD_I32[i]), BAD);
        EXPECT_PVA(CupvaCmdRequestFencesInit(&c, NULL, BAD_I32[i]), BAD);
    }
    EXPECT_PVA(CupvaCmdRequestFencesInit(&c, f, 5), BAD);
    EXPECT_PVA(CupvaCmdRequestFencesInit(&c, NULL, 1), BAD);
    EXPECT_PVA(CupvaCmdRequestFencesInit(&c, MISALIGNED(cupvaFence_t), 1), BAD);
    EXPECT_PVA(CupvaCmdRequestFencesInit(NULL, f, 1), BAD);
    EXPECT_PVA(CupvaCmdRequestFencesInit(MISALIGNED(cupvaCmd_t), f, 1), BAD);
    CHECK(all_bytes(&c, sizeof(c), 0), "a refused request command was written");
}
HOSTILE(CupvaCmdWaitOnFencesInit) {
    cupvaCmd_t c;
    size_t i;
    memset(&c, 0, sizeof(c));
    /* Counts outside 1..=8 (MAX_CMD_WAIT_ON_FENCES_ARRAY_SIZE). */
    for (i = 0; i < NBAD_I32; i++) {
        EXPECT_PVA(CupvaCmdWaitOnFencesInit(&c, g_reached, BAD_I32[i]), BAD);
        EXPECT_PVA(CupvaCmdWaitOnFencesInit(&c, NULL, BAD_I32[i]), BAD);
    }
    EXPECT_PVA(CupvaCmdWaitOnFencesInit(&c, g_reached, 9), BAD);
    EXPECT_PVA(CupvaCmdWaitOnFencesInit(&c, NULL, 1), BAD);
    EXPECT_PVA(CupvaCmdWaitOnFencesInit(&c, MISALIGNED(cupvaFence_t), 1), BAD);
    EXPECT_PVA(CupvaCmdWaitOnFencesInit(NULL, g_reached, 1), BAD);
    EXPECT_PVA(CupvaCmdWaitOnFencesInit(MISALIGNED(cupvaCmd_t), g_reached, 1), BAD);
    CHECK(all_bytes(&c, sizeof(c), 0), "a refused wait command was written");
}

HOSTILE(CupvaSyncObjCreate) {
    static const unsigned clients[] = {0, 4, 0x7fffffff};
    static const unsigned modes[] = {0, 3, 0x7fffffff};
    cupvaSyncObj_t so = NULL;
    size_t i;
    for (i = 0; i < 3; i++) {
        EXPECT_PVA(CupvaSyncObjCreate(&so, true, (cupvaSyncClientType_t)clients[i],
                                      CUPVA_SYNC_YIELD),
                   BAD);
        EXPECT_PVA(CupvaSyncObjCreate(&so, false, CUPVA_WAITER, (cupvaSyncWaitMode_t)modes[i]),
                   BAD);
    }
    EXPECT_PVA(CupvaSyncObjCreate(NULL, false, CUPVA_WAITER, CUPVA_SYNC_YIELD), BAD);
    EXPECT_PVA(CupvaSyncObjCreate(MISALIGNED(cupvaSyncObj_t), false, CUPVA_WAITER,
                                  CUPVA_SYNC_YIELD),
               BAD);
    CHECK(so == NULL, "a refused sync object was written");
}
HOSTILE(CupvaSyncObjDestroy) {
    EXPECT_PVA(CupvaSyncObjDestroy(NULL), BAD);
    EXPECT_PVA(CupvaSyncObjDestroy(FORGED(cupvaSyncObj_t)), BAD);
    EXPECT_PVA(CupvaSyncObjDestroy(g_dead_sync), BAD);
    EXPECT_PVA(CupvaSyncObjDestroy((cupvaSyncObj_t)g.stream), BAD);
}
HOSTILE(CupvaFenceInit) {
    cupvaFence_t f;
    memset(&f, 0, sizeof(f));
    EXPECT_PVA(CupvaFenceInit(&f, NULL), BAD);
    EXPECT_PVA(CupvaFenceInit(&f, FORGED(cupvaSyncObj_t)), BAD);
    EXPECT_PVA(CupvaFenceInit(&f, g_dead_sync), BAD);
    EXPECT_PVA(CupvaFenceInit(&f, (cupvaSyncObj_t)g.stream), BAD);
    EXPECT_PVA(CupvaFenceInit(NULL, g_ts_sync), BAD);
    EXPECT_PVA(CupvaFenceInit(MISALIGNED(cupvaFence_t), g_ts_sync), BAD);
    CHECK(all_bytes(&f, sizeof(f), 0), "a refused fence was written");
}
HOSTILE(CupvaFenceGetTimeStamp) {
    uint64_t ts = 77;
    EXPECT_PVA(CupvaFenceGetTimeStamp(NULL, &ts), BAD);
    EXPECT_PVA(CupvaFenceGetTimeStamp(MISALIGNED(cupvaFence_t), &ts), BAD);
    EXPECT_PVA(CupvaFenceGetTimeStamp(GARBAGE(cupvaFence_t), &ts), UNINIT);
    EXPECT_PVA(CupvaFenceGetTimeStamp(&g_tampered, &ts), UNINIT);
    EXPECT_PVA(CupvaFenceGetTimeStamp(&g_unfilled, &ts), STATE);
    EXPECT_PVA(CupvaFenceGetTimeStamp(&g_reached[R_PLAIN], &ts), STATE); /* no timestamps */
    EXPECT_PVA(CupvaFenceGetTimeStamp(&g_reached[R_STALE], &ts), BAD);
    EXPECT_PVA(CupvaFenceGetTimeStamp(&g_reached[R_TS], NULL), BAD);
    EXPECT_PVA(CupvaFenceGetTimeStamp(&g_reached[R_TS], MISALIGNED(uint64_t)), BAD);
    CHECK(ts == 77, "a refused timestamp was written");
    OK(CupvaFenceGetTimeStamp(&g_reached[R_TS], &ts));
    CHECK(ts != 77, "no timestamp written");
}
HOSTILE(CupvaFenceWait) {
    bool done = true;
    NvSciSyncFence pre = {{0}};
    cupvaFence_t w, p;
    cupvaCmd_t wait_cmd, req_cmd;
    const cupvaCmd_t* cmds[2] = {&wait_cmd, &req_cmd};
    uint64_t ts = 77;

    EXPECT_PVA(CupvaFenceWait(&g_reached[R_TS], -2, &done), BAD);
    EXPECT_PVA(CupvaFenceWait(&g_reached[R_TS], INT64_MIN, &done), BAD);
    EXPECT_PVA(CupvaFenceWait(&g_reached[R_TS], 0, NULL), BAD);
    EXPECT_PVA(CupvaFenceWait(NULL, 0, &done), BAD);
    EXPECT_PVA(CupvaFenceWait(MISALIGNED(cupvaFence_t), 0, &done), BAD);
    EXPECT_PVA(CupvaFenceWait(GARBAGE(cupvaFence_t), 0, &done), UNINIT);
    EXPECT_PVA(CupvaFenceWait(&g_tampered, 0, &done), UNINIT);
    EXPECT_PVA(CupvaFenceWait(&g_unfilled, 0, &done), STATE);
    EXPECT_PVA(CupvaFenceWait(&g_reached[R_STALE], 0, &done), BAD);
    CHECK(done, "a refused wait wrote its result");

    /* A fence the PVA has not reached (its stream waits for the CPU): the wait times out
     * (false), the timestamp is not there yet; the CPU's signal lets it through. */
    EXPECT_SCI(NvSciSyncObjGenerateFence(g_gate_obj, &pre), NvSciError_Success);
    OK(CupvaFenceInit(&w, g_gate_sync));
    OK(CupvaFenceImport(&w, &pre));
    OK(CupvaCmdWaitOnFencesInit(&wait_cmd, &w, 1));
    OK(CupvaFenceInit(&p, g_ts_sync));
    OK(CupvaCmdRequestFencesInit(&req_cmd, &p, 1));
    OK(submit(cmds, NULL, 2));
    OK(CupvaFenceWait(&p, 0, &done));
    CHECK(!done, "a fence behind an unsignalled pre-fence was reached");
    done = true;
    OK(CupvaFenceWait(&p, 1000, &done));
    CHECK(!done, "a fence behind an unsignalled pre-fence was reached in 1 ms");
    EXPECT_PVA(CupvaFenceGetTimeStamp(&p, &ts), STATE);
    EXPECT_SCI(NvSciSyncObjSignal(g_gate_obj), NvSciError_Success);
    OK(CupvaFenceWait(&p, WAIT_US, &done));
    CHECK(done, "the fence was not reached after the pre-fence was signalled");
    OK(CupvaCmdDestroy(&wait_cmd));
    OK(CupvaCmdDestroy(&req_cmd));
    NvSciSyncFenceClear(&pre);
}

HOSTILE(CupvaMemFillAttributes) {
    /* Only a live unreconciled NvSciBuf list can be filled (sil/README.md, "cuPVA"). */
    NvSciBufAttrList freed = NULL, raw = NULL, reconciled = NULL, conflict = NULL;
    NvSciSyncAttrList sync_list = NULL;
    NvSciBufType ty = NvSciBufType_RawBuffer;
    uint64_t size = 64;
    NvSciBufAttrKeyValuePair pairs[] = {
        {NvSciBufGeneralAttrKey_Types, &ty, sizeof ty},
        {NvSciBufRawBufferAttrKey_Size, &size, sizeof size},
    };
    EXPECT_PVA(CupvaMemFillAttributes(NULL), BAD);
    EXPECT_PVA(CupvaMemFillAttributes(FORGED(NvSciBufAttrList)), BAD);
    EXPECT_SCI(NvSciBufAttrListCreate(g.buf_mod, &freed), NvSciError_Success);
    NvSciBufAttrListFree(freed);
    EXPECT_PVA(CupvaMemFillAttributes(freed), BAD);
    EXPECT_SCI(NvSciSyncAttrListCreate(g.sync_mod, &sync_list), NvSciError_Success);
    EXPECT_PVA(CupvaMemFillAttributes((NvSciBufAttrList)sync_list), BAD);
    NvSciSyncAttrListFree(sync_list);
    EXPECT_SCI(NvSciBufAttrListCreate(g.buf_mod, &raw), NvSciError_Success);
    EXPECT_SCI(NvSciBufAttrListSetAttrs(raw, pairs, 2), NvSciError_Success);
    EXPECT_SCI(NvSciBufAttrListReconcile(&raw, 1, &reconciled, &conflict), NvSciError_Success);
    EXPECT_PVA(CupvaMemFillAttributes(reconciled), BAD);
    NvSciBufAttrListFree(reconciled);
    NvSciBufAttrListFree(raw);
}
HOSTILE(CupvaMemImport) {
    void* p = NULL;
    EXPECT_PVA(CupvaMemImport(NULL, g.in_buf, CUPVA_READ), BAD);
    EXPECT_PVA(CupvaMemImport(MISALIGNED(void*), g.in_buf, CUPVA_READ), BAD);
    EXPECT_PVA(CupvaMemImport(&p, NULL, CUPVA_READ), BAD);
    EXPECT_PVA(CupvaMemImport(&p, FORGED(NvSciBufObj), CUPVA_READ), BAD);
    EXPECT_PVA(CupvaMemImport(&p, g_freed_buf, CUPVA_READ), BAD);
    EXPECT_PVA(CupvaMemImport(&p, (NvSciBufObj)g_cpu_obj, CUPVA_READ), BAD);
    EXPECT_PVA(CupvaMemImport(&p, g.in_buf, (cupvaMemAccessType_t)0), BAD);
    EXPECT_PVA(CupvaMemImport(&p, g.in_buf, (cupvaMemAccessType_t)4), BAD);
    EXPECT_PVA(CupvaMemImport(&p, g.in_buf, (cupvaMemAccessType_t)0x7fffffff), BAD);
    CHECK(p == NULL, "a refused import was written");
}
HOSTILE(CupvaFenceImport) {
    NvSciSyncFence cleared = {{0}}, garbage, lone = {{0}}, cpu = {{0}};
    cupvaFence_t f, before;
    memset(&garbage, 0xFF, sizeof(garbage));
    memset(&f, 0, sizeof(f));
    EXPECT_PVA(CupvaFenceImport(&f, NULL), BAD);
    EXPECT_PVA(CupvaFenceImport(&f, MISALIGNED(NvSciSyncFence)), BAD);
    EXPECT_PVA(CupvaFenceImport(&f, &cleared), BAD);
    EXPECT_PVA(CupvaFenceImport(&f, &garbage), BAD);
    EXPECT_SCI(NvSciSyncObjGenerateFence(g_cpu_obj, &cpu), NvSciError_Success);
    EXPECT_PVA(CupvaFenceImport(NULL, &cpu), BAD);
    EXPECT_PVA(CupvaFenceImport(MISALIGNED(cupvaFence_t), &cpu), BAD);
    /* A fence of an object never imported with CupvaSyncObjCreateFromNvsci. */
    EXPECT_SCI(NvSciSyncObjGenerateFence(g_lone_obj, &lone), NvSciError_Success);
    EXPECT_PVA(CupvaFenceImport(&f, &lone), BAD);
    CHECK(all_bytes(&f, sizeof(f), 0), "a refused import wrote the fence");
    /* A fence of another imported object than the one *fence was initialised with. */
    OK(CupvaFenceInit(&f, g_pva_sync));
    before = f;
    EXPECT_PVA(CupvaFenceImport(&f, &cpu), BAD);
    CHECK(memcmp(&f, &before, sizeof(f)) == 0, "a refused import wrote the fence");
    OK(CupvaFenceInit(&f, g_cpu_sync));
    OK(CupvaFenceImport(&f, &cpu));
    NvSciSyncFenceClear(&cpu);
    NvSciSyncFenceClear(&lone);
}
HOSTILE(CupvaFenceExport) {
    NvSciSyncFence out = {{0}};
    EXPECT_PVA(CupvaFenceExport(NULL, &out), BAD);
    EXPECT_PVA(CupvaFenceExport(MISALIGNED(cupvaFence_t), &out), BAD);
    EXPECT_PVA(CupvaFenceExport(GARBAGE(cupvaFence_t), &out), UNINIT);
    EXPECT_PVA(CupvaFenceExport(&g_tampered, &out), UNINIT);
    EXPECT_PVA(CupvaFenceExport(&g_unfilled, &out), STATE);
    EXPECT_PVA(CupvaFenceExport(&g_reached[R_TS], &out), BAD); /* native: no NvSciSync fence */
    EXPECT_PVA(CupvaFenceExport(&g_reached[R_STALE], &out), BAD);
    EXPECT_PVA(CupvaFenceExport(&g_reached[R_SCI], NULL), BAD);
    EXPECT_PVA(CupvaFenceExport(&g_reached[R_SCI], MISALIGNED(NvSciSyncFence)), BAD);
    CHECK(all_bytes(&out, sizeof(out), 0), "a refused export wrote the NvSciSync fence");
    OK(CupvaFenceExport(&g_reached[R_SCI], &out));
    NvSciSyncFenceClear(&out);
}
HOSTILE(CupvaSyncObjCreateFromNvsci) {
    cupvaSyncObj_t so = NULL;
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(&so, NULL, CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(&so, FORGED(NvSciSyncObj), CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(&so, g_freed_obj, CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(&so, (NvSciSyncObj)g.in_buf, CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(&so, g_lone_obj, (cupvaSyncClientType_t)0), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(&so, g_lone_obj, (cupvaSyncClientType_t)4), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(NULL, g_lone_obj, CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjCreateFromNvsci(MISALIGNED(cupvaSyncObj_t), g_lone_obj, CUPVA_WAITER),
               BAD);
    CHECK(so == NULL, "a refused sync object was written");
}
HOSTILE(CupvaSyncObjFillAttributes) {
    NvSciSyncAttrList list = NULL, none = NULL, freed = NULL;
    NvSciSyncAttrList forged = FORGED(NvSciSyncAttrList);
    EXPECT_PVA(CupvaSyncObjFillAttributes(NULL, CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjFillAttributes(MISALIGNED(NvSciSyncAttrList), CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjFillAttributes(&none, CUPVA_WAITER), BAD);
    EXPECT_PVA(CupvaSyncObjFillAttributes(&forged, CUPVA_WAITER), BAD);
    EXPECT_SCI(NvSciSyncAttrListCreate(g.sync_mod, &freed), NvSciError_Success);
    NvSciSyncAttrListFree(freed);
    EXPECT_PVA(CupvaSyncObjFillAttributes(&freed, CUPVA_WAITER), BAD);
    EXPECT_SCI(NvSciSyncAttrListCreate(g.sync_mod, &list), NvSciError_Success);
    EXPECT_PVA(CupvaSyncObjFillAttributes(&list, (cupvaSyncClientType_t)0), BAD);
    EXPECT_PVA(CupvaSyncObjFillAttributes(&list, (cupvaSyncClientType_t)4), BAD);
    EXPECT_PVA(CupvaSyncObjFillAttributes(&list, (cupvaSyncClientType_t)0x7fffffff), BAD);
    NvSciSyncAttrListFree(list);
}

HOSTILE(CupvaSilAllowProgram) {
    EXPECT_PVA(CupvaSilAllowProgram(NULL), BAD);
}

static int32_t never_model(void* user, const CupvaSilProgramRun* run) {
    (void)user;
    (void)run;
    return 1;
}

HOSTILE(CupvaSilRegisterProgramModel) {
    static const uint8_t other[1][32] = {{0x11}};
    static const uint32_t kinds[4] = {CUPVA_SIL_PARAM_PTR, CUPVA_SIL_PARAM_PTR,
                                      CUPVA_SIL_PARAM_U32, CUPVA_SIL_PARAM_U32};
    static const uint32_t bad_kinds[4] = {CUPVA_SIL_PARAM_PTR, 9, 0, 0};
    static const uint32_t max_kind[4] = {UINT32_MAX, 0, 0, 0};
    const char* names[4] = {"src", "dst", "n", "gain"};
    const char* dup[4] = {"src", "src", "n", "gain"};
    const char* empty[4] = {"src", "", "n", "gain"};
    const char* null_name[4] = {"src", NULL, "n", "gain"};
    const char* not_utf8[4] = {"src", "\xff\xfe", "n", "gain"};
    const uint8_t(*scale_hash)[32] = (const uint8_t(*)[32])g_img->hash;
#define REG(name, hashes, nh, pn, k, np, model) \
    CupvaSilRegisterProgramModel(name, hashes, nh, pn, k, np, model, NULL)
    EXPECT_PVA(REG("hostile", other, 1, names, kinds, 4, NULL), BAD);
    EXPECT_PVA(REG(NULL, other, 1, names, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("", other, 1, names, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("\xff", other, 1, names, kinds, 4, never_model), BAD);
    /* Counts past the limits (16 parameters, 64 hashes) over short arrays: unread. */
    EXPECT_PVA(REG("hostile", other, 1, names, kinds, 17, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, names, kinds, UINT32_MAX, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 65, names, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, UINT32_MAX, names, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 0, names, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", NULL, 1, names, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, NULL, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, MISALIGNED(const char* const), kinds, 4, never_model),
               BAD);
    EXPECT_PVA(REG("hostile", other, 1, names, NULL, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, names, MISALIGNED(const uint32_t), 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, names, bad_kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, names, max_kind, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, dup, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, empty, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, null_name, kinds, 4, never_model), BAD);
    EXPECT_PVA(REG("hostile", other, 1, not_utf8, kinds, 4, never_model), BAD);
    /* The image of `scale` is bound to `scale`: another program cannot take it. */
    EXPECT_PVA(REG("hostile", scale_hash, 1, names, kinds, 4, never_model), STATE);
#undef REG
}
HOSTILE(CupvaSilSetTimingModel) {
    static const uint64_t upper[2] = {1000, 2000};
    static const uint64_t falling[2] = {2000, 1000};
    static const uint32_t weights[2] = {1, 1};
    static const uint32_t zero[2] = {0, 0};
    CupvaSilTimingModel m = {CUPVA_SIL_TIMING_HISTOGRAM, 2, 0, 0, upper, weights, 1};
    static const uint32_t bins[] = {0, 33, UINT32_MAX};
    size_t i;
    EXPECT_PVA(CupvaSilSetTimingModel((cupvaEngineType_t)0, CUPVA_VPU0, &m), BAD);
    EXPECT_PVA(CupvaSilSetTimingModel((cupvaEngineType_t)3, CUPVA_VPU0, &m), BAD);
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, (cupvaAffinityType_t)0, &m), BAD);
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU_ANY, &m), BAD); /* one VPU only */
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, (cupvaAffinityType_t)4, &m), BAD);
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, NULL), BAD);
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, MISALIGNED(CupvaSilTimingModel)),
               BAD);
    /* Bin counts outside 1..=32 over two-bin arrays: refused before they are read. */
    for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
        m.numBins = bins[i];
        EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    }
    m.numBins = 2;
    m.binUpperNs = NULL;
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    m.binUpperNs = MISALIGNED(const uint64_t);
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    m.binUpperNs = falling;
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    m.binUpperNs = upper;
    m.binWeights = zero;
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    m.binWeights = NULL;
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    m.kind = CUPVA_SIL_TIMING_UNIFORM;
    m.minNs = 9;
    m.maxNs = 1;
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
    m.kind = 9;
    EXPECT_PVA(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
}
HOSTILE(CupvaSilInjectFault) {
    CupvaSilFault f = {CUPVA_SIL_FAULT_LATE, 0, 0, 1, 1000};
    cupvaStream_t t = NULL;
    int i;
    EXPECT_PVA(CupvaSilInjectFault(NULL, &f), BAD);
    EXPECT_PVA(CupvaSilInjectFault(FORGED(cupvaStream_t), &f), BAD);
    EXPECT_PVA(CupvaSilInjectFault(g_dead_stream, &f), BAD);
    EXPECT_PVA(CupvaSilInjectFault((cupvaStream_t)g_ts_sync, &f), BAD);
    EXPECT_PVA(CupvaSilInjectFault(g.stream, NULL), BAD);
    EXPECT_PVA(CupvaSilInjectFault(g.stream, MISALIGNED(CupvaSilFault)), BAD);
    f.kind = 0;
    EXPECT_PVA(CupvaSilInjectFault(g.stream, &f), BAD);
    f.kind = 99;
    EXPECT_PVA(CupvaSilInjectFault(g.stream, &f), BAD);
    f.kind = CUPVA_SIL_FAULT_ERROR; /* an error fault needs an error */
    EXPECT_PVA(CupvaSilInjectFault(g.stream, &f), BAD);
    /* At most 8 live rules per stream (on a stream of its own). */
    f.kind = CUPVA_SIL_FAULT_LATE;
    OK(CupvaStreamCreate(&t, CUPVA_PVA1, CUPVA_VPU0));
    for (i = 0; i < 8; i++) {
        OK(CupvaSilInjectFault(t, &f));
    }
    EXPECT_PVA(CupvaSilInjectFault(t, &f), STATE);
    OK(CupvaSilClearFaults(t));
    OK(CupvaSilInjectFault(t, &f));
    OK(CupvaStreamDestroy(t));
}
HOSTILE(CupvaSilClearFaults) {
    EXPECT_PVA(CupvaSilClearFaults(NULL), BAD);
    EXPECT_PVA(CupvaSilClearFaults(FORGED(cupvaStream_t)), BAD);
    EXPECT_PVA(CupvaSilClearFaults(g_dead_stream), BAD);
    EXPECT_PVA(CupvaSilClearFaults((cupvaStream_t)g_ts_sync), BAD);
    OK(CupvaSilClearFaults(g.stream));
}

/* ---------------------------------------------------------------------------------- */

/* What the cases work on (the globals above). Returns 0, or -1 after reporting. */
static int fixtures_open(void) {
    cupvaStream_t st = NULL;
    cupvaCmd_t req;
    cupvaCmdStatus_t status = NULL;
    const cupvaCmd_t* one[1] = {&req};
    bool done = false;
    int i;

    hostile_init_garbage();
    PVA(CupvaExecutableCreate(&g_dead_exec, g_img->bytes, g_img->len));
    PVA(CupvaExecutableDestroy(g_dead_exec));
    PVA(CupvaStreamCreate(&st, CUPVA_PVA1, CUPVA_VPU1));
    g_dead_stream = st;
    PVA(CupvaStreamDestroy(st));
    PVA(CupvaSyncObjCreate(&g_ts_sync, true, CUPVA_SIGNALER_WAITER, CUPVA_SYNC_YIELD));
    PVA(CupvaSyncObjCreate(&g_plain_sync, false, CUPVA_SIGNALER_WAITER, CUPVA_SYNC_SPIN));
    PVA(CupvaSyncObjCreate(&g_waiter_sync, false, CUPVA_WAITER, CUPVA_SYNC_YIELD));
    PVA(CupvaSyncObjCreate(&g_dead_sync, true, CUPVA_SIGNALER, CUPVA_SYNC_YIELD));
    g_cpu_obj = pva_sync_object(g.sync_mod, CUPVA_WAITER);
    g_pva_obj = pva_sync_object(g.sync_mod, CUPVA_SIGNALER);
    g_gate_obj = pva_sync_object(g.sync_mod, CUPVA_WAITER);
    g_lone_obj = pva_sync_object(g.sync_mod, CUPVA_WAITER);
    g_freed_obj = pva_sync_object(g.sync_mod, CUPVA_WAITER);
    g_freed_buf = pva_raw_buffer(g.buf_mod, 64);
    if (!g_cpu_obj || !g_pva_obj || !g_gate_obj || !g_lone_obj || !g_freed_obj ||
        !g_freed_buf) {
        goto cleanup;
    }
    NvSciSyncObjFree(g_freed_obj);
    NvSciBufObjFree(g_freed_buf);
    PVA(CupvaSyncObjCreateFromNvsci(&g_cpu_sync, g_cpu_obj, CUPVA_WAITER));
    PVA(CupvaSyncObjCreateFromNvsci(&g_pva_sync, g_pva_obj, CUPVA_SIGNALER));
    PVA(CupvaSyncObjCreateFromNvsci(&g_gate_sync, g_gate_obj, CUPVA_WAITER));
    PVA(CupvaCmdBarrierInit(&g_barrier));

    /* A program command, destroyed: a stale copy, its cleared storage, its parameter. */
    PVA(CupvaCmdProgramCreate(&g_cleared_cmd, g.exec));
    PVA(CupvaCmdProgramGetParameter(&g_cleared_cmd, &g_stale_param, "n"));
    g_stale_cmd = g_cleared_cmd;
    PVA(CupvaCmdDestroy(&g_cleared_cmd));

    /* One request filling a fence of each object, reached; then g_dead_sync destroyed. */
    PVA(CupvaFenceInit(&g_reached[R_TS], g_ts_sync));
    PVA(CupvaFenceInit(&g_reached[R_PLAIN], g_plain_sync));
    PVA(CupvaFenceInit(&g_reached[R_SCI], g_pva_sync));
    PVA(CupvaFenceInit(&g_reached[R_STALE], g_dead_sync));
    PVA(CupvaCmdRequestFencesInit(&req, g_reached, R_COUNT));
    PVA(CupvaStreamSubmit(g.stream, one, &status, 1, CUPVA_IN_ORDER, -1, -1));
    for (i = 0; i < R_COUNT; i++) {
        PVA(CupvaFenceWait(&g_reached[i], WAIT_US, &done));
        CHECK(done, "fixture fence %d not reached", i);
    }
    g_status = status;
    PVA(CupvaCmdDestroy(&req));
    PVA(CupvaSyncObjDestroy(g_dead_sync));
    PVA(CupvaFenceInit(&g_unfilled, g_ts_sync));
    g_tampered = g_reached[R_TS];
    g_tampered.data[3] += 1;
    return failures ? -1 : 0;
cleanup:
    return -1;
}

static void fixtures_close(void) {
    cupvaSyncObj_t syncs[] = {g_ts_sync,  g_plain_sync, g_waiter_sync,
                              g_cpu_sync, g_pva_sync,   g_gate_sync};
    NvSciSyncObj objs[] = {g_cpu_obj, g_pva_obj, g_gate_obj, g_lone_obj};
    size_t i;
    /* The stream first: it stops the worker that may still use the sync objects. */
    if (g.stream) OK(CupvaStreamDestroy(g.stream));
    g.stream = NULL;
    for (i = 0; i < sizeof(syncs) / sizeof(syncs[0]); i++) {
        if (syncs[i]) OK(CupvaSyncObjDestroy(syncs[i]));
    }
    for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
        if (objs[i]) NvSciSyncObjFree(objs[i]);
    }
    if (g_barrier.data[0]) OK(CupvaCmdDestroy(&g_barrier));
}

/* After every case: `scale` still runs on g.stream and produces the golden output, with
 * its end-of-frame fence reached and timestamped. */
static void golden_run(void) {
    cupvaFence_t eof;
    cupvaCmd_t req;
    bool have_req = false, done = false;
    const cupvaCmd_t* cmds[2] = {&g.prog, &req};
    cupvaCmdStatus_t st[2] = {NULL, NULL};
    cupvaError_t e = CUPVA_OPERATION_PENDING;
    uint64_t ts = 0;
    int calls = g.calls;

    scale_poison_output(&g);
    if (scale_set_params(&g) != 0) {
        return;
    }
    PVA(CupvaFenceInit(&eof, g_ts_sync));
    PVA(CupvaCmdRequestFencesInit(&req, &eof, 1));
    have_req = true;
    PVA(CupvaStreamSubmit(g.stream, cmds, st, 2, CUPVA_IN_ORDER, 1000, 1000));
    PVA(CupvaFenceWait(&eof, WAIT_US, &done));
    CHECK(done, "the end-of-frame fence of the golden run was not reached");
    PVA(CupvaCheckCommandStatus(st[0], &e));
    CHECK(e == CUPVA_ERROR_NONE, "golden run: program status %d", (int)e);
    CHECK(g.calls == calls + 1, "golden run: the model ran %d times", g.calls - calls);
    scale_check_output(&g, "the program after the hostile calls");
    PVA(CupvaFenceGetTimeStamp(&eof, &ts));
cleanup:
    if (have_req) OK(CupvaCmdDestroy(&req));
}

int main(int argc, char** argv) {
    struct scale_image img;

    memset(&g, 0, sizeof(g));
    if (scale_image_read(&img, argc, argv) != 0) {
        return 2;
    }
    g_img = &img;
    if (scale_open(&g, &img) == 0 && fixtures_open() == 0) {
        hostile_run_all();
        CHECK(all_bytes(hostile_garbage, sizeof(hostile_garbage), 0xFF),
              "a refused call wrote through a garbage or misaligned pointer");
        golden_run();
    }
    fixtures_close();
    scale_close(&g);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
