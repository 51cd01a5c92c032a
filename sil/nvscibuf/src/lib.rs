//! SIL twin of libnvscibuf (C ABI).
