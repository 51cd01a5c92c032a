//! Load check for feature `link-vendor`: the test binary references every declared
//! vendor symbol, so with `-z now` (Rust's default full RELRO) it only starts if the
//! library found at run time (`libcupva_host.so.2.10`) exports all of them.
//!
//! Not runnable on a machine without the PVA SDK host runtime; there, build it with
//! `cargo build -p cupva-sys --features link-vendor --tests` and inspect the binary with
//! `readelf -d` (see `bindings/README.md`).
//!
//! Covers: REQ-PVA-002
#![cfg(feature = "link-vendor")]

include!(concat!(env!("OUT_DIR"), "/symbol_addrs.rs"));

#[test]
fn every_declared_symbol_resolves() {
    let syms = symbol_addrs();
    assert!(!syms.is_empty());
    for (name, addr) in &syms {
        assert!(!addr.is_null(), "{name} resolved to NULL");
    }
    println!("{} symbols resolved", syms.len());
}
