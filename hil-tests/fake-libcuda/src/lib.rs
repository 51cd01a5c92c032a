//! `libcuda.so.1` made of SIL CUDA: every `#[no_mangle]` driver entry point of `sil-cuda` is
//! exported. The NvSciSync SIL calls it makes stay undefined here and bind, at load time, to
//! the definitions in the executable (which must export them: link it with `-rdynamic`).
pub use sil_cuda;
