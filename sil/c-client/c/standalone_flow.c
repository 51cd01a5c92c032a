/* standalone_flow.c: see standalone_flow.h. */
#include "standalone_flow.h"

#include <string.h>

/* A CPU pre-fence on `wait_obj` (written to `*pre`), then one task that waits on it and
 * signals `signal_reg` with its EOF fence written to `*eof`. Returns 0, or -1. */
static int submit_after_pre_fence(const struct dla* d, NvSciSyncObj wait_obj,
                                  uint64_t* signal_reg, NvSciSyncFence* pre,
                                  NvSciSyncFence* eof) {
    CudlaFence pre_f = {pre, CUDLA_NVSCISYNC_FENCE};
    CudlaFence eof_f = {eof, CUDLA_NVSCISYNC_FENCE};
    cudlaWaitEvents wait_events = {&pre_f, 1};
    uint64_t* signal_ptrs[1];
    cudlaSignalEvents signal_events;
    cudlaTask task;

    signal_ptrs[0] = signal_reg;
    signal_events.devPtrs = signal_ptrs;
    signal_events.eofFences = &eof_f;
    signal_events.numEvents = 1;
    dla_task(d, &task);
    task.waitEvents = &wait_events;
    task.signalEvents = &signal_events;

    SCI(NvSciSyncObjGenerateFence(wait_obj, pre));
    DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0));
    return 0;
cleanup:
    return -1;
}

int run_standalone_flow(int argc, char** argv, bool deterministic,
                        void (*check)(const struct flow_result*)) {
    struct golden g;
    struct dla d;
    NvSciSyncModule sync_module = NULL;
    NvSciSyncCpuWaitContext wait_ctx = NULL;
    NvSciSyncObj wait_obj = NULL, signal_obj = NULL;
    uint64_t *wait_reg = NULL, *signal_reg = NULL;
    NvSciSyncFence pre = {{0}}, eof = {{0}}, pre2 = {{0}}, eof2 = {{0}};
    struct flow_result r;
    uint64_t version = 0, count = 0;
    NvSciError werr;

    memset(&d, 0, sizeof(d));
    memset(&r, 0, sizeof(r));
    if (golden_load(&g, argc, argv) != 0) {
        goto cleanup;
    }
    DLA(cudlaGetVersion(&version));
    CHECK(version / 1000000u == 1u, "cudlaGetVersion: %llu is not 1.x",
          (unsigned long long)version);
    DLA(cudlaDeviceGetCount(&count));
    if (count < 1) {
        FAIL("no DLA");
        goto cleanup;
    }
    if (dla_open(&d, 0, &g) != 0) {
        goto cleanup;
    }

    SCI(NvSciSyncModuleOpen(&sync_module));
    if (alloc_sync(sync_module, CUDLA_NVSCISYNC_ATTR_WAIT, deterministic, false, &wait_obj) != 0 ||
        alloc_sync(sync_module, CUDLA_NVSCISYNC_ATTR_SIGNAL, deterministic, false,
                   &signal_obj) != 0) {
        goto cleanup;
    }
    SCI(NvSciSyncCpuWaitContextAlloc(sync_module, &wait_ctx));
    {
        cudlaExternalSemaphoreHandleDesc sdesc;
        memset(&sdesc, 0, sizeof(sdesc));
        sdesc.extSyncObject = (const void*)wait_obj;
        DLA(cudlaImportExternalSemaphore(d.dev, &sdesc, &wait_reg, 0));
        sdesc.extSyncObject = (const void*)signal_obj;
        DLA(cudlaImportExternalSemaphore(d.dev, &sdesc, &signal_reg, 0));
    }

    /* First task: the pre-fence is signalled only after the submit returned. */
    if (submit_after_pre_fence(&d, wait_obj, signal_reg, &pre, &eof) != 0) {
        goto cleanup;
    }
    sleep_ms(20);
    werr = NvSciSyncFenceWait(&eof, wait_ctx, 0);
    CHECK(werr == NvSciError_Timeout,
          "EOF fence before the pre-fence was signalled: NvSciError 0x%x, expected Timeout",
          (unsigned)werr);
    SCI(NvSciSyncObjSignal(wait_obj));
    SCI(NvSciSyncFenceWait(&eof, wait_ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "first task");

    /* Second task: its pre-fence is never signalled; its EOF fence must time out cleanly. */
    if (submit_after_pre_fence(&d, wait_obj, signal_reg, &pre2, &eof2) != 0) {
        goto cleanup;
    }
    werr = NvSciSyncFenceWait(&eof2, wait_ctx, 100000);
    CHECK(werr == NvSciError_Timeout,
          "EOF fence of the blocked task: NvSciError 0x%x, expected Timeout", (unsigned)werr);

    r.wait_obj = wait_obj;
    r.signal_obj = signal_obj;
    if (fence_id_value(&pre, &r.pre_id, &r.pre_value) == 0 &&
        fence_id_value(&eof, &r.eof_id, &r.eof_value) == 0 &&
        fence_id_value(&eof2, &r.eof2_id, &r.eof2_value) == 0) {
        CHECK(r.eof2_id == r.eof_id, "EOF fences of one object have ids %llu and %llu",
              (unsigned long long)r.eof_id, (unsigned long long)r.eof2_id);
        CHECK(r.eof2_value == r.eof_value + 1,
              "second EOF fence value %llu, first %llu: one signal each",
              (unsigned long long)r.eof2_value, (unsigned long long)r.eof_value);
        check(&r);
    }

cleanup:
    /* Teardown in the documented order; destroy must return although a task waits. */
    if (wait_reg != NULL && cudlaMemUnregister(d.dev, wait_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(wait semaphore)");
    }
    if (signal_reg != NULL && cudlaMemUnregister(d.dev, signal_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(signal semaphore)");
    }
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof);
    NvSciSyncFenceClear(&pre2);
    NvSciSyncFenceClear(&eof2);
    if (wait_obj != NULL) {
        NvSciSyncObjFree(wait_obj);
    }
    if (signal_obj != NULL) {
        NvSciSyncObjFree(signal_obj);
    }
    if (wait_ctx != NULL) {
        NvSciSyncCpuWaitContextFree(wait_ctx);
    }
    if (sync_module != NULL) {
        NvSciSyncModuleClose(sync_module);
    }
    dla_close(&d);
    golden_free(&g);
    return finish();
}
