//! Errors with the byte offset (and line, in text parts) where reading failed.

/// Why a `.clog` file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// The text key part is malformed.
    #[error("line {line} (byte {offset}): {message}")]
    Key {
        /// 1-based line number.
        line: usize,
        /// Byte offset of the line's start.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The data part is malformed.
    #[error("byte {offset}: {message}")]
    Data {
        /// Byte offset of the offending field.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The text data part is malformed.
    #[error("line {line} (byte {offset}): {message}")]
    TextData {
        /// 1-based line number in the whole file.
        line: usize,
        /// Byte offset of the line's start.
        offset: u64,
        /// What is wrong.
        message: String,
    },
}

impl Error {
    /// The byte offset the error refers to.
    pub fn offset(&self) -> u64 {
        match self {
            Error::Key { offset, .. } | Error::Data { offset, .. } | Error::TextData { offset, .. } => *offset,
        }
    }
}
