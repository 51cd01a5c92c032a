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
#include "hostile.h"

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

/* ---------------------------------------------------------------------------------- */
/* One case per exported entry point (hostile.h): every pointer NULL, forged, freed and  */
/* wrong-kind handles, huge counts, out-of-range enums and timeouts.                    */
/* ---------------------------------------------------------------------------------- */

/* The less-used calls and the SIL extensions, declared from their documented signatures
 * (sil/nvscisync/src; the task status is only written through, so `void*` here). */
NvSciError NvSciSyncAttrListGetAttrs(NvSciSyncAttrList attrList,
                                     NvSciSyncAttrKeyValuePair* pairArray, size_t pairCount);
NvSciError NvSciSyncAttrListSlotGetAttrs(NvSciSyncAttrList attrList, size_t slotIndex,
                                         NvSciSyncAttrKeyValuePair* pairArray, size_t pairCount);
size_t NvSciSyncAttrListGetSlotCount(NvSciSyncAttrList attrList);
NvSciError NvSciSyncAttrListIsReconciled(NvSciSyncAttrList attrList, bool* isReconciled);
NvSciError NvSciSyncAttrListAppendUnreconciled(const NvSciSyncAttrList inputArray[],
                                               size_t inputCount, NvSciSyncAttrList* newList);
NvSciError NvSciSyncAttrListClone(NvSciSyncAttrList origAttrList, NvSciSyncAttrList* newAttrList);
NvSciError NvSciSyncAttrListValidateReconciled(NvSciSyncAttrList reconciled,
                                               const NvSciSyncAttrList inputArray[],
                                               size_t inputCount, bool* isValid);
NvSciError NvSciSyncAttrListDebugDump(NvSciSyncAttrList attrList, void** buf, size_t* len);
NvSciError NvSciSyncAttrListValidateReconciledAgainstAttrs(
    NvSciSyncAttrList reconciled, const NvSciSyncAttrKeyValuePair* pairArray, size_t pairCount,
    NvSciSyncAccessPerm permissions);
NvSciError NvSciSyncCheckVersionCompatibility(uint32_t majorVer, uint32_t minorVer,
                                              bool* isCompatible);
NvSciError NvSciSyncAttrListReconcileAndObjAlloc(const NvSciSyncAttrList attrListArray[],
                                                 size_t attrListCount, NvSciSyncObj* syncObj,
                                                 NvSciSyncAttrList* newConflictList);
NvSciError NvSciSyncObjValidate(NvSciSyncObj syncObj);
NvSciError NvSciSyncFenceWaitWithMode(const NvSciSyncFence* syncFence,
                                      NvSciSyncCpuWaitContext context, int64_t timeoutUs,
                                      int waitMode);
NvSciError NvSciSyncFenceGetTaskStatus(const NvSciSyncFence* syncFence, void* taskStatus);
NvSciError NvSciSyncFenceAddTimestampSlot(NvSciSyncFence* syncFence, uint32_t slot);
NvSciError NvSciSyncFenceAddTaskStatusSlot(NvSciSyncFence* syncFence, uint32_t slot);
NvSciError NvSciSyncFenceExtractTimestampSlot(NvSciSyncFence* syncFence, uint32_t* slot);
uint64_t NvSciSilClockNowNs(void);
NvSciError NvSciSilClockSetVirtual(bool enable, uint64_t startNs);
NvSciError NvSciSilClockAdvanceTo(uint64_t ns);
NvSciError NvSciSyncSilObjGetCounter(NvSciSyncObj obj, uint64_t** counter);
NvSciError NvSciSyncSilObjSetDeviceWritten(NvSciSyncObj obj);
NvSciError NvSciSyncSilWakeWaiters(void);
NvSciError NvSciSyncSilObjSignalEngine(NvSciSyncObj obj, uint64_t timestampNs);
NvSciError NvSciSyncSilObjEngineFence(NvSciSyncObj obj, NvSciSyncFence* fence);
NvSciError NvSciSyncSilCounterWritten(const uint64_t* counter, uint64_t timestampNs);
NvSciError NvSciSyncSilFenceWaitEngine(const NvSciSyncFence* fence, int64_t timeoutUs,
                                       uint64_t* reachedAtNs);
NvSciError NvSciSyncSilFenceWaitEngineAbortable(const NvSciSyncFence* fence, int64_t timeoutUs,
                                                const uint32_t* abort, uint64_t* reachedAtNs);
NvSciError NvSciSyncSilCounterWait(const uint64_t* counter, uint64_t value, uint32_t mode,
                                   int64_t timeoutUs, uint64_t* reachedAtNs);
NvSciError NvSciSyncSilCounterWaitAbortable(const uint64_t* counter, uint64_t value,
                                            uint32_t mode, int64_t timeoutUs,
                                            const uint32_t* abort, uint64_t* reachedAtNs);
NvSciError NvSciSyncSilObjGetSignalTimestamp(NvSciSyncObj obj, uint64_t value, uint64_t* tsNs);

/* What the cases work on (set up by main before hostile_run_all). */
static NvSciSyncModule g_module;
static NvSciSyncCpuWaitContext g_ctx;
static NvSciSyncAttrList g_lists[2];      /* unreconciled, signaller and waiter */
static NvSciSyncAttrList g_reconciled;    /* reconciled from g_lists */
static NvSciSyncAttrList g_freed_list;    /* created, then freed */
static NvSciSyncObj g_obj, g_freed_obj;   /* allocated; allocated, then freed */
static NvSciSyncFence g_fence;            /* a fence on g_obj, not yet reached */
#define BAD NvSciError_BadParameter
#define FORGED_LIST ((NvSciSyncAttrList)FORGED_HANDLE)
#define FORGED_OBJ ((NvSciSyncObj)FORGED_HANDLE)
/* A fence of garbage bytes: an id no object has. */
static NvSciSyncFence garbage_fence(void) {
    NvSciSyncFence f;
    memset(&f, 0xFF, sizeof(f));
    return f;
}

HOSTILE(NvSciSyncModuleOpen) {
    EXPECT_SCI(NvSciSyncModuleOpen(NULL), BAD);
}
HOSTILE(NvSciSyncModuleClose) {
    /* void: NULL, forged and wrong-kind handles are ignored. */
    NvSciSyncModuleClose(NULL);
    NvSciSyncModuleClose((NvSciSyncModule)FORGED_HANDLE);
    NvSciSyncModuleClose((NvSciSyncModule)g_lists[0]);
}
HOSTILE(NvSciSyncCpuWaitContextAlloc) {
    NvSciSyncCpuWaitContext c = NULL;
    EXPECT_SCI(NvSciSyncCpuWaitContextAlloc(NULL, &c), BAD);
    EXPECT_SCI(NvSciSyncCpuWaitContextAlloc((NvSciSyncModule)FORGED_HANDLE, &c), BAD);
    EXPECT_SCI(NvSciSyncCpuWaitContextAlloc((NvSciSyncModule)g_obj, &c), BAD);
    EXPECT_SCI(NvSciSyncCpuWaitContextAlloc(g_module, NULL), BAD);
}
HOSTILE(NvSciSyncCpuWaitContextFree) {
    NvSciSyncCpuWaitContextFree(NULL);
    NvSciSyncCpuWaitContextFree((NvSciSyncCpuWaitContext)FORGED_HANDLE);
    NvSciSyncCpuWaitContextFree((NvSciSyncCpuWaitContext)g_module);
}
HOSTILE(NvSciSyncAttrListCreate) {
    NvSciSyncAttrList l = NULL;
    EXPECT_SCI(NvSciSyncAttrListCreate(NULL, &l), BAD);
    EXPECT_SCI(NvSciSyncAttrListCreate((NvSciSyncModule)FORGED_HANDLE, &l), BAD);
    EXPECT_SCI(NvSciSyncAttrListCreate((NvSciSyncModule)g_ctx, &l), BAD);
    EXPECT_SCI(NvSciSyncAttrListCreate(g_module, NULL), BAD);
}
HOSTILE(NvSciSyncAttrListFree) {
    NvSciSyncAttrListFree(NULL);
    NvSciSyncAttrListFree(FORGED_LIST);
    NvSciSyncAttrListFree(g_freed_list);
    NvSciSyncAttrListFree((NvSciSyncAttrList)g_obj);
}
HOSTILE(NvSciSyncAttrListSetAttrs) {
    bool cpu = true;
    NvSciSyncAttrKeyValuePair pair = {NvSciSyncAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, HOSTILE_COUNTS[i]), BAD);
        EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], NULL, HOSTILE_COUNTS[i]), BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, 0), BAD);
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(NULL, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(FORGED_LIST, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_freed_list, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListSetAttrs((NvSciSyncAttrList)g_obj, &pair, 1), BAD);
    /* A reconciled list is read-only. */
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_reconciled, &pair, 1), BAD);
    pair.value = NULL;
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, 1), BAD);
    pair.value = &cpu;
    pair.len = SIZE_MAX;
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, 1), BAD);
    pair.len = 0;
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, 1), BAD);
    pair.len = sizeof(cpu);
    pair.attrKey = (NvSciSyncAttrKey)0x7fffffff;
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, 1), BAD);
    pair.attrKey = NvSciSyncAttrKey_LowerBound;
    EXPECT_SCI(NvSciSyncAttrListSetAttrs(g_lists[0], &pair, 1), BAD);
}
HOSTILE(NvSciSyncAttrListGetAttrs) {
    NvSciSyncAttrKeyValuePair pair = {NvSciSyncAttrKey_NeedCpuAccess, NULL, 0};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        if (i < HOSTILE_NOVERFLOW) {
            EXPECT_SCI(NvSciSyncAttrListGetAttrs(g_lists[0], &pair, HOSTILE_COUNTS[i]), BAD);
        }
        EXPECT_SCI(NvSciSyncAttrListGetAttrs(g_lists[0], NULL, HOSTILE_COUNTS[i]), BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListGetAttrs(g_lists[0], &pair, 0), BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttrs(NULL, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttrs(FORGED_LIST, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttrs(g_freed_list, &pair, 1), BAD);
    pair.attrKey = (NvSciSyncAttrKey)-1;
    EXPECT_SCI(NvSciSyncAttrListGetAttrs(g_lists[0], &pair, 1), BAD);
}
HOSTILE(NvSciSyncAttrListSlotGetAttrs) {
    NvSciSyncAttrKeyValuePair pair = {NvSciSyncAttrKey_NeedCpuAccess, NULL, 0};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        if (i < HOSTILE_NOVERFLOW) {
            EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(g_lists[0], 0, &pair, HOSTILE_COUNTS[i]), BAD);
        }
        EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(g_lists[0], 0, NULL, HOSTILE_COUNTS[i]), BAD);
        EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(g_lists[0], HOSTILE_COUNTS[i], &pair, 1), BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(g_lists[0], 1, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(NULL, 0, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(FORGED_LIST, 0, &pair, 1), BAD);
    EXPECT_SCI(NvSciSyncAttrListSlotGetAttrs(g_freed_list, 0, &pair, 1), BAD);
}
HOSTILE(NvSciSyncAttrListGetSlotCount) {
    /* No error code: 0 for a list that is not one. */
    CHECK(NvSciSyncAttrListGetSlotCount(NULL) == 0, "slot count of NULL");
    CHECK(NvSciSyncAttrListGetSlotCount(FORGED_LIST) == 0, "slot count of a forged list");
    CHECK(NvSciSyncAttrListGetSlotCount(g_freed_list) == 0, "slot count of a freed list");
    CHECK(NvSciSyncAttrListGetSlotCount((NvSciSyncAttrList)g_obj) == 0,
          "slot count of an object");
}
HOSTILE(NvSciSyncAttrListGetAttr) {
    const void* v = NULL;
    size_t len = 0;
    EXPECT_SCI(NvSciSyncAttrListGetAttr(NULL, NvSciSyncAttrKey_NeedCpuAccess, &v, &len), BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttr(FORGED_LIST, NvSciSyncAttrKey_NeedCpuAccess, &v, &len),
               BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttr(g_freed_list, NvSciSyncAttrKey_NeedCpuAccess, &v, &len),
               BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttr(g_lists[0], NvSciSyncAttrKey_NeedCpuAccess, NULL, &len),
               BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttr(g_lists[0], NvSciSyncAttrKey_NeedCpuAccess, &v, NULL),
               BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttr(g_lists[0], (NvSciSyncAttrKey)0x7fffffff, &v, &len), BAD);
    EXPECT_SCI(NvSciSyncAttrListGetAttr(g_lists[0], (NvSciSyncAttrKey)-1, &v, &len), BAD);
}
HOSTILE(NvSciSyncAttrListReconcile) {
    NvSciSyncAttrList r = NULL, c = NULL;
    NvSciSyncAttrList forged[2] = {g_lists[0], FORGED_LIST};
    NvSciSyncAttrList kinds[2] = {g_lists[0], (NvSciSyncAttrList)g_obj};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciSyncAttrListReconcile(g_lists, HOSTILE_COUNTS[i], &r, &c), BAD);
        EXPECT_SCI(NvSciSyncAttrListReconcile(NULL, HOSTILE_COUNTS[i], &r, &c), BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListReconcile(g_lists, 0, &r, &c), BAD);
    EXPECT_SCI(NvSciSyncAttrListReconcile(forged, 2, &r, &c), BAD);
    EXPECT_SCI(NvSciSyncAttrListReconcile(kinds, 2, &r, &c), BAD);
    EXPECT_SCI(NvSciSyncAttrListReconcile(g_lists, 2, NULL, NULL), BAD);
}
HOSTILE(NvSciSyncAttrListIsReconciled) {
    bool r = false;
    EXPECT_SCI(NvSciSyncAttrListIsReconciled(NULL, &r), BAD);
    EXPECT_SCI(NvSciSyncAttrListIsReconciled(FORGED_LIST, &r), BAD);
    EXPECT_SCI(NvSciSyncAttrListIsReconciled(g_freed_list, &r), BAD);
    EXPECT_SCI(NvSciSyncAttrListIsReconciled(g_lists[0], NULL), BAD);
}
HOSTILE(NvSciSyncAttrListAppendUnreconciled) {
    NvSciSyncAttrList out = NULL;
    NvSciSyncAttrList stale[2] = {g_lists[0], g_freed_list};
    NvSciSyncAttrList mixed[2] = {g_lists[0], g_reconciled};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciSyncAttrListAppendUnreconciled(g_lists, HOSTILE_COUNTS[i], &out), BAD);
        EXPECT_SCI(NvSciSyncAttrListAppendUnreconciled(NULL, HOSTILE_COUNTS[i], &out), BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListAppendUnreconciled(g_lists, 0, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListAppendUnreconciled(stale, 2, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListAppendUnreconciled(mixed, 2, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListAppendUnreconciled(g_lists, 2, NULL), BAD);
}
HOSTILE(NvSciSyncAttrListClone) {
    NvSciSyncAttrList out = NULL;
    EXPECT_SCI(NvSciSyncAttrListClone(NULL, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListClone(FORGED_LIST, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListClone(g_freed_list, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListClone((NvSciSyncAttrList)g_obj, &out), BAD);
    EXPECT_SCI(NvSciSyncAttrListClone(g_lists[0], NULL), BAD);
}
HOSTILE(NvSciSyncAttrListValidateReconciled) {
    bool ok = false;
    NvSciSyncAttrList stale[2] = {g_lists[0], g_freed_list};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciSyncAttrListValidateReconciled(g_reconciled, g_lists, HOSTILE_COUNTS[i],
                                                       &ok),
                   BAD);
        EXPECT_SCI(NvSciSyncAttrListValidateReconciled(g_reconciled, NULL, HOSTILE_COUNTS[i],
                                                       &ok),
                   BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListValidateReconciled(g_reconciled, g_lists, 0, &ok), BAD);
    EXPECT_SCI(NvSciSyncAttrListValidateReconciled(g_reconciled, stale, 2, &ok), BAD);
    EXPECT_SCI(NvSciSyncAttrListValidateReconciled(NULL, g_lists, 2, &ok), BAD);
    EXPECT_SCI(NvSciSyncAttrListValidateReconciled(FORGED_LIST, g_lists, 2, &ok), BAD);
    EXPECT_SCI(NvSciSyncAttrListValidateReconciled(g_lists[0], g_lists, 2, &ok), BAD);
    EXPECT_SCI(NvSciSyncAttrListValidateReconciled(g_reconciled, g_lists, 2, NULL), BAD);
}
HOSTILE(NvSciSyncAttrListDebugDump) {
    void* buf = NULL;
    size_t len = 0;
    EXPECT_SCI(NvSciSyncAttrListDebugDump(NULL, &buf, &len), BAD);
    EXPECT_SCI(NvSciSyncAttrListDebugDump(FORGED_LIST, &buf, &len), BAD);
    EXPECT_SCI(NvSciSyncAttrListDebugDump(g_freed_list, &buf, &len), BAD);
    EXPECT_SCI(NvSciSyncAttrListDebugDump(g_lists[0], NULL, &len), BAD);
    EXPECT_SCI(NvSciSyncAttrListDebugDump(g_lists[0], &buf, NULL), BAD);
}
HOSTILE(NvSciSyncAttrListValidateReconciledAgainstAttrs) {
    /* nvscisync.h (outside safety builds): a no-op returning Success that reads nothing, so
     * a huge count over NULL is safe. */
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciSyncAttrListValidateReconciledAgainstAttrs(
                       FORGED_LIST, NULL, HOSTILE_COUNTS[i], ~(NvSciSyncAccessPerm)0),
                   NvSciError_Success);
    }
}
HOSTILE(NvSciSyncCheckVersionCompatibility) {
    bool ok = true;
    EXPECT_SCI(NvSciSyncCheckVersionCompatibility(2, 0, NULL), BAD);
    EXPECT_SCI(NvSciSyncCheckVersionCompatibility(UINT32_MAX, UINT32_MAX, &ok), NvSciError_Success);
    CHECK(!ok, "version UINT32_MAX.UINT32_MAX reported compatible");
}
HOSTILE(NvSciSyncObjAlloc) {
    NvSciSyncObj o = NULL;
    EXPECT_SCI(NvSciSyncObjAlloc(NULL, &o), BAD);
    EXPECT_SCI(NvSciSyncObjAlloc(FORGED_LIST, &o), BAD);
    EXPECT_SCI(NvSciSyncObjAlloc(g_freed_list, &o), BAD);
    EXPECT_SCI(NvSciSyncObjAlloc(g_lists[0], &o), BAD);
    EXPECT_SCI(NvSciSyncObjAlloc((NvSciSyncAttrList)g_obj, &o), BAD);
    EXPECT_SCI(NvSciSyncObjAlloc(g_reconciled, NULL), BAD);
}
HOSTILE(NvSciSyncAttrListReconcileAndObjAlloc) {
    NvSciSyncObj o = NULL;
    NvSciSyncAttrList c = NULL;
    NvSciSyncAttrList stale[2] = {g_lists[0], g_freed_list};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciSyncAttrListReconcileAndObjAlloc(g_lists, HOSTILE_COUNTS[i], &o, &c), BAD);
        EXPECT_SCI(NvSciSyncAttrListReconcileAndObjAlloc(NULL, HOSTILE_COUNTS[i], &o, &c), BAD);
    }
    EXPECT_SCI(NvSciSyncAttrListReconcileAndObjAlloc(g_lists, 0, &o, &c), BAD);
    EXPECT_SCI(NvSciSyncAttrListReconcileAndObjAlloc(stale, 2, &o, &c), BAD);
    EXPECT_SCI(NvSciSyncAttrListReconcileAndObjAlloc(g_lists, 2, NULL, &c), BAD);
    EXPECT_SCI(NvSciSyncAttrListReconcileAndObjAlloc(g_lists, 2, &o, NULL), BAD);
}
HOSTILE(NvSciSyncObjFree) {
    NvSciSyncObjFree(NULL);
    NvSciSyncObjFree(FORGED_OBJ);
    NvSciSyncObjFree(g_freed_obj);
    NvSciSyncObjFree((NvSciSyncObj)g_lists[0]);
}
HOSTILE(NvSciSyncObjValidate) {
    /* nvscisync.h (outside safety builds): a no-op returning Success, nothing read. */
    EXPECT_SCI(NvSciSyncObjValidate(NULL), NvSciError_Success);
    EXPECT_SCI(NvSciSyncObjValidate(FORGED_OBJ), NvSciError_Success);
    EXPECT_SCI(NvSciSyncObjValidate(g_freed_obj), NvSciError_Success);
}
HOSTILE(NvSciSyncObjDup) {
    NvSciSyncObj o = NULL;
    EXPECT_SCI(NvSciSyncObjDup(NULL, &o), BAD);
    EXPECT_SCI(NvSciSyncObjDup(FORGED_OBJ, &o), BAD);
    EXPECT_SCI(NvSciSyncObjDup(g_freed_obj, &o), BAD);
    EXPECT_SCI(NvSciSyncObjDup(g_obj, NULL), BAD);
}
HOSTILE(NvSciSyncObjGetAttrList) {
    NvSciSyncAttrList l = NULL;
    EXPECT_SCI(NvSciSyncObjGetAttrList(NULL, &l), BAD);
    EXPECT_SCI(NvSciSyncObjGetAttrList(FORGED_OBJ, &l), BAD);
    EXPECT_SCI(NvSciSyncObjGetAttrList(g_freed_obj, &l), BAD);
    EXPECT_SCI(NvSciSyncObjGetAttrList(g_obj, NULL), BAD);
}
HOSTILE(NvSciSyncObjGenerateFence) {
    NvSciSyncFence f = {{0}};
    EXPECT_SCI(NvSciSyncObjGenerateFence(NULL, &f), BAD);
    EXPECT_SCI(NvSciSyncObjGenerateFence(FORGED_OBJ, &f), BAD);
    EXPECT_SCI(NvSciSyncObjGenerateFence(g_freed_obj, &f), BAD);
    EXPECT_SCI(NvSciSyncObjGenerateFence(g_obj, NULL), BAD);
}
HOSTILE(NvSciSyncObjSignal) {
    EXPECT_SCI(NvSciSyncObjSignal(NULL), BAD);
    EXPECT_SCI(NvSciSyncObjSignal(FORGED_OBJ), BAD);
    EXPECT_SCI(NvSciSyncObjSignal(g_freed_obj), BAD);
    EXPECT_SCI(NvSciSyncObjSignal((NvSciSyncObj)g_lists[0]), BAD);
}
static void wait_cases(int mode, bool with_mode) {
    NvSciSyncFence garbage = garbage_fence();
    const int64_t timeouts[] = {-2, INT64_MIN, INT64_MAX};
    size_t i;
#define WAIT(f, c, t) (with_mode ? NvSciSyncFenceWaitWithMode(f, c, t, mode) : NvSciSyncFenceWait(f, c, t))
    for (i = 0; i < sizeof(timeouts) / sizeof(timeouts[0]); i++) {
        EXPECT_SCI(WAIT(&g_fence, g_ctx, timeouts[i]), BAD);
    }
    EXPECT_SCI(WAIT(NULL, g_ctx, 0), BAD);
    EXPECT_SCI(WAIT(&g_fence, NULL, 0), BAD);
    EXPECT_SCI(WAIT(&g_fence, (NvSciSyncCpuWaitContext)FORGED_HANDLE, 0), BAD);
    EXPECT_SCI(WAIT(&g_fence, (NvSciSyncCpuWaitContext)g_module, 0), BAD);
    EXPECT_SCI(WAIT(&garbage, g_ctx, 0), BAD);
    /* Not reached within 0 us: a timeout, not a hang. */
    EXPECT_SCI(WAIT(&g_fence, g_ctx, 0), NvSciError_Timeout);
#undef WAIT
}
HOSTILE(NvSciSyncFenceWait) {
    EXPECT_SCI(NvSciSyncFenceWait(&g_fence, g_ctx, -3), BAD);
    wait_cases(0, false);
}
HOSTILE(NvSciSyncFenceWaitWithMode) {
    NvSciSyncFence f = g_fence;
    EXPECT_SCI(NvSciSyncFenceWaitWithMode(&f, g_ctx, -3, 0), BAD);
    wait_cases(0, true);
    EXPECT_SCI(NvSciSyncFenceWaitWithMode(&f, g_ctx, 0, 0x7fffffff), BAD);
    EXPECT_SCI(NvSciSyncFenceWaitWithMode(&f, g_ctx, 0, -1), BAD);
}
HOSTILE(NvSciSyncFenceClear) {
    NvSciSyncFence garbage = garbage_fence();
    NvSciSyncFenceClear(NULL);
    /* A fence of garbage (no object's id) is cleared without a reference to drop. */
    NvSciSyncFenceClear(&garbage);
}
HOSTILE(NvSciSyncFenceDup) {
    NvSciSyncFence out = {{0}};
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceDup(NULL, &out), BAD);
    EXPECT_SCI(NvSciSyncFenceDup(&g_fence, NULL), BAD);
    EXPECT_SCI(NvSciSyncFenceDup(&garbage, &out), BAD);
    /* The same fence as source and destination. */
    EXPECT_SCI(NvSciSyncFenceDup(&g_fence, &g_fence), BAD);
}
HOSTILE(NvSciSyncFenceExtractFence) {
    uint64_t id = 0, value = 0;
    NvSciSyncFence cleared = {{0}};
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceExtractFence(NULL, &id, &value), BAD);
    EXPECT_SCI(NvSciSyncFenceExtractFence(&g_fence, NULL, &value), BAD);
    EXPECT_SCI(NvSciSyncFenceExtractFence(&g_fence, &id, NULL), BAD);
    EXPECT_SCI(NvSciSyncFenceExtractFence(&cleared, &id, &value), NvSciError_ClearedFence);
    EXPECT_SCI(NvSciSyncFenceExtractFence(&garbage, &id, &value), BAD);
}
HOSTILE(NvSciSyncFenceUpdateFence) {
    NvSciSyncFence f = {{0}};
    EXPECT_SCI(NvSciSyncFenceUpdateFence(NULL, 0, 1, &f), BAD);
    EXPECT_SCI(NvSciSyncFenceUpdateFence(FORGED_OBJ, 0, 1, &f), BAD);
    EXPECT_SCI(NvSciSyncFenceUpdateFence(g_freed_obj, 0, 1, &f), BAD);
    /* nvscisync.h: an id the object does not have is Overflow ("id is invalid"). */
    EXPECT_SCI(NvSciSyncFenceUpdateFence(g_obj, UINT64_MAX, 1, &f), NvSciError_Overflow);
    EXPECT_SCI(NvSciSyncFenceUpdateFence(g_obj, 0, 1, NULL), BAD);
}
HOSTILE(NvSciSyncFenceGetTimestamp) {
    uint64_t ts = 0;
    NvSciSyncFence cleared = {{0}};
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceGetTimestamp(NULL, &ts), BAD);
    EXPECT_SCI(NvSciSyncFenceGetTimestamp(&g_fence, NULL), BAD);
    EXPECT_SCI(NvSciSyncFenceGetTimestamp(&cleared, &ts), NvSciError_ClearedFence);
    EXPECT_SCI(NvSciSyncFenceGetTimestamp(&garbage, &ts), BAD);
    /* No timestamp slot on g_fence (no waiter asked for timestamps). */
    EXPECT_SCI(NvSciSyncFenceGetTimestamp(&g_fence, &ts), BAD);
}
HOSTILE(NvSciSyncFenceGetTaskStatus) {
    uint8_t status[64];
    NvSciSyncFence cleared = {{0}};
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceGetTaskStatus(NULL, status), BAD);
    EXPECT_SCI(NvSciSyncFenceGetTaskStatus(&g_fence, NULL), BAD);
    EXPECT_SCI(NvSciSyncFenceGetTaskStatus(&cleared, status), NvSciError_ClearedFence);
    EXPECT_SCI(NvSciSyncFenceGetTaskStatus(&garbage, status), BAD);
    /* Not expired yet: Success with the status Invalid (the SIL synthesises it). */
    EXPECT_SCI(NvSciSyncFenceGetTaskStatus(&g_fence, status), NvSciError_Success);
}
HOSTILE(NvSciSyncFenceAddTimestampSlot) {
    NvSciSyncFence f = g_fence;
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceAddTimestampSlot(NULL, 0), BAD);
    EXPECT_SCI(NvSciSyncFenceAddTimestampSlot(&f, UINT32_MAX), BAD);
    EXPECT_SCI(NvSciSyncFenceAddTimestampSlot(&garbage, 0), BAD);
}
HOSTILE(NvSciSyncFenceAddTaskStatusSlot) {
    NvSciSyncFence f = g_fence;
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceAddTaskStatusSlot(NULL, 0), BAD);
    EXPECT_SCI(NvSciSyncFenceAddTaskStatusSlot(&f, UINT32_MAX), BAD);
    EXPECT_SCI(NvSciSyncFenceAddTaskStatusSlot(&garbage, 0), BAD);
}
HOSTILE(NvSciSyncFenceExtractTimestampSlot) {
    uint32_t slot = 0;
    NvSciSyncFence f = g_fence;
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncFenceExtractTimestampSlot(NULL, &slot), BAD);
    EXPECT_SCI(NvSciSyncFenceExtractTimestampSlot(&f, NULL), BAD);
    EXPECT_SCI(NvSciSyncFenceExtractTimestampSlot(&garbage, &slot), BAD);
    EXPECT_SCI(NvSciSyncFenceExtractTimestampSlot(&f, &slot), BAD);
}
HOSTILE(NvSciSilClockNowNs) {
    /* No arguments: only that it comes back. */
    (void)NvSciSilClockNowNs();
}
HOSTILE(NvSciSilClockSetVirtual) {
    /* Any start is a valid clock value; turned off again, the real clock is back. */
    EXPECT_SCI(NvSciSilClockSetVirtual(true, UINT64_MAX), NvSciError_Success);
    CHECK(NvSciSilClockNowNs() == UINT64_MAX, "virtual clock did not start at UINT64_MAX");
    EXPECT_SCI(NvSciSilClockAdvanceTo(0), NvSciError_Success);
    EXPECT_SCI(NvSciSilClockSetVirtual(false, UINT64_MAX), NvSciError_Success);
}
HOSTILE(NvSciSilClockAdvanceTo) {
    /* Virtual time is off: refused. */
    EXPECT_SCI(NvSciSilClockAdvanceTo(UINT64_MAX), NvSciError_InvalidState);
}
HOSTILE(NvSciSyncSilObjGetCounter) {
    uint64_t* c = NULL;
    EXPECT_SCI(NvSciSyncSilObjGetCounter(NULL, &c), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetCounter(FORGED_OBJ, &c), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetCounter(g_freed_obj, &c), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetCounter(g_obj, NULL), BAD);
}
HOSTILE(NvSciSyncSilObjSetDeviceWritten) {
    EXPECT_SCI(NvSciSyncSilObjSetDeviceWritten(NULL), BAD);
    EXPECT_SCI(NvSciSyncSilObjSetDeviceWritten(FORGED_OBJ), BAD);
    EXPECT_SCI(NvSciSyncSilObjSetDeviceWritten(g_freed_obj), BAD);
}
HOSTILE(NvSciSyncSilWakeWaiters) {
    /* No arguments: nothing to refuse. */
    EXPECT_SCI(NvSciSyncSilWakeWaiters(), NvSciError_Success);
}
HOSTILE(NvSciSyncSilObjSignalEngine) {
    EXPECT_SCI(NvSciSyncSilObjSignalEngine(NULL, 0), BAD);
    EXPECT_SCI(NvSciSyncSilObjSignalEngine(FORGED_OBJ, UINT64_MAX), BAD);
    EXPECT_SCI(NvSciSyncSilObjSignalEngine(g_freed_obj, 0), BAD);
}
HOSTILE(NvSciSyncSilObjEngineFence) {
    NvSciSyncFence f = {{0}};
    EXPECT_SCI(NvSciSyncSilObjEngineFence(NULL, &f), BAD);
    EXPECT_SCI(NvSciSyncSilObjEngineFence(FORGED_OBJ, &f), BAD);
    EXPECT_SCI(NvSciSyncSilObjEngineFence(g_freed_obj, &f), BAD);
    EXPECT_SCI(NvSciSyncSilObjEngineFence(g_obj, NULL), BAD);
}
HOSTILE(NvSciSyncSilCounterWritten) {
    /* Addresses no object's counter has: NULL, a stack word, one misaligned. */
    uint64_t words[2] = {0, 0};
    EXPECT_SCI(NvSciSyncSilCounterWritten(NULL, 0), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWritten(&words[0], UINT64_MAX), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWritten((const uint64_t*)((const char*)words + 1), 0), BAD);
}
HOSTILE(NvSciSyncSilFenceWaitEngine) {
    uint64_t at = 0;
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncSilFenceWaitEngine(NULL, 0, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngine(&garbage, 0, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngine(&g_fence, -2, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngine(&g_fence, INT64_MAX, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngine(&g_fence, 0, NULL), NvSciError_Timeout);
}
HOSTILE(NvSciSyncSilFenceWaitEngineAbortable) {
    uint64_t at = 0;
    uint32_t abort_flag = 1;
    NvSciSyncFence garbage = garbage_fence();
    EXPECT_SCI(NvSciSyncSilFenceWaitEngineAbortable(NULL, 0, &abort_flag, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngineAbortable(&garbage, 0, &abort_flag, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngineAbortable(&g_fence, INT64_MIN, &abort_flag, &at), BAD);
    EXPECT_SCI(NvSciSyncSilFenceWaitEngineAbortable(&g_fence, 0, NULL, &at), NvSciError_Timeout);
}
HOSTILE(NvSciSyncSilCounterWait) {
    uint64_t at = 0, word = 0;
    EXPECT_SCI(NvSciSyncSilCounterWait(NULL, 1, 0, 0, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWait(&word, 1, UINT32_MAX, 0, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWait(&word, 1, 0, -2, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWait(&word, 1, 0, INT64_MAX, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWait((const uint64_t*)((const char*)&word + 1), 1, 0, 0, &at),
               BAD);
}
HOSTILE(NvSciSyncSilCounterWaitAbortable) {
    uint64_t at = 0, word = 0;
    uint32_t abort_flag = 1;
    EXPECT_SCI(NvSciSyncSilCounterWaitAbortable(NULL, 1, 0, 0, &abort_flag, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWaitAbortable(&word, 1, UINT32_MAX, 0, &abort_flag, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWaitAbortable(&word, 1, 0, INT64_MIN, &abort_flag, &at), BAD);
    EXPECT_SCI(NvSciSyncSilCounterWaitAbortable((const uint64_t*)((const char*)&word + 4), 1, 0,
                                                0, &abort_flag, &at),
               BAD);
}
HOSTILE(NvSciSyncSilObjGetSignalTimestamp) {
    uint64_t ts = 0;
    EXPECT_SCI(NvSciSyncSilObjGetSignalTimestamp(NULL, 1, &ts), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetSignalTimestamp(FORGED_OBJ, 1, &ts), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetSignalTimestamp(g_freed_obj, 1, &ts), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetSignalTimestamp(g_obj, 1, NULL), BAD);
    EXPECT_SCI(NvSciSyncSilObjGetSignalTimestamp(g_obj, UINT64_MAX, &ts), BAD);
}

/* Sets up what the cases work on and runs them all; returns -1 if the setup failed. */
static int run_cases(void) {
    NvSciSyncAttrList conflict = NULL;
    int rc = -1;
    memset(&g_fence, 0, sizeof(g_fence));
    hostile_init_garbage();
    SCI(NvSciSyncModuleOpen(&g_module));
    SCI(NvSciSyncCpuWaitContextAlloc(g_module, &g_ctx));
    SCI(NvSciSyncAttrListCreate(g_module, &g_lists[0]));
    SCI(NvSciSyncAttrListCreate(g_module, &g_lists[1]));
    SCI(set_perm(g_lists[0], NvSciSyncAccessPerm_SignalOnly));
    SCI(set_perm(g_lists[1], NvSciSyncAccessPerm_WaitOnly));
    SCI(NvSciSyncAttrListReconcile(g_lists, 2, &g_reconciled, &conflict));
    SCI(NvSciSyncObjAlloc(g_reconciled, &g_obj));
    SCI(NvSciSyncObjAlloc(g_reconciled, &g_freed_obj));
    NvSciSyncObjFree(g_freed_obj);
    SCI(NvSciSyncAttrListCreate(g_module, &g_freed_list));
    NvSciSyncAttrListFree(g_freed_list);
    SCI(NvSciSyncObjGenerateFence(g_obj, &g_fence));
    hostile_run_all();
    /* Still works after all that. */
    SCI(NvSciSyncObjSignal(g_obj));
    SCI(NvSciSyncFenceWait(&g_fence, g_ctx, 0));
    rc = 0;
cleanup:
    NvSciSyncFenceClear(&g_fence);
    if (g_obj != NULL) {
        NvSciSyncObjFree(g_obj);
    }
    if (g_reconciled != NULL) {
        NvSciSyncAttrListFree(g_reconciled);
    }
    if (conflict != NULL) {
        NvSciSyncAttrListFree(conflict);
    }
    if (g_lists[0] != NULL) {
        NvSciSyncAttrListFree(g_lists[0]);
    }
    if (g_lists[1] != NULL) {
        NvSciSyncAttrListFree(g_lists[1]);
    }
    if (g_ctx != NULL) {
        NvSciSyncCpuWaitContextFree(g_ctx);
    }
    if (g_module != NULL) {
        NvSciSyncModuleClose(g_module);
    }
    return rc;
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
    if (run_cases() != 0) {
        goto cleanup;
    }
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
