//! A whole program: every method of every class in a jar, with its CFG.
//!
//! The program description is stored inside the instrumented jar as
//! `META-INF/tracekit/program.json`, so a trace log can be decoded from the
//! jar alone.

use std::io::{Read, Seek};
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::cfg::{build_cfg, MethodCfg, Skip};
use crate::classfile::parse_class;

/// Path of the program description inside an instrumented jar.
pub const PROGRAM_ENTRY: &str = "META-INF/tracekit/program.json";

/// One instrumented method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    /// Internal class name, e.g. `jgf/Series`.
    pub class: String,
    /// Method name.
    pub name: String,
    /// JVM descriptor.
    pub descriptor: String,
    /// Source file of the class, when known.
    pub source: Option<String>,
    /// The method's control-flow graph.
    pub cfg: MethodCfg,
}

impl Method {
    /// `class.name(descriptor)`, the name used in reports and logs.
    pub fn display_name(&self) -> String {
        format!("{}.{}{}", self.class.replace('/', "."), self.name, self.descriptor)
    }
}

/// All instrumentable methods of a jar; a method's id is its index.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Methods in jar-entry order, then declaration order.
    pub methods: Vec<Method>,
    /// Methods left out, with the reason (`class.name desc: why`).
    pub skipped: Vec<String>,
}

impl Program {
    /// Reads every class of a jar and builds the CFG of each method with code.
    pub fn from_jar(path: &Path) -> Result<Program> {
        let file = tracekit_safeio::open_regular(path)?;
        Self::from_zip(file).with_context(|| format!("reading jar {}", path.display()))
    }

    /// Like [`Program::from_jar`], from any seekable zip stream.
    pub fn from_zip<R: Read + Seek>(reader: R) -> Result<Program> {
        let mut zip = zip::ZipArchive::new(reader).context("not a zip/jar archive")?;
        let mut names: Vec<String> = zip
            .file_names()
            .filter(|n| n.ends_with(".class"))
            .map(String::from)
            .collect();
        names.sort();
        let mut program = Program::default();
        for name in names {
            if name.starts_with("META-INF/") || name.ends_with("module-info.class") {
                continue;
            }
            let mut data = Vec::new();
            zip.by_name(&name)?
                .read_to_end(&mut data)
                .with_context(|| format!("entry {name}"))?;
            program.add_class(&data).with_context(|| format!("class file {name}"))?;
        }
        Ok(program)
    }

    /// Adds the methods of one class file.
    pub fn add_class(&mut self, data: &[u8]) -> Result<()> {
        let class = parse_class(data)?;
        if class.name.starts_with("tracekit/rt/") {
            bail!(
                "{} is tracekit's own runtime: this jar is already instrumented",
                class.name
            );
        }
        for m in &class.methods {
            match build_cfg(m).with_context(|| format!("method {}{}", m.name, m.descriptor))? {
                Ok(cfg) => self.methods.push(Method {
                    class: class.name.clone(),
                    name: m.name.clone(),
                    descriptor: m.descriptor.clone(),
                    source: class.source_file.clone(),
                    cfg,
                }),
                Err(Skip::NoCode) => {}
                Err(Skip::Subroutines) => self
                    .skipped
                    .push(format!("{}.{}{}: uses jsr/ret", class.name, m.name, m.descriptor)),
            }
        }
        Ok(())
    }

    /// Reads the program description stored in an instrumented jar.
    pub fn from_instrumented_jar(path: &Path) -> Result<StoredProgram> {
        let file = tracekit_safeio::open_regular(path)?;
        let mut zip = zip::ZipArchive::new(file).with_context(|| format!("{} is not a jar", path.display()))?;
        let mut text = String::new();
        zip.by_name(PROGRAM_ENTRY)
            .with_context(|| {
                format!(
                    "{} has no {PROGRAM_ENTRY}: was it made by `tracekit paths instrument`?",
                    path.display()
                )
            })?
            .read_to_string(&mut text)?;
        let stored: StoredProgram =
            serde_json::from_str(&text).with_context(|| format!("{}: {PROGRAM_ENTRY}", path.display()))?;
        Ok(stored)
    }

    /// The plan the Java instrumenter follows: a line `P scheme verify`,
    /// then per class `C name`, per method `M id name descriptor
    /// instructions leaders…` (the instruction index where each block
    /// starts) followed by the `E from to op args…` lines `edges` gives for
    /// it (tab separated; ops in `tracekit.instr.Probes`).
    pub fn instrumentation_plan(
        &self,
        header: &str,
        mut edges: impl FnMut(usize, &mut String) -> Result<()>,
    ) -> Result<String> {
        let mut out = format!("P\t{header}\n");
        let mut last_class = "";
        for (id, m) in self.methods.iter().enumerate() {
            if m.class != last_class {
                out.push_str(&format!("C\t{}\n", m.class));
                last_class = &m.class;
            }
            out.push_str(&format!("M\t{id}\t{}\t{}\t{}", m.name, m.descriptor, m.cfg.insn_count));
            for b in &m.cfg.blocks {
                out.push_str(&format!("\t{}", b.first_insn));
            }
            out.push('\n');
            edges(id, &mut out)?;
        }
        Ok(out)
    }
}

/// What `META-INF/tracekit/program.json` holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct StoredProgram {
    /// Scheme, width and model the jar was instrumented with.
    pub config: crate::tables::Config,
    /// The AdapTracer edge-probability model the probes start from, in the
    /// core crate's model-file syntax (absent: every counter starts at 1).
    pub model: Option<String>,
    /// Methods and CFGs.
    pub program: Program,
    /// Fingerprint of the runtime tables; every log of the jar carries it.
    #[serde(default)]
    pub fingerprint: u64,
}
