//! Finding a guest program and what it needs before QEMU runs it: the
//! program itself (a bare name such as `java` is looked up for the guest's
//! architecture, not the host's), its dynamic loader and library prefix,
//! and whether it is a HotSpot JVM launcher.
//!
//! Dynamically linked guests need their loader (`PT_INTERP`, e.g.
//! `/lib/ld-linux-aarch64.so.1`) and libraries. With Debian's multiarch
//! (`dpkg --add-architecture arm64`, what `scripts/deps/emu-jvm.sh` sets
//! up) they live in the host's own `/lib/<triplet>`, so QEMU finds them with
//! no prefix; with only a cross toolchain's libc they live under
//! `/usr/<triplet>`, which is passed to QEMU as `-L`: that is how a JDK
//! unpacked under [`GUEST_JVM_ROOT`] runs (its own libraries, zlib among
//! them, sit beside it). Anything else is an error here, before QEMU
//! starts, naming the missing file.

use std::path::{Path, PathBuf};

use object::{Object, ObjectSegment};

use crate::error::{EmuError, Result};
use crate::run::Arch;
use crate::symbols::elf_kind;

/// Where `scripts/deps/emu-jvm.sh` unpacks a guest JDK that is not
/// installed through multiarch: `<root>/<debian arch>/usr/lib/jvm/…`.
pub const GUEST_JVM_ROOT: &str = "/opt/tracekit/guest-jvm";

/// Debian's multiarch triplet and architecture name for an arch.
pub fn debian_names(arch: Arch) -> (&'static str, &'static str) {
    match arch {
        Arch::Arm => ("arm-linux-gnueabihf", "armhf"),
        Arch::Mips => ("mipsel-linux-gnu", "mipsel"),
        Arch::Aarch64 => ("aarch64-linux-gnu", "arm64"),
        Arch::X86_64 => ("x86_64-linux-gnu", "amd64"),
    }
}

fn matches_arch(path: &Path, arch: Arch) -> bool {
    arch.qemu_for(path).is_ok()
}

/// Resolves the program to run: a path is taken as given; a bare name is
/// searched on `PATH` for an executable *of the guest's architecture*, then
/// among the JDKs of that architecture (`/usr/lib/jvm/*-<debian arch>/bin`,
/// then the unpacked ones under [`GUEST_JVM_ROOT`]) and the cross
/// toolchain's `/usr/<triplet>/bin`.
pub fn resolve_program(program: &Path, arch: Arch) -> Result<PathBuf> {
    let name = program.to_string_lossy();
    if name.contains('/') {
        return std::fs::canonicalize(program).map_err(|e| EmuError::Io {
            path: program.to_owned(),
            error: e,
        });
    }
    let (triplet, debarch) = debian_names(arch);
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(program)).collect())
        .unwrap_or_default();
    let unpacked = Path::new(GUEST_JVM_ROOT).join(debarch).join("usr/lib/jvm");
    for jvm_dir in [Path::new("/usr/lib/jvm"), unpacked.as_path()] {
        let Ok(entries) = std::fs::read_dir(jvm_dir) else {
            continue;
        };
        let mut jdks: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(debarch)))
            .collect();
        jdks.sort();
        candidates.extend(jdks.into_iter().map(|j| j.join("bin").join(program)));
    }
    candidates.push(Path::new("/usr").join(triplet).join("bin").join(program));
    let mut wrong = None;
    for c in candidates.into_iter().filter(|c| c.is_file()) {
        let c = std::fs::canonicalize(&c).unwrap_or(c);
        if matches_arch(&c, arch) {
            return Ok(c);
        }
        wrong.get_or_insert(c);
    }
    Err(EmuError::Invalid(match wrong {
        Some(w) => format!(
            "{name}: the one found ({}) is not built for {}, and no {} {name} is installed \
             (for a JVM: openjdk-17-jre-headless:{debarch}, see scripts/deps/emu-jvm.sh)",
            w.display(),
            arch.name(),
            arch.name()
        ),
        None => format!("{name}: no such program on PATH or in the {} JDKs", arch.name()),
    }))
}

/// The `PT_INTERP` path of an ELF file, if it is dynamically linked.
pub fn interpreter(path: &Path) -> Result<Option<String>> {
    crate::symbols::with_headers(path, |file| interpreter_of(path, file))?
}

fn interpreter_of<'d, R: object::ReadRef<'d>>(path: &Path, file: &object::File<'d, R>) -> Result<Option<String>> {
    if let object::File::Elf32(_) | object::File::Elf64(_) = file {
    } else {
        return Err(EmuError::Invalid(format!("{}: not an ELF executable", path.display())));
    }
    // PT_INTERP is the segment whose bytes are a NUL-terminated path; the
    // object crate exposes segments, not their types, so look for the
    // `.interp` section first and fall back to a segment holding a path.
    if let Some(section) = object::Object::section_by_name(file, ".interp") {
        let bytes = object::ObjectSection::data(&section).unwrap_or(&[]);
        return Ok(Some(String::from_utf8_lossy(bytes).trim_end_matches('\0').to_owned()));
    }
    // Only small segments are read: a large one cannot be a path, and
    // reading every segment read the whole program.
    for seg in file.segments().filter(|s| s.file_range().1 < 256) {
        if let Ok(bytes) = seg.data() {
            if bytes.len() < 256 && bytes.starts_with(b"/") && bytes.ends_with(b"\0") && bytes.contains(&b'/') {
                let text = String::from_utf8_lossy(bytes).trim_end_matches('\0').to_owned();
                if text.contains("ld") {
                    return Ok(Some(text));
                }
            }
        }
    }
    Ok(None)
}

/// Where QEMU will find a dynamically linked guest's loader: `None` for
/// the host's root (multiarch, no `-L` needed) or a prefix for `-L`.
/// Statically linked programs need nothing.
pub fn loader_prefix(program: &Path, arch: Arch) -> Result<Option<PathBuf>> {
    // Fails early on a program of the wrong architecture.
    arch.qemu_for(program)?;
    let Some(interp) = interpreter(program)? else {
        return Ok(None);
    };
    let (triplet, debarch) = debian_names(arch);
    if Path::new(&interp).is_file() {
        return Ok(None);
    }
    let cross = Path::new("/usr").join(triplet);
    if cross.join(interp.trim_start_matches('/')).is_file() {
        return Ok(Some(cross));
    }
    Err(EmuError::Invalid(format!(
        "{} needs the dynamic loader {interp}, which is not installed: install the guest's libc \
         (libc6:{debarch} through multiarch, see scripts/deps/emu-jvm.sh, or libc6-{debarch}-cross)",
        program.display(),
    )))
}

/// True when `program` is a HotSpot (or Zero) `java` launcher: its JDK has
/// a `lib/<variant>/libjvm.so` beside `bin/`.
pub fn is_jvm_launcher(program: &Path) -> bool {
    let Some(home) = program.parent().and_then(Path::parent) else {
        return false;
    };
    program.file_name().is_some_and(|n| n == "java")
        && ["server", "client", "zero"]
            .iter()
            .any(|v| home.join("lib").join(v).join("libjvm.so").is_file())
}

/// Checks a program's ELF header (readable, an ELF) for error messages
/// that name the file.
pub fn check_elf(program: &Path) -> Result<()> {
    elf_kind(program).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_and_a_host_only_program_are_explained() {
        let e = resolve_program(Path::new("no-such-program-xyz"), Arch::Aarch64)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such program"), "{e}");
        // `sh` exists on the host, but not as a MIPS program.
        let e = resolve_program(Path::new("sh"), Arch::Mips).unwrap_err().to_string();
        assert!(e.contains("not built for mips"), "{e}");
    }

    #[test]
    fn the_host_test_binary_has_the_host_loader() {
        let me = std::env::current_exe().unwrap();
        let interp = interpreter(&me).unwrap();
        assert!(interp.is_some_and(|i| i.contains("ld-linux")));
        assert!(!is_jvm_launcher(&me));
    }
}
