//! The error type of this crate.

use std::io;

/// Why a Chrome JSON trace could not be read or written.
///
/// Every reading error names the file; format errors also give the 1-based
/// line and column and the byte offset of the problem.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes are not a Chrome JSON trace, or an event is malformed.
    #[error("{file}:{line}:{column}: {message} (byte {offset})")]
    Format {
        /// The input's name.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column, in bytes.
        column: u64,
        /// Byte offset from the start of the input.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The path is not something a trace can be read from (a FIFO, a
    /// device such as `/dev/zero`, a directory).
    #[error("{file}: {message}")]
    Unreadable {
        /// The input's name.
        file: String,
        /// Why it was refused.
        message: String,
    },
    /// Reading the input failed.
    #[error("{file}: {source}")]
    Io {
        /// The input's name.
        file: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Writing the output failed.
    #[error("cannot write Chrome JSON: {0}")]
    Write(#[from] io::Error),
}

impl Error {
    /// The byte offset a format error refers to.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Format { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// The 1-based line and column a format error refers to.
    pub fn line_column(&self) -> Option<(u64, u64)> {
        match self {
            Error::Format { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}
