//! Running a program under `qemu-<arch>` with the tracekit plugin, and the
//! run directory that keeps everything a report needs:
//!
//! ```text
//! DIR/run.json                 what ran, how, exit status, wall time
//! DIR/raw/pid-<pid>.blocks     block logs written by the plugin
//! DIR/raw/pid-<pid>.counts     execution counters written by the plugin
//! DIR/raw/pid-<pid>.sizes      instructions per counter slot (for the totals at
//!                              the end of the run; a staged run leaves them behind)
//! DIR/raw/pid-<pid>.perfmap    a JVM's code map (HotSpot's perf map at exit)
//! DIR/raw/STAGED               only while the files are staged (see [`crate::stage`])
//! DIR/analysis-<profile>.json  cached analyses, one per profile used,
//!                              made by the first report that needs one
//! DIR/profiles/<name>.profile  profiles imported into the run
//! ```

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::analysis::{analyze, Analysis};
use crate::capture::{load_dir, ProcessCapture};
use crate::error::{EmuError, Result};
use crate::guest;
use crate::profile::{default_profile_for, Profile};
use crate::regions::Namer;
use crate::symbols::elf_kind;
pub use crate::totals::totals;

/// Guest instruction-set families tracekit profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    /// 32-bit ARM (ARM and Thumb).
    Arm,
    /// 32-bit MIPS, either byte order.
    Mips,
    /// 64-bit ARM.
    Aarch64,
    /// x86-64.
    #[serde(rename = "x86_64")]
    X86_64,
}

impl Arch {
    /// Parses `arm`, `mips`, `aarch64` or `x86_64`.
    pub fn parse(s: &str) -> Result<Arch> {
        Ok(match s {
            "arm" => Arch::Arm,
            "mips" => Arch::Mips,
            "aarch64" => Arch::Aarch64,
            "x86_64" => Arch::X86_64,
            _ => {
                return Err(EmuError::Invalid(format!(
                    "unknown arch {s:?} (arm, mips, aarch64, x86_64)"
                )))
            }
        })
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Arm => "arm",
            Arch::Mips => "mips",
            Arch::Aarch64 => "aarch64",
            Arch::X86_64 => "x86_64",
        }
    }

    /// QEMU's target name for the arch (little-endian MIPS for `mips`).
    pub fn target(self) -> &'static str {
        match self {
            Arch::Arm => "arm",
            Arch::Mips => "mipsel",
            Arch::Aarch64 => "aarch64",
            Arch::X86_64 => "x86_64",
        }
    }

    fn elf_arch(self) -> object::Architecture {
        match self {
            Arch::Arm => object::Architecture::Arm,
            Arch::Mips => object::Architecture::Mips,
            Arch::Aarch64 => object::Architecture::Aarch64,
            Arch::X86_64 => object::Architecture::X86_64,
        }
    }

    /// The `qemu-*` user-mode emulator for a program of this arch, checking
    /// that the program's ELF header agrees.
    pub fn qemu_for(self, program: &Path) -> Result<&'static str> {
        let kind = elf_kind(program)?;
        if kind.arch != self.elf_arch() {
            return Err(EmuError::Invalid(format!(
                "{} is a {:?} executable, not {}",
                program.display(),
                kind.arch,
                self.name()
            )));
        }
        Ok(match (self, kind.little_endian) {
            (Arch::Arm, true) => "qemu-arm",
            (Arch::Arm, false) => "qemu-armeb",
            (Arch::Mips, true) => "qemu-mipsel",
            (Arch::Mips, false) => "qemu-mips",
            (Arch::Aarch64, true) => "qemu-aarch64",
            (Arch::Aarch64, false) => "qemu-aarch64_be",
            (Arch::X86_64, _) => "qemu-x86_64",
        })
    }
}

/// How the plugin counts (see `tracekit-qemu-plugin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CountMode {
    /// Inline add per block execution (fast; the default).
    Tb,
    /// Callback per executed instruction (slow, independent reference).
    Insn,
}

impl CountMode {
    /// The plugin's and the command line's name of the mode.
    pub fn arg(self) -> &'static str {
        match self {
            CountMode::Tb => "tb",
            CountMode::Insn => "insn",
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// Guest architecture.
    pub arch: Arch,
    /// Output directory (created; earlier raw data in it is replaced).
    pub out: PathBuf,
    /// Guest program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Counting mode.
    pub mode: CountMode,
    /// Emulator binary to use instead of `qemu-<arch>` from `PATH`.
    pub qemu: Option<PathBuf>,
    /// Plugin library to use instead of the one found by [`find_plugin`].
    pub plugin: Option<PathBuf>,
    /// Profile (built-in name or file) for the analysis kept with the run.
    pub profile: Option<String>,
    /// For a JVM launcher: ask the JVM for its code map at exit (adds
    /// `-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit` before the
    /// program's own arguments), so JIT code and the interpreter are told
    /// apart.
    pub jvm_code_map: bool,
    /// Free-form labels kept in `run.json` (e.g. `kernel=fft`), which
    /// `emu study` groups runs by.
    pub labels: std::collections::BTreeMap<String, String>,
    /// Plugin option `disas=all`: QEMU disassembles every instruction
    /// (slow; for checking tracekit's own disassembly).
    pub disas_all: bool,
}

/// What was run, kept as `run.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Guest architecture.
    pub arch: Arch,
    /// Emulator used.
    pub qemu: PathBuf,
    /// Plugin used.
    pub plugin: PathBuf,
    /// Guest program (absolute path).
    pub program: PathBuf,
    /// Guest arguments (lossy UTF-8).
    pub args: Vec<String>,
    /// Counting mode.
    pub mode: CountMode,
    /// Exit code when the emulator exited normally.
    pub exit_code: Option<i32>,
    /// Signal that ended the emulator, if any.
    pub signal: Option<i32>,
    /// Wall-clock time of the emulated run, seconds.
    pub wall_s: f64,
    /// Profile of the analysis kept with the run.
    pub profile: String,
    /// Arguments tracekit put before the program's own (a JVM's code-map flags).
    #[serde(default)]
    pub injected_args: Vec<String>,
    /// Library prefix passed to QEMU as `-L`, when the guest's loader is
    /// not in the host's root.
    #[serde(default)]
    pub ld_prefix: Option<PathBuf>,
    /// Labels given with `emu run --label KEY=VALUE`.
    #[serde(default)]
    pub labels: std::collections::BTreeMap<String, String>,
}

/// Totals of a run, computed without disassembly or a profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunTotals {
    /// Processes with a block log.
    pub processes: usize,
    /// Block executions.
    pub blocks: u64,
    /// Instructions executed.
    pub instructions: u64,
}

/// Hottest blocks kept per process in a cached analysis.
pub const HOT_BLOCKS_KEPT: usize = 25;

/// Name of the plugin library cargo builds.
pub const PLUGIN_FILE: &str = "libtracekit_qemu_plugin.so";

/// Finds the plugin: `$TRACEKIT_QEMU_PLUGIN`, else next to the running
/// executable (cargo puts `tracekit` and the plugin in one directory), else
/// one directory up (for test binaries in `target/*/deps`).
pub fn find_plugin() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("TRACEKIT_QEMU_PLUGIN") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| EmuError::Invalid(format!("cannot locate tracekit: {e}")))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for candidate in [dir.join(PLUGIN_FILE), dir.join("..").join(PLUGIN_FILE)] {
        if candidate.is_file() {
            return Ok(candidate);
        }
    }
    Err(EmuError::Invalid(format!(
        "cannot find {PLUGIN_FILE} next to {}; build it with `cargo build --release -p tracekit-qemu-plugin`, \
         or pass --plugin or set TRACEKIT_QEMU_PLUGIN",
        exe.display()
    )))
}

/// QEMU splits `-plugin` arguments at commas; a literal comma is doubled.
fn qemu_opt_escape(p: &Path) -> String {
    p.display().to_string().replace(',', ",,")
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> EmuError + '_ {
    move |e| EmuError::Io {
        path: path.to_owned(),
        error: e,
    }
}

/// Directory holding the plugin's raw files.
pub fn raw_dir(out: &Path) -> PathBuf {
    out.join(tracekit_emu_format::RAW_DIR)
}

/// The JVM options that make HotSpot write its code map at exit.
pub const JVM_CODE_MAP_ARGS: [&str; 2] = ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DumpPerfMapAtExit"];

/// Runs the program under QEMU with the plugin and writes `run.json`.
/// Everything that can make QEMU fail to start (unknown program, wrong
/// architecture, missing loader, missing plugin) is checked first. The
/// analysis is left to the first report that asks for it; the totals
/// returned need no disassembly.
pub fn run(req: &RunRequest) -> Result<(RunRecord, RunTotals)> {
    let program = guest::resolve_program(&req.program, req.arch)?;
    guest::check_elf(&program)?;
    // Check the profile before spending time on the run; a file is kept by
    // absolute path so reports work from any directory.
    let profile_name = match &req.profile {
        Some(spec) if Path::new(spec).is_file() => {
            Profile::load(spec)?;
            std::fs::canonicalize(spec)
                .map_err(io_err(Path::new(spec)))?
                .display()
                .to_string()
        }
        Some(spec) => resolve_profile(&req.out, spec).map(|_| spec.clone())?,
        None => default_profile_for(req.arch.target())
            .expect("every arch has a default")
            .to_owned(),
    };
    let qemu = match &req.qemu {
        Some(q) => q.clone(),
        None => PathBuf::from(req.arch.qemu_for(&program)?),
    };
    let ld_prefix = guest::loader_prefix(&program, req.arch)?;
    let plugin = match &req.plugin {
        Some(p) => p.clone(),
        None => find_plugin()?,
    };
    let plugin = std::fs::canonicalize(&plugin).map_err(io_err(&plugin))?;
    std::fs::create_dir_all(&req.out).map_err(io_err(&req.out))?;
    let raw = raw_dir(&req.out);
    std::fs::create_dir_all(&raw).map_err(io_err(&raw))?;
    let raw = std::fs::canonicalize(&raw).map_err(io_err(&raw))?;
    remove_matching(&raw, tracekit_emu_format::PID_PREFIX)?;
    remove_matching(&raw, crate::stage::MARKER)?;
    // The pack, and by its prefix a partial one a killed run left.
    remove_matching(&raw, tracekit_emu_format::PACK_FILE)?;
    remove_matching(&req.out, tracekit_emu_format::ANALYSIS_PREFIX)?;
    let stage = crate::stage::Stage::create(&raw)?;
    let plugin_out = stage.as_ref().map_or(raw.as_path(), |s| s.dir());
    let injected_args: Vec<String> = if req.jvm_code_map && guest::is_jvm_launcher(&program) {
        JVM_CODE_MAP_ARGS.iter().map(|s| s.to_string()).collect()
    } else {
        Vec::new()
    };
    let mut plugin_arg = format!(
        "{},out={},mode={}",
        qemu_opt_escape(&plugin),
        qemu_opt_escape(plugin_out),
        req.mode.arg()
    );
    if req.disas_all {
        plugin_arg.push_str(",disas=all");
    }
    let mut command = Command::new(&qemu);
    if let Some(prefix) = &ld_prefix {
        command.arg("-L").arg(prefix);
    }
    command
        .arg("-plugin")
        .arg(&plugin_arg)
        .arg(&program)
        .args(&injected_args)
        .args(&req.args);
    let started = Instant::now();
    let guard = crate::children::Guard::install();
    let status = command.status().map_err(|e| {
        EmuError::Invalid(format!(
            "cannot start {}: {e} (is qemu-user installed?)",
            qemu.display()
        ))
    });
    let wall_s = started.elapsed().as_secs_f64();
    if status.is_ok() {
        guard.wait_for_children();
    }
    drop(guard);
    // A staged run is totalled before its files are packed, from the size
    // tables, which stay behind; the pack holds each log without the zero
    // tail a killed process leaves.
    let staged_totals = stage
        .as_ref()
        .map(|s| crate::totals::totals_in(s.dir(), req.mode == CountMode::Insn));
    let staged_pids = match stage {
        Some(stage) => Some(stage.finish()?),
        None => None,
    };
    let status = status?;
    use std::os::unix::process::ExitStatusExt;

    let record = RunRecord {
        arch: req.arch,
        qemu,
        plugin,
        program,
        args: req.args.iter().map(|a| a.to_string_lossy().into_owned()).collect(),
        mode: req.mode,
        exit_code: status.code(),
        signal: status.signal(),
        wall_s,
        profile: profile_name,
        injected_args,
        ld_prefix,
        labels: req.labels.clone(),
    };
    let json = serde_json::to_string_pretty(&record).expect("serializable");
    let run_json = req.out.join(tracekit_emu_format::RUN_FILE);
    std::fs::write(&run_json, json).map_err(io_err(&run_json))?;
    let pids = match staged_pids {
        Some(pids) => pids,
        None => settle_raw(&raw)?,
    };
    if pids.is_empty() {
        return Err(EmuError::Invalid(format!(
            "{} wrote no profile data: did the plugin load? (exit status {status})",
            record.qemu.display()
        )));
    }
    if !record.injected_args.is_empty() {
        collect_code_maps(&raw, &pids, started)?;
    }
    let totals = match staged_totals {
        Some(t) => t?,
        None => totals(&req.out)?,
    };
    Ok((record, totals))
}

fn remove_matching(dir: &Path, prefix: &str) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(io_err(dir))? {
        let path = entry.map_err(io_err(dir))?.path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(prefix))
        {
            std::fs::remove_file(&path).map_err(io_err(&path))?;
        }
    }
    Ok(())
}

/// Trims the zero tail a killed process leaves in its mapped block log
/// (the plugin trims it itself at a normal exit) and returns the pids.
fn settle_raw(raw: &Path) -> Result<Vec<u32>> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir(raw).map_err(io_err(raw))? {
        let path = entry.map_err(io_err(raw))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some(tracekit_emu_format::RawFile::Blocks(pid)) = tracekit_emu_format::parse_raw_file(name) else {
            continue;
        };
        pids.push(pid);
        tracekit_safeio::check_regular(&path)?;
        trim_log(&path)?;
    }
    pids.sort_unstable();
    Ok(pids)
}

/// Cuts a block log at the end of its text (see [`text_end`]).
fn trim_log(path: &Path) -> Result<()> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io_err(path))?;
    let len = file.metadata().map_err(io_err(path))?.len();
    let end = text_end(&file, len).map_err(io_err(path))?;
    if end < len {
        file.set_len(end).map_err(io_err(path))?;
    }
    Ok(())
}

/// Where the text of a block log ends: the log is text (no NUL byte)
/// followed, when its process was killed, by the zeros of the mapping's
/// unwritten tail. That tail is mostly a hole, so the text ends in the
/// chunk before the first hole, which one read finds; only where the file
/// system cannot tell holes does a bisection with one-byte reads find the
/// first NUL, instead of reading a log of many megabytes.
pub(crate) fn text_end(file: &std::fs::File, len: u64) -> std::io::Result<u64> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileExt;
    let byte = |at: u64| -> std::io::Result<u8> {
        let mut b = [0u8];
        file.read_exact_at(&mut b, at)?;
        Ok(b[0])
    };
    if len == 0 || byte(len - 1)? != 0 {
        return Ok(len);
    }
    // SAFETY: lseek on our own descriptor.
    let hole = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_HOLE) };
    let data_end = if hole > 0 { (hole as u64).min(len) } else { len };
    // Invariant: bytes before `lo` are text, the byte at `hi` is a NUL (or
    // `hi` is where the data ends).
    let (mut lo, mut hi) = (0u64, data_end);
    const CHUNK: u64 = 64 << 10;
    if data_end > 0 {
        let start = data_end.saturating_sub(CHUNK);
        let mut tail = vec![0u8; (data_end - start) as usize];
        file.read_exact_at(&mut tail, start)?;
        match tail.iter().position(|&b| b == 0) {
            Some(0) => hi = start,
            Some(i) => return Ok(start + i as u64),
            None => return Ok(data_end),
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if byte(mid)? == 0 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(hi)
}

/// Moves each JVM's code map (`/tmp/perf-<pid>.map`, written at exit) of
/// this run into `raw/`.
fn collect_code_maps(raw: &Path, pids: &[u32], started: Instant) -> Result<()> {
    let since = std::time::SystemTime::now() - started.elapsed();
    for pid in pids {
        let map = PathBuf::from(format!("/tmp/perf-{pid}.map"));
        let fresh = std::fs::metadata(&map)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= since);
        if !fresh {
            continue;
        }
        let dest = raw.join(tracekit_emu_format::perfmap_file(*pid));
        if std::fs::rename(&map, &dest).is_err() {
            std::fs::copy(&map, &dest).map_err(io_err(&map))?;
            let _ = std::fs::remove_file(&map);
        }
    }
    Ok(())
}

/// Reads `run.json` of a run directory.
pub fn load_record(dir: &Path) -> Result<RunRecord> {
    let path = dir.join(tracekit_emu_format::RUN_FILE);
    let text = tracekit_safeio::read_text(&path)?;
    serde_json::from_str(&text).map_err(|e| EmuError::Parse {
        path: path.clone(),
        line: e.line(),
        msg: e.to_string(),
    })
}

/// Resolves a profile for a run: a profile imported into the run directory
/// (`DIR/profiles/<name>.profile`), a built-in name, or a file path.
pub fn resolve_profile(dir: &Path, spec: &str) -> Result<Profile> {
    let imported = dir
        .join(tracekit_emu_format::PROFILES_DIR)
        .join(format!("{spec}.profile"));
    if imported.is_file() {
        let text = tracekit_safeio::read_text(&imported)?;
        return Profile::parse(&imported, &text);
    }
    Profile::load(spec)
}

/// Loads the raw capture of a run directory.
pub fn load_capture(dir: &Path) -> Result<Vec<ProcessCapture>> {
    load_dir(&raw_dir(dir))
}

/// A cached analysis with a digest of the profile text it was made with,
/// so an edited profile of the same name is never answered from the cache,
/// and a stamp of the raw files and program it was computed from, so a
/// changed `raw/` (or a rebuilt program) is never answered from it either.
#[derive(Serialize, Deserialize)]
struct CachedAnalysis {
    profile_digest: String,
    /// Caches written before the stamp existed have none, and are stale.
    #[serde(default)]
    inputs_stamp: String,
    analysis: Analysis,
}

/// A digest of the name, size and modification time of every file in
/// `raw/` and of the program (for its symbols): any change to them changes
/// the stamp.
fn inputs_stamp(dir: &Path, program: &Path) -> Result<String> {
    let raw = raw_dir(dir);
    let mut parts = Vec::new();
    for e in std::fs::read_dir(&raw).map_err(io_err(&raw))? {
        let e = e.map_err(io_err(&raw))?;
        parts.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    parts.sort();
    parts.push(("<program>".into(), program.to_owned()));
    let mut text = String::new();
    for (name, path) in parts {
        let (len, mtime) = match std::fs::metadata(&path) {
            Ok(m) => {
                use std::os::unix::fs::MetadataExt;
                (m.len(), (m.mtime(), m.mtime_nsec()))
            }
            Err(_) => (u64::MAX, (0, 0)),
        };
        text.push_str(&format!("{name}\t{len}\t{}.{:09}\n", mtime.0, mtime.1));
    }
    Ok(digest(&text))
}

fn digest(text: &str) -> String {
    // FNV-1a: stable across builds, which std's hasher does not promise.
    let mut h: u64 = 0xcbf29ce484222325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

/// The analysis of a run under `profile` (default: the run's own), read
/// from the cache in the run directory or computed once and cached.
pub fn analysis_for(dir: &Path, profile: Option<&str>) -> Result<Analysis> {
    let record = load_record(dir)?;
    let spec = profile.unwrap_or(&record.profile);
    let profile = resolve_profile(dir, spec)?;
    let profile_digest = digest(&profile.to_text());
    let stamp = inputs_stamp(dir, &record.program)?;
    let cache = dir.join(tracekit_emu_format::analysis_file(&profile.name));
    if let Ok(text) = tracekit_safeio::read_text(&cache) {
        if let Ok(c) = serde_json::from_str::<CachedAnalysis>(&text) {
            if c.profile_digest == profile_digest && c.inputs_stamp == stamp {
                return Ok(c.analysis);
            }
        }
    }
    let captures = load_capture(dir)?;
    // A missing or unreadable file only costs symbol names.
    let namer = Namer::new(Some(&record.program));
    let analysis = analyze(&captures, &profile, Some(&record.program), &namer, HOT_BLOCKS_KEPT);
    let cached = CachedAnalysis {
        profile_digest,
        inputs_stamp: stamp,
        analysis,
    };
    let json = serde_json::to_string(&cached).expect("serializable");
    std::fs::write(&cache, json).map_err(io_err(&cache))?;
    Ok(cached.analysis)
}

/// Stores a profile in the run directory (so `--profile NAME` finds it)
/// and drops the cached analysis made with an earlier version of it.
pub fn import_profile(dir: &Path, profile: &Profile) -> Result<PathBuf> {
    let pdir = dir.join(tracekit_emu_format::PROFILES_DIR);
    std::fs::create_dir_all(&pdir).map_err(io_err(&pdir))?;
    let path = pdir.join(format!("{}.profile", profile.name));
    std::fs::write(&path, profile.to_text()).map_err(io_err(&path))?;
    let cache = dir.join(tracekit_emu_format::analysis_file(&profile.name));
    if cache.exists() {
        std::fs::remove_file(&cache).map_err(io_err(&cache))?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_names_round_trip_and_unknown_ones_are_rejected() {
        for a in ["arm", "mips", "aarch64", "x86_64"] {
            assert_eq!(Arch::parse(a).unwrap().name(), a);
        }
        assert!(Arch::parse("sparc").is_err());
    }

    #[test]
    fn profile_digests_are_stable_and_content_sensitive() {
        assert_eq!(digest(""), "cbf29ce484222325");
        assert_ne!(digest("a"), digest("b"));
    }

    #[test]
    fn a_killed_log_is_cut_at_its_first_nul() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let long = "x".repeat(200 << 10);
        for text in ["", "abc", "a", &long] {
            for zeros in [0usize, 1, 5, 4096, 300 << 10] {
                let mut bytes = text.as_bytes().to_vec();
                bytes.resize(text.len() + zeros, 0);
                std::fs::write(&path, &bytes).unwrap();
                let file = std::fs::File::open(&path).unwrap();
                let end = text_end(&file, bytes.len() as u64).unwrap();
                assert_eq!(end, text.len() as u64, "{} bytes + {zeros} zeros", text.len());
                // As a killed process leaves it: text, then a hole.
                let file = std::fs::File::create(&path).unwrap();
                use std::io::Write;
                (&file).write_all(text.as_bytes()).unwrap();
                file.set_len((text.len() + zeros) as u64).unwrap();
                let file = std::fs::File::open(&path).unwrap();
                let end = text_end(&file, (text.len() + zeros) as u64).unwrap();
                assert_eq!(end, text.len() as u64, "{} bytes + a hole of {zeros}", text.len());
            }
        }
    }

    #[test]
    fn commas_are_escaped_for_qemu() {
        assert_eq!(qemu_opt_escape(Path::new("/a,b/c")), "/a,,b/c");
    }

    #[test]
    fn a_program_of_another_arch_is_refused() {
        let me = std::env::current_exe().unwrap();
        let other = if cfg!(target_arch = "x86_64") {
            Arch::Arm
        } else {
            Arch::X86_64
        };
        let e = other.qemu_for(&me).unwrap_err().to_string();
        assert!(e.contains("executable, not"), "{e}");
    }
}
