/*
 * hostile_nvscisync.c: NvSciSync entry points called with hostile arguments: NULL
 * pointers, counts no array can hold (SIZE_MAX, count * element size overflowing, 2^40),
 * freed handles, out-of-range timeouts and fence values at the 64-bit edge. Each call must
 * return an error code (never abort, crash or hang) and the library must still work after
 * them (sil/README.md, "Hostile arguments").
 *
 * usage: hostile_nvscisync (the golden-data arguments of the other clients are ignored)
 */
#include <stdint.h>
#include <string.h>

#include "common.h"

/* CPU access, `perm`, the 64-bit semaphore (fence values take every uint64_t). */
static NvSciError set_perm(NvSciSyncAttrList list, NvSciSyncAccessPerm perm) {
    bool cpu = true;
    NvSciSyncAttrValPrimitiveType prim = NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b;
    NvSciSyncAttrKeyValuePair pairs[3] = {
        {NvSciSyncAttrKey_RequiredPerm, &perm, sizeof(perm)},
        {NvSciSyncAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)},
        {NvSciSyncAttrKey_PrimitiveInfo, &prim, sizeof(prim)},
    };
    return NvSciSyncAttrListSetAttrs(list, pairs, 3);
}

int main(void) {
    NvSciSyncModule module = NULL;
    NvSciSyncAttrList lists[2] = {NULL, NULL};
    NvSciSyncAttrList reconciled = NULL, conflict = NULL, freed = NULL;
    NvSciSyncObj obj = NULL;
    NvSciSyncCpuWaitContext ctx = NULL;
    NvSciSyncFence fence;
    NvSciSyncAttrKeyValuePair pair;
    bool cpu = true;
    uint64_t id = 0, value = 0;
    /* Counts no caller array can hold: every one refused before the array is read. */
    const size_t huge[] = {SIZE_MAX, SIZE_MAX / sizeof(NvSciSyncAttrList) + 1,
                           (size_t)1 << 40, (size_t)1 << 20};
    size_t i;

    memset(&fence, 0, sizeof(fence));
    SCI(NvSciSyncModuleOpen(&module));
    SCI(NvSciSyncCpuWaitContextAlloc(module, &ctx));
    SCI(NvSciSyncAttrListCreate(module, &lists[0]));
    SCI(NvSciSyncAttrListCreate(module, &lists[1]));

    /* SetAttrs: more pairs than keys, counts that overflow, NULL. */
    pair = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)};
    for (i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        EXPECT_SCI(NvSciSyncAttrListSetAttrs(lists[0], &pair, huge[i]), NvSciError_BadParameter);
    }
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(lists[0], NULL, 1), NvSciError_BadParameter);
    pair.len = SIZE_MAX;
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(lists[0], &pair, 1), NvSciError_BadParameter);
    SCI(set_perm(lists[0], NvSciSyncAccessPerm_SignalOnly));
    SCI(set_perm(lists[1], NvSciSyncAccessPerm_WaitOnly));

    /* Reconcile: huge counts over a two-element array, NULL array and outputs. */
    for (i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        EXPECT_SCI(NvSciSyncAttrListReconcile(lists, huge[i], &reconciled, &conflict),
                   NvSciError_BadParameter);
    }
    EXPECT_SCI(NvSciSyncAttrListReconcile(NULL, 2, &reconciled, &conflict),
               NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncAttrListReconcile(lists, 2, NULL, &conflict), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncAttrListReconcile(lists, 2, &reconciled, NULL), NvSciError_BadParameter);
    {
        /* The same list twice, and a freed list. */
        NvSciSyncAttrList twice[2] = {lists[0], lists[0]};
        EXPECT_SCI(NvSciSyncAttrListReconcile(twice, 2, &reconciled, &conflict),
                   NvSciError_BadParameter);
        SCI(NvSciSyncAttrListCreate(module, &freed));
        NvSciSyncAttrListFree(freed);
        NvSciSyncAttrList stale[2] = {lists[0], freed};
        EXPECT_SCI(NvSciSyncAttrListReconcile(stale, 2, &reconciled, &conflict),
                   NvSciError_BadParameter);
        EXPECT_SCI(set_perm(freed, NvSciSyncAccessPerm_WaitOnly), NvSciError_BadParameter);
        EXPECT_SCI(NvSciSyncObjAlloc(freed, &obj), NvSciError_BadParameter);
    }

    /* Still works after all that. */
    SCI(NvSciSyncAttrListReconcile(lists, 2, &reconciled, &conflict));
    SCI(NvSciSyncObjAlloc(reconciled, &obj));

    /* Timeouts outside [-1, NvSciSyncFenceMaxTimeout]; a cleared fence is reached at once. */
    EXPECT_SCI(NvSciSyncFenceWait(&fence, ctx, -2), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncFenceWait(&fence, ctx, INT64_MIN), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncFenceWait(&fence, ctx, INT64_MAX), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncFenceWait(NULL, ctx, 0), NvSciError_BadParameter);

    /* Fence values at the 64-bit edge round-trip; NULL outputs are refused. */
    SCI(NvSciSyncObjGenerateFence(obj, &fence));
    SCI(NvSciSyncFenceExtractFence(&fence, &id, &value));
    for (i = 0; i < 2; i++) {
        uint64_t v = UINT64_MAX - 1 + i, got_id = 0, got = 0;
        NvSciSyncFence f;
        memset(&f, 0, sizeof(f));
        EXPECT_SCI(NvSciSyncFenceUpdateFence(obj, id, v, &f), NvSciError_Success);
        EXPECT_SCI(NvSciSyncFenceExtractFence(&f, &got_id, &got), NvSciError_Success);
        CHECK(got == v && got_id == id, "fence value %llu came back as %llu",
              (unsigned long long)v, (unsigned long long)got);
        NvSciSyncFenceClear(&f);
    }
    EXPECT_SCI(NvSciSyncFenceExtractFence(&fence, NULL, &value), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncFenceUpdateFence(obj, id, 1, NULL), NvSciError_BadParameter);
    SCI(NvSciSyncObjSignal(obj));
    EXPECT_SCI(NvSciSyncFenceWait(&fence, ctx, 0), NvSciError_Success);

    /* A freed object: an error, not a crash. */
    NvSciSyncObjFree(obj);
    EXPECT_SCI(NvSciSyncObjSignal(obj), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncObjGenerateFence(obj, &fence), NvSciError_BadParameter);
    obj = NULL;

cleanup:
    NvSciSyncFenceClear(&fence);
    if (obj != NULL) {
        NvSciSyncObjFree(obj);
    }
    for (i = 0; i < 2; i++) {
        if (lists[i] != NULL) {
            NvSciSyncAttrListFree(lists[i]);
        }
    }
    if (reconciled != NULL) {
        NvSciSyncAttrListFree(reconciled);
    }
    if (conflict != NULL) {
        NvSciSyncAttrListFree(conflict);
    }
    if (ctx != NULL) {
        NvSciSyncCpuWaitContextFree(ctx);
    }
    if (module != NULL) {
        NvSciSyncModuleClose(module);
    }
    return finish();
}
