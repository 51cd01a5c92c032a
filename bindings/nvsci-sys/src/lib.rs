//! Hand-written FFI declarations for NvSciSync, NvSciBuf and NvSciError.
//!
//! Written against the DRIVE OS 6.0.10 headers (NvSciSync 2.8, NvSciBuf 2.11); see
//! `bindings/README.md` for the version policy and `api-facts.md` for the sources.
//! Every name is the vendor's C name. C enums are `#[repr(transparent)]` newtypes with
//! one constant per enumerator (never Rust enums, so unknown values stay representable).
//!
//! * [`error`]: `NvSciError` (`nvscierror.h`).
//! * [`sync`]: NvSciSync (`nvscisync.h`, `libnvscisync.so.1`).
//! * [`buf`]: NvSciBuf (`nvscibuf.h`, `libnvscibuf.so.1`).
//! * `sil` (feature `sil-ext`): extension calls that only the SIL libraries implement.
//!
//! All items are re-exported at the crate root.
//!
//! Layouts are checked at compile time for 64-bit targets (LP64: x86_64 and aarch64
//! Linux, aarch64 QNX). 32-bit targets (e.g. `thumbv7em-none-eabihf`) only compile the
//! declarations; their layouts are not asserted.
#![no_std]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

pub mod buf;
pub mod error;
pub mod sync;

#[cfg(feature = "sil-ext")]
pub mod sil;

pub use buf::*;
pub use error::*;
pub use sync::*;
