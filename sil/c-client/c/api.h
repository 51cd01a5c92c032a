/*
 * api.h: the subset of the NvSciError / NvSciSync / NvSciBuf / cuDLA C API that the C
 * clients of this directory use, declared by hand from the documented API facts
 * (shared/reference/api-facts.md sections 1-4: names, values, field orders and prototypes
 * restated there from public sources; for cuDLA 1.5 additions: the names, values and
 * prototypes of cudla.h 1.5 and cudlaExternalEtbl.hpp, PyPI nvidia-cudla 13.5.25). This is
 * NOT a copy of any vendor header; a program written against the vendor headers uses the
 * same names and values. The SIL extension calls at the end exist only in the SIL.
 */
#ifndef ORIN_EXEC_SIL_C_CLIENT_API_H
#define ORIN_EXEC_SIL_C_CLIENT_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------- */
/* NvSciError (a C enum, 4 bytes)                                                      */
/* ---------------------------------------------------------------------------------- */
typedef enum {
    NvSciError_Success = 0x0,
    NvSciError_Unknown = 0x1,
    NvSciError_NotSupported = 0x11,
    NvSciError_NotPermitted = 0x21,
    NvSciError_InvalidState = 0x22,
    NvSciError_InsufficientMemory = 0x30,
    NvSciError_ResourceError = 0x32,
    NvSciError_BadParameter = 0x100,
    NvSciError_Overflow = 0x103,
    NvSciError_Timeout = 0x200,
    NvSciError_ReconciliationFailed = 0x10100,
    NvSciError_UnsupportedConfig = 0x02000001,
    NvSciError_ClearedFence = 0x02000002
} NvSciError;

/* ---------------------------------------------------------------------------------- */
/* NvSciSync                                                                           */
/* ---------------------------------------------------------------------------------- */
typedef struct NvSciSyncModuleRec* NvSciSyncModule;
typedef struct NvSciSyncCpuWaitContextRec* NvSciSyncCpuWaitContext;
typedef struct NvSciSyncObjRec* NvSciSyncObj;
typedef struct NvSciSyncAttrListRec* NvSciSyncAttrList;

/* A uint64_t typedef with macro values, not an enum. */
typedef uint64_t NvSciSyncAccessPerm;
#define NvSciSyncAccessPerm_WaitOnly ((NvSciSyncAccessPerm)1u << 0)
#define NvSciSyncAccessPerm_SignalOnly ((NvSciSyncAccessPerm)1u << 1)
#define NvSciSyncAccessPerm_WaitSignal \
    (NvSciSyncAccessPerm_WaitOnly | NvSciSyncAccessPerm_SignalOnly)

typedef enum {
    NvSciSyncAttrKey_LowerBound = 0,
    NvSciSyncAttrKey_NeedCpuAccess = 1,
    NvSciSyncAttrKey_RequiredPerm = 2,
    NvSciSyncAttrKey_ActualPerm = 3,
    NvSciSyncAttrKey_WaiterContextInsensitiveFenceExports = 4,
    NvSciSyncAttrKey_WaiterRequireTimestamps = 5,
    NvSciSyncAttrKey_RequireDeterministicFences = 6,
    NvSciSyncAttrKey_NumTimestampSlots = 7,
    NvSciSyncAttrKey_NumTaskStatusSlots = 8,
    NvSciSyncAttrKey_MaxPrimitiveValue = 9,
    NvSciSyncAttrKey_PrimitiveInfo = 10
} NvSciSyncAttrKey;

/* A C enum (4 bytes); PrimitiveInfo values are arrays of it. */
typedef enum {
    NvSciSyncAttrValPrimitiveType_LowerBound = 0,
    NvSciSyncAttrValPrimitiveType_Syncpoint = 1,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphore = 2,
    NvSciSyncAttrValPrimitiveType_VidmemSemaphore = 3,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b = 4,
    NvSciSyncAttrValPrimitiveType_VidmemSemaphorePayload64b = 5,
    NvSciSyncAttrValPrimitiveType_UpperBound = 6
} NvSciSyncAttrValPrimitiveType;

typedef struct {
    NvSciSyncAttrKey attrKey;
    const void* value;
    size_t len;
} NvSciSyncAttrKeyValuePair;

/* Caller-owned, 48 bytes; all zeros = cleared. */
typedef struct {
    uint64_t payload[6];
} NvSciSyncFence;

NvSciError NvSciSyncModuleOpen(NvSciSyncModule* newModule);
void NvSciSyncModuleClose(NvSciSyncModule module);
NvSciError NvSciSyncCpuWaitContextAlloc(NvSciSyncModule module,
                                        NvSciSyncCpuWaitContext* newContext);
void NvSciSyncCpuWaitContextFree(NvSciSyncCpuWaitContext context);
NvSciError NvSciSyncAttrListCreate(NvSciSyncModule module, NvSciSyncAttrList* attrList);
void NvSciSyncAttrListFree(NvSciSyncAttrList attrList);
NvSciError NvSciSyncAttrListSetAttrs(NvSciSyncAttrList attrList,
                                     const NvSciSyncAttrKeyValuePair* pairArray,
                                     size_t pairCount);
NvSciError NvSciSyncAttrListGetAttr(NvSciSyncAttrList attrList, NvSciSyncAttrKey key,
                                    const void** value, size_t* len);
NvSciError NvSciSyncAttrListReconcile(const NvSciSyncAttrList inputArray[], size_t inputCount,
                                      NvSciSyncAttrList* newReconciledList,
                                      NvSciSyncAttrList* newConflictList);
NvSciError NvSciSyncObjAlloc(NvSciSyncAttrList reconciledList, NvSciSyncObj* syncObj);
void NvSciSyncObjFree(NvSciSyncObj syncObj);
NvSciError NvSciSyncObjDup(NvSciSyncObj syncObj, NvSciSyncObj* dupObj);
NvSciError NvSciSyncObjGetAttrList(NvSciSyncObj syncObj, NvSciSyncAttrList* syncAttrList);
NvSciError NvSciSyncObjGenerateFence(NvSciSyncObj syncObj, NvSciSyncFence* syncFence);
NvSciError NvSciSyncObjSignal(NvSciSyncObj syncObj);
NvSciError NvSciSyncFenceWait(const NvSciSyncFence* syncFence,
                              NvSciSyncCpuWaitContext context, int64_t timeoutUs);
void NvSciSyncFenceClear(NvSciSyncFence* syncFence);
NvSciError NvSciSyncFenceDup(const NvSciSyncFence* srcSyncFence, NvSciSyncFence* dstSyncFence);
NvSciError NvSciSyncFenceExtractFence(const NvSciSyncFence* syncFence, uint64_t* id,
                                      uint64_t* value);
NvSciError NvSciSyncFenceUpdateFence(NvSciSyncObj syncObj, uint64_t id, uint64_t value,
                                     NvSciSyncFence* syncFence);
NvSciError NvSciSyncFenceGetTimestamp(const NvSciSyncFence* syncFence, uint64_t* timestampUS);

/* ---------------------------------------------------------------------------------- */
/* NvSciBuf                                                                            */
/* ---------------------------------------------------------------------------------- */
typedef struct NvSciBufModuleRec* NvSciBufModule;
typedef struct NvSciBufAttrListRec* NvSciBufAttrList;
typedef struct NvSciBufObjRefRec* NvSciBufObj;

typedef enum {
    NvSciBufType_General = 0,
    NvSciBufType_RawBuffer = 1,
    NvSciBufType_Image = 2,
    NvSciBufType_Tensor = 3
} NvSciBufType;

typedef enum {
    NvSciBufAccessPerm_Readonly = 1,
    NvSciBufAccessPerm_ReadWrite = 3
} NvSciBufAttrValAccessPerm;

typedef enum {
    NvSciDataType_Int8 = 2
} NvSciBufAttrValDataType;

typedef enum {
    NvSciBufGeneralAttrKey_Types = 0x1,
    NvSciBufGeneralAttrKey_NeedCpuAccess = 0x2,
    NvSciBufGeneralAttrKey_RequiredPerm = 0x3,
    NvSciBufRawBufferAttrKey_Size = 0x10000,
    NvSciBufTensorAttrKey_DataType = 0x30000,
    NvSciBufTensorAttrKey_NumDims = 0x30001,
    NvSciBufTensorAttrKey_SizePerDim = 0x30002,
    NvSciBufTensorAttrKey_AlignmentPerDim = 0x30003,
    NvSciBufTensorAttrKey_BaseAddrAlign = 0x30006
} NvSciBufAttrKey;

typedef struct {
    NvSciBufAttrKey key;
    const void* value;
    size_t len;
} NvSciBufAttrKeyValuePair;

NvSciError NvSciBufModuleOpen(NvSciBufModule* newModule);
void NvSciBufModuleClose(NvSciBufModule module);
NvSciError NvSciBufAttrListCreate(NvSciBufModule module, NvSciBufAttrList* newAttrList);
void NvSciBufAttrListFree(NvSciBufAttrList attrList);
NvSciError NvSciBufAttrListSetAttrs(NvSciBufAttrList attrList,
                                    NvSciBufAttrKeyValuePair* pairArray, size_t pairCount);
NvSciError NvSciBufAttrListReconcile(const NvSciBufAttrList inputArray[], size_t inputCount,
                                     NvSciBufAttrList* newReconciledAttrList,
                                     NvSciBufAttrList* newConflictList);
NvSciError NvSciBufObjAlloc(NvSciBufAttrList reconciledAttrList, NvSciBufObj* bufObj);
void NvSciBufObjFree(NvSciBufObj bufObj);
NvSciError NvSciBufObjGetCpuPtr(NvSciBufObj bufObj, void** ptr);
NvSciError NvSciBufObjGetConstCpuPtr(NvSciBufObj bufObj, const void** ptr);

/* ---------------------------------------------------------------------------------- */
/* cuDLA                                                                               */
/* ---------------------------------------------------------------------------------- */
typedef enum {
    cudlaSuccess = 0,
    cudlaErrorInvalidParam = 1,
    cudlaErrorOutOfResources = 2,
    cudlaErrorCreationFailed = 3,
    cudlaErrorInvalidAddress = 4,
    cudlaErrorOs = 5,
    cudlaErrorCuda = 6,
    cudlaErrorUmd = 7,
    cudlaErrorInvalidDevice = 8,
    cudlaErrorInvalidAttribute = 9,
    cudlaErrorIncompatibleDlaSWVersion = 10,
    cudlaErrorMemoryRegistered = 11,
    cudlaErrorInvalidModule = 12,
    cudlaErrorUnsupportedOperation = 13,
    cudlaErrorNvSci = 14,
    cudlaErrorDriverNotFound = 15,
    cudlaErrorDlaErrInvalidInput = 0x40000001,
    cudlaErrorDlaErrInvalidPreAction = 0x40000002,
    cudlaErrorDlaErrNoMem = 0x40000003,
    cudlaErrorDlaErrProcessorBusy = 0x40000004,
    cudlaErrorDlaErrTaskStatusMismatch = 0x40000005,
    cudlaErrorDlaErrEngineTimeout = 0x40000006,
    cudlaErrorDlaErrDataMismatch = 0x40000007,
    cudlaErrorUnknown = 0x7fffffff
} cudlaStatus;

typedef enum { CUDLA_CUDA_DLA = 0, CUDLA_STANDALONE = 1 } cudlaMode;
typedef enum {
    CUDLA_NVSCISYNC_ATTR_WAIT = 1,
    CUDLA_NVSCISYNC_ATTR_SIGNAL = 2
} cudlaNvSciSyncAttributes;
typedef enum {
    CUDLA_NUM_INPUT_TENSORS = 0,
    CUDLA_NUM_OUTPUT_TENSORS = 1,
    CUDLA_INPUT_TENSOR_DESCRIPTORS = 2,
    CUDLA_OUTPUT_TENSOR_DESCRIPTORS = 3,
    CUDLA_NUM_OUTPUT_TASK_STATISTICS = 4,
    CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS = 5
} cudlaModuleAttributeType;
typedef enum { CUDLA_NVSCISYNC_FENCE = 1, CUDLA_NVSCISYNC_FENCE_SOF = 2 } cudlaFenceType;
typedef enum {
    CUDLA_READ_WRITE_PERM = 0,
    CUDLA_READ_ONLY_PERM = 1,
    CUDLA_TASK_STATISTICS = 1 << 1
} cudlaAccessPermissionFlags;
typedef enum {
    CUDLA_MODULE_DEFAULT = 0,
    CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS = 1
} cudlaModuleLoadFlags;
typedef enum {
    CUDLA_SUBMIT_NOOP = 1,
    CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE = 1 << 1,
    CUDLA_SUBMIT_DIAGNOSTICS_TASK = 1 << 2
} cudlaSubmissionFlags;
typedef enum { CUDLA_UNIFIED_ADDRESSING = 0, CUDLA_DEVICE_VERSION = 1 } cudlaDevAttributeType;

#define CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN 80
#define CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES 8

typedef struct cudlaDevHandle_t* cudlaDevHandle;
typedef struct cudlaModule_t* cudlaModule;

typedef struct cudlaExternalMemoryHandleDesc_t {
    const void* extBufObject;
    unsigned long long size;
} cudlaExternalMemoryHandleDesc;

typedef struct cudlaExternalSemaphoreHandleDesc_t {
    const void* extSyncObject;
} cudlaExternalSemaphoreHandleDesc;

typedef struct cudlaModuleTensorDescriptor_t {
    char name[CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN + 1];
    uint64_t size;
    uint64_t n;
    uint64_t c;
    uint64_t h;
    uint64_t w;
    uint8_t dataFormat;
    uint8_t dataType;
    uint8_t dataCategory;
    uint8_t pixelFormat;
    uint8_t pixelMapping;
    uint32_t stride[CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES];
} cudlaModuleTensorDescriptor;

typedef union {
    uint32_t numInputTensors;
    uint32_t numOutputTensors;
    cudlaModuleTensorDescriptor* inputTensorDesc;
    cudlaModuleTensorDescriptor* outputTensorDesc;
} cudlaModuleAttribute;

typedef union {
    uint8_t unifiedAddressingSupported;
    uint32_t deviceVersion;
} cudlaDevAttribute;

typedef struct {
    void* fence; /* an NvSciSyncFence* */
    cudlaFenceType type;
} CudlaFence;

typedef struct {
    const CudlaFence* preFences;
    uint32_t numEvents;
} cudlaWaitEvents;

typedef struct {
    uint64_t* const* devPtrs;
    CudlaFence* eofFences;
    uint32_t numEvents;
} cudlaSignalEvents;

/* Outputs come before inputs. */
typedef struct cudlaTask_t {
    cudlaModule moduleHandle;
    uint64_t* const* outputTensor;
    uint32_t numOutputTensors;
    uint32_t numInputTensors;
    const uint64_t* const* inputTensor;
    const cudlaWaitEvents* waitEvents;
    cudlaSignalEvents* signalEvents;
} cudlaTask;

cudlaStatus cudlaGetVersion(uint64_t* const version);
cudlaStatus cudlaDeviceGetCount(uint64_t* const pNumDevices);
cudlaStatus cudlaCreateDevice(uint64_t const device, cudlaDevHandle* const devHandle,
                              uint32_t const flags);
cudlaStatus cudlaDestroyDevice(cudlaDevHandle const devHandle);
cudlaStatus cudlaModuleLoadFromMemory(cudlaDevHandle const devHandle,
                                      const uint8_t* const pModule, size_t const moduleSize,
                                      cudlaModule* const hModule, uint32_t const flags);
cudlaStatus cudlaModuleGetAttributes(cudlaModule const hModule,
                                     cudlaModuleAttributeType const attrType,
                                     cudlaModuleAttribute* const attribute);
cudlaStatus cudlaModuleUnload(cudlaModule const hModule, uint32_t const flags);
cudlaStatus cudlaMemUnregister(cudlaDevHandle const devHandle, const uint64_t* const devPtr);
cudlaStatus cudlaImportExternalMemory(cudlaDevHandle const devHandle,
                                      const cudlaExternalMemoryHandleDesc* const desc,
                                      uint64_t** const devPtr, uint32_t const flags);
cudlaStatus cudlaImportExternalSemaphore(cudlaDevHandle const devHandle,
                                         const cudlaExternalSemaphoreHandleDesc* const desc,
                                         uint64_t** const devPtr, uint32_t const flags);
cudlaStatus cudlaGetNvSciSyncAttributes(uint64_t* attrList, uint32_t const flags);
cudlaStatus cudlaSubmitTask(cudlaDevHandle const devHandle, const cudlaTask* const ptrToTasks,
                            uint32_t const numTasks, void* const stream, uint32_t const flags);
cudlaStatus cudlaDeviceGetAttribute(cudlaDevHandle const devHandle,
                                    cudlaDevAttributeType const attrib,
                                    cudlaDevAttribute* const pAttribute);
cudlaStatus cudlaGetLastError(cudlaDevHandle const devHandle);
cudlaStatus cudlaMemRegister(cudlaDevHandle const devHandle, const uint64_t* const ptr,
                             size_t const size, uint64_t** const devPtr, uint32_t const flags);
cudlaStatus cudlaSetTaskTimeoutInMs(cudlaDevHandle const devHandle, uint32_t const timeout);

/* Task statistics (the external export table; cudlaExternalEtbl.hpp of cuDLA 1.5). */
typedef enum { CUDLA_GET_CSV_LENGTH = 0, CUDLA_GET_CSV_STATS = 1 } cudlaTranslateAttributeType;
typedef union {
    uint64_t csvStreamLength;
    void* csvStreamStats;
} cudlaTranslateCsvAttribute;
typedef struct {
    cudlaStatus (*etiTranslateStats)(cudlaDevHandle const devHandle, unsigned char* input,
                                     uint32_t const dlaFreqMHz, uint32_t idx,
                                     cudlaTranslateAttributeType const csvAttrType,
                                     cudlaTranslateCsvAttribute* const csvAttribute);
    cudlaStatus (*etiTranslateStatsForMultiModule)(
        cudlaDevHandle const devHandle, cudlaModule const hModule, unsigned char* input,
        uint32_t const dlaFreqMHz, uint32_t idx, cudlaTranslateAttributeType const csvAttrType,
        cudlaTranslateCsvAttribute* const csvAttribute);
} cudlaExternalEtbl;
cudlaStatus cudlaGetExternalExportTable(const cudlaExternalEtbl** const exportTable,
                                        uint32_t const flags);

/* ---------------------------------------------------------------------------------- */
/* SIL extension calls (only in the SIL libraries; docs/architecture.md, cudla-sys::sil) */
/* ---------------------------------------------------------------------------------- */
#define CUDLA_SIL_TIMING_FIXED 0u
#define CUDLA_SIL_FAULT_HANG 1u
#define CUDLA_SIL_FAULT_LATE 2u
#define CUDLA_SIL_FAULT_ASYNC_ERROR 3u
#define CUDLA_SIL_FAULT_CORRUPT_OUTPUT 4u
#define CUDLA_SIL_FAULT_PERMANENT 5u

typedef struct {
    uint32_t kind;
    uint32_t numBins;
    uint64_t minNs;
    uint64_t maxNs;
    const uint64_t* binUpperNs;
    const uint32_t* binWeights;
    uint64_t seed;
} cudlaSilTimingModel;

typedef struct {
    uint32_t kind;
    int32_t status;
    uint64_t skipTasks;
    uint64_t count;
    uint64_t extraDelayNs;
} cudlaSilFault;

cudlaStatus cudlaSilSetTimingModel(cudlaDevHandle dev, const cudlaSilTimingModel* model);
cudlaStatus cudlaSilInjectFault(cudlaDevHandle dev, const cudlaSilFault* fault);
cudlaStatus cudlaSilClearFaults(cudlaDevHandle dev);

#endif /* ORIN_EXEC_SIL_C_CLIENT_API_H */
