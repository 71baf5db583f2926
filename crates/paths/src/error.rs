//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while building a CFG, encoding or decoding.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// A CFG description is inconsistent (unknown entry, exit with
    /// out-edges, unknown callee, …).
    #[error("method {method}: {message}")]
    InvalidCfg {
        /// The method whose CFG is wrong.
        method: String,
        /// What is wrong.
        message: String,
    },
    /// A method name that the program does not contain.
    #[error("unknown method {0:?}")]
    UnknownMethod(String),
    /// A block name that the method does not contain.
    #[error("method {method}: unknown block {block:?}")]
    UnknownBlock {
        /// The method searched.
        method: String,
        /// The missing block name.
        block: String,
    },
    /// A path that is not an entry-to-exit walk of the CFG.
    #[error("method {method}: invalid path at step {step}: {message}")]
    InvalidPath {
        /// The method the path belongs to.
        method: String,
        /// Zero-based index of the offending element of the path.
        step: usize,
        /// What is wrong at that step.
        message: String,
    },
    /// A trace that does not decode to a path of the CFG.
    #[error("method {method}: invalid trace: {message}")]
    InvalidTrace {
        /// The method being decoded.
        method: String,
        /// What is wrong.
        message: String,
    },
    /// The scheme cannot represent this CFG at this word width.
    #[error("method {method}: {message}")]
    Unsupported {
        /// The method concerned.
        method: String,
        /// Why it cannot be encoded.
        message: String,
    },
    /// A parameter is out of range (width, inc, bound).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error (shown in the message, so not chained as a
        /// source: it would be printed twice).
        error: std::io::Error,
    },
    /// A file could not be parsed; `message` carries line/column.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong and where (line, column).
        message: String,
    },
}

/// Short for `Result<T, PathError>`.
pub type Result<T> = std::result::Result<T, PathError>;

/// Checks that a word width is supported (3 to 64 bits).
pub fn check_width(width: u32) -> Result<()> {
    if (3..=64).contains(&width) {
        Ok(())
    } else {
        Err(PathError::InvalidParameter(format!(
            "word width {width} is outside 3..=64"
        )))
    }
}

/// The largest value a `width`-bit word holds.
pub fn word_max(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl From<tracekit_safeio::ReadError> for PathError {
    /// A file that could not be read (not a regular file, not UTF-8 text:
    /// the message says where).
    fn from(e: tracekit_safeio::ReadError) -> PathError {
        PathError::Io {
            error: std::io::Error::new(e.kind, e.message),
            path: e.path,
        }
    }
}
