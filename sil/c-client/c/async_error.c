/*
 * async_error.c: the documented error-reporting flow of standalone mode. NvSciSync does not
 * report DLA errors: the application waits for the EOF fence and then asks
 * cudlaGetLastError (TEGRA-AN section 6.1.5; cudla.h cudlaGetLastError: "synchronize on the
 * submitted tasks ... and then call this API"). The error is injected with the SIL
 * extension cudlaSilInjectFault (an asynchronous DLA error, then a task that overruns a short
 * cudlaSetTaskTimeoutInMs); tasks before and after run clean and match the golden output.
 *
 * usage: async_error <loadable> <golden input> <golden output>
 */
#include <string.h>

#include "common.h"

/* Runs one task, waits for its EOF fence (which must expire without an NvSciSync error) and
 * returns cudlaGetLastError; the elapsed milliseconds go to *ms. */
static cudlaStatus run_task(struct dla* d, struct sync_pair* s, double* ms) {
    NvSciSyncFence eof = {{0}};
    cudlaTask task;
    cudlaStatus st = cudlaErrorUnknown;
    double t0 = now_ms();

    dla_task(d, &task);
    DLA(sync_pair_run(s, &task, 0, &eof));
    SCI(NvSciSyncFenceWait(&eof, s->ctx, 5000000));
    *ms = now_ms() - t0;
    st = cudlaGetLastError(d->dev);
cleanup:
    NvSciSyncFenceClear(&eof);
    return st;
}

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    struct sync_pair s;
    cudlaSilFault fault;
    double ms = 0;
    cudlaStatus st;
    size_t i;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0 ||
        sync_pair_open(&s, d.dev, true, false) != 0) {
        goto cleanup;
    }

    /* A clean task. */
    st = run_task(&d, &s, &ms);
    CHECK(st == cudlaSuccess, "clean task: cudlaGetLastError %d", (int)st);
    dla_check_outputs(&d, &g, "clean task");

    /* An asynchronous DLA error on the next task: the EOF fence still expires normally,
     * cudlaGetLastError reports the error once. */
    memset(&fault, 0, sizeof(fault));
    fault.kind = CUDLA_SIL_FAULT_ASYNC_ERROR;
    fault.status = (int32_t)cudlaErrorDlaErrDataMismatch;
    fault.count = 1;
    DLA(cudlaSilInjectFault(d.dev, &fault));
    st = run_task(&d, &s, &ms);
    CHECK(st == cudlaErrorDlaErrDataMismatch,
          "faulty task: cudlaGetLastError %d, expected cudlaErrorDlaErrDataMismatch", (int)st);
    EXPECT_DLA(cudlaGetLastError(d.dev), cudlaSuccess);

    /* The next task is clean again. */
    dla_poison_outputs(&d);
    st = run_task(&d, &s, &ms);
    CHECK(st == cudlaSuccess, "task after the error: cudlaGetLastError %d", (int)st);
    dla_check_outputs(&d, &g, "task after the error");

    /* A task that overruns the task timeout: 10 ms allowed, the task is 2 s late. It ends
     * with cudlaErrorDlaErrEngineTimeout at the timeout and writes no output. */
    DLA(cudlaSetTaskTimeoutInMs(d.dev, 10));
    memset(&fault, 0, sizeof(fault));
    fault.kind = CUDLA_SIL_FAULT_LATE;
    fault.count = 1;
    fault.extraDelayNs = 2000000000ull;
    DLA(cudlaSilInjectFault(d.dev, &fault));
    dla_poison_outputs(&d);
    st = run_task(&d, &s, &ms);
    CHECK(st == cudlaErrorDlaErrEngineTimeout,
          "overrunning task: cudlaGetLastError %d, expected cudlaErrorDlaErrEngineTimeout",
          (int)st);
    CHECK(ms < 1000.0, "the overrunning task's EOF fence took %.0f ms (timeout 10 ms)", ms);
    for (i = 0; i < d.out_desc[0].size; i++) {
        if (d.out_cpu[0][i] != 0xA5) {
            FAIL("the timed-out task wrote output 0 (byte %zu)", i);
            break;
        }
    }
    EXPECT_DLA(cudlaGetLastError(d.dev), cudlaSuccess);

    /* And a clean task after it, with a generous timeout again. */
    DLA(cudlaSetTaskTimeoutInMs(d.dev, 30000));
    st = run_task(&d, &s, &ms);
    CHECK(st == cudlaSuccess, "task after the timeout: cudlaGetLastError %d", (int)st);
    dla_check_outputs(&d, &g, "task after the timeout");

cleanup:
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
