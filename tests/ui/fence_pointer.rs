//! The old route: `RawFence::as_mut_ptr` handed out a pointer into a fence for engine
//! structs. Fences are the executive's own now; only the library writes them.
use orin_exec::engine::nvsci::RawFence;

fn main() {
    let mut fence = RawFence::cleared();
    let _ = fence.as_mut_ptr();
}
