//! Line splitting and number parsing shared by the readers.

use crate::Error;
use std::borrow::Cow;

/// One line of a text file.
#[derive(Debug, Clone)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// The text without its line ending (invalid UTF-8 replaced).
    pub text: Cow<'a, str>,
    /// False for a last line that has no line ending: the file may have
    /// been cut inside it.
    pub complete: bool,
}

/// Splits `bytes` into lines (`\n` or `\r\n`), skipping a UTF-8 byte-order mark.
pub(crate) fn lines(bytes: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let start = if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) { 3 } else { 0 };
    let mut pos = start;
    let mut number = 0u64;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let rest = &bytes[pos..];
        let (len, next, complete) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (i, i + 1, true),
            None => (rest.len(), rest.len(), false),
        };
        let mut raw = &rest[..len];
        if raw.last() == Some(&b'\r') {
            raw = &raw[..raw.len() - 1];
        }
        number += 1;
        let line = Line {
            number,
            offset: pos as u64,
            text: String::from_utf8_lossy(raw),
            complete,
        };
        pos += next;
        Some(line)
    })
}

/// Builds errors that name one file.
#[derive(Debug, Clone)]
pub(crate) struct Ctx<'a> {
    /// The file's name as the user gave it.
    pub file: &'a str,
}

impl Ctx<'_> {
    /// A parse error at `line`.
    pub fn err(&self, line: &Line<'_>, message: impl Into<String>) -> Error {
        Error::Parse {
            file: self.file.to_owned(),
            line: line.number,
            offset: line.offset,
            message: message.into(),
        }
    }
}

/// A finite decimal number (`nan`, `inf` and empty text are refused).
pub(crate) fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty()
        || !s
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Converts a time in `unit_ns` units to whole nanoseconds, refusing times
/// that do not fit the model's signed 64-bit nanoseconds.
pub(crate) fn to_ns(value: f64, unit_ns: f64) -> Option<i64> {
    let ns = (value * unit_ns).round();
    (ns.is_finite() && ns.abs() < 9.0e18).then_some(ns as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_numbers_offsets_and_cuts() {
        let v: Vec<_> = lines(b"\xEF\xBB\xBFa\r\nbb\n\ncut").collect();
        assert_eq!(v.len(), 4);
        assert_eq!(
            (v[0].number, v[0].offset, v[0].text.as_ref(), v[0].complete),
            (1, 3, "a", true)
        );
        assert_eq!((v[1].offset, v[1].text.as_ref()), (6, "bb"));
        assert_eq!(v[2].text, "");
        assert_eq!((v[3].number, v[3].text.as_ref(), v[3].complete), (4, "cut", false));
    }

    #[test]
    fn numbers_are_finite() {
        assert_eq!(number(" 12.5 "), Some(12.5));
        assert_eq!(number("-3e2"), Some(-300.0));
        assert_eq!(number("nan"), None);
        assert_eq!(number("inf"), None);
        assert_eq!(number("1e999"), None);
        assert_eq!(number(""), None);
        assert_eq!(to_ns(1.5, 1e6), Some(1_500_000));
        assert_eq!(to_ns(1e300, 1e6), None);
    }
}
