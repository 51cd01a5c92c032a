//! Nor can a parameter block be written field by field.
use orin_exec::engine::gpu::ParamBlock;

fn main() {
    let mut block = ParamBlock::empty();
    block.values[0] = 0x1000;
    block.len = 1;
}
