//! Hand-written FFI declarations for NvSciSync, NvSciBuf and NvSciError.
#![no_std]
