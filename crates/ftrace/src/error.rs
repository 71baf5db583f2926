//! The error type of this crate.

use std::io;

/// Why a capture could not be read. Every variant names the input; format
/// errors also say where: the line (1-based; for systrace HTML the line of
/// the HTML file, for a compressed capture the line of the inflated text) or
/// the byte offset in the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A line is not an ftrace line (nor a comment, header or tool notice).
    #[error("{file}: line {line}{inflated}: {message}", inflated = if *.inflated { " of the inflated text" } else { "" })]
    Line {
        /// The input's name.
        file: String,
        /// 1-based line number.
        line: u64,
        /// True when the line number counts lines of an inflated (zlib) body.
        inflated: bool,
        /// What is wrong, with the start of the line.
        message: String,
    },
    /// The zlib body of a `TRACE:` capture is corrupt.
    #[error("{file}: byte {offset} (in the compressed body that starts at byte {body_start}): {message}")]
    Compressed {
        /// The input's name.
        file: String,
        /// Byte offset in the file where inflating failed.
        offset: u64,
        /// Byte offset in the file where the zlib stream starts.
        body_start: u64,
        /// What the inflater said.
        message: String,
    },
    /// The input is not something this crate reads (not a regular file,
    /// not a capture).
    #[error("{file}: {message}")]
    Unsupported {
        /// The input's name.
        file: String,
        /// Why.
        message: String,
    },
    /// Reading the input failed.
    #[error("{file}: I/O error: {source}")]
    Io {
        /// The input's name.
        file: String,
        /// The underlying error.
        source: io::Error,
    },
}

impl Error {
    /// The 1-based line the error refers to, when it refers to one.
    pub fn line(&self) -> Option<u64> {
        match self {
            Error::Line { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The byte offset the error refers to, when it refers to one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Compressed { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    pub(crate) fn io(file: &str, source: io::Error) -> Error {
        Error::Io {
            file: file.to_owned(),
            source,
        }
    }

    pub(crate) fn unsupported(file: &str, message: impl Into<String>) -> Error {
        Error::Unsupported {
            file: file.to_owned(),
            message: message.into(),
        }
    }
}

/// Shows at most `max` bytes of a line, lossily decoded, for error messages.
pub(crate) fn excerpt(line: &[u8], max: usize) -> String {
    let cut = &line[..line.len().min(max)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if line.len() > max {
        s.push('…');
    }
    s
}
