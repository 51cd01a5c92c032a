//! Hand-written FFI declarations for cuDLA.
#![no_std]
