//! SIL twin of the CUDA driver API subset.
