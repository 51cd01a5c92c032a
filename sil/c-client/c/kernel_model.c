/*
 * kernel_model.c: a C application's own kernel model on SIL CUDA (sil/README.md, "Kernel
 * models"). It loads a cubin that exports
 *     saxpy_f32(float a, const float* x, float* y, uint32_t n)
 * and checks that the kernel is handed out only once a model is registered for that cubin's
 * SHA-256 with the cubin's parameter kinds, then registers a C saxpy and runs it: results,
 * launch shape, and the buffer checks of cuSilLaunchBuffer (a buffer past the memory fails the
 * launch with CUDA_ERROR_ILLEGAL_ADDRESS, sticky on the stream).
 *
 * Usage: kernel_model <cubin> <sha256 of the cubin, 64 hex digits>
 * Prints PASS and exits 0, or FAIL lines and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"

#include "check.h"

int failures;

/* A driver call that must return `want`; on anything else report it and `goto cleanup`. */
#define EXPECT(want, call)                                                            \
    do {                                                                              \
        CUresult r_ = (call);                                                         \
        if (r_ != (want)) {                                                           \
            FAIL("%s returned %d, expected %d (%s)", #call, (int)r_, (int)(want), #want); \
            goto cleanup;                                                             \
        }                                                                             \
    } while (0)
#define CU(call) EXPECT(CUDA_SUCCESS, call)

/* What the model saw of its launches. */
typedef struct {
    int calls;
    unsigned int grid[3];
    unsigned int block[3];
    uint64_t now_ns;
} Seen;

/* The C model of saxpy_f32: y[i] = a * x[i] + y[i] for i < n. */
static int saxpy_model(void* user, const cuSilKernelLaunch* launch) {
    Seen* seen = user;
    float a = 0.0f;
    uint32_t n = 0;
    void* x = NULL;
    void* y = NULL;
    seen->calls++;
    if (cuSilLaunchGetParam(launch, 0, &a, sizeof a) != CUDA_SUCCESS ||
        cuSilLaunchGetParam(launch, 3, &n, sizeof n) != CUDA_SUCCESS ||
        cuSilLaunchGetDims(launch, seen->grid, seen->block) != CUDA_SUCCESS ||
        cuSilLaunchGetTime(launch, &seen->now_ns) != CUDA_SUCCESS) {
        return 1;
    }
    /* The checked way to the buffers: bounds, alignment, writability, no overlap. A refusal
     * fails the launch whatever this function returns. */
    if (cuSilLaunchBuffer(launch, 1, (size_t)n * sizeof(float), _Alignof(float), 0, &x) !=
            CUDA_SUCCESS ||
        cuSilLaunchBuffer(launch, 2, (size_t)n * sizeof(float), _Alignof(float), 1, &y) !=
            CUDA_SUCCESS) {
        return 0;
    }
    const float* xs = x;
    float* ys = y;
    for (uint32_t i = 0; i < n; i++) {
        ys[i] = a * xs[i] + ys[i];
    }
    return 0;
}

/* A model that declares the wrong kinds (a pointer where the cubin has a 4-byte float). */
static int never_runs(void* user, const cuSilKernelLaunch* launch) {
    (void)user;
    (void)launch;
    return 1;
}

static int parse_sha256(const char* hex, uint8_t out[32]) {
    if (strlen(hex) != 64) {
        return -1;
    }
    for (int i = 0; i < 32; i++) {
        unsigned int b = 0;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
            return -1;
        }
        out[i] = (uint8_t)b;
    }
    return 0;
}

static void* read_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* cuModuleLoadData wants the image aligned like a linked one. */
    size_t padded = ((size_t)len + 127) / 128 * 128;
    unsigned char* buf = aligned_alloc(128, padded);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static int status_of(CUmodule m, const char* kernel) {
    int status = -1;
    if (cuSilGetKernelModelStatus(m, kernel, &status) != CUDA_SUCCESS) {
        return -1;
    }
    return status;
}

enum { N = 1000 };

int main(int argc, char** argv) {
    uint8_t hash[1][32];
    void* image = NULL;
    CUcontext ctx = NULL;
    CUmodule module = NULL;
    CUfunction fn = NULL;
    CUstream stream = NULL;
    float* x = NULL;
    float* y = NULL;
    Seen seen = {0};
    if (argc != 3 || parse_sha256(argv[2], hash[0]) != 0) {
        fprintf(stderr, "usage: %s <cubin> <sha256>\n", argv[0]);
        return 2;
    }
    image = read_file(argv[1]);
    if (!image) {
        FAIL("cannot read %s", argv[1]);
        goto cleanup;
    }
    CUdevice dev = 0;
    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CU(cuModuleLoadData(&module, image));

    /* No model yet: the kernel is not handed out, and the status says why. */
    EXPECT(CUDA_ERROR_NOT_FOUND, cuModuleGetFunction(&fn, module, "saxpy_f32"));
    CHECK(status_of(module, "saxpy_f32") == CU_SIL_KERNEL_MODEL_NOT_REGISTERED,
          "status %d", status_of(module, "saxpy_f32"));

    /* Kinds that disagree with the cubin's parameters are not handed out either. */
    const cuSilParamKind wrong[4] = {CU_SIL_PARAM_PTR, CU_SIL_PARAM_PTR, CU_SIL_PARAM_PTR,
                                     CU_SIL_PARAM_U32};
    CU(cuSilRegisterKernelModel("selftest", "saxpy_f32", hash, 1, wrong, 4, never_runs, NULL));
    EXPECT(CUDA_ERROR_NOT_FOUND, cuModuleGetFunction(&fn, module, "saxpy_f32"));
    CHECK(status_of(module, "saxpy_f32") == CU_SIL_KERNEL_MODEL_KINDS_DISAGREE,
          "status %d", status_of(module, "saxpy_f32"));

    /* The C saxpy, with the cubin's kinds (it replaces the one never handed out). */
    const cuSilParamKind kinds[4] = {CU_SIL_PARAM_F32, CU_SIL_PARAM_PTR, CU_SIL_PARAM_PTR,
                                     CU_SIL_PARAM_U32};
    EXPECT(CUDA_ERROR_INVALID_VALUE,
           cuSilRegisterKernelModel("selftest", "saxpy_f32", hash, 0, kinds, 4, saxpy_model,
                                    &seen));
    CU(cuSilRegisterKernelModel("selftest", "saxpy_f32", hash, 1, kinds, 4, saxpy_model, &seen));
    CHECK(status_of(module, "saxpy_f32") == CU_SIL_KERNEL_MODEL_OK, "status %d",
          status_of(module, "saxpy_f32"));
    CU(cuModuleGetFunction(&fn, module, "saxpy_f32"));
    /* Handed out: another model for it is not permitted any more. */
    EXPECT(CUDA_ERROR_NOT_PERMITTED,
           cuSilRegisterKernelModel("selftest", "saxpy_f32", hash, 1, wrong, 4, never_runs, NULL));

    CU(cuMemHostAlloc((void**)&x, N * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
    CU(cuMemHostAlloc((void**)&y, N * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    CUdeviceptr dx = 0, dy = 0;
    CU(cuMemHostGetDevicePointer_v2(&dx, x, 0));
    CU(cuMemHostGetDevicePointer_v2(&dy, y, 0));
    CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    float a = 2.0f;
    uint32_t n = N;
    void* params[4] = {&a, &dx, &dy, &n};
    CU(cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, stream, params, NULL));
    CU(cuStreamSynchronize(stream));
    int wrong_values = 0;
    for (int i = 0; i < N; i++) {
        wrong_values += y[i] != 2.0f * (float)i + 1.0f;
    }
    CHECK(wrong_values == 0, "%d of %d outputs wrong (y[1] = %g)", wrong_values, N, y[1]);
    CHECK(seen.calls == 1, "the model ran %d times", seen.calls);
    CHECK(seen.grid[0] == 4 && seen.grid[1] == 1 && seen.block[0] == 256 && seen.block[2] == 1,
          "launch shape %u %u / %u %u", seen.grid[0], seen.grid[1], seen.block[0], seen.block[2]);

    /* n past the end of the pinned pages: cuSilLaunchBuffer refuses, the launch fails with an
     * illegal address, and the stream keeps the error. */
    n = 1u << 20;
    CU(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
    EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, cuStreamSynchronize(stream));
    EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS,
           cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL));
    CHECK(seen.calls == 2, "the model ran %d times", seen.calls);
    CHECK(y[1] == 3.0f, "the refused launch wrote y[1] = %g", y[1]);

cleanup:
    if (stream) {
        cuStreamDestroy_v2(stream);
    }
    if (x) {
        cuMemFreeHost(x);
    }
    if (y) {
        cuMemFreeHost(y);
    }
    if (module) {
        cuModuleUnload(module);
    }
    if (ctx) {
        cuDevicePrimaryCtxRelease_v2(0);
    }
    free(image);
    if (failures) {
        printf("FAIL (%d)\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
