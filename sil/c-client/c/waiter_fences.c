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
    struct sync_pair s;
    NvSciSyncFence pre = {{0}}, eof1 = {{0}}, pre2 = {{0}}, last_eof = {{0}};
    NvSciSyncFence built[LATER_TASKS + 1];
    uint64_t id = 0, v1 = 0, id_last = 0, v_last = 0;
    int k;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    memset(built, 0, sizeof(built));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0 ||
        sync_pair_open(&s, d.dev, true, false) != 0) {
        goto cleanup;
    }

    /* Task 1: the documented flow; its EOF fence is the waiter's reference. */
    if (sync_pair_submit_after_pre_fence(&d, &s, &pre, &eof1) != 0) {
        goto cleanup;
    }
    SCI(NvSciSyncObjSignal(s.wait_obj));
    SCI(NvSciSyncFenceWait(&eof1, s.ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "task 1");
    SCI(NvSciSyncFenceExtractFence(&eof1, &id, &v1));

    /* The waiter builds the EOF fences of the next LATER_TASKS tasks, and one more for a
     * signal that never comes. None may have expired yet. */
    for (k = 0; k <= LATER_TASKS; k++) {
        NvSciError werr;
        SCI(NvSciSyncFenceUpdateFence(s.signal_obj, id, v1 + 1 + (uint64_t)k, &built[k]));
        werr = NvSciSyncFenceWait(&built[k], s.ctx, 0);
        CHECK(werr == NvSciError_Timeout, "built fence %d expired before its task: 0x%x", k,
              (unsigned)werr);
    }
    /* A built fence for a value already reached has expired. */
    {
        NvSciSyncFence again = {{0}};
        SCI(NvSciSyncFenceUpdateFence(s.signal_obj, id, v1, &again));
        EXPECT_SCI(NvSciSyncFenceWait(&again, s.ctx, 0), NvSciError_Success);
        NvSciSyncFenceClear(&again);
    }

    /* The later tasks: the first waits for a new CPU pre-fence, the others follow in the
     * handle's order; only the last passes an EOF fence. */
    dla_poison_outputs(&d);
    SCI(NvSciSyncObjGenerateFence(s.wait_obj, &pre2));
    for (k = 0; k < LATER_TASKS; k++) {
        CudlaFence pre_f = {&pre2, CUDLA_NVSCISYNC_FENCE};
        CudlaFence eof_f = {&last_eof, CUDLA_NVSCISYNC_FENCE};
        cudlaWaitEvents we = {&pre_f, 1};
        uint64_t* sig[1] = {s.signal_reg};
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
    EXPECT_SCI(NvSciSyncFenceWait(&built[0], s.ctx, 0), NvSciError_Timeout);
    SCI(NvSciSyncObjSignal(s.wait_obj));
    for (k = 0; k < LATER_TASKS; k++) {
        SCI(NvSciSyncFenceWait(&built[k], s.ctx, 5000000));
    }
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "last task");
    EXPECT_SCI(NvSciSyncFenceWait(&built[LATER_TASKS], s.ctx, 100000), NvSciError_Timeout);

cleanup:
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof1);
    NvSciSyncFenceClear(&pre2);
    NvSciSyncFenceClear(&last_eof);
    for (k = 0; k <= LATER_TASKS; k++) {
        NvSciSyncFenceClear(&built[k]);
    }
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
