//! Where `record` and `emu run` find the libraries they load into other
//! programs: the native runtime and the QEMU plugin.
//!
//! In order: the environment variable (`TRACEKIT_RT`,
//! `TRACEKIT_QEMU_PLUGIN`); beside the binary (a cargo target directory);
//! `../lib/tracekit/` beside the binary's directory (the Debian package's
//! `/usr/lib/tracekit`); and last the copies embedded at build time
//! (`build.rs`), written once to `~/.cache/tracekit/lib-<digest>/`
//! (`$XDG_CACHE_HOME` is honoured), so a `cargo install`ed tracekit needs
//! nothing else.

use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The native runtime `record` preloads.
pub const RUNTIME: Library = Library {
    file: tracekit_record::RUNTIME_LIB,
    env: "TRACEKIT_RT",
    what: "the runtime library `tracekit record` preloads",
    package: "tracekit-rt",
    option: "--runtime",
};

/// The QEMU plugin `emu run` loads.
pub const QEMU_PLUGIN: Library = Library {
    file: tracekit_emu::run::PLUGIN_FILE,
    env: "TRACEKIT_QEMU_PLUGIN",
    what: "the QEMU plugin `tracekit emu run` loads",
    package: "tracekit-qemu-plugin",
    option: "--plugin",
};

/// One library tracekit loads into another program.
pub struct Library {
    /// Its file name.
    pub file: &'static str,
    /// The environment variable that names it.
    pub env: &'static str,
    what: &'static str,
    package: &'static str,
    option: &'static str,
}

/// Finds `lib` (see the module docs for the order).
pub fn find(lib: &Library) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(lib.env) {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().context("cannot locate the tracekit binary")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    // A cargo target directory holds the binary and the libraries (and test
    // binaries one level down); take the newest, never a stale copy.
    let beside = [
        dir.join(lib.file),
        dir.join("deps").join(lib.file),
        dir.join("..").join(lib.file),
    ];
    if let Some(found) = beside
        .iter()
        .filter_map(|p| Some((std::fs::metadata(p).ok()?.modified().ok()?, p)))
        .max_by_key(|(t, _)| *t)
    {
        return Ok(found.1.clone());
    }
    let installed = dir.join("../lib/tracekit").join(lib.file);
    if installed.is_file() {
        return Ok(installed);
    }
    if let Some((_, bytes)) = EMBEDDED.iter().find(|(name, _)| *name == lib.file) {
        return extract(lib.file, bytes);
    }
    anyhow::bail!(
        "cannot find {} ({}): it is not beside {} nor in {}, and this tracekit was built without it embedded; \
         build it with `cargo build --release -p {}`, or name it with {} or {}",
        lib.file,
        lib.what,
        exe.display(),
        dir.join("../lib/tracekit").display(),
        lib.package,
        lib.option,
        lib.env
    )
}

/// The cache directory of this binary's embedded libraries.
pub fn cache_dir() -> PathBuf {
    let root = if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        PathBuf::from(d).join("tracekit")
    } else if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        PathBuf::from(h).join(".cache").join("tracekit")
    } else {
        std::env::temp_dir().join(format!("tracekit-cache-{}", current_uid()))
    };
    root.join(format!("lib-{DIGEST}"))
}

fn current_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

/// Writes an embedded library into the cache (once: the directory is named
/// by the contents' digest) and returns its path. The file is written
/// under a temporary name and renamed, so a concurrent or interrupted
/// tracekit never leaves half a library to be loaded.
fn extract(file: &str, bytes: &[u8]) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let dir = cache_dir();
    let path = dir.join(file);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir).with_context(|| {
        format!(
            "{}: cannot create the cache directory for {file} (set XDG_CACHE_HOME to a writable directory)",
            dir.display()
        )
    })?;
    let tmp = dir.join(format!(".{file}.{}.partial", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("{}: cannot make executable", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("{}: cannot rename into place", path.display()))?;
    Ok(path)
}

/// Writes every embedded library into `dir` (for a package's
/// `/usr/lib/tracekit`); returns the files written.
pub fn write_embedded(dir: &Path) -> Result<Vec<PathBuf>> {
    use std::os::unix::fs::PermissionsExt;
    anyhow::ensure!(
        !EMBEDDED.is_empty(),
        "this tracekit was built without its libraries embedded (TRACEKIT_EMBED=0, or the inner build failed: \
         see the build's warnings); take them from the target directory instead"
    );
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes) in EMBEDDED {
        let path = dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("{}: cannot write", path.display()))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
            .with_context(|| format!("{}: cannot set permissions", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_libraries_are_embedded_with_a_digest() {
        if std::env::var("TRACEKIT_EMBED").is_ok_and(|v| v == "0") {
            return;
        }
        let names: Vec<&str> = EMBEDDED.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, [RUNTIME.file, QEMU_PLUGIN.file]);
        for (name, bytes) in EMBEDDED {
            assert_eq!(&bytes[..4], b"\x7fELF", "{name} is a shared object");
        }
        assert_eq!(DIGEST.len(), 16);
    }

    #[test]
    fn a_library_found_nowhere_is_named_with_what_to_do() {
        let missing = Library {
            file: "libtracekit_nothing.so",
            env: "TRACEKIT_NOTHING_HERE",
            what: "a library no test builds",
            package: "tracekit-nothing",
            option: "--nothing",
        };
        let e = find(&missing).unwrap_err().to_string();
        for part in [
            "cannot find libtracekit_nothing.so (a library no test builds)",
            "lib/tracekit",
            "built without it embedded",
            "`cargo build --release -p tracekit-nothing`",
            "--nothing or TRACEKIT_NOTHING_HERE",
        ] {
            assert!(e.contains(part), "{part:?} missing from: {e}");
        }
    }

    #[test]
    fn extraction_writes_once_and_whole() {
        let dir = tempfile::tempdir().unwrap();
        // Only this test reads XDG_CACHE_HOME in this process.
        std::env::set_var("XDG_CACHE_HOME", dir.path());
        let a = extract("libx.so", b"\x7fELF-contents").unwrap();
        assert!(a.starts_with(dir.path().join("tracekit")));
        assert_eq!(std::fs::read(&a).unwrap(), b"\x7fELF-contents");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&a).unwrap().permissions().mode() & 0o777, 0o755);
        let b = extract("libx.so", b"\x7fELF-contents").unwrap();
        assert_eq!(a, b);
        let leftovers: Vec<_> = std::fs::read_dir(a.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains("partial"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
