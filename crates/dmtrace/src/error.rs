//! The error type of this crate.

use std::io;

/// Why a trace could not be read or written.
///
/// Format errors carry the byte offset in the input (and, inside the text key
/// section, the 1-based line); the caller adds the file name.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The text key section (`*version` … `*end`) is malformed.
    #[error("line {line} (byte {offset}): {message}")]
    Text {
        /// Byte offset of the start of the offending line.
        offset: u64,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The binary part (header, records, streaming packets) is malformed.
    #[error("byte {offset}: {message}")]
    Binary {
        /// Byte offset of the offending field.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A session cannot be expressed in the trace format (writer side).
    #[error("cannot write trace: {0}")]
    Unwritable(String),
    /// Reading or writing the underlying file failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
}

impl Error {
    /// The byte offset the error refers to, when it refers to one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Text { offset, .. } | Error::Binary { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    pub(crate) fn text(offset: u64, line: usize, message: impl Into<String>) -> Error {
        Error::Text {
            offset,
            line,
            message: message.into(),
        }
    }

    pub(crate) fn binary(offset: u64, message: impl Into<String>) -> Error {
        Error::Binary {
            offset,
            message: message.into(),
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
