/*
 * waiter_fences.c: deterministic semaphores with fences built by the waiter.
 *
 * With NvSciSyncAttrKey_RequireDeterministicFences the signaler advances the primitive by
 * exactly one per submission (nvscisync.h), so a waiter that knows one fence can build the
 * fences of later signals itself: NvSciSyncFenceExtractFence of the first EOF fence cuDLA
 * returns gives (id, v1); the k-th later task's EOF is NvSciSyncFenceUpdateFence(obj, id,
 * v1 + k). cuDLA needs no fence in the signal events of a deterministic semaphore (cudla.h,
 * cudlaSubmitTask: "fence is not required to be passed"), so the later tasks pass none,
 * except the last, whose returned fence must equal the one the waiter built.
 *
 * usage: waiter_fences <loadable> <golden input> <golden output>
 */
#include <string.h>

#include "common.h"

#define LATER_TASKS 4

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    NvSciSyncModule sync_module = NULL;
    NvSciSyncCpuWaitContext ctx = NULL;
    NvSciSyncObj wait_obj = NULL, signal_obj = NULL;
    uint64_t *wait_reg = NULL, *signal_reg = NULL;
    NvSciSyncFence pre = {{0}}, eof1 = {{0}}, pre2 = {{0}}, last_eof = {{0}};
    NvSciSyncFence built[LATER_TASKS + 1];
    uint64_t id = 0, v1 = 0, id_last = 0, v_last = 0;
    int k;

    memset(&d, 0, sizeof(d));
    memset(built, 0, sizeof(built));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0) {
        goto cleanup;
    }
    SCI(NvSciSyncModuleOpen(&sync_module));
    if (alloc_sync(sync_module, CUDLA_NVSCISYNC_ATTR_WAIT, true, false, &wait_obj) != 0 ||
        alloc_sync(sync_module, CUDLA_NVSCISYNC_ATTR_SIGNAL, true, false, &signal_obj) != 0) {
        goto cleanup;
    }
    SCI(NvSciSyncCpuWaitContextAlloc(sync_module, &ctx));
    {
        cudlaExternalSemaphoreHandleDesc sdesc = {(const void*)wait_obj};
        DLA(cudlaImportExternalSemaphore(d.dev, &sdesc, &wait_reg, 0));
        sdesc.extSyncObject = (const void*)signal_obj;
        DLA(cudlaImportExternalSemaphore(d.dev, &sdesc, &signal_reg, 0));
    }

    /* Task 1: the documented flow; its EOF fence is the waiter's reference. */
    {
        CudlaFence pre_f = {&pre, CUDLA_NVSCISYNC_FENCE};
        CudlaFence eof_f = {&eof1, CUDLA_NVSCISYNC_FENCE};
        cudlaWaitEvents we = {&pre_f, 1};
        uint64_t* sig[1] = {signal_reg};
        cudlaSignalEvents se = {sig, &eof_f, 1};
        cudlaTask task;
        dla_task(&d, &task);
        task.waitEvents = &we;
        task.signalEvents = &se;
        SCI(NvSciSyncObjGenerateFence(wait_obj, &pre));
        DLA(cudlaSubmitTask(d.dev, &task, 1, NULL, 0));
        SCI(NvSciSyncObjSignal(wait_obj));
        SCI(NvSciSyncFenceWait(&eof1, ctx, 5000000));
        DLA(cudlaGetLastError(d.dev));
        dla_check_outputs(&d, &g, "task 1");
        SCI(NvSciSyncFenceExtractFence(&eof1, &id, &v1));
    }

    /* The waiter builds the EOF fences of the next LATER_TASKS tasks, and one more for a
     * signal that never comes. None may have expired yet. */
    for (k = 0; k <= LATER_TASKS; k++) {
        NvSciError werr;
        SCI(NvSciSyncFenceUpdateFence(signal_obj, id, v1 + 1 + (uint64_t)k, &built[k]));
        werr = NvSciSyncFenceWait(&built[k], ctx, 0);
        CHECK(werr == NvSciError_Timeout, "built fence %d expired before its task: 0x%x", k,
              (unsigned)werr);
    }
    /* A built fence for a value already reached has expired. */
    {
        NvSciSyncFence again = {{0}};
        SCI(NvSciSyncFenceUpdateFence(signal_obj, id, v1, &again));
        EXPECT_SCI(NvSciSyncFenceWait(&again, ctx, 0), NvSciError_Success);
        NvSciSyncFenceClear(&again);
    }

    /* The later tasks: the first waits for a new CPU pre-fence, the others follow in the
     * handle's order; only the last passes an EOF fence. */
    dla_poison_outputs(&d);
    SCI(NvSciSyncObjGenerateFence(wait_obj, &pre2));
    for (k = 0; k < LATER_TASKS; k++) {
        CudlaFence pre_f = {&pre2, CUDLA_NVSCISYNC_FENCE};
        CudlaFence eof_f = {&last_eof, CUDLA_NVSCISYNC_FENCE};
        cudlaWaitEvents we = {&pre_f, 1};
        uint64_t* sig[1] = {signal_reg};
        bool last = k == LATER_TASKS - 1;
        cudlaSignalEvents se = {sig, last ? &eof_f : NULL, 1};
        cudlaTask task;
        dla_task(&d, &task);
        task.waitEvents = k == 0 ? &we : NULL;
        task.signalEvents = &se;
        DLA(cudlaSubmitTask(d.dev, &task, 1, NULL, 0));
    }
    SCI(NvSciSyncFenceExtractFence(&last_eof, &id_last, &v_last));
    CHECK(id_last == id && v_last == v1 + LATER_TASKS,
          "cuDLA's fence of the last task is (%llu, %llu), the waiter built (%llu, %llu)",
          (unsigned long long)id_last, (unsigned long long)v_last, (unsigned long long)id,
          (unsigned long long)(v1 + LATER_TASKS));
    sleep_ms(10);
    EXPECT_SCI(NvSciSyncFenceWait(&built[0], ctx, 0), NvSciError_Timeout);
    SCI(NvSciSyncObjSignal(wait_obj));
    for (k = 0; k < LATER_TASKS; k++) {
        SCI(NvSciSyncFenceWait(&built[k], ctx, 5000000));
    }
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "last task");
    EXPECT_SCI(NvSciSyncFenceWait(&built[LATER_TASKS], ctx, 100000), NvSciError_Timeout);

cleanup:
    if (wait_reg != NULL && cudlaMemUnregister(d.dev, wait_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(wait semaphore)");
    }
    if (signal_reg != NULL && cudlaMemUnregister(d.dev, signal_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(signal semaphore)");
    }
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof1);
    NvSciSyncFenceClear(&pre2);
    NvSciSyncFenceClear(&last_eof);
    for (k = 0; k <= LATER_TASKS; k++) {
        NvSciSyncFenceClear(&built[k]);
    }
    if (wait_obj != NULL) {
        NvSciSyncObjFree(wait_obj);
    }
    if (signal_obj != NULL) {
        NvSciSyncObjFree(signal_obj);
    }
    if (ctx != NULL) {
        NvSciSyncCpuWaitContextFree(ctx);
    }
    if (sync_module != NULL) {
        NvSciSyncModuleClose(sync_module);
    }
    dla_close(&d);
    golden_free(&g);
    return finish();
}
