//! Smali frontend of tracekit's path profiling (seed 003's ATInstrumentor
//! route): reads the smali that apktool or baksmali write, builds each
//! method's CFG in the JVM frontend's numbering (so the core `Cfg`, the
//! schemes' tables, the probe runtime `tracekit.rt.Rt` and the binary log
//! are the JVM frontend's own), and writes the smali back with probes for
//! raw, BLPP, PAP and AdapTracer (either mode). A log written by the
//! instrumented code decodes with `tracekit paths decode-log` unchanged.
//!
//! Methods the instrumenter cannot handle safely (odex instructions, a
//! branch into a `move-result`, more than 256 registers with the probes,
//! very long methods) are left as they were and listed with the reason.
//!
//! ```no_run
//! use std::path::Path;
//! use tracekit_jvm::{Config, Scheme};
//! let config = Config { scheme: Scheme::Blpp, ..Config::default() };
//! let done = tracekit_smali::instrument_dir(Path::new("app-smali"), Path::new("traced-smali"), &config, None).unwrap();
//! println!("{} methods instrumented, {} left out", done.methods, done.skipped.len());
//! ```

pub mod apk;
pub mod ast;
pub mod cfg;
pub mod instrument;
pub mod opcodes;
pub mod parse;
pub mod probes;
pub mod rewrite;

pub use instrument::{instrument_dir, Instrumented};
pub use parse::{parse, read_file, ParseError, SmaliFile};
