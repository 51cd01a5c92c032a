//! A `BufferView` is what a CPU task's slices are made from; it is made only from an engine
//! buffer, never from an address.
use orin_exec::engine::cpu::BufferView;

fn main() {
    let view = BufferView {
        ptr: 0x1000 as *mut u8,
        len: 4096,
    };
    let _ = view.len();
}
