//! The binary data part (big-endian, as Java's `DataOutputStream` writes it).

use crate::{mutf8, ContextLog, DataForm, Error, KeyPart, ReadOutcome, Record, MAGIC};
use std::io::Write;
use tracekit_model::{ContextType, ContextValue};

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_be_bytes(b.try_into().unwrap_or([0; 4])))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_be_bytes(b.try_into().unwrap_or([0; 8])))
    }
}

/// Reads the binary data part starting at `at`.
pub(crate) fn read_data(key: KeyPart, bytes: &[u8], at: usize) -> Result<ReadOutcome, Error> {
    let mut c = Cursor { bytes, pos: at };
    let header_err = |offset: usize| Error::Data {
        offset: offset as u64,
        message: "data header truncated (needs magic, version, start time)".into(),
    };
    let magic = c.u32().ok_or_else(|| header_err(at))?;
    debug_assert_eq!(magic, MAGIC);
    let vpos = c.pos;
    let version = c.take(1).ok_or_else(|| header_err(vpos))?[0];
    if version != 1 {
        return Err(Error::Data {
            offset: vpos as u64,
            message: format!("unsupported data version {version} (only 1 is defined)"),
        });
    }
    let start = c.u64().ok_or_else(|| header_err(c.pos))? as i64;
    let mut records = Vec::new();
    let mut truncated_at = None;
    while c.pos < bytes.len() {
        let rec_start = c.pos;
        match read_record(&mut c, &key) {
            Ok(Some(r)) => records.push(r),
            Ok(None) => {
                truncated_at = Some(rec_start as u64);
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(ReadOutcome {
        log: ContextLog {
            version: key.version,
            start_unix_us: start,
            defs: key.defs,
            records,
        },
        form: DataForm::Binary,
        truncated_at,
    })
}

/// One record; `Ok(None)` when the file ends inside it.
fn read_record(c: &mut Cursor<'_>, key: &KeyPart) -> Result<Option<Record>, Error> {
    let id_at = c.pos;
    let Some(id) = c.u32() else { return Ok(None) };
    let kind = key.kind_of(id).ok_or_else(|| Error::Data {
        offset: id_at as u64,
        message: format!(
            "record names log id {} but the key part declares ids 0..{}",
            id as i32,
            key.defs.len()
        ),
    })?;
    let Some(delta) = c.u64() else { return Ok(None) };
    let value = match kind {
        ContextType::Int => match c.u32() {
            Some(v) => ContextValue::Int(v as i32),
            None => return Ok(None),
        },
        ContextType::Long => match c.u64() {
            Some(v) => ContextValue::Long(v as i64),
            None => return Ok(None),
        },
        ContextType::Float => match c.u32() {
            Some(v) => ContextValue::Float(f32::from_bits(v)),
            None => return Ok(None),
        },
        ContextType::Double => match c.u64() {
            Some(v) => ContextValue::Double(f64::from_bits(v)),
            None => return Ok(None),
        },
        ContextType::String => {
            let Some(n) = c.u16() else { return Ok(None) };
            let s_at = c.pos;
            let Some(raw) = c.take(n as usize) else { return Ok(None) };
            let s = mutf8::decode(raw).map_err(|i| Error::Data {
                offset: (s_at + i) as u64,
                message: "string value is not valid modified UTF-8".into(),
            })?;
            ContextValue::Str(s)
        }
    };
    Ok(Some(Record {
        log_id: id,
        delta_us: delta as i64,
        value,
    }))
}

/// Writes the binary data part.
pub(crate) fn write_data(log: &ContextLog, out: &mut impl Write) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(13 + log.records.len() * 16);
    buf.extend_from_slice(&MAGIC.to_be_bytes());
    buf.push(1);
    buf.extend_from_slice(&log.start_unix_us.to_be_bytes());
    for r in &log.records {
        buf.extend_from_slice(&r.log_id.to_be_bytes());
        buf.extend_from_slice(&r.delta_us.to_be_bytes());
        match &r.value {
            ContextValue::Int(v) => buf.extend_from_slice(&v.to_be_bytes()),
            ContextValue::Long(v) => buf.extend_from_slice(&v.to_be_bytes()),
            ContextValue::Float(v) => buf.extend_from_slice(&v.to_bits().to_be_bytes()),
            ContextValue::Double(v) => buf.extend_from_slice(&v.to_bits().to_be_bytes()),
            ContextValue::Str(s) => {
                let mut e = mutf8::encode(s);
                if e.len() > u16::MAX as usize {
                    // writeUTF refuses such strings; cut at a character boundary.
                    let mut cut = String::new();
                    for ch in s.chars() {
                        let mut probe = cut.clone();
                        probe.push(ch);
                        if mutf8::encode(&probe).len() > u16::MAX as usize {
                            break;
                        }
                        cut = probe;
                    }
                    e = mutf8::encode(&cut);
                }
                buf.extend_from_slice(&(e.len() as u16).to_be_bytes());
                buf.extend_from_slice(&e);
            }
        }
        if buf.len() > 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}
