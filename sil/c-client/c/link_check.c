/*
 * link_check.c: the smallest C user of all three SIL libraries, for the packaging test.
 * It calls one function of each library (so that no linker drops a DT_NEEDED entry) and
 * prints PASS when they answer as documented.
 */
#include <stdio.h>

#include "api.h"

int main(void) {
    uint64_t version = 0;
    NvSciSyncModule sync_module = NULL;
    NvSciBufModule buf_module = NULL;
    int ok = 1;

    if (cudlaGetVersion(&version) != cudlaSuccess || version / 1000000u != 1u) {
        printf("cudlaGetVersion: %llu\n", (unsigned long long)version);
        ok = 0;
    }
    if (NvSciSyncModuleOpen(&sync_module) != NvSciError_Success || sync_module == NULL) {
        printf("NvSciSyncModuleOpen failed\n");
        ok = 0;
    } else {
        NvSciSyncModuleClose(sync_module);
    }
    if (NvSciBufModuleOpen(&buf_module) != NvSciError_Success || buf_module == NULL) {
        printf("NvSciBufModuleOpen failed\n");
        ok = 0;
    } else {
        NvSciBufModuleClose(buf_module);
    }
    printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}
