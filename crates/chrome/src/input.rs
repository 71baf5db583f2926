//! A window over the input that slides forward in chunks, so a trace of any
//! size is read with a buffer about as large as its largest single value
//! (one event), while every byte keeps its absolute offset, line and column
//! for error messages.
//!
//! Values are handed to `serde_json` as slices of the window: a value cut by
//! the window's end makes `serde_json` report end of input, and the window
//! is refilled (grown if one value is larger than it) and the value parsed
//! again. A value cut by the real end of the input is a truncated file.

use crate::error::Error;
pub(crate) use crate::scan::Bad;
use std::io::{self, Read};

/// Bytes read from the input at a time.
const CHUNK: usize = 1 << 20;

/// The sliding window.
pub(crate) struct Input<R> {
    reader: R,
    file: String,
    buf: Vec<u8>,
    /// Next unread byte in `buf`.
    pos: usize,
    /// Bytes of `buf` that hold input.
    len: usize,
    /// Absolute offset of `buf[0]`.
    base: u64,
    eof: bool,
    /// Newlines before `base`.
    lines_before: u64,
    /// Absolute offset of the first byte of the line `base` is on.
    line_start_before: u64,
}

/// What [`Input::value`] found.
pub(crate) enum Parsed<O> {
    /// The value, parsed and handed to the caller's function.
    Value(O),
    /// The input ends inside the value, which starts at this offset.
    Truncated(u64),
}

/// True for JSON's four whitespace bytes.
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

impl<R: Read> Input<R> {
    /// A window over `reader`, whose name errors carry.
    pub(crate) fn new(reader: R, file: &str) -> Input<R> {
        Input {
            reader,
            file: file.to_owned(),
            buf: vec![0; CHUNK],
            pos: 0,
            len: 0,
            base: 0,
            eof: false,
            lines_before: 0,
            line_start_before: 0,
        }
    }

    /// Absolute offset of the next unread byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Drops the bytes before `pos` and reads more. Returns false at the end
    /// of the input.
    fn fill(&mut self) -> Result<bool, Error> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            let gone = &self.buf[..self.pos];
            if let Some(last) = memchr::memrchr(b'\n', gone) {
                self.line_start_before = self.base + last as u64 + 1;
                self.lines_before += memchr::memchr_iter(b'\n', gone).count() as u64;
            }
            self.buf.copy_within(self.pos..self.len, 0);
            self.base += self.pos as u64;
            self.len -= self.pos;
            self.pos = 0;
        }
        if self.len == self.buf.len() {
            let grown = self.buf.len() * 2;
            self.buf.resize(grown, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.len += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Error::Io {
                        file: self.file.clone(),
                        source: e,
                    })
                }
            }
        }
    }

    /// Skips a UTF-8 byte-order mark at the very start.
    pub(crate) fn skip_bom(&mut self) -> Result<(), Error> {
        while self.len < 3 && self.fill()? {}
        if self.buf[..self.len].starts_with(b"\xEF\xBB\xBF") {
            self.pos = 3;
        }
        Ok(())
    }

    /// Skips whitespace and returns the next byte without consuming it
    /// (`None` at the end of the input).
    pub(crate) fn peek(&mut self) -> Result<Option<u8>, Error> {
        loop {
            while self.pos < self.len {
                let b = self.buf[self.pos];
                if !is_ws(b) {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Consumes the byte [`Input::peek`] returned.
    pub(crate) fn bump(&mut self) {
        self.pos += 1;
    }

    /// Parses the value that starts at the next byte with `parse`, which
    /// gets the window from there on and whether more input may follow it,
    /// and returns what it made of the value and how many bytes the value
    /// took, or [`Bad::Cut`] when the window ends inside the value (then the
    /// window is refilled and `parse` called again, so it must act on a
    /// value only once it returns it). Offsets in its errors are relative to
    /// the slice it got; they are turned into the input's.
    pub(crate) fn value<O>(
        &mut self,
        mut parse: impl FnMut(&[u8], bool) -> Result<(O, usize), Bad>,
    ) -> Result<Parsed<O>, Error> {
        if self.peek()?.is_none() {
            return Ok(Parsed::Truncated(self.offset()));
        }
        loop {
            match parse(&self.buf[self.pos..self.len], !self.eof) {
                Ok((o, used)) => {
                    self.pos += used;
                    return Ok(Parsed::Value(o));
                }
                Err(Bad::Cut) => {
                    if !self.fill()? {
                        // Nothing more to come: parse once more as final.
                        return match parse(&self.buf[self.pos..self.len], false) {
                            Ok((o, used)) => {
                                self.pos += used;
                                Ok(Parsed::Value(o))
                            }
                            Err(Bad::Cut) => Ok(Parsed::Truncated(self.offset())),
                            Err(Bad::At(at, message)) => Err(self.error_at(self.offset() + at as u64, message)),
                        };
                    }
                }
                Err(Bad::At(at, message)) => return Err(self.error_at(self.offset() + at as u64, message)),
            }
        }
    }

    /// Skips a string whose opening quote is the next byte, without holding
    /// it whole (a `systemTraceEvents` string may be hundreds of MB). Returns
    /// false when the input ends inside it.
    pub(crate) fn skip_string(&mut self) -> Result<bool, Error> {
        if self.peek()? != Some(b'"') {
            return Ok(false);
        }
        self.pos += 1;
        loop {
            match memchr::memchr2(b'"', b'\\', &self.buf[self.pos..self.len]) {
                Some(i) if self.buf[self.pos + i] == b'"' => {
                    self.pos += i + 1;
                    return Ok(true);
                }
                Some(i) if self.pos + i + 1 < self.len => self.pos += i + 2,
                Some(i) => {
                    // A backslash at the window's end: keep it for the refill.
                    self.pos += i;
                    if !self.fill()? {
                        return Ok(false);
                    }
                }
                None => {
                    self.pos = self.len;
                    if !self.fill()? {
                        return Ok(false);
                    }
                }
            }
        }
    }

    /// 1-based line and column of an absolute offset inside the window.
    fn line_column(&self, offset: u64) -> (u64, u64) {
        let rel = offset.saturating_sub(self.base).min(self.len as u64) as usize;
        let seen = &self.buf[..rel];
        let line = self.lines_before + memchr::memchr_iter(b'\n', seen).count() as u64 + 1;
        let line_start = match memchr::memrchr(b'\n', seen) {
            Some(i) => self.base + i as u64 + 1,
            None => self.line_start_before,
        };
        (line, offset.saturating_sub(line_start) + 1)
    }

    /// A format error at an absolute offset.
    pub(crate) fn error_at(&self, offset: u64, message: impl Into<String>) -> Error {
        let (line, column) = self.line_column(offset);
        Error::Format {
            file: self.file.clone(),
            line,
            column,
            offset,
            message: message.into(),
        }
    }

    /// A format error at the next unread byte.
    pub(crate) fn error_here(&self, message: impl Into<String>) -> Error {
        self.error_at(self.offset(), message)
    }
}

/// `serde_json`'s message without its own " at line L column C" suffix
/// (the position is restated for the whole input).
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// The offset in `slice` of a `serde_json` position (1-based line, column
/// counted from the line's start).
fn offset_in(slice: &[u8], line: usize, column: usize) -> usize {
    let mut start = 0usize;
    for _ in 1..line {
        match memchr::memchr(b'\n', &slice[start..]) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(slice.len())
}

/// Parses one value of type `T` from the start of `slice` with
/// `serde_json` and returns it with the number of bytes it took. When
/// `more` input may follow the slice, a value that reaches its end (a
/// number that may go on) is reported as cut, and so is an error in its
/// last two bytes (`serde_json` calls some cut values, such as `12.`,
/// invalid numbers).
pub(crate) fn parse_prefix<'de, T: serde::Deserialize<'de>>(slice: &'de [u8], more: bool) -> Result<(T, usize), Bad> {
    let mut values = serde_json::Deserializer::from_slice(slice).into_iter::<T>();
    match values.next() {
        Some(Ok(_)) if more && values.byte_offset() == slice.len() => Err(Bad::Cut),
        Some(Ok(v)) => Ok((v, values.byte_offset())),
        Some(Err(e)) => {
            let at = offset_in(slice, e.line(), e.column());
            if e.is_eof() || (more && at + 2 >= slice.len()) {
                Err(Bad::Cut)
            } else {
                Err(Bad::At(at, strip_position(&e)))
            }
        }
        // Only whitespace: the window ended before the value.
        None => Err(Bad::Cut),
    }
}

/// [`parse_prefix`] for a type that owns its data, as a function of any
/// slice.
pub(crate) fn parse_owned<T: serde::de::DeserializeOwned>(slice: &[u8], more: bool) -> Result<(T, usize), Bad> {
    parse_prefix(slice, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out one byte at a time, so every value crosses
    /// the window's end at least once.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() || out.is_empty() {
                return Ok(0);
            }
            out[0] = self.0[0];
            self.0 = &self.0[1..];
            Ok(1)
        }
    }

    fn value<T: serde::de::DeserializeOwned, R: Read>(input: &mut Input<R>) -> Result<Parsed<T>, Error> {
        input.value(parse_owned::<T>)
    }

    #[test]
    fn values_across_refills_and_positions() {
        let text = b"  123 ,\n  \"a\\\"b\"  [1, 2]\n  {\"x\": tru}";
        let mut input = Input::new(Trickle(text), "t.json");
        assert!(matches!(value::<u64, _>(&mut input).unwrap(), Parsed::Value(123)));
        assert_eq!(input.peek().unwrap(), Some(b','));
        input.bump();
        assert_eq!(input.peek().unwrap(), Some(b'"'));
        assert!(input.skip_string().unwrap());
        match value::<Vec<u32>, _>(&mut input).unwrap() {
            Parsed::Value(v) => assert_eq!(v, vec![1, 2]),
            Parsed::Truncated(_) => panic!("truncated"),
        }
        let Err(err) = value::<serde_json::Value, _>(&mut input) else {
            panic!("accepted bad JSON")
        };
        let (line, column) = err.line_column().unwrap();
        assert_eq!(line, 3);
        assert!((9..=12).contains(&column), "{err}");
        assert!(err.to_string().starts_with("t.json:3:"), "{err}");
    }

    #[test]
    fn a_number_at_the_end_of_the_input_is_complete() {
        let mut input = Input::new(Trickle(b"4567"), "t.json");
        assert!(matches!(value::<u64, _>(&mut input).unwrap(), Parsed::Value(4567)));
    }

    #[test]
    fn numbers_cut_by_the_window_are_read_whole() {
        let text = br#"[{"a": 12.5, "b": -3, "c": 1e5, "d": [true, null]}]"#;
        let mut input = Input::new(Trickle(text), "t.json");
        match value::<serde_json::Value, _>(&mut input).unwrap() {
            Parsed::Value(v) => assert_eq!(v, serde_json::from_slice::<serde_json::Value>(text).unwrap()),
            Parsed::Truncated(_) => panic!("truncated"),
        }
    }

    #[test]
    fn truncated_value() {
        let mut input = Input::new(Trickle(b"{\"a\": [1, 2"), "t.json");
        assert!(matches!(
            value::<serde_json::Value, _>(&mut input).unwrap(),
            Parsed::Truncated(0)
        ));
        let mut input = Input::new(Trickle(b"\"abc\\"), "t.json");
        assert!(!input.skip_string().unwrap());
    }
}
