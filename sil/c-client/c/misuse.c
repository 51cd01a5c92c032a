/*
 * misuse.c: wrong flags, NULL out-pointers, freed handles and stale fences, each answered
 * with the error code the documentation gives (cudla.h 1.5 for cuDLA: the return lists and
 * the conditions stated in each function's text; nvscisync.h / nvscibuf.h for NvSci). Where
 * the vendor library is documented to panic (NvSci calls on freed handles), the SIL answers
 * NvSciError_BadParameter as sil/README.md records; those checks are marked "SIL".
 * Between the misuses a correct task still runs and matches the golden output: no misuse
 * damages the state.
 *
 * usage: misuse <loadable> <golden input> <golden output>
 */
#include <string.h>

#include "common.h"

static void check_cudla_arguments(struct dla* d, const struct golden* g) {
    cudlaDevHandle dev2 = NULL;
    cudlaModule mod2 = NULL;
    cudlaModuleAttribute attr;
    cudlaDevAttribute dattr;
    uint64_t count = 0;
    uint64_t* reg = NULL;
    cudlaExternalMemoryHandleDesc mdesc;

    /* NULL out-pointers: cudlaErrorInvalidParam. */
    EXPECT_DLA(cudlaGetVersion(NULL), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaDeviceGetCount(NULL), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaCreateDevice(0, NULL, CUDLA_STANDALONE), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaModuleLoadFromMemory(d->dev, g->loadable, g->loadable_size, NULL, 0),
               cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaModuleGetAttributes(d->module, CUDLA_NUM_INPUT_TENSORS, NULL),
               cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaDeviceGetAttribute(d->dev, CUDLA_DEVICE_VERSION, NULL),
               cudlaErrorInvalidParam);
    memset(&mdesc, 0, sizeof(mdesc));
    mdesc.extBufObject = (const void*)d->in_obj[0];
    mdesc.size = d->in_desc[0].size;
    EXPECT_DLA(cudlaImportExternalMemory(d->dev, &mdesc, NULL, 0), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaImportExternalMemory(d->dev, NULL, &reg, 0), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaGetNvSciSyncAttributes(NULL, CUDLA_NVSCISYNC_ATTR_WAIT),
               cudlaErrorInvalidParam);

    /* Wrong flags and values. */
    if (cudlaDeviceGetCount(&count) == cudlaSuccess) {
        /* "device - Device number (can be 0 or 1)": the return list has InvalidParam and no
         * InvalidDevice (which the enum describes as an invalid device *handle*). */
        EXPECT_DLA(cudlaCreateDevice(count, &dev2, CUDLA_STANDALONE), cudlaErrorInvalidParam);
    }
    EXPECT_DLA(cudlaCreateDevice(0, &dev2, 0x100), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaModuleLoadFromMemory(d->dev, g->loadable, g->loadable_size, &mod2, 0x2),
               cudlaErrorInvalidParam);
    /* "Multiple loadables are not allowed to load onto single cuDLA device handle." */
    EXPECT_DLA(cudlaModuleLoadFromMemory(d->dev, g->loadable, g->loadable_size, &mod2, 0),
               cudlaErrorUnsupportedOperation);
    EXPECT_DLA(cudlaModuleGetAttributes(d->module, (cudlaModuleAttributeType)99, &attr),
               cudlaErrorInvalidAttribute);
    EXPECT_DLA(cudlaDeviceGetAttribute(d->dev, (cudlaDevAttributeType)99, &dattr),
               cudlaErrorInvalidAttribute);
    EXPECT_DLA(cudlaModuleUnload(d->module, 1), cudlaErrorInvalidParam); /* "Must be 0" */
    EXPECT_DLA(cudlaImportExternalMemory(d->dev, &mdesc, &reg, 0x10), cudlaErrorInvalidParam);
    /* The same memory again: MemoryRegistered ("already registered"). */
    EXPECT_DLA(cudlaImportExternalMemory(d->dev, &mdesc, &reg, 0), cudlaErrorMemoryRegistered);
    /* "timeout is 0 or ... greater than 1000 sec": InvalidParam; so is an invalid handle. */
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(d->dev, 0), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(d->dev, 1000001), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(NULL, 100), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaSetTaskTimeoutInMs(d->dev, 1000000), cudlaSuccess);

    /* Freed handles. */
    if (cudlaCreateDevice(0, &dev2, CUDLA_STANDALONE) == cudlaSuccess) {
        EXPECT_DLA(cudlaDestroyDevice(dev2), cudlaSuccess);
        EXPECT_DLA(cudlaGetLastError(dev2), cudlaErrorInvalidDevice);
        EXPECT_DLA(cudlaDestroyDevice(dev2), cudlaErrorInvalidDevice);
        EXPECT_DLA(cudlaSetTaskTimeoutInMs(dev2, 100), cudlaErrorInvalidParam);
    } else {
        FAIL("second device handle");
    }
    if (cudlaCreateDevice(0, &dev2, CUDLA_STANDALONE) == cudlaSuccess) {
        cudlaStatus st;
        if (cudlaModuleLoadFromMemory(dev2, g->loadable, g->loadable_size, &mod2, 0) ==
            cudlaSuccess) {
            EXPECT_DLA(cudlaModuleUnload(mod2, 0), cudlaSuccess);
            /* "returns cudlaErrorInvalidDevice if the module is not loaded in any device";
             * the return list also has InvalidModule: either is documented. */
            st = cudlaModuleGetAttributes(mod2, CUDLA_NUM_INPUT_TENSORS, &attr);
            CHECK(st == cudlaErrorInvalidDevice || st == cudlaErrorInvalidModule,
                  "cudlaModuleGetAttributes on an unloaded module: %d", (int)st);
            st = cudlaModuleUnload(mod2, 0);
            CHECK(st == cudlaErrorInvalidDevice || st == cudlaErrorInvalidModule,
                  "second cudlaModuleUnload: %d", (int)st);
        } else {
            FAIL("module load on the second handle");
        }
        EXPECT_DLA(cudlaDestroyDevice(dev2), cudlaSuccess);
    }
}

static void check_submit_misuse(struct dla* d, struct sync_pair* s) {
    NvSciSyncFence pre = {{0}}, eof = {{0}};
    CudlaFence pre_f = {&pre, CUDLA_NVSCISYNC_FENCE_SOF};
    cudlaWaitEvents we = {&pre_f, 1};
    cudlaTask task, tasks[2];
    uint64_t bogus[4] = {0};
    uint64_t* bogus_out[MAX_TENSORS];
    uint32_t i;

    dla_task(d, &task);
    /* "In standalone mode, this parameter must be passed as NULL ... cudlaErrorInvalidParam" */
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, (void*)&task, 0), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaSubmitTask(d->dev, NULL, 1, NULL, 0), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 0, NULL, 0), cudlaErrorInvalidParam);
    /* A tensor that was never imported: cudlaErrorInvalidAddress. */
    for (i = 0; i < d->num_out; i++) {
        bogus_out[i] = d->out_reg[i];
    }
    bogus_out[0] = bogus;
    task.outputTensor = bogus_out;
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorInvalidAddress);
    /* cudlaSubmitTask returns cudlaErrorUnsupportedOperation if "inputTensor is NULL and
     * outputTensor is not NULL and vice versa", if event-only tasks are submitted with a
     * task count other than 1, and if a "fence type other than CUDLA_NVSCISYNC_FENCE" is
     * given (for wait events: SOF fences are signal events). */
    dla_task(d, &task);
    task.inputTensor = NULL;
    EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorUnsupportedOperation);
    memset(tasks, 0, sizeof(tasks));
    tasks[0].moduleHandle = d->module;
    tasks[1].moduleHandle = d->module;
    EXPECT_DLA(cudlaSubmitTask(d->dev, tasks, 2, NULL, 0), cudlaErrorUnsupportedOperation);
    if (NvSciSyncObjGenerateFence(s->wait_obj, &pre) == NvSciError_Success) {
        dla_task(d, &task);
        task.waitEvents = &we;
        EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorUnsupportedOperation);
        EXPECT_SCI(NvSciSyncObjSignal(s->wait_obj), NvSciError_Success);
    } else {
        FAIL("NvSciSyncObjGenerateFence");
    }
    /* "cuDLA supports 1 sync point and any number of semaphores as part of
     * cudlaSignalEvents. If more than 1 sync point is specified, cudlaErrorInvalidParam". */
    {
        NvSciSyncObj sp[2] = {NULL, NULL};
        uint64_t* sp_reg[2] = {NULL, NULL};
        NvSciSyncFence spf[2] = {{{0}}, {{0}}};
        CudlaFence fences[2] = {{&spf[0], CUDLA_NVSCISYNC_FENCE}, {&spf[1], CUDLA_NVSCISYNC_FENCE}};
        uint64_t* sig[2];
        cudlaSignalEvents se;
        int k;
        for (k = 0; k < 2; k++) {
            cudlaExternalSemaphoreHandleDesc sdesc;
            if (alloc_sync(s->module, CUDLA_NVSCISYNC_ATTR_SIGNAL, false, false, &sp[k]) != 0) {
                break;
            }
            CHECK(sync_primitive(sp[k]) == NvSciSyncAttrValPrimitiveType_Syncpoint,
                  "default DLA->CPU object is not a sync point");
            sdesc.extSyncObject = (const void*)sp[k];
            EXPECT_DLA(cudlaImportExternalSemaphore(d->dev, &sdesc, &sp_reg[k], 0), cudlaSuccess);
        }
        if (sp_reg[0] != NULL && sp_reg[1] != NULL) {
            sig[0] = sp_reg[0];
            sig[1] = sp_reg[1];
            se.devPtrs = sig;
            se.eofFences = fences;
            se.numEvents = 2;
            dla_task(d, &task);
            task.signalEvents = &se;
            EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaErrorInvalidParam);
            /* One sync point and one semaphore are fine (the semaphore signals too). */
            sig[1] = s->signal_reg;
            EXPECT_DLA(cudlaSubmitTask(d->dev, &task, 1, NULL, 0), cudlaSuccess);
            EXPECT_SCI(NvSciSyncFenceWait(&spf[0], s->ctx, 5000000), NvSciError_Success);
            EXPECT_SCI(NvSciSyncFenceWait(&spf[1], s->ctx, 5000000), NvSciError_Success);
            EXPECT_DLA(cudlaGetLastError(d->dev), cudlaSuccess);
        }
        for (k = 0; k < 2; k++) {
            NvSciSyncFenceClear(&spf[k]);
        }
        for (k = 0; k < 2; k++) {
            if (sp_reg[k] != NULL) {
                EXPECT_DLA(cudlaMemUnregister(d->dev, sp_reg[k]), cudlaSuccess);
            }
            if (sp[k] != NULL) {
                NvSciSyncObjFree(sp[k]);
            }
        }
    }

    /* Nothing of the refused submissions runs: a correct task still completes alone. */
    dla_task(d, &task);
    EXPECT_DLA(sync_pair_run(s, &task, 0, &eof), cudlaSuccess);
    EXPECT_SCI(NvSciSyncFenceWait(&eof, s->ctx, 5000000), NvSciError_Success);
    EXPECT_DLA(cudlaGetLastError(d->dev), cudlaSuccess);
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof);
}

static void check_nvsci_misuse(struct dla* d, struct sync_pair* s) {
    NvSciSyncModule m = NULL;
    NvSciSyncAttrList list = NULL, lists[2] = {NULL, NULL}, rec = NULL, conflict = NULL;
    NvSciSyncObj obj = NULL;
    NvSciSyncFence f = {{0}}, copy = {{0}}, cleared = {{0}};
    NvSciBufObj buf = NULL;
    uint64_t id = 0, value = 0, ts = 0;
    void* cpu = NULL;
    NvSciSyncAccessPerm signal = NvSciSyncAccessPerm_SignalOnly;
    NvSciSyncAttrKeyValuePair perm = {NvSciSyncAttrKey_RequiredPerm, &signal, sizeof(signal)};

    /* NULL out-pointers and bad arguments: BadParameter (nvscisync.h / nvscibuf.h). */
    EXPECT_SCI(NvSciSyncModuleOpen(NULL), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncAttrListCreate(s->module, NULL), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncObjGenerateFence(s->wait_obj, NULL), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncCpuWaitContextAlloc(s->module, NULL), NvSciError_BadParameter);
    EXPECT_SCI(NvSciBufObjGetCpuPtr(d->out_obj[0], NULL), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncFenceWait(NULL, s->ctx, 0), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncFenceWait(&cleared, s->ctx, -2), NvSciError_BadParameter);
    /* A cleared fence: expired for a wait, ClearedFence for extraction and timestamps. */
    EXPECT_SCI(NvSciSyncFenceWait(&cleared, s->ctx, 0), NvSciError_Success);
    EXPECT_SCI(NvSciSyncFenceExtractFence(&cleared, &id, &value), NvSciError_ClearedFence);
    EXPECT_SCI(NvSciSyncFenceGetTimestamp(&cleared, &ts), NvSciError_ClearedFence);
    EXPECT_SCI(NvSciSyncFenceDup(&cleared, &cleared), NvSciError_BadParameter);

    /* Permissions: the CPU waits on the DLA->CPU object and signals the CPU->DLA one. */
    EXPECT_SCI(NvSciSyncObjSignal(s->signal_obj), NvSciError_BadParameter);
    EXPECT_SCI(NvSciSyncObjGenerateFence(s->signal_obj, &f), NvSciError_BadParameter);
    if (NvSciSyncObjGenerateFence(s->wait_obj, &f) == NvSciError_Success) {
        EXPECT_SCI(NvSciSyncFenceWait(&f, s->ctx, 0), NvSciError_BadParameter);
        EXPECT_SCI(NvSciSyncObjSignal(s->wait_obj), NvSciError_Success);
        NvSciSyncFenceClear(&f);
    }

    /* Reconciliation misuse: an unreconciled list cannot allocate; two signalers conflict
     * and the conflict list is written (and freed by the caller). */
    if (NvSciSyncAttrListCreate(s->module, &lists[0]) == NvSciError_Success &&
        NvSciSyncAttrListCreate(s->module, &lists[1]) == NvSciError_Success) {
        EXPECT_SCI(NvSciSyncObjAlloc(lists[0], &obj), NvSciError_BadParameter);
        EXPECT_SCI(NvSciSyncAttrListSetAttrs(lists[0], &perm, 1), NvSciError_Success);
        EXPECT_SCI(NvSciSyncAttrListSetAttrs(lists[1], &perm, 1), NvSciError_Success);
        EXPECT_SCI(NvSciSyncAttrListReconcile(lists, 2, &rec, &conflict),
                   NvSciError_ReconciliationFailed);
        CHECK(conflict != NULL, "no conflict list after ReconciliationFailed");
        /* On success the conflict list out-parameter is NULL: freeing it frees nothing. */
        {
            NvSciSyncAttrList ok_lists[2] = {NULL, NULL}, ok_rec = NULL;
            NvSciSyncAttrList ok_conflict = (NvSciSyncAttrList)(uintptr_t)0x8; /* garbage */
            NvSciSyncAccessPerm wait = NvSciSyncAccessPerm_WaitOnly;
            NvSciSyncAttrKeyValuePair wperm = {NvSciSyncAttrKey_RequiredPerm, &wait,
                                               sizeof(wait)};
            if (NvSciSyncAttrListCreate(s->module, &ok_lists[0]) == NvSciError_Success &&
                NvSciSyncAttrListCreate(s->module, &ok_lists[1]) == NvSciError_Success &&
                NvSciSyncAttrListSetAttrs(ok_lists[0], &perm, 1) == NvSciError_Success &&
                NvSciSyncAttrListSetAttrs(ok_lists[1], &wperm, 1) == NvSciError_Success) {
                EXPECT_SCI(NvSciSyncAttrListReconcile(ok_lists, 2, &ok_rec, &ok_conflict),
                           NvSciError_Success);
                CHECK(ok_conflict == NULL, "conflict list after a successful reconcile: %p",
                      (void*)ok_conflict);
            } else {
                FAIL("lists for a successful reconcile");
            }
            if (ok_rec != NULL) {
                NvSciSyncAttrListFree(ok_rec);
            }
            for (int i = 0; i < 2; i++) {
                if (ok_lists[i] != NULL) {
                    NvSciSyncAttrListFree(ok_lists[i]);
                }
            }
        }
        /* cudlaGetNvSciSyncAttributes sets RequiredPerm itself: a list that has it is
         * refused ("setting this value by the application is disallowed"). */
        EXPECT_DLA(cudlaGetNvSciSyncAttributes((uint64_t*)lists[0], CUDLA_NVSCISYNC_ATTR_WAIT),
                   cudlaErrorInvalidParam);
    } else {
        FAIL("NvSciSyncAttrListCreate");
    }
    EXPECT_DLA(cudlaGetNvSciSyncAttributes((uint64_t*)lists[1], 0), cudlaErrorInvalidParam);
    if (NvSciSyncAttrListCreate(s->module, &list) == NvSciError_Success) {
        EXPECT_DLA(cudlaGetNvSciSyncAttributes((uint64_t*)list, 4), cudlaErrorInvalidParam);
        NvSciSyncAttrListFree(list);
    }
    /* cudlaImportExternalSemaphore: "flags - Reserved for future. Must be set to 0." */
    {
        cudlaExternalSemaphoreHandleDesc sdesc = {(const void*)s->signal_obj};
        uint64_t* reg = NULL;
        EXPECT_DLA(cudlaImportExternalSemaphore(d->dev, &sdesc, &reg, 1), cudlaErrorInvalidParam);
        EXPECT_DLA(cudlaImportExternalSemaphore(d->dev, &sdesc, NULL, 0), cudlaErrorInvalidParam);
    }

    /* SIL: freed handles and stale fences are reported, not crashes. A byte copy of a fence
     * outlives the object once the last real reference is gone. */
    if (alloc_sync(s->module, CUDLA_NVSCISYNC_ATTR_WAIT, true, false, &obj) == 0) {
        if (NvSciSyncObjGenerateFence(obj, &f) == NvSciError_Success) {
            memcpy(&copy, &f, sizeof(f));
            NvSciSyncObjFree(obj);
            /* The fence still holds the object. */
            EXPECT_SCI(NvSciSyncFenceExtractFence(&f, &id, &value), NvSciError_Success);
            NvSciSyncFenceClear(&f);
            EXPECT_SCI(NvSciSyncFenceWait(&copy, s->ctx, 0), NvSciError_BadParameter);
            EXPECT_SCI(NvSciSyncFenceExtractFence(&copy, &id, &value), NvSciError_BadParameter);
        } else {
            FAIL("NvSciSyncObjGenerateFence");
            NvSciSyncObjFree(obj);
        }
        EXPECT_SCI(NvSciSyncObjSignal(obj), NvSciError_BadParameter);
    }
    if (NvSciSyncModuleOpen(&m) == NvSciError_Success) {
        NvSciSyncModuleClose(m);
        EXPECT_SCI(NvSciSyncAttrListCreate(m, &list), NvSciError_BadParameter);
    }
    if (alloc_tensor(d->buf_module, 64, &buf) == NvSciError_Success) {
        NvSciBufObjFree(buf);
        EXPECT_SCI(NvSciBufObjGetCpuPtr(buf, &cpu), NvSciError_BadParameter);
    } else {
        FAIL("alloc_tensor");
    }
    /* cuDLA with a freed NvSciBuf object: refused, nothing imported. */
    {
        cudlaExternalMemoryHandleDesc mdesc = {(const void*)buf, 64};
        uint64_t* reg = NULL;
        cudlaStatus st = cudlaImportExternalMemory(d->dev, &mdesc, &reg, 0);
        CHECK(st != cudlaSuccess, "cudlaImportExternalMemory of a freed NvSciBuf object succeeded");
    }

    for (int i = 0; i < 2; i++) {
        if (lists[i] != NULL) {
            NvSciSyncAttrListFree(lists[i]);
        }
    }
    if (rec != NULL) {
        NvSciSyncAttrListFree(rec);
    }
    if (conflict != NULL) {
        NvSciSyncAttrListFree(conflict);
    }
    NvSciSyncFenceClear(&f);
}

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    struct sync_pair s;
    NvSciSyncFence eof = {{0}};
    cudlaTask task;
    uint64_t* unregistered = NULL;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0 ||
        sync_pair_open(&s, d.dev, true, false) != 0) {
        goto cleanup;
    }
    check_cudla_arguments(&d, &g);
    check_submit_misuse(&d, &s);
    check_nvsci_misuse(&d, &s);

    /* After all that, a task still produces the golden output. */
    dla_poison_outputs(&d);
    dla_task(&d, &task);
    DLA(sync_pair_run(&s, &task, 0, &eof));
    SCI(NvSciSyncFenceWait(&eof, s.ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "task after the misuses");

    /* Unregistering twice: cudlaErrorInvalidAddress the second time. */
    unregistered = d.in_reg[0];
    DLA(cudlaMemUnregister(d.dev, unregistered));
    d.in_reg[0] = NULL;
    EXPECT_DLA(cudlaMemUnregister(d.dev, unregistered), cudlaErrorInvalidAddress);
    /* A task on the unregistered tensor: cudlaErrorInvalidAddress. */
    {
        uint64_t* in[MAX_TENSORS];
        memcpy(in, d.in_reg, sizeof(in));
        in[0] = unregistered;
        dla_task(&d, &task);
        task.inputTensor = (const uint64_t* const*)in;
        EXPECT_DLA(cudlaSubmitTask(d.dev, &task, 1, NULL, 0), cudlaErrorInvalidAddress);
    }

cleanup:
    NvSciSyncFenceClear(&eof);
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
