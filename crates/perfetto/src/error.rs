//! The error type of this crate.

use std::io;

/// Why a Perfetto trace could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes are not a well-formed Perfetto trace.
    #[error("{file}: byte {offset}: {message}")]
    Format {
        /// The file (or the name given to [`read_bytes`](crate::read_bytes)).
        file: String,
        /// Byte offset of the bad packet (or of the bad field inside it).
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The path is not a regular file (a FIFO, a device such as `/dev/zero`,
    /// a directory): reading it could block or never end.
    #[error("{file}: not a regular file ({kind}); a Perfetto trace must be a file")]
    NotRegular {
        /// The path.
        file: String,
        /// What it is instead.
        kind: &'static str,
    },
    /// Reading the file failed.
    #[error("{file}: {source}")]
    Io {
        /// The path.
        file: String,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// Writing the trace failed.
    #[error("writing Perfetto trace: {0}")]
    Write(#[source] io::Error),
}

impl Error {
    /// The byte offset the error refers to, when it refers to one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Format { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}
