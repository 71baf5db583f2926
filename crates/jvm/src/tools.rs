//! The Java half of the frontend: the probe runtime (`tracekit.rt`, copied
//! into every instrumented jar) and the ASM-based instrumenter
//! (`tracekit.instr.Instrument`). Their sources are compiled into this crate
//! and built with the installed JDK on first use, into a cache directory
//! keyed by a hash of the sources.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

macro_rules! java_sources {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("../java/", $path)))),*]
    };
}

/// Every Java source file: (path under `java/`, text).
pub const SOURCES: &[(&str, &str)] = java_sources![
    "runtime/tracekit/rt/Rt.java",
    "runtime/tracekit/rt/Sink.java",
    "runtime/tracekit/rt/RecordCoder.java",
    "runtime/tracekit/rt/BitOut.java",
    "runtime/tracekit/rt/Coder.java",
    "runtime/tracekit/rt/CtxModel.java",
    "runtime/tracekit/rt/CtxPredictor.java",
    "runtime/tracekit/rt/CtxRepeat.java",
    "runtime/tracekit/rt/LongList.java",
    "runtime/tracekit/rt/Tables.java",
    "runtime/tracekit/rt/ThreadState.java",
    "runtime/tracekit/rt/ThreadBuffer.java",
    "runtime/tracekit/rt/VectorCheck.java",
    "instrumenter/tracekit/instr/Instrument.java",
    "instrumenter/tracekit/instr/Probes.java",
];

/// Class path of the ASM library (Debian package `libasm-java`), overridable
/// with `TRACEKIT_ASM_CLASSPATH`.
pub fn asm_classpath() -> String {
    std::env::var("TRACEKIT_ASM_CLASSPATH")
        .unwrap_or_else(|_| "/usr/share/java/asm.jar:/usr/share/java/asm-tree.jar".into())
}

fn source_hash() -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (p, s) in SOURCES {
        for b in p.bytes().chain(s.bytes()) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// Compiled Java tools.
#[derive(Debug, Clone)]
pub struct JavaTools {
    /// Directory holding the compiled `tracekit/rt/*.class`.
    pub runtime_classes: PathBuf,
    /// Directory holding the compiled instrumenter.
    pub instrumenter_classes: PathBuf,
}

fn cache_root() -> PathBuf {
    if let Ok(d) = std::env::var("TRACEKIT_JVM_CACHE") {
        return PathBuf::from(d);
    }
    if let Ok(d) = std::env::var("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("tracekit");
    }
    if let Ok(d) = std::env::var("HOME") {
        return PathBuf::from(d).join(".cache").join("tracekit");
    }
    std::env::temp_dir().join("tracekit-cache")
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {what} (is JDK 17 installed?)"))?;
    if !out.status.success() {
        bail!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Builds (once) and returns the Java tools.
pub fn java_tools() -> Result<JavaTools> {
    let dir = cache_root().join(format!("jvm-{:016x}", source_hash()));
    let tools = JavaTools {
        runtime_classes: dir.join("rt"),
        instrumenter_classes: dir.join("instr"),
    };
    if dir.join("ok").exists() {
        return Ok(tools);
    }
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = cache_root().join(format!("jvm-build-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let src = tmp.join("src");
    let mut runtime = Vec::new();
    let mut instr = Vec::new();
    for (p, text) in SOURCES {
        let f = src.join(p);
        std::fs::create_dir_all(f.parent().unwrap())?;
        std::fs::write(&f, text).with_context(|| format!("writing {}", f.display()))?;
        if p.starts_with("runtime/") {
            runtime.push(f)
        } else {
            instr.push(f)
        }
    }
    run(
        Command::new("javac")
            .arg("--release")
            .arg("8")
            .arg("-nowarn")
            .arg("-d")
            .arg(tmp.join("rt"))
            .args(&runtime),
        "javac (runtime)",
    )?;
    run(
        Command::new("javac")
            .arg("-nowarn")
            .arg("-cp")
            .arg(asm_classpath())
            .arg("-d")
            .arg(tmp.join("instr"))
            .args(&instr),
        "javac (instrumenter; needs Debian package libasm-java)",
    )?;
    std::fs::write(tmp.join("ok"), b"")?;
    std::fs::create_dir_all(cache_root())?;
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another process won the race; use its build.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if !dir.join("ok").exists() {
        bail!("could not set up Java tools in {}", dir.display());
    }
    Ok(tools)
}

impl JavaTools {
    /// Runs the instrumenter: `plan` lists the probe sites, `resources` is a
    /// directory whose files are added to the output jar as they are.
    pub fn instrument(
        &self,
        plan: &Path,
        input: &Path,
        output: &Path,
        resources: &Path,
        classpath: &[PathBuf],
    ) -> Result<String> {
        let cp = format!("{}:{}", self.instrumenter_classes.display(), asm_classpath());
        let out = Command::new("java")
            .arg("-cp")
            .arg(cp)
            .arg("tracekit.instr.Instrument")
            .arg(plan)
            .arg(input)
            .arg(output)
            .arg(&self.runtime_classes)
            .arg(resources)
            .args(classpath)
            .output()
            .context("cannot run java (is JDK 17 installed?)")?;
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            bail!("instrumenting {} failed: {}", input.display(), java_failure(&log));
        }
        Ok(log)
    }
}

/// The one line worth showing of a failed Java run's stderr: the
/// instrumenter's own `tracekit: error:` line, else the exception line of a
/// stack trace (`Exception in thread "main" java.…: message`), else the
/// first line. Stack frames are never shown.
pub(crate) fn java_failure(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if let Some(l) = lines.iter().rev().find_map(|l| l.strip_prefix("tracekit: error: ")) {
        return l.to_owned();
    }
    let frame = |l: &str| l.starts_with("at ") || (l.starts_with("...") && l.ends_with("more"));
    if let Some(l) = lines
        .iter()
        .find(|l| l.starts_with("Exception in thread") || l.starts_with("Caused by:"))
    {
        let l = l.split_once("\" ").map_or(*l, |(_, rest)| rest.trim());
        return l.to_owned();
    }
    lines
        .iter()
        .find(|l| !frame(l))
        .map_or_else(|| "java failed without a message".to_owned(), |l| (*l).to_owned())
}

#[cfg(test)]
mod failure_tests {
    use super::java_failure;

    #[test]
    fn a_stack_trace_becomes_one_line() {
        let trace = "Exception in thread \"main\" java.util.zip.ZipException: invalid stored block lengths\n\
            \tat java.base/java.util.zip.InflaterInputStream.read(InflaterInputStream.java:165)\n\
            \tat tracekit.instr.Instrument.main(Instrument.java:51)\n";
        assert_eq!(
            java_failure(trace),
            "java.util.zip.ZipException: invalid stored block lengths"
        );
        let own = "tracekit: instrumented 0 classes\ntracekit: error: java.util.zip.ZipException: bad entry\n";
        assert_eq!(java_failure(own), "java.util.zip.ZipException: bad entry");
        assert_eq!(
            java_failure("Error: could not find class\n"),
            "Error: could not find class"
        );
        assert_eq!(java_failure(""), "java failed without a message");
    }
}
