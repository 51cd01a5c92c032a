/*
 * standalone_flow.h: the documented cuDLA standalone cycle (api-facts section 4.6),
 * shared by standalone_syncpoint.c (the default primitive) and standalone_deterministic.c
 * (the application requests deterministic fences):
 *
 *   create the device -> load the module -> query the tensors -> allocate NvSciBuf tensors
 *   and import them -> build the CPU->DLA and DLA->CPU NvSciSync objects and import them ->
 *   CPU pre-fence -> submit -> check that the EOF fence has not expired -> signal the
 *   pre-fence after the submit returned -> wait for the EOF fence -> cudlaGetLastError ->
 *   compare the outputs with the golden output -> a second task whose pre-fence is never
 *   signalled: its EOF fence times out -> tear everything down (destroy returns although a
 *   task still waits).
 *
 * `check_objects` is called once both objects exist and gets the two EOF fences' ids and
 * values after the run, for the primitive-specific checks of each client.
 */
#ifndef ORIN_EXEC_SIL_C_CLIENT_STANDALONE_FLOW_H
#define ORIN_EXEC_SIL_C_CLIENT_STANDALONE_FLOW_H

#include "common.h"

struct flow_result {
    NvSciSyncObj wait_obj, signal_obj; /* CPU -> DLA, DLA -> CPU */
    uint64_t pre_id, pre_value;        /* the first CPU pre-fence */
    uint64_t eof_id, eof_value;        /* the first EOF fence */
    uint64_t eof2_id, eof2_value;      /* the EOF fence of the blocked task */
};

/* Runs the cycle; objects requested deterministic or not. `check` runs before teardown. */
int run_standalone_flow(int argc, char** argv, bool deterministic,
                        void (*check)(const struct flow_result*));

#endif
