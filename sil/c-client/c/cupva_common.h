/*
 * cupva_common.h: what the cuPVA C clients (cupva_flow.c, hostile_cupva.c) share: the
 * `scale` VPU program as a C model bound to a stand-in VPU ELF image, NvSciBuf memory
 * imported into the PVA, NvSciSync objects between the CPU and the PVA, and one command
 * program of `scale` with its parameters set (sil/README.md, "cuPVA").
 *
 * Both clients take <elf image> <sha256 of the image, 64 hex digits> as their arguments,
 * print PASS and exit 0, or print FAIL lines and exit 1. Each defines `failures`.
 */
#ifndef ORIN_EXEC_SIL_C_CLIENT_CUPVA_COMMON_H
#define ORIN_EXEC_SIL_C_CLIENT_CUPVA_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "cupva_api.h"

#include "check.h"

/* A cuPVA call that must succeed; on failure report it and `goto cleanup`. */
#define PVA(call) MUST_RETURN(call, cupvaError_t, CUPVA_ERROR_NONE, "cupvaError_t %d")

/* A cuPVA call whose status must be `expected` (reported, execution continues). */
#define EXPECT_PVA(call, expected) EXPECT_RETURN(call, cupvaError_t, expected, "cupvaError_t %d")

/* Bytes `scale` runs over and its gain: dst[i] = src[i] * SCALE_GAIN (mod 256). */
enum { SCALE_N = 256, SCALE_GAIN = 5, SCALE_IMAGE_MAX = 4096 };

/* The stand-in VPU ELF image (argv[1]) and its SHA-256 (argv[2]). */
struct scale_image {
    uint8_t bytes[SCALE_IMAGE_MAX];
    int32_t len;
    uint8_t hash[32];
};
/* Reads the arguments; returns 0, or -1 after printing the usage or the failure. */
int scale_image_read(struct scale_image* img, int argc, char** argv);

/* Everything a run of `scale` needs: memory imported from NvSciBuf (the input filled, the
 * golden output computed independently of the model), a stream on PVA0, and a command
 * program of the allowlisted image with every parameter set. */
struct scale {
    NvSciSyncModule sync_mod;
    NvSciBufModule buf_mod;
    NvSciSyncCpuWaitContext ctx;
    NvSciBufObj in_buf, out_buf;
    uint8_t *in_cpu, *out_cpu;
    void *src, *dst;
    cupvaExecutable_t exec;
    cupvaStream_t stream;
    cupvaCmd_t prog;
    bool have_prog;
    int calls; /* runs of the C model */
    uint8_t expected[SCALE_N];
};
/* Registers the C model of `scale` for the image's hash, allowlists the image and sets up
 * `*s` (zeroed first). Returns 0, or -1 after reporting the failed step. */
int scale_open(struct scale* s, const struct scale_image* img);
/* Sets the four parameters of s->prog (src, dst, SCALE_N, SCALE_GAIN); 0 or -1. */
int scale_set_params(struct scale* s);
/* Fills the output with 0xA5, so that a run that did not happen cannot pass. */
void scale_poison_output(struct scale* s);
/* Compares the output with the golden output; reports and returns -1 on a difference. */
int scale_check_output(const struct scale* s, const char* what);
/* Destroys and frees what scale_open made; safe on a partly opened or zeroed struct. */
void scale_close(struct scale* s);

/* A raw NvSciBuf buffer of `size` bytes, CPU-accessible, read-write, with the PVA's
 * attributes (CupvaMemFillAttributes); NULL after reporting. */
NvSciBufObj pva_raw_buffer(NvSciBufModule mod, uint64_t size);
/* A deterministic NvSciSync object between the CPU and the PVA in role `pva`
 * (CUPVA_WAITER: the CPU signals; CUPVA_SIGNALER: the CPU waits); NULL after reporting. */
NvSciSyncObj pva_sync_object(NvSciSyncModule mod, cupvaSyncClientType_t pva);

#endif /* ORIN_EXEC_SIL_C_CLIENT_CUPVA_COMMON_H */
