//! JVM frontend of tracekit's path profiling.
//!
//! Reads class files and jars, builds each method's control-flow graph from
//! bytecode (branches, `tableswitch`/`lookupswitch`, returns, `athrow`,
//! exception handlers) with blocks mapped to source lines, instruments a jar so
//! that the unmodified program records its paths under a chosen scheme (raw,
//! BLPP, PAP or AdapTracer), and decodes, as a stream, the binary trace log
//! it writes while it runs (format: [`log`]).
//!
//! The probes keep an invocation's path state in the method's own locals
//! and call the runtime only when it ends and when a local word is full; a
//! coder thread in the runtime codes the records under the scheme. What
//! each mode costs (run time, bits) is measured in BENCHMARKS.md; the
//! default of `tracekit paths instrument` is the context stream, the
//! smallest trace.
//!
//! ```no_run
//! use std::path::Path;
//! use tracekit_jvm::{instrument_jar, Config, Scheme};
//! let config = Config { scheme: Scheme::Raw, ..Config::default() };
//! instrument_jar(Path::new("app.jar"), Path::new("app-traced.jar"), &config, None, &[]).unwrap();
//! // java -cp app-traced.jar Main   → tracekit-paths.log
//! ```

pub mod adapt;
pub mod bytecode;
pub mod cfg;
pub mod classfile;
pub mod compare;
pub mod decode;
pub mod instrument;
pub mod log;
pub mod program;
pub mod report;
pub mod schemes;
pub mod tables;
pub mod tools;

pub use decode::{decode_file, decode_log, Decoding, Invocation, Options, Summary};
pub use instrument::instrument_jar;
pub use log::{LogReader, Mode};
pub use program::{Program, StoredProgram};
pub use schemes::{CoreProgram, ModelUpdate, Replay};
pub use tables::{Config, Scheme};
