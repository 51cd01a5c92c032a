//! Staging of the SIL cdylibs under their SONAMEs, with the unversioned development links.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One SIL shared library as the vendor names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lib {
    /// The name that `-l` takes (`cudla` for `-lcudla`).
    pub stem: &'static str,
    /// The SONAME, also the name of the symbol version node of every export.
    pub soname: &'static str,
    /// The crate directory under `sil/` (where `header-functions.txt` lives).
    pub crate_dir: &'static str,
    /// Name prefixes of the SIL extension calls this library may export beyond the header.
    pub extension_prefixes: &'static [&'static str],
}

impl Lib {
    /// The file name cargo gives the cdylib (`libcudla.so`), also the development link.
    pub fn dev_link(&self) -> String {
        format!("lib{}.so", self.stem)
    }
}

/// The three libraries, in the order a C user links them (`-lcudla -lnvscisync -lnvscibuf`).
pub const LIBS: [Lib; 3] = [
    Lib {
        stem: "cudla",
        soname: "libcudla.so.1",
        crate_dir: "sil/cudla",
        extension_prefixes: &["cudlaSil"],
    },
    Lib {
        stem: "nvscisync",
        soname: "libnvscisync.so.1",
        crate_dir: "sil/nvscisync",
        extension_prefixes: &["NvSciSyncSil", "NvSciSil"],
    },
    Lib {
        stem: "nvscibuf",
        soname: "libnvscibuf.so.1",
        crate_dir: "sil/nvscibuf",
        extension_prefixes: &["NvSciBufSil", "NvSciSil"],
    },
];

/// SIL CUDA for C programs: cargo builds the cdylib of `sil-cuda` as `libsil_cuda.so`; it is
/// staged as `libcuda.so.1` (its SONAME, the driver's) with the development link `libcuda.so`,
/// so a program links it with `-lcuda`. Its exports are unversioned.
pub const SIL_CUDA: (&str, &str, &str) = ("libsil_cuda.so", "libcuda.so.1", "libcuda.so");

/// The SIL cuPVA for C programs: cargo builds the cdylib of `sil-cupva` as
/// `libcupva_host.so`; it is staged as `libcupva_host.so.2.10` (its SONAME, the PVA SDK 2.10
/// host runtime's) with the development link `libcupva_host.so` (`-lcupva_host`).
pub const SIL_CUPVA: (&str, &str, &str) = (
    "libcupva_host.so",
    "libcupva_host.so.2.10",
    "libcupva_host.so",
);

/// The directory holding the cdylibs cargo built for the running test binary: its own
/// directory (`target/<profile>/deps`, where the cdylibs of dependencies go) or the one
/// above it (`target/<profile>`, where `cargo build -p <crate>` puts them).
pub fn cdylib_dir() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let deps = exe
        .parent()
        .ok_or_else(|| io::Error::other("the test binary has no parent directory"))?;
    let candidates = [Some(deps), deps.parent()];
    for dir in candidates.into_iter().flatten() {
        if LIBS.iter().all(|l| dir.join(l.dev_link()).is_file())
            && dir.join(SIL_CUDA.0).is_file()
            && dir.join(SIL_CUPVA.0).is_file()
        {
            return Ok(dir.to_path_buf());
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "the SIL cdylibs ({}, {}, {}) are not next to {} (build with `cargo test -p sil-c-client`)",
            LIBS.map(|l| l.dev_link()).join(", "),
            SIL_CUDA.0,
            SIL_CUPVA.0,
            exe.display()
        ),
    ))
}

/// Stages the cdylibs of `from` in `to`: `libX.so.1` (a copy) and `libX.so -> libX.so.1`
/// (a relative symlink), for [`LIBS`], [`SIL_CUDA`] and [`SIL_CUPVA`]. Existing files are replaced; each copy
/// appears atomically.
pub fn stage(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    let files = LIBS
        .map(|l| (l.dev_link(), l.soname, l.dev_link()))
        .into_iter()
        .chain([
            (SIL_CUDA.0.to_owned(), SIL_CUDA.1, SIL_CUDA.2.to_owned()),
            (SIL_CUPVA.0.to_owned(), SIL_CUPVA.1, SIL_CUPVA.2.to_owned()),
        ]);
    for (built, soname, dev_link) in files {
        let tmp = to.join(format!("{soname}.tmp{}", std::process::id()));
        fs::copy(from.join(built), &tmp)?;
        fs::rename(&tmp, to.join(soname))?;
        let link = to.join(dev_link);
        match fs::remove_file(&link) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        std::os::unix::fs::symlink(soname, &link)?;
    }
    Ok(())
}

/// Stages the running test's cdylibs once per process in `<tmp>/sil-lib` and returns that
/// directory (`tmp` is the test's `CARGO_TARGET_TMPDIR`). Panics with the reason on failure.
pub fn staged(tmp: &Path) -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tmp.join("sil-lib");
        let from = cdylib_dir().unwrap_or_else(|e| panic!("{e}"));
        stage(&from, &dir)
            .unwrap_or_else(|e| panic!("staging {} in {}: {e}", from.display(), dir.display()));
        dir
    })
}
