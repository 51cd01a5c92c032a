//! The shared library answers to the driver's soname.
fn main() {
    println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
}
