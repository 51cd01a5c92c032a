//! The SIL DLA loadable format.
#![no_std]
