//! What the dynamic linker sees in an ELF file: SONAME, `DT_NEEDED`, `DT_RPATH`/`DT_RUNPATH`,
//! version definitions and requirements, and the dynamic symbols with their versions (the
//! information `readelf -d -V --dyn-syms` prints), read with the `object` crate.

use object::read::elf::{Dyn, ElfFile64, FileHeader, Sym};
use object::{Endianness, SymbolIndex, elf};

/// One version definition (`.gnu.version_d`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionDef {
    /// The version name (its first auxiliary entry).
    pub name: String,
    /// `VER_FLG_BASE`: the entry that names the file itself, not a version of symbols.
    pub base: bool,
}

/// One version requirement (`.gnu.version_r`): a version name needed from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionNeed {
    /// The file (`vn_file`), a SONAME.
    pub file: String,
    /// The version name.
    pub name: String,
}

/// One dynamic symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynSymbol {
    /// The name, without a version.
    pub name: String,
    /// Its version, `None` for an unversioned symbol (local or global index).
    pub version: Option<String>,
    /// For an undefined symbol with a version: the file the version is required from.
    pub version_file: Option<String>,
    /// The hidden bit: `name@version` rather than the default `name@@version`.
    pub hidden: bool,
    /// `STT_FUNC`.
    pub function: bool,
    /// Defined as an absolute symbol (`SHN_ABS`), like the symbol GNU ld adds for each
    /// version name.
    pub absolute: bool,
    /// `STB_WEAK`.
    pub weak: bool,
}

impl DynSymbol {
    /// `name@@version`, `name@version` or `name`, as readelf prints it.
    pub fn display(&self) -> String {
        match (&self.version, self.hidden) {
            (Some(v), false) => format!("{}@@{v}", self.name),
            (Some(v), true) => format!("{}@{v}", self.name),
            (None, _) => self.name.clone(),
        }
    }
}

/// The dynamic-linking view of an ELF file.
#[derive(Clone, Debug, Default)]
pub struct DynamicInfo {
    /// `DT_SONAME`.
    pub soname: Option<String>,
    /// `DT_NEEDED`, in order.
    pub needed: Vec<String>,
    /// `DT_RPATH` and `DT_RUNPATH` values.
    pub search_paths: Vec<String>,
    /// Version definitions, in order.
    pub version_defs: Vec<VersionDef>,
    /// Version requirements, in order.
    pub version_needs: Vec<VersionNeed>,
    /// Defined global or weak dynamic symbols (exports).
    pub exports: Vec<DynSymbol>,
    /// Undefined dynamic symbols (imports).
    pub imports: Vec<DynSymbol>,
}

impl DynamicInfo {
    /// The exported functions (not the absolute version-name symbols), sorted by name.
    pub fn exported_functions(&self) -> Vec<&DynSymbol> {
        let mut v: Vec<&DynSymbol> = self
            .exports
            .iter()
            .filter(|s| s.function && !s.absolute)
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// The export named `name`, if any.
    pub fn export(&self, name: &str) -> Option<&DynSymbol> {
        self.exports.iter().find(|s| s.name == name)
    }

    /// The import named `name`, if any.
    pub fn import(&self, name: &str) -> Option<&DynSymbol> {
        self.imports.iter().find(|s| s.name == name)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Reads the dynamic-linking information of a 64-bit ELF file (any machine, either byte
/// order).
pub fn read(data: &[u8]) -> Result<DynamicInfo, String> {
    read_inner(data).map_err(|e| format!("ELF: {e}"))
}

/// Reads the file at `path` with [`read`].
pub fn read_path(path: &std::path::Path) -> Result<DynamicInfo, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    read(&data).map_err(|e| format!("{}: {e}", path.display()))
}

fn read_inner(data: &[u8]) -> object::Result<DynamicInfo> {
    let file = ElfFile64::<Endianness>::parse(data)?;
    let endian = file.endian();
    let header = file.elf_header();
    let sections = header.sections(endian, data)?;
    let mut info = DynamicInfo::default();

    if let Some((dyns, link)) = sections.dynamic(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        for d in dyns {
            let value = || d.string(endian, strings).map(text);
            match d.tag32(endian) {
                Some(elf::DT_SONAME) => info.soname = Some(value()?),
                Some(elf::DT_NEEDED) => info.needed.push(value()?),
                Some(elf::DT_RPATH | elf::DT_RUNPATH) => info.search_paths.push(value()?),
                _ => {}
            }
        }
    }

    if let Some((mut defs, link)) = sections.gnu_verdef(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        while let Some((def, mut aux)) = defs.next()? {
            let name = match aux.next()? {
                Some(a) => text(a.name(endian, strings)?),
                None => String::new(),
            };
            let base = def.vd_flags.get(endian) & elf::VER_FLG_BASE != 0;
            info.version_defs.push(VersionDef { name, base });
        }
    }

    if let Some((mut needs, link)) = sections.gnu_verneed(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        while let Some((need, mut aux)) = needs.next()? {
            let file = text(need.file(endian, strings)?);
            while let Some(a) = aux.next()? {
                info.version_needs.push(VersionNeed {
                    file: file.clone(),
                    name: text(a.name(endian, strings)?),
                });
            }
        }
    }

    let symbols = sections.symbols(endian, data, elf::SHT_DYNSYM)?;
    let versions = sections.versions(endian, data)?;
    for (index, sym) in symbols.enumerate() {
        if index.0 == 0 || sym.st_bind() == elf::STB_LOCAL {
            continue;
        }
        let name = text(sym.name(endian, symbols.strings())?);
        let (version, version_file, hidden) = match &versions {
            Some(table) => {
                let vi = table.version_index(endian, SymbolIndex(index.0));
                match table.version(vi)? {
                    Some(v) => (Some(text(v.name())), v.file().map(text), vi.is_hidden()),
                    None => (None, None, false),
                }
            }
            None => (None, None, false),
        };
        let shndx = sym.st_shndx(endian);
        let s = DynSymbol {
            name,
            version,
            version_file,
            hidden,
            function: sym.st_type() == elf::STT_FUNC,
            absolute: shndx == elf::SHN_ABS,
            weak: sym.st_bind() == elf::STB_WEAK,
        };
        if shndx == elf::SHN_UNDEF {
            info.imports.push(s);
        } else {
            info.exports.push(s);
        }
    }
    Ok(info)
}
