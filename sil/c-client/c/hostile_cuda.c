/*
 * hostile_cuda.c: SIL CUDA driver entry points called with hostile arguments: NULL pointers,
 * allocation sizes no memory can hold (SIZE_MAX, sizes whose page padding overflows, 2^62),
 * launch dimensions out of range, parameter counts past every limit, unloaded modules and
 * destroyed streams. Every call returns an error code (never aborts, crashes or hangs), and
 * the driver still works afterwards (sil/README.md, "Hostile arguments").
 *
 * usage: hostile_cuda <cubin>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_api.h"

int failures = 0;

/* Codes this client expects beyond those cuda_api.h names (the driver API's values). */
#define CU_OUT_OF_MEMORY 2
#define CU_INVALID_IMAGE 200

#define EXPECT_CU(call, expected)                                                      \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        if ((int)r_ != (int)(expected)) {                                              \
            FAIL("%s returned %d, expected %s (%d)", #call, (int)r_, #expected,        \
                 (int)(expected));                                                     \
        }                                                                              \
    } while (0)

static int noop_model(void* user, const cuSilKernelLaunch* launch) {
    (void)user;
    (void)launch;
    return 0;
}

/* The whole file (malloc'd, NUL-terminated) or NULL. */
static unsigned char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    unsigned char* buf = NULL;
    long n;
    if (f == NULL) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf != NULL) {
            buf[n] = 0;
        }
    }
    fclose(f);
    return buf;
}

int main(int argc, char** argv) {
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    CUmodule mod = NULL;
    CUstream stream = NULL;
    void* p = NULL;
    unsigned char* cubin = NULL;
    const size_t huge[] = {SIZE_MAX, SIZE_MAX - 4095, (size_t)1 << 62};
    uint8_t hash[1][32];
    cuSilParamKind kinds[1] = {CU_SIL_PARAM_U32};
    size_t i;

    if (argc < 2 || (cubin = slurp(argv[1])) == NULL) {
        FAIL("usage: hostile_cuda <cubin>");
        return 1;
    }
    EXPECT_CU(cuInit(0), CUDA_SUCCESS);
    EXPECT_CU(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    EXPECT_CU(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    EXPECT_CU(cuCtxSetCurrent(ctx), CUDA_SUCCESS);

    /* Host allocations no memory can hold: out of memory, never an abort. */
    for (i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        EXPECT_CU(cuMemHostAlloc(&p, huge[i], 0), CU_OUT_OF_MEMORY);
    }
    EXPECT_CU(cuMemHostAlloc(NULL, 4096, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuMemHostAlloc(&p, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuMemHostAlloc(&p, 4096, 0xffffffffu), CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuMemFreeHost(&dev), CUDA_ERROR_INVALID_VALUE); /* not from cuMemHostAlloc */
    EXPECT_CU(cuMemHostAlloc(&p, 4096, 0), CUDA_SUCCESS);
    EXPECT_CU(cuMemFreeHost(p), CUDA_SUCCESS);
    EXPECT_CU(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE); /* twice */

    /* Images: NULL, not a cubin. */
    EXPECT_CU(cuModuleLoadData(&mod, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuModuleLoadData(NULL, cubin), CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuModuleLoadData(&mod, "\x7f" "ELF garbage"), CU_INVALID_IMAGE);

    /* A loaded module, then unloaded: its handle is refused. */
    EXPECT_CU(cuModuleLoadData(&mod, cubin), CUDA_SUCCESS);
    {
        CUfunction f = NULL;
        EXPECT_CU(cuModuleGetFunction(&f, mod, NULL), CUDA_ERROR_INVALID_VALUE);
        EXPECT_CU(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
        EXPECT_CU(cuModuleUnload(mod), CUDA_SUCCESS);
        EXPECT_CU(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
        EXPECT_CU(cuModuleGetFunction(&f, mod, "no_such_kernel"), CUDA_ERROR_INVALID_HANDLE);
    }

    /* Launches of no function, with dimensions out of range. */
    EXPECT_CU(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
              CUDA_ERROR_INVALID_HANDLE);

    /* Kernel-model registration with counts past every limit. */
    memset(hash, 0, sizeof(hash));
    EXPECT_CU(cuSilRegisterKernelModel("m", "k", (const uint8_t(*)[32])hash, 1, kinds,
                                       0xffffffffu, noop_model, NULL),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuSilRegisterKernelModel("m", "k", (const uint8_t(*)[32])hash, 0, kinds, 1,
                                       noop_model, NULL),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_CU(cuSilRegisterKernelModel("m", "k", NULL, 1, kinds, 1, noop_model, NULL),
              CUDA_ERROR_INVALID_VALUE);

    /* A destroyed stream. */
    EXPECT_CU(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
    EXPECT_CU(cuStreamSynchronize(stream), CUDA_SUCCESS);
    EXPECT_CU(cuStreamDestroy_v2(stream), CUDA_SUCCESS);
    EXPECT_CU(cuStreamDestroy_v2(stream), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_CU(cuStreamSynchronize(stream), CUDA_ERROR_INVALID_HANDLE);

    /* Still works after all that. */
    EXPECT_CU(cuMemHostAlloc(&p, 1 << 20, 0), CUDA_SUCCESS);
    if (p != NULL) {
        memset(p, 1, 1 << 20);
        EXPECT_CU(cuMemFreeHost(p), CUDA_SUCCESS);
    }
    EXPECT_CU(cuDevicePrimaryCtxRelease_v2(dev), CUDA_SUCCESS);
    free(cubin);
    if (failures != 0) {
        printf("FAIL (%d)\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
