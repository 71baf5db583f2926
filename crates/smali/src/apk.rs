//! The Android tools around the instrumenter: apktool to decode and
//! rebuild an APK, smali/baksmali for bare dex files, dexdump to check a
//! result, enjarify to turn dex back into a jar for the JVM.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// Runs a tool, failing with its stderr's last lines.
pub fn run(cmd: &mut Command, what: &str) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {what} (scripts/deps/smali.apt installs it)"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        let tail: Vec<&str> = stderr
            .lines()
            .rev()
            .take(6)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        bail!("{what} failed: {}", tail.join(" | "));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned() + &stderr)
}

/// True when `tool` is on the PATH.
pub fn have(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// Debian's apktool launcher caps the heap at 512 MiB, too little to
/// assemble the largest dex of a big app; a later `-Xmx` wins.
const APKTOOL_HEAP: &str = "-JXmx3g";

/// `apktool d` without resources (they are rebuilt byte for byte).
pub fn apktool_decode(apk: &Path, dir: &Path) -> Result<()> {
    run(
        Command::new("apktool")
            .args([APKTOOL_HEAP, "d", "-f", "-r", "-o"])
            .arg(dir)
            .arg(apk),
        "apktool d",
    )?;
    Ok(())
}

/// `apktool b`.
pub fn apktool_build(dir: &Path, apk: &Path) -> Result<()> {
    run(
        Command::new("apktool")
            .args([APKTOOL_HEAP, "b", "-o"])
            .arg(apk)
            .arg(dir),
        "apktool b",
    )?;
    Ok(())
}

/// `smali a` a directory into one dex file.
pub fn assemble(dir: &Path, dex: &Path) -> Result<()> {
    let _ = std::fs::remove_file(dex);
    // smali reports assembly errors on stderr and may still exit 0: the missing dex tells.
    let out = run(Command::new("smali").args(["a", "-o"]).arg(dex).arg(dir), "smali a")?;
    if !dex.is_file() || out.contains("Invalid") || out.lines().any(|l| l.contains(".smali[")) {
        let first: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).take(5).collect();
        bail!("smali a {} failed: {}", dir.display(), first.join(" | "));
    }
    Ok(())
}

/// `baksmali d` a dex file into a directory.
pub fn disassemble(dex: &Path, dir: &Path) -> Result<()> {
    run(
        Command::new("baksmali").args(["d", "-o"]).arg(dir).arg(dex),
        "baksmali d",
    )?;
    Ok(())
}

/// Checks a dex file with `dexdump` (ART's dex-file verifier runs as it
/// opens the file); returns the number of methods with code it listed.
pub fn dexdump_check(dex: &Path) -> Result<usize> {
    let out = Command::new("dexdump")
        .arg("-d")
        .arg(dex)
        .output()
        .context("cannot run dexdump (scripts/deps/smali.apt installs it)")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.lines().any(|l| l.contains("Failure") || l.contains("rror")) {
        let first = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("exit status not 0");
        bail!("dexdump rejects {}: {first}", dex.display());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    Ok(stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("registers"))
        .count())
}

/// `enjarify` a dex (or APK) into a jar.
pub fn enjarify(dex: &Path, jar: &Path) -> Result<()> {
    let mut cmd = Command::new("enjarify");
    // Debian's enjarify lives in the system Python; a python3 earlier on the PATH may lack it.
    if std::env::var_os("PYTHON").is_none() && Path::new("/usr/bin/python3").is_file() {
        cmd.env("PYTHON", "/usr/bin/python3");
    }
    run(cmd.arg("-f").arg("-o").arg(jar).arg(dex), "enjarify")?;
    Ok(())
}

/// Instruments an APK or an apktool directory into `out_apk`; `work` is a
/// scratch folder. Returns the instrumented directory's report.
pub fn instrument_apk(
    input: &Path,
    out_apk: &Path,
    work: &Path,
    config: &tracekit_jvm::Config,
    model: Option<&Path>,
) -> Result<crate::Instrumented> {
    let decoded: PathBuf = if input.is_dir() {
        input.to_path_buf()
    } else {
        let d = work.join("decoded");
        apktool_decode(input, &d)?;
        d
    };
    let traced = work.join("traced");
    let _ = std::fs::remove_dir_all(&traced);
    let done = crate::instrument_dir(&decoded, &traced, config, model)?;
    apktool_build(&traced, out_apk)?;
    Ok(done)
}

/// Writes `out`: the classes of `jar` (enjarify's output), the probe
/// runtime `tracekit/rt/*.class` compiled by the JVM frontend, and the
/// files of `resources` (tables, program description), so the converted
/// app runs on the JVM and its log decodes from `out` alone.
pub fn jar_with_runtime(jar: &Path, resources: &Path, out: &Path) -> Result<()> {
    use std::io::{Read, Write};
    let tools = tracekit_jvm::tools::java_tools()?;
    let file = std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    let mut input = zip::ZipArchive::new(tracekit_safeio::open_regular(jar)?)
        .with_context(|| format!("{} is not a jar", jar.display()))?;
    for i in 0..input.len() {
        let mut e = input.by_index(i)?;
        if e.is_dir() {
            continue;
        }
        let name = e.name().to_string();
        let mut data = Vec::new();
        e.read_to_end(&mut data)?;
        zip.start_file(name, opts)?;
        zip.write_all(&data)?;
    }
    for (root, prefix) in [(tools.runtime_classes.clone(), ""), (resources.to_path_buf(), "")] {
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d)? {
                let p = e?.path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let rel = p
                    .strip_prefix(&root)
                    .expect("under root")
                    .to_string_lossy()
                    .replace('\\', "/");
                if root == tools.runtime_classes && !rel.starts_with("tracekit/rt/") {
                    continue;
                }
                zip.start_file(format!("{prefix}{rel}"), opts)?;
                zip.write_all(&std::fs::read(&p)?)?;
            }
        }
    }
    zip.finish()?;
    Ok(())
}

/// Runs [`dexdump_check`] on every `classes*.dex` of an APK; returns the
/// methods with code listed.
pub fn dexdump_apk(apk_path: &Path) -> Result<usize> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(tracekit_safeio::open_regular(apk_path)?)
        .with_context(|| format!("{} is not an APK", apk_path.display()))?;
    let dir = std::env::temp_dir().join(format!("tracekit-dexdump-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let names: Vec<String> = zip
        .file_names()
        .filter(|n| n.starts_with("classes") && n.ends_with(".dex"))
        .map(String::from)
        .collect();
    let mut total = 0;
    for n in names {
        let mut data = Vec::new();
        zip.by_name(&n)?.read_to_end(&mut data)?;
        let p = dir.join(&n);
        std::fs::write(&p, data)?;
        let r = dexdump_check(&p).with_context(|| format!("{} in {}", n, apk_path.display()));
        let _ = std::fs::remove_file(&p);
        total += r?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(total)
}
