//! Errors of the emulator-profiling crate.

use std::path::PathBuf;

/// Anything that can go wrong reading captures and profiles or running QEMU.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error (shown in the message, so not chained as a source).
        error: std::io::Error,
    },
    /// A text file (block log, profile) is malformed.
    #[error("{path}: line {line}: {msg}")]
    Parse {
        /// The file (or a name such as `<builtin armv7-cortex-a8>`).
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// A request that cannot be honoured (unknown category, bad arch, …).
    #[error("{0}")]
    Invalid(String),
}

impl From<tracekit_safeio::ReadError> for EmuError {
    /// A file that is not a regular file, or not UTF-8 text (the message
    /// names the byte offset).
    fn from(e: tracekit_safeio::ReadError) -> EmuError {
        EmuError::Io {
            error: std::io::Error::new(e.kind, e.message),
            path: e.path,
        }
    }
}

/// Result alias for this crate.
pub type Result<T, E = EmuError> = std::result::Result<T, E>;
