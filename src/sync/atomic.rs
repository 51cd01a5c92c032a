//! The atomics the seqlock, the trace ring and the board are built on.
//!
//! Normally these are `core`'s, with 64-bit atomics from `portable-atomic` (native where the
//! target has them; on targets without, e.g. Cortex-M4, short critical sections).
//!
//! Under `--cfg loom` (tests only) they are loom's, so loom's model checker explores every
//! interleaving and every value the memory model lets a load return. Loom's atomics cannot be
//! built in a `const fn`, and these types must be (the runtime's storage lives in `static`s),
//! so the loom versions are built lazily, on first use. Loom insists that an atomic is created
//! before (happens-before) every access to it, so a model must touch the atomics it uses
//! before it spawns threads: the types built on them have a loom-only `register` method.

pub(crate) use core::sync::atomic::Ordering;

// The board (hosted builds only) is the one user of `AtomicBool`.
#[cfg(all(not(all(loom, test)), feature = "std"))]
pub(crate) use core::sync::atomic::AtomicBool;
#[cfg(not(all(loom, test)))]
pub(crate) use core::sync::atomic::fence;
#[cfg(not(all(loom, test)))]
pub(crate) use portable_atomic::AtomicU64;

#[cfg(all(loom, test, feature = "std"))]
pub(crate) use self::lazy::AtomicBool;
#[cfg(all(loom, test))]
pub(crate) use self::lazy::AtomicU64;
#[cfg(all(loom, test))]
pub(crate) use loom::sync::atomic::fence;

#[cfg(all(loom, test))]
mod lazy {
    extern crate std;
    use core::ops::Deref;
    use std::sync::OnceLock;

    macro_rules! lazy_atomic {
        ($name:ident, $value:ty) => {
            /// A loom atomic created on first use (see the module documentation).
            pub(crate) struct $name {
                initial: $value,
                cell: OnceLock<loom::sync::atomic::$name>,
            }

            impl $name {
                pub(crate) const fn new(initial: $value) -> Self {
                    Self {
                        initial,
                        cell: OnceLock::new(),
                    }
                }

                /// Create the loom atomic now (before the model spawns threads).
                pub(crate) fn register(&self) {
                    let _ = self.deref();
                }
            }

            impl Deref for $name {
                type Target = loom::sync::atomic::$name;

                fn deref(&self) -> &Self::Target {
                    self.cell
                        .get_or_init(|| loom::sync::atomic::$name::new(self.initial))
                }
            }
        };
    }

    lazy_atomic!(AtomicU64, u64);
    lazy_atomic!(AtomicBool, bool);
}
