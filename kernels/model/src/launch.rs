//! One launch as a model sees it: its arguments, its shape, its clock, and its buffers.

use core::fmt;
use core::marker::PhantomData;

use bytemuck::Pod;

use crate::{KernelModel, MAX_PARAMS, ModelError, ParamKind};

/// One argument of a launch, decoded by its parameter's kind.
///
/// ```
/// use orin_exec_kernel_model::{Arg, ParamKind};
/// assert_eq!(Arg::from_bits(ParamKind::F32, 1.5f32.to_bits().into()), Arg::F32(1.5));
/// assert_eq!(Arg::I32(-1).kind(), ParamKind::I32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A device pointer (in SIL CUDA and [`crate::HostMemory`], a host address).
    Ptr(u64),
    /// `uint32_t`.
    U32(u32),
    /// `int32_t`.
    I32(i32),
    /// `uint64_t`.
    U64(u64),
    /// `float`.
    F32(f32),
}

impl Arg {
    /// The kind of the argument.
    pub const fn kind(self) -> ParamKind {
        match self {
            Arg::Ptr(_) => ParamKind::DevPtr,
            Arg::U32(_) => ParamKind::U32,
            Arg::I32(_) => ParamKind::I32,
            Arg::U64(_) => ParamKind::U64,
            Arg::F32(_) => ParamKind::F32,
        }
    }

    /// The argument of `kind` held in the low `kind.size()` bytes of `bits` (how a parameter
    /// value read little-endian from `kernelParams[i]` is widened).
    pub const fn from_bits(kind: ParamKind, bits: u64) -> Arg {
        match kind {
            ParamKind::DevPtr => Arg::Ptr(bits),
            ParamKind::U32 => Arg::U32(bits as u32),
            ParamKind::I32 => Arg::I32(bits as u32 as i32),
            ParamKind::U64 => Arg::U64(bits),
            ParamKind::F32 => Arg::F32(f32::from_bits(bits as u32)),
        }
    }
}

macro_rules! arg_from {
    ($($t:ty => $v:ident),+) => {$(
        /// The scalar argument of this type (a pointer is always [`Arg::Ptr`] explicitly).
        impl From<$t> for Arg {
            fn from(v: $t) -> Arg {
                Arg::$v(v)
            }
        }
    )+};
}

arg_from!(u32 => U32, i32 => I32, u64 => U64, f32 => F32);

/// `Ok` when `args` has exactly the declared `params`, kind by kind.
///
/// ```
/// use orin_exec_kernel_model::{Arg, ModelError, ParamKind::*, check_args};
/// assert_eq!(check_args(&[DevPtr, U32], &[Arg::Ptr(0x1000), Arg::U32(4)]), Ok(()));
/// assert_eq!(
///     check_args(&[DevPtr, U32], &[Arg::Ptr(0x1000)]),
///     Err(ModelError::ArgCount { expected: 2, given: 1 })
/// );
/// ```
pub fn check_args(params: &[ParamKind], args: &[Arg]) -> Result<(), ModelError> {
    if params.len() != args.len() {
        return Err(ModelError::ArgCount {
            expected: params.len(),
            given: args.len(),
        });
    }
    for (index, (&expected, arg)) in params.iter().zip(args).enumerate() {
        if arg.kind() != expected {
            return Err(ModelError::ArgKind {
                index,
                expected,
                given: arg.kind(),
            });
        }
    }
    Ok(())
}

/// One device buffer a model asks for: parameter `index` points at `bytes` bytes at `addr`,
/// aligned to `align`, read or (`write`) written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The parameter index.
    pub index: usize,
    /// The device address (the parameter's value).
    pub addr: u64,
    /// The length in bytes.
    pub bytes: usize,
    /// The alignment the element type needs.
    pub align: usize,
    /// Whether the model writes it.
    pub write: bool,
}

impl Access {
    const NONE: Access = Access {
        index: 0,
        addr: 0,
        bytes: 0,
        align: 1,
        write: false,
    };

    /// One past the last byte (saturating).
    pub fn end(&self) -> u64 {
        self.addr.saturating_add(self.bytes as u64)
    }

    fn overlaps(&self, other: &Access) -> bool {
        self.bytes != 0 && other.bytes != 0 && self.addr < other.end() && other.addr < self.end()
    }
}

/// `Ok` unless a written access overlaps another access (empty ones overlap nothing): kernel
/// pointers are `__restrict__`, and a `&mut [T]` may alias nothing.
///
/// ```
/// use orin_exec_kernel_model::{Access, ModelError, check_disjoint};
/// let a = |index, addr, write| Access { index, addr, bytes: 16, align: 4, write };
/// assert_eq!(check_disjoint(&[a(0, 0x1000, false), a(1, 0x1008, false)]), Ok(()));
/// assert_eq!(check_disjoint(&[a(0, 0x1000, true), a(1, 0x1010, false)]), Ok(()));
/// assert_eq!(
///     check_disjoint(&[a(0, 0x1000, false), a(1, 0x100c, true)]),
///     Err(ModelError::Overlap { index: 1, other: 0 })
/// );
/// ```
pub fn check_disjoint(accesses: &[Access]) -> Result<(), ModelError> {
    for (i, a) in accesses.iter().enumerate() {
        for b in &accesses[i + 1..] {
            if (a.write || b.write) && a.overlaps(b) {
                let (index, other) = if a.write {
                    (a.index, b.index)
                } else {
                    (b.index, a.index)
                };
                return Err(ModelError::Overlap { index, other });
            }
        }
    }
    Ok(())
}

/// The bytes of one [`Access`], as [`LaunchMemory::borrow`] hands them out.
#[derive(Debug)]
pub enum Borrowed<'m> {
    /// A buffer the model reads.
    Read(&'m [u8]),
    /// A buffer the model writes (and may read).
    Write(&'m mut [u8]),
}

/// The memory behind a launch's device pointers.
///
/// SIL CUDA implements it over the memory it knows (pinned, host-registered, imported);
/// [`crate::HostMemory`] implements it over slices the caller lends, so the same model runs as
/// an oracle on host copies.
pub trait LaunchMemory {
    /// Hands out every access at once: `out[i]` for `accesses[i]`, exactly `bytes` long,
    /// [`Borrowed::Write`] for a written access and [`Borrowed::Read`] otherwise.
    ///
    /// The caller ([`Launch::buffers`]) has checked the accesses with [`check_disjoint`]. The
    /// implementation refuses an access that is not aligned to its `align`
    /// ([`ModelError::Misaligned`]), not inside one piece of memory it knows
    /// ([`ModelError::OutOfBounds`]), or written in read-only memory
    /// ([`ModelError::ReadOnly`]); an empty access is always granted.
    fn borrow<'m>(
        &'m mut self,
        accesses: &[Access],
        out: &mut [Option<Borrowed<'m>>],
    ) -> Result<(), ModelError>;
}

/// One kernel launch: the arguments (checked against the model's parameter kinds by
/// [`Launch::run`]), the grid and block, the stream clock at kernel start, and typed access to
/// the buffers the pointer arguments point at.
pub struct Launch<'a> {
    args: &'a [Arg],
    grid: [u32; 3],
    block: [u32; 3],
    now_ns: u64,
    memory: &'a mut dyn LaunchMemory,
}

impl fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("args", &self.args)
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("now_ns", &self.now_ns)
            .finish_non_exhaustive()
    }
}

impl<'a> Launch<'a> {
    /// A launch of `args` on `memory`, with grid and block `[1, 1, 1]` and clock 0.
    pub fn new(args: &'a [Arg], memory: &'a mut dyn LaunchMemory) -> Self {
        Launch {
            args,
            grid: [1; 3],
            block: [1; 3],
            now_ns: 0,
            memory,
        }
    }

    /// The same launch with this grid and block.
    pub fn with_dims(mut self, grid: [u32; 3], block: [u32; 3]) -> Self {
        self.grid = grid;
        self.block = block;
        self
    }

    /// The same launch with the stream clock at kernel start `now_ns`.
    pub fn with_now_ns(mut self, now_ns: u64) -> Self {
        self.now_ns = now_ns;
        self
    }

    /// Checks the arguments against `model.params()` ([`check_args`]), then runs the model.
    pub fn run(mut self, model: &dyn KernelModel) -> Result<(), ModelError> {
        check_args(model.params(), self.args)?;
        model.launch(&mut self)
    }

    /// The grid dimensions.
    pub fn grid(&self) -> [u32; 3] {
        self.grid
    }

    /// The block dimensions.
    pub fn block(&self) -> [u32; 3] {
        self.block
    }

    /// The stream's clock when the kernel starts, in ns (what a `%globaltimer` read at the
    /// start of the kernel would give; in SIL CUDA the SIL clock).
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// Every argument.
    pub fn args(&self) -> &[Arg] {
        self.args
    }

    fn arg(&self, index: usize) -> Result<Arg, ModelError> {
        self.args
            .get(index)
            .copied()
            .ok_or(ModelError::NoSuchParam {
                index,
                count: self.args.len(),
            })
    }

    fn wrong(&self, index: usize, expected: ParamKind, given: Arg) -> ModelError {
        ModelError::ArgKind {
            index,
            expected,
            given: given.kind(),
        }
    }

    /// Parameter `index` as a `uint32_t` (another kind is [`ModelError::ArgKind`]).
    pub fn u32(&self, index: usize) -> Result<u32, ModelError> {
        match self.arg(index)? {
            Arg::U32(v) => Ok(v),
            a => Err(self.wrong(index, ParamKind::U32, a)),
        }
    }

    /// Parameter `index` as an `int32_t`.
    pub fn i32(&self, index: usize) -> Result<i32, ModelError> {
        match self.arg(index)? {
            Arg::I32(v) => Ok(v),
            a => Err(self.wrong(index, ParamKind::I32, a)),
        }
    }

    /// Parameter `index` as a `uint64_t`.
    pub fn u64(&self, index: usize) -> Result<u64, ModelError> {
        match self.arg(index)? {
            Arg::U64(v) => Ok(v),
            a => Err(self.wrong(index, ParamKind::U64, a)),
        }
    }

    /// Parameter `index` as a `float`.
    pub fn f32(&self, index: usize) -> Result<f32, ModelError> {
        match self.arg(index)? {
            Arg::F32(v) => Ok(v),
            a => Err(self.wrong(index, ParamKind::F32, a)),
        }
    }

    /// Borrows the buffers that pointer parameters point at, all at once: one [`read`] or
    /// [`write`] (parameter index, length in elements), or a tuple of up to 8 of them, gives
    /// a `&[T]`, a `&mut [T]`, or a tuple of those.
    ///
    /// Refused: a parameter that is not a pointer ([`ModelError::ArgKind`]), a written buffer
    /// that overlaps another one of the same call ([`ModelError::Overlap`]), and whatever the
    /// memory refuses (out of bounds, read-only, misaligned; see [`LaunchMemory::borrow`]).
    ///
    /// ```
    /// use orin_exec_kernel_model::{HostMemory, Launch, read, write};
    /// let (src, mut dst) = ([1u32, 2, 3], [0u32; 3]);
    /// let mut mem = HostMemory::new();
    /// let args = [mem.read(&src)?, mem.write(&mut dst)?];
    /// let mut launch = Launch::new(&args, &mut mem);
    /// let (x, y) = launch.buffers((read::<u32>(0, 3), write::<u32>(1, 3)))?;
    /// y.copy_from_slice(x);
    /// // The same buffer written twice in one borrow is refused.
    /// assert!(launch.buffers((write::<u32>(1, 3), write::<u32>(1, 1))).is_err());
    /// drop(launch);
    /// drop(mem);
    /// assert_eq!(dst, [1, 2, 3]);
    /// # Ok::<(), orin_exec_kernel_model::ModelError>(())
    /// ```
    pub fn buffers<'s, S: BufferSet<'s>>(&'s mut self, set: S) -> Result<S::Slices, ModelError> {
        let mut requests = [Request::NONE; MAX_PARAMS];
        let n = set.requests(&mut requests);
        let mut accesses = [Access::NONE; MAX_PARAMS];
        for (a, r) in accesses.iter_mut().zip(&requests[..n]) {
            let addr = match self.arg(r.index)? {
                Arg::Ptr(p) => p,
                other => return Err(self.wrong(r.index, ParamKind::DevPtr, other)),
            };
            if r.size == 0 {
                return Err(ModelError::Refused {
                    reason: "a buffer of a zero-sized element type",
                });
            }
            let bytes = r.len.checked_mul(r.size).ok_or(ModelError::TooLarge {
                index: r.index,
                len: r.len,
            })?;
            *a = Access {
                index: r.index,
                addr,
                bytes,
                align: r.align,
                write: r.write,
            };
        }
        let accesses = &accesses[..n];
        check_disjoint(accesses)?;
        let mut out = [const { None }; MAX_PARAMS];
        self.memory.borrow(accesses, &mut out[..n])?;
        S::take(&mut out[..n], accesses)
    }
}

/// What one [`read`] or [`write`] asks for (internal to [`BufferSet`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Request {
    index: usize,
    len: usize,
    size: usize,
    align: usize,
    write: bool,
}

impl Request {
    const NONE: Request = Request {
        index: 0,
        len: 0,
        size: 1,
        align: 1,
        write: false,
    };
}

/// A buffer a model reads: parameter `index`, `len` elements of `T`. Made by [`read`].
#[derive(Debug)]
pub struct Read<T> {
    index: usize,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

/// A buffer a model writes (and may read): parameter `index`, `len` elements of `T`. Made by
/// [`write`].
#[derive(Debug)]
pub struct Write<T> {
    index: usize,
    len: usize,
    _t: PhantomData<fn() -> T>,
}

/// Parameter `index` read as `len` elements of `T`; borrowed by [`Launch::buffers`] as `&[T]`.
pub const fn read<T: Pod>(index: usize, len: usize) -> Read<T> {
    Read {
        index,
        len,
        _t: PhantomData,
    }
}

/// Parameter `index` written as `len` elements of `T`; borrowed by [`Launch::buffers`] as
/// `&mut [T]`.
pub const fn write<T: Pod>(index: usize, len: usize) -> Write<T> {
    Write {
        index,
        len,
        _t: PhantomData,
    }
}

mod sealed {
    pub trait Sealed {}
}

/// One [`read`] or [`write`] (internal to [`BufferSet`]).
#[doc(hidden)]
pub trait Spec<'m>: sealed::Sealed {
    type Slice;
    fn request(&self) -> Request;
    fn cast(b: Borrowed<'m>, a: &Access) -> Result<Self::Slice, ModelError>;
}

fn misaligned(a: &Access) -> ModelError {
    ModelError::Misaligned {
        index: a.index,
        addr: a.addr,
        align: a.align,
    }
}

impl<T: Pod> sealed::Sealed for Read<T> {}
impl<'m, T: Pod> Spec<'m> for Read<T> {
    type Slice = &'m [T];

    fn request(&self) -> Request {
        Request {
            index: self.index,
            len: self.len,
            size: size_of::<T>(),
            align: align_of::<T>(),
            write: false,
        }
    }

    fn cast(b: Borrowed<'m>, a: &Access) -> Result<&'m [T], ModelError> {
        let bytes: &'m [u8] = match b {
            Borrowed::Read(r) => r,
            Borrowed::Write(w) => w,
        };
        if bytes.is_empty() {
            return Ok(&[]);
        }
        bytemuck::try_cast_slice(bytes).map_err(|_| misaligned(a))
    }
}

impl<T: Pod> sealed::Sealed for Write<T> {}
impl<'m, T: Pod> Spec<'m> for Write<T> {
    type Slice = &'m mut [T];

    fn request(&self) -> Request {
        Request {
            index: self.index,
            len: self.len,
            size: size_of::<T>(),
            align: align_of::<T>(),
            write: true,
        }
    }

    fn cast(b: Borrowed<'m>, a: &Access) -> Result<&'m mut [T], ModelError> {
        match b {
            Borrowed::Write([]) => Ok(&mut []),
            Borrowed::Write(w) => bytemuck::try_cast_slice_mut(w).map_err(|_| misaligned(a)),
            // The memory broke its contract: a written access must come back writable.
            Borrowed::Read(_) => Err(ModelError::ReadOnly {
                index: a.index,
                addr: a.addr,
                bytes: a.bytes,
            }),
        }
    }
}

/// What [`Launch::buffers`] takes: one [`read`] or [`write`], or a tuple of up to 8 of them.
/// Sealed.
pub trait BufferSet<'m>: sealed::Sealed {
    /// The slices handed out: `&'m [T]` for a read, `&'m mut [T]` for a write.
    type Slices;
    #[doc(hidden)]
    fn requests(&self, out: &mut [Request; MAX_PARAMS]) -> usize;
    #[doc(hidden)]
    fn take(
        borrowed: &mut [Option<Borrowed<'m>>],
        accesses: &[Access],
    ) -> Result<Self::Slices, ModelError>;
}

fn take_one<'m, S: Spec<'m>>(
    borrowed: &mut [Option<Borrowed<'m>>],
    accesses: &[Access],
    i: usize,
) -> Result<S::Slice, ModelError> {
    let a = accesses
        .get(i)
        .ok_or(ModelError::TooManyBuffers { limit: MAX_PARAMS })?;
    let b = borrowed
        .get_mut(i)
        .and_then(Option::take)
        .ok_or(ModelError::OutOfBounds {
            index: a.index,
            addr: a.addr,
            bytes: a.bytes,
        })?;
    let len = match &b {
        Borrowed::Read(r) => r.len(),
        Borrowed::Write(w) => w.len(),
    };
    if len != a.bytes {
        return Err(ModelError::OutOfBounds {
            index: a.index,
            addr: a.addr,
            bytes: a.bytes,
        });
    }
    S::cast(b, a)
}

impl<'m, T: Pod> BufferSet<'m> for Read<T> {
    type Slices = &'m [T];
    fn requests(&self, out: &mut [Request; MAX_PARAMS]) -> usize {
        out[0] = Spec::request(self);
        1
    }
    fn take(b: &mut [Option<Borrowed<'m>>], a: &[Access]) -> Result<Self::Slices, ModelError> {
        take_one::<Self>(b, a, 0)
    }
}

impl<'m, T: Pod> BufferSet<'m> for Write<T> {
    type Slices = &'m mut [T];
    fn requests(&self, out: &mut [Request; MAX_PARAMS]) -> usize {
        out[0] = Spec::request(self);
        1
    }
    fn take(b: &mut [Option<Borrowed<'m>>], a: &[Access]) -> Result<Self::Slices, ModelError> {
        take_one::<Self>(b, a, 0)
    }
}

macro_rules! tuple_sets {
    ($(($($t:ident $i:tt),+);)+) => {$(
        impl<$($t: sealed::Sealed),+> sealed::Sealed for ($($t,)+) {}
        impl<'m, $($t: Spec<'m>),+> BufferSet<'m> for ($($t,)+) {
            type Slices = ($($t::Slice,)+);
            fn requests(&self, out: &mut [Request; MAX_PARAMS]) -> usize {
                let mut n = 0;
                $(out[$i] = self.$i.request(); n += 1;)+
                n
            }
            fn take(
                b: &mut [Option<Borrowed<'m>>],
                a: &[Access],
            ) -> Result<Self::Slices, ModelError> {
                Ok(($(take_one::<$t>(b, a, $i)?,)+))
            }
        }
    )+};
}

tuple_sets! {
    (A 0);
    (A 0, B 1);
    (A 0, B 1, C 2);
    (A 0, B 1, C 2, D 3);
    (A 0, B 1, C 2, D 3, E 4);
    (A 0, B 1, C 2, D 3, E 4, F 5);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
}
