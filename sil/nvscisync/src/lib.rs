//! SIL twin of libnvscisync (C ABI).
