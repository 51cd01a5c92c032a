/*
 * standalone_syncpoint.c: the documented standalone flow (standalone_flow.h) as written in
 * the cuDLA sample, without any deterministic request. cuDLA fills its lists preferring sync
 * points (cudla.h, cudlaGetNvSciSyncAttributes: "prioritizes sync point primitive ... by
 * default"), and the CPU lists allow every primitive (nvscisync.h NeedCpuAccess), so both
 * objects reconcile to sync points and cudlaImportExternalSemaphore accepts them (cudla.h:
 * sync point and deterministic semaphore are the supported primitives). A sync point's fences
 * carry its id (not 0; one per object) and the thresholds the signaler hands out; a waiter
 * cannot build a fence past the threshold (no wait-before-signal on sync points: the SIL
 * answers NvSciSyncFenceUpdateFence with NvSciError_Overflow, sil/README.md "Objects,
 * primitives and thresholds").
 *
 * usage: standalone_syncpoint <loadable> <golden input> <golden output>
 */
#include "standalone_flow.h"

static void check(const struct flow_result* r) {
    int wait_prim = sync_primitive(r->wait_obj);
    int signal_prim = sync_primitive(r->signal_obj);
    CHECK(wait_prim == NvSciSyncAttrValPrimitiveType_Syncpoint,
          "CPU->DLA object reconciled to primitive %d, expected Syncpoint (1)", wait_prim);
    CHECK(signal_prim == NvSciSyncAttrValPrimitiveType_Syncpoint,
          "DLA->CPU object reconciled to primitive %d, expected Syncpoint (1)", signal_prim);
    CHECK(r->pre_id != 0 && r->eof_id != 0,
          "sync point fences carry id %llu (pre-fence) and %llu (EOF), expected non-zero",
          (unsigned long long)r->pre_id, (unsigned long long)r->eof_id);
    CHECK(r->pre_id != r->eof_id, "two sync point objects share the id %llu",
          (unsigned long long)r->pre_id);
    CHECK(r->pre_value != 0 && r->eof_value != 0, "thresholds %llu/%llu",
          (unsigned long long)r->pre_value, (unsigned long long)r->eof_value);
    {
        NvSciSyncFence f = {{0}};
        /* A promised value: the fence can be rebuilt; one past the threshold cannot. */
        EXPECT_SCI(NvSciSyncFenceUpdateFence(r->signal_obj, r->eof_id, r->eof2_value, &f),
                   NvSciError_Success);
        EXPECT_SCI(NvSciSyncFenceUpdateFence(r->signal_obj, r->eof_id, r->eof2_value + 1, &f),
                   NvSciError_Overflow);
        NvSciSyncFenceClear(&f);
    }
}

int main(int argc, char** argv) {
    return run_standalone_flow(argc, argv, false, check);
}
