//! The old route: `platform::sil::counter` gave out the address of a semaphore's counter.
use orin_exec::engine::platform::sil;

fn main() {
    let _ = sil::counter;
}
