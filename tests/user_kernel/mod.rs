//! The user's kernel of the integration tests (`tests/fixtures/user_kernel.cu`): its cubin
//! for both SMs, as a schedule generator would describe it, and its reference model, written
//! here as a user would (not in `orin-exec-kernels`).
#![allow(dead_code)]

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{CpuTask, TaskFault};
use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use orin_exec::table::{BufferId, CubinDesc, CubinVariant};

/// The user's kernel: `scale_index_i32(const int32_t* in, int32_t* out, int32_t k,
/// uint32_t n)`, `out[i] = in[i] * k + i`.
pub const KERNEL: &str = "scale_index_i32";
pub const N: u32 = 1000;
pub const K: i32 = -3;

#[repr(C, align(128))]
pub struct Aligned<T: ?Sized>(T);

pub static SM87: &Aligned<[u8]> = &Aligned(*include_bytes!("../fixtures/user_kernel.sm_87.cubin"));
pub static SM90: &Aligned<[u8]> = &Aligned(*include_bytes!("../fixtures/user_kernel.sm_90.cubin"));

/// The user's reference model of the kernel.
pub struct ScaleIndex;

impl KernelModel for ScaleIndex {
    fn params(&self) -> &[ParamKind] {
        &[
            ParamKind::DevPtr,
            ParamKind::DevPtr,
            ParamKind::I32,
            ParamKind::U32,
        ]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (k, n) = (l.i32(2)?, l.u32(3)? as usize);
        let (input, out) = l.buffers((read::<i32>(0, n), write::<i32>(1, n)))?;
        for (i, (o, x)) in out.iter_mut().zip(input).enumerate() {
            *o = x.wrapping_mul(k).wrapping_add(i as i32);
        }
        Ok(())
    }
}

/// The model, registered by each test for the user cubin.
pub static SCALE_INDEX: ScaleIndex = ScaleIndex;

pub fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// The user's cubin (both SMs).
pub fn user_cubin() -> &'static CubinDesc {
    Box::leak(Box::new(CubinDesc {
        name: "user",
        variants: leak(vec![
            CubinVariant {
                sm: 87,
                sha256: sha256(&SM87.0),
                image: &SM87.0,
            },
            CubinVariant {
                sm: 90,
                sha256: sha256(&SM90.0),
                image: &SM90.0,
            },
        ]),
    }))
}

/// The kernel's input: writes `in[i] = 13 f + 7 i - 300` in frame `f` into its buffer.
pub struct Produce(pub BufferId);

impl CpuTask for Produce {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let f = ctx.frame() as i32;
        for (i, v) in ctx.write_as::<i32>(self.0)?.iter_mut().enumerate() {
            *v = 13 * f + 7 * i as i32 - 300;
        }
        Ok(())
    }
}
