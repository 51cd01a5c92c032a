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
