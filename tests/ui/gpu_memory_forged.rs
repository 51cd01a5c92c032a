//! The old route: `GpuMemory` was a public enum, so safe code could make "pinned memory" at
//! any address and write through it. It is an opaque struct now.
use orin_exec::engine::gpu::GpuMemory;

fn main() {
    let mut forged = GpuMemory {
        device_addr: 0x1000,
        len: 4096,
    };
    let _ = forged.write_bytes(0, &[0xff; 64]);
}
