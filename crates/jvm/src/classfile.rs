//! A minimal class-file reader: the class name, and for each method its
//! name, descriptor, bytecode, exception table and line-number table.
//!
//! Only what control-flow analysis needs is decoded; every other attribute is
//! skipped by length. Malformed input yields a [`ClassError`] naming the byte
//! offset, never a panic.

use thiserror::Error;

/// A class file could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("byte offset {offset}: {message}")]
pub struct ClassError {
    /// Offset in the class file where reading failed.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
}

/// One entry of a method's exception table (offsets into the bytecode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    /// First covered bytecode offset.
    pub start: u32,
    /// One past the last covered bytecode offset.
    pub end: u32,
    /// Offset of the handler's first instruction.
    pub handler: u32,
}

/// A method with its code, as far as path profiling needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodInfo {
    /// Method name, e.g. `main` or `<init>`.
    pub name: String,
    /// JVM descriptor, e.g. `([Ljava/lang/String;)V`.
    pub descriptor: String,
    /// Raw `Code` bytes; empty for abstract and native methods.
    pub code: Vec<u8>,
    /// Exception table in declaration order.
    pub handlers: Vec<Handler>,
    /// `(start_pc, line)` pairs from every `LineNumberTable`.
    pub lines: Vec<(u32, u32)>,
}

/// The parts of a class file that path profiling reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    /// Internal class name, e.g. `org/example/Main`.
    pub name: String,
    /// Source file name from the `SourceFile` attribute, if present.
    pub source_file: Option<String>,
    /// Methods in declaration order.
    pub methods: Vec<MethodInfo>,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, ClassError> {
        Err(ClassError {
            offset: self.pos,
            message: message.into(),
        })
    }
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], ClassError> {
        if self.data.len() - self.pos < n {
            return self.err(format!("need {n} bytes, file ends"));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, ClassError> {
        Ok(self.bytes(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ClassError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, ClassError> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[derive(Clone)]
enum Constant {
    Utf8(String),
    Class(u16),
    Other,
}

fn utf8(pool: &[Constant], index: u16, r: &Reader) -> Result<String, ClassError> {
    match pool.get(index as usize) {
        Some(Constant::Utf8(s)) => Ok(s.clone()),
        _ => r.err(format!("constant #{index} is not a UTF-8 entry")),
    }
}

/// Parses a class file.
pub fn parse_class(data: &[u8]) -> Result<ClassInfo, ClassError> {
    let mut r = Reader { data, pos: 0 };
    if r.u32()? != 0xCAFE_BABE {
        return Err(ClassError {
            offset: 0,
            message: "not a class file (bad magic)".into(),
        });
    }
    r.u16()?;
    r.u16()?;
    let count = r.u16()?;
    let mut pool = vec![Constant::Other; count.max(1) as usize];
    let mut i = 1;
    while i < count {
        let tag_at = r.pos;
        let tag = r.u8()?;
        let mut wide = false;
        pool[i as usize] = match tag {
            1 => {
                let len = r.u16()? as usize;
                let b = r.bytes(len)?;
                Constant::Utf8(decode_modified_utf8(b))
            }
            7 => Constant::Class(r.u16()?),
            8 | 16 | 19 | 20 => {
                r.u16()?;
                Constant::Other
            }
            3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => {
                r.u32()?;
                Constant::Other
            }
            5 | 6 => {
                r.bytes(8)?;
                wide = true;
                Constant::Other
            }
            15 => {
                r.bytes(3)?;
                Constant::Other
            }
            t => {
                return Err(ClassError {
                    offset: tag_at,
                    message: format!("unknown constant tag {t}"),
                })
            }
        };
        i += if wide { 2 } else { 1 };
    }
    r.u16()?; // access flags
    let this_at = r.pos;
    let this = r.u16()?;
    let name = match pool.get(this as usize) {
        Some(Constant::Class(n)) => utf8(&pool, *n, &r)?,
        _ => {
            return Err(ClassError {
                offset: this_at,
                message: "this_class is not a class entry".into(),
            })
        }
    };
    r.u16()?; // super
    let interfaces = r.u16()? as usize;
    r.bytes(interfaces * 2)?;
    let fields = r.u16()?;
    for _ in 0..fields {
        r.bytes(6)?;
        skip_attributes(&mut r)?;
    }
    let mut methods = Vec::new();
    for _ in 0..r.u16()? {
        r.u16()?;
        let name = utf8(&pool, r.u16()?, &r)?;
        let descriptor = utf8(&pool, r.u16()?, &r)?;
        let mut m = MethodInfo {
            name,
            descriptor,
            code: vec![],
            handlers: vec![],
            lines: vec![],
        };
        for _ in 0..r.u16()? {
            let aname = utf8(&pool, r.u16()?, &r)?;
            let len = r.u32()? as usize;
            let body_at = r.pos;
            let body = r.bytes(len)?;
            if aname == "Code" {
                parse_code(body, body_at, &pool, &mut m)?;
            }
        }
        methods.push(m);
    }
    let mut source_file = None;
    for _ in 0..r.u16()? {
        let aname = utf8(&pool, r.u16()?, &r)?;
        let len = r.u32()? as usize;
        let body = r.bytes(len)?;
        if aname == "SourceFile" && len == 2 {
            let idx = u16::from_be_bytes([body[0], body[1]]);
            source_file = Some(utf8(&pool, idx, &r)?);
        }
    }
    Ok(ClassInfo {
        name,
        source_file,
        methods,
    })
}

fn skip_attributes(r: &mut Reader) -> Result<(), ClassError> {
    for _ in 0..r.u16()? {
        r.u16()?;
        let len = r.u32()? as usize;
        r.bytes(len)?;
    }
    Ok(())
}

fn parse_code(body: &[u8], base: usize, pool: &[Constant], m: &mut MethodInfo) -> Result<(), ClassError> {
    let mut r = Reader { data: body, pos: 0 };
    let fix = |e: ClassError| ClassError {
        offset: e.offset + base,
        ..e
    };
    (|| {
        r.u16()?;
        r.u16()?;
        let len = r.u32()? as usize;
        m.code = r.bytes(len)?.to_vec();
        for _ in 0..r.u16()? {
            let start = r.u16()? as u32;
            let end = r.u16()? as u32;
            let handler = r.u16()? as u32;
            r.u16()?;
            m.handlers.push(Handler { start, end, handler });
        }
        for _ in 0..r.u16()? {
            let aname = utf8(pool, r.u16()?, &r)?;
            let alen = r.u32()? as usize;
            let abody = r.bytes(alen)?;
            if aname == "LineNumberTable" {
                let mut lr = Reader { data: abody, pos: 0 };
                for _ in 0..lr.u16()? {
                    let pc = lr.u16()? as u32;
                    let line = lr.u16()? as u32;
                    m.lines.push((pc, line));
                }
            }
        }
        Ok(())
    })()
    .map_err(fix)
}

/// Decodes the JVM's modified UTF-8 leniently (invalid sequences become U+FFFD).
fn decode_modified_utf8(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    let mut units: Vec<u16> = Vec::with_capacity(b.len());
    while i < b.len() {
        let c = b[i];
        if c & 0x80 == 0 {
            units.push(c as u16);
            i += 1;
        } else if c & 0xE0 == 0xC0 && i + 1 < b.len() {
            units.push(((c as u16 & 0x1F) << 6) | (b[i + 1] as u16 & 0x3F));
            i += 2;
        } else if c & 0xF0 == 0xE0 && i + 2 < b.len() {
            units.push(((c as u16 & 0x0F) << 12) | ((b[i + 1] as u16 & 0x3F) << 6) | (b[i + 2] as u16 & 0x3F));
            i += 3;
        } else {
            units.push(0xFFFD);
            i += 1;
        }
    }
    out.extend(char::decode_utf16(units).map(|c| c.unwrap_or('\u{FFFD}')));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_magic_and_truncation() {
        assert_eq!(parse_class(b"nope").unwrap_err().offset, 0);
        let e = parse_class(&[0xCA, 0xFE, 0xBA, 0xBE, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 6);
    }

    #[test]
    fn modified_utf8_round_trips_ascii_and_nul() {
        assert_eq!(decode_modified_utf8(b"abc"), "abc");
        assert_eq!(decode_modified_utf8(&[0xC0, 0x80]), "\0");
    }
}
