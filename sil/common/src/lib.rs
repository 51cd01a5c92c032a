//! Shared pieces of the SIL ("software in the loop") libraries.
//!
//! Every SIL library of one process uses the same [`clock`], so timestamps written by the SIL
//! cuDLA, the SIL CUDA and the SIL NvSciSync are comparable, and a test can switch the whole
//! process to virtual time. [`timing`] holds the execution-time models behind the
//! `*SilSetTimingModel` extension calls, [`rng`] their seeded generator, [`wait`] the
//! notified waiting of SIL semaphores (and the yielding spin for counters a real GPU writes
//! without notifying anybody), and [`usage`] the CPU time and wake-ups of SIL engine
//! threads.
//!
//! The rest is machinery the SIL libraries would otherwise each write again: [`handle`]
//! (the generic handle-table types; every library keeps its own `static` table), [`ffi`]
//! (checked access to C pointers, status mapping), [`attr`] (attribute-list storage),
//! [`list_api`] (the module and attribute-list calls of the NvSci-style libraries) and,
//! for the no-allocation tests, `alloc_count` (feature `alloc-count`).
#[cfg(feature = "alloc-count")]
pub mod alloc_count;
pub mod attr;
pub mod clock;
pub mod ffi;
pub mod handle;
pub mod list_api;
pub mod rng;
pub mod timing;
pub mod usage;
pub mod wait;

/// Compile-time proof that every listed definition has exactly the signature its `-sys`
/// crate declares: `same_signatures!(sys_crate; module::function, ...)` (two function items
/// only unify to one function-pointer type when their signatures are identical). Use it
/// inside a function body.
#[macro_export]
macro_rules! same_signatures {
    ($sys:ident; $($m:ident :: $f:ident),* $(,)?) => {
        $( let _ = [$sys::$f, $m::$f]; )*
    };
}
