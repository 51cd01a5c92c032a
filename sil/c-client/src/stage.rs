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
        if LIBS.iter().all(|l| dir.join(l.dev_link()).is_file()) {
            return Ok(dir.to_path_buf());
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!(
            "the SIL cdylibs ({}) are not next to {} (build with `cargo test -p sil-c-client`)",
            LIBS.map(|l| l.dev_link()).join(", "),
            exe.display()
        ),
    ))
}

/// Stages the cdylibs of `from` in `to`: `libX.so.1` (a copy) and `libX.so -> libX.so.1`
/// (a relative symlink). Existing files are replaced; each copy appears atomically.
pub fn stage(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for lib in LIBS {
        let tmp = to.join(format!("{}.tmp{}", lib.soname, std::process::id()));
        fs::copy(from.join(lib.dev_link()), &tmp)?;
        fs::rename(&tmp, to.join(lib.soname))?;
        let link = to.join(lib.dev_link());
        match fs::remove_file(&link) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        std::os::unix::fs::symlink(lib.soname, &link)?;
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
