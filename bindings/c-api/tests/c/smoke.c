/* A C partition on the C API: the generated tables of pipeline.toml, typed task contexts,
 * 200 virtual-clock frames on SIL with fault, health and safe-state callbacks, and hostile
 * calls (NULL, forged and stale handles, wrong phase, out-of-range ids, double binding).
 * Prints PASS on success; each failed check prints FAIL and the line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "orin_exec.h"
#include "pipeline_tables.h"

static int failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "FAIL %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, \
                    #cond, orin_exec_last_error_message());                           \
            failures++;                                                               \
        }                                                                             \
    } while (0)

#define EXPECT(call, code) CHECK((call) == (code))

/* The frame in which `consumer` reports a failure (a task_error: safe stop). */
#define STOP_FRAME 150u

static uint64_t consumed;
static uint64_t mismatches;
static uint64_t faults_seen;
static uint64_t frames_seen;
static orin_exec_fault_t safe_stop;
static int safe_stops;

static int32_t producer(const orin_exec_task_ctx_t *ctx, void *user) {
    (void)user;
    pipeline_producer_ctx_t cx;
    if (pipeline_producer_ctx(ctx, &cx) != ORIN_EXEC_OK || cx.value_size != 8) {
        return 1;
    }
    uint64_t frame = orin_exec_ctx_frame(ctx);
    memcpy(cx.value, &frame, sizeof frame);
    return 0;
}

static int32_t consumer(const orin_exec_task_ctx_t *ctx, void *user) {
    uint64_t *expected_user = (uint64_t *)user;
    pipeline_consumer_ctx_t cx;
    if (pipeline_consumer_ctx(ctx, &cx) != ORIN_EXEC_OK) {
        return 2;
    }
    /* Undeclared access is refused: `consumer` only reads `value`. */
    void *w = NULL;
    size_t n = 0;
    if (orin_exec_ctx_write(ctx, PIPELINE_BUFFER_VALUE, &w, &n) != ORIN_EXEC_E_BUFFER) {
        return 3;
    }
    uint64_t v;
    memcpy(&v, cx.value, sizeof v);
    if (v != orin_exec_ctx_frame(ctx)) {
        mismatches++;
    }
    consumed++;
    *expected_user += 1;
    return orin_exec_ctx_frame(ctx) == STOP_FRAME ? 7 : 0;
}

static void on_fault(const orin_exec_fault_t *f, void *user) {
    (void)user;
    (void)f;
    faults_seen++;
}

static void on_health(const orin_exec_frame_report_t *r, void *user) {
    (void)user;
    frames_seen = r->frame + 1;
}

static void on_safe_state(const orin_exec_fault_t *f, void *user) {
    (void)user;
    safe_stop = *f;
    safe_stops++;
}

int main(void) {
    uint64_t user_count = 0;
    orin_exec_runtime_t *rt = NULL;
    orin_exec_config_t cfg;

    CHECK(orin_exec_abi_version() == ORIN_EXEC_ABI_VERSION);
    CHECK(strcmp(orin_exec_error_name(ORIN_EXEC_E_HANDLE), "ORIN_EXEC_E_HANDLE") == 0);
    CHECK(strcmp(orin_exec_error_name(-5), "ORIN_EXEC_E_UNKNOWN") == 0);

    /* Hostile arguments before any runtime exists. */
    EXPECT(orin_exec_config_default(NULL), ORIN_EXEC_E_NULL);
    EXPECT(orin_exec_create(NULL, NULL, &rt), ORIN_EXEC_E_NULL);
    EXPECT(orin_exec_create(&pipeline_tables, NULL, NULL), ORIN_EXEC_E_NULL);
    EXPECT(orin_exec_step((orin_exec_runtime_t *)(uintptr_t)0x1234, NULL), ORIN_EXEC_E_HANDLE);
    EXPECT(orin_exec_init(NULL), ORIN_EXEC_E_HANDLE);

    EXPECT(orin_exec_config_default(&cfg), ORIN_EXEC_OK);
    cfg.virtual_clock = true;
    cfg.realtime_priority = 0;
    cfg.realtime_priority = 100;
    EXPECT(orin_exec_create(&pipeline_tables, &cfg, &rt), ORIN_EXEC_E_ARGUMENT);
    cfg.realtime_priority = 0;
    EXPECT(orin_exec_create(&pipeline_tables, &cfg, &rt), ORIN_EXEC_OK);

    /* Binding: ids out of range, duplicates, calls in the wrong phase. */
    EXPECT(orin_exec_step(rt, NULL), ORIN_EXEC_E_PHASE);
    EXPECT(orin_exec_seal(rt), ORIN_EXEC_E_PHASE);
    EXPECT(orin_exec_bind(rt, 99, producer, NULL), ORIN_EXEC_E_TASK);
    EXPECT(orin_exec_bind(rt, PIPELINE_TASK_PRODUCER, NULL, NULL), ORIN_EXEC_E_NULL);
    EXPECT(orin_exec_bind(rt, PIPELINE_TASK_PRODUCER, producer, NULL), ORIN_EXEC_OK);
    EXPECT(orin_exec_bind(rt, PIPELINE_TASK_PRODUCER, producer, NULL), ORIN_EXEC_E_BINDING);
    EXPECT(orin_exec_init(rt), ORIN_EXEC_E_BINDING); /* `consumer` is not bound */
    EXPECT(orin_exec_bind(rt, PIPELINE_TASK_CONSUMER, consumer, &user_count), ORIN_EXEC_OK);
    EXPECT(orin_exec_set_fault_callback(rt, on_fault, NULL), ORIN_EXEC_OK);
    EXPECT(orin_exec_set_health_callback(rt, on_health, NULL), ORIN_EXEC_OK);
    EXPECT(orin_exec_set_safe_state(rt, on_safe_state, NULL), ORIN_EXEC_OK);
    EXPECT(orin_exec_init(rt), ORIN_EXEC_OK);
    EXPECT(orin_exec_init(rt), ORIN_EXEC_E_PHASE);
    EXPECT(orin_exec_bind(rt, PIPELINE_TASK_CONSUMER, consumer, NULL), ORIN_EXEC_E_PHASE);
    uint64_t zero = 0;
    EXPECT(orin_exec_write_buffer(rt, PIPELINE_BUFFER_VALUE, 0, &zero, sizeof zero), ORIN_EXEC_OK);
    EXPECT(orin_exec_write_buffer(rt, 42, 0, &zero, sizeof zero), ORIN_EXEC_E_BUFFER);
    EXPECT(orin_exec_seal(rt), ORIN_EXEC_OK);

    /* Run: 100 frames in one call, then frame by frame up to the safe stop. */
    orin_exec_frame_report_t report;
    memset(&report, 0, sizeof report);
    EXPECT(orin_exec_run(rt, 100, &report), ORIN_EXEC_OK);
    CHECK(report.frame == 99 && !report.stopped);
    orin_exec_status_t s = ORIN_EXEC_OK;
    for (int i = 0; i < 100 && s == ORIN_EXEC_OK && !report.stopped; i++) {
        s = orin_exec_step(rt, &report);
    }
    CHECK(s == ORIN_EXEC_OK && report.stopped);
    CHECK(report.frame == STOP_FRAME);
    EXPECT(orin_exec_step(rt, NULL), ORIN_EXEC_E_SAFE_STOPPED);

    CHECK(safe_stops == 1);
    CHECK(safe_stop.task == PIPELINE_TASK_CONSUMER);
    CHECK(safe_stop.kind == ORIN_EXEC_FAULT_TASK_ERROR);
    CHECK(safe_stop.frame == STOP_FRAME);
    CHECK(faults_seen >= 1);
    CHECK(frames_seen == STOP_FRAME + 1);
    CHECK(mismatches == 0);
    CHECK(consumed == STOP_FRAME + 1);
    CHECK(user_count == consumed);

    orin_exec_task_counters_t c;
    EXPECT(orin_exec_task_counters(rt, PIPELINE_TASK_PRODUCER, &c), ORIN_EXEC_OK);
    CHECK(c.runs >= STOP_FRAME);
    EXPECT(orin_exec_task_counters(rt, 77, &c), ORIN_EXEC_E_TASK);

    EXPECT(orin_exec_shutdown(rt), ORIN_EXEC_OK);
    EXPECT(orin_exec_step(rt, NULL), ORIN_EXEC_E_PHASE);
    EXPECT(orin_exec_destroy(rt), ORIN_EXEC_OK);
    /* The handle is stale now. */
    EXPECT(orin_exec_step(rt, NULL), ORIN_EXEC_E_HANDLE);
    EXPECT(orin_exec_destroy(rt), ORIN_EXEC_E_HANDLE);
    EXPECT(orin_exec_destroy(NULL), ORIN_EXEC_OK);

    printf("consumed %" PRIu64 " frames, safe stop in frame %" PRIu64 "\n", consumed,
           safe_stop.frame);
    if (failures) {
        fprintf(stderr, "FAIL: %d checks failed\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
