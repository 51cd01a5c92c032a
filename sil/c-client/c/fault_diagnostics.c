/*
 * fault_diagnostics.c: permanent-fault diagnostics of the DLA (cudla.h 1.5).
 *
 * A second device handle loads the internal diagnostics module
 * (cudlaModuleLoadFromMemory with CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS, pModule NULL and
 * moduleSize 0), the application queries its output tensors, allocates and imports them, and
 * submits a task with CUDLA_SUBMIT_DIAGNOSTICS_TASK: no input tensors, its output tensors,
 * the usual wait and signal events. After the EOF fence, cudlaGetLastError reports the
 * result. Meanwhile the first handle runs the AEB loadable and still matches the golden
 * output. The documented refusals: inputs with the diagnostics flag, or no outputs
 * (cudlaErrorUnsupportedOperation).
 *
 * The vendor's diagnostics result is not public; the SIL's is a 64-byte record
 * (sil/README.md, cuDLA "Fault diagnostics"; all little-endian): magic "SILDIAG\1", layout
 * version 1, verdict (0 pass, 1 permanent fault), DLA instance, checks run, failed-check mask,
 * reserved, task sequence number, start and end (ns), FNV-1a 64 of bytes 0..56. A clean run
 * must pass; after the SIL extension injects a permanent fault (CUDLA_SIL_FAULT_PERMANENT
 * with a failed-check mask), the next run reports it.
 *
 * usage: fault_diagnostics <loadable> <golden input> <golden output>
 */
#include <string.h>

#include "common.h"

#define DIAG_RESULT_LEN 64u

static uint32_t le32(const uint8_t* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t* p) {
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint64_t fnv1a64(const uint8_t* p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x00000100000001b3ull;
    }
    return h;
}

/* Checks one diagnostics result: layout, checksum, verdict and failed-check mask. */
static void check_result(const uint8_t* r, uint32_t expected_mask, uint64_t* seq) {
    CHECK(memcmp(r, "SILDIAG\001", 8) == 0, "diagnostics result: bad magic");
    CHECK(le32(r + 8) == 1u, "diagnostics result: layout version %u", le32(r + 8));
    CHECK(le64(r + 56) == fnv1a64(r, 56), "diagnostics result: bad checksum");
    CHECK(le32(r + 12) == (expected_mask == 0 ? 0u : 1u), "diagnostics verdict %u, mask %#x",
          le32(r + 12), le32(r + 24));
    CHECK(le32(r + 24) == expected_mask, "failed-check mask %#x, expected %#x", le32(r + 24),
          expected_mask);
    CHECK(le32(r + 16) == 0u, "diagnostics ran on DLA %u, the handle is on DLA 0", le32(r + 16));
    CHECK(le32(r + 20) > 0u, "no diagnostics checks run");
    CHECK(le64(r + 48) >= le64(r + 40), "diagnostics end before start");
    *seq = le64(r + 32);
}

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    struct sync_pair s, ds;
    cudlaDevHandle diag = NULL;
    cudlaModule diag_mod = NULL;
    cudlaModuleAttribute attr;
    cudlaModuleTensorDescriptor out_desc[MAX_TENSORS];
    NvSciBufModule buf_module = NULL;
    NvSciBufObj out_obj[MAX_TENSORS];
    uint64_t* out_reg[MAX_TENSORS];
    uint8_t* out_cpu[MAX_TENSORS];
    uint32_t num_in = 0, num_out = 0, i;
    NvSciSyncFence eof = {{0}}, diag_eof = {{0}};
    cudlaTask task;
    size_t b;
    uint64_t seq1 = 0, seq2 = 0;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    memset(&ds, 0, sizeof(ds));
    memset(out_obj, 0, sizeof(out_obj));
    memset(out_reg, 0, sizeof(out_reg));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0 ||
        sync_pair_open(&s, d.dev, false, false) != 0) {
        goto cleanup;
    }

    /* The diagnostics module on its own handle. */
    DLA(cudlaCreateDevice(0, &diag, CUDLA_STANDALONE));
    EXPECT_DLA(cudlaModuleLoadFromMemory(diag, g.loadable, g.loadable_size, &diag_mod,
                                         CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS),
               cudlaErrorInvalidParam);
    DLA(cudlaModuleLoadFromMemory(diag, NULL, 0, &diag_mod, CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS));
    DLA(cudlaModuleGetAttributes(diag_mod, CUDLA_NUM_INPUT_TENSORS, &attr));
    num_in = attr.numInputTensors;
    CHECK(num_in == 0, "the diagnostics module has %u inputs (it expects none)", num_in);
    DLA(cudlaModuleGetAttributes(diag_mod, CUDLA_NUM_OUTPUT_TENSORS, &attr));
    num_out = attr.numOutputTensors;
    if (num_out == 0 || num_out > MAX_TENSORS) {
        FAIL("the diagnostics module has %u outputs", num_out);
        goto cleanup;
    }
    memset(out_desc, 0, sizeof(out_desc));
    attr.outputTensorDesc = out_desc;
    DLA(cudlaModuleGetAttributes(diag_mod, CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &attr));
    SCI(NvSciBufModuleOpen(&buf_module));
    for (i = 0; i < num_out; i++) {
        cudlaExternalMemoryHandleDesc desc;
        void* cpu = NULL;
        printf("diagnostics output %u: %-16s size %llu\n", i, out_desc[i].name,
               (unsigned long long)out_desc[i].size);
        SCI(alloc_tensor(buf_module, out_desc[i].size, &out_obj[i]));
        memset(&desc, 0, sizeof(desc));
        desc.extBufObject = (const void*)out_obj[i];
        desc.size = out_desc[i].size;
        DLA(cudlaImportExternalMemory(diag, &desc, &out_reg[i], CUDLA_READ_WRITE_PERM));
        SCI(NvSciBufObjGetCpuPtr(out_obj[i], &cpu));
        out_cpu[i] = (uint8_t*)cpu;
        memset(cpu, 0xA5, out_desc[i].size);
    }
    if (sync_pair_open(&ds, diag, false, false) != 0) {
        goto cleanup;
    }

    /* Refused: input tensors with the diagnostics flag, or no output tensors. */
    memset(&task, 0, sizeof(task));
    task.moduleHandle = diag_mod;
    task.outputTensor = out_reg;
    task.numOutputTensors = num_out;
    task.inputTensor = (const uint64_t* const*)out_reg;
    task.numInputTensors = 1;
    EXPECT_DLA(cudlaSubmitTask(diag, &task, 1, NULL, CUDLA_SUBMIT_DIAGNOSTICS_TASK),
               cudlaErrorUnsupportedOperation);
    task.inputTensor = NULL;
    task.numInputTensors = 0;
    task.outputTensor = NULL;
    task.numOutputTensors = 0;
    EXPECT_DLA(cudlaSubmitTask(diag, &task, 1, NULL, CUDLA_SUBMIT_DIAGNOSTICS_TASK),
               cudlaErrorUnsupportedOperation);

    /* The diagnostics task next to a regular task on the other handle. */
    task.outputTensor = out_reg;
    task.numOutputTensors = num_out;
    DLA(sync_pair_run(&ds, &task, CUDLA_SUBMIT_DIAGNOSTICS_TASK, &diag_eof));
    dla_task(&d, &task);
    DLA(sync_pair_run(&s, &task, 0, &eof));
    SCI(NvSciSyncFenceWait(&diag_eof, ds.ctx, 5000000));
    EXPECT_DLA(cudlaGetLastError(diag), cudlaSuccess);
    for (i = 0; i < num_out; i++) {
        for (b = 0; b < out_desc[i].size && out_cpu[i][b] == 0xA5; b++) {
        }
        CHECK(b < out_desc[i].size, "diagnostics output %u was not written", i);
    }
    SCI(NvSciSyncFenceWait(&eof, s.ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "regular task beside the diagnostics");
    if (num_out != 1 || out_desc[0].size < DIAG_RESULT_LEN) {
        FAIL("diagnostics outputs: %u, first of %llu bytes", num_out,
             (unsigned long long)out_desc[0].size);
        goto cleanup;
    }
    check_result(out_cpu[0], 0, &seq1);

    /* A permanent fault (SIL extension): the next diagnostics run reports it. */
    {
        cudlaSilFault fault;
        memset(&fault, 0, sizeof(fault));
        fault.kind = CUDLA_SIL_FAULT_PERMANENT;
        fault.status = 0x5;
        fault.count = 1;
        DLA(cudlaSilInjectFault(diag, &fault));
    }
    memset(out_cpu[0], 0xA5, out_desc[0].size);
    NvSciSyncFenceClear(&diag_eof);
    memset(&task, 0, sizeof(task));
    task.moduleHandle = diag_mod;
    task.outputTensor = out_reg;
    task.numOutputTensors = num_out;
    DLA(sync_pair_run(&ds, &task, CUDLA_SUBMIT_DIAGNOSTICS_TASK, &diag_eof));
    SCI(NvSciSyncFenceWait(&diag_eof, ds.ctx, 5000000));
    printf("cudlaGetLastError after the faulty diagnostics run: %d\n", (int)cudlaGetLastError(diag));
    check_result(out_cpu[0], 0x5, &seq2);
    CHECK(seq2 > seq1, "task sequence numbers %llu then %llu", (unsigned long long)seq1,
          (unsigned long long)seq2);

cleanup:
    NvSciSyncFenceClear(&eof);
    NvSciSyncFenceClear(&diag_eof);
    sync_pair_close(&ds);
    for (i = 0; i < MAX_TENSORS; i++) {
        if (out_reg[i] != NULL && cudlaMemUnregister(diag, out_reg[i]) != cudlaSuccess) {
            FAIL("cudlaMemUnregister(diagnostics output %u)", i);
        }
        if (out_obj[i] != NULL) {
            NvSciBufObjFree(out_obj[i]);
        }
    }
    if (buf_module != NULL) {
        NvSciBufModuleClose(buf_module);
    }
    if (diag_mod != NULL && cudlaModuleUnload(diag_mod, 0) != cudlaSuccess) {
        FAIL("cudlaModuleUnload(diagnostics)");
    }
    if (diag != NULL && cudlaDestroyDevice(diag) != cudlaSuccess) {
        FAIL("cudlaDestroyDevice(diagnostics)");
    }
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
