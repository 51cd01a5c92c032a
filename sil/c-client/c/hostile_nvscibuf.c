/*
 * hostile_nvscibuf.c: NvSciBuf entry points called with hostile arguments: NULL pointers,
 * counts no array can hold, freed handles, and buffer sizes at and past the SIL's
 * allocation limit (16 GiB: NvSciError_InsufficientMemory, sil/README.md "Objects"). A
 * 2 GiB buffer is mapped lazily, so allocating it takes neither the time nor the memory of
 * committing it. Every call returns an error code; nothing aborts, crashes or hangs.
 *
 * usage: hostile_nvscibuf (the golden-data arguments of the other clients are ignored)
 */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "hostile.h"

/* Resident memory of this process in bytes (Linux /proc/self/statm), 0 if unknown. */
static uint64_t resident_bytes(void) {
    unsigned long long size = 0, resident = 0;
    FILE* f = fopen("/proc/self/statm", "r");
    if (f == NULL) {
        return 0;
    }
    if (fscanf(f, "%llu %llu", &size, &resident) != 2) {
        resident = 0;
    }
    fclose(f);
    return (uint64_t)resident * 4096u;
}

/* A reconciled CPU-accessible raw-buffer list of `size` bytes, or NULL. */
static NvSciBufAttrList raw_list(NvSciBufModule module, uint64_t size) {
    NvSciBufType type = NvSciBufType_RawBuffer;
    bool cpu = true;
    NvSciBufAttrKeyValuePair pairs[3] = {
        {NvSciBufGeneralAttrKey_Types, &type, sizeof(type)},
        {NvSciBufRawBufferAttrKey_Size, &size, sizeof(size)},
        {NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)},
    };
    NvSciBufAttrList list = NULL, reconciled = NULL, conflict = NULL;
    NvSciError err = NvSciBufAttrListCreate(module, &list);
    if (err == NvSciError_Success) {
        err = NvSciBufAttrListSetAttrs(list, pairs, 3);
    }
    if (err == NvSciError_Success) {
        err = NvSciBufAttrListReconcile(&list, 1, &reconciled, &conflict);
    }
    if (err != NvSciError_Success) {
        FAIL("raw-buffer list of %llu bytes: NvSciError 0x%x", (unsigned long long)size,
             (unsigned)err);
    }
    if (list != NULL) {
        NvSciBufAttrListFree(list);
    }
    if (conflict != NULL) {
        NvSciBufAttrListFree(conflict);
    }
    return reconciled;
}

/* A buffer of `size` bytes is allocated without committing it: its first and last bytes read
 * as zero and can be written, and only the touched pages become resident (committing it
 * would add `size` bytes). A freed object's handle is then an error, not a crash. */
static void lazy_buffer(NvSciBufModule module, uint64_t size) {
    NvSciBufAttrList list = raw_list(module, size);
    NvSciBufObj obj = NULL;
    void* ptr = NULL;
    uint64_t before, after;
    volatile uint8_t* b;
    size_t last = (size_t)size - 1;

    if (list == NULL) {
        return;
    }
    before = resident_bytes();
    SCI(NvSciBufObjAlloc(list, &obj));
    SCI(NvSciBufObjGetCpuPtr(obj, &ptr));
    b = (volatile uint8_t*)ptr;
    CHECK(b[0] == 0 && b[last] == 0, "a fresh buffer of %llu bytes is not zero",
          (unsigned long long)size);
    b[last] = 7;
    CHECK(b[last] == 7, "the last byte cannot be written");
    after = resident_bytes();
    CHECK(before != 0 && after < before + ((uint64_t)64 << 20),
          "allocating %llu bytes made %llu bytes resident", (unsigned long long)size,
          (unsigned long long)(after - before));
    NvSciBufObjFree(obj);
    EXPECT_SCI(NvSciBufObjGetCpuPtr(obj, &ptr), NvSciError_BadParameter);
    obj = NULL;
cleanup:
    if (obj != NULL) {
        NvSciBufObjFree(obj);
    }
    NvSciBufAttrListFree(list);
}

/* ---------------------------------------------------------------------------------- */
/* One case per exported entry point (hostile.h).                                      */
/* ---------------------------------------------------------------------------------- */

/* The less-used calls and the SIL extension, declared from their documented signatures
 * (sil/nvscibuf/src; the rectangle is only read through, so `const void*` here). */
typedef uint64_t NvSciIpcEndpoint;
NvSciError NvSciBufCheckVersionCompatibility(uint32_t majorVer, uint32_t minorVer,
                                             bool* isCompatible);
size_t NvSciBufAttrListGetSlotCount(NvSciBufAttrList attrList);
NvSciError NvSciBufAttrListGetAttrs(NvSciBufAttrList attrList,
                                    NvSciBufAttrKeyValuePair* pairArray, size_t pairCount);
NvSciError NvSciBufAttrListSlotGetAttrs(NvSciBufAttrList attrList, size_t slotIndex,
                                        NvSciBufAttrKeyValuePair* pairArray, size_t pairCount);
NvSciError NvSciBufAttrListDebugDump(NvSciBufAttrList attrList, void** buf, size_t* len);
NvSciError NvSciBufAttrListReconcileAndObjAlloc(const NvSciBufAttrList attrListArray[],
                                                size_t attrListCount, NvSciBufObj* bufObj,
                                                NvSciBufAttrList* newConflictList);
NvSciError NvSciBufAttrListClone(NvSciBufAttrList origAttrList, NvSciBufAttrList* newAttrList);
NvSciError NvSciBufAttrListAppendUnreconciled(const NvSciBufAttrList inputArray[],
                                              size_t inputCount, NvSciBufAttrList* newList);
NvSciError NvSciBufAttrListIsReconciled(NvSciBufAttrList attrList, bool* isReconciled);
NvSciError NvSciBufAttrListValidateReconciled(NvSciBufAttrList reconciled,
                                              const NvSciBufAttrList inputArray[],
                                              size_t inputCount, bool* isValid);
NvSciError NvSciBufAttrListValidateReconciledAgainstAttrs(
    NvSciBufAttrList reconciled, const NvSciBufAttrKeyValuePair* pairArray, size_t pairCount);
NvSciError NvSciBufObjGetAttrList(NvSciBufObj bufObj, NvSciBufAttrList* bufAttrList);
NvSciError NvSciBufObjFlushCpuCacheRange(NvSciBufObj bufObj, uint64_t offset, uint64_t len);
NvSciError NvSciBufObjDup(NvSciBufObj bufObj, NvSciBufObj* dupObj);
NvSciError NvSciBufObjDupWithReducePerm(NvSciBufObj bufObj, NvSciBufAttrValAccessPerm perm,
                                        NvSciBufObj* newBufObj);
NvSciError NvSciBufObjAttachPeer(NvSciBufObj bufObj, const NvSciBufAttrList inputArray[],
                                 size_t inputCount);
NvSciError NvSciBufObjValidate(NvSciBufObj bufObj);
NvSciError NvSciBufObjGetMaxPerm(NvSciBufObj bufObj, NvSciIpcEndpoint ipcEndpoint,
                                 NvSciBufAttrValAccessPerm* accPerm);
NvSciError NvSciBufSilObjGetMemory(NvSciBufObj obj, void** ptr, uint64_t* size);
NvSciError NvSciBufObjGetPixels(NvSciBufObj bufObj, const void* rect, void** dstPtrs,
                                const uint32_t* dstPtrSizes, const uint32_t* dstPitches);
NvSciError NvSciBufObjPutPixels(NvSciBufObj bufObj, const void* rect, const void** srcPtrs,
                                const uint32_t* srcPtrSizes, const uint32_t* srcPitches);

#define BAD NvSciError_BadParameter
#define FORGED_LIST ((NvSciBufAttrList)FORGED_HANDLE)
#define FORGED_OBJ ((NvSciBufObj)FORGED_HANDLE)
#define RAW_SIZE 4096u
static NvSciBufModule g_module;
static NvSciBufAttrList g_list;        /* unreconciled raw buffer of RAW_SIZE bytes */
static NvSciBufAttrList g_reconciled;  /* reconciled from g_list */
static NvSciBufAttrList g_freed_list;  /* created, then freed */
static NvSciBufObj g_obj, g_freed_obj; /* allocated; allocated, then freed */

HOSTILE(NvSciBufModuleOpen) {
    EXPECT_SCI(NvSciBufModuleOpen(NULL), BAD);
}
HOSTILE(NvSciBufModuleClose) {
    /* void: NULL, forged and wrong-kind handles are ignored. */
    NvSciBufModuleClose(NULL);
    NvSciBufModuleClose((NvSciBufModule)FORGED_HANDLE);
    NvSciBufModuleClose((NvSciBufModule)g_list);
}
HOSTILE(NvSciBufCheckVersionCompatibility) {
    bool ok = true;
    EXPECT_SCI(NvSciBufCheckVersionCompatibility(1, 0, NULL), BAD);
    EXPECT_SCI(NvSciBufCheckVersionCompatibility(UINT32_MAX, UINT32_MAX, &ok), NvSciError_Success);
    CHECK(!ok, "version UINT32_MAX.UINT32_MAX reported compatible");
}
HOSTILE(NvSciBufAttrListCreate) {
    NvSciBufAttrList l = NULL;
    EXPECT_SCI(NvSciBufAttrListCreate(NULL, &l), BAD);
    EXPECT_SCI(NvSciBufAttrListCreate((NvSciBufModule)FORGED_HANDLE, &l), BAD);
    EXPECT_SCI(NvSciBufAttrListCreate((NvSciBufModule)g_obj, &l), BAD);
    EXPECT_SCI(NvSciBufAttrListCreate(g_module, NULL), BAD);
}
HOSTILE(NvSciBufAttrListFree) {
    NvSciBufAttrListFree(NULL);
    NvSciBufAttrListFree(FORGED_LIST);
    NvSciBufAttrListFree(g_freed_list);
    NvSciBufAttrListFree((NvSciBufAttrList)g_obj);
}
HOSTILE(NvSciBufAttrListSetAttrs) {
    bool cpu = true;
    NvSciBufAttrKeyValuePair pair = {NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciBufAttrListSetAttrs(g_list, &pair, HOSTILE_COUNTS[i]), BAD);
        EXPECT_SCI(NvSciBufAttrListSetAttrs(g_list, NULL, HOSTILE_COUNTS[i]), BAD);
    }
    EXPECT_SCI(NvSciBufAttrListSetAttrs(g_list, &pair, 0), BAD);
    EXPECT_SCI(NvSciBufAttrListSetAttrs(NULL, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListSetAttrs(FORGED_LIST, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListSetAttrs(g_freed_list, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListSetAttrs(g_reconciled, &pair, 1), BAD);
    pair.value = NULL;
    EXPECT_SCI(NvSciBufAttrListSetAttrs(g_list, &pair, 1), BAD);
    pair.value = &cpu;
    pair.len = SIZE_MAX;
    EXPECT_SCI(NvSciBufAttrListSetAttrs(g_list, &pair, 1), BAD);
    pair.len = sizeof(cpu);
    pair.key = (NvSciBufAttrKey)0x7fffffff;
    EXPECT_SCI(NvSciBufAttrListSetAttrs(g_list, &pair, 1), BAD);
}
HOSTILE(NvSciBufAttrListGetSlotCount) {
    /* No error code: 0 for a list that is not one. */
    CHECK(NvSciBufAttrListGetSlotCount(NULL) == 0, "slot count of NULL");
    CHECK(NvSciBufAttrListGetSlotCount(FORGED_LIST) == 0, "slot count of a forged list");
    CHECK(NvSciBufAttrListGetSlotCount(g_freed_list) == 0, "slot count of a freed list");
    CHECK(NvSciBufAttrListGetSlotCount((NvSciBufAttrList)g_obj) == 0, "slot count of an object");
}
HOSTILE(NvSciBufAttrListGetAttrs) {
    NvSciBufAttrKeyValuePair pair = {NvSciBufGeneralAttrKey_NeedCpuAccess, NULL, 0};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        if (i < HOSTILE_NOVERFLOW) {
            EXPECT_SCI(NvSciBufAttrListGetAttrs(g_list, &pair, HOSTILE_COUNTS[i]), BAD);
        }
        EXPECT_SCI(NvSciBufAttrListGetAttrs(g_list, NULL, HOSTILE_COUNTS[i]), BAD);
    }
    EXPECT_SCI(NvSciBufAttrListGetAttrs(g_list, &pair, 0), BAD);
    EXPECT_SCI(NvSciBufAttrListGetAttrs(NULL, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListGetAttrs(FORGED_LIST, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListGetAttrs(g_freed_list, &pair, 1), BAD);
    pair.key = (NvSciBufAttrKey)-1;
    EXPECT_SCI(NvSciBufAttrListGetAttrs(g_list, &pair, 1), BAD);
}
HOSTILE(NvSciBufAttrListSlotGetAttrs) {
    NvSciBufAttrKeyValuePair pair = {NvSciBufGeneralAttrKey_NeedCpuAccess, NULL, 0};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        if (i < HOSTILE_NOVERFLOW) {
            EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(g_list, 0, &pair, HOSTILE_COUNTS[i]), BAD);
        }
        EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(g_list, 0, NULL, HOSTILE_COUNTS[i]), BAD);
        EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(g_list, HOSTILE_COUNTS[i], &pair, 1), BAD);
    }
    EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(g_list, 1, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(NULL, 0, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(FORGED_LIST, 0, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListSlotGetAttrs(g_freed_list, 0, &pair, 1), BAD);
}
HOSTILE(NvSciBufAttrListDebugDump) {
    void* buf = NULL;
    size_t len = 0;
    EXPECT_SCI(NvSciBufAttrListDebugDump(NULL, &buf, &len), BAD);
    EXPECT_SCI(NvSciBufAttrListDebugDump(FORGED_LIST, &buf, &len), BAD);
    EXPECT_SCI(NvSciBufAttrListDebugDump(g_freed_list, &buf, &len), BAD);
    EXPECT_SCI(NvSciBufAttrListDebugDump(g_list, NULL, &len), BAD);
    EXPECT_SCI(NvSciBufAttrListDebugDump(g_list, &buf, NULL), BAD);
}
HOSTILE(NvSciBufAttrListReconcile) {
    NvSciBufAttrList r = NULL, c = NULL;
    NvSciBufAttrList forged[2] = {g_list, FORGED_LIST};
    NvSciBufAttrList stale[2] = {g_list, g_freed_list};
    NvSciBufAttrList kinds[2] = {g_list, (NvSciBufAttrList)g_obj};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciBufAttrListReconcile(&g_list, HOSTILE_COUNTS[i], &r, &c), BAD);
        EXPECT_SCI(NvSciBufAttrListReconcile(NULL, HOSTILE_COUNTS[i], &r, &c), BAD);
    }
    EXPECT_SCI(NvSciBufAttrListReconcile(&g_list, 0, &r, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcile(forged, 2, &r, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcile(stale, 2, &r, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcile(kinds, 2, &r, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcile(&g_list, 1, NULL, NULL), BAD);
}
HOSTILE(NvSciBufAttrListReconcileAndObjAlloc) {
    NvSciBufObj o = NULL;
    NvSciBufAttrList c = NULL;
    NvSciBufAttrList stale[2] = {g_list, g_freed_list};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciBufAttrListReconcileAndObjAlloc(&g_list, HOSTILE_COUNTS[i], &o, &c), BAD);
        EXPECT_SCI(NvSciBufAttrListReconcileAndObjAlloc(NULL, HOSTILE_COUNTS[i], &o, &c), BAD);
    }
    EXPECT_SCI(NvSciBufAttrListReconcileAndObjAlloc(&g_list, 0, &o, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcileAndObjAlloc(stale, 2, &o, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcileAndObjAlloc(&g_list, 1, NULL, &c), BAD);
    EXPECT_SCI(NvSciBufAttrListReconcileAndObjAlloc(&g_list, 1, &o, NULL), BAD);
}
HOSTILE(NvSciBufAttrListClone) {
    NvSciBufAttrList out = NULL;
    EXPECT_SCI(NvSciBufAttrListClone(NULL, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListClone(FORGED_LIST, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListClone(g_freed_list, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListClone((NvSciBufAttrList)g_obj, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListClone(g_list, NULL), BAD);
}
HOSTILE(NvSciBufAttrListAppendUnreconciled) {
    NvSciBufAttrList out = NULL;
    NvSciBufAttrList stale[2] = {g_list, g_freed_list};
    NvSciBufAttrList mixed[2] = {g_list, g_reconciled};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciBufAttrListAppendUnreconciled(&g_list, HOSTILE_COUNTS[i], &out), BAD);
        EXPECT_SCI(NvSciBufAttrListAppendUnreconciled(NULL, HOSTILE_COUNTS[i], &out), BAD);
    }
    EXPECT_SCI(NvSciBufAttrListAppendUnreconciled(&g_list, 0, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListAppendUnreconciled(stale, 2, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListAppendUnreconciled(mixed, 2, &out), BAD);
    EXPECT_SCI(NvSciBufAttrListAppendUnreconciled(&g_list, 1, NULL), BAD);
}
HOSTILE(NvSciBufAttrListIsReconciled) {
    bool r = false;
    EXPECT_SCI(NvSciBufAttrListIsReconciled(NULL, &r), BAD);
    EXPECT_SCI(NvSciBufAttrListIsReconciled(FORGED_LIST, &r), BAD);
    EXPECT_SCI(NvSciBufAttrListIsReconciled(g_freed_list, &r), BAD);
    EXPECT_SCI(NvSciBufAttrListIsReconciled(g_list, NULL), BAD);
}
HOSTILE(NvSciBufAttrListValidateReconciled) {
    bool ok = false;
    NvSciBufAttrList stale[2] = {g_list, g_freed_list};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciBufAttrListValidateReconciled(g_reconciled, &g_list, HOSTILE_COUNTS[i],
                                                      &ok),
                   BAD);
        EXPECT_SCI(NvSciBufAttrListValidateReconciled(g_reconciled, NULL, HOSTILE_COUNTS[i], &ok),
                   BAD);
    }
    EXPECT_SCI(NvSciBufAttrListValidateReconciled(g_reconciled, &g_list, 0, &ok), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciled(g_reconciled, stale, 2, &ok), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciled(NULL, &g_list, 1, &ok), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciled(FORGED_LIST, &g_list, 1, &ok), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciled(g_list, &g_list, 1, &ok), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciled(g_reconciled, &g_list, 1, NULL), BAD);
}
HOSTILE(NvSciBufAttrListValidateReconciledAgainstAttrs) {
    bool cpu = true;
    NvSciBufAttrKeyValuePair pair = {NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        if (i < HOSTILE_NOVERFLOW) {
            EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(g_reconciled, &pair,
                                                                      HOSTILE_COUNTS[i]),
                       BAD);
        }
        EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(g_reconciled, NULL,
                                                                  HOSTILE_COUNTS[i]),
                   BAD);
    }
    EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(g_reconciled, &pair, 0), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(NULL, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(g_list, &pair, 1), BAD);
    EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(g_freed_list, &pair, 1), BAD);
    pair.key = (NvSciBufAttrKey)0x7fffffff;
    EXPECT_SCI(NvSciBufAttrListValidateReconciledAgainstAttrs(g_reconciled, &pair, 1), BAD);
}
HOSTILE(NvSciBufObjAlloc) {
    NvSciBufObj o = NULL;
    EXPECT_SCI(NvSciBufObjAlloc(NULL, &o), BAD);
    EXPECT_SCI(NvSciBufObjAlloc(FORGED_LIST, &o), BAD);
    EXPECT_SCI(NvSciBufObjAlloc(g_freed_list, &o), BAD);
    EXPECT_SCI(NvSciBufObjAlloc(g_list, &o), BAD);
    EXPECT_SCI(NvSciBufObjAlloc(g_reconciled, NULL), BAD);
}
HOSTILE(NvSciBufObjFree) {
    NvSciBufObjFree(NULL);
    NvSciBufObjFree(FORGED_OBJ);
    NvSciBufObjFree(g_freed_obj);
    NvSciBufObjFree((NvSciBufObj)g_list);
}
HOSTILE(NvSciBufObjGetAttrList) {
    NvSciBufAttrList l = NULL;
    EXPECT_SCI(NvSciBufObjGetAttrList(NULL, &l), BAD);
    EXPECT_SCI(NvSciBufObjGetAttrList(FORGED_OBJ, &l), BAD);
    EXPECT_SCI(NvSciBufObjGetAttrList(g_freed_obj, &l), BAD);
    EXPECT_SCI(NvSciBufObjGetAttrList(g_obj, NULL), BAD);
}
HOSTILE(NvSciBufObjGetCpuPtr) {
    void* p = NULL;
    EXPECT_SCI(NvSciBufObjGetCpuPtr(NULL, &p), BAD);
    EXPECT_SCI(NvSciBufObjGetCpuPtr(FORGED_OBJ, &p), BAD);
    EXPECT_SCI(NvSciBufObjGetCpuPtr(g_freed_obj, &p), BAD);
    EXPECT_SCI(NvSciBufObjGetCpuPtr(g_obj, NULL), BAD);
}
HOSTILE(NvSciBufObjGetConstCpuPtr) {
    const void* p = NULL;
    EXPECT_SCI(NvSciBufObjGetConstCpuPtr(NULL, &p), BAD);
    EXPECT_SCI(NvSciBufObjGetConstCpuPtr(FORGED_OBJ, &p), BAD);
    EXPECT_SCI(NvSciBufObjGetConstCpuPtr(g_freed_obj, &p), BAD);
    EXPECT_SCI(NvSciBufObjGetConstCpuPtr(g_obj, NULL), BAD);
}
HOSTILE(NvSciBufObjFlushCpuCacheRange) {
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(NULL, 0, 1), BAD);
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(FORGED_OBJ, 0, 1), BAD);
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(g_freed_obj, 0, 1), BAD);
    /* Ranges past the buffer, and ones whose end overflows. */
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(g_obj, 0, RAW_SIZE + 1), BAD);
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(g_obj, RAW_SIZE, 1), BAD);
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(g_obj, UINT64_MAX, 2), NvSciError_Overflow);
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(g_obj, 1, UINT64_MAX), NvSciError_Overflow);
    EXPECT_SCI(NvSciBufObjFlushCpuCacheRange(g_obj, 0, 0), BAD);
}
HOSTILE(NvSciBufObjDup) {
    NvSciBufObj o = NULL;
    EXPECT_SCI(NvSciBufObjDup(NULL, &o), BAD);
    EXPECT_SCI(NvSciBufObjDup(FORGED_OBJ, &o), BAD);
    EXPECT_SCI(NvSciBufObjDup(g_freed_obj, &o), BAD);
    EXPECT_SCI(NvSciBufObjDup(g_obj, NULL), BAD);
}
HOSTILE(NvSciBufObjDupWithReducePerm) {
    NvSciBufObj o = NULL;
    EXPECT_SCI(NvSciBufObjDupWithReducePerm(NULL, NvSciBufAccessPerm_Readonly, &o), BAD);
    EXPECT_SCI(NvSciBufObjDupWithReducePerm(FORGED_OBJ, NvSciBufAccessPerm_Readonly, &o), BAD);
    EXPECT_SCI(NvSciBufObjDupWithReducePerm(g_freed_obj, NvSciBufAccessPerm_Readonly, &o), BAD);
    EXPECT_SCI(NvSciBufObjDupWithReducePerm(g_obj, NvSciBufAccessPerm_Readonly, NULL), BAD);
    EXPECT_SCI(NvSciBufObjDupWithReducePerm(g_obj, (NvSciBufAttrValAccessPerm)0x7fffffff, &o),
               BAD);
    EXPECT_SCI(NvSciBufObjDupWithReducePerm(g_obj, (NvSciBufAttrValAccessPerm)0, &o), BAD);
}
HOSTILE(NvSciBufObjAttachPeer) {
    NvSciBufAttrList stale[2] = {g_list, g_freed_list};
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_SCI(NvSciBufObjAttachPeer(g_obj, &g_list, HOSTILE_COUNTS[i]), BAD);
        EXPECT_SCI(NvSciBufObjAttachPeer(g_obj, NULL, HOSTILE_COUNTS[i]), BAD);
    }
    EXPECT_SCI(NvSciBufObjAttachPeer(g_obj, &g_list, 0), BAD);
    EXPECT_SCI(NvSciBufObjAttachPeer(g_obj, stale, 2), BAD);
    EXPECT_SCI(NvSciBufObjAttachPeer(NULL, &g_list, 1), BAD);
    EXPECT_SCI(NvSciBufObjAttachPeer(FORGED_OBJ, &g_list, 1), BAD);
    EXPECT_SCI(NvSciBufObjAttachPeer(g_freed_obj, &g_list, 1), BAD);
}
HOSTILE(NvSciBufObjValidate) {
    /* nvscibuf.h (outside safety builds): a no-op returning Success, nothing read. */
    EXPECT_SCI(NvSciBufObjValidate(NULL), NvSciError_Success);
    EXPECT_SCI(NvSciBufObjValidate(FORGED_OBJ), NvSciError_Success);
    EXPECT_SCI(NvSciBufObjValidate(g_freed_obj), NvSciError_Success);
}
HOSTILE(NvSciBufObjGetMaxPerm) {
    /* nvscibuf.h (outside safety builds): a no-op returning Success that writes nothing. */
    EXPECT_SCI(NvSciBufObjGetMaxPerm(NULL, UINT64_MAX, NULL), NvSciError_Success);
    EXPECT_SCI(NvSciBufObjGetMaxPerm(g_freed_obj, 0, NULL), NvSciError_Success);
}
HOSTILE(NvSciBufSilObjGetMemory) {
    void* p = NULL;
    uint64_t size = 0;
    EXPECT_SCI(NvSciBufSilObjGetMemory(NULL, &p, &size), BAD);
    EXPECT_SCI(NvSciBufSilObjGetMemory(FORGED_OBJ, &p, &size), BAD);
    EXPECT_SCI(NvSciBufSilObjGetMemory(g_freed_obj, &p, &size), BAD);
    EXPECT_SCI(NvSciBufSilObjGetMemory(g_obj, NULL, &size), BAD);
    EXPECT_SCI(NvSciBufSilObjGetMemory(g_obj, &p, NULL), BAD);
}
/* A rectangle of garbage (every coordinate UINT64_MAX), and per-plane arrays. */
static uint8_t pixels[64];
static uint32_t pixel_sizes[3] = {sizeof(pixels), UINT32_MAX, 0};
static uint32_t pixel_pitches[3] = {8, UINT32_MAX, 0};
HOSTILE(NvSciBufObjGetPixels) {
    void* dst[3] = {pixels, NULL, NULL};
    EXPECT_SCI(NvSciBufObjGetPixels(NULL, NULL, dst, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjGetPixels(FORGED_OBJ, NULL, dst, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjGetPixels(g_freed_obj, NULL, dst, pixel_sizes, pixel_pitches), BAD);
    /* A raw buffer has no pixels: the wrong kind of object. */
    EXPECT_SCI(NvSciBufObjGetPixels(g_obj, NULL, dst, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjGetPixels(g_obj, hostile_garbage, dst, pixel_sizes, pixel_pitches),
               BAD);
    EXPECT_SCI(NvSciBufObjGetPixels(g_obj, NULL, NULL, NULL, NULL), BAD);
}
HOSTILE(NvSciBufObjPutPixels) {
    const void* src[3] = {pixels, NULL, NULL};
    EXPECT_SCI(NvSciBufObjPutPixels(NULL, NULL, src, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjPutPixels(FORGED_OBJ, NULL, src, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjPutPixels(g_freed_obj, NULL, src, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjPutPixels(g_obj, NULL, src, pixel_sizes, pixel_pitches), BAD);
    EXPECT_SCI(NvSciBufObjPutPixels(g_obj, hostile_garbage, src, pixel_sizes, pixel_pitches),
               BAD);
    EXPECT_SCI(NvSciBufObjPutPixels(g_obj, NULL, NULL, NULL, NULL), BAD);
}

/* Sets up what the cases work on and runs them all; returns -1 if the setup failed. */
static int run_cases(void) {
    NvSciBufType type = NvSciBufType_RawBuffer;
    uint64_t size = RAW_SIZE;
    bool cpu = true;
    NvSciBufAttrKeyValuePair pairs[3] = {
        {NvSciBufGeneralAttrKey_Types, &type, sizeof(type)},
        {NvSciBufRawBufferAttrKey_Size, &size, sizeof(size)},
        {NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)},
    };
    NvSciBufAttrList conflict = NULL;
    void* p = NULL;
    int rc = -1;
    hostile_init_garbage();
    SCI(NvSciBufModuleOpen(&g_module));
    SCI(NvSciBufAttrListCreate(g_module, &g_list));
    SCI(NvSciBufAttrListSetAttrs(g_list, pairs, 3));
    SCI(NvSciBufAttrListReconcile(&g_list, 1, &g_reconciled, &conflict));
    SCI(NvSciBufObjAlloc(g_reconciled, &g_obj));
    SCI(NvSciBufObjAlloc(g_reconciled, &g_freed_obj));
    NvSciBufObjFree(g_freed_obj);
    SCI(NvSciBufAttrListCreate(g_module, &g_freed_list));
    NvSciBufAttrListFree(g_freed_list);
    hostile_run_all();
    /* Still works after all that. */
    SCI(NvSciBufObjGetCpuPtr(g_obj, &p));
    memset(p, 0x5A, RAW_SIZE);
    rc = 0;
cleanup:
    if (g_obj != NULL) {
        NvSciBufObjFree(g_obj);
    }
    if (g_reconciled != NULL) {
        NvSciBufAttrListFree(g_reconciled);
    }
    if (conflict != NULL) {
        NvSciBufAttrListFree(conflict);
    }
    if (g_list != NULL) {
        NvSciBufAttrListFree(g_list);
    }
    if (g_module != NULL) {
        NvSciBufModuleClose(g_module);
    }
    return rc;
}

int main(void) {
    NvSciBufModule module = NULL;
    NvSciBufAttrList list = NULL, reconciled = NULL, conflict = NULL;
    NvSciBufObj obj = NULL;
    NvSciBufType type = NvSciBufType_RawBuffer;
    NvSciBufAttrKeyValuePair pair = {NvSciBufGeneralAttrKey_Types, &type, sizeof(type)};
    const size_t huge[] = {SIZE_MAX, SIZE_MAX / sizeof(NvSciBufAttrList) + 1,
                           (size_t)1 << 40, (size_t)1 << 20};
    /* Past the 16 GiB limit (padded to pages), and sizes whose padding overflows. */
    const uint64_t too_big[] = {((uint64_t)16 << 30) + 1, (uint64_t)1 << 62, UINT64_MAX - 1,
                                UINT64_MAX};
    size_t i;

    if (run_cases() != 0) {
        goto cleanup;
    }
    SCI(NvSciBufModuleOpen(&module));
    SCI(NvSciBufAttrListCreate(module, &list));
    for (i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        EXPECT_SCI(NvSciBufAttrListSetAttrs(list, &pair, huge[i]), NvSciError_BadParameter);
        EXPECT_SCI(NvSciBufAttrListReconcile(&list, huge[i], &reconciled, &conflict),
                   NvSciError_BadParameter);
    }
    EXPECT_SCI(NvSciBufAttrListSetAttrs(list, NULL, 1), NvSciError_BadParameter);
    EXPECT_SCI(NvSciBufAttrListReconcile(NULL, 1, &reconciled, &conflict),
               NvSciError_BadParameter);
    EXPECT_SCI(NvSciBufAttrListReconcile(&list, 1, NULL, &conflict), NvSciError_BadParameter);
    EXPECT_SCI(NvSciBufObjAlloc(list, &obj), NvSciError_BadParameter); /* unreconciled */
    EXPECT_SCI(NvSciBufObjAlloc(list, NULL), NvSciError_BadParameter);

    /* Sizes past the limit: InsufficientMemory (or a refused reconciliation), never a
     * hang or an abort. */
    for (i = 0; i < sizeof(too_big) / sizeof(too_big[0]); i++) {
        NvSciBufAttrList r = NULL, c = NULL, l = NULL;
        uint64_t size = too_big[i];
        NvSciBufAttrKeyValuePair pairs[2] = {
            {NvSciBufGeneralAttrKey_Types, &type, sizeof(type)},
            {NvSciBufRawBufferAttrKey_Size, &size, sizeof(size)},
        };
        NvSciError err;
        SCI(NvSciBufAttrListCreate(module, &l));
        SCI(NvSciBufAttrListSetAttrs(l, pairs, 2));
        err = NvSciBufAttrListReconcile(&l, 1, &r, &c);
        if (err == NvSciError_Success) {
            err = NvSciBufObjAlloc(r, &obj);
            CHECK(err == NvSciError_InsufficientMemory,
                  "NvSciBufObjAlloc of %llu bytes: NvSciError 0x%x, expected InsufficientMemory",
                  (unsigned long long)size, (unsigned)err);
            if (err == NvSciError_Success) {
                NvSciBufObjFree(obj);
            }
            obj = NULL;
        }
        NvSciBufAttrListFree(l);
        if (r != NULL) {
            NvSciBufAttrListFree(r);
        }
        if (c != NULL) {
            NvSciBufAttrListFree(c);
        }
    }

    /* 2 GiB and 8 GiB (the hang): mapped lazily. */
    lazy_buffer(module, (uint64_t)2 << 30);
    lazy_buffer(module, (uint64_t)8 << 30);

    /* A freed list: an error, not a crash. */
    NvSciBufAttrListFree(list);
    EXPECT_SCI(NvSciBufAttrListSetAttrs(list, &pair, 1), NvSciError_BadParameter);
    EXPECT_SCI(NvSciBufAttrListReconcile(&list, 1, &reconciled, &conflict),
               NvSciError_BadParameter);
    list = NULL;

cleanup:
    if (obj != NULL) {
        NvSciBufObjFree(obj);
    }
    if (list != NULL) {
        NvSciBufAttrListFree(list);
    }
    if (module != NULL) {
        NvSciBufModuleClose(module);
    }
    return finish();
}
