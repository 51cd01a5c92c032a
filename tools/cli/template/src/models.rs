//! The kernels' Rust models. On SIL, SIL CUDA runs a kernel's model in place of the GPU; on
//! the rig and on Orin the GPU runs the cubin and the models are the oracles a test compares
//! it with. A model declares the kernel's parameter kinds (their sizes must match the cubin)
//! and computes one launch on checked, typed views of the device buffers.

use orin_exec::kernel_model::ParamKind::{self, DevPtr, F32, U32};
use orin_exec::kernel_model::{HostMemory, KernelModel, Launch, ModelError, read, write};

/// `scale(const float* in, float* out, uint32_t n, float gain)`: `out[i] = in[i] * gain`.
pub struct Scale;

impl KernelModel for Scale {
    fn params(&self) -> &[ParamKind] {
        &[DevPtr, DevPtr, U32, F32]
    }

    fn launch(&self, launch: &mut Launch<'_>) -> Result<(), ModelError> {
        let (n, gain) = (launch.u32(2)? as usize, launch.f32(3)?);
        let (input, out) = launch.buffers((read::<f32>(0, n), write::<f32>(1, n)))?;
        for (o, i) in out.iter_mut().zip(input) {
            *o = i * gain;
        }
        Ok(())
    }
}

/// Runs `scale` on host copies: `out = input * gain` as the model computes it (the sink's
/// oracle). No allocation.
pub fn scale_on_host(input: &[f32], out: &mut [f32], gain: f32) -> Result<(), ModelError> {
    let n = u32::try_from(input.len()).unwrap_or(u32::MAX);
    let mut mem = HostMemory::new();
    let args = [mem.read(input)?, mem.write(out)?, n.into(), gain.into()];
    Launch::new(&args, &mut mem).run(&Scale)
}

/// Registers every kernel's model with SIL CUDA (before init; a no-op off SIL). A kernel
/// without a model fails init with an error that names it.
pub fn register() -> orin_exec::Result<()> {
    #[cfg(feature = "sil")]
    {
        use crate::schedule::cubin;
        orin_exec::sil::register_kernel_model(cubin::PIPELINE, "scale", &Scale)?;
    }
    Ok(())
}
