/*
 * timestamps.c: DLA start and end times from the SOF and EOF fences cuDLA signals.
 *
 * The CPU waiter's lists set NvSciSyncAttrKey_WaiterRequireTimestamps with NeedCpuAccess
 * (nvscisync.h; cudla.h cudlaGetNvSciSyncAttributes: "Waiter can request for this"). Each
 * task signals two events: a CUDLA_NVSCISYNC_FENCE_SOF fence (signalled when the task starts)
 * and a CUDLA_NVSCISYNC_FENCE (EOF) fence, on two deterministic semaphores (cudla.h: any
 * number of semaphores may be signalled). After the waits, NvSciSyncFenceGetTimestamp gives
 * the DLA clock in microseconds. The DLA's execution time is fixed with the SIL extension
 * cudlaSilSetTimingModel, so the expected duration is known.
 *
 * mode "real": real time; each task's EOF - SOF is at least the duration (and not absurdly
 * more), and the tasks do not overlap (SOF of task k+1 >= EOF of task k).
 * mode "virtual": the SIL's virtual clock (NvSciSilClockSetVirtual) from START_NS; nothing
 * sleeps and the times are exact: task k (from 0) starts at START + k*D and ends at
 * START + (k+1)*D (sil/README.md, cuDLA "Time").
 *
 * usage: timestamps <loadable> <golden input> <golden output> real|virtual
 */
#include <string.h>

#include "common.h"

NvSciError NvSciSilClockSetVirtual(bool enable, uint64_t startNs); /* SIL extension */

#define TASKS 3
#define DURATION_NS 4000000ull      /* 4 ms */
#define START_NS 5000000000ull      /* virtual mode: the clock starts at 5 s */
#define REAL_SLACK_US 500000ull     /* real mode: a loaded host may delay a signal */

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    struct sync_pair s;
    NvSciSyncObj sof_obj = NULL;
    uint64_t* sof_reg = NULL;
    NvSciSyncFence pre = {{0}}, sof[TASKS], eof[TASKS];
    uint64_t sof_us[TASKS], eof_us[TASKS];
    cudlaSilTimingModel model;
    bool virt;
    int k;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    memset(sof, 0, sizeof(sof));
    memset(eof, 0, sizeof(eof));
    if (golden_load(&g, argc, argv) != 0) {
        goto cleanup;
    }
    if (argc != 5 || (strcmp(argv[4], "real") != 0 && strcmp(argv[4], "virtual") != 0)) {
        FAIL("usage: %s <loadable> <golden input> <golden output> real|virtual", argv[0]);
        goto cleanup;
    }
    virt = strcmp(argv[4], "virtual") == 0;
    if (virt) {
        SCI(NvSciSilClockSetVirtual(true, START_NS));
    }
    if (dla_open(&d, 0, &g) != 0 || sync_pair_open(&s, d.dev, true, true) != 0) {
        goto cleanup;
    }
    memset(&model, 0, sizeof(model));
    model.kind = CUDLA_SIL_TIMING_FIXED;
    model.minNs = DURATION_NS;
    DLA(cudlaSilSetTimingModel(d.dev, &model));
    if (alloc_sync(s.module, CUDLA_NVSCISYNC_ATTR_SIGNAL, true, true, &sof_obj) != 0) {
        goto cleanup;
    }
    {
        cudlaExternalSemaphoreHandleDesc sdesc = {(const void*)sof_obj};
        DLA(cudlaImportExternalSemaphore(d.dev, &sdesc, &sof_reg, 0));
    }

    /* TASKS tasks; the first waits for a CPU pre-fence, so all are queued before any runs. */
    SCI(NvSciSyncObjGenerateFence(s.wait_obj, &pre));
    for (k = 0; k < TASKS; k++) {
        CudlaFence pre_f = {&pre, CUDLA_NVSCISYNC_FENCE};
        cudlaWaitEvents we = {&pre_f, 1};
        uint64_t* sig[2];
        CudlaFence fences[2];
        cudlaSignalEvents se;
        cudlaTask task;

        sig[0] = sof_reg;
        sig[1] = s.signal_reg;
        fences[0] = (CudlaFence){&sof[k], CUDLA_NVSCISYNC_FENCE_SOF};
        fences[1] = (CudlaFence){&eof[k], CUDLA_NVSCISYNC_FENCE};
        se.devPtrs = sig;
        se.eofFences = fences;
        se.numEvents = 2;
        dla_task(&d, &task);
        task.waitEvents = k == 0 ? &we : NULL;
        task.signalEvents = &se;
        DLA(cudlaSubmitTask(d.dev, &task, 1, NULL, 0));
    }
    /* Nothing has started: the first SOF fence has not expired. */
    sleep_ms(10);
    EXPECT_SCI(NvSciSyncFenceWait(&sof[0], s.ctx, 0), NvSciError_Timeout);
    SCI(NvSciSyncObjSignal(s.wait_obj));
    for (k = 0; k < TASKS; k++) {
        SCI(NvSciSyncFenceWait(&sof[k], s.ctx, 5000000));
        SCI(NvSciSyncFenceWait(&eof[k], s.ctx, 5000000));
        SCI(NvSciSyncFenceGetTimestamp(&sof[k], &sof_us[k]));
        SCI(NvSciSyncFenceGetTimestamp(&eof[k], &eof_us[k]));
        printf("task %d: SOF %llu us, EOF %llu us, EOF - SOF %llu us\n", k,
               (unsigned long long)sof_us[k], (unsigned long long)eof_us[k],
               (unsigned long long)(eof_us[k] - sof_us[k]));
    }
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "last task");

    for (k = 0; k < TASKS; k++) {
        uint64_t d_us = DURATION_NS / 1000;
        if (virt) {
            uint64_t start = START_NS / 1000 + (uint64_t)k * d_us;
            CHECK(sof_us[k] == start && eof_us[k] == start + d_us,
                  "task %d: SOF %llu, EOF %llu us; expected %llu and %llu", k,
                  (unsigned long long)sof_us[k], (unsigned long long)eof_us[k],
                  (unsigned long long)start, (unsigned long long)(start + d_us));
        } else {
            CHECK(eof_us[k] >= sof_us[k] + d_us && eof_us[k] <= sof_us[k] + d_us + REAL_SLACK_US,
                  "task %d: EOF - SOF = %lld us, expected %llu us (+ at most %llu)", k,
                  (long long)(eof_us[k] - sof_us[k]), (unsigned long long)d_us,
                  (unsigned long long)REAL_SLACK_US);
        }
        if (k > 0) {
            CHECK(sof_us[k] >= eof_us[k - 1], "task %d starts (%llu us) before task %d ends (%llu us)",
                  k, (unsigned long long)sof_us[k], k - 1, (unsigned long long)eof_us[k - 1]);
        }
    }

cleanup:
    NvSciSyncFenceClear(&pre);
    for (k = 0; k < TASKS; k++) {
        NvSciSyncFenceClear(&sof[k]);
        NvSciSyncFenceClear(&eof[k]);
    }
    if (sof_reg != NULL && cudlaMemUnregister(d.dev, sof_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(SOF semaphore)");
    }
    if (sof_obj != NULL) {
        NvSciSyncObjFree(sof_obj);
    }
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
