//! Pinned, device-mapped host memory for the back-to-back tests and the benchmark, with
//! bounds-checked copies in and out.
//!
//! `orin_exec::engine::gpu::GpuMemory::pinned` allocates the memory (`cuMemHostAlloc` with
//! `DEVICEMAP | PORTABLE`); its bounds-checked `write_bytes`/`read_bytes` do the copies.
//! Kernels get the memory only through `ParamBlock::builder(..).memory(HostMapped::memory())`,
//! never as a number, and a parameter block keeps the memory allocated while it exists.
//!
//! Rule of use (kept by every caller in this crate): copy in, launch, `Stream::synchronize`,
//! copy out. No Rust reference to the mapped bytes is ever created, so the GPU never writes
//! memory that a live reference points at; the copies go through raw pointers only.

use orin_exec::engine::gpu::{Gpu, GpuMemory};
use orin_exec::error::Context;

/// A pinned host allocation mapped into the GPU.
#[derive(Debug)]
pub struct HostMapped {
    mem: Option<GpuMemory>,
    len: usize,
    what: &'static str,
}

impl HostMapped {
    /// Allocate `len` bytes (`len > 0`) in `gpu`'s context, zero-filled.
    pub fn alloc(gpu: &Gpu, len: usize, what: &'static str) -> orin_exec::Result<Self> {
        let mem = GpuMemory::pinned(gpu, len as u64, Context::Buffer(what))?;
        Ok(HostMapped {
            mem: Some(mem),
            len,
            what,
        })
    }

    /// The memory, for a kernel's parameter block.
    pub fn memory(&self) -> &GpuMemory {
        self.mem
            .as_ref()
            .expect("allocated from `alloc` until `release` consumes it")
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the allocation is empty (never: `alloc` needs `len > 0`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check(&self, offset: usize, n: usize) {
        assert!(
            offset.checked_add(n).is_some_and(|end| end <= self.len),
            "{}: {n} bytes at offset {offset} exceed the {}-byte allocation",
            self.what,
            self.len
        );
    }

    /// Copy `src` to byte `offset` (no GPU work may be using the range).
    pub fn write(&mut self, offset: usize, src: &[u8]) {
        self.check(offset, src.len());
        if let Some(mem) = self.mem.as_mut() {
            mem.write_bytes(offset, src).expect("range checked above");
        }
    }

    /// Copy bytes from `offset` into `dst` (after the stream was synchronised).
    pub fn read(&self, offset: usize, dst: &mut [u8]) {
        self.check(offset, dst.len());
        if let Some(mem) = self.mem.as_ref() {
            mem.read_bytes(offset, dst).expect("range checked above");
        }
    }

    /// Copy `values` as little-endian words to element `index` (of `size_of::<T>()` bytes).
    pub fn write_words<T: Word>(&mut self, index: usize, values: &[T]) {
        let mut bytes = Vec::with_capacity(values.len() * T::SIZE);
        for v in values {
            v.put(&mut bytes);
        }
        self.write(index * T::SIZE, &bytes);
    }

    /// Read `n` little-endian words starting at element `index`.
    pub fn read_words<T: Word>(&self, index: usize, n: usize) -> Vec<T> {
        let mut bytes = vec![0u8; n * T::SIZE];
        self.read(index * T::SIZE, &mut bytes);
        bytes.chunks_exact(T::SIZE).map(T::get).collect()
    }

    /// Free the allocation.
    pub fn release(mut self) -> orin_exec::Result<()> {
        match self.mem.take() {
            Some(m) => m.release(Context::Buffer(self.what)),
            None => Ok(()),
        }
    }
}

impl Drop for HostMapped {
    fn drop(&mut self) {
        if let Some(m) = self.mem.take() {
            let _ = m.release(Context::Buffer(self.what));
        }
    }
}

/// A plain number stored little-endian in device memory.
pub trait Word: Copy {
    /// Bytes per value.
    const SIZE: usize;
    /// Append the little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Decode `SIZE` little-endian bytes.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! words {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const SIZE: usize = size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; size_of::<$t>()];
                b.copy_from_slice(&bytes[..size_of::<$t>()]);
                <$t>::from_le_bytes(b)
            }
        }
    )*};
}
words!(u8, i8, i32, u32, u64, f32);
