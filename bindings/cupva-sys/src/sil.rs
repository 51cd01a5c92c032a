//! SIL-only extension calls of the cuPVA twin (`sil/cupva`); only the SIL library defines
//! them. Stubs, the link test and the SDK check ignore this module.
