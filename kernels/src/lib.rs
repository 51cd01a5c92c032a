//! CUDA kernels and their Rust reference models.
#![no_std]
