//! Why a model (or the launch it asked things of) refused.

use core::fmt;

use crate::ParamKind;

/// Why a kernel model did not run to completion. SIL CUDA turns it into the stream's sticky
/// error: [`ModelError::OutOfBounds`], [`ModelError::ReadOnly`] and [`ModelError::TooLarge`]
/// into `CUDA_ERROR_ILLEGAL_ADDRESS`, [`ModelError::Misaligned`] into
/// `CUDA_ERROR_MISALIGNED_ADDRESS`, everything else into `CUDA_ERROR_LAUNCH_FAILED`.
///
/// ```
/// use orin_exec_kernel_model::{ModelError, ParamKind};
/// let e = ModelError::ArgKind { index: 2, expected: ParamKind::F32, given: ParamKind::U32 };
/// assert_eq!(e.to_string(), "parameter 2 is u32, the model reads it as f32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelError {
    /// The launch passes another number of arguments than the model declares.
    ArgCount {
        /// Parameters the model declares.
        expected: usize,
        /// Arguments the launch has.
        given: usize,
    },
    /// An argument is of another kind than the model declares or reads it as.
    ArgKind {
        /// The parameter index.
        index: usize,
        /// The kind the model declares or asked for.
        expected: ParamKind,
        /// The kind of the argument.
        given: ParamKind,
    },
    /// The model asked for a parameter the launch does not have.
    NoSuchParam {
        /// The parameter index asked for.
        index: usize,
        /// How many the launch has.
        count: usize,
    },
    /// A buffer's length in bytes overflows the address space.
    TooLarge {
        /// The parameter index.
        index: usize,
        /// The length asked for, in elements.
        len: usize,
    },
    /// A buffer is not inside memory the device may access.
    OutOfBounds {
        /// The parameter index.
        index: usize,
        /// The device address.
        addr: u64,
        /// The length in bytes.
        bytes: usize,
    },
    /// A buffer borrowed for writing lies in read-only memory.
    ReadOnly {
        /// The parameter index.
        index: usize,
        /// The device address.
        addr: u64,
        /// The length in bytes.
        bytes: usize,
    },
    /// A buffer's address is not aligned for its element type.
    Misaligned {
        /// The parameter index.
        index: usize,
        /// The device address.
        addr: u64,
        /// The alignment the element type needs.
        align: usize,
    },
    /// A buffer borrowed for writing overlaps another buffer of the same borrow (kernel
    /// pointers are `__restrict__`).
    Overlap {
        /// The written buffer's parameter index.
        index: usize,
        /// The other buffer's parameter index.
        other: usize,
    },
    /// More buffers than [`crate::MAX_PARAMS`] at once.
    TooManyBuffers {
        /// The limit.
        limit: usize,
    },
    /// A slice given to a reference function is shorter than its arguments require.
    BufferTooSmall {
        /// The kernel parameter's name (e.g. `"src"`).
        param: &'static str,
        /// Elements required.
        needed: usize,
        /// Elements given.
        len: usize,
    },
    /// The length a reference function derives from its arguments overflows `usize`.
    SizeOverflow {
        /// The kernel parameter's name.
        param: &'static str,
    },
    /// The model refused the launch for a reason of its own (e.g. a launch shape it does not
    /// support, or a C model's callback returned non-zero).
    Refused {
        /// What is wrong, in words.
        reason: &'static str,
    },
}

impl ModelError {
    /// `Ok` when a slice of `len` elements holds the `needed` a reference function requires;
    /// `needed == None` stands for a size that overflowed.
    ///
    /// ```
    /// use orin_exec_kernel_model::ModelError;
    /// assert_eq!(ModelError::check_len("x", Some(4), 8), Ok(()));
    /// assert_eq!(
    ///     ModelError::check_len("x", Some(4), 3),
    ///     Err(ModelError::BufferTooSmall { param: "x", needed: 4, len: 3 })
    /// );
    /// assert_eq!(ModelError::check_len("x", None, 3), Err(ModelError::SizeOverflow { param: "x" }));
    /// ```
    pub fn check_len(param: &'static str, needed: Option<usize>, len: usize) -> Result<(), Self> {
        match needed {
            None => Err(Self::SizeOverflow { param }),
            Some(needed) if len < needed => Err(Self::BufferTooSmall { param, needed, len }),
            Some(_) => Ok(()),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::ArgCount { expected, given } => write!(
                f,
                "the launch passes {given} arguments, the model declares {expected} parameters"
            ),
            Self::ArgKind {
                index,
                expected,
                given,
            } => write!(
                f,
                "parameter {index} is {given}, the model reads it as {expected}"
            ),
            Self::NoSuchParam { index, count } => write!(
                f,
                "the model asked for parameter {index}, the launch has {count}"
            ),
            Self::TooLarge { index, len } => write!(
                f,
                "parameter {index}: a buffer of {len} elements is larger than the address space"
            ),
            Self::OutOfBounds { index, addr, bytes } => write!(
                f,
                "parameter {index}: {bytes} bytes at {addr:#x} are out of bounds (not inside one \
                 allocation the device may access)"
            ),
            Self::ReadOnly { index, addr, bytes } => write!(
                f,
                "parameter {index}: {bytes} bytes at {addr:#x} are borrowed for writing but the \
                 memory is read-only"
            ),
            Self::Misaligned { index, addr, align } => write!(
                f,
                "parameter {index}: address {addr:#x} is not aligned to {align} bytes"
            ),
            Self::Overlap { index, other } => write!(
                f,
                "parameter {index} is written and overlaps parameter {other} (kernel pointers are \
                 __restrict__)"
            ),
            Self::TooManyBuffers { limit } => {
                write!(f, "more than {limit} buffers at once")
            }
            Self::BufferTooSmall { param, needed, len } => write!(
                f,
                "buffer `{param}` has {len} elements, the arguments need {needed}"
            ),
            Self::SizeOverflow { param } => {
                write!(f, "the size of buffer `{param}` overflows usize")
            }
            Self::Refused { reason } => write!(f, "the model refused the launch: {reason}"),
        }
    }
}

impl core::error::Error for ModelError {}
