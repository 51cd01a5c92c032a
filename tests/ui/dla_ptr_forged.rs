//! The old route: `DlaPtr(pub(crate) *mut u64)` tokens. cuDLA handles are the executive's own
//! now, and a device accepts only tokens of its own live imports.
use orin_exec::engine::dla::DlaPtr;

fn main() {
    let _ = DlaPtr::NONE;
}
