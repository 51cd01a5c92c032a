//! Hand-written FFI declarations for the CUDA driver API subset orin-exec uses.
#![no_std]
