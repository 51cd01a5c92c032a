/* common.c: see common.h. */
#define _POSIX_C_SOURCE 200809L

#include "common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int failures = 0;

int finish(void) {
    if (failures != 0) {
        printf("FAIL (%d)\n", failures);
        return 1;
    }
    printf("PASS\n");
    return 0;
}

double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

uint8_t* read_file(const char* path, size_t* size) {
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

int golden_load(struct golden* g, int argc, char** argv) {
    memset(g, 0, sizeof(*g));
    if (argc < 4) {
        fprintf(stderr, "usage: %s <loadable> <golden input> <golden output> ...\n", argv[0]);
        failures++;
        return -1;
    }
    g->loadable = read_file(argv[1], &g->loadable_size);
    g->input = read_file(argv[2], &g->input_size);
    g->output = read_file(argv[3], &g->output_size);
    if (g->loadable == NULL || g->input == NULL || g->output == NULL) {
        FAIL("cannot read %s, %s or %s", argv[1], argv[2], argv[3]);
        return -1;
    }
    return 0;
}

void golden_free(struct golden* g) {
    free(g->loadable);
    free(g->input);
    free(g->output);
    memset(g, 0, sizeof(*g));
}

NvSciError alloc_tensor(NvSciBufModule module, uint64_t size, NvSciBufObj* obj) {
    NvSciBufAttrList list = NULL, reconciled = NULL, conflict = NULL;
    NvSciBufType type = NvSciBufType_Tensor;
    NvSciBufAttrValDataType dtype = NvSciDataType_Int8;
    uint32_t dims = 1;
    uint64_t sizes[1];
    uint32_t align[1] = {1};
    uint64_t base_align = 512;
    NvSciBufAttrValAccessPerm perm = NvSciBufAccessPerm_ReadWrite;
    bool cpu = true;
    NvSciBufAttrKeyValuePair pairs[8];
    NvSciError err;

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

static int import_tensor(struct dla* d, uint64_t size, NvSciBufObj* obj, uint64_t** reg,
                         uint8_t** cpu_out) {
    cudlaExternalMemoryHandleDesc desc;
    void* cpu = NULL;

    SCI(alloc_tensor(d->buf_module, size, obj));
    memset(&desc, 0, sizeof(desc));
    desc.extBufObject = (const void*)*obj;
    desc.size = size;
    DLA(cudlaImportExternalMemory(d->dev, &desc, reg, CUDLA_READ_WRITE_PERM));
    SCI(NvSciBufObjGetCpuPtr(*obj, &cpu));
    *cpu_out = (uint8_t*)cpu;
    return 0;
cleanup:
    return -1;
}

int dla_open(struct dla* d, uint64_t device, const struct golden* g) {
    cudlaModuleAttribute attr;
    size_t offset = 0;
    uint32_t i;

    memset(d, 0, sizeof(*d));
    DLA(cudlaCreateDevice(device, &d->dev, CUDLA_STANDALONE));
    DLA(cudlaModuleLoadFromMemory(d->dev, g->loadable, g->loadable_size, &d->module,
                                  CUDLA_MODULE_DEFAULT));
    DLA(cudlaModuleGetAttributes(d->module, CUDLA_NUM_INPUT_TENSORS, &attr));
    d->num_in = attr.numInputTensors;
    DLA(cudlaModuleGetAttributes(d->module, CUDLA_NUM_OUTPUT_TENSORS, &attr));
    d->num_out = attr.numOutputTensors;
    if (d->num_in == 0 || d->num_out == 0 || d->num_in > MAX_TENSORS ||
        d->num_out > MAX_TENSORS) {
        FAIL("tensor counts %u/%u", d->num_in, d->num_out);
        goto cleanup;
    }
    attr.inputTensorDesc = d->in_desc;
    DLA(cudlaModuleGetAttributes(d->module, CUDLA_INPUT_TENSOR_DESCRIPTORS, &attr));
    attr.outputTensorDesc = d->out_desc;
    DLA(cudlaModuleGetAttributes(d->module, CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &attr));

    SCI(NvSciBufModuleOpen(&d->buf_module));
    for (i = 0; i < d->num_in; i++) {
        uint8_t* cpu = NULL;
        if (import_tensor(d, d->in_desc[i].size, &d->in_obj[i], &d->in_reg[i], &cpu) != 0) {
            goto cleanup;
        }
        if (offset + d->in_desc[i].size > g->input_size) {
            FAIL("golden input too short");
            goto cleanup;
        }
        memcpy(cpu, g->input + offset, d->in_desc[i].size);
        offset += d->in_desc[i].size;
    }
    if (offset != g->input_size) {
        FAIL("golden input has %zu bytes, the inputs %zu", g->input_size, offset);
    }
    for (i = 0; i < d->num_out; i++) {
        if (import_tensor(d, d->out_desc[i].size, &d->out_obj[i], &d->out_reg[i],
                          &d->out_cpu[i]) != 0) {
            goto cleanup;
        }
    }
    dla_poison_outputs(d);
    return 0;
cleanup:
    return -1;
}

void dla_poison_outputs(struct dla* d) {
    uint32_t i;
    for (i = 0; i < d->num_out; i++) {
        if (d->out_cpu[i] != NULL) {
            memset(d->out_cpu[i], 0xA5, d->out_desc[i].size);
        }
    }
}

int dla_check_outputs(const struct dla* d, const struct golden* g, const char* what) {
    size_t offset = 0;
    uint32_t i;
    int differing = 0;
    for (i = 0; i < d->num_out; i++) {
        if (offset + d->out_desc[i].size > g->output_size) {
            FAIL("%s: golden output too short", what);
            return differing + 1;
        }
        if (memcmp(d->out_cpu[i], g->output + offset, d->out_desc[i].size) != 0) {
            FAIL("%s: output %u (%s) differs from the golden output", what, i,
                 d->out_desc[i].name);
            differing++;
        }
        offset += d->out_desc[i].size;
    }
    if (offset != g->output_size) {
        FAIL("%s: golden output has %zu bytes, the outputs %zu", what, g->output_size, offset);
        differing++;
    }
    return differing;
}

void dla_task(const struct dla* d, cudlaTask* task) {
    memset(task, 0, sizeof(*task));
    task->moduleHandle = d->module;
    task->outputTensor = d->out_reg;
    task->numOutputTensors = d->num_out;
    task->numInputTensors = d->num_in;
    task->inputTensor = (const uint64_t* const*)d->in_reg;
}

void dla_close(struct dla* d) {
    uint32_t i;
    for (i = 0; i < MAX_TENSORS; i++) {
        if (d->in_reg[i] != NULL && cudlaMemUnregister(d->dev, d->in_reg[i]) != cudlaSuccess) {
            FAIL("cudlaMemUnregister(input %u)", i);
        }
        if (d->out_reg[i] != NULL && cudlaMemUnregister(d->dev, d->out_reg[i]) != cudlaSuccess) {
            FAIL("cudlaMemUnregister(output %u)", i);
        }
        if (d->in_obj[i] != NULL) {
            NvSciBufObjFree(d->in_obj[i]);
        }
        if (d->out_obj[i] != NULL) {
            NvSciBufObjFree(d->out_obj[i]);
        }
    }
    if (d->buf_module != NULL) {
        NvSciBufModuleClose(d->buf_module);
    }
    if (d->module != NULL && cudlaModuleUnload(d->module, 0) != cudlaSuccess) {
        FAIL("cudlaModuleUnload");
    }
    if (d->dev != NULL) {
        double t0 = now_ms();
        if (cudlaDestroyDevice(d->dev) != cudlaSuccess) {
            FAIL("cudlaDestroyDevice");
        }
        if (now_ms() - t0 > 2000.0) {
            FAIL("cudlaDestroyDevice took %.0f ms", now_ms() - t0);
        }
    }
    memset(d, 0, sizeof(*d));
}

int alloc_sync(NvSciSyncModule module, uint32_t dla_flags, bool deterministic, bool timestamps,
               NvSciSyncObj* obj) {
    NvSciSyncAttrList lists[2] = {NULL, NULL}; /* [cpu, dla] */
    NvSciSyncAttrList reconciled = NULL, conflict = NULL;
    bool yes = true;
    bool cpu_waits = dla_flags == CUDLA_NVSCISYNC_ATTR_SIGNAL;
    NvSciSyncAccessPerm perm =
        cpu_waits ? NvSciSyncAccessPerm_WaitOnly : NvSciSyncAccessPerm_SignalOnly;
    NvSciSyncAttrKeyValuePair cpu_pairs[4];
    NvSciSyncAttrKeyValuePair det_pair = {NvSciSyncAttrKey_RequireDeterministicFences, &yes,
                                          sizeof(yes)};
    size_t n = 0;
    int rc = -1;

    cpu_pairs[n++] = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_NeedCpuAccess, &yes, sizeof(yes)};
    cpu_pairs[n++] = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_RequiredPerm, &perm, sizeof(perm)};
    if (deterministic) {
        cpu_pairs[n++] = det_pair;
    }
    if (timestamps && cpu_waits) {
        cpu_pairs[n++] = (NvSciSyncAttrKeyValuePair){NvSciSyncAttrKey_WaiterRequireTimestamps,
                                                     &yes, sizeof(yes)};
    }

    SCI(NvSciSyncAttrListCreate(module, &lists[0]));
    SCI(NvSciSyncAttrListSetAttrs(lists[0], cpu_pairs, n));
    SCI(NvSciSyncAttrListCreate(module, &lists[1]));
    DLA(cudlaGetNvSciSyncAttributes((uint64_t*)lists[1], dla_flags));
    if (deterministic) {
        SCI(NvSciSyncAttrListSetAttrs(lists[1], &det_pair, 1));
    }
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

int sync_primitive(NvSciSyncObj obj) {
    NvSciSyncAttrList list = NULL;
    const void* value = NULL;
    size_t len = 0;
    SCI(NvSciSyncObjGetAttrList(obj, &list));
    SCI(NvSciSyncAttrListGetAttr(list, NvSciSyncAttrKey_PrimitiveInfo, &value, &len));
    if (value == NULL || len < sizeof(NvSciSyncAttrValPrimitiveType)) {
        FAIL("reconciled PrimitiveInfo is empty (len %zu)", len);
        goto cleanup;
    }
    return (int)*(const NvSciSyncAttrValPrimitiveType*)value;
cleanup:
    return -1;
}

int fence_id_value(const NvSciSyncFence* fence, uint64_t* id, uint64_t* value) {
    SCI(NvSciSyncFenceExtractFence(fence, id, value));
    return 0;
cleanup:
    return -1;
}

int sync_pair_open(struct sync_pair* s, cudlaDevHandle dev, bool deterministic, bool timestamps) {
    cudlaExternalSemaphoreHandleDesc sdesc;
    memset(s, 0, sizeof(*s));
    s->dev = dev;
    SCI(NvSciSyncModuleOpen(&s->module));
    if (alloc_sync(s->module, CUDLA_NVSCISYNC_ATTR_WAIT, deterministic, false, &s->wait_obj) !=
            0 ||
        alloc_sync(s->module, CUDLA_NVSCISYNC_ATTR_SIGNAL, deterministic, timestamps,
                   &s->signal_obj) != 0) {
        goto cleanup;
    }
    SCI(NvSciSyncCpuWaitContextAlloc(s->module, &s->ctx));
    memset(&sdesc, 0, sizeof(sdesc));
    sdesc.extSyncObject = (const void*)s->wait_obj;
    DLA(cudlaImportExternalSemaphore(dev, &sdesc, &s->wait_reg, 0));
    sdesc.extSyncObject = (const void*)s->signal_obj;
    DLA(cudlaImportExternalSemaphore(dev, &sdesc, &s->signal_reg, 0));
    return 0;
cleanup:
    return -1;
}

void sync_pair_close(struct sync_pair* s) {
    if (s->wait_reg != NULL && cudlaMemUnregister(s->dev, s->wait_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(wait semaphore)");
    }
    if (s->signal_reg != NULL && cudlaMemUnregister(s->dev, s->signal_reg) != cudlaSuccess) {
        FAIL("cudlaMemUnregister(signal semaphore)");
    }
    if (s->wait_obj != NULL) {
        NvSciSyncObjFree(s->wait_obj);
    }
    if (s->signal_obj != NULL) {
        NvSciSyncObjFree(s->signal_obj);
    }
    if (s->ctx != NULL) {
        NvSciSyncCpuWaitContextFree(s->ctx);
    }
    if (s->module != NULL) {
        NvSciSyncModuleClose(s->module);
    }
    memset(s, 0, sizeof(*s));
}

cudlaStatus sync_pair_run(struct sync_pair* s, cudlaTask* task, uint32_t flags,
                          NvSciSyncFence* eof) {
    NvSciSyncFence pre = {{0}};
    CudlaFence pre_f = {&pre, CUDLA_NVSCISYNC_FENCE};
    CudlaFence eof_f = {eof, CUDLA_NVSCISYNC_FENCE};
    cudlaWaitEvents we = {&pre_f, 1};
    uint64_t* sig[1];
    cudlaSignalEvents se;
    cudlaStatus st = cudlaErrorUnknown;

    sig[0] = s->signal_reg;
    se.devPtrs = sig;
    se.eofFences = &eof_f;
    se.numEvents = 1;
    task->waitEvents = &we;
    task->signalEvents = &se;
    SCI(NvSciSyncObjGenerateFence(s->wait_obj, &pre));
    st = cudlaSubmitTask(s->dev, task, 1, NULL, flags);
    SCI(NvSciSyncObjSignal(s->wait_obj));
cleanup:
    NvSciSyncFenceClear(&pre);
    task->waitEvents = NULL;
    task->signalEvents = NULL;
    return st;
}

int sync_pair_submit_after_pre_fence(const struct dla* d, const struct sync_pair* s,
                                     NvSciSyncFence* pre, NvSciSyncFence* eof) {
    CudlaFence pre_f = {pre, CUDLA_NVSCISYNC_FENCE};
    CudlaFence eof_f = {eof, CUDLA_NVSCISYNC_FENCE};
    cudlaWaitEvents wait_events = {&pre_f, 1};
    uint64_t* signal_ptrs[1];
    cudlaSignalEvents signal_events;
    cudlaTask task;

    signal_ptrs[0] = s->signal_reg;
    signal_events.devPtrs = signal_ptrs;
    signal_events.eofFences = &eof_f;
    signal_events.numEvents = 1;
    dla_task(d, &task);
    task.waitEvents = &wait_events;
    task.signalEvents = &signal_events;

    SCI(NvSciSyncObjGenerateFence(s->wait_obj, pre));
    DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0));
    return 0;
cleanup:
    return -1;
}
