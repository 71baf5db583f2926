//! JVM frontend of tracekit's path profiling.
//!
//! Reads class files and jars, builds each method's control-flow graph from
//! bytecode (branches, `tableswitch`/`lookupswitch`, returns, `athrow`,
//! exception handlers) with blocks mapped to source lines, instruments a jar so
//! that the unmodified program records its paths under a chosen scheme (raw,
//! BLPP, PAP or AdapTracer), and decodes the trace log it writes at exit.
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
pub mod context;
pub mod decode;
pub mod instrument;
pub mod log;
pub mod program;
pub mod report;
pub mod schemes;
pub mod tables;
pub mod tools;

pub use decode::{decode_log, Decoded, Invocation};
pub use instrument::instrument_jar;
pub use log::{parse_log, TraceLog};
pub use program::{Program, StoredProgram};
pub use schemes::{replay_adaptracer, updated_model, CoreProgram, Decoder, Replay};
pub use tables::{Config, Scheme};
