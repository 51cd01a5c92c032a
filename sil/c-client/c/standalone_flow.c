/* standalone_flow.c: see standalone_flow.h. */
#include "standalone_flow.h"

#include <string.h>

int run_standalone_flow(int argc, char** argv, bool deterministic,
                        void (*check)(const struct flow_result*)) {
    struct golden g;
    struct dla d;
    struct sync_pair s;
    NvSciSyncFence pre = {{0}}, eof = {{0}}, pre2 = {{0}}, eof2 = {{0}};
    struct flow_result r;
    uint64_t version = 0, count = 0;
    NvSciError werr;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
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

    /* The CPU->DLA and DLA->CPU objects, imported, and a CPU wait context. */
    if (sync_pair_open(&s, d.dev, deterministic, false) != 0) {
        goto cleanup;
    }

    /* First task: the pre-fence is signalled only after the submit returned. */
    if (sync_pair_submit_after_pre_fence(&d, &s, &pre, &eof) != 0) {
        goto cleanup;
    }
    sleep_ms(20);
    werr = NvSciSyncFenceWait(&eof, s.ctx, 0);
    CHECK(werr == NvSciError_Timeout,
          "EOF fence before the pre-fence was signalled: NvSciError 0x%x, expected Timeout",
          (unsigned)werr);
    SCI(NvSciSyncObjSignal(s.wait_obj));
    SCI(NvSciSyncFenceWait(&eof, s.ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "first task");

    /* Second task: its pre-fence is never signalled; its EOF fence must time out cleanly. */
    if (sync_pair_submit_after_pre_fence(&d, &s, &pre2, &eof2) != 0) {
        goto cleanup;
    }
    werr = NvSciSyncFenceWait(&eof2, s.ctx, 100000);
    CHECK(werr == NvSciError_Timeout,
          "EOF fence of the blocked task: NvSciError 0x%x, expected Timeout", (unsigned)werr);

    r.wait_obj = s.wait_obj;
    r.signal_obj = s.signal_obj;
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
    /* Teardown (sync_pair_close unregisters the semaphores before it frees the objects);
     * destroy must return although a task waits. */
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof);
    NvSciSyncFenceClear(&pre2);
    NvSciSyncFenceClear(&eof2);
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
