/*
 * task_statistics.c: layer-wise task statistics (cudla.h cudlaSubmitTask, "layerwise
 * statistics profiling") read through the external export table (cudlaExternalEtbl.hpp).
 *
 * The loadable carries statistics descriptors: CUDLA_NUM_OUTPUT_TASK_STATISTICS gives their
 * count (in numOutputTensors), CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS fills a caller array.
 * Each statistics buffer is imported with CUDLA_TASK_STATISTICS and appended to the task's
 * outputs (numOutputTensors = outputs + statistics). After the EOF fence, the export table's
 * etiTranslateStats turns each raw buffer into CSV: first its length (CUDLA_GET_CSV_LENGTH),
 * then the text into a buffer of that length (CUDLA_GET_CSV_STATS). The CSV has a header
 * line and one row per layer the descriptor covers; the expected row counts come from the
 * loadable (arguments 4...). The outputs still match the golden output.
 *
 * usage: task_statistics <loadable with statistics> <golden input> <golden output> <rows>...
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define DLA_FREQ_MHZ 1600u

/* Lines of the CSV text `csv` (length `len`, a trailing NUL allowed): the header, then rows.
 * Returns the number of rows after the header, or -1 if the text is not CSV-like. */
static int csv_rows(const char* csv, size_t len, int* columns) {
    size_t i, start = 0;
    int lines = 0, header_cols = 0;
    while (len > 0 && csv[len - 1] == '\0') {
        len--;
    }
    for (i = 0; i <= len; i++) {
        if (i == len || csv[i] == '\n') {
            size_t j;
            int cols = 1;
            if (i == start) { /* empty line: only allowed at the end */
                if (i != len) {
                    return -1;
                }
                break;
            }
            for (j = start; j < i; j++) {
                if (csv[j] == ',') {
                    cols++;
                } else if (csv[j] == '\0') {
                    return -1;
                }
            }
            if (lines == 0) {
                header_cols = cols;
            } else if (cols != header_cols) {
                return -1;
            }
            lines++;
            start = i + 1;
        }
    }
    *columns = header_cols;
    return lines - 1;
}

int main(int argc, char** argv) {
    struct golden g;
    struct dla d;
    struct sync_pair s;
    cudlaModuleAttribute attr;
    cudlaModuleTensorDescriptor stat_desc[MAX_TENSORS];
    NvSciBufObj stat_obj[MAX_TENSORS];
    uint64_t* stat_reg[MAX_TENSORS];
    uint8_t* stat_cpu[MAX_TENSORS];
    uint64_t* outputs[2 * MAX_TENSORS];
    uint32_t num_stats = 0, i;
    const cudlaExternalEtbl* etbl = NULL;
    NvSciSyncFence eof = {{0}};
    cudlaTask task;
    char* csv = NULL;
    char* csv2 = NULL;

    memset(&d, 0, sizeof(d));
    memset(&s, 0, sizeof(s));
    memset(stat_obj, 0, sizeof(stat_obj));
    memset(stat_reg, 0, sizeof(stat_reg));
    if (golden_load(&g, argc, argv) != 0 || dla_open(&d, 0, &g) != 0 ||
        sync_pair_open(&s, d.dev, false, false) != 0) {
        goto cleanup;
    }

    DLA(cudlaModuleGetAttributes(d.module, CUDLA_NUM_OUTPUT_TASK_STATISTICS, &attr));
    num_stats = attr.numOutputTensors;
    if (num_stats == 0 || num_stats > MAX_TENSORS || (int)num_stats != argc - 4) {
        FAIL("%u statistics descriptors, %d expected row counts given", num_stats, argc - 4);
        goto cleanup;
    }
    memset(stat_desc, 0, sizeof(stat_desc));
    attr.outputTensorDesc = stat_desc;
    DLA(cudlaModuleGetAttributes(d.module, CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS, &attr));
    for (i = 0; i < num_stats; i++) {
        cudlaExternalMemoryHandleDesc desc;
        void* cpu = NULL;
        printf("statistics %u: %-16s size %llu\n", i, stat_desc[i].name,
               (unsigned long long)stat_desc[i].size);
        CHECK(stat_desc[i].size > 0, "statistics descriptor %u has size 0", i);
        SCI(alloc_tensor(d.buf_module, stat_desc[i].size, &stat_obj[i]));
        memset(&desc, 0, sizeof(desc));
        desc.extBufObject = (const void*)stat_obj[i];
        desc.size = stat_desc[i].size;
        DLA(cudlaImportExternalMemory(d.dev, &desc, &stat_reg[i], CUDLA_TASK_STATISTICS));
        SCI(NvSciBufObjGetCpuPtr(stat_obj[i], &cpu));
        stat_cpu[i] = (uint8_t*)cpu;
        memset(cpu, 0, stat_desc[i].size);
    }

    /* The task: outputs, then the statistics buffers. */
    for (i = 0; i < d.num_out; i++) {
        outputs[i] = d.out_reg[i];
    }
    for (i = 0; i < num_stats; i++) {
        outputs[d.num_out + i] = stat_reg[i];
    }
    dla_task(&d, &task);
    task.outputTensor = outputs;
    task.numOutputTensors = d.num_out + num_stats;
    DLA(sync_pair_run(&s, &task, 0, &eof));
    SCI(NvSciSyncFenceWait(&eof, s.ctx, 5000000));
    DLA(cudlaGetLastError(d.dev));
    dla_check_outputs(&d, &g, "task with statistics");

    /* The export table and its documented argument checks. */
    EXPECT_DLA(cudlaGetExternalExportTable(NULL, 0), cudlaErrorInvalidParam);
    EXPECT_DLA(cudlaGetExternalExportTable(&etbl, 1), cudlaErrorInvalidParam);
    DLA(cudlaGetExternalExportTable(&etbl, 0));
    if (etbl == NULL || etbl->etiTranslateStats == NULL ||
        etbl->etiTranslateStatsForMultiModule == NULL) {
        FAIL("export table %p without its functions", (const void*)etbl);
        goto cleanup;
    }
    {
        cudlaTranslateCsvAttribute a;
        EXPECT_DLA(etbl->etiTranslateStats(NULL, stat_cpu[0], DLA_FREQ_MHZ, 0,
                                           CUDLA_GET_CSV_LENGTH, &a),
                   cudlaErrorInvalidParam);
        EXPECT_DLA(etbl->etiTranslateStats(d.dev, NULL, DLA_FREQ_MHZ, 0, CUDLA_GET_CSV_LENGTH,
                                           &a),
                   cudlaErrorInvalidParam);
        EXPECT_DLA(etbl->etiTranslateStats(d.dev, stat_cpu[0], 0, 0, CUDLA_GET_CSV_LENGTH, &a),
                   cudlaErrorInvalidParam);
        EXPECT_DLA(etbl->etiTranslateStats(d.dev, stat_cpu[0], DLA_FREQ_MHZ, num_stats,
                                           CUDLA_GET_CSV_LENGTH, &a),
                   cudlaErrorInvalidParam);
    }

    /* Each buffer as CSV, one row per layer. */
    for (i = 0; i < num_stats; i++) {
        cudlaTranslateCsvAttribute a;
        uint64_t len;
        int rows, columns = 0, expected = atoi(argv[4 + i]);

        memset(&a, 0, sizeof(a));
        DLA(etbl->etiTranslateStats(d.dev, stat_cpu[i], DLA_FREQ_MHZ, i, CUDLA_GET_CSV_LENGTH,
                                    &a));
        len = a.csvStreamLength;
        if (len == 0 || len > (1u << 24)) {
            FAIL("statistics %u: CSV length %llu", i, (unsigned long long)len);
            goto cleanup;
        }
        free(csv);
        free(csv2);
        csv = (char*)calloc(1, (size_t)len + 1);
        csv2 = (char*)calloc(1, (size_t)len + 1);
        if (csv == NULL || csv2 == NULL) {
            FAIL("out of memory");
            goto cleanup;
        }
        a.csvStreamStats = csv;
        DLA(etbl->etiTranslateStats(d.dev, stat_cpu[i], DLA_FREQ_MHZ, i, CUDLA_GET_CSV_STATS, &a));
        a.csvStreamStats = csv2;
        DLA(etbl->etiTranslateStatsForMultiModule(d.dev, d.module, stat_cpu[i], DLA_FREQ_MHZ, i,
                                                  CUDLA_GET_CSV_STATS, &a));
        CHECK(memcmp(csv, csv2, (size_t)len) == 0,
              "statistics %u: the single- and multi-module translations differ", i);
        printf("statistics %u as CSV (%llu bytes):\n%s\n", i, (unsigned long long)len, csv);
        rows = csv_rows(csv, (size_t)len, &columns);
        CHECK(rows == expected, "statistics %u: %d CSV rows, expected %d (one per layer)", i,
              rows, expected);
        CHECK(columns >= 2, "statistics %u: %d CSV columns", i, columns);
    }

cleanup:
    free(csv);
    free(csv2);
    NvSciSyncFenceClear(&eof);
    for (i = 0; i < MAX_TENSORS; i++) {
        if (stat_reg[i] != NULL && cudlaMemUnregister(d.dev, stat_reg[i]) != cudlaSuccess) {
            FAIL("cudlaMemUnregister(statistics %u)", i);
        }
        if (stat_obj[i] != NULL) {
            NvSciBufObjFree(stat_obj[i]);
        }
    }
    sync_pair_close(&s);
    dla_close(&d);
    golden_free(&g);
    return finish();
}
