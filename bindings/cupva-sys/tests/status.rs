//! The status helper of `cupvaError_t` and the declared enum values against the facts
//! recorded in `bindings/README.md` (cuPVA section).
//!
//! Covers: REQ-PVA-001

use cupva_sys::*;

#[test]
fn known_codes_have_unique_values_and_names_round_trip() {
    for (i, a) in cupvaError_t::KNOWN.iter().enumerate() {
        let name = a.name().expect("every KNOWN code has a name");
        assert_eq!(format!("{a}"), name);
        assert!(format!("{a:?}").starts_with(name));
        for b in &cupvaError_t::KNOWN[i + 1..] {
            assert_ne!(a.0, b.0, "{a:?} and {b:?} share a value");
        }
    }
}

#[test]
fn success_and_errors() {
    assert!(CUPVA_ERROR_NONE.is_success());
    assert_eq!(CUPVA_ERROR_NONE.ok(), Ok(()));
    for e in cupvaError_t::KNOWN.iter().skip(1) {
        assert!(!e.is_success(), "{e:?}");
        assert_eq!(e.ok(), Err(*e));
    }
}

#[test]
fn unknown_code_is_representable_and_named_as_unknown() {
    // CUPVA_INVALID_CONTEXT (2.10) has no published value: it must still print.
    let e = cupvaError_t(0x0002_0000);
    assert_eq!(e.name(), None);
    assert!(!e.is_success());
    assert_eq!(format!("{e}"), "unknown cupvaError_t 0x20000");
    assert_eq!(format!("{e:?}"), "cupvaError_t(0x20000)");
}

#[test]
fn vpu_errors_are_the_vpu_codes() {
    let vpu: Vec<_> = cupvaError_t::KNOWN
        .iter()
        .filter(|e| e.is_vpu_error())
        .collect();
    assert_eq!(vpu.len(), 8);
    for e in vpu {
        assert!(e.name().unwrap().starts_with("CUPVA_VPU_"), "{e:?}");
    }
    assert!(!CUPVA_COMMAND_EXECUTION_TIMEOUT.is_vpu_error());
}

#[test]
fn documented_values() {
    // DRIVE OS 7.0.3 CUPVA_Host_System_C: sequential from 0, PSFD group from 0x10000.
    assert_eq!(CUPVA_COMMAND_EXECUTION_TIMEOUT.0, 7);
    assert_eq!(CUPVA_COMMAND_SUBMISSION_TIMEOUT.0, 8);
    assert_eq!(CUPVA_OPERATION_PENDING.0, 18);
    assert_eq!(CUPVA_PSFD_CHECK_MISMATCH.0, 0x10000);
    assert_eq!(CUPVA_ERROR_TYPE_MAX.0, 0x10006);
    // CUPVA_Stream_C: PVA0/PVA1 and the VPU affinities.
    assert_eq!((CUPVA_PVA0.0, CUPVA_PVA1.0), (1, 2));
    assert_eq!((CUPVA_VPU0.0, CUPVA_VPU1.0, CUPVA_VPU_ANY.0), (1, 2, 3));
    assert_eq!((CUPVA_IN_ORDER.0, CUPVA_OUT_OF_ORDER.0), (1, 2));
    // CUPVA_Synchronization_C.
    assert_eq!(
        (CUPVA_SIGNALER.0, CUPVA_WAITER.0, CUPVA_SIGNALER_WAITER.0),
        (1, 2, 3)
    );
    assert_eq!((CUPVA_SYNC_YIELD.0, CUPVA_SYNC_SPIN.0), (1, 2));
}

#[test]
fn caller_storage_sizes() {
    // 2.8.0 cupva_host_types.h: uint64_t data[6] / [3] / [2].
    assert_eq!(core::mem::size_of::<cupvaFence_t>(), 48);
    assert_eq!(core::mem::size_of::<cupvaCmd_t>(), 24);
    assert_eq!(core::mem::size_of::<cupvaParameter_t>(), 16);
    assert_eq!(cupvaFence_t::default().data, [0; 6]);
}
