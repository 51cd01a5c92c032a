//! Link arguments for the C shared library `libnvscibuf.so` only (the rlib is unaffected):
//! SONAME `libnvscibuf.so.1` and every exported function under the version node
//! `libnvscibuf.so.1` (`@@libnvscibuf.so.1`), the convention of NVIDIA's `libcudla.so.1`.
//! See sil/README.md, "Packaging".

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    // rustc links through rust-lld by default, which has no `--default-symver`; GNU ld
    // (binutils) has it and accepts it together with rustc's own anonymous version script.
    println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnvscibuf.so.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
}
