//! The old route: `ParamBlock::push(u64)` put any number into a kernel's pointer parameter.
//! A pointer parameter now takes only a `&GpuMemory` the runtime owns.
use orin_exec::engine::gpu::{Function, GpuMemory, ParamBlock};

fn forge(kernel: &Function, memory: &GpuMemory) -> orin_exec::Result<ParamBlock> {
    let _ = memory;
    ParamBlock::builder(kernel).memory(0x1000_u64)?.finish()
}

fn main() {
    let _ = forge;
}
