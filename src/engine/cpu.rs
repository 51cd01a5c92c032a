//! The CPU engine's view of buffers: the only place where CPU code gets slices of shared
//! engine memory.
//!
//! A CPU task receives a [`CpuCtx`]. Each `read`/`write` first asks the executive's
//! [`AccessGate`] whether the task declared the access and whether every engine task that
//! must precede it has reached its fence; only then does it hand out a slice. Within one task
//! run, a buffer is handed out either once mutably or any number of times immutably, so the
//! slices never alias mutably.

use core::cell::Cell;
use core::marker::PhantomData;

use crate::engine::gpu::GpuMemory;
use crate::engine::nvsci::BufObj;
use crate::error::{Error, Result, Table};
use crate::limits::MAX_BUFFERS;
use crate::table::{BufferId, TaskId};

/// CPU mapping of one buffer copy. It is made only from an engine buffer (an NvSciBuf
/// buffer's CPU mapping or pinned [`GpuMemory`]), never from an address; the runtime keeps
/// that buffer until its CPU workers have stopped and nothing can reach the view.
#[derive(Clone, Copy, Debug)]
pub struct BufferView {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the view is an address range; access to it is arbitrated by `CpuCtx` and the
// executive's fence checks, on whichever thread the task runs.
unsafe impl Send for BufferView {}
// SAFETY: as above.
unsafe impl Sync for BufferView {}

impl BufferView {
    /// No mapping (buffers the CPU does not touch).
    pub const NONE: BufferView = BufferView {
        ptr: core::ptr::null_mut(),
        len: 0,
    };

    /// The CPU mapping of `buf` ([`BufObj::size`] bytes), if it was allocated with CPU access.
    pub(crate) fn of_buffer(buf: &BufObj) -> Option<Self> {
        let ptr = buf.cpu_ptr()?;
        Some(BufferView {
            ptr,
            len: buf.size() as usize,
        })
    }

    /// The host side of pinned GPU memory.
    pub(crate) fn of_pinned(memory: &GpuMemory) -> Option<Self> {
        let (ptr, len) = memory.pinned_host()?;
        Some(BufferView { ptr, len })
    }

    /// Whether it maps anything.
    pub fn is_mapped(&self) -> bool {
        !self.ptr.is_null()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Base address.
    pub fn addr(&self) -> u64 {
        self.ptr as u64
    }

    /// Copy bytes in (init and tests: no engine may hold the buffer).
    pub(crate) fn fill_from(&self, src: &[u8]) -> usize {
        let n = src.len().min(self.len);
        if self.is_mapped() {
            // SAFETY: the view maps `len` bytes; the caller guarantees no engine touches them.
            unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr, n) };
        }
        n
    }

    /// Copy bytes out (init, tests and reports: no engine may hold the buffer).
    pub(crate) fn copy_to(&self, dst: &mut [u8]) -> usize {
        let n = dst.len().min(self.len);
        if self.is_mapped() {
            // SAFETY: as in `fill_from`.
            unsafe { core::ptr::copy_nonoverlapping(self.ptr, dst.as_mut_ptr(), n) };
        }
        n
    }
}

/// The executive's side of a CPU buffer access.
pub trait AccessGate {
    /// Check that `task` may touch `buffer` now (declared, and every preceding engine task
    /// reached its fence); return the mapping of the copy of the current frame.
    fn admit(&self, task: TaskId, buffer: BufferId, write: bool) -> Result<BufferView>;
    /// The buffer's name (for errors).
    fn buffer_name(&self, buffer: BufferId) -> &'static str;
}

/// Plain-data element types a buffer can be viewed as.
pub trait Element: Copy + sealed::Sealed + 'static {}
mod sealed {
    pub trait Sealed {}
}
macro_rules! elements {
    ($($t:ty),*) => { $(impl sealed::Sealed for $t {} impl Element for $t {})* };
}
elements!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// What a CPU task sees of the runtime while it runs.
pub struct CpuCtx<'a> {
    gate: &'a dyn AccessGate,
    task: TaskId,
    task_name: &'static str,
    frame: u64,
    inputs_valid: bool,
    read: Cell<u64>,
    written: Cell<u64>,
    _slices: PhantomData<&'a mut [u8]>,
}

impl<'a> CpuCtx<'a> {
    /// A context for one run of `task` in `frame`.
    pub(crate) fn new(
        gate: &'a dyn AccessGate,
        task: TaskId,
        task_name: &'static str,
        frame: u64,
        inputs_valid: bool,
    ) -> Self {
        const { assert!(MAX_BUFFERS <= 64) };
        CpuCtx {
            gate,
            task,
            task_name,
            frame,
            inputs_valid,
            read: Cell::new(0),
            written: Cell::new(0),
            _slices: PhantomData,
        }
    }

    /// The major frame being run.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The task's name.
    pub fn task_name(&self) -> &'static str {
        self.task_name
    }

    /// False when a dependency of this run timed out: inputs may be stale.
    pub fn inputs_valid(&self) -> bool {
        self.inputs_valid
    }

    fn bit(buffer: BufferId) -> Result<u64> {
        if (buffer.0 as usize) < MAX_BUFFERS {
            Ok(1 << buffer.0)
        } else {
            Err(Error::Capacity {
                table: Table::Buffers,
                limit: MAX_BUFFERS as u32,
            })
        }
    }

    /// Read the frame's copy of `buffer`.
    pub fn read(&self, buffer: BufferId) -> Result<&'a [u8]> {
        let bit = Self::bit(buffer)?;
        if self.written.get() & bit != 0 {
            return Err(Error::BufferNotDeclared {
                task: self.task_name,
                buffer: self.gate.buffer_name(buffer),
            });
        }
        let view = self.gate.admit(self.task, buffer, false)?;
        self.read.set(self.read.get() | bit);
        if !view.is_mapped() {
            return Ok(&[]);
        }
        // SAFETY: the gate admitted the read: every engine task that writes this copy and
        // precedes the task reached its fence, and no engine task that follows it can start
        // before this task signals. Within this run the buffer is not handed out mutably
        // (checked above). The mapping lives as long as the runtime, which outlives 'a.
        Ok(unsafe { core::slice::from_raw_parts(view.ptr, view.len) })
    }

    /// Write the frame's copy of `buffer` (once per run).
    pub fn write(&self, buffer: BufferId) -> Result<&'a mut [u8]> {
        let bit = Self::bit(buffer)?;
        if (self.read.get() | self.written.get()) & bit != 0 {
            return Err(Error::BufferNotDeclared {
                task: self.task_name,
                buffer: self.gate.buffer_name(buffer),
            });
        }
        let view = self.gate.admit(self.task, buffer, true)?;
        self.written.set(self.written.get() | bit);
        if !view.is_mapped() {
            return Ok(&mut []);
        }
        // SAFETY: as in `read`, and the gate also checked that every engine task reading this
        // copy before the task has completed; this is the only slice of it in this run.
        Ok(unsafe { core::slice::from_raw_parts_mut(view.ptr, view.len) })
    }

    /// Read `buffer` as elements of `T` (its address must be aligned for `T`).
    pub fn read_as<T: Element>(&self, buffer: BufferId) -> Result<&'a [T]> {
        let bytes = self.read(buffer)?;
        cast::<T>(bytes, self.gate.buffer_name(buffer))
    }

    /// Write `buffer` as elements of `T` (its address must be aligned for `T`).
    pub fn write_as<T: Element>(&self, buffer: BufferId) -> Result<&'a mut [T]> {
        let bytes = self.write(buffer)?;
        let len = aligned_len::<T>(bytes, self.gate.buffer_name(buffer))?;
        // SAFETY: the address is aligned for T (checked), `len * size_of::<T>()` bytes are in
        // the slice, every bit pattern is a valid T (Element is sealed to plain numbers), and
        // the byte slice is consumed so the two views never coexist.
        Ok(unsafe { core::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), len) })
    }
}

/// How many `T` fit in `bytes`, if `bytes` is aligned for `T`.
fn aligned_len<T: Element>(bytes: &[u8], name: &'static str) -> Result<usize> {
    let align = align_of::<T>();
    if !(bytes.as_ptr() as usize).is_multiple_of(align) {
        return Err(Error::BufferMisaligned {
            buffer: name,
            align: align as u64,
            addr: bytes.as_ptr() as u64,
        });
    }
    Ok(bytes.len() / size_of::<T>())
}

fn cast<'s, T: Element>(bytes: &'s [u8], name: &'static str) -> Result<&'s [T]> {
    let len = aligned_len::<T>(bytes, name)?;
    // SAFETY: aligned (checked), in bounds, every bit pattern is a valid T (sealed Element).
    Ok(unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), len) })
}

/// A buffer a CPU task reads: the frame's copy, admitted by the executive, immutable.
///
/// Generated per-task contexts hold one `Buf` per buffer the task declares under `reads`.
#[derive(Clone, Copy, Debug)]
pub struct Buf<'a> {
    bytes: &'a [u8],
    name: &'static str,
}

impl<'a> Buf<'a> {
    /// The bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The bytes as elements of `T` (the buffer must be aligned for `T`).
    pub fn as_slice<T: Element>(&self) -> Result<&'a [T]> {
        cast::<T>(self.bytes, self.name)
    }

    /// The buffer's name in the schedule.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A buffer a CPU task writes: the frame's copy, admitted by the executive, exclusive for
/// the run.
///
/// Generated per-task contexts hold one `BufMut` per buffer the task declares under `writes`.
#[derive(Debug)]
pub struct BufMut<'a> {
    bytes: &'a mut [u8],
    name: &'static str,
}

impl<'a> BufMut<'a> {
    /// The bytes.
    pub fn bytes(&mut self) -> &mut [u8] {
        self.bytes
    }

    /// The bytes, for the rest of the run.
    pub fn into_bytes(self) -> &'a mut [u8] {
        self.bytes
    }

    /// The bytes as elements of `T`, for the rest of the run (the buffer must be aligned for
    /// `T`).
    pub fn into_slice<T: Element>(self) -> Result<&'a mut [T]> {
        let len = aligned_len::<T>(self.bytes, self.name)?;
        // SAFETY: aligned (checked), `len * size_of::<T>()` bytes are in the slice, every bit
        // pattern is a valid T (Element is sealed to plain numbers), and `self` is consumed
        // so the byte view and the typed view never coexist.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.bytes.as_mut_ptr().cast::<T>(), len) })
    }

    /// The buffer's name in the schedule.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl<'a> CpuCtx<'a> {
    /// Admit a read of the frame's copy of `buffer` (what generated contexts call for each
    /// declared read).
    pub fn buf(&self, buffer: BufferId) -> Result<Buf<'a>> {
        Ok(Buf {
            bytes: self.read(buffer)?,
            name: self.gate.buffer_name(buffer),
        })
    }

    /// Admit a write of the frame's copy of `buffer` (what generated contexts call for each
    /// declared write).
    pub fn buf_mut(&self, buffer: BufferId) -> Result<BufMut<'a>> {
        Ok(BufMut {
            bytes: self.write(buffer)?,
            name: self.gate.buffer_name(buffer),
        })
    }
}
