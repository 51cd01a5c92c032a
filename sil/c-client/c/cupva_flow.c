/*
 * cupva_flow.c: the cuPVA conformance client (issue 14): NvSciBuf memory in, an NvSciSync
 * pre-fence the CPU signals, a VPU program, its end-of-frame fence exported to NvSciSync, a
 * CPU wait, and the golden output. The program is a stand-in VPU ELF image (argv[1]) with the
 * SHA-256 argv[2]; the SIL runs it as the C model registered here (sil/README.md, "cuPVA").
 * Also: an image outside the allowlist is refused as PVA authentication refuses it.
 *
 * Usage: cupva_flow <elf image> <sha256 of the image, 64 hex digits>
 * Prints PASS and exits 0, or FAIL lines and exits 1.
 */
#include <stdio.h>
#include <string.h>

#include "cupva_common.h"

int failures;

int main(int argc, char** argv) {
    struct scale_image img;
    struct scale s;
    NvSciSyncObj pre_obj = NULL, eof_obj = NULL;
    NvSciSyncFence pre = {{0}}, eof = {{0}};
    cupvaExecutable_t exec = NULL;
    cupvaSyncObj_t pre_sync = NULL, eof_sync = NULL;
    cupvaCmd_t wait_cmd, req_cmd;
    cupvaFence_t wait_fence, eof_fence;
    cupvaCmdStatus_t status[3];

    memset(&s, 0, sizeof(s));
    if (scale_image_read(&img, argc, argv) != 0) {
        return 2;
    }
    /* Authentication: nothing is allowlisted yet. */
    CHECK(CupvaExecutableCreate(&exec, img.bytes, img.len) == CUPVA_DRIVER_API_ERROR,
          "an unlisted VPU ELF must be refused with CUPVA_DRIVER_API_ERROR");
    CHECK(exec == NULL, "a refused executable was written");
    if (scale_open(&s, &img) != 0) {
        goto cleanup;
    }
    pre_obj = pva_sync_object(s.sync_mod, CUPVA_WAITER);
    eof_obj = pva_sync_object(s.sync_mod, CUPVA_SIGNALER);
    if (failures) {
        goto cleanup;
    }
    PVA(CupvaSyncObjCreateFromNvsci(&pre_sync, pre_obj, CUPVA_WAITER));
    PVA(CupvaSyncObjCreateFromNvsci(&eof_sync, eof_obj, CUPVA_SIGNALER));
    PVA(CupvaFenceInit(&wait_fence, pre_sync));
    PVA(CupvaCmdWaitOnFencesInit(&wait_cmd, &wait_fence, 1));
    PVA(CupvaFenceInit(&eof_fence, eof_sync));
    PVA(CupvaCmdRequestFencesInit(&req_cmd, &eof_fence, 1));

    /* The CPU's pre-fence, the program, the exported end-of-frame fence. */
    SCI(NvSciSyncObjGenerateFence(pre_obj, &pre));
    PVA(CupvaFenceImport(&wait_fence, &pre));
    const cupvaCmd_t* cmds[3] = {&wait_cmd, &s.prog, &req_cmd};
    PVA(CupvaStreamSubmit(s.stream, cmds, status, 3, CUPVA_IN_ORDER, 100, 100));
    PVA(CupvaFenceExport(&eof_fence, &eof));
    CHECK(NvSciSyncFenceWait(&eof, s.ctx, 20000) == NvSciError_Timeout,
          "the program must wait for the CPU's pre-fence");
    CHECK(s.calls == 0, "the model ran before the pre-fence was signalled");
    SCI(NvSciSyncObjSignal(pre_obj));
    SCI(NvSciSyncFenceWait(&eof, s.ctx, 10 * 1000 * 1000));
    cupvaError_t e = CUPVA_OPERATION_PENDING;
    PVA(CupvaCheckCommandStatus(status[1], &e));
    CHECK(e == CUPVA_ERROR_NONE, "program status %d", (int)e);
    CHECK(s.calls == 1, "the model ran %d times", s.calls);
    scale_check_output(&s, "the program");
    uint64_t ts = 0;
    PVA(CupvaFenceGetTimeStamp(&eof_fence, &ts));
    CHECK(ts > 0, "no timestamp on the end-of-frame fence");

cleanup:
    NvSciSyncFenceClear(&pre);
    NvSciSyncFenceClear(&eof);
    /* The stream first: it stops the worker that may still use the sync objects. */
    if (s.stream) CupvaStreamDestroy(s.stream);
    s.stream = NULL;
    if (pre_sync) CupvaSyncObjDestroy(pre_sync);
    if (eof_sync) CupvaSyncObjDestroy(eof_sync);
    if (pre_obj) NvSciSyncObjFree(pre_obj);
    if (eof_obj) NvSciSyncObjFree(eof_obj);
    scale_close(&s);
    if (failures) {
        return 1;
    }
    printf("PASS\n");
    return 0;
}
