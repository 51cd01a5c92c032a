//! Link arguments for the C shared library only (the rlib is unaffected): SONAME
//! `libcuda.so.1`, the driver's, so a C program linked with `-lcuda` against the staged
//! library finds it by that name. Exports are unversioned. See sil/README.md, "SIL CUDA for C".

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
}
