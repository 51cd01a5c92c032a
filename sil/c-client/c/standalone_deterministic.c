/*
 * standalone_deterministic.c: the documented standalone flow (standalone_flow.h) with the
 * application requesting deterministic fences (NvSciSyncAttrKey_RequireDeterministicFences
 * on both lists of each object). Reconciliation then picks a semaphore primitive, and each
 * signal advances it by exactly one (nvscisync.h RequireDeterministicFences: "instance 0 of
 * the primitive", so the fences of the object carry id 0).
 *
 * usage: standalone_deterministic <loadable> <golden input> <golden output>
 */
#include "standalone_flow.h"

static void check(const struct flow_result* r) {
    int wait_prim = sync_primitive(r->wait_obj);
    int signal_prim = sync_primitive(r->signal_obj);
    CHECK(wait_prim != NvSciSyncAttrValPrimitiveType_Syncpoint &&
              signal_prim != NvSciSyncAttrValPrimitiveType_Syncpoint,
          "deterministic objects reconciled to primitives %d/%d (a sync point)", wait_prim,
          signal_prim);
    CHECK(r->pre_id == 0 && r->eof_id == 0,
          "deterministic fences carry id %llu (pre-fence) and %llu (EOF), expected 0",
          (unsigned long long)r->pre_id, (unsigned long long)r->eof_id);
    CHECK(r->eof_value == 1, "first EOF fence value %llu, expected 1 (one signal from 0)",
          (unsigned long long)r->eof_value);
}

int main(int argc, char** argv) {
    return run_standalone_flow(argc, argv, true, check);
}
