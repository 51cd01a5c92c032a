//! Shared pieces of the SIL libraries.
