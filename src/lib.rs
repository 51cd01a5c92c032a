//! orin-exec: a no-heap, real-time cyclic executive for fixed periodic pipelines across the
//! CPU, GPU, DLA and PVA of NVIDIA DRIVE/Jetson Orin.
#![no_std]

#[cfg(feature = "std")]
extern crate std;
