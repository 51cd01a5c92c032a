//! Checks that a GPU image is an ELF cubin for one SM and holds no PTX.
//!
//! DESIGN.md rule 2: GPU code ships as cubins (SASS) for the exact target, never PTX, and never
//! a fatbin (which may carry PTX for the driver to JIT). [`check_cubin`] is the one gate that
//! every image passes before it is committed (`kernels/build.rs`), and again before the runtime
//! hands it to `cuModuleLoadData` at init.
//!
//! The crate is `no_std`, allocation-free, dependency-free and contains no `unsafe`. Every
//! offset read from the image is bounds-checked with checked arithmetic; no input makes it
//! panic (the tests feed it every truncation of a real cubin and random byte flips).
//!
//! # What it relies on (observed with nvcc 13.0.88, `readelf` on real cubins)
//!
//! * ELF64, little-endian, `e_machine` = [`EM_CUDA`] (190), `e_type` = `ET_EXEC`.
//! * The SM is in `e_flags`, in one of two encodings selected by the ELF ABI version
//!   (`e_ident[EI_ABIVERSION]`):
//!   * ABI version **8** (CUDA 13): bits 8..15, e.g. sm_90 → `0x0600_5a04`, sm_87 → `0x0600_5704`;
//!   * ABI version **0..=7** (older toolkits): bits 0..7 (`EF_CUDA_SM`), e.g. `0x0050_055a`.
//!
//!   Any other ABI version is rejected ([`CubinError::UnknownAbiVersion`]) rather than guessed.
//! * A kernel entry (`extern "C" __global__`) is a symbol with type `STT_FUNC`, binding
//!   `STB_GLOBAL`, the CUDA entry bit `0x10` (`STO_CUDA_ENTRY`) in `st_other`, defined in a
//!   section named `.text.<name>`. Internal device functions (for example the slow path of IEEE
//!   division, `$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath`) are `STB_WEAK` without the
//!   entry bit and are not kernels.
//! * A kernel's parameter layout is in the section `.nv.info.<name>` (type `0x7000_0000`), a
//!   sequence of attribute records `{u8 format, u8 attribute, ...}`; format 4 (`EIFMT_SVAL`) is
//!   followed by a `u16` length and that many bytes, formats 1..=3 by a 2-byte value. Attribute
//!   `0x17` (`EIATTR_KPARAM_INFO`) is 12 bytes: `u32` index, `u16` ordinal, `u16` offset, `u32`
//!   flags with the parameter size in bytes in bits 18..31. Attribute `0x19`
//!   (`EIATTR_CBANK_PARAM_SIZE`, 2-byte value) is the total parameter size.
//! * `.note.nv.tkinfo` (note type 2000, owner `NVIDIA Corp`) names the tool that produced the
//!   SASS (`ptxas`), its version line and its options; see [`ToolkitInfo`].
//!
//! # What counts as PTX or a fatbin
//!
//! * A text image that starts, after whitespace and `//` / `/* */` comments, with `.version`
//!   or `.target`, or any non-ELF image that contains `.target sm_` / `.target compute_`.
//! * Any ELF section whose name contains `ptx` (ASCII case-insensitive), e.g. the
//!   `.nv_debug_ptx_txt` that `nvcc -G` embeds.
//! * PTX directive text (`.target sm_`, `.target compute_`, `.address_size `) anywhere in an
//!   ELF image.
//! * A fatbin: magic `0xBA55ED50` at offset 0 (a fatbin file, as `nvcc -fatbin` writes), the
//!   fatbin wrapper magic `0x466243B1` at offset 0, any ELF section whose name contains `fatbin`
//!   (ASCII case-insensitive: `.nv_fatbin`, `.nvFatBinSegment` in host objects), or any ELF
//!   section whose data starts with the fatbin magic.
#![no_std]
#![forbid(unsafe_code)]

use core::fmt;

/// `e_machine` of a CUDA ELF.
pub const EM_CUDA: u16 = 190;
/// Magic number at the start of a fatbin container (`nvcc -fatbin`), little-endian.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// Magic number of the fatbin wrapper struct (`__fatBinC_Wrapper_t`), little-endian.
pub const FATBIN_WRAPPER_MAGIC: u32 = 0x4662_43B1;
/// The highest ELF ABI version whose SM encoding this crate knows.
pub const MAX_KNOWN_ABI_VERSION: u8 = 8;
/// The most parameters (`EIATTR_KPARAM_INFO` records) one kernel may have. CUDA's parameter
/// space is 32,764 bytes; kernels this runtime launches have at most 16 parameters.
pub const MAX_KERNEL_PARAMS: usize = 1024;
/// The most kernel entry points one cubin may define.
pub const MAX_KERNELS: usize = 1024;
/// The longest section or kernel name, in bytes (mangled template kernels reach a few hundred).
pub const MAX_NAME_LEN: usize = 4096;

const ELF_MAGIC: [u8; 4] = [0x7f, b'E', b'L', b'F'];
const EHDR_SIZE: u64 = 64;
const SHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SYM_SIZE: u64 = 24;
const ET_EXEC: u16 = 2;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_CUDA_INFO: u32 = 0x7000_0000;
const SHN_LORESERVE: u64 = 0xff00;
const STT_FUNC: u8 = 2;
const STB_GLOBAL: u8 = 1;
const STO_CUDA_ENTRY: u8 = 0x10;
const EIFMT_NVAL: u8 = 1;
const EIFMT_SVAL: u8 = 4;
const EIATTR_KPARAM_INFO: u8 = 0x17;
const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
const KPARAM_INFO_LEN: usize = 12;
const NT_CUDA_TKINFO: u32 = 2000;
const KERNEL_INFO_PREFIX: &[u8] = b".nv.info.";

/// Which part of the ELF file a [`CubinError::Truncated`] refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ElfPart {
    /// The 64-byte ELF header.
    Header,
    /// The program header table.
    ProgramHeaders,
    /// The section header table.
    SectionHeaders,
    /// The data of one section.
    Section {
        /// Index of the section in the section header table.
        index: u32,
    },
}

impl fmt::Display for ElfPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Header => f.write_str("the ELF header"),
            Self::ProgramHeaders => f.write_str("the program header table"),
            Self::SectionHeaders => f.write_str("the section header table"),
            Self::Section { index } => write!(f, "the data of section {index}"),
        }
    }
}

/// Why an image is not an acceptable cubin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum CubinError {
    /// The image does not start with the ELF magic (and is neither PTX nor a fatbin).
    NotElf,
    /// The image is ELF but not 64-bit little-endian.
    NotElf64Le {
        /// `e_ident[EI_CLASS]` (2 = 64-bit).
        class: u8,
        /// `e_ident[EI_DATA]` (1 = little-endian).
        data: u8,
    },
    /// A part of the file lies (partly) outside the image.
    Truncated {
        /// The part that does not fit.
        part: ElfPart,
        /// The offset one past the end of that part (saturated at `u64::MAX`).
        end: u64,
        /// The length of the image.
        len: u64,
    },
    /// The ELF structure is inconsistent.
    Malformed {
        /// What is wrong.
        reason: &'static str,
    },
    /// The image is PTX or contains PTX.
    ContainsPtx {
        /// Byte offset of the PTX: 0 for a PTX text image, the section's file offset for a
        /// PTX section, the offset of the directive for embedded PTX text.
        offset: u64,
    },
    /// The image is, or contains, a fatbin container.
    IsFatbin {
        /// Byte offset of the fatbin: 0 for a fatbin file, the section's file offset for a
        /// fatbin section.
        offset: u64,
    },
    /// `e_machine` is not [`EM_CUDA`].
    NotCuda {
        /// The `e_machine` found.
        machine: u16,
    },
    /// `e_type` is not `ET_EXEC` (for example a relocatable `-rdc` object).
    NotExecutable {
        /// The `e_type` found.
        elf_type: u16,
    },
    /// The ELF ABI version is newer than [`MAX_KNOWN_ABI_VERSION`]; its SM encoding is unknown.
    UnknownAbiVersion {
        /// `e_ident[EI_ABIVERSION]`.
        version: u8,
    },
    /// The cubin is for another SM.
    WrongSm {
        /// The SM the caller asked for (e.g. 87).
        expected: u32,
        /// The SM in `e_flags`.
        found: u32,
    },
    /// The image has more of something than a cubin may have ([`MAX_KERNEL_PARAMS`],
    /// [`MAX_KERNELS`], [`MAX_NAME_LEN`]); the limits keep the check linear in the image's size.
    TooMany {
        /// What there are too many of, e.g. `"parameters in one kernel"`.
        what: &'static str,
        /// The most allowed.
        limit: u64,
    },
}

impl fmt::Display for CubinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NotElf => f.write_str("not an ELF image (no \\x7fELF magic)"),
            Self::NotElf64Le { class, data } => write!(
                f,
                "not a 64-bit little-endian ELF (EI_CLASS {class}, EI_DATA {data})"
            ),
            Self::Truncated { part, end, len } => write!(
                f,
                "truncated: {part} ends at byte {end} but the image has {len} bytes"
            ),
            Self::Malformed { reason } => write!(f, "malformed ELF: {reason}"),
            Self::ContainsPtx { offset } => write!(
                f,
                "the image is or contains PTX (at byte {offset}); only SASS cubins are allowed"
            ),
            Self::IsFatbin { offset } => write!(
                f,
                "the image is or contains a fatbin (at byte {offset}); only plain cubins are allowed"
            ),
            Self::NotCuda { machine } => {
                write!(f, "not a CUDA ELF: e_machine {machine}, expected {EM_CUDA}")
            }
            Self::NotExecutable { elf_type } => write!(
                f,
                "not an executable cubin: e_type {elf_type}, expected {ET_EXEC} (ET_EXEC)"
            ),
            Self::UnknownAbiVersion { version } => write!(
                f,
                "unknown CUDA ELF ABI version {version} (known: 0..={MAX_KNOWN_ABI_VERSION})"
            ),
            Self::WrongSm { expected, found } => {
                write!(f, "cubin is for sm_{found}, expected sm_{expected}")
            }
            Self::TooMany { what, limit } => write!(
                f,
                "more than {limit} {what}: not a cubin a compiler builds for this runtime; \
                 rebuild it from the kernel sources"
            ),
        }
    }
}

impl core::error::Error for CubinError {}

// ---------------------------------------------------------------------------------------------
// Bounds-checked readers.

fn range(len: usize, off: u64, n: u64) -> Option<core::ops::Range<usize>> {
    let end = off.checked_add(n)?;
    if end > len as u64 {
        return None;
    }
    Some(usize::try_from(off).ok()?..usize::try_from(end).ok()?)
}

fn bytes(b: &[u8], off: u64, n: u64) -> Option<&[u8]> {
    b.get(range(b.len(), off, n)?)
}

fn u8_at(b: &[u8], off: u64) -> Option<u8> {
    bytes(b, off, 1).and_then(|s| s.first().copied())
}

fn u16_at(b: &[u8], off: u64) -> Option<u16> {
    let s = bytes(b, off, 2)?;
    Some(u16::from_le_bytes([*s.first()?, *s.get(1)?]))
}

fn u32_at(b: &[u8], off: u64) -> Option<u32> {
    let s = bytes(b, off, 4)?;
    let mut a = [0u8; 4];
    a.copy_from_slice(s);
    Some(u32::from_le_bytes(a))
}

fn u64_at(b: &[u8], off: u64) -> Option<u64> {
    let s = bytes(b, off, 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// The NUL-terminated string at `off` inside `table`.
fn cstr_at(table: &[u8], off: u64) -> Option<&[u8]> {
    let start = usize::try_from(off).ok()?;
    let rest = table.get(start..)?;
    let nul = rest.iter().position(|&c| c == 0)?;
    rest.get(..nul)
}

/// The NUL-terminated name at `off` inside `table`, at most [`MAX_NAME_LEN`] bytes long: the
/// bound keeps reading many names that share one long string linear in the image's size.
fn name_at<'a>(table: &'a [u8], off: u64, what: &'static str) -> Result<&'a [u8], CubinError> {
    let rest = usize::try_from(off)
        .ok()
        .and_then(|start| table.get(start..))
        .ok_or(malformed(what))?;
    let window = rest.get(..=MAX_NAME_LEN).unwrap_or(rest);
    match window.iter().position(|&c| c == 0) {
        Some(nul) => rest.get(..nul).ok_or(malformed(what)),
        None if window.len() > MAX_NAME_LEN => Err(CubinError::TooMany {
            what: "bytes in one section or symbol name",
            limit: MAX_NAME_LEN as u64,
        }),
        None => Err(malformed(what)),
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn contains_ignore_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len()
        && hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

fn malformed(reason: &'static str) -> CubinError {
    CubinError::Malformed { reason }
}

// ---------------------------------------------------------------------------------------------
// PTX text detection.

/// Directives whose text in an image means it carries PTX.
const PTX_MARKERS: [&[u8]; 3] = [b".target sm_", b".target compute_", b".address_size "];

/// True if `image` reads as PTX text: after whitespace and comments, a `.version` or `.target`
/// directive.
fn starts_like_ptx(image: &[u8]) -> bool {
    let mut i = 0usize;
    loop {
        let Some(rest) = image.get(i..) else {
            return false;
        };
        match rest {
            [c, ..] if c.is_ascii_whitespace() => i += 1,
            [b'/', b'/', tail @ ..] => match tail.iter().position(|&c| c == b'\n') {
                Some(p) => i = i.saturating_add(3).saturating_add(p),
                None => return false,
            },
            [b'/', b'*', tail @ ..] => match tail.windows(2).position(|w| w == b"*/") {
                Some(p) => i = i.saturating_add(4).saturating_add(p),
                None => return false,
            },
            _ => return rest.starts_with(b".version") || rest.starts_with(b".target"),
        }
    }
}

fn ptx_text_offset(image: &[u8]) -> Option<u64> {
    PTX_MARKERS
        .iter()
        .filter_map(|m| contains(image, m))
        .min()
        .map(|o| o as u64)
}

// ---------------------------------------------------------------------------------------------
// ELF layout.

#[derive(Clone, Copy, Debug)]
struct Shdr {
    name: u32,
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
    entsize: u64,
}

#[derive(Clone, Copy, Debug)]
struct Layout<'a> {
    image: &'a [u8],
    shoff: u64,
    shnum: u64,
    shstrtab: &'a [u8],
}

impl<'a> Layout<'a> {
    fn shdr(&self, index: u64) -> Result<Shdr, CubinError> {
        if index >= self.shnum {
            return Err(malformed("section index out of range"));
        }
        let base = index
            .checked_mul(SHDR_SIZE)
            .and_then(|o| o.checked_add(self.shoff))
            .ok_or(malformed("section header offset overflows"))?;
        let t = || CubinError::Truncated {
            part: ElfPart::SectionHeaders,
            end: base.saturating_add(SHDR_SIZE),
            len: self.image.len() as u64,
        };
        let b = self.image;
        Ok(Shdr {
            name: u32_at(b, base).ok_or_else(t)?,
            kind: u32_at(b, base + 4).ok_or_else(t)?,
            offset: u64_at(b, base + 24).ok_or_else(t)?,
            size: u64_at(b, base + 32).ok_or_else(t)?,
            link: u32_at(b, base + 40).ok_or_else(t)?,
            entsize: u64_at(b, base + 56).ok_or_else(t)?,
        })
    }

    /// The data of a section (empty for `SHT_NOBITS`).
    fn data(&self, index: u64, sh: &Shdr) -> Result<&'a [u8], CubinError> {
        if sh.kind == SHT_NOBITS {
            return Ok(&[]);
        }
        bytes(self.image, sh.offset, sh.size).ok_or(CubinError::Truncated {
            part: ElfPart::Section {
                index: u32::try_from(index).unwrap_or(u32::MAX),
            },
            end: sh.offset.saturating_add(sh.size),
            len: self.image.len() as u64,
        })
    }

    fn name(&self, sh: &Shdr) -> Result<&'a [u8], CubinError> {
        name_at(
            self.shstrtab,
            u64::from(sh.name),
            "section name is outside .shstrtab or not NUL-terminated",
        )
    }

    /// The index of the section named exactly `prefix` followed by `suffix`. Compares in
    /// place, so each section costs at most the length of the name looked for.
    fn find_section(&self, prefix: &[u8], suffix: &[u8]) -> Option<u64> {
        (0..self.shnum).find(|&i| {
            self.shdr(i).is_ok_and(|sh| {
                usize::try_from(sh.name)
                    .ok()
                    .and_then(|start| self.shstrtab.get(start..))
                    .and_then(|n| n.strip_prefix(prefix))
                    .and_then(|n| n.strip_prefix(suffix))
                    .is_some_and(|n| n.first() == Some(&0))
            })
        })
    }
}

fn parse_layout(image: &[u8]) -> Result<Layout<'_>, CubinError> {
    let len = image.len() as u64;
    let hdr = |o: u64| CubinError::Truncated {
        part: ElfPart::Header,
        end: o,
        len,
    };
    let ehsize = u16_at(image, 52).ok_or(hdr(EHDR_SIZE))?;
    if u64::from(ehsize) < EHDR_SIZE {
        return Err(malformed("e_ehsize is smaller than an ELF64 header"));
    }

    // Program header table (cubins have one; it must lie inside the image).
    let phoff = u64_at(image, 32).ok_or(hdr(EHDR_SIZE))?;
    let phentsize = u16_at(image, 54).ok_or(hdr(EHDR_SIZE))?;
    let phnum = u16_at(image, 56).ok_or(hdr(EHDR_SIZE))?;
    if phnum != 0 {
        if u64::from(phentsize) != PHDR_SIZE {
            return Err(malformed("e_phentsize is not 56"));
        }
        let size = u64::from(phnum) * PHDR_SIZE;
        if bytes(image, phoff, size).is_none() {
            return Err(CubinError::Truncated {
                part: ElfPart::ProgramHeaders,
                end: phoff.saturating_add(size),
                len,
            });
        }
    }

    // Section header table.
    let shoff = u64_at(image, 40).ok_or(hdr(EHDR_SIZE))?;
    let shentsize = u16_at(image, 58).ok_or(hdr(EHDR_SIZE))?;
    let shnum = u64::from(u16_at(image, 60).ok_or(hdr(EHDR_SIZE))?);
    let shstrndx = u64::from(u16_at(image, 62).ok_or(hdr(EHDR_SIZE))?);
    if shoff == 0 || shnum == 0 {
        return Err(malformed(
            "no section header table (or extended section numbering, which cubins do not use)",
        ));
    }
    if u64::from(shentsize) != SHDR_SIZE {
        return Err(malformed("e_shentsize is not 64"));
    }
    let table = shnum * SHDR_SIZE;
    if bytes(image, shoff, table).is_none() {
        return Err(CubinError::Truncated {
            part: ElfPart::SectionHeaders,
            end: shoff.saturating_add(table),
            len,
        });
    }
    if shstrndx == 0 || shstrndx >= shnum {
        return Err(malformed("e_shstrndx does not name a section"));
    }
    let mut layout = Layout {
        image,
        shoff,
        shnum,
        shstrtab: &[],
    };
    let strsh = layout.shdr(shstrndx)?;
    if strsh.kind != SHT_STRTAB {
        return Err(malformed(
            "the section header string table is not SHT_STRTAB",
        ));
    }
    layout.shstrtab = layout.data(shstrndx, &strsh)?;
    Ok(layout)
}

/// Every section's data must lie inside the image; no section may carry PTX or a fatbin;
/// every `.nv.info.<function>` section holds well-formed attribute records. One pass, each
/// section's name and data read once.
fn check_sections(layout: &Layout<'_>) -> Result<(), CubinError> {
    for i in 0..layout.shnum {
        let sh = layout.shdr(i)?;
        let data = layout.data(i, &sh)?;
        let name = layout.name(&sh)?;
        if contains_ignore_case(name, b"ptx") {
            return Err(CubinError::ContainsPtx { offset: sh.offset });
        }
        if contains_ignore_case(name, b"fatbin")
            || u32_at(data, 0).is_some_and(|m| m == FATBIN_MAGIC)
        {
            return Err(CubinError::IsFatbin { offset: sh.offset });
        }
        if name.starts_with(KERNEL_INFO_PREFIX) {
            if sh.kind != SHT_CUDA_INFO {
                return Err(malformed(".nv.info.<kernel> is not of type 0x70000000"));
            }
            validate_info(data)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Symbols and kernels.

#[derive(Clone, Copy, Debug)]
struct SymTab<'a> {
    syms: &'a [u8],
    count: u64,
    strtab: &'a [u8],
}

fn find_symtab<'a>(layout: &Layout<'a>) -> Result<Option<SymTab<'a>>, CubinError> {
    let mut found = None;
    for i in 0..layout.shnum {
        let sh = layout.shdr(i)?;
        if sh.kind != SHT_SYMTAB {
            continue;
        }
        if found.is_some() {
            return Err(malformed("more than one SHT_SYMTAB section"));
        }
        if sh.entsize != SYM_SIZE || sh.size % SYM_SIZE != 0 {
            return Err(malformed("SHT_SYMTAB entry size is not 24"));
        }
        let syms = layout.data(i, &sh)?;
        let link = u64::from(sh.link);
        let strsh = layout.shdr(link)?;
        if strsh.kind != SHT_STRTAB {
            return Err(malformed("the symbol table's sh_link is not a SHT_STRTAB"));
        }
        found = Some(SymTab {
            syms,
            count: sh.size / SYM_SIZE,
            strtab: layout.data(link, &strsh)?,
        });
    }
    Ok(found)
}

/// The name of the kernel defined by symbol `index`, if that symbol is a kernel entry. Reads
/// the symbol's name only for a global function with the entry bit, and at most
/// [`MAX_NAME_LEN`] bytes of it.
fn kernel_name_at<'a>(
    layout: &Layout<'a>,
    symtab: &SymTab<'a>,
    index: u64,
) -> Result<Option<&'a str>, CubinError> {
    let base = index
        .checked_mul(SYM_SIZE)
        .ok_or(malformed("symbol offset overflows"))?;
    let bad = || malformed("symbol table entry out of range");
    let st_name = u32_at(symtab.syms, base).ok_or_else(bad)?;
    let st_info = u8_at(symtab.syms, base + 4).ok_or_else(bad)?;
    let st_other = u8_at(symtab.syms, base + 5).ok_or_else(bad)?;
    let st_shndx = u64::from(u16_at(symtab.syms, base + 6).ok_or_else(bad)?);
    if st_info & 0xf != STT_FUNC
        || st_info >> 4 != STB_GLOBAL
        || st_other & STO_CUDA_ENTRY == 0
        || st_shndx == 0
        || st_shndx >= SHN_LORESERVE
    {
        return Ok(None);
    }
    let name = name_at(
        symtab.strtab,
        u64::from(st_name),
        "symbol name is outside .strtab or not NUL-terminated",
    )?;
    let text = layout.shdr(st_shndx)?;
    if name.is_empty() || layout.name(&text)?.strip_prefix(b".text.") != Some(name) {
        return Ok(None);
    }
    core::str::from_utf8(name)
        .map(Some)
        .map_err(|_| malformed("kernel name is not UTF-8"))
}

/// The kernel `name` with its `.nv.info.<name>` records (already validated by
/// [`check_sections`]; empty if the cubin has none).
fn kernel_with_info<'a>(layout: &Layout<'a>, name: &'a str) -> Kernel<'a> {
    let info = layout
        .find_section(KERNEL_INFO_PREFIX, name.as_bytes())
        .and_then(|i| layout.data(i, &layout.shdr(i).ok()?).ok())
        .unwrap_or(&[]);
    Kernel { name, info }
}

/// Checks the attribute records of one `.nv.info.<function>` section in one pass: every
/// record well-formed, `EIATTR_KPARAM_INFO` 12 bytes, at most [`MAX_KERNEL_PARAMS`] of them,
/// their ordinals `0..n`, each exactly once.
fn validate_info(info: &[u8]) -> Result<(), CubinError> {
    const WORDS: usize = MAX_KERNEL_PARAMS / 64;
    let mut seen = [0u64; WORDS];
    let mut count = 0usize;
    let mut beyond = false;
    let dense = || malformed("kernel parameter ordinals are not 0..n, each exactly once");
    for r in (InfoRecords { rest: info }) {
        match r {
            Err(()) => return Err(malformed("bad attribute record in .nv.info.<kernel>")),
            Ok((EIFMT_SVAL, EIATTR_KPARAM_INFO, v)) => {
                let ordinal = kparam(v)
                    .ok_or(malformed("EIATTR_KPARAM_INFO is not 12 bytes"))?
                    .ordinal;
                let ordinal = usize::from(ordinal);
                count += 1;
                if count > MAX_KERNEL_PARAMS {
                    return Err(CubinError::TooMany {
                        what: "parameters in one kernel",
                        limit: MAX_KERNEL_PARAMS as u64,
                    });
                }
                // An ordinal at or past the limit cannot be below the count (noted, so that too
                // many records are reported as such); a repeated one leaves another missing.
                let Some(word) = seen.get_mut(ordinal / 64) else {
                    beyond = true;
                    continue;
                };
                let bit = 1u64 << (ordinal % 64);
                if *word & bit != 0 {
                    return Err(dense());
                }
                *word |= bit;
            }
            Ok(_) => {}
        }
    }
    // `count` distinct ordinals, all below `count` exactly when the lowest `count` bits are set.
    let complete = seen.iter().enumerate().all(|(w, &bits)| {
        let want = count.saturating_sub(w * 64).min(64);
        let mask = if want == 64 {
            u64::MAX
        } else {
            (1u64 << want) - 1
        };
        bits == mask
    });
    if complete && !beyond {
        Ok(())
    } else {
        Err(dense())
    }
}

/// The parameter of one `EIATTR_KPARAM_INFO` value; `None` if it is not 12 bytes.
fn kparam(v: &[u8]) -> Option<KernelParam> {
    if v.len() != KPARAM_INFO_LEN {
        return None;
    }
    Some(KernelParam {
        ordinal: u16_at(v, 4)?,
        offset: u16_at(v, 6)?,
        // The size is the top 14 bits of the flags; it always fits.
        size: u16::try_from(u32_at(v, 8)? >> 18).ok()?,
    })
}

/// One attribute record of an `.nv.info` section: `(format, attribute, value)`.
#[derive(Clone, Copy)]
struct InfoRecords<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for InfoRecords<'a> {
    /// `Err(())` once on a malformed record, then `None`.
    type Item = Result<(u8, u8, &'a [u8]), ()>;

    fn next(&mut self) -> Option<Self::Item> {
        let (&fmt, tail) = self.rest.split_first()?;
        let step = (|| {
            let (&attr, tail) = tail.split_first()?;
            let len_bytes = tail.get(..2)?;
            let val = u16::from_le_bytes([*len_bytes.first()?, *len_bytes.get(1)?]);
            let tail = tail.get(2..)?;
            match fmt {
                EIFMT_SVAL => {
                    let n = usize::from(val);
                    Some(((fmt, attr, tail.get(..n)?), tail.get(n..)?))
                }
                EIFMT_NVAL..EIFMT_SVAL => Some(((fmt, attr, len_bytes), tail)),
                _ => None,
            }
        })();
        match step {
            Some((rec, rest)) => {
                self.rest = rest;
                Some(Ok(rec))
            }
            None => {
                self.rest = &[];
                Some(Err(()))
            }
        }
    }
}

/// One kernel parameter as the cubin lays it out (`EIATTR_KPARAM_INFO`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelParam {
    /// Position in the kernel's parameter list, from 0.
    pub ordinal: u16,
    /// Byte offset in the parameter buffer (constant bank).
    pub offset: u16,
    /// Size in bytes.
    pub size: u16,
}

/// A kernel entry point of a checked cubin.
#[derive(Clone, Copy, Debug)]
pub struct Kernel<'a> {
    name: &'a str,
    info: &'a [u8],
}

impl<'a> Kernel<'a> {
    /// The kernel's symbol name (the `extern "C"` name).
    pub fn name(&self) -> &'a str {
        self.name
    }

    fn records(&self) -> InfoRecords<'a> {
        InfoRecords { rest: self.info }
    }

    fn kparams(&self) -> impl Iterator<Item = KernelParam> + 'a {
        self.records().filter_map(|r| match r {
            Ok((EIFMT_SVAL, EIATTR_KPARAM_INFO, v)) => kparam(v),
            _ => None,
        })
    }

    /// Number of parameters (`EIATTR_KPARAM_INFO` records; 0 if the cubin has no
    /// `.nv.info.<name>`).
    pub fn param_count(&self) -> usize {
        self.kparams().count()
    }

    /// The parameter with this ordinal.
    pub fn param(&self, ordinal: usize) -> Option<KernelParam> {
        self.kparams().find(|p| usize::from(p.ordinal) == ordinal)
    }

    /// The parameters in ordinal order (quadratic in their number, which [`check_cubin`] bounds
    /// by [`MAX_KERNEL_PARAMS`]).
    pub fn params(&self) -> impl Iterator<Item = KernelParam> + 'a {
        let k = *self;
        (0..k.param_count()).filter_map(move |i| k.param(i))
    }

    /// Total size of the parameter buffer in bytes (`EIATTR_CBANK_PARAM_SIZE`), if recorded.
    pub fn param_bytes(&self) -> Option<u16> {
        self.records().find_map(|r| match r {
            Ok((f, EIATTR_CBANK_PARAM_SIZE, v)) if f != EIFMT_SVAL => u16_at(v, 0),
            _ => None,
        })
    }
}

/// The kernel entry names of a checked cubin, in symbol table order.
#[derive(Clone, Debug)]
struct KernelNames<'a> {
    layout: Layout<'a>,
    symtab: Option<SymTab<'a>>,
    next: u64,
}

impl<'a> Iterator for KernelNames<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let symtab = self.symtab?;
        while self.next < symtab.count {
            let i = self.next;
            self.next += 1;
            // Every symbol was validated by `check_cubin`; errors cannot occur here.
            if let Ok(Some(name)) = kernel_name_at(&self.layout, &symtab, i) {
                return Some(name);
            }
        }
        None
    }
}

/// Iterator over the kernel entries of a checked cubin, in symbol table order.
#[derive(Clone, Debug)]
pub struct Kernels<'a> {
    names: KernelNames<'a>,
}

impl<'a> Iterator for Kernels<'a> {
    type Item = Kernel<'a>;

    fn next(&mut self) -> Option<Kernel<'a>> {
        let name = self.names.next()?;
        Some(kernel_with_info(&self.names.layout, name))
    }
}

/// The producer of the SASS, from `.note.nv.tkinfo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolkitInfo<'a> {
    /// The tool name, e.g. `ptxas`.
    pub tool: &'a str,
    /// The version line, e.g. `Cuda compilation tools, release 13.0, V13.0.88`.
    pub version: &'a str,
    /// The build branch, e.g. `Build cuda_13.0.r13.0/compiler.36424714_0`.
    pub branch: &'a str,
    /// The tool's options, e.g. `-O 3 -arch sm_90 -m 64 `.
    pub options: &'a str,
}

fn toolkit_info<'a>(layout: &Layout<'a>) -> Option<ToolkitInfo<'a>> {
    let i = layout.find_section(b".note.nv.tkinfo", b"")?;
    let sh = layout.shdr(i).ok()?;
    if sh.kind != SHT_NOTE {
        return None;
    }
    let note = layout.data(i, &sh).ok()?;
    let namesz = u64::from(u32_at(note, 0)?);
    let descsz = u64::from(u32_at(note, 4)?);
    if u32_at(note, 8)? != NT_CUDA_TKINFO {
        return None;
    }
    let desc_off = 12u64.checked_add(namesz.checked_add(3)? & !3)?;
    let desc = bytes(note, desc_off, descsz)?;
    // desc: u32 version, then u32 offsets (object name, tool, version, branch, options) into
    // the string area that follows them.
    let strings = desc.get(24..)?;
    let s = |field: u64| -> Option<&'a str> {
        let off = u32_at(desc, 4 * field)?;
        core::str::from_utf8(cstr_at(strings, u64::from(off))?).ok()
    };
    Some(ToolkitInfo {
        tool: s(2)?,
        version: s(3)?,
        branch: s(4)?,
        options: s(5)?,
    })
}

/// What [`check_cubin`] learned about an accepted cubin.
#[derive(Clone, Debug)]
pub struct CubinInfo<'a> {
    sm: u32,
    abi_version: u8,
    e_flags: u32,
    layout: Layout<'a>,
    symtab: Option<SymTab<'a>>,
}

impl<'a> CubinInfo<'a> {
    /// The SM the SASS is for (e.g. 87, 90).
    pub fn sm(&self) -> u32 {
        self.sm
    }

    /// The CUDA ELF ABI version (`e_ident[EI_ABIVERSION]`; 8 for CUDA 13).
    pub fn abi_version(&self) -> u8 {
        self.abi_version
    }

    /// The raw `e_flags`.
    pub fn e_flags(&self) -> u32 {
        self.e_flags
    }

    /// The kernel entry points, in symbol table order.
    pub fn kernels(&self) -> Kernels<'a> {
        Kernels {
            names: self.names(),
        }
    }

    fn names(&self) -> KernelNames<'a> {
        KernelNames {
            layout: self.layout,
            symtab: self.symtab,
            next: 0,
        }
    }

    /// The kernel entry names, in symbol table order.
    pub fn kernel_names(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.names()
    }

    /// The kernel entry with this name (its `.nv.info` is looked up for that kernel only).
    pub fn kernel(&self, name: &str) -> Option<Kernel<'a>> {
        let found = self.kernel_names().find(|&k| k == name)?;
        Some(kernel_with_info(&self.layout, found))
    }

    /// The tool that produced the SASS, from `.note.nv.tkinfo`, if the cubin has a readable one.
    pub fn toolkit(&self) -> Option<ToolkitInfo<'a>> {
        toolkit_info(&self.layout)
    }
}

/// Decodes the SM from `e_flags` for a known ABI version.
pub fn sm_from_e_flags(abi_version: u8, e_flags: u32) -> Result<u32, CubinError> {
    match abi_version {
        0..=7 => Ok(e_flags & 0xff),
        MAX_KNOWN_ABI_VERSION => Ok((e_flags >> 8) & 0xff),
        version => Err(CubinError::UnknownAbiVersion { version }),
    }
}

/// Checks that `image` is an ELF cubin of SASS for `sm_<expected_sm>` with no PTX and no
/// fatbin anywhere, and returns what it found.
///
/// The checks, in order: fatbin magic at offset 0; ELF magic (a non-ELF image that reads as
/// PTX is [`CubinError::ContainsPtx`]); ELF64 little-endian; program and section header tables
/// inside the image; every section's data inside the image; no section named like PTX or a
/// fatbin and no section data starting with the fatbin magic; no PTX directive text anywhere;
/// `e_machine` = [`EM_CUDA`]; `e_type` = `ET_EXEC`; a known ABI version; the SM; every kernel
/// symbol and its parameter info well-formed.
pub fn check_cubin(image: &[u8], expected_sm: u32) -> Result<CubinInfo<'_>, CubinError> {
    let len = image.len() as u64;
    let magic = u32_at(image, 0);
    if magic == Some(FATBIN_MAGIC) || magic == Some(FATBIN_WRAPPER_MAGIC) {
        return Err(CubinError::IsFatbin { offset: 0 });
    }
    if !image.starts_with(&ELF_MAGIC) {
        if starts_like_ptx(image) || ptx_text_offset(image).is_some() {
            return Err(CubinError::ContainsPtx { offset: 0 });
        }
        if !image.is_empty() && ELF_MAGIC.starts_with(image) {
            return Err(CubinError::Truncated {
                part: ElfPart::Header,
                end: EHDR_SIZE,
                len,
            });
        }
        return Err(CubinError::NotElf);
    }
    if len < EHDR_SIZE {
        return Err(CubinError::Truncated {
            part: ElfPart::Header,
            end: EHDR_SIZE,
            len,
        });
    }
    let ident = |i: u64| u8_at(image, i).unwrap_or(0);
    let (class, data) = (ident(4), ident(5));
    if class != 2 || data != 1 {
        return Err(CubinError::NotElf64Le { class, data });
    }
    let layout = parse_layout(image)?;
    check_sections(&layout)?;
    if let Some(offset) = ptx_text_offset(image) {
        return Err(CubinError::ContainsPtx { offset });
    }
    let hdr_err = CubinError::Truncated {
        part: ElfPart::Header,
        end: EHDR_SIZE,
        len,
    };
    let machine = u16_at(image, 18).ok_or(hdr_err)?;
    if machine != EM_CUDA {
        return Err(CubinError::NotCuda { machine });
    }
    let elf_type = u16_at(image, 16).ok_or(hdr_err)?;
    if elf_type != ET_EXEC {
        return Err(CubinError::NotExecutable { elf_type });
    }
    let abi_version = ident(8);
    let e_flags = u32_at(image, 48).ok_or(hdr_err)?;
    let sm = sm_from_e_flags(abi_version, e_flags)?;
    if sm != expected_sm {
        return Err(CubinError::WrongSm {
            expected: expected_sm,
            found: sm,
        });
    }
    let symtab = find_symtab(&layout)?;
    if let Some(st) = &symtab {
        let mut kernels = 0usize;
        for i in 0..st.count {
            if kernel_name_at(&layout, st, i)?.is_some() {
                kernels += 1;
                if kernels > MAX_KERNELS {
                    return Err(CubinError::TooMany {
                        what: "kernel entry points",
                        limit: MAX_KERNELS as u64,
                    });
                }
            }
        }
    }
    Ok(CubinInfo {
        sm,
        abi_version,
        e_flags,
        layout,
        symtab,
    })
}
