/*
 * common.h: what the conformance clients share: failure reporting, the golden data, one
 * cuDLA standalone device with the loadable's tensors allocated in NvSciBuf and imported,
 * and NvSciSync objects between the CPU and the DLA built as the documented flow builds
 * them (cudlaGetNvSciSyncAttributes for the DLA's list, a CPU list with NeedCpuAccess).
 *
 * Every client takes <loadable> <golden input> <golden output> as its first arguments,
 * prints PASS and exits 0, or prints FAIL lines (with the reason) and exits 1.
 */
#ifndef ORIN_EXEC_SIL_C_CLIENT_COMMON_H
#define ORIN_EXEC_SIL_C_CLIENT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "api.h"

#define MAX_TENSORS 16

#include "check.h"

/* A cuDLA call that must succeed; on failure report it and `goto cleanup`. */
#define DLA(call) MUST_RETURN(call, cudlaStatus, cudlaSuccess, "cudlaStatus %d")

/* A call whose status must be `expected` (reported, execution continues). */
#define EXPECT_DLA(call, expected) EXPECT_RETURN(call, cudlaStatus, expected, "cudlaStatus %d")

/* Prints PASS or FAIL (n) and returns the exit status. */
int finish(void);

double now_ms(void);
void sleep_ms(long ms);
/* Reads a whole file (malloc'd); NULL on error. */
uint8_t* read_file(const char* path, size_t* size);

/* The committed loadable and its golden input and output (argv[1..3]). */
struct golden {
    uint8_t* loadable;
    size_t loadable_size;
    uint8_t* input;
    size_t input_size;
    uint8_t* output;
    size_t output_size;
};
int golden_load(struct golden* g, int argc, char** argv);
void golden_free(struct golden* g);

/* A tensor-type NvSciBuf buffer of `size` bytes as the cuDLA standalone sample allocates
 * it (Int8, one dimension, base address aligned to 512, read-write, CPU access). */
NvSciError alloc_tensor(NvSciBufModule module, uint64_t size, NvSciBufObj* obj);

/* One device handle with the loadable loaded and every tensor allocated, imported
 * read-write and CPU-mapped; the inputs hold the golden input. */
struct dla {
    cudlaDevHandle dev;
    cudlaModule module;
    NvSciBufModule buf_module;
    uint32_t num_in, num_out;
    cudlaModuleTensorDescriptor in_desc[MAX_TENSORS], out_desc[MAX_TENSORS];
    NvSciBufObj in_obj[MAX_TENSORS], out_obj[MAX_TENSORS];
    uint64_t* in_reg[MAX_TENSORS];
    uint64_t* out_reg[MAX_TENSORS];
    uint8_t* out_cpu[MAX_TENSORS];
};
/* Returns 0, or -1 after reporting the failed step. */
int dla_open(struct dla* d, uint64_t device, const struct golden* g);
/* Fills every output with 0xA5, so that a task that did not run cannot pass. */
void dla_poison_outputs(struct dla* d);
/* Compares the outputs (concatenated in descriptor order) with the golden output;
 * reports every difference and returns the number of differing tensors. */
int dla_check_outputs(const struct dla* d, const struct golden* g, const char* what);
/* A task over all tensors of `d`, with no events. */
void dla_task(const struct dla* d, cudlaTask* task);
/* Unregisters, frees, unloads and destroys (reporting failures); safe on a partly
 * opened or zeroed struct. */
void dla_close(struct dla* d);

/* An NvSciSync object between the CPU and the DLA of `dev` built as the documented
 * standalone flow does: a list filled by cudlaGetNvSciSyncAttributes(dla_flags) and a CPU
 * list {NeedCpuAccess, RequiredPerm = the other side}, reconciled and allocated.
 * dla_flags = CUDLA_NVSCISYNC_ATTR_WAIT: the CPU signals, the DLA waits;
 * CUDLA_NVSCISYNC_ATTR_SIGNAL: the DLA signals, the CPU waits. `deterministic` adds
 * RequireDeterministicFences to both lists; `timestamps` adds WaiterRequireTimestamps to the
 * CPU waiter's list. Returns 0, or -1 after reporting. */
int alloc_sync(NvSciSyncModule module, uint32_t dla_flags, bool deterministic, bool timestamps,
               NvSciSyncObj* obj);
/* The NvSciSync side of a device: a CPU->DLA object (the CPU signals pre-fences) and a
 * DLA->CPU object (cuDLA signals EOF fences, the CPU waits), both imported into `dev`, and a
 * CPU wait context. */
struct sync_pair {
    cudlaDevHandle dev;
    NvSciSyncModule module;
    NvSciSyncCpuWaitContext ctx;
    NvSciSyncObj wait_obj, signal_obj;
    uint64_t *wait_reg, *signal_reg;
};
/* Returns 0, or -1 after reporting. `deterministic`, `timestamps`: as alloc_sync. */
int sync_pair_open(struct sync_pair* s, cudlaDevHandle dev, bool deterministic, bool timestamps);
/* Unregisters and frees (reporting failures); safe on a zeroed struct. */
void sync_pair_close(struct sync_pair* s);
/* The documented submission: a new CPU pre-fence on s->wait_obj (written to `*pre`, not
 * signalled), then one task over all tensors of `d` that waits on it and signals
 * s->signal_reg with its EOF fence written to `*eof`. Returns 0, or -1 after reporting. */
int sync_pair_submit_after_pre_fence(const struct dla* d, const struct sync_pair* s,
                                     NvSciSyncFence* pre, NvSciSyncFence* eof);
/* Submits `task` (its events replaced) with `flags`, waiting for a new CPU pre-fence and
 * signalling `*eof` on signal_obj, then signals the pre-fence from the CPU. Returns the
 * status of cudlaSubmitTask (cudlaErrorUnknown, after reporting, if an NvSci call fails). */
cudlaStatus sync_pair_run(struct sync_pair* s, cudlaTask* task, uint32_t flags,
                          NvSciSyncFence* eof);

/* The reconciled primitive type of an object (PrimitiveInfo[0]), or -1 after reporting. */
int sync_primitive(NvSciSyncObj obj);
/* (id, value) of a fence; reports and returns -1 on failure. */
int fence_id_value(const NvSciSyncFence* fence, uint64_t* id, uint64_t* value);

#endif /* ORIN_EXEC_SIL_C_CLIENT_COMMON_H */
