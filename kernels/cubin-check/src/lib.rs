//! Checks that a GPU image is an ELF cubin for one SM and holds no PTX.
#![no_std]
