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
use crate::schemes::{replay_adaptracer, CoreProgram, Decoder, Replay};
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
    /// Trace size in bits (W-bit words, breakpoint nodes, method references).
    pub bits: u64,
    /// Size of the packed, self-delimiting form of the same trace.
    pub packed_bits: u64,
    /// Part of `bits` spent on method references.
    pub method_ref_bits: u64,
    /// Invocations recorded.
    pub invocations: usize,
    /// Wall time of the instrumented run, seconds (median of the repeats).
    pub seconds: f64,
    /// Every decoded path equals the nodes recorded beside it in the same run.
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

/// Instruments `cmd`'s jar under `config` into `dir` and runs it; returns the
/// decoded log, its wall time and the instrumented jar.
pub fn run_scheme(cmd: &JavaCommand, config: &Config, model: Option<&Path>, dir: &Path) -> Result<SchemeRun> {
    let name = variant_name(config);
    let jar = dir.join(format!("{name}.jar"));
    let log = dir.join(format!("{name}.log"));
    instrument_jar(&cmd.jar(), &jar, config, model, &cmd.other_entries())?;
    let secs = run_java(&cmd.with_jar(&jar), Some(&log))?;
    let stored = Program::from_instrumented_jar(&jar)?;
    let text = tracekit_safeio::read_text(&log).context("the run wrote no readable path log")?;
    let parsed = parse_log(&text).with_context(|| format!("{}", log.display()))?;
    let core = CoreProgram::new(&stored)?;
    let mut decoder = Decoder::new(&stored, &core);
    let decoded = decode_log(&stored, &parsed, &mut decoder).with_context(|| format!("decoding {}", log.display()))?;
    let replay = if config.is_context() {
        Some(crate::context::replay_context(&stored, &core, &parsed, &decoded)?)
    } else if config.scheme == Scheme::Adaptracer {
        Some(replay_adaptracer(&stored, &core, &parsed, &decoded)?)
    } else {
        None
    };
    Ok(SchemeRun {
        decoded,
        seconds: secs,
        jar,
        replay,
        program: stored.program,
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

/// One instrumented run, decoded.
pub struct SchemeRun {
    /// Decoded invocations and sizes.
    pub decoded: Decoded,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The instrumented jar.
    pub jar: PathBuf,
    /// AdapTracer only: ideal length and bit-exactness check.
    pub replay: Option<Replay>,
    /// The program description.
    pub program: Program,
}

/// The raw branch-choice stream: for every visit of a block with several
/// out-edges, the index of the edge taken, one byte each (saturated at 255).
pub fn choice_stream(program: &Program, decoded: &Decoded) -> Vec<u8> {
    let mut out = Vec::new();
    for inv in &decoded.invocations {
        let cfg = &program.methods[inv.method_id].cfg;
        let mut nodes = vec![0u32];
        nodes.extend(inv.path.iter().map(|b| b + 1));
        if !inv.aborted {
            nodes.push(cfg.exit());
        }
        for w in nodes.windows(2) {
            let s = &cfg.succs[w[0] as usize];
            if s.len() > 1 {
                out.push(s.iter().position(|&x| x == w[1]).unwrap_or(255).min(255) as u8);
            }
        }
    }
    out
}

/// Size in bits of `zstd -19` over `data`, or `None` without a zstd binary.
pub fn zstd_bits(data: &[u8], dir: &Path) -> Option<u64> {
    let f = dir.join("choices.bin");
    std::fs::write(&f, data).ok()?;
    let out = Command::new("zstd")
        .arg("-19")
        .arg("-q")
        .arg("-c")
        .arg(&f)
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
    let mut raw: Option<Decoded> = None;
    let (mut branches, mut ideal_bits, mut words_equal, mut zstd) = (0, 0.0, true, None);
    let variants = Scheme::ALL
        .iter()
        .map(|&s| (s, false, false))
        .chain([(Scheme::Adaptracer, true, false), (Scheme::Adaptracer, true, true)]);
    for (scheme, stream, context) in variants {
        // Sizes and exactness: the probes also record every node, and each
        // decoded path is checked against the same run (nondeterministic
        // programs included). Times: separate runs without that sidecar.
        let verify = scheme != Scheme::Raw;
        let config = Config {
            scheme,
            verify,
            stream,
            context,
            ..base.clone()
        };
        let name = variant_name(&config);
        let run = run_scheme(&cmd, &config, model, &dir).with_context(|| format!("scheme {name}"))?;
        let mut times = Vec::new();
        let timed = if verify {
            let jar = dir.join(format!("{name}-timed.jar"));
            instrument_jar(
                &cmd.jar(),
                &jar,
                &Config {
                    verify: false,
                    ..config.clone()
                },
                model,
                &cmd.other_entries(),
            )?;
            jar
        } else {
            times.push(run.seconds);
            run.jar.clone()
        };
        while times.len() < repeat {
            times.push(run_java(&cmd.with_jar(&timed), Some(&dir.join("again.log")))?);
        }
        let exact = if raw.is_none() {
            let choices = choice_stream(&run.program, &run.decoded);
            branches = choices.len() as u64;
            zstd = zstd_bits(&choices, &dir);
            true
        } else {
            run.decoded.verified == run.decoded.invocations.len()
        };
        let row_ideal = run.replay.map(|rp| rp.ideal_bits);
        if let Some(rp) = run.replay {
            if !stream {
                ideal_bits = rp.ideal_bits;
            }
            words_equal &= rp.words_equal;
        }
        rows.push(SchemeRow {
            scheme: name,
            bits: run.decoded.bits,
            packed_bits: run.decoded.packed_bits,
            method_ref_bits: run.decoded.method_ref_bits,
            invocations: run.decoded.invocations.len(),
            seconds: median(times),
            exact,
            ideal_bits: row_ideal,
        });
        if raw.is_none() {
            raw = Some(run.decoded);
        }
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
        "{:<17} {:>14} {:>10} {:>14} {:>9} {:>8}  {}\n",
        "scheme", "bits", "bits/br", "packed bits", "time s", "x base", "paths = raw"
    );
    for r in &c.rows {
        s += &format!(
            "{:<17} {:>14} {:>10.3} {:>14} {:>9.3} {:>8.2}  {}\n",
            r.scheme,
            r.bits,
            r.bits as f64 / c.branches.max(1) as f64,
            r.packed_bits,
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
