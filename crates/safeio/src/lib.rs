//! Safe edges shared by every tracekit crate, with no dependency at all.
//!
//! **Reading.** A FIFO given where a file is expected blocks a reader for
//! ever (already `open` blocks until a writer appears), and a device such as
//! `/dev/zero` never ends, so a reader that trusts the path grows without
//! bound. [`read_bytes`], [`read_text`] and [`open_regular`] refuse anything
//! but a regular file before opening it. [`read_text`] reports invalid UTF-8
//! with the file, the byte offset and the line instead of std's bare
//! "stream did not contain valid UTF-8".
//!
//! **Printing.** Names that come from outside (thread and method names,
//! context labels and values, symbols) may hold escape sequences that a
//! terminal would obey. [`terminal`] escapes every control character of one
//! name; [`terminal_lines`] does the same to a multi-line text but keeps its
//! line breaks and tabs. JSON output does not need either: serde escapes
//! control characters itself.
//!
//! ```
//! let dir = std::env::temp_dir();
//! let err = tracekit_safeio::read_text(std::path::Path::new("/dev/zero")).unwrap_err();
//! assert!(err.to_string().contains("not a regular file"));
//! assert_eq!(tracekit_safeio::terminal("main\u{1b}[31m"), "main\\u{1b}[31m");
//! # let _ = dir;
//! ```

mod terminal;

pub use terminal::{terminal, terminal_lines};

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file could not be read. Its message names the file and, for
/// invalid text, the byte offset and line.
#[derive(Debug)]
pub struct ReadError {
    /// The file concerned.
    pub path: PathBuf,
    /// What went wrong (without the path).
    pub message: String,
    /// The underlying I/O error kind (`InvalidData` for bad text,
    /// `Unsupported` for a file that is not a regular file).
    pub kind: std::io::ErrorKind,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for std::io::Error {
    /// An I/O error carrying the whole message (path included).
    fn from(e: ReadError) -> std::io::Error {
        std::io::Error::new(e.kind, e.to_string())
    }
}

impl ReadError {
    fn io(path: &Path, e: std::io::Error) -> ReadError {
        ReadError {
            path: path.to_owned(),
            message: e.to_string(),
            kind: e.kind(),
        }
    }

    fn new(path: &Path, kind: std::io::ErrorKind, message: impl Into<String>) -> ReadError {
        ReadError {
            path: path.to_owned(),
            message: message.into(),
            kind,
        }
    }
}

/// Refuses anything but a regular file (following symbolic links):
/// directories, FIFOs, sockets and devices.
pub fn check_regular(path: &Path) -> Result<std::fs::Metadata, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::io(path, e))?;
    if meta.is_file() {
        Ok(meta)
    } else if meta.is_dir() {
        Err(ReadError::new(
            path,
            std::io::ErrorKind::Unsupported,
            "is a directory, not a file",
        ))
    } else {
        Err(ReadError::new(
            path,
            std::io::ErrorKind::Unsupported,
            "not a regular file (a FIFO, socket or device); tracekit reads files",
        ))
    }
}

/// Opens a regular file for reading; anything else is refused before it is
/// opened, so a FIFO cannot block the caller.
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    check_regular(path)?;
    let f = File::open(path).map_err(|e| ReadError::io(path, e))?;
    // The path could have been swapped between the check and the open.
    let meta = f.metadata().map_err(|e| ReadError::io(path, e))?;
    if !meta.is_file() {
        return Err(ReadError::new(
            path,
            std::io::ErrorKind::Unsupported,
            "not a regular file (a FIFO, socket or device); tracekit reads files",
        ));
    }
    Ok(f)
}

/// Reads a whole regular file.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    let mut f = open_regular(path)?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    f.read_to_end(&mut out).map_err(|e| ReadError::io(path, e))?;
    Ok(out)
}

/// Reads a whole regular file as UTF-8 text; invalid text is an error
/// naming the byte offset and line of the first bad byte.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    text_of(path, read_bytes(path)?)
}

/// Turns bytes read from `path` into text, or an error naming the byte
/// offset and line of the first invalid byte.
pub fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        let message = utf8_message(e.as_bytes(), &e.utf8_error());
        ReadError::new(path, std::io::ErrorKind::InvalidData, message)
    })
}

/// "not UTF-8 text: invalid byte 0x.. at byte offset N (line L)" for the
/// error `e` found in `bytes`.
pub fn utf8_message(bytes: &[u8], e: &std::str::Utf8Error) -> String {
    let at = e.valid_up_to();
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    match (e.error_len(), bytes.get(at)) {
        (Some(_), Some(b)) => format!("not UTF-8 text: invalid byte 0x{b:02x} at byte offset {at} (line {line})"),
        _ => format!("not UTF-8 text: cut off inside a character at byte offset {at} (line {line})"),
    }
}

/// True when `a` and `b` name the same existing file or directory, however
/// they are spelled (symbolic links, `..`, hard links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
