//! A directory of smali (baksmali's output, or an apktool directory with
//! `smali*/` folders) in, the same directory with probes out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use tracekit_jvm::program::{Method as ProgramMethod, Program, StoredProgram, PROGRAM_ENTRY};
use tracekit_jvm::schemes::SchemeTables;
use tracekit_jvm::tables::{write_tables, Config};

use crate::cfg::analyze;
use crate::parse::read_file;
use crate::probes::EdgeOp;
use crate::rewrite::{code_units, register_layout, write_method, MethodPlan};

/// Where the runtime tables go, relative to the resources folder.
pub const TABLES_ENTRY: &str = "tracekit/tables.txt";

/// Methods longer than this stay uninstrumented: trampolines at the end of
/// the method must stay within an `if-*`'s 16-bit branch offset.
pub const MAX_INSNS: usize = 4000;

/// Largest instrumented method, in estimated code units: an `if-*` (16-bit
/// offset) must reach the trampolines at the method's end.
pub const MAX_CODE_UNITS: usize = 32000;

/// What instrumenting a directory did.
#[derive(Debug)]
pub struct Instrumented {
    /// Smali files read.
    pub files: usize,
    /// Methods with probes (methods too long once probed keep their id in
    /// the program but no probes, and are listed in `skipped`).
    pub methods: usize,
    /// Methods left out and why (`class.name descriptor: reason`).
    pub skipped: Vec<String>,
    /// The folder holding `tracekit/tables.txt` and the program description.
    pub resources: PathBuf,
    /// The stored program (what decoding needs).
    pub stored: StoredProgram,
}

/// Every `*.smali` file under `dir`, sorted.
pub fn smali_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).with_context(|| format!("cannot read directory {}", d.display()))? {
            let e = e?;
            let t = e.file_type()?;
            let p = e.path();
            if t.is_dir() {
                stack.push(p);
            } else if t.is_file() && p.extension().is_some_and(|x| x == "smali") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

struct Planned {
    file: usize,
    method: usize,
}

/// Instruments every smali file under `input` into `output` (a mirror of
/// `input`; other files are copied). `model` is an AdapTracer edge model.
pub fn instrument_dir(input: &Path, output: &Path, config: &Config, model: Option<&Path>) -> Result<Instrumented> {
    if !input.is_dir() {
        bail!("{}: not a directory of smali files", input.display());
    }
    if output.exists() && tracekit_safeio::same_file(input, output) {
        bail!("{}: would overwrite the input; choose another output", output.display());
    }
    let paths = smali_files(input)?;
    if paths.is_empty() {
        bail!("{}: no .smali files", input.display());
    }
    // Two passes over the files, one file in memory at a time: the first
    // builds the program (CFGs only), the second parses again and writes.
    let mut program = Program::default();
    let mut planned: Vec<Planned> = Vec::new();
    for (fi, p) in paths.iter().enumerate() {
        let f = read_file(p)?;
        let class = f.internal_name();
        if class.starts_with("tracekit/rt/") {
            bail!(
                "{}: {class} is tracekit's own runtime: this code is already instrumented",
                f.path.display()
            );
        }
        for (mi, m) in f.methods.iter().enumerate() {
            let reason = match analyze(m, &f.lines) {
                Err(r) if r == "no code" => continue,
                Err(r) => Some(r),
                Ok(a) => {
                    let check = register_layout(m).and_then(|_| {
                        if a.insns.len() > MAX_INSNS {
                            return Err(format!("{} instructions (more than {MAX_INSNS})", a.insns.len()));
                        }
                        let empty = HashMap::new();
                        let plan = MethodPlan {
                            id: 0,
                            work: &empty,
                            verify: false,
                        };
                        write_method(m, &f.lines, &a, &plan, &mut Vec::new())
                    });
                    match check {
                        Ok(()) => {
                            program.methods.push(ProgramMethod {
                                class: class.clone(),
                                name: m.name.clone(),
                                descriptor: m.descriptor.clone(),
                                source: f.source.clone(),
                                cfg: a.cfg.clone(),
                            });
                            planned.push(Planned { file: fi, method: mi });
                            None
                        }
                        Err(r) => Some(r),
                    }
                }
            };
            if let Some(r) = reason {
                program.skipped.push(format!("{class}.{}{}: {r}", m.name, m.descriptor));
            }
        }
    }
    let schemes = SchemeTables::new(&program, config, model)?;
    let mut failure = None;
    let (tables, fingerprint) = write_tables(&program, config, |id, cfg, out| {
        if let Err(e) = schemes.rows(id, cfg, out) {
            failure.get_or_insert(e.context(format!("method {}", program.methods[id].display_name())));
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    // Per file, the instrumented methods by their index in the file.
    let mut by_file: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (id, p) in planned.iter().enumerate() {
        by_file.entry(p.file).or_default().push((p.method, id));
    }
    let mut late_skips = Vec::new();
    std::fs::create_dir_all(output).with_context(|| format!("cannot create {}", output.display()))?;
    copy_other_files(input, output)?;
    for (fi, path) in paths.iter().enumerate() {
        let rel = path.strip_prefix(input).expect("found under input");
        let dest = output.join(rel);
        if let Some(d) = dest.parent() {
            std::fs::create_dir_all(d)?;
        }
        let Some(list) = by_file.get(&fi) else {
            std::fs::copy(path, &dest).with_context(|| format!("cannot write {}", dest.display()))?;
            continue;
        };
        let f = read_file(path)?;
        let mut out: Vec<String> = Vec::with_capacity(f.lines.len() * 2);
        let mut next_line = 0;
        for &(mi, id) in list {
            let m = &f.methods[mi];
            out.extend(f.lines[next_line..m.start].iter().cloned());
            let mut text = String::new();
            schemes
                .edge_work(id, &program.methods[id].cfg, &mut text)
                .with_context(|| format!("method {}", program.methods[id].display_name()))?;
            let work = parse_work(&text)?;
            let plan = MethodPlan {
                id: id as u32,
                work: &work,
                verify: config.verify,
            };
            let a = analyze(m, &f.lines).map_err(|e| anyhow!("{}: {e} on the second reading", f.path.display()))?;
            let mut body = Vec::new();
            write_method(m, &f.lines, &a, &plan, &mut body)
                .map_err(|e| anyhow!("{}: method {}{}: {e}", f.path.display(), m.name, m.descriptor))?;
            let units = code_units(&body);
            if units > MAX_CODE_UNITS {
                // Left as it was: it keeps its id (never logged), and the reason is listed.
                out.extend(f.lines[m.start..=m.end].iter().cloned());
                late_skips.push(format!(
                    "{}: about {units} code units with probes: trampolines would lie beyond an if-*'s 16-bit reach",
                    program.methods[id].display_name()
                ));
            } else {
                out.extend(body);
            }
            next_line = m.end + 1;
        }
        out.extend(f.lines[next_line..].iter().cloned());
        let mut body = out.join("\n");
        body.push('\n');
        std::fs::write(&dest, body).with_context(|| format!("cannot write {}", dest.display()))?;
    }
    let late = late_skips.len();
    program.skipped.extend(late_skips);
    let stored = StoredProgram {
        config: config.clone(),
        model: schemes.model_text(),
        program,
        fingerprint,
    };
    let resources = resources_dir(output);
    std::fs::create_dir_all(resources.join("tracekit"))?;
    std::fs::create_dir_all(resources.join("META-INF/tracekit"))?;
    std::fs::write(resources.join(TABLES_ENTRY), tables)?;
    std::fs::write(resources.join(PROGRAM_ENTRY), serde_json::to_vec(&stored)?)?;
    register_unknown_files(output)?;
    Ok(Instrumented {
        files: paths.len(),
        methods: stored.program.methods.len() - late,
        skipped: stored.program.skipped.clone(),
        resources,
        stored,
    })
}

/// `E from to op args…` lines → edge work.
fn parse_work(text: &str) -> Result<HashMap<(u32, u32), EdgeOp>> {
    let mut work = HashMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (Some(u), Some(w)) = (
            f.get(1).and_then(|s| s.parse().ok()),
            f.get(2).and_then(|s| s.parse().ok()),
        ) else {
            bail!("bad plan line {line:?}");
        };
        let op = EdgeOp::parse(&f[3..]).ok_or_else(|| anyhow!("bad plan line {line:?}"))?;
        work.insert((u, w), op);
    }
    Ok(work)
}

/// Java resources of the app: apktool's `unknown/` folder (packed into the
/// APK's root), else `tracekit-resources/` beside the smali.
pub fn resources_dir(output: &Path) -> PathBuf {
    if output.join("apktool.yml").is_file() {
        output.join("unknown")
    } else {
        output.join("tracekit-resources")
    }
}

/// apktool packs the files of `unknown/` only when `apktool.yml` lists them.
fn register_unknown_files(output: &Path) -> Result<()> {
    let yml = output.join("apktool.yml");
    if !yml.is_file() {
        return Ok(());
    }
    let text = tracekit_safeio::read_text(&yml)?;
    let entries = [TABLES_ENTRY, PROGRAM_ENTRY];
    let mut out = String::new();
    let mut added = false;
    for line in text.lines() {
        if line.starts_with("unknownFiles:") {
            out.push_str("unknownFiles:\n");
            for e in entries {
                out.push_str(&format!("  {e}: '8'\n"));
            }
            added = true;
            if line.trim_end().ends_with("{}") {
                continue;
            }
            continue;
        }
        if entries.iter().any(|e| line.trim_start().starts_with(&format!("{e}:"))) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !added {
        out.push_str("unknownFiles:\n");
        for e in entries {
            out.push_str(&format!("  {e}: '8'\n"));
        }
    }
    std::fs::write(&yml, out)?;
    Ok(())
}

fn copy_other_files(input: &Path, output: &Path) -> Result<()> {
    let mut stack = vec![input.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let p = e.path();
            let rel = p.strip_prefix(input).expect("under input");
            let t = e.file_type()?;
            if t.is_dir() {
                std::fs::create_dir_all(output.join(rel))?;
                stack.push(p);
            } else if t.is_file() && p.extension().is_none_or(|x| x != "smali") {
                std::fs::copy(&p, output.join(rel)).with_context(|| format!("cannot copy {}", p.display()))?;
            }
        }
    }
    Ok(())
}
