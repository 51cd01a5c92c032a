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
