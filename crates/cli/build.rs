//! Builds the two libraries tracekit loads into other programs — the native
//! runtime (`libtracekit_rt.so`, preloaded by `record`) and the QEMU plugin
//! (`libtracekit_qemu_plugin.so`, loaded by `emu run`) — and embeds them in
//! the binary, so that `cargo install --path crates/cli` gives a `tracekit`
//! that needs nothing beside it. At run time `src/libs.rs` writes them to
//! the user's cache directory on first use.
//!
//! They are built by a second cargo in a target directory of their own
//! (`<target>/embedded-libs`): another directory means another build lock,
//! so the outer cargo's lock is never waited for, and the inner cargo
//! inherits the outer one's jobserver, so the two share the same CPU slots.
//! Neither library depends on this crate, so nothing recurses.
//!
//! `TRACEKIT_EMBED=0` skips all this (the binary then looks for the
//! libraries beside itself and in `../lib/tracekit/` only); so does a
//! source tree without the libraries' crates. A failed inner build is a
//! warning, not an error: `record` and `emu run` then say what is missing.

use std::env;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const LIBRARIES: &[(&str, &str)] = &[
    ("tracekit-rt", "libtracekit_rt.so"),
    ("tracekit-qemu-plugin", "libtracekit_qemu_plugin.so"),
];

/// The crates whose sources go into the libraries.
const SOURCES: &[&str] = &[
    "crates/rt",
    "crates/rt-format",
    "crates/rt-macros",
    "crates/qemu-plugin",
    "crates/emu-format",
];

fn main() {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.join("../..");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TRACEKIT_EMBED");
    for dir in SOURCES {
        println!("cargo:rerun-if-changed={}", workspace.join(dir).display());
    }
    println!("cargo:rerun-if-changed={}", workspace.join("Cargo.lock").display());

    let wanted = env::var("TRACEKIT_EMBED").map_or(true, |v| v != "0");
    let have_sources = SOURCES.iter().all(|d| workspace.join(d).join("Cargo.toml").is_file());
    let built = if wanted && have_sources && env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        match build(&workspace, &out_dir) {
            Ok(files) => files,
            Err(why) => {
                println!("cargo:warning=the runtime library and QEMU plugin are not embedded: {why}");
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    write_table(&out_dir, &built);
}

/// Builds both libraries and copies them into `out_dir`; returns the
/// copies, in [`LIBRARIES`] order.
fn build(workspace: &Path, out_dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = env::var("TARGET").map_err(|e| e.to_string())?;
    // OUT_DIR is <target dir>[/<triple>]/<profile>/build/<crate>-<hash>/out.
    let target_root = out_dir
        .ancestors()
        .nth(4)
        .ok_or("OUT_DIR is not inside a target directory")?;
    let inner = target_root.join("embedded-libs");
    let mut cmd = Command::new(cargo);
    cmd.arg("build")
        .arg("--release")
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&inner)
        .arg("--target")
        .arg(&target);
    for (package, _) in LIBRARIES {
        cmd.arg("-p").arg(package);
    }
    // What the outer cargo set for this build script only, or for the
    // crates it lints (clippy), must not steer the inner build.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("__CARGO") || key == "RUSTC_WORKSPACE_WRAPPER" || key == "CARGO_TARGET_DIR" {
            cmd.env_remove(&*key);
        }
    }
    // Small files: no debug information in the embedded copies.
    cmd.env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo");
    let output = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
        return Err(format!(
            "the inner `cargo build` failed: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ));
    }
    let mut files = Vec::new();
    for (_, file) in LIBRARIES {
        let built = inner.join(&target).join("release").join(file);
        let copy = out_dir.join(file);
        std::fs::copy(&built, &copy).map_err(|e| format!("{}: {e}", built.display()))?;
        files.push(((*file).to_owned(), copy));
    }
    Ok(files)
}

/// Writes `embedded.rs`: the libraries' names and bytes, and a digest of
/// their contents that names the cache directory they are written to.
fn write_table(out_dir: &Path, files: &[(String, PathBuf)]) {
    let mut digest: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a
    let mut table = String::from("/// The libraries embedded at build time: file name and contents.\n");
    table.push_str("pub const EMBEDDED: &[(&str, &[u8])] = &[\n");
    for (name, path) in files {
        let bytes = std::fs::read(path).expect("just copied");
        for b in name.bytes().chain(bytes.iter().copied()) {
            digest ^= u64::from(b);
            digest = digest.wrapping_mul(0x0000_0100_0000_01b3);
        }
        writeln!(
            table,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    table.push_str("];\n");
    writeln!(
        table,
        "/// A digest of [`EMBEDDED`]: the cache directory is `lib-<digest>`.\npub const DIGEST: &str = \"{digest:016x}\";"
    )
    .unwrap();
    std::fs::write(out_dir.join("embedded.rs"), table).expect("OUT_DIR is writable");
}
