/*
 * hostile_cudla.c: cuDLA entry points called with hostile arguments: NULL pointers, module
 * sizes no buffer can have, task and event counts past every limit (UINT32_MAX), imports
 * larger than their buffer, out-of-range timeouts and timing models, a destroyed device
 * handle. Every call returns an error code (never aborts, crashes or hangs), and a correct
 * task run afterwards still produces the golden output (sil/README.md, "Hostile arguments").
 *
 * usage: hostile_cudla <loadable> <golden input> <golden output>
 */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "hostile.h"

/* The histogram timing model (cudla-sys::sil; not needed by the other clients). */
#define CUDLA_SIL_TIMING_HISTOGRAM 2u

static void check_counts(struct dla* d) {
    cudlaTask task;
    cudlaWaitEvents waits;
    cudlaSignalEvents signals;
    CudlaFence fence = {NULL, CUDLA_NVSCISYNC_FENCE};
    cudlaExternalMemoryHandleDesc mdesc;
    uint64_t* reg = NULL;
    uint64_t bins[2] = {1000, 2000};
    uint32_t weights[2] = {1, 1};
    cudlaSilTimingModel model;

    /* More tasks than the queue holds, read from a one-task array: refused unread. */
    dla_task(d, &task);
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, UINT32_MAX, NULL, 0), cudlaErrorOutOfResources);
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 65, NULL, 0), cudlaErrorOutOfResources);
    EXPECT_DLA(cudlaSubmitTask(d->dev, NULL, 1, NULL, 0), cudlaErrorInvalidParam);

    /* Tensor counts other than the module's. */
    task.numInputTensors = UINT32_MAX;
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorInvalidParam);
    dla_task(d, &task);
    task.numOutputTensors = UINT32_MAX;
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorInvalidParam);

    /* Event counts past the limits, over one-element arrays. */
    dla_task(d, &task);
    waits.preFences = &fence;
    waits.numEvents = UINT32_MAX;
    task.waitEvents = &waits;
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorUnsupportedOperation);
    dla_task(d, &task);
    signals.devPtrs = &reg;
    signals.eofFences = &fence;
    signals.numEvents = UINT32_MAX;
    task.signalEvents = &signals;
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorUnsupportedOperation);

    /* An import larger than its buffer. */
    memset(&mdesc, 0, sizeof(mdesc));
    mdesc.extBufObject = (const void*)d->in_obj[0];
    mdesc.size = ~0ull;
    EXPECT_DLA(cudlaImportExternalMemory(d->dev, &mdesc, &reg, CUDLA_READ_WRITE_PERM),
               cudlaErrorInvalidParam);
    mdesc.size = (unsigned long long)d->in_desc[0].size + 1;
    EXPECT_DLA(cudlaImportExternalMemory(d->dev, &mdesc, &reg, CUDLA_READ_WRITE_PERM),
               cudlaErrorInvalidParam);

    /* Timeouts and timing models out of range. */
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(d->dev, UINT32_MAX), cudlaErrorInvalidParam);
    memset(&model, 0, sizeof(model));
    model.kind = CUDLA_SIL_TIMING_HISTOGRAM;
    model.numBins = UINT32_MAX;
    model.binUpperNs = bins;
    model.binWeights = weights;
    EXPECT_DLA(cudlaSilSetTimingModel(d->dev, &model), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaSilSetTimingModel(d->dev, NULL), cudlaErrorInvalidParam);
}

static void check_module_sizes(const struct golden* g) {
    cudlaDevHandle dev = NULL;
    cudlaModule mod = NULL;

    DLA(cudlaCreateDevice(1, &dev, CUDLA_STANDALONE));
    /* No buffer is that large: refused before the image is read. */
    EXPECT_DLA(cudlaModuleLoadFromMemory(dev, g->loadable, SIZE_MAX, &mod, 0),
               cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaModuleLoadFromMemory(dev, g->loadable, SIZE_MAX / 2 + 1, &mod, 0),
               cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaModuleLoadFromMemory(dev, NULL, g->loadable_size, &mod, 0),
               cudlaErrorInvalidParam);
    /* A truncated image is an invalid module, not a crash. */
    EXPECT_DLA(cudlaModuleLoadFromMemory(dev, g->loadable, g->loadable_size / 2, &mod, 0),
               cudlaErrorInvalidModule);
    DLA(cudlaDestroyDevice(dev));
    /* The destroyed handle: an error from every call. */
    EXPECT_DLA(cudlaModuleLoadFromMemory(dev, g->loadable, g->loadable_size, &mod, 0),
               cudlaErrorInvalidDevice);
    /* cudlaSetTaskTimeoutInMs documents a bad handle as cudlaErrorInvalidParam. */
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(dev, 1000), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaDestroyDevice(dev), cudlaErrorInvalidDevice);
cleanup:
    return;
}

/* ---------------------------------------------------------------------------------- */
/* One case per exported entry point and export-table entry (hostile.h).               */
/* ---------------------------------------------------------------------------------- */

/* The SIL extensions not in api.h, declared from their documented signatures
 * (sil/cudla/src/lib.rs; the statistics are only written through, so `void*` here). */
cudlaStatus cudlaSilSetDeviceCount(uint64_t count);
cudlaStatus cudlaSilGetThreadStats(void* stats);

#define INVALID cudlaErrorInvalidParam
#define FORGED_DEV ((cudlaDevHandle)FORGED_HANDLE)
#define FORGED_MOD ((cudlaModule)FORGED_HANDLE)
static struct dla* g_dla;          /* device 0 with the loadable loaded, tensors imported */
static const struct golden* g_gold;
static cudlaDevHandle g_dead_dev;  /* created, then destroyed */
static const cudlaExternalEtbl* g_etbl;

HOSTILE(cudlaGetVersion) {
    EXPECT_DLA(cudlaGetVersion(NULL), INVALID);
}
HOSTILE(cudlaDeviceGetCount) {
    EXPECT_DLA(cudlaDeviceGetCount(NULL), INVALID);
}
HOSTILE(cudlaCreateDevice) {
    cudlaDevHandle dev = NULL;
    EXPECT_DLA(cudlaCreateDevice(0, NULL, CUDLA_STANDALONE), INVALID);
    EXPECT_DLA(cudlaCreateDevice(UINT64_MAX, &dev, CUDLA_STANDALONE), INVALID);
    EXPECT_DLA(cudlaCreateDevice(0, &dev, 0x7fffffffu), INVALID);
}
HOSTILE(cudlaDestroyDevice) {
    EXPECT_DLA(cudlaDestroyDevice(NULL), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaDestroyDevice(FORGED_DEV), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaDestroyDevice(g_dead_dev), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaDestroyDevice((cudlaDevHandle)g_dla->module), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaModuleLoadFromMemory) {
    cudlaModule m = NULL;
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_DLA(cudlaModuleLoadFromMemory(g_dla->dev, NULL, HOSTILE_COUNTS[i], &m, 0), INVALID);
    }
    EXPECT_DLA(cudlaModuleLoadFromMemory(g_dla->dev, g_gold->loadable, 0, &m, 0), INVALID);
    EXPECT_DLA(cudlaModuleLoadFromMemory(g_dla->dev, g_gold->loadable, g_gold->loadable_size,
                                         NULL, 0),
               INVALID);
    /* A second module on a handle. */
    EXPECT_DLA(cudlaModuleLoadFromMemory(g_dla->dev, g_gold->loadable, g_gold->loadable_size, &m,
                                         0),
               cudlaErrorUnsupportedOperation);
    /* On a fresh handle: garbage of lengths 1..512 and the image cut short at every 1/8 are
     * invalid modules, not crashes. */
    {
        cudlaDevHandle dev = NULL;
        DLA(cudlaCreateDevice(0, &dev, CUDLA_STANDALONE));
        for (i = 1; i <= sizeof(hostile_garbage); i *= 2) {
            EXPECT_DLA(cudlaModuleLoadFromMemory(dev, hostile_garbage, i, &m, 0),
                       cudlaErrorInvalidModule);
        }
        for (i = 1; i < 8; i++) {
            EXPECT_DLA(cudlaModuleLoadFromMemory(dev, g_gold->loadable,
                                                 g_gold->loadable_size * i / 8, &m, 0),
                       cudlaErrorInvalidModule);
        }
        DLA(cudlaDestroyDevice(dev));
    }
    EXPECT_DLA(cudlaModuleLoadFromMemory(FORGED_DEV, g_gold->loadable, g_gold->loadable_size, &m,
                                         0),
               cudlaErrorInvalidDevice);
cleanup:
    return;
}
HOSTILE(cudlaModuleGetAttributes) {
    cudlaModuleAttribute a;
    EXPECT_DLA(cudlaModuleGetAttributes(NULL, CUDLA_NUM_INPUT_TENSORS, &a), cudlaErrorInvalidModule);
    EXPECT_DLA(cudlaModuleGetAttributes(FORGED_MOD, CUDLA_NUM_INPUT_TENSORS, &a), cudlaErrorInvalidModule);
    EXPECT_DLA(cudlaModuleGetAttributes((cudlaModule)g_dla->dev, CUDLA_NUM_INPUT_TENSORS, &a),
               cudlaErrorInvalidModule);
    EXPECT_DLA(cudlaModuleGetAttributes(g_dla->module, CUDLA_NUM_INPUT_TENSORS, NULL), INVALID);
    EXPECT_DLA(cudlaModuleGetAttributes(g_dla->module, (cudlaModuleAttributeType)0x7fffffff, &a),
               cudlaErrorInvalidAttribute);
    /* A descriptor array pointer of NULL. */
    a.inputTensorDesc = NULL;
    EXPECT_DLA(cudlaModuleGetAttributes(g_dla->module, CUDLA_INPUT_TENSOR_DESCRIPTORS, &a),
               INVALID);
}
HOSTILE(cudlaModuleUnload) {
    EXPECT_DLA(cudlaModuleUnload(NULL, 0), cudlaErrorInvalidModule);
    EXPECT_DLA(cudlaModuleUnload(FORGED_MOD, 0), cudlaErrorInvalidModule);
    EXPECT_DLA(cudlaModuleUnload((cudlaModule)g_dla->dev, 0), cudlaErrorInvalidModule);
    EXPECT_DLA(cudlaModuleUnload(g_dla->module, 0x7fffffffu), INVALID);
}
HOSTILE(cudlaMemRegister) {
    uint64_t* reg = NULL;
    uint64_t word = 0;
    size_t i;
    /* Standalone handles do not register host memory (cudla.h): every argument refused. */
    EXPECT_DLA(cudlaMemRegister(g_dla->dev, NULL, 8, &reg, 0), cudlaErrorUnsupportedOperation);
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_DLA(cudlaMemRegister(g_dla->dev, &word, HOSTILE_COUNTS[i], &reg, 0),
                   cudlaErrorUnsupportedOperation);
    }
    EXPECT_DLA(cudlaMemRegister(g_dla->dev, &word, 8, NULL, 0), cudlaErrorUnsupportedOperation);
    EXPECT_DLA(cudlaMemRegister(FORGED_DEV, &word, 8, &reg, 0), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaMemUnregister) {
    uint64_t word = 0;
    /* Addresses no import returned: NULL, a stack word, a registered one plus 1. */
    EXPECT_DLA(cudlaMemUnregister(g_dla->dev, NULL), cudlaErrorInvalidAddress);
    EXPECT_DLA(cudlaMemUnregister(g_dla->dev, &word), cudlaErrorInvalidAddress);
    EXPECT_DLA(cudlaMemUnregister(g_dla->dev, (const uint64_t*)((const char*)g_dla->in_reg[0] + 1)),
               cudlaErrorInvalidAddress);
    EXPECT_DLA(cudlaMemUnregister(FORGED_DEV, g_dla->in_reg[0]), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaMemUnregister(g_dead_dev, g_dla->in_reg[0]), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaImportExternalMemory) {
    cudlaExternalMemoryHandleDesc desc;
    uint64_t* reg = NULL;
    memset(&desc, 0, sizeof(desc));
    desc.size = 64;
    EXPECT_DLA(cudlaImportExternalMemory(g_dla->dev, NULL, &reg, CUDLA_READ_WRITE_PERM), INVALID);
    /* NULL, forged and wrong-kind buffer objects. */
    EXPECT_DLA(cudlaImportExternalMemory(g_dla->dev, &desc, &reg, CUDLA_READ_WRITE_PERM), INVALID);
    desc.extBufObject = FORGED_HANDLE;
    EXPECT_DLA(cudlaImportExternalMemory(g_dla->dev, &desc, &reg, CUDLA_READ_WRITE_PERM), INVALID);
    desc.extBufObject = (const void*)g_dla->module;
    EXPECT_DLA(cudlaImportExternalMemory(g_dla->dev, &desc, &reg, CUDLA_READ_WRITE_PERM), INVALID);
    desc.extBufObject = (const void*)g_dla->in_obj[0];
    EXPECT_DLA(cudlaImportExternalMemory(g_dla->dev, &desc, NULL, CUDLA_READ_WRITE_PERM), INVALID);
    EXPECT_DLA(cudlaImportExternalMemory(g_dla->dev, &desc, &reg, 0x7fffffffu), INVALID);
    EXPECT_DLA(cudlaImportExternalMemory(FORGED_DEV, &desc, &reg, CUDLA_READ_WRITE_PERM),
               cudlaErrorInvalidDevice);
}
HOSTILE(cudlaImportExternalSemaphore) {
    cudlaExternalSemaphoreHandleDesc desc = {NULL};
    uint64_t* reg = NULL;
    EXPECT_DLA(cudlaImportExternalSemaphore(g_dla->dev, NULL, &reg, 0), INVALID);
    EXPECT_DLA(cudlaImportExternalSemaphore(g_dla->dev, &desc, &reg, 0), INVALID);
    desc.extSyncObject = FORGED_HANDLE;
    EXPECT_DLA(cudlaImportExternalSemaphore(g_dla->dev, &desc, &reg, 0), INVALID);
    desc.extSyncObject = (const void*)g_dla->in_obj[0];
    EXPECT_DLA(cudlaImportExternalSemaphore(g_dla->dev, &desc, &reg, 0), INVALID);
    EXPECT_DLA(cudlaImportExternalSemaphore(g_dla->dev, &desc, NULL, 0), INVALID);
    EXPECT_DLA(cudlaImportExternalSemaphore(FORGED_DEV, &desc, &reg, 0), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaGetNvSciSyncAttributes) {
    EXPECT_DLA(cudlaGetNvSciSyncAttributes(NULL, CUDLA_NVSCISYNC_ATTR_WAIT), INVALID);
    /* A forged list, and flags outside WAIT | SIGNAL. */
    EXPECT_DLA(cudlaGetNvSciSyncAttributes((uint64_t*)FORGED_HANDLE, CUDLA_NVSCISYNC_ATTR_WAIT),
               INVALID);
    EXPECT_DLA(cudlaGetNvSciSyncAttributes((uint64_t*)FORGED_HANDLE, 0x7fffffffu), INVALID);
}
HOSTILE(cudlaSubmitTask) {
    cudlaTask task;
    size_t i;
    memset(&task, 0, sizeof(task));
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_DLA(cudlaSubmitTask(g_dla->dev, NULL, (uint32_t)HOSTILE_COUNTS[i], NULL, 0),
                   INVALID);
    }
    EXPECT_DLA(cudlaSubmitTask(g_dla->dev, &task, 0, NULL, 0), INVALID);
    /* Tensors with a forged module handle. */
    dla_task(g_dla, &task);
    task.moduleHandle = FORGED_MOD;
    EXPECT_DLA(cudlaSubmitTask(g_dla->dev, &task, 1, NULL, 0), cudlaErrorInvalidModule);
    dla_task(g_dla, &task);
    EXPECT_DLA(cudlaSubmitTask(g_dla->dev, &task, 1, NULL, 0x7fffffffu), INVALID);
    EXPECT_DLA(cudlaSubmitTask(FORGED_DEV, &task, 1, NULL, 0), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaSubmitTask(g_dead_dev, &task, 1, NULL, 0), cudlaErrorInvalidDevice);
    /* Outputs without inputs: neither a real nor an event-only task. */
    task.inputTensor = NULL;
    EXPECT_DLA(cudlaSubmitTask(g_dla->dev, &task, 1, NULL, 0), cudlaErrorUnsupportedOperation);
}
HOSTILE(cudlaDeviceGetAttribute) {
    cudlaDevAttribute a;
    EXPECT_DLA(cudlaDeviceGetAttribute(g_dla->dev, CUDLA_DEVICE_VERSION, NULL), INVALID);
    EXPECT_DLA(cudlaDeviceGetAttribute(g_dla->dev, (cudlaDevAttributeType)0x7fffffff, &a),
               cudlaErrorInvalidAttribute);
    EXPECT_DLA(cudlaDeviceGetAttribute(FORGED_DEV, CUDLA_DEVICE_VERSION, &a),
               cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaDeviceGetAttribute(g_dead_dev, CUDLA_DEVICE_VERSION, &a),
               cudlaErrorInvalidDevice);
}
HOSTILE(cudlaGetLastError) {
    EXPECT_DLA(cudlaGetLastError(NULL), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaGetLastError(FORGED_DEV), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaGetLastError(g_dead_dev), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaSetTaskTimeoutInMs) {
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(g_dla->dev, 0), INVALID);
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(g_dla->dev, UINT32_MAX), INVALID);
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(NULL, 1000), INVALID);
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(FORGED_DEV, 1000), INVALID);
}
HOSTILE(cudlaGetExternalExportTable) {
    const cudlaExternalEtbl* t = NULL;
    EXPECT_DLA(cudlaGetExternalExportTable(NULL, 0), INVALID);
    EXPECT_DLA(cudlaGetExternalExportTable(&t, 0x7fffffffu), INVALID);
    CHECK(t == NULL, "cudlaGetExternalExportTable wrote a table for refused flags");
}
/* The export table's entries: NULL and garbage inputs, frequency 0, out-of-range
 * attribute types and descriptor indices, forged and wrong-kind handles. */
static void translate_cases(bool multi) {
    cudlaTranslateCsvAttribute attr;
    unsigned char* in = hostile_garbage;
    cudlaModule m = g_dla->module;
#define TR(dev, input, mhz, idx, type, a)                                                   \
    (multi ? g_etbl->etiTranslateStatsForMultiModule(dev, m, input, mhz, idx, type, a)     \
           : g_etbl->etiTranslateStats(dev, input, mhz, idx, type, a))
    EXPECT_DLA(TR(g_dla->dev, NULL, 1000, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    EXPECT_DLA(TR(g_dla->dev, in, 0, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    EXPECT_DLA(TR(g_dla->dev, in, 1000, 0, CUDLA_GET_CSV_LENGTH, NULL), INVALID);
    EXPECT_DLA(TR(g_dla->dev, in, 1000, 0, (cudlaTranslateAttributeType)0x7fffffff, &attr),
               INVALID);
    EXPECT_DLA(TR(g_dla->dev, in, 1000, UINT32_MAX, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    attr.csvStreamStats = NULL;
    EXPECT_DLA(TR(g_dla->dev, in, UINT32_MAX, 0, CUDLA_GET_CSV_STATS, &attr), INVALID);
    EXPECT_DLA(TR(NULL, in, 1000, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    EXPECT_DLA(TR(FORGED_DEV, in, 1000, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    EXPECT_DLA(TR(g_dead_dev, in, 1000, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    if (multi) {
        m = FORGED_MOD;
        EXPECT_DLA(TR(g_dla->dev, in, 1000, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    }
#undef TR
}
HOSTILE(etiTranslateStats) {
    cudlaTranslateCsvAttribute attr;
    EXPECT_DLA(g_etbl->etiTranslateStats(NULL, NULL, 0, 0, CUDLA_GET_CSV_LENGTH, &attr), INVALID);
    translate_cases(false);
}
HOSTILE(etiTranslateStatsForMultiModule) {
    cudlaTranslateCsvAttribute attr;
    EXPECT_DLA(g_etbl->etiTranslateStatsForMultiModule(NULL, NULL, NULL, 0, 0,
                                                       CUDLA_GET_CSV_LENGTH, &attr),
               INVALID);
    translate_cases(true);
}
HOSTILE(cudlaSilSetDeviceCount) {
    /* Outside 1..=16, and (devices exist) any count at all. */
    EXPECT_DLA(cudlaSilSetDeviceCount(0), INVALID);
    EXPECT_DLA(cudlaSilSetDeviceCount(UINT64_MAX), INVALID);
    EXPECT_DLA(cudlaSilSetDeviceCount(2), cudlaErrorUnsupportedOperation);
}
HOSTILE(cudlaSilSetTimingModel) {
    cudlaSilTimingModel model;
    EXPECT_DLA(cudlaSilSetTimingModel(g_dla->dev, NULL), INVALID);
    memset(&model, 0, sizeof(model));
    model.kind = 0x7fffffffu;
    EXPECT_DLA(cudlaSilSetTimingModel(g_dla->dev, &model), INVALID);
    model.kind = CUDLA_SIL_TIMING_HISTOGRAM;
    model.numBins = 2;
    EXPECT_DLA(cudlaSilSetTimingModel(g_dla->dev, &model), INVALID); /* NULL bin arrays */
    {
        /* Falling bin edges, then no weight at all. */
        uint64_t edges[2] = {2000, 1000};
        uint32_t weights[2] = {0, 0};
        model.binUpperNs = edges;
        model.binWeights = weights;
        EXPECT_DLA(cudlaSilSetTimingModel(g_dla->dev, &model), INVALID);
        edges[0] = 500;
        EXPECT_DLA(cudlaSilSetTimingModel(g_dla->dev, &model), INVALID);
    }
    EXPECT_DLA(cudlaSilSetTimingModel(FORGED_DEV, &model), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaSilInjectFault) {
    cudlaSilFault f;
    EXPECT_DLA(cudlaSilInjectFault(g_dla->dev, NULL), INVALID);
    memset(&f, 0, sizeof(f));
    f.kind = 0x7fffffffu;
    EXPECT_DLA(cudlaSilInjectFault(g_dla->dev, &f), INVALID);
    f.kind = CUDLA_SIL_FAULT_HANG;
    EXPECT_DLA(cudlaSilInjectFault(FORGED_DEV, &f), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaSilInjectFault(g_dead_dev, &f), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaSilClearFaults) {
    EXPECT_DLA(cudlaSilClearFaults(NULL), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaSilClearFaults(FORGED_DEV), cudlaErrorInvalidDevice);
    EXPECT_DLA(cudlaSilClearFaults(g_dead_dev), cudlaErrorInvalidDevice);
}
HOSTILE(cudlaSilGetThreadStats) {
    uint32_t small[16];
    EXPECT_DLA(cudlaSilGetThreadStats(NULL), INVALID);
    /* `size` (the first word) below the smallest layout, and misaligned. */
    memset(small, 0, sizeof(small));
    EXPECT_DLA(cudlaSilGetThreadStats(small), INVALID);
    EXPECT_DLA(cudlaSilGetThreadStats((char*)small + 1), INVALID);
}

/* Sets up what the cases work on and runs them all. */
static void run_cases(struct dla* d, const struct golden* g) {
    g_dla = d;
    g_gold = g;
    hostile_init_garbage();
    DLA(cudlaCreateDevice(0, &g_dead_dev, CUDLA_STANDALONE));
    DLA(cudlaDestroyDevice(g_dead_dev));
    DLA(cudlaGetExternalExportTable(&g_etbl, 0));
    hostile_run_all();
cleanup:
    return;
}

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    struct sync_pair s;
    NvSciSyncFence eof = {{0}};
    cudlaTask task;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0 ||
        sync_pair_open(&s, d.dev, true, false) != 0) {
        goto cleanup;
    }
    check_counts(&d);
    run_cases(&d, &g);
    check_module_sizes(&g);

    /* After all that, a task still produces the golden output. */
    dla_poison_outputs(&d);
    dla_task(&d, &task);
    DLA(sync_pair_run(&s, &task, 0, &eof));
    SCI(NvSciSyncFenceWait(&eof, s.ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "task after the hostile calls");

cleanup:
    NvSciSyncFenceClear(&eof);
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
