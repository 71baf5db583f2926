//! `tracekit paths compare`: run one Java command under every scheme, check
//! each decoded trace against the blocks recorded in the same run, and
//! tabulate sizes (counted bits and bytes on disk) and run times.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use std::io::Write;

use crate::decode::{decode_file, Decoding, Options, Summary};
use crate::instrument::{instrument_jar, tempdir};
use crate::program::Program;
use crate::schemes::CoreProgram;
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
            Some(j) => classpath
                .iter()
                .position(|c| Path::new(c) == j)
                .with_context(|| format!("{} is not on the class path {value}", j.display()))?,
            None => classpath
                .iter()
                .position(|c| c.ends_with(".jar"))
                .context("no .jar on the class path")?,
        };
        Ok(JavaCommand {
            argv: argv.to_vec(),
            cp_index: i + 1,
            classpath,
            target,
        })
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
        self.classpath
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != self.target)
            .map(|(_, c)| PathBuf::from(c))
            .collect()
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
        bail!(
            "{} exited with {}:\n{}",
            argv.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(secs)
}

/// One row of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct SchemeRow {
    /// Scheme name.
    pub scheme: String,
    /// Trace size in bits (every record's bits and word, as the log stores them).
    pub bits: u64,
    /// Size of the log file in bytes.
    pub log_bytes: u64,
    /// Part of `bits` spent on record heads (method references).
    pub method_ref_bits: u64,
    /// Invocations recorded.
    pub invocations: u64,
    /// Wall time of the instrumented run, seconds (median of the repeats).
    pub seconds: f64,
    /// Every decoded path equals the blocks recorded beside it in the same run.
    pub exact: bool,
    /// AdapTracer variants: ideal code length `Σ −log2 p` of the same run under its own model.
    pub ideal_bits: Option<f64>,
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
    /// Ideal code length of the AdapTracer run under its own adaptive model.
    pub ideal_bits: f64,
    /// The in-JVM AdapTracer words equal the core encoder's on this run.
    pub adaptracer_words_equal: bool,
    /// `zstd -19` over the raw branch-choice stream (one byte per choice), bits.
    pub zstd_bits: Option<u64>,
    /// One row per scheme, raw first, then AdapTracer's stream mode and the context stream.
    pub rows: Vec<SchemeRow>,
}

/// One instrumented run, decoded as a stream.
pub struct SchemeRun {
    /// Sizes, counts and (AdapTracer) the core encoder's replay.
    pub summary: Summary,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The instrumented jar.
    pub jar: PathBuf,
    /// The log.
    pub log: PathBuf,
    /// Branch choices of the run.
    pub branches: u64,
}

/// Instruments `cmd`'s jar under `config` into `dir`, runs it and decodes
/// its log; `each` sees every invocation (with the program).
pub fn run_scheme(
    cmd: &JavaCommand,
    config: &Config,
    model: Option<&Path>,
    dir: &Path,
    mut each: impl FnMut(&Program, &Decoding) -> Result<()>,
) -> Result<SchemeRun> {
    let name = variant_name(config);
    let jar = dir.join(format!("{name}.jar"));
    let log = dir.join(format!("{name}.log"));
    instrument_jar(&cmd.jar(), &jar, config, model, &cmd.other_entries())?;
    let secs = run_java(&cmd.with_jar(&jar), Some(&log))?;
    let stored = Program::from_instrumented_jar(&jar)?;
    let core = CoreProgram::new(&stored)?;
    let mut branches = 0u64;
    let summary = decode_file(&stored, &core, &log, Options { replay: true }, |d| {
        let cfg = &stored.program.methods[d.method].cfg;
        branches += d.blocks().filter(|&b| cfg.succs[b as usize + 1].len() > 1).count() as u64;
        each(&stored.program, d)
    })
    .with_context(|| format!("decoding {}", log.display()))?;
    Ok(SchemeRun {
        summary,
        seconds: secs,
        jar,
        log,
        branches,
    })
}

/// The row name of a configuration: the scheme, `-stream` for AdapTracer's
/// stream mode, `-context` for the context stream.
pub fn variant_name(config: &Config) -> String {
    let suffix = if config.is_context() {
        "-context"
    } else if config.stream && config.scheme == Scheme::Adaptracer {
        "-stream"
    } else {
        ""
    };
    format!("{}{suffix}", config.scheme.name())
}

/// Appends an invocation's branch choices to the raw choice stream: for
/// every visit of a block with several out-edges, the index of the edge
/// taken, one byte each (saturated at 255).
pub fn push_choices(program: &Program, d: &Decoding, out: &mut impl Write) -> Result<()> {
    let cfg = &program.methods[d.method].cfg;
    let reached = d.reached();
    let mut prev = d.nodes[0];
    for &v in reached {
        let s = &cfg.succs[prev as usize];
        if s.len() > 1 {
            out.write_all(&[s.iter().position(|&x| x == v).unwrap_or(255).min(255) as u8])?;
        }
        prev = v;
    }
    Ok(())
}

/// Size in bits of `zstd -19` over the file `f`, or `None` without a zstd binary.
pub fn zstd_bits(f: &Path) -> Option<u64> {
    let out = Command::new("zstd")
        .arg("-19")
        .arg("-q")
        .arg("-c")
        .arg(f)
        .output()
        .ok()?;
    out.status.success().then(|| out.stdout.len() as u64 * 8)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs the command uninstrumented and under every scheme, `repeat` times
/// each (times are medians; sizes come from the first run).
pub fn compare(
    argv: &[String],
    jar: Option<&Path>,
    base: &Config,
    model: Option<&Path>,
    repeat: usize,
) -> Result<Comparison> {
    let cmd = JavaCommand::parse(argv, jar)?;
    let dir = tempdir()?;
    let repeat = repeat.max(1);
    let baseline_seconds = median((0..repeat).map(|_| run_java(argv, None)).collect::<Result<Vec<_>>>()?);
    let mut rows = Vec::new();
    let (mut branches, mut ideal_bits, mut words_equal, mut zstd) = (0, 0.0, true, None);
    let variants = Scheme::ALL
        .iter()
        .map(|&s| (s, false, false))
        .chain([(Scheme::Adaptracer, true, false), (Scheme::Adaptracer, true, true)]);
    for (scheme, stream, context) in variants {
        // Sizes and exactness: separate probes also record every block in a
        // sidecar, and each decoded path is checked against the same run
        // (nondeterministic programs included). Times: separate runs
        // without that sidecar.
        let config = Config {
            scheme,
            verify: true,
            stream,
            context,
            ..base.clone()
        };
        let name = variant_name(&config);
        let choices_file = dir.join("choices.bin");
        let mut choices = (scheme == Scheme::Raw)
            .then(|| std::fs::File::create(&choices_file).map(std::io::BufWriter::new))
            .transpose()?;
        let run = run_scheme(&cmd, &config, model, &dir, |p, d| match &mut choices {
            Some(w) => push_choices(p, d, w),
            None => Ok(()),
        })
        .with_context(|| format!("scheme {name}"))?;
        if let Some(mut w) = choices.take() {
            w.flush()?;
            drop(w);
            branches = run.branches;
            zstd = zstd_bits(&choices_file);
            let _ = std::fs::remove_file(&choices_file);
        }
        let timed = dir.join(format!("{name}-timed.jar"));
        instrument_jar(
            &cmd.jar(),
            &timed,
            &Config {
                verify: false,
                ..config.clone()
            },
            model,
            &cmd.other_entries(),
        )?;
        let mut times = Vec::new();
        let mut log_bytes = 0;
        while times.len() < repeat {
            let log = dir.join("timed.log");
            times.push(run_java(&cmd.with_jar(&timed), Some(&log))?);
            log_bytes = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
        }
        let s = &run.summary;
        let exact = s.complete && s.verified == s.invocations;
        let row_ideal = s.replay.map(|rp| rp.ideal_bits);
        if let Some(rp) = s.replay {
            if !stream {
                ideal_bits = rp.ideal_bits;
            }
            words_equal &= rp.words_equal;
        }
        rows.push(SchemeRow {
            scheme: name,
            bits: s.bits,
            log_bytes,
            method_ref_bits: s.method_ref_bits,
            invocations: s.invocations,
            seconds: median(times),
            exact,
            ideal_bits: row_ideal,
        });
        let _ = std::fs::remove_file(&run.log);
        let _ = std::fs::remove_file(crate::decode::sidecar_path(&run.log));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Comparison {
        width: base.width,
        baseline_seconds,
        branches,
        ideal_bits,
        adaptracer_words_equal: words_equal,
        zstd_bits: zstd,
        rows,
    })
}

/// Renders a comparison as a table.
pub fn render_comparison(c: &Comparison) -> String {
    let mut s = format!(
        "W = {} bits, uninstrumented run {:.3} s, {} branch choices, {} invocations\n",
        c.width,
        c.baseline_seconds,
        c.branches,
        c.rows.first().map(|r| r.invocations).unwrap_or(0)
    );
    s += &format!(
        "reference: ideal AdapTracer code {:.0} bits ({:.3} bits/branch); zstd -19 over the choice stream {}\n",
        c.ideal_bits,
        c.ideal_bits / c.branches.max(1) as f64,
        c.zstd_bits
            .map(|z| format!("{z} bits"))
            .unwrap_or_else(|| "n/a (no zstd)".into())
    );
    s += &format!(
        "{:<19} {:>14} {:>10} {:>13} {:>8} {:>9} {:>8}  {}\n",
        "scheme", "bits", "bits/br", "log bytes", "bytes/b", "time s", "x base", "paths = raw"
    );
    for r in &c.rows {
        s += &format!(
            "{:<19} {:>14} {:>10.3} {:>13} {:>8.3} {:>9.3} {:>8.2}  {}\n",
            r.scheme,
            r.bits,
            r.bits as f64 / c.branches.max(1) as f64,
            r.log_bytes,
            r.log_bytes as f64 * 8.0 / r.bits.max(1) as f64,
            r.seconds,
            r.seconds / c.baseline_seconds.max(1e-9),
            if r.exact { "yes" } else { "NO" }
        );
    }
    if !c.adaptracer_words_equal {
        s += "WARNING: the in-JVM AdapTracer words differ from the core encoder's\n";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_replaces_the_jar() {
        let argv: Vec<String> = ["java", "-Xss4m", "-cp", "lib/a.jar:app.jar", "Main", "x"]
            .map(String::from)
            .to_vec();
        let c = JavaCommand::parse(&argv, Some(Path::new("app.jar"))).unwrap();
        assert_eq!(c.with_jar(Path::new("/t/o.jar"))[3], "lib/a.jar:/t/o.jar");
        assert_eq!(c.other_entries(), vec![PathBuf::from("lib/a.jar")]);
        let c = JavaCommand::parse(&argv, None).unwrap();
        assert_eq!(c.jar(), PathBuf::from("lib/a.jar"));
        assert!(JavaCommand::parse(&argv[..2], None).is_err());
    }
}
