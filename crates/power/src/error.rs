//! Errors of the power readers: each names the file, and for bad content
//! the line and the byte offset where that line starts.

/// Why a power file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The path is a FIFO, a device or a directory: reading it could block
    /// or never end.
    #[error("{file}: not a regular file (FIFOs, devices and directories are refused)")]
    NotRegular {
        /// The file.
        file: String,
    },
    /// The file is larger than any power capture this reader accepts.
    #[error("{file}: {size} bytes is more than the {limit}-byte limit for a power file")]
    TooLarge {
        /// The file.
        file: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A line does not fit the format.
    #[error("{file}:{line}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// 1-based line number.
        line: u64,
        /// Byte offset where the line starts.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// None of the readers recognises the content.
    #[error("{file}: not a Trepn Profiler CSV, BattOr text, power-monitor or batterystats file")]
    Unrecognised {
        /// The file.
        file: String,
    },
    /// The content is recognised, but tracekit cannot read it yet.
    #[error("{file}: {what} is not supported yet")]
    Unsupported {
        /// The file.
        file: String,
        /// What is missing.
        what: String,
    },
}

impl Error {
    /// The 1-based line of a parse error.
    pub fn line(&self) -> Option<u64> {
        match self {
            Error::Parse { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The byte offset of a parse error (start of the offending line).
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Parse { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}
