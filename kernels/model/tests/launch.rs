//! The kernel-model mechanism on host memory: kind-checked arguments, simultaneous typed
//! buffer borrows with the `__restrict__` rule, and every refusal typed and worded.
//!
//! Covers: REQ-KM-001

use orin_exec_kernel_model::{
    Access, Arg, HOST_BUFFERS, HostMemory, KernelModel, Launch, LaunchMemory, MAX_PARAMS,
    ModelError, ParamKind, check_args, param_offset, read, write,
};

#[test]
fn getters_check_the_kind_and_the_index() {
    let mut mem = HostMemory::new();
    let args = [
        Arg::U32(7),
        Arg::I32(-2),
        Arg::U64(1 << 40),
        Arg::F32(0.5),
        Arg::Ptr(0x40),
    ];
    let l = Launch::new(&args, &mut mem)
        .with_dims([2, 3, 4], [32, 1, 1])
        .with_now_ns(99);
    assert_eq!(
        (l.u32(0), l.i32(1), l.u64(2), l.f32(3)),
        (Ok(7), Ok(-2), Ok(1 << 40), Ok(0.5))
    );
    assert_eq!(
        l.f32(0),
        Err(ModelError::ArgKind {
            index: 0,
            expected: ParamKind::F32,
            given: ParamKind::U32
        })
    );
    assert_eq!(
        l.u64(4),
        Err(ModelError::ArgKind {
            index: 4,
            expected: ParamKind::U64,
            given: ParamKind::DevPtr
        })
    );
    assert_eq!(
        l.u32(5),
        Err(ModelError::NoSuchParam { index: 5, count: 5 })
    );
    assert_eq!(
        (l.grid(), l.block(), l.now_ns()),
        ([2, 3, 4], [32, 1, 1], 99)
    );
    assert_eq!(l.args().len(), 5);
}

#[test]
fn run_checks_the_arguments_against_the_declared_kinds_first() {
    struct Counts(std::sync::atomic::AtomicU32);
    impl KernelModel for Counts {
        fn params(&self) -> &[ParamKind] {
            &[ParamKind::DevPtr, ParamKind::U32]
        }
        fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        }
    }
    let m = Counts(0.into());
    let mut mem = HostMemory::new();
    let ok = [Arg::Ptr(0), Arg::U32(1)];
    assert_eq!(Launch::new(&ok, &mut mem).run(&m), Ok(()));
    let short = [Arg::Ptr(0)];
    assert_eq!(
        Launch::new(&short, &mut mem).run(&m),
        Err(ModelError::ArgCount {
            expected: 2,
            given: 1
        })
    );
    let swapped = [Arg::U32(1), Arg::Ptr(0)];
    assert_eq!(
        Launch::new(&swapped, &mut mem).run(&m),
        Err(ModelError::ArgKind {
            index: 0,
            expected: ParamKind::DevPtr,
            given: ParamKind::U32
        })
    );
    assert_eq!(m.0.into_inner(), 1, "only the matching launch ran");
    assert_eq!(check_args(&[], &[]), Ok(()));
}

#[test]
fn several_buffers_at_once_and_the_restrict_rule() {
    let src = [1u32, 2, 3, 4, 5, 6, 7, 8];
    let mut dst = [0u32; 8];
    let mut mem = HostMemory::new();
    let (s, d) = (mem.read(&src).unwrap(), mem.write(&mut dst).unwrap());
    let Arg::Ptr(d_addr) = d else { panic!() };
    // Parameters 2 and 3 point into the middle of `dst`: [4..6) and [6..8).
    let args = [s, d, Arg::Ptr(d_addr + 16), Arg::Ptr(d_addr + 24)];
    let mut l = Launch::new(&args, &mut mem);
    // Two reads of one buffer, and two disjoint writes into the same slice.
    let (a, b, lo, hi) = l
        .buffers((
            read::<u32>(0, 8),
            read::<u32>(0, 4),
            write::<u32>(2, 2),
            write::<u32>(3, 2),
        ))
        .unwrap();
    lo.copy_from_slice(&a[..2]);
    hi.copy_from_slice(&b[2..4]);
    // A write overlapping a read, or another write, is refused, whichever comes first.
    assert_eq!(
        l.buffers((read::<u32>(1, 5), write::<u32>(2, 1))).err(),
        Some(ModelError::Overlap { index: 2, other: 1 })
    );
    assert_eq!(
        l.buffers((write::<u32>(1, 8), write::<u32>(3, 1))).err(),
        Some(ModelError::Overlap { index: 1, other: 3 })
    );
    // The same parameter written twice in one borrow.
    assert_eq!(
        l.buffers((write::<u32>(2, 1), write::<u32>(2, 1))).err(),
        Some(ModelError::Overlap { index: 2, other: 2 })
    );
    // Empty buffers overlap nothing.
    let (e, w) = l.buffers((write::<u32>(1, 0), write::<u32>(1, 8))).unwrap();
    assert!(e.is_empty());
    w[0] = 42;
    assert_eq!(dst, [42, 0, 0, 0, 1, 2, 3, 4]);
}

#[test]
fn memory_refusals_are_typed() {
    let ro = [0u64; 4];
    let mut rw = [0u16; 8];
    let mut mem = HostMemory::new();
    let (r, w) = (mem.read(&ro).unwrap(), mem.write(&mut rw).unwrap());
    let (Arg::Ptr(ra), Arg::Ptr(wa)) = (r, w) else {
        panic!()
    };
    let args = [r, w, Arg::Ptr(wa + 2), Arg::U32(3), Arg::Ptr(ra + 32)];
    let mut l = Launch::new(&args, &mut mem);
    assert_eq!(
        l.buffers(write::<u64>(0, 1)).err(),
        Some(ModelError::ReadOnly {
            index: 0,
            addr: ra,
            bytes: 8
        })
    );
    assert_eq!(
        l.buffers(read::<u16>(1, 9)).err(),
        Some(ModelError::OutOfBounds {
            index: 1,
            addr: wa,
            bytes: 18
        })
    );
    assert_eq!(
        l.buffers(read::<u32>(2, 1)).err(),
        Some(ModelError::Misaligned {
            index: 2,
            addr: wa + 2,
            align: 4
        })
    );
    assert_eq!(
        l.buffers(read::<u8>(3, 1)).err(),
        Some(ModelError::ArgKind {
            index: 3,
            expected: ParamKind::DevPtr,
            given: ParamKind::U32
        })
    );
    // Just past the end of a lent slice.
    assert!(matches!(
        l.buffers(read::<u8>(4, 1)),
        Err(ModelError::OutOfBounds { index: 4, .. })
    ));
    assert_eq!(
        l.buffers(read::<u64>(0, usize::MAX)).err(),
        Some(ModelError::TooLarge {
            index: 0,
            len: usize::MAX
        })
    );
    assert!(matches!(
        l.buffers(read::<()>(0, 1)),
        Err(ModelError::Refused { .. })
    ));
    // A valid borrow still works after the refusals.
    assert_eq!(l.buffers(read::<u64>(0, 4)).unwrap(), &[0; 4]);
}

#[test]
fn host_memory_is_bounded_and_borrows_need_matching_slots() {
    let bufs = [[0u8; 1]; HOST_BUFFERS + 1];
    let mut mem = HostMemory::new();
    for b in &bufs[..HOST_BUFFERS] {
        mem.read(b).unwrap();
    }
    assert_eq!(
        mem.read(&bufs[HOST_BUFFERS]),
        Err(ModelError::TooManyBuffers {
            limit: HOST_BUFFERS
        })
    );
    // `borrow` needs an output slot per access.
    let a = Access {
        index: 0,
        addr: 0,
        bytes: 0,
        align: 1,
        write: false,
    };
    let mut out = [];
    assert_eq!(
        mem.borrow(&[a], &mut out),
        Err(ModelError::TooManyBuffers { limit: MAX_PARAMS })
    );
}

#[test]
fn kinds_parse_and_lay_out() {
    for k in ParamKind::ALL {
        assert_eq!(ParamKind::parse(k.key()), Some(k));
        assert_eq!(ParamKind::parse(&format!("{k:?}")), Some(k));
    }
    assert_eq!(ParamKind::parse("UINT64_T"), Some(ParamKind::U64));
    assert_eq!(ParamKind::parse("double"), None);
    // aeb_postprocess: a pointer, ten 4-byte scalars, a pointer (8-aligned).
    use ParamKind::*;
    let k = [DevPtr, U32, U32, I32, U32, U32, F32, F32, F32, F32, DevPtr];
    let offsets: Vec<_> = (0..k.len()).map(|i| param_offset(&k, i).unwrap()).collect();
    assert_eq!(offsets, [0, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48]);
}

#[test]
fn errors_say_what_went_wrong() {
    let texts = [
        ModelError::ArgCount {
            expected: 4,
            given: 3,
        }
        .to_string(),
        ModelError::OutOfBounds {
            index: 1,
            addr: 0x1000,
            bytes: 64,
        }
        .to_string(),
        ModelError::Overlap { index: 2, other: 1 }.to_string(),
        ModelError::Misaligned {
            index: 1,
            addr: 0x1002,
            align: 4,
        }
        .to_string(),
    ];
    assert_eq!(
        texts,
        [
            "the launch passes 3 arguments, the model declares 4 parameters",
            "parameter 1: 64 bytes at 0x1000 are out of bounds (not inside one allocation the \
             device may access)",
            "parameter 2 is written and overlaps parameter 1 (kernel pointers are __restrict__)",
            "parameter 1: address 0x1002 is not aligned to 4 bytes",
        ]
    );
}
