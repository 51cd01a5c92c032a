// `sensor` declares only `writes = ["camera"]`: its context has no `image`.
use aeb::schedule::{body, cx};
use orin_exec::exec::TaskFault;

struct Sneaky;

impl body::Sensor for Sneaky {
    fn run(&mut self, mut cx: cx::Sensor<'_>) -> Result<(), TaskFault> {
        cx.image.bytes()[0] = 0;
        Ok(())
    }
}

fn main() {}
