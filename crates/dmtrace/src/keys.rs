//! The text key section: `*version`, `key=value` lines, `*threads`,
//! `*methods`, `*end`.

use crate::error::{Error, Result};
use std::io::{BufRead, Write};

/// Longest line accepted in the key section; longer means the input is not
/// a trace (and keeps a garbage file from being read into memory whole).
const MAX_LINE: usize = 1 << 20;

/// One line of the `*methods` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodLine {
    /// The file's method id (low two bits zero).
    pub id: u32,
    /// Class, as the file spells it (`com/ex/Foo` or `com.ex.Foo`).
    pub class: String,
    /// Method name.
    pub name: String,
    /// Signature (descriptor); may be empty.
    pub signature: String,
    /// Source file, when given and not empty.
    pub source_file: Option<String>,
    /// Declaration line, when given.
    pub line: Option<u32>,
}

/// Everything the key section says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeySection {
    /// The number under `*version`.
    pub version: u32,
    /// Every `key=value` line, in order.
    pub properties: Vec<(String, String)>,
    /// `*threads` lines: thread id and name.
    pub threads: Vec<(u32, String)>,
    /// `*methods` lines.
    pub methods: Vec<MethodLine>,
}

impl KeySection {
    /// The value of the first property named `key`.
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Start,
    VersionNumber,
    Options,
    Threads,
    Methods,
    Unknown,
}

/// Line-by-line parser of a key section.
pub(crate) struct KeyParser {
    part: Part,
    keys: KeySection,
    line_no: usize,
}

impl KeyParser {
    pub(crate) fn new() -> KeyParser {
        KeyParser {
            part: Part::Start,
            keys: KeySection::default(),
            line_no: 0,
        }
    }

    /// Feeds one line (without its `\n`). Returns true after `*end`.
    pub(crate) fn line(&mut self, raw: &[u8], offset: u64) -> Result<bool> {
        self.line_no += 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = String::from_utf8_lossy(raw);
        let line = text.as_ref();
        let err = |msg: String| Error::text(offset, self.line_no, msg);
        if self.part == Part::Start {
            if line.trim() != "*version" {
                return Err(err("not an Android method trace: expected `*version`".into()));
            }
            self.part = Part::VersionNumber;
            return Ok(false);
        }
        if let Some(section) = line.strip_prefix('*') {
            match section.trim() {
                "end" => return Ok(true),
                "threads" => self.part = Part::Threads,
                "methods" => self.part = Part::Methods,
                "version" => self.part = Part::VersionNumber,
                _ => self.part = Part::Unknown,
            }
            return Ok(false);
        }
        if line.trim().is_empty() {
            return Ok(false);
        }
        match self.part {
            Part::Start => unreachable!("handled above"),
            Part::VersionNumber => {
                self.keys.version = line
                    .trim()
                    .parse()
                    .map_err(|_| err(format!("bad version number `{}`", line.trim())))?;
                self.part = Part::Options;
            }
            Part::Options => {
                let (k, v) = line
                    .split_once('=')
                    .ok_or_else(|| err(format!("expected key=value, found `{line}`")))?;
                self.keys.properties.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            Part::Threads => {
                let (tid, name) = split_first_field(line);
                let tid = parse_number(tid).ok_or_else(|| err(format!("bad thread id `{tid}`")))?;
                self.keys.threads.push((tid, name.to_owned()));
            }
            Part::Methods => {
                let m = parse_method_line(line).ok_or_else(|| err(format!("bad method line `{line}`")))?;
                self.keys.methods.push(m);
            }
            Part::Unknown => {}
        }
        Ok(false)
    }

    pub(crate) fn finish(self) -> KeySection {
        self.keys
    }
}

/// Splits `id<TAB>rest` (or `id<SPACE>rest`).
fn split_first_field(line: &str) -> (&str, &str) {
    match line.find(['\t', ' ']) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (line, ""),
    }
}

/// Parses `0x1f` (hex) or `31` (decimal) into a u32.
pub(crate) fn parse_number(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()
    } else {
        s.parse().ok()
    }
}

/// Parses one `*methods` line: `id\tclass\tname\tsignature[\tfile[\tline]]`.
/// Missing trailing fields stay empty; only a bad id fails.
pub(crate) fn parse_method_line(line: &str) -> Option<MethodLine> {
    let line = line.trim_end_matches(['\n', '\r']);
    let mut fields = line.split('\t');
    let id = parse_number(fields.next()?)?;
    let class = fields.next().unwrap_or("").to_owned();
    let name = fields.next().unwrap_or("").to_owned();
    let signature = fields.next().unwrap_or("").to_owned();
    let source_file = fields.next().filter(|f| !f.is_empty()).map(str::to_owned);
    let line_no = fields.next().and_then(|l| l.trim().parse().ok());
    Some(MethodLine {
        id: id & !3,
        class,
        name,
        signature,
        source_file,
        line: line_no,
    })
}

/// Reads the key section from `r`, advancing `pos` by the bytes consumed.
pub(crate) fn read_key_section<R: BufRead>(r: &mut R, pos: &mut u64) -> Result<KeySection> {
    let mut parser = KeyParser::new();
    let mut buf = Vec::new();
    loop {
        let start = *pos;
        buf.clear();
        let n = read_line_limited(r, &mut buf)?;
        if n == 0 {
            return Err(Error::text(
                start,
                parser.line_no + 1,
                "file ends inside the key section (no `*end`)",
            ));
        }
        *pos += n as u64;
        let ended_with_newline = buf.last() == Some(&b'\n');
        if ended_with_newline {
            buf.pop();
        } else if buf.len() >= MAX_LINE {
            return Err(Error::text(
                start,
                parser.line_no + 1,
                "line too long for a trace key section",
            ));
        }
        if parser.line(&buf, start)? {
            return Ok(parser.finish());
        }
        if !ended_with_newline {
            return Err(Error::text(
                start,
                parser.line_no,
                "file ends inside the key section (no `*end`)",
            ));
        }
    }
}

/// Parses a key section held in memory (the streaming summary).
pub(crate) fn parse_key_text(text: &[u8], base_offset: u64) -> Result<KeySection> {
    let mut parser = KeyParser::new();
    let mut offset = base_offset;
    for line in text.split(|&b| b == b'\n') {
        if parser.line(line, offset)? {
            break;
        }
        offset += line.len() as u64 + 1;
    }
    Ok(parser.finish())
}

/// Reads up to and including `\n`, at most [`MAX_LINE`] bytes.
fn read_line_limited<R: BufRead>(r: &mut R, out: &mut Vec<u8>) -> Result<usize> {
    let mut total = 0;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if avail.is_empty() {
            return Ok(total);
        }
        let room = MAX_LINE - out.len();
        let (take, done) = match avail.iter().take(room).position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len().min(room), avail.len() >= room),
        };
        out.extend_from_slice(&avail[..take]);
        r.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

/// Writes one `*methods` line.
pub(crate) fn write_method_line<W: Write>(w: &mut W, m: &MethodLine) -> std::io::Result<()> {
    write!(
        w,
        "{:#x}\t{}\t{}\t{}\t{}",
        m.id,
        m.class,
        m.name,
        m.signature,
        m.source_file.as_deref().unwrap_or("")
    )?;
    if let Some(line) = m.line {
        write!(w, "\t{line}")?;
    }
    writeln!(w)
}

/// Replaces characters that would break a tab/newline-separated line.
pub(crate) fn sanitize(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_key_section() {
        let text = b"*version\n3\ndata-file-overflow=false\nclock=dual\nfuture-key=x=y\n*threads\n1\tmain\n12\tRender Thread\n*methods\n0x1000\tcom/ex/Foo\tbar\t(I)V\tFoo.java\t42\n0x1004\tcom/ex/Foo\t<init>\t()V\n*end\n";
        let mut pos = 0;
        let mut r = &text[..];
        let k = read_key_section(&mut r, &mut pos).unwrap();
        assert_eq!(pos, text.len() as u64);
        assert_eq!(k.version, 3);
        assert_eq!(k.property("clock"), Some("dual"));
        assert_eq!(k.property("future-key"), Some("x=y"));
        assert_eq!(k.threads, vec![(1, "main".into()), (12, "Render Thread".into())]);
        assert_eq!(k.methods[0].id, 0x1000);
        assert_eq!(k.methods[0].source_file.as_deref(), Some("Foo.java"));
        assert_eq!(k.methods[0].line, Some(42));
        assert_eq!(k.methods[1].name, "<init>");
        assert_eq!(k.methods[1].source_file, None);
    }

    #[test]
    fn reports_line_and_offset() {
        let text = b"*version\n3\nclock=dual\n*threads\nabc\tmain\n*end\n";
        let mut pos = 0;
        let e = read_key_section(&mut &text[..], &mut pos).unwrap_err();
        match e {
            Error::Text { line, offset, .. } => {
                assert_eq!(line, 5);
                assert_eq!(offset, 31);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn rejects_non_traces_and_missing_end() {
        let mut pos = 0;
        assert!(read_key_section(&mut &b"hello\n"[..], &mut pos).is_err());
        let mut pos = 0;
        assert!(read_key_section(&mut &b"*version\n3\nclock=wall\n"[..], &mut pos).is_err());
    }

    #[test]
    fn method_line_round_trip() {
        let m = parse_method_line("0x10\ta/B\tc\t()V\tB.java\t7").unwrap();
        let mut out = Vec::new();
        write_method_line(&mut out, &m).unwrap();
        assert_eq!(out, b"0x10\ta/B\tc\t()V\tB.java\t7\n");
        assert_eq!(parse_method_line("0\ta\tb\tc").unwrap().id, 0);
        assert!(parse_method_line("zz\ta").is_none());
    }
}
