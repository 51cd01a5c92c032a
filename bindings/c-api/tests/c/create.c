/* Runs generated tables (TABLES, a macro naming them, TABLES_HEADER their header) through the
 * C API with a no-op body for every CPU task: the SIL kernel models and DLA timing set, init,
 * seal, 30 virtual-clock frames, destroy. What the generator emits for a schedule passes the
 * C API's checks and Schedule::check and runs. Prints PASS. */
#include <stdio.h>

#include "orin_exec.h"
#include TABLES_HEADER

static int32_t noop(const orin_exec_task_ctx_t *ctx, void *user) {
    (void)ctx;
    (void)user;
    return 0;
}

static int check(orin_exec_status_t s, orin_exec_status_t want, const char *what) {
    if (s != want) {
        fprintf(stderr, "FAIL: %s: %s (wanted %s): %s\n", what, orin_exec_error_name(s),
                orin_exec_error_name(want), orin_exec_last_error_message());
        return 1;
    }
    return 0;
}

int main(void) {
    orin_exec_config_t cfg;
    orin_exec_runtime_t *rt = NULL;
    int failed = 0;
    failed |= check(orin_exec_config_default(&cfg), ORIN_EXEC_OK, "config");
    cfg.virtual_clock = true;
    cfg.realtime_priority = 0;
    failed |= check(orin_exec_create(&TABLES, &cfg, &rt), ORIN_EXEC_OK, "create");
    if (failed) {
        return 1;
    }
    failed |= check(orin_exec_sil_register_kernel_models(rt), ORIN_EXEC_OK, "kernel models");
    /* The preprocess runs on the SIL cuPVA as the model of the GPU kernel it replaces. */
    failed |= check(orin_exec_sil_register_pva_model(rt, "aeb_preprocess", "aeb", "aeb_preprocess"),
                    ORIN_EXEC_OK, "PVA model");
    failed |= check(orin_exec_sil_register_pva_model(rt, "nobody", "aeb", "aeb_preprocess"),
                    ORIN_EXEC_E_ARGUMENT, "PVA model of an unknown program");
    failed |= check(orin_exec_sil_register_pva_model(rt, "aeb_preprocess", NULL, "aeb_preprocess"),
                    ORIN_EXEC_E_NULL, "PVA model with a NULL module");
    /* Without bindings, init names the first unbound CPU task. */
    failed |= check(orin_exec_init(rt), ORIN_EXEC_E_BINDING, "init without bindings");
    size_t cpu_tasks = 0;
    for (size_t t = 0; t < TABLES.tasks_len; t++) {
        orin_exec_status_t s = orin_exec_bind(rt, (uint16_t)t, noop, NULL);
        /* Accelerator tasks are not bound: ORIN_EXEC_E_TASK. */
        if (s == ORIN_EXEC_OK) {
            cpu_tasks++;
        } else {
            failed |= check(s, ORIN_EXEC_E_TASK, "bind an accelerator task");
        }
    }
    failed |= check(orin_exec_init(rt), ORIN_EXEC_OK, "init");
    for (size_t e = 0; e < TABLES.engines_len; e++) {
        if (TABLES.engines[e].kind == ORIN_EXEC_ENGINE_DLA) {
            failed |= check(orin_exec_sil_set_dla_timing(rt, (uint8_t)e, 3000000, 5000000, 7),
                            ORIN_EXEC_OK, "DLA timing");
        }
    }
    failed |= check(orin_exec_seal(rt), ORIN_EXEC_OK, "seal");
    orin_exec_frame_report_t r;
    failed |= check(orin_exec_run(rt, 30, &r), ORIN_EXEC_OK, "run");
    printf("%zu CPU tasks bound, last frame %llu, faults %u\n", cpu_tasks,
           (unsigned long long)r.frame, r.faults);
    if (r.frame != 29 || cpu_tasks == 0) {
        failed = 1;
    }
    failed |= check(orin_exec_destroy(rt), ORIN_EXEC_OK, "destroy");
    if (failed) {
        fprintf(stderr, "FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
