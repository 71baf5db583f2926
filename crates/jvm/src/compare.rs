//! `tracekit paths compare`: run one Java command under every scheme, check
//! each decoded trace against the raw ground truth, and tabulate sizes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::decode::{decode_log, Decoded};
use crate::instrument::{instrument_jar, tempdir};
use crate::log::parse_log;
use crate::program::Program;
use crate::schemes::{CoreProgram, Decoder};
use crate::tables::{Config, Scheme};

/// The jar to instrument in a Java command line and where it sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaCommand {
    /// The whole command.
    pub argv: Vec<String>,
    /// Index of the class-path (or `-jar`) argument.
    pub cp_index: usize,
    /// The class-path entries.
    pub classpath: Vec<String>,
    /// Index in `classpath` of the jar that gets instrumented.
    pub target: usize,
}

impl JavaCommand {
    /// Finds `-cp`/`-classpath`/`--class-path`/`-jar` in `argv`; the first
    /// jar on it is instrumented unless `jar` names another entry.
    pub fn parse(argv: &[String], jar: Option<&Path>) -> Result<JavaCommand> {
        let i = argv
            .iter()
            .position(|a| matches!(a.as_str(), "-cp" | "-classpath" | "--class-path" | "-jar"))
            .context("the java command has no -cp/-classpath/-jar argument naming the jar to instrument")?;
        let value = argv.get(i + 1).context("-cp/-jar without a value")?;
        let classpath: Vec<String> = value.split(':').map(String::from).collect();
        let target = match jar {
            Some(j) => classpath.iter().position(|c| Path::new(c) == j).with_context(|| format!("{} is not on the class path {value}", j.display()))?,
            None => classpath.iter().position(|c| c.ends_with(".jar")).context("no .jar on the class path")?,
        };
        Ok(JavaCommand { argv: argv.to_vec(), cp_index: i + 1, classpath, target })
    }

    /// The command with the target jar replaced by `jar`.
    pub fn with_jar(&self, jar: &Path) -> Vec<String> {
        let mut cp = self.classpath.clone();
        cp[self.target] = jar.display().to_string();
        let mut argv = self.argv.clone();
        argv[self.cp_index] = cp.join(":");
        argv
    }

    /// The jar being instrumented.
    pub fn jar(&self) -> PathBuf {
        PathBuf::from(&self.classpath[self.target])
    }

    /// The other class-path entries (needed for stack-map frames).
    pub fn other_entries(&self) -> Vec<PathBuf> {
        self.classpath.iter().enumerate().filter(|(i, _)| *i != self.target).map(|(_, c)| PathBuf::from(c)).collect()
    }
}

/// Runs `argv` with the path log going to `log`; returns wall seconds.
pub fn run_java(argv: &[String], log: Option<&Path>) -> Result<f64> {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).stdout(Stdio::null()).stderr(Stdio::piped());
    if let Some(l) = log {
        cmd.env("TRACEKIT_PATHS_LOG", l);
    }
    let t = Instant::now();
    let out = cmd.output().with_context(|| format!("cannot run {}", argv[0]))?;
    let secs = t.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!("{} exited with {}:\n{}", argv.join(" "), out.status, String::from_utf8_lossy(&out.stderr));
    }
    Ok(secs)
}

/// One row of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct SchemeRow {
    /// Scheme name.
    pub scheme: String,
    /// Trace size in bits.
    pub bits: u64,
    /// Invocations recorded.
    pub invocations: usize,
    /// Wall time of the instrumented run, seconds.
    pub seconds: f64,
    /// Decoded paths equal the raw ground truth.
    pub exact: bool,
}

/// Result of a comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Word width.
    pub width: u32,
    /// Wall time of the uninstrumented run, seconds.
    pub baseline_seconds: f64,
    /// Branch choices in the raw run.
    pub branches: u64,
    /// One row per scheme, raw first.
    pub rows: Vec<SchemeRow>,
}

/// Instruments `cmd`'s jar under `config` into `dir` and runs it; returns the
/// decoded log, its wall time and the instrumented jar.
pub fn run_scheme(cmd: &JavaCommand, config: &Config, model: Option<&Path>, dir: &Path) -> Result<(Decoded, f64, PathBuf)> {
    let name = config.scheme.name();
    let jar = dir.join(format!("{name}.jar"));
    let log = dir.join(format!("{name}.log"));
    instrument_jar(&cmd.jar(), &jar, config, model, &cmd.other_entries())?;
    let secs = run_java(&cmd.with_jar(&jar), Some(&log))?;
    let stored = Program::from_instrumented_jar(&jar)?;
    let text = std::fs::read_to_string(&log).with_context(|| format!("the run wrote no path log {}", log.display()))?;
    let parsed = parse_log(&text).with_context(|| format!("{}", log.display()))?;
    let core = CoreProgram::new(&stored)?;
    let mut decoder = Decoder::new(&stored, &core);
    let decoded = decode_log(&stored, &parsed, &mut decoder).with_context(|| format!("decoding {}", log.display()))?;
    Ok((decoded, secs, jar))
}

/// Paths of two decodings are the same invocation by invocation.
pub fn same_paths(a: &Decoded, b: &Decoded) -> bool {
    a.invocations.len() == b.invocations.len()
        && a.invocations.iter().zip(&b.invocations).all(|(x, y)| x.method_id == y.method_id && x.path == y.path && x.thread == y.thread)
}

/// Runs the command uninstrumented and under every scheme.
pub fn compare(argv: &[String], jar: Option<&Path>, base: &Config, model: Option<&Path>) -> Result<Comparison> {
    let cmd = JavaCommand::parse(argv, jar)?;
    let dir = tempdir()?;
    let baseline_seconds = run_java(argv, None)?;
    let mut rows = Vec::new();
    let mut raw: Option<Decoded> = None;
    let mut branches = 0;
    for scheme in Scheme::ALL {
        let config = Config { scheme, ..base.clone() };
        let (decoded, secs, jar) = run_scheme(&cmd, &config, model, &dir).with_context(|| format!("scheme {}", scheme.name()))?;
        let exact = match &raw {
            None => {
                let stored = Program::from_instrumented_jar(&jar)?;
                branches = decoded.invocations.iter().map(|i| crate::report::branch_count(&stored.program, i.method_id, &i.path)).sum();
                true
            }
            Some(r) => same_paths(r, &decoded),
        };
        rows.push(SchemeRow { scheme: scheme.name().into(), bits: decoded.bits, invocations: decoded.invocations.len(), seconds: secs, exact });
        if raw.is_none() {
            raw = Some(decoded);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Comparison { width: base.width, baseline_seconds, branches, rows })
}

/// Renders a comparison as a table.
pub fn render_comparison(c: &Comparison) -> String {
    let mut s = format!(
        "W = {} bits, uninstrumented run {:.3} s, {} branch choices\n{:<11} {:>14} {:>12} {:>10} {:>9} {:>8}  {}\n",
        c.width, c.baseline_seconds, c.branches, "scheme", "bits", "bytes", "bits/br", "time s", "x base", "paths = raw"
    );
    for r in &c.rows {
        s += &format!(
            "{:<11} {:>14} {:>12} {:>10.3} {:>9.3} {:>8.2}  {}\n",
            r.scheme,
            r.bits,
            r.bits.div_ceil(8),
            r.bits as f64 / c.branches.max(1) as f64,
            r.seconds,
            r.seconds / c.baseline_seconds.max(1e-9),
            if r.exact { "yes" } else { "NO" }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_replaces_the_jar() {
        let argv: Vec<String> = ["java", "-Xss4m", "-cp", "lib/a.jar:app.jar", "Main", "x"].map(String::from).to_vec();
        let c = JavaCommand::parse(&argv, Some(Path::new("app.jar"))).unwrap();
        assert_eq!(c.with_jar(Path::new("/t/o.jar"))[3], "lib/a.jar:/t/o.jar");
        assert_eq!(c.other_entries(), vec![PathBuf::from("lib/a.jar")]);
        let c = JavaCommand::parse(&argv, None).unwrap();
        assert_eq!(c.jar(), PathBuf::from("lib/a.jar"));
        assert!(JavaCommand::parse(&argv[..2], None).is_err());
    }
}
