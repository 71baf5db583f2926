//! Checks made before a command starts work that needs something outside
//! tracekit (QEMU, a JVM and ASM), so a missing piece is reported by name,
//! with how to get it, instead of as a failed process start halfway
//! through.

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// The first `name` on `PATH` (or `name` itself when it holds a `/`).
pub fn on_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `emu run` without `--qemu`: the emulator for the program's architecture
/// must be installed.
pub fn qemu(arch: tracekit_emu::run::Arch, program: &Path, explicit: Option<&Path>) -> Result<()> {
    if explicit.is_some() {
        return Ok(());
    }
    // A program that cannot be read or is of another architecture is
    // reported by the run itself, with its own message.
    let Ok(name) = arch.qemu_for(program) else {
        return Ok(());
    };
    if on_path(name).is_none() {
        bail!(
            "{name} not found on PATH: `emu run --arch {}` runs {} under QEMU's user-mode emulator; \
             install it (Debian: `apt install qemu-user`) or give its path with --qemu",
            arch.name(),
            program.display()
        );
    }
    Ok(())
}

/// `paths instrument|compare|adapt`: a JVM and Debian's ASM library.
pub fn java_and_asm() -> Result<()> {
    if on_path("java").is_none() {
        bail!(
            "java not found on PATH: path profiling of Java programs needs a JDK 17 \
             (Debian: `apt install openjdk-17-jdk-headless`)"
        );
    }
    let classpath = tracekit_jvm::tools::asm_classpath();
    let missing: Vec<&str> = classpath.split(':').filter(|p| !Path::new(p).is_file()).collect();
    if !missing.is_empty() {
        bail!(
            "{}: not found: the instrumenter rewrites bytecode with the ASM library \
             (Debian: `apt install libasm-java`), or set TRACEKIT_ASM_CLASSPATH to its asm.jar and asm-tree.jar",
            missing.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_path_finds_programs_and_paths() {
        assert!(on_path("sh").is_some());
        assert!(on_path("/bin/sh").is_some());
        assert!(on_path("tracekit-no-such-program").is_none());
        assert!(on_path("./no/such/file").is_none());
    }
}
