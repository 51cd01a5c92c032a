//! Setting the process environment races with C code reading it on other threads: the setter
//! is an `unsafe fn` (the safe entry point, `require_cuda_environment`, only sets it when this
//! is the only thread).
use orin_exec::engine::os;

fn main() {
    let _ = os::enforce_cuda_environment();
}
