// `decision` declares `reads = ["detection", ...]`: its view of `detection` is read-only.
use aeb::schedule::{body, cx};
use orin_exec::exec::TaskFault;

struct Tamper;

impl body::Decision for Tamper {
    fn run(&mut self, cx: cx::Decision<'_>) -> Result<(), TaskFault> {
        cx.detection.bytes()[0] = 1;
        Ok(())
    }
}

fn main() {}
