/*
 * cuda_api.h: the subset of the CUDA driver API that the kernel-model client uses, declared by
 * hand from the documented names and values (the same values as bindings/cuda-sys), plus the
 * SIL CUDA extension calls for kernel models (sil/README.md, "Kernel models"), which exist
 * only in SIL CUDA. This is NOT a copy of any vendor header. The driver's versioned entry
 * points are named as exported (cuMemHostGetDevicePointer_v2, cuStreamDestroy_v2).
 */
#ifndef ORIN_EXEC_SIL_C_CLIENT_CUDA_API_H
#define ORIN_EXEC_SIL_C_CLIENT_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_PERMITTED = 800
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;

#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_STREAM_NON_BLOCKING 0x1

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice* device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuModuleLoadData(CUmodule* module, const void* image);
CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name);
CUresult cuModuleUnload(CUmodule hmod);
CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int flags);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int flags);
CUresult cuMemFreeHost(void* p);
CUresult cuStreamCreate(CUstream* phStream, unsigned int flags);
CUresult cuStreamSynchronize(CUstream hStream);
CUresult cuStreamDestroy_v2(CUstream hStream);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void** kernelParams, void** extra);

/* ---------------------------------------------------------------------------------- */
/* SIL CUDA kernel models (SIL only)                                                   */
/* ---------------------------------------------------------------------------------- */

/* The kind of one kernel parameter (a C enum, 4 bytes). */
typedef enum {
    CU_SIL_PARAM_PTR = 0,
    CU_SIL_PARAM_U32 = 1,
    CU_SIL_PARAM_I32 = 2,
    CU_SIL_PARAM_U64 = 3,
    CU_SIL_PARAM_F32 = 4
} cuSilParamKind;

/* One launch as a C model sees it: valid only during the callback, on its thread. */
typedef struct cuSilKernelLaunch_st cuSilKernelLaunch;

/* A C kernel model: 0 for success; anything else fails the launch. */
typedef int (*cuSilKernelModelFn)(void* user, const cuSilKernelLaunch* launch);

/* cuSilGetKernelModelStatus */
#define CU_SIL_KERNEL_MODEL_OK 0
#define CU_SIL_KERNEL_MODEL_NOT_REGISTERED 1
#define CU_SIL_KERNEL_MODEL_OTHER_CUBINS 2
#define CU_SIL_KERNEL_MODEL_KINDS_DISAGREE 3
#define CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN 4

CUresult cuSilRegisterKernelModel(const char* module, const char* kernel,
                                  const uint8_t (*cubinSha256)[32], unsigned int numHashes,
                                  const cuSilParamKind* kinds, unsigned int numParams,
                                  cuSilKernelModelFn model, void* user);
CUresult cuSilGetKernelModelStatus(CUmodule hmod, const char* kernel, int* status);
CUresult cuSilLaunchBuffer(const cuSilKernelLaunch* launch, unsigned int index, size_t bytes,
                           size_t align, int writable, void** ptr);
CUresult cuSilLaunchGetParam(const cuSilKernelLaunch* launch, unsigned int index, void* value,
                             size_t size);
CUresult cuSilLaunchGetDims(const cuSilKernelLaunch* launch, unsigned int grid[3],
                            unsigned int block[3]);
CUresult cuSilLaunchGetTime(const cuSilKernelLaunch* launch, uint64_t* nowNs);

#endif
