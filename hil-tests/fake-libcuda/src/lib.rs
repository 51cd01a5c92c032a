//! `libcuda.so.1` made of SIL CUDA: every `#[no_mangle]` driver entry point of `sil-cuda` is
//! exported. The NvSciSync SIL calls it makes stay undefined here and bind, at load time, to
//! the definitions in the executable (which must export them: link it with `-rdynamic`).
//!
//! SIL CUDA runs only registered kernel models, and the `rig` build of `hil` registers none
//! (a real driver runs the cubins), so the double registers the project's models itself when
//! it is loaded, as a `sil` application would before init.
pub use sil_cuda;

/// Registers every model of `orin-exec-kernels` for its committed cubins. A refusal is
/// reported; the kernel then fails its lookup with `CUDA_ERROR_NOT_FOUND` as it would anyway.
extern "C" fn register_project_models() {
    for &(module, kernel, model) in orin_exec_kernels::MODELS {
        let Some(desc) = orin_exec_kernels::cubin_desc(module) else {
            continue;
        };
        let hashes: Vec<[u8; 32]> = desc.variants.iter().map(|v| v.sha256).collect();
        if let Err(e) = sil_cuda::register_kernel_model(module, kernel, &hashes, model) {
            eprintln!("fake libcuda: the model of {module}/{kernel} was refused: {e}");
        }
    }
}

// Run when the dynamic loader loads the library (an ELF initializer), before the program's
// first driver call.
// SAFETY: the entry is a plain `extern "C" fn()` as `.init_array` requires; it only uses a
// const-initialized mutex and the global allocator, both usable before `main`.
#[used]
#[unsafe(link_section = ".init_array")]
static REGISTER_AT_LOAD: extern "C" fn() = register_project_models;

/// SIL CUDA has no graphs; the `rig` build of `hil bench` links the graph calls (its CUDA-graph
/// baseline), so the double exports them, each answering `CUDA_ERROR_NOT_SUPPORTED` (the bench
/// then prints that baseline as not available).
macro_rules! not_supported {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[unsafe(no_mangle)]
        extern "C" fn $name($($arg: $ty),*) -> u32 {
            let _ = ($($arg,)*);
            801 // CUDA_ERROR_NOT_SUPPORTED
        }
    )*};
}

not_supported! {
    cuStreamBeginCapture_v2(stream: *mut u8, mode: u32);
    cuStreamEndCapture(stream: *mut u8, graph: *mut *mut u8);
    cuGraphInstantiateWithFlags(exec: *mut *mut u8, graph: *mut u8, flags: u64);
    cuGraphLaunch(exec: *mut u8, stream: *mut u8);
    cuGraphExecDestroy(exec: *mut u8);
    cuGraphDestroy(graph: *mut u8);
}
