/*
 * standalone.c: a full cuDLA standalone-mode cycle in plain C, written against api.h
 * (the documented API) and linked with -lcudla -lnvscisync -lnvscibuf. The call sequence
 * follows the documented standalone flow (api-facts section 4.6):
 *
 *   load the loadable from a file -> create the device -> load the module -> query the
 *   tensors -> allocate NvSciBuf tensors and import them -> build the CPU->DLA and DLA->CPU
 *   deterministic semaphores and import them -> CPU pre-fence -> submit -> signal the
 *   pre-fence from the CPU after the submit returned -> wait for the EOF fence -> compare
 *   the outputs with the golden output -> submit a second task whose pre-fence is never
 *   signalled and check that waiting on its EOF fence times out -> tear everything down.
 *
 * usage: standalone <loadable> <golden input> <golden output>
 * Prints PASS and exits 0, or prints FAIL (with the reason) and exits 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"

#define MAX_TENSORS 16

static int failures = 0;

#define FAIL(...)                                      \
    do {                                               \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                  \
        fprintf(stderr, "\n");                         \
        failures++;                                    \
    } while (0)

#define DLA(call)                                                                  \
    do {                                                                           \
        cudlaStatus st_ = (call);                                                  \
        if (st_ != cudlaSuccess) {                                                 \
            FAIL("%s returned cudlaStatus %d", #call, (int)st_);                   \
            goto cleanup;                                                          \
        }                                                                          \
    } while (0)

#define SCI(call)                                                                  \
    do {                                                                           \
        NvSciError e_ = (call);                                                    \
        if (e_ != NvSciError_Success) {                                            \
            FAIL("%s returned NvSciError 0x%x", #call, (unsigned)e_);              \
            goto cleanup;                                                          \
        }                                                                          \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* Reads a whole file; NULL on error. */
static uint8_t* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    uint8_t* data = NULL;
    long len;
    if (f == NULL) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    data = (uint8_t*)malloc((size_t)len);
    if (data != NULL && fread(data, 1, (size_t)len, f) != (size_t)len) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)len;
    return data;
}

/* A CPU-accessible Tensor buffer as the standalone sample allocates it. */
static NvSciError alloc_tensor(NvSciBufModule module, uint64_t size, NvSciBufObj* obj) {
    NvSciBufType type = NvSciBufType_Tensor;
    NvSciBufAttrValDataType dtype = NvSciDataType_Int8;
    uint32_t dims = 1;
    uint64_t sizes[1];
    uint32_t align[1] = {1};
    uint64_t base_align = 512;
    NvSciBufAttrValAccessPerm perm = NvSciBufAccessPerm_ReadWrite;
    bool cpu = true;
    NvSciBufAttrList list = NULL, reconciled = NULL, conflict = NULL;
    NvSciError err;
    NvSciBufAttrKeyValuePair pairs[8];

    sizes[0] = size;
    pairs[0] = (NvSciBufAttrKeyValuePair){NvSciBufGeneralAttrKey_Types, &type, sizeof(type)};
    pairs[1] = (NvSciBufAttrKeyValuePair){NvSciBufTensorAttrKey_DataType, &dtype, sizeof(dtype)};
    pairs[2] = (NvSciBufAttrKeyValuePair){NvSciBufTensorAttrKey_NumDims, &dims, sizeof(dims)};
    pairs[3] = (NvSciBufAttrKeyValuePair){NvSciBufTensorAttrKey_SizePerDim, sizes, sizeof(sizes)};
    pairs[4] = (NvSciBufAttrKeyValuePair){NvSciBufTensorAttrKey_AlignmentPerDim, align,
                                          sizeof(align)};
    pairs[5] = (NvSciBufAttrKeyValuePair){NvSciBufTensorAttrKey_BaseAddrAlign, &base_align,
                                          sizeof(base_align)};
    pairs[6] = (NvSciBufAttrKeyValuePair){NvSciBufGeneralAttrKey_RequiredPerm, &perm,
                                          sizeof(perm)};
    pairs[7] = (NvSciBufAttrKeyValuePair){NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu,
                                          sizeof(cpu)};

    err = NvSciBufAttrListCreate(module, &list);
    if (err == NvSciError_Success) {
        err = NvSciBufAttrListSetAttrs(list, pairs, 8);
    }
    if (err == NvSciError_Success) {
        err = NvSciBufAttrListReconcile(&list, 1, &reconciled, &conflict);
    }
    if (err == NvSciError_Success) {
        err = NvSciBufObjAlloc(reconciled, obj);
    }
    if (list != NULL) {
        NvSciBufAttrListFree(list);
    }
    if (reconciled != NULL) {
        NvSciBufAttrListFree(reconciled);
    }
    if (conflict != NULL) {
        NvSciBufAttrListFree(conflict);
    }
    return err;
}

/*
 * A deterministic semaphore between the CPU and the DLA. dla_flags is
 * CUDLA_NVSCISYNC_ATTR_WAIT (the CPU signals, the DLA waits) or CUDLA_NVSCISYNC_ATTR_SIGNAL
 * (the DLA signals, the CPU waits). Returns 0 on success.
 */
static int alloc_semaphore(NvSciSyncModule module, uint32_t dla_flags, NvSciSyncObj* obj) {
    NvSciSyncAttrList lists[2] = {NULL, NULL}; /* [cpu, dla] */
    NvSciSyncAttrList reconciled = NULL, conflict = NULL;
    bool cpu = true, deterministic = true;
    NvSciSyncAccessPerm perm = dla_flags == CUDLA_NVSCISYNC_ATTR_WAIT
                                   ? NvSciSyncAccessPerm_SignalOnly
                                   : NvSciSyncAccessPerm_WaitOnly;
    NvSciSyncAttrKeyValuePair cpu_pairs[3];
    NvSciSyncAttrKeyValuePair det_pair;
    int rc = 1;

    cpu_pairs[0] = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_NeedCpuAccess, &cpu, sizeof(cpu)};
    cpu_pairs[1] = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_RequiredPerm, &perm, sizeof(perm)};
    cpu_pairs[2] = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_RequireDeterministicFences,
                                               &deterministic, sizeof(deterministic)};
    det_pair = cpu_pairs[2];

    SCI(NvSciSyncAttrListCreate(module, &lists[0]));
    SCI(NvSciSyncAttrListSetAttrs(lists[0], cpu_pairs, 3));
    SCI(NvSciSyncAttrListCreate(module, &lists[1]));
    DLA(cudlaGetNvSciSyncAttributes((uint64_t*)lists[1], dla_flags));
    SCI(NvSciSyncAttrListSetAttrs(lists[1], &det_pair, 1));
    SCI(NvSciSyncAttrListReconcile(lists, 2, &reconciled, &conflict));
    SCI(NvSciSyncObjAlloc(reconciled, obj));
    rc = 0;
cleanup:
    if (lists[0] != NULL) {
        NvSciSyncAttrListFree(lists[0]);
    }
    if (lists[1] != NULL) {
        NvSciSyncAttrListFree(lists[1]);
    }
    if (reconciled != NULL) {
        NvSciSyncAttrListFree(reconciled);
    }
    if (conflict != NULL) {
        NvSciSyncAttrListFree(conflict);
    }
    return rc;
}

/* The loaded module and its imported tensors: what every task of this client runs on. */
struct tensors {
    cudlaDevHandle dev;
    cudlaModule module;
    uint64_t** in_reg;
    uint32_t num_in;
    uint64_t** out_reg;
    uint32_t num_out;
};

/* Steps 8-9 of a task: a CPU pre-fence on `wait_obj` (written to `*pre_fence`), then one
 * task over the tensors that waits on it and signals `signal_reg` with its EOF fence
 * written to `*eof_fence`. Returns 0, or -1 after reporting the failed call. */
static int submit_after_pre_fence(const struct tensors* t, NvSciSyncObj wait_obj,
                                  uint64_t* signal_reg, NvSciSyncFence* pre_fence,
                                  NvSciSyncFence* eof_fence) {
    CudlaFence pre = {pre_fence, CUDLA_NVSCISYNC_FENCE};
    CudlaFence eof = {eof_fence, CUDLA_NVSCISYNC_FENCE};
    cudlaWaitEvents wait_events = {&pre, 1};
    uint64_t* signal_ptrs[1];
    cudlaSignalEvents signal_events;
    cudlaTask task;

    signal_ptrs[0] = signal_reg;
    signal_events.devPtrs = signal_ptrs;
    signal_events.eofFences = &eof;
    signal_events.numEvents = 1;
    memset(&task, 0, sizeof(task));
    task.moduleHandle = t->module;
    task.outputTensor = t->out_reg;
    task.numOutputTensors = t->num_out;
    task.numInputTensors = t->num_in;
    task.inputTensor = (const uint64_t* const*)t->in_reg;
    task.waitEvents = &wait_events;
    task.signalEvents = &signal_events;

    SCI(NvSciSyncObjGenerateFence(wait_obj, pre_fence));
    DLA(cudlaSubmitTask(t->dev, &task, 1, NULL, 0));
    return 0;
cleanup:
    return -1;
}

int main(int argc, char** argv) {
    uint8_t *loadable = NULL, *golden_in = NULL, *golden_out = NULL;
    size_t loadable_size = 0, golden_in_size = 0, golden_out_size = 0;
    cudlaDevHandle dev = NULL;
    cudlaModule module = NULL;
    cudlaModuleAttribute attr;
    cudlaModuleTensorDescriptor* in_desc = NULL;
    cudlaModuleTensorDescriptor* out_desc = NULL;
    uint32_t num_in = 0, num_out = 0, i;
    NvSciBufModule buf_module = NULL;
    NvSciSyncModule sync_module = NULL;
    NvSciSyncCpuWaitContext wait_ctx = NULL;
    NvSciBufObj in_obj[MAX_TENSORS] = {NULL}, out_obj[MAX_TENSORS] = {NULL};
    uint64_t* in_reg[MAX_TENSORS] = {NULL};
    uint64_t* out_reg[MAX_TENSORS] = {NULL};
    uint8_t* out_cpu[MAX_TENSORS] = {NULL};
    NvSciSyncObj wait_obj = NULL, signal_obj = NULL;
    uint64_t *wait_reg = NULL, *signal_reg = NULL;
    NvSciSyncFence pre_fence = {{0}}, eof_fence = {{0}};
    NvSciSyncFence pre_fence2 = {{0}}, eof_fence2 = {{0}};
    struct tensors tensors;
    uint64_t version = 0, count = 0;
    size_t offset;
    double t0;

    if (argc != 4) {
        fprintf(stderr, "usage: %s <loadable> <golden input> <golden output>\n", argv[0]);
        return 2;
    }

    /* 1. The loadable and the golden data. */
    loadable = read_file(argv[1], &loadable_size);
    golden_in = read_file(argv[2], &golden_in_size);
    golden_out = read_file(argv[3], &golden_out_size);
    if (loadable == NULL || golden_in == NULL || golden_out == NULL) {
        FAIL("cannot read the input files");
        goto cleanup;
    }

    DLA(cudlaGetVersion(&version));
    if (version != 1002001u) {
        FAIL("cudlaGetVersion: %llu", (unsigned long long)version);
    }
    DLA(cudlaDeviceGetCount(&count));
    if (count < 1) {
        FAIL("no DLA");
        goto cleanup;
    }

    /* 2-3. Device and module. */
    DLA(cudlaCreateDevice(0, &dev, CUDLA_STANDALONE));
    DLA(cudlaModuleLoadFromMemory(dev, loadable, loadable_size, &module, 0));

    /* 4. Tensor descriptors (arrays allocated by the caller). */
    DLA(cudlaModuleGetAttributes(module, CUDLA_NUM_INPUT_TENSORS, &attr));
    num_in = attr.numInputTensors;
    DLA(cudlaModuleGetAttributes(module, CUDLA_NUM_OUTPUT_TENSORS, &attr));
    num_out = attr.numOutputTensors;
    if (num_in == 0 || num_out == 0 || num_in > MAX_TENSORS || num_out > MAX_TENSORS) {
        FAIL("tensor counts %u/%u", num_in, num_out);
        goto cleanup;
    }
    in_desc = (cudlaModuleTensorDescriptor*)calloc(num_in, sizeof(*in_desc));
    out_desc = (cudlaModuleTensorDescriptor*)calloc(num_out, sizeof(*out_desc));
    if (in_desc == NULL || out_desc == NULL) {
        FAIL("out of memory");
        goto cleanup;
    }
    attr.inputTensorDesc = in_desc;
    DLA(cudlaModuleGetAttributes(module, CUDLA_INPUT_TENSOR_DESCRIPTORS, &attr));
    attr.outputTensorDesc = out_desc;
    DLA(cudlaModuleGetAttributes(module, CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &attr));
    for (i = 0; i < num_in; i++) {
        printf("input  %u: %-16s size %6llu  %llux%llux%llux%llu\n", i, in_desc[i].name,
               (unsigned long long)in_desc[i].size, (unsigned long long)in_desc[i].n,
               (unsigned long long)in_desc[i].c, (unsigned long long)in_desc[i].h,
               (unsigned long long)in_desc[i].w);
    }
    for (i = 0; i < num_out; i++) {
        printf("output %u: %-16s size %6llu  %llux%llux%llux%llu\n", i, out_desc[i].name,
               (unsigned long long)out_desc[i].size, (unsigned long long)out_desc[i].n,
               (unsigned long long)out_desc[i].c, (unsigned long long)out_desc[i].h,
               (unsigned long long)out_desc[i].w);
    }

    /* 5. NvSciBuf tensors, imported into cuDLA, inputs filled from the golden input. */
    SCI(NvSciBufModuleOpen(&buf_module));
    offset = 0;
    for (i = 0; i < num_in; i++) {
        cudlaExternalMemoryHandleDesc desc;
        void* cpu = NULL;
        SCI(alloc_tensor(buf_module, in_desc[i].size, &in_obj[i]));
        memset(&desc, 0, sizeof(desc));
        desc.extBufObject = (const void*)in_obj[i];
        desc.size = in_desc[i].size;
        DLA(cudlaImportExternalMemory(dev, &desc, &in_reg[i], CUDLA_READ_WRITE_PERM));
        SCI(NvSciBufObjGetCpuPtr(in_obj[i], &cpu));
        if (offset + in_desc[i].size > golden_in_size) {
            FAIL("golden input too short");
            goto cleanup;
        }
        memcpy(cpu, golden_in + offset, in_desc[i].size);
        offset += in_desc[i].size;
    }
    for (i = 0; i < num_out; i++) {
        cudlaExternalMemoryHandleDesc desc;
        void* cpu = NULL;
        SCI(alloc_tensor(buf_module, out_desc[i].size, &out_obj[i]));
        memset(&desc, 0, sizeof(desc));
        desc.extBufObject = (const void*)out_obj[i];
        desc.size = out_desc[i].size;
        DLA(cudlaImportExternalMemory(dev, &desc, &out_reg[i], CUDLA_READ_WRITE_PERM));
        SCI(NvSciBufObjGetCpuPtr(out_obj[i], &cpu));
        out_cpu[i] = (uint8_t*)cpu;
        memset(cpu, 0xA5, out_desc[i].size);
    }

    /* 6-7. Semaphores: CPU signals -> DLA waits; DLA signals -> CPU waits. */
    SCI(NvSciSyncModuleOpen(&sync_module));
    if (alloc_semaphore(sync_module, CUDLA_NVSCISYNC_ATTR_WAIT, &wait_obj) != 0 ||
        alloc_semaphore(sync_module, CUDLA_NVSCISYNC_ATTR_SIGNAL, &signal_obj) != 0) {
        FAIL("semaphore set-up");
        goto cleanup;
    }
    SCI(NvSciSyncCpuWaitContextAlloc(sync_module, &wait_ctx));
    {
        cudlaExternalSemaphoreHandleDesc sdesc;
        memset(&sdesc, 0, sizeof(sdesc));
        sdesc.extSyncObject = (const void*)wait_obj;
        DLA(cudlaImportExternalSemaphore(dev, &sdesc, &wait_reg, 0));
        sdesc.extSyncObject = (const void*)signal_obj;
        DLA(cudlaImportExternalSemaphore(dev, &sdesc, &signal_reg, 0));
    }

    tensors.dev = dev;
    tensors.module = module;
    tensors.in_reg = in_reg;
    tensors.num_in = num_in;
    tensors.out_reg = out_reg;
    tensors.num_out = num_out;

    /* 8-11. First task: pre-fence from the CPU, signalled only after the submit returned. */
    {
        NvSciError werr;

        if (submit_after_pre_fence(&tensors, wait_obj, signal_reg, &pre_fence, &eof_fence) != 0) {
            goto cleanup;
        }
        /* The task waits for its pre-fence: its EOF fence must not expire yet. */
        sleep_ms(20);
        werr = NvSciSyncFenceWait(&eof_fence, wait_ctx, 0);
        if (werr != NvSciError_Timeout) {
            FAIL("EOF fence before the pre-fence was signalled: NvSciError 0x%x", (unsigned)werr);
        }
        SCI(NvSciSyncObjSignal(wait_obj));
        SCI(NvSciSyncFenceWait(&eof_fence, wait_ctx, 5000000));
        DLA(cudlaGetLastError(dev));
    }

    /* Compare with the golden output (outputs concatenated in descriptor order). */
    offset = 0;
    for (i = 0; i < num_out; i++) {
        if (offset + out_desc[i].size > golden_out_size) {
            FAIL("golden output too short");
            goto cleanup;
        }
        if (memcmp(out_cpu[i], golden_out + offset, out_desc[i].size) != 0) {
            FAIL("output %u (%s) differs from the golden output", i, out_desc[i].name);
        }
        offset += out_desc[i].size;
    }
    if (offset != golden_out_size) {
        FAIL("golden output has %zu bytes, the outputs %zu", golden_out_size, offset);
    }

    /* Second task: its pre-fence is never signalled; its EOF fence must time out cleanly. */
    {
        NvSciError werr;

        if (submit_after_pre_fence(&tensors, wait_obj, signal_reg, &pre_fence2, &eof_fence2) !=
            0) {
            goto cleanup;
        }
        werr = NvSciSyncFenceWait(&eof_fence2, wait_ctx, 100000);
        if (werr != NvSciError_Timeout) {
            FAIL("EOF fence of the blocked task: NvSciError 0x%x, expected Timeout",
                 (unsigned)werr);
        }
    }

cleanup:
    /* 12. Teardown in the documented order; destroy must return although a task waits. */
    for (i = 0; i < MAX_TENSORS; i++) {
        if (in_reg[i] != NULL && cudlaMemUnregister(dev, in_reg[i]) != cudlaSuccess) {
            FAIL("cudlaMemUnregister(input %u)", i);
        }
        if (out_reg[i] != NULL && cudlaMemUnregister(dev, out_reg[i]) != cudlaSuccess) {
            FAIL("cudlaMemUnregister(output %u)", i);
        }
    }
    if (wait_reg != NULL && cudlaMemUnregister(dev, wait_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(wait semaphore)");
    }
    if (signal_reg != NULL && cudlaMemUnregister(dev, signal_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(signal semaphore)");
    }
    for (i = 0; i < MAX_TENSORS; i++) {
        if (in_obj[i] != NULL) {
            NvSciBufObjFree(in_obj[i]);
        }
        if (out_obj[i] != NULL) {
            NvSciBufObjFree(out_obj[i]);
        }
    }
    NvSciSyncFenceClear(&pre_fence);
    NvSciSyncFenceClear(&eof_fence);
    NvSciSyncFenceClear(&pre_fence2);
    NvSciSyncFenceClear(&eof_fence2);
    if (wait_obj != NULL) {
        NvSciSyncObjFree(wait_obj);
    }
    if (signal_obj != NULL) {
        NvSciSyncObjFree(signal_obj);
    }
    if (wait_ctx != NULL) {
        NvSciSyncCpuWaitContextFree(wait_ctx);
    }
    if (sync_module != NULL) {
        NvSciSyncModuleClose(sync_module);
    }
    if (buf_module != NULL) {
        NvSciBufModuleClose(buf_module);
    }
    if (module != NULL && cudlaModuleUnload(module, 0) != cudlaSuccess) {
        FAIL("cudlaModuleUnload");
    }
    if (dev != NULL) {
        t0 = now_ms();
        if (cudlaDestroyDevice(dev) != cudlaSuccess) {
            FAIL("cudlaDestroyDevice");
        }
        if (now_ms() - t0 > 2000.0) {
            FAIL("cudlaDestroyDevice took %.0f ms", now_ms() - t0);
        }
    }
    free(in_desc);
    free(out_desc);
    free(loadable);
    free(golden_in);
    free(golden_out);

    if (failures != 0) {
        printf("FAIL (%d)\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}
