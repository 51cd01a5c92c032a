/*
 * cupva_api.h: the cuPVA host C API (PVA SDK) functions that bindings/cupva-sys declares
 * (every export of the SIL cuPVA), declared by hand from the documented names and values
 * (the same as bindings/cupva-sys), plus the SIL cuPVA extension calls (sil/README.md,
 * "cuPVA"), which exist only in the SIL. Only the enumerators the clients use are listed.
 * This is NOT a copy of any vendor header. Needs api.h (NvSci types) first.
 */
#ifndef ORIN_EXEC_SIL_C_CLIENT_CUPVA_API_H
#define ORIN_EXEC_SIL_C_CLIENT_CUPVA_API_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    CUPVA_ERROR_NONE = 0,
    CUPVA_UNSUPPORTED_FEATURE = 1,
    CUPVA_INVALID_STATE = 3,
    CUPVA_INVALID_ARGUMENT = 4,
    CUPVA_UNINITIALIZED_OBJECT = 5,
    CUPVA_DRIVER_API_ERROR = 6,
    CUPVA_COMMAND_EXECUTION_TIMEOUT = 7,
    CUPVA_COMMAND_SUBMISSION_TIMEOUT = 8,
    CUPVA_OPERATION_PENDING = 18
} cupvaError_t;

typedef enum { CUPVA_IN_ORDER = 1, CUPVA_OUT_OF_ORDER = 2 } cupvaOrderType_t;
typedef enum { CUPVA_PVA0 = 1, CUPVA_PVA1 = 2 } cupvaEngineType_t;
typedef enum { CUPVA_VPU0 = 1, CUPVA_VPU1 = 2, CUPVA_VPU_ANY = 3 } cupvaAffinityType_t;
typedef enum {
    CUPVA_SIGNALER = 1,
    CUPVA_WAITER = 2,
    CUPVA_SIGNALER_WAITER = 3
} cupvaSyncClientType_t;
typedef enum { CUPVA_SYNC_YIELD = 1, CUPVA_SYNC_SPIN = 2 } cupvaSyncWaitMode_t;
typedef enum { CUPVA_READ = 1, CUPVA_WRITE = 2, CUPVA_READ_WRITE = 3 } cupvaMemAccessType_t;
typedef enum { CUPVA_ALLOC_DRAM = 1, CUPVA_ALLOC_CVSRAM = 2 } cupvaMemAllocType_t;
/* A C enum whose enumerators no public page gives (bindings/cupva-sys): only the width. */
typedef uint32_t cupvaDataFlowType_t;

typedef struct cupvaExecutableRec* cupvaExecutable_t;
typedef struct cupvaStreamRec* cupvaStream_t;
typedef struct cupvaSyncObjRec* cupvaSyncObj_t;
typedef struct cupvaCmdStatusRec* cupvaCmdStatus_t;
typedef struct cupvaDataFlowRec* cupvaDataFlow_t;

/* Caller-owned storage; sizes as bindings/cupva-sys declares them (UNCONFIRMED there). */
typedef struct { uint64_t data[6]; } cupvaFence_t;
typedef struct { uint64_t data[3]; } cupvaCmd_t;
typedef struct { uint64_t data[2]; } cupvaParameter_t;

cupvaError_t CupvaGetDriverVersion(uint32_t* driverVersion);
cupvaError_t CupvaGetRuntimeVersion(uint32_t* runtimeVersion);
cupvaError_t CupvaGetLastError(const char** errorMsg);
cupvaError_t CupvaExecutableCreate(cupvaExecutable_t* exec, const void* data, int32_t size);
cupvaError_t CupvaExecutableDestroy(cupvaExecutable_t exec);
cupvaError_t CupvaCmdProgramCreate(cupvaCmd_t* cmdProg, cupvaExecutable_t exec);
cupvaError_t CupvaCmdProgramAddDataFlow(cupvaCmd_t* prog, cupvaDataFlow_t* df,
                                        cupvaDataFlowType_t dfType);
cupvaError_t CupvaCmdProgramCompileDataFlows(cupvaCmd_t* cmdProg);
cupvaError_t CupvaCmdProgramGetParameter(cupvaCmd_t* cmdProg, cupvaParameter_t* parameter,
                                         const char* paramName);
cupvaError_t CupvaParameterSetValueScalar(cupvaParameter_t* parameter, const void* value,
                                          int32_t size);
cupvaError_t CupvaParameterSetValuePointer(cupvaParameter_t* parameter, const void* value);
cupvaError_t CupvaMemAlloc(void** ptr, int64_t size, cupvaMemAccessType_t accessType,
                           cupvaMemAllocType_t allocType);
cupvaError_t CupvaMemGetHostPointer(void** hostPtr, void* devicePtr);
cupvaError_t CupvaCmdDestroy(cupvaCmd_t* command);
cupvaError_t CupvaCmdBarrierInit(cupvaCmd_t* cmdBarrier);
cupvaError_t CupvaCmdRequestFencesInit(cupvaCmd_t* command, cupvaFence_t* fence, int32_t count);
cupvaError_t CupvaCmdWaitOnFencesInit(cupvaCmd_t* command, const cupvaFence_t* fence,
                                      int32_t count);
cupvaError_t CupvaStreamCreate(cupvaStream_t* stream, cupvaEngineType_t engine,
                               cupvaAffinityType_t affinity);
cupvaError_t CupvaStreamDestroy(cupvaStream_t stream);
cupvaError_t CupvaStreamSubmit(cupvaStream_t stream, const cupvaCmd_t* const* command,
                               cupvaCmdStatus_t* status, int32_t count, cupvaOrderType_t order,
                               int32_t executionTimeout, int32_t submitTimeout);
cupvaError_t CupvaCheckCommandStatus(cupvaCmdStatus_t status, cupvaError_t* errorCode);
cupvaError_t CupvaSyncObjCreate(cupvaSyncObj_t* syncObj, bool isTimeStamp,
                                cupvaSyncClientType_t clientType, cupvaSyncWaitMode_t waitMode);
cupvaError_t CupvaSyncObjDestroy(cupvaSyncObj_t syncObj);
cupvaError_t CupvaFenceInit(cupvaFence_t* fence, cupvaSyncObj_t syncObj);
cupvaError_t CupvaFenceGetTimeStamp(const cupvaFence_t* fence, uint64_t* timeStamp);
cupvaError_t CupvaFenceWait(const cupvaFence_t* fence, int64_t timeout, bool* waitSuccess);
cupvaError_t CupvaMemFillAttributes(NvSciBufAttrList sciBufAttr);
cupvaError_t CupvaMemImport(void** pvaPtr, NvSciBufObj buff, cupvaMemAccessType_t accessType);
cupvaError_t CupvaMemFree(void* devicePtr);
cupvaError_t CupvaFenceImport(cupvaFence_t* fence, const NvSciSyncFence* sciFence);
cupvaError_t CupvaFenceExport(const cupvaFence_t* fence, NvSciSyncFence* sciFence);
cupvaError_t CupvaSyncObjCreateFromNvsci(cupvaSyncObj_t* syncObj, NvSciSyncObj sciSyncObj,
                                         cupvaSyncClientType_t clientType);
cupvaError_t CupvaSyncObjFillAttributes(NvSciSyncAttrList* attrList,
                                        cupvaSyncClientType_t clientType);

/* SIL extension calls (sil/cupva; bindings/cupva-sys/src/sil.rs). */
#define CUPVA_SIL_PARAM_PTR 0u
#define CUPVA_SIL_PARAM_U32 1u
#define CUPVA_SIL_TIMING_FIXED 0u
#define CUPVA_SIL_TIMING_UNIFORM 1u
#define CUPVA_SIL_TIMING_HISTOGRAM 2u
#define CUPVA_SIL_FAULT_HANG 1u
#define CUPVA_SIL_FAULT_LATE 2u
#define CUPVA_SIL_FAULT_ERROR 3u
#define CUPVA_SIL_FAULT_CORRUPT_OUTPUT 4u
typedef struct {
    uint32_t kind;
    uint32_t numBins;
    uint64_t minNs;
    uint64_t maxNs;
    const uint64_t* binUpperNs;
    const uint32_t* binWeights;
    uint64_t seed;
} CupvaSilTimingModel;
typedef struct {
    uint32_t kind;
    uint32_t status;
    uint64_t skipPrograms;
    uint64_t count;
    uint64_t extraDelayNs;
} CupvaSilFault;
typedef struct {
    uint32_t numArgs;
    const uint32_t* kinds;
    const uint64_t* values;
    uint64_t nowNs;
} CupvaSilProgramRun;
typedef int32_t (*CupvaSilProgramModelFn)(void* user, const CupvaSilProgramRun* run);
cupvaError_t CupvaSilAllowProgram(const uint8_t* elfSha256);
cupvaError_t CupvaSilRegisterProgramModel(const char* name, const uint8_t (*elfSha256)[32],
                                          uint32_t numHashes, const char* const* paramNames,
                                          const uint32_t* kinds, uint32_t numParams,
                                          CupvaSilProgramModelFn model, void* user);
cupvaError_t CupvaSilSetTimingModel(cupvaEngineType_t engine, cupvaAffinityType_t vpu,
                                    const CupvaSilTimingModel* model);
cupvaError_t CupvaSilInjectFault(cupvaStream_t stream, const CupvaSilFault* fault);
cupvaError_t CupvaSilClearFaults(cupvaStream_t stream);

#endif
