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
#include "hostile.h"

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

/* ---------------------------------------------------------------------------------- */
/* One case per exported entry point (hostile.h).                                      */
/* ---------------------------------------------------------------------------------- */

/* The calls cuda_api.h does not declare, declared from their documented signatures
 * (sil/cuda/src). Handles and parameter structs the cases only pass through (NULL,
 * forged, garbage) are `void*` here: the same ABI as a pointer to the struct. */
typedef void* CUhandle;
CUresult cuDriverGetVersion(int* driverVersion);
CUresult cuDeviceGetCount(int* count);
CUresult cuDeviceGetName(char* name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int* pi, int attrib, CUdevice dev);
CUresult cuDeviceGetUuid(void* uuid, CUdevice dev);
CUresult cuCtxGetCurrent(CUcontext* pctx);
CUresult cuCtxSynchronize(void);
CUresult cuGetErrorName(CUresult error, const char** pStr);
CUresult cuGetErrorString(CUresult error, const char** pStr);
CUresult cuEventCreate(CUhandle* phEvent, unsigned int flags);
CUresult cuEventRecord(CUhandle hEvent, CUstream hStream);
CUresult cuEventQuery(CUhandle hEvent);
CUresult cuEventSynchronize(CUhandle hEvent);
CUresult cuEventElapsedTime(float* ms, CUhandle hStart, CUhandle hEnd);
CUresult cuEventDestroy_v2(CUhandle hEvent);
CUresult cuImportExternalMemory(CUhandle* extMem, const void* desc);
CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr* devPtr, CUhandle extMem, const void* desc);
CUresult cuDestroyExternalMemory(CUhandle extMem);
CUresult cuImportExternalSemaphore(CUhandle* extSem, const void* desc);
CUresult cuDestroyExternalSemaphore(CUhandle extSem);
CUresult cuSignalExternalSemaphoresAsync(const CUhandle* sems, const void* params,
                                         unsigned int num, CUstream stream);
CUresult cuWaitExternalSemaphoresAsync(const CUhandle* sems, const void* params,
                                       unsigned int num, CUstream stream);
CUresult cuDeviceGetNvSciSyncAttributes(void* list, CUdevice dev, int flags);
CUresult cuGraphCreate(CUhandle* phGraph, unsigned int flags);
CUresult cuGraphDestroy(CUhandle hGraph);
CUresult cuGraphAddKernelNode_v2(CUhandle* node, CUhandle graph, const CUhandle* deps,
                                 size_t numDeps, const void* params);
CUresult cuGraphAddBatchMemOpNode(CUhandle* node, CUhandle graph, const CUhandle* deps,
                                  size_t numDeps, const void* params);
CUresult cuGraphAddExternalSemaphoresWaitNode(CUhandle* node, CUhandle graph,
                                              const CUhandle* deps, size_t numDeps,
                                              const void* params);
CUresult cuGraphAddExternalSemaphoresSignalNode(CUhandle* node, CUhandle graph,
                                                const CUhandle* deps, size_t numDeps,
                                                const void* params);
CUresult cuGraphInstantiateWithFlags(CUhandle* exec, CUhandle graph, unsigned long long flags);
CUresult cuGraphLaunch(CUhandle exec, CUstream stream);
CUresult cuGraphExecDestroy(CUhandle exec);
CUresult cuGraphExecKernelNodeSetParams_v2(CUhandle exec, CUhandle node, const void* params);
CUresult cuGraphExecBatchMemOpNodeSetParams(CUhandle exec, CUhandle node, const void* params);
CUresult cuGraphExecExternalSemaphoresWaitNodeSetParams(CUhandle exec, CUhandle node,
                                                        const void* params);
CUresult cuGraphExecExternalSemaphoresSignalNodeSetParams(CUhandle exec, CUhandle node,
                                                          const void* params);
CUresult cuStreamBeginCapture_v2(CUstream stream, int mode);
CUresult cuStreamEndCapture(CUstream stream, CUhandle* phGraph);
CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int flags);
CUresult cuMemHostUnregister(void* p);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuSilSetKernelTimingModel(CUfunction f, const void* model);
CUresult cuStreamQuery(CUstream stream);
CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, uint32_t value,
                                unsigned int flags);
CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, uint32_t value,
                                 unsigned int flags);
CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, uint64_t value,
                                unsigned int flags);
CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, uint64_t value,
                                 unsigned int flags);
CUresult cuSilGetThreadStats(void* stats);

/* The driver API's error codes the SIL documents (cuda-sys; sil/README.md, "SIL CUDA"):
 * a hostile call must come back with one of them. */
static int documented_error(CUresult r) {
    static const int codes[] = {1,   2,   3,   100, 101, 200, 201, 400, 401, 500,
                                600, 700, 712, 713, 719, 800, 801, 900, 901};
    size_t i;
    for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        if ((int)r == codes[i]) {
            return 1;
        }
    }
    return 0;
}

/* A call that must fail with a documented error code. */
#define EXPECT_CU_ERR(call)                                                  \
    do {                                                                     \
        CUresult r_ = (call);                                                \
        if (!documented_error(r_)) {                                         \
            FAIL("%s returned %d, expected a documented error", #call,       \
                 (int)r_);                                                   \
        }                                                                    \
    } while (0)

#define FORGED ((CUhandle)FORGED_HANDLE)
static CUmodule g_mod, g_dead_mod;   /* the cubin loaded; loaded, then unloaded */
static CUstream g_stream, g_dead_stream;
static CUdevice g_dev;
static const unsigned char* g_cubin;
static const void* g_launch;          /* garbage bytes posing as a launch handle */

HOSTILE(cuInit) {
    EXPECT_CU_ERR(cuInit(0xffffffffu));
}
HOSTILE(cuDriverGetVersion) {
    EXPECT_CU_ERR(cuDriverGetVersion(NULL));
}
HOSTILE(cuDeviceGet) {
    CUdevice d;
    EXPECT_CU_ERR(cuDeviceGet(NULL, 0));
    EXPECT_CU_ERR(cuDeviceGet(&d, -1));
    EXPECT_CU_ERR(cuDeviceGet(&d, INT32_MAX));
}
HOSTILE(cuDeviceGetCount) {
    EXPECT_CU_ERR(cuDeviceGetCount(NULL));
}
HOSTILE(cuDeviceGetName) {
    char name[8];
    EXPECT_CU_ERR(cuDeviceGetName(NULL, 8, g_dev));
    EXPECT_CU_ERR(cuDeviceGetName(name, 0, g_dev));
    EXPECT_CU_ERR(cuDeviceGetName(name, -1, g_dev));
    EXPECT_CU_ERR(cuDeviceGetName(name, 8, -1));
}
HOSTILE(cuDeviceGetAttribute) {
    int v;
    EXPECT_CU_ERR(cuDeviceGetAttribute(NULL, 1, g_dev));
    EXPECT_CU_ERR(cuDeviceGetAttribute(&v, 0x7fffffff, g_dev));
    EXPECT_CU_ERR(cuDeviceGetAttribute(&v, -1, g_dev));
    EXPECT_CU_ERR(cuDeviceGetAttribute(&v, 1, INT32_MAX));
}
HOSTILE(cuDeviceGetUuid) {
    EXPECT_CU_ERR(cuDeviceGetUuid(NULL, g_dev));
    EXPECT_CU_ERR(cuDeviceGetUuid(hostile_garbage, -1));
}
HOSTILE(cuDevicePrimaryCtxRetain) {
    CUcontext c;
    EXPECT_CU_ERR(cuDevicePrimaryCtxRetain(NULL, g_dev));
    EXPECT_CU_ERR(cuDevicePrimaryCtxRetain(&c, INT32_MAX));
}
HOSTILE(cuDevicePrimaryCtxRelease_v2) {
    EXPECT_CU_ERR(cuDevicePrimaryCtxRelease_v2(-1));
    EXPECT_CU_ERR(cuDevicePrimaryCtxRelease_v2(INT32_MAX));
}
HOSTILE(cuCtxGetCurrent) {
    EXPECT_CU_ERR(cuCtxGetCurrent(NULL));
}
HOSTILE(cuCtxSetCurrent) {
    EXPECT_CU_ERR(cuCtxSetCurrent((CUcontext)FORGED));
    EXPECT_CU_ERR(cuCtxSetCurrent((CUcontext)g_stream));
}
HOSTILE(cuCtxSynchronize) {
    /* No arguments: it comes back (nothing is pending). */
    EXPECT_CU(cuCtxSynchronize(), CUDA_SUCCESS);
}
HOSTILE(cuGetErrorName) {
    const char* str = NULL;
    EXPECT_CU_ERR(cuGetErrorName(CUDA_SUCCESS, NULL));
    EXPECT_CU_ERR(cuGetErrorName((CUresult)0x7fffffff, &str));
    EXPECT_CU_ERR(cuGetErrorName((CUresult)-1, &str));
}
HOSTILE(cuGetErrorString) {
    const char* str = NULL;
    EXPECT_CU_ERR(cuGetErrorString(CUDA_SUCCESS, NULL));
    EXPECT_CU_ERR(cuGetErrorString((CUresult)0x7fffffff, &str));
}
HOSTILE(cuModuleLoadData) {
    CUmodule m = NULL;
    size_t i;
    EXPECT_CU_ERR(cuModuleLoadData(&m, NULL));
    EXPECT_CU_ERR(cuModuleLoadData(NULL, g_cubin));
    /* Garbage with an ELF magic, without one, and 512 bytes of 0xFF. */
    EXPECT_CU_ERR(cuModuleLoadData(&m, "\x7f" "ELF\x02\x01\x01"));
    EXPECT_CU_ERR(cuModuleLoadData(&m, "garbage"));
    EXPECT_CU_ERR(cuModuleLoadData(&m, hostile_garbage));
    /* The cubin's ELF header with section/program header counts and offsets of 0xFF. */
    {
        static unsigned char forged[4096];
        memcpy(forged, g_cubin, 64);
        for (i = 0x20; i < 0x40; i++) {
            forged[i] = 0xFF;
        }
        EXPECT_CU_ERR(cuModuleLoadData(&m, forged));
    }
}
HOSTILE(cuModuleGetFunction) {
    CUfunction f = NULL;
    EXPECT_CU_ERR(cuModuleGetFunction(NULL, g_mod, "k"));
    EXPECT_CU_ERR(cuModuleGetFunction(&f, g_mod, NULL));
    EXPECT_CU_ERR(cuModuleGetFunction(&f, (CUmodule)FORGED, "k"));
    EXPECT_CU_ERR(cuModuleGetFunction(&f, g_dead_mod, "k"));
    EXPECT_CU_ERR(cuModuleGetFunction(&f, g_mod, ""));
}
HOSTILE(cuModuleUnload) {
    EXPECT_CU_ERR(cuModuleUnload(NULL));
    EXPECT_CU_ERR(cuModuleUnload((CUmodule)FORGED));
    EXPECT_CU_ERR(cuModuleUnload(g_dead_mod));
    EXPECT_CU_ERR(cuModuleUnload((CUmodule)g_stream));
}
HOSTILE(cuMemHostAlloc) {
    void* p = NULL;
    size_t i;
    for (i = 0; i < HOSTILE_NCOUNTS; i++) {
        EXPECT_CU_ERR(cuMemHostAlloc(&p, HOSTILE_COUNTS[i] == (size_t)INT32_MAX + 1
                                             ? ((size_t)1 << 50)
                                             : HOSTILE_COUNTS[i],
                                     0));
    }
    EXPECT_CU_ERR(cuMemHostAlloc(NULL, 64, 0));
    EXPECT_CU_ERR(cuMemHostAlloc(&p, 0, 0));
    EXPECT_CU_ERR(cuMemHostAlloc(&p, 64, 0xffffffffu));
}
HOSTILE(cuMemHostGetDevicePointer_v2) {
    CUdeviceptr d;
    uint64_t word = 0;
    EXPECT_CU_ERR(cuMemHostGetDevicePointer_v2(NULL, &word, 0));
    EXPECT_CU_ERR(cuMemHostGetDevicePointer_v2(&d, NULL, 0));
    EXPECT_CU_ERR(cuMemHostGetDevicePointer_v2(&d, &word, 0));
    EXPECT_CU_ERR(cuMemHostGetDevicePointer_v2(&d, &word, 0xffffffffu));
}
HOSTILE(cuMemFreeHost) {
    uint64_t word = 0;
    EXPECT_CU_ERR(cuMemFreeHost(NULL));
    EXPECT_CU_ERR(cuMemFreeHost(&word));
    EXPECT_CU_ERR(cuMemFreeHost(hostile_garbage + 1));
}
HOSTILE(cuMemHostRegister_v2) {
    size_t i;
    EXPECT_CU_ERR(cuMemHostRegister_v2(NULL, 4096, 0));
    /* The size describes the caller's memory: trusted up to what no memory can be. */
    for (i = 0; i < HOSTILE_NOVERFLOW; i++) {
        EXPECT_CU_ERR(cuMemHostRegister_v2(hostile_garbage, HOSTILE_COUNTS[i], 0));
    }
    EXPECT_CU_ERR(cuMemHostRegister_v2(hostile_garbage, 0, 0));
    EXPECT_CU_ERR(cuMemHostRegister_v2(hostile_garbage, 64, 0xffffffffu));
}
HOSTILE(cuMemHostUnregister) {
    EXPECT_CU_ERR(cuMemHostUnregister(NULL));
    EXPECT_CU_ERR(cuMemHostUnregister(hostile_garbage));
}
HOSTILE(cuMemFree_v2) {
    EXPECT_CU_ERR(cuMemFree_v2(0));
    EXPECT_CU_ERR(cuMemFree_v2(~0ull));
    EXPECT_CU_ERR(cuMemFree_v2((CUdeviceptr)(uintptr_t)hostile_garbage));
}
HOSTILE(cuStreamCreate) {
    CUstream s;
    EXPECT_CU_ERR(cuStreamCreate(NULL, 0));
    EXPECT_CU_ERR(cuStreamCreate(&s, 0xffffffffu));
}
HOSTILE(cuStreamSynchronize) {
    EXPECT_CU_ERR(cuStreamSynchronize((CUstream)FORGED));
    EXPECT_CU_ERR(cuStreamSynchronize(g_dead_stream));
    EXPECT_CU_ERR(cuStreamSynchronize((CUstream)g_mod));
}
HOSTILE(cuStreamQuery) {
    EXPECT_CU_ERR(cuStreamQuery((CUstream)FORGED));
    EXPECT_CU_ERR(cuStreamQuery(g_dead_stream));
}
HOSTILE(cuStreamDestroy_v2) {
    EXPECT_CU_ERR(cuStreamDestroy_v2(NULL));
    EXPECT_CU_ERR(cuStreamDestroy_v2((CUstream)FORGED));
    EXPECT_CU_ERR(cuStreamDestroy_v2(g_dead_stream));
}
HOSTILE(cuStreamBeginCapture_v2) {
    EXPECT_CU_ERR(cuStreamBeginCapture_v2(g_stream, 0x7fffffff));
    EXPECT_CU_ERR(cuStreamBeginCapture_v2((CUstream)FORGED, 0));
    EXPECT_CU_ERR(cuStreamBeginCapture_v2(g_dead_stream, 0));
}
HOSTILE(cuStreamEndCapture) {
    CUhandle g = NULL;
    EXPECT_CU_ERR(cuStreamEndCapture(g_stream, NULL));
    EXPECT_CU_ERR(cuStreamEndCapture(g_stream, &g)); /* not capturing */
    EXPECT_CU_ERR(cuStreamEndCapture((CUstream)FORGED, &g));
}
/* Stream memory operations on addresses no mapping has, misaligned ones, unknown flags. */
HOSTILE(cuStreamWaitValue32_v2) {
    EXPECT_CU_ERR(cuStreamWaitValue32_v2(g_stream, 0, 1, 0));
    EXPECT_CU_ERR(cuStreamWaitValue32_v2(g_stream, ~0ull, 1, 0));
    EXPECT_CU_ERR(cuStreamWaitValue32_v2(g_stream, (CUdeviceptr)(uintptr_t)hostile_garbage + 1, 1, 0));
    EXPECT_CU_ERR(cuStreamWaitValue32_v2(g_stream, 0, 1, 0xffffffffu));
    EXPECT_CU_ERR(cuStreamWaitValue32_v2((CUstream)FORGED, 0, 1, 0));
}
HOSTILE(cuStreamWriteValue32_v2) {
    EXPECT_CU_ERR(cuStreamWriteValue32_v2(g_stream, 0, 1, 0));
    EXPECT_CU_ERR(cuStreamWriteValue32_v2(g_stream, ~0ull, 1, 0));
    EXPECT_CU_ERR(cuStreamWriteValue32_v2(g_stream, 0, 1, 0xffffffffu));
    EXPECT_CU_ERR(cuStreamWriteValue32_v2((CUstream)FORGED, 0, 1, 0));
}
HOSTILE(cuStreamWaitValue64_v2) {
    EXPECT_CU_ERR(cuStreamWaitValue64_v2(g_stream, 0, 1, 0));
    EXPECT_CU_ERR(cuStreamWaitValue64_v2(g_stream, (CUdeviceptr)(uintptr_t)hostile_garbage + 4, 1, 0));
    EXPECT_CU_ERR(cuStreamWaitValue64_v2(g_stream, 0, UINT64_MAX, 0xffffffffu));
    EXPECT_CU_ERR(cuStreamWaitValue64_v2(g_dead_stream, 0, 1, 0));
}
HOSTILE(cuStreamWriteValue64_v2) {
    EXPECT_CU_ERR(cuStreamWriteValue64_v2(g_stream, 0, 1, 0));
    EXPECT_CU_ERR(cuStreamWriteValue64_v2(g_stream, ~0ull, UINT64_MAX, 0));
    EXPECT_CU_ERR(cuStreamWriteValue64_v2(g_dead_stream, 0, 1, 0));
}
HOSTILE(cuLaunchKernel) {
    void* params[1] = {NULL};
    EXPECT_CU_ERR(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    EXPECT_CU_ERR(cuLaunchKernel((CUfunction)FORGED, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    EXPECT_CU_ERR(cuLaunchKernel((CUfunction)g_mod, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                                 UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, g_dead_stream,
                                 params, (void**)hostile_garbage));
}
HOSTILE(cuEventCreate) {
    CUhandle e;
    EXPECT_CU_ERR(cuEventCreate(NULL, 0));
    EXPECT_CU_ERR(cuEventCreate(&e, 0xffffffffu));
}
HOSTILE(cuEventRecord) {
    EXPECT_CU_ERR(cuEventRecord(NULL, g_stream));
    EXPECT_CU_ERR(cuEventRecord(FORGED, g_stream));
    EXPECT_CU_ERR(cuEventRecord((CUhandle)g_stream, g_stream));
}
HOSTILE(cuEventQuery) {
    EXPECT_CU_ERR(cuEventQuery(NULL));
    EXPECT_CU_ERR(cuEventQuery(FORGED));
}
HOSTILE(cuEventSynchronize) {
    EXPECT_CU_ERR(cuEventSynchronize(NULL));
    EXPECT_CU_ERR(cuEventSynchronize(FORGED));
}
HOSTILE(cuEventElapsedTime) {
    float ms;
    EXPECT_CU_ERR(cuEventElapsedTime(NULL, FORGED, FORGED));
    EXPECT_CU_ERR(cuEventElapsedTime(&ms, FORGED, FORGED));
    EXPECT_CU_ERR(cuEventElapsedTime(&ms, NULL, NULL));
}
HOSTILE(cuEventDestroy_v2) {
    EXPECT_CU_ERR(cuEventDestroy_v2(NULL));
    EXPECT_CU_ERR(cuEventDestroy_v2(FORGED));
}
HOSTILE(cuImportExternalMemory) {
    CUhandle m = NULL;
    EXPECT_CU_ERR(cuImportExternalMemory(NULL, hostile_garbage));
    EXPECT_CU_ERR(cuImportExternalMemory(&m, NULL));
    EXPECT_CU_ERR(cuImportExternalMemory(&m, hostile_garbage));
}
HOSTILE(cuExternalMemoryGetMappedBuffer) {
    CUdeviceptr d;
    EXPECT_CU_ERR(cuExternalMemoryGetMappedBuffer(NULL, FORGED, hostile_garbage));
    EXPECT_CU_ERR(cuExternalMemoryGetMappedBuffer(&d, FORGED, hostile_garbage));
    EXPECT_CU_ERR(cuExternalMemoryGetMappedBuffer(&d, NULL, NULL));
}
HOSTILE(cuDestroyExternalMemory) {
    EXPECT_CU_ERR(cuDestroyExternalMemory(NULL));
    EXPECT_CU_ERR(cuDestroyExternalMemory(FORGED));
}
HOSTILE(cuImportExternalSemaphore) {
    CUhandle s = NULL;
    EXPECT_CU_ERR(cuImportExternalSemaphore(NULL, hostile_garbage));
    EXPECT_CU_ERR(cuImportExternalSemaphore(&s, NULL));
    EXPECT_CU_ERR(cuImportExternalSemaphore(&s, hostile_garbage));
}
HOSTILE(cuDestroyExternalSemaphore) {
    EXPECT_CU_ERR(cuDestroyExternalSemaphore(NULL));
    EXPECT_CU_ERR(cuDestroyExternalSemaphore(FORGED));
}
static const unsigned int sem_counts[] = {UINT32_MAX, (unsigned int)INT32_MAX + 1, 1};
HOSTILE(cuSignalExternalSemaphoresAsync) {
    CUhandle sems[1] = {FORGED};
    size_t i;
    /* Counts over NULL arrays; zero semaphores is a documented no-op. */
    for (i = 0; i < sizeof(sem_counts) / sizeof(sem_counts[0]); i++) {
        EXPECT_CU_ERR(cuSignalExternalSemaphoresAsync(NULL, NULL, sem_counts[i],
                                                      g_stream));
    }
    EXPECT_CU_ERR(cuSignalExternalSemaphoresAsync(sems, hostile_garbage, 1, g_stream));
    EXPECT_CU(cuSignalExternalSemaphoresAsync(sems, hostile_garbage, 0, g_stream), CUDA_SUCCESS);
    EXPECT_CU_ERR(cuSignalExternalSemaphoresAsync(sems, hostile_garbage, 1, g_dead_stream));
}
HOSTILE(cuWaitExternalSemaphoresAsync) {
    CUhandle sems[1] = {FORGED};
    size_t i;
    /* Counts over NULL arrays; zero semaphores is a documented no-op. */
    for (i = 0; i < sizeof(sem_counts) / sizeof(sem_counts[0]); i++) {
        EXPECT_CU_ERR(cuWaitExternalSemaphoresAsync(NULL, NULL, sem_counts[i],
                                                    g_stream));
    }
    EXPECT_CU_ERR(cuWaitExternalSemaphoresAsync(sems, hostile_garbage, 1, g_stream));
    EXPECT_CU(cuWaitExternalSemaphoresAsync(sems, hostile_garbage, 0, g_stream), CUDA_SUCCESS);
}
HOSTILE(cuDeviceGetNvSciSyncAttributes) {
    EXPECT_CU_ERR(cuDeviceGetNvSciSyncAttributes(NULL, g_dev, 1));
    EXPECT_CU_ERR(cuDeviceGetNvSciSyncAttributes(FORGED, g_dev, 1));
    EXPECT_CU_ERR(cuDeviceGetNvSciSyncAttributes(FORGED, g_dev, 0x7fffffff));
    EXPECT_CU_ERR(cuDeviceGetNvSciSyncAttributes(FORGED, INT32_MAX, 1));
}
HOSTILE(cuGraphCreate) {
    CUhandle g;
    EXPECT_CU_ERR(cuGraphCreate(NULL, 0));
    EXPECT_CU_ERR(cuGraphCreate(&g, 0xffffffffu));
}
HOSTILE(cuGraphDestroy) {
    EXPECT_CU_ERR(cuGraphDestroy(NULL));
    EXPECT_CU_ERR(cuGraphDestroy(FORGED));
}
/* Adding nodes: NULL outputs, forged graphs, dependency counts over NULL arrays and huge
 * ones (the count is trusted only as far as reading the caller's array). */
#define ADD_NODE_CASES(add)                                                              \
    do {                                                                                 \
        CUhandle n_ = NULL, g_ = NULL, deps_[1] = {FORGED};                              \
        size_t i_;                                                                       \
        EXPECT_CU(cuGraphCreate(&g_, 0), CUDA_SUCCESS);                                  \
        EXPECT_CU_ERR(add(NULL, g_, NULL, 0, hostile_garbage));                          \
        EXPECT_CU_ERR(add(&n_, FORGED, NULL, 0, hostile_garbage));                       \
        EXPECT_CU_ERR(add(&n_, g_, NULL, 0, NULL));                                      \
        EXPECT_CU_ERR(add(&n_, g_, NULL, 0, hostile_garbage));                           \
        EXPECT_CU_ERR(add(&n_, g_, deps_, 1, hostile_garbage));                          \
        for (i_ = 0; i_ < HOSTILE_NCOUNTS; i_++) {                                       \
            EXPECT_CU_ERR(add(&n_, g_, NULL, HOSTILE_COUNTS[i_], hostile_garbage));      \
            if (i_ < HOSTILE_NOVERFLOW) {                                                \
                EXPECT_CU_ERR(add(&n_, g_, deps_, HOSTILE_COUNTS[i_], hostile_garbage)); \
            }                                                                            \
        }                                                                                \
        EXPECT_CU(cuGraphDestroy(g_), CUDA_SUCCESS);                                     \
    } while (0)
HOSTILE(cuGraphAddKernelNode_v2) {
    EXPECT_CU_ERR(cuGraphAddKernelNode_v2(NULL, NULL, NULL, 0, NULL));
    ADD_NODE_CASES(cuGraphAddKernelNode_v2);
}
HOSTILE(cuGraphAddBatchMemOpNode) {
    EXPECT_CU_ERR(cuGraphAddBatchMemOpNode(NULL, NULL, NULL, 0, NULL));
    ADD_NODE_CASES(cuGraphAddBatchMemOpNode);
}
HOSTILE(cuGraphAddExternalSemaphoresWaitNode) {
    EXPECT_CU_ERR(cuGraphAddExternalSemaphoresWaitNode(NULL, NULL, NULL, 0, NULL));
    ADD_NODE_CASES(cuGraphAddExternalSemaphoresWaitNode);
}
HOSTILE(cuGraphAddExternalSemaphoresSignalNode) {
    EXPECT_CU_ERR(cuGraphAddExternalSemaphoresSignalNode(NULL, NULL, NULL, 0, NULL));
    ADD_NODE_CASES(cuGraphAddExternalSemaphoresSignalNode);
}
HOSTILE(cuGraphInstantiateWithFlags) {
    CUhandle e;
    EXPECT_CU_ERR(cuGraphInstantiateWithFlags(NULL, FORGED, 0));
    EXPECT_CU_ERR(cuGraphInstantiateWithFlags(&e, FORGED, 0));
    EXPECT_CU_ERR(cuGraphInstantiateWithFlags(&e, NULL, ~0ull));
}
HOSTILE(cuGraphLaunch) {
    EXPECT_CU_ERR(cuGraphLaunch(NULL, g_stream));
    EXPECT_CU_ERR(cuGraphLaunch(FORGED, g_stream));
}
HOSTILE(cuGraphExecDestroy) {
    EXPECT_CU_ERR(cuGraphExecDestroy(NULL));
    EXPECT_CU_ERR(cuGraphExecDestroy(FORGED));
}
HOSTILE(cuGraphExecKernelNodeSetParams_v2) {
    EXPECT_CU_ERR(cuGraphExecKernelNodeSetParams_v2(NULL, NULL, NULL));
    EXPECT_CU_ERR(cuGraphExecKernelNodeSetParams_v2(FORGED, FORGED, hostile_garbage));
}
HOSTILE(cuGraphExecBatchMemOpNodeSetParams) {
    EXPECT_CU_ERR(cuGraphExecBatchMemOpNodeSetParams(NULL, NULL, NULL));
    EXPECT_CU_ERR(cuGraphExecBatchMemOpNodeSetParams(FORGED, FORGED, hostile_garbage));
}
HOSTILE(cuGraphExecExternalSemaphoresWaitNodeSetParams) {
    EXPECT_CU_ERR(cuGraphExecExternalSemaphoresWaitNodeSetParams(NULL, NULL, NULL));
    EXPECT_CU_ERR(cuGraphExecExternalSemaphoresWaitNodeSetParams(FORGED, FORGED, hostile_garbage));
}
HOSTILE(cuGraphExecExternalSemaphoresSignalNodeSetParams) {
    EXPECT_CU_ERR(cuGraphExecExternalSemaphoresSignalNodeSetParams(NULL, NULL, NULL));
    EXPECT_CU_ERR(
        cuGraphExecExternalSemaphoresSignalNodeSetParams(FORGED, FORGED, hostile_garbage));
}
HOSTILE(cuSilRegisterKernelModel) {
    cuSilParamKind kinds[1] = {CU_SIL_PARAM_U32};
    uint8_t hash[1][32];
    memset(hash, 0, sizeof(hash));
    /* Hash and parameter counts past a one-element array, and over NULL. */
    EXPECT_CU_ERR(cuSilRegisterKernelModel("m", "k", (const uint8_t(*)[32])hash, 0xffffffffu,
                                           kinds, 1, noop_model, NULL));
    EXPECT_CU_ERR(cuSilRegisterKernelModel("m", "k", NULL, 0xffffffffu, kinds, 1, noop_model,
                                           NULL));
    EXPECT_CU_ERR(cuSilRegisterKernelModel("m", "k", (const uint8_t(*)[32])hash, 1, NULL,
                                           0xffffffffu, noop_model, NULL));
    EXPECT_CU_ERR(cuSilRegisterKernelModel(NULL, "k", (const uint8_t(*)[32])hash, 1, kinds, 1,
                                           noop_model, NULL));
    EXPECT_CU_ERR(cuSilRegisterKernelModel("m", NULL, (const uint8_t(*)[32])hash, 1, kinds, 1,
                                           noop_model, NULL));
    EXPECT_CU_ERR(cuSilRegisterKernelModel("m", "k", (const uint8_t(*)[32])hash, 1, kinds, 1,
                                           NULL, NULL));
    kinds[0] = (cuSilParamKind)0x7fffffff;
    EXPECT_CU_ERR(cuSilRegisterKernelModel("m", "k", (const uint8_t(*)[32])hash, 1, kinds, 1,
                                           noop_model, NULL));
}
HOSTILE(cuSilGetKernelModelStatus) {
    int st;
    EXPECT_CU_ERR(cuSilGetKernelModelStatus(g_mod, "k", NULL));
    EXPECT_CU_ERR(cuSilGetKernelModelStatus(g_mod, NULL, &st));
    EXPECT_CU_ERR(cuSilGetKernelModelStatus((CUmodule)FORGED, "k", &st));
    EXPECT_CU_ERR(cuSilGetKernelModelStatus(g_dead_mod, "k", &st));
}
/* The launch calls are only valid inside a kernel model's callback: outside one, any
 * launch pointer (NULL, garbage) is refused without being read. */
HOSTILE(cuSilLaunchBuffer) {
    void* p = NULL;
    EXPECT_CU_ERR(cuSilLaunchBuffer(NULL, 0, 4, 4, 0, &p));
    EXPECT_CU_ERR(cuSilLaunchBuffer(g_launch, 0, 4, 4, 0, &p));
    EXPECT_CU_ERR(cuSilLaunchBuffer(g_launch, UINT32_MAX, SIZE_MAX, 3, 1, NULL));
}
HOSTILE(cuSilLaunchGetParam) {
    uint32_t v;
    EXPECT_CU_ERR(cuSilLaunchGetParam(NULL, 0, &v, sizeof(v)));
    EXPECT_CU_ERR(cuSilLaunchGetParam(g_launch, UINT32_MAX, NULL, SIZE_MAX));
}
HOSTILE(cuSilLaunchGetDims) {
    unsigned int grid[3], block[3];
    EXPECT_CU_ERR(cuSilLaunchGetDims(NULL, grid, block));
    EXPECT_CU_ERR(cuSilLaunchGetDims(g_launch, NULL, NULL));
}
HOSTILE(cuSilLaunchGetTime) {
    uint64_t t;
    EXPECT_CU_ERR(cuSilLaunchGetTime(NULL, &t));
    EXPECT_CU_ERR(cuSilLaunchGetTime(g_launch, NULL));
}
HOSTILE(cuSilSetKernelTimingModel) {
    EXPECT_CU_ERR(cuSilSetKernelTimingModel(NULL, hostile_garbage));
    EXPECT_CU_ERR(cuSilSetKernelTimingModel((CUfunction)FORGED, hostile_garbage));
    EXPECT_CU_ERR(cuSilSetKernelTimingModel((CUfunction)g_mod, NULL));
}
HOSTILE(cuSilGetThreadStats) {
    uint32_t small[16];
    memset(small, 0, sizeof(small));
    EXPECT_CU_ERR(cuSilGetThreadStats(NULL));
    EXPECT_CU_ERR(cuSilGetThreadStats(small)); /* `size` 0 */
    EXPECT_CU_ERR(cuSilGetThreadStats((char*)small + 1));
}

/* Sets up what the cases work on (a current context) and runs them all. */
static void run_cases(const unsigned char* cubin) {
    CUcontext ctx = NULL;
    g_cubin = cubin;
    g_launch = hostile_garbage;
    hostile_init_garbage();
    EXPECT_CU(cuInit(0), CUDA_SUCCESS);
    EXPECT_CU(cuDeviceGet(&g_dev, 0), CUDA_SUCCESS);
    EXPECT_CU(cuDevicePrimaryCtxRetain(&ctx, g_dev), CUDA_SUCCESS);
    EXPECT_CU(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    EXPECT_CU(cuModuleLoadData(&g_mod, cubin), CUDA_SUCCESS);
    EXPECT_CU(cuModuleLoadData(&g_dead_mod, cubin), CUDA_SUCCESS);
    EXPECT_CU(cuModuleUnload(g_dead_mod), CUDA_SUCCESS);
    EXPECT_CU(cuStreamCreate(&g_stream, 0), CUDA_SUCCESS);
    EXPECT_CU(cuStreamCreate(&g_dead_stream, 0), CUDA_SUCCESS);
    EXPECT_CU(cuStreamDestroy_v2(g_dead_stream), CUDA_SUCCESS);
    if (failures == 0) {
        hostile_run_all();
    }
    EXPECT_CU(cuStreamSynchronize(g_stream), CUDA_SUCCESS);
    EXPECT_CU(cuStreamDestroy_v2(g_stream), CUDA_SUCCESS);
    EXPECT_CU(cuModuleUnload(g_mod), CUDA_SUCCESS);
    EXPECT_CU(cuDevicePrimaryCtxRelease_v2(g_dev), CUDA_SUCCESS);
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
    run_cases(cubin);
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
