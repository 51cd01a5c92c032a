/* Creates, initializes, seals and destroys a runtime from generated tables (TABLES, a macro
 * naming them, TABLES_HEADER their header): what the generator emits for a schedule passes
 * the C API's checks and Schedule::check. Prints PASS. */
#include <stdio.h>

#include "orin_exec.h"
#include TABLES_HEADER

int main(void) {
    orin_exec_config_t cfg;
    orin_exec_runtime_t *rt = NULL;
    if (orin_exec_config_default(&cfg) != ORIN_EXEC_OK) {
        return 1;
    }
    cfg.virtual_clock = true;
    cfg.realtime_priority = 0;
    orin_exec_status_t s = orin_exec_create(&TABLES, &cfg, &rt);
    if (s != ORIN_EXEC_OK) {
        fprintf(stderr, "FAIL: orin_exec_create: %s: %s\n", orin_exec_error_name(s),
                orin_exec_last_error_message());
        return 1;
    }
    /* Without bindings, init names the first unbound CPU task. */
    s = orin_exec_init(rt);
    printf("init without bindings: %s: %s\n", orin_exec_error_name(s),
           orin_exec_last_error_message());
    if (s != ORIN_EXEC_E_BINDING || orin_exec_destroy(rt) != ORIN_EXEC_OK) {
        fprintf(stderr, "FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
