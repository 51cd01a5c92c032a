//! SIL twin of libcudla in standalone mode (C ABI).
