//! A released handle cannot be used again: `destroy`, `unload`, `release` and `close` take
//! the handle by value. (A parent closed while its children live refuses and stays open.)
use orin_exec::engine::gpu::{Gpu, GpuModule, Stream};
use orin_exec::error::Context;

fn main() -> orin_exec::Result<()> {
    let gpu = Gpu::open(0)?;
    static IMAGE: &[u8] = &[];
    let module = GpuModule::load_image(&gpu, "timing", &[0; 32], IMAGE)?;
    let stream = Stream::create(&gpu, "s")?;
    stream.destroy()?;
    stream.synchronize()?;
    module.unload()?;
    let _ = module.function("stamp_globaltimer", Context::Platform)?;
    gpu.close()?;
    let _ = gpu.sm();
    Ok(())
}
