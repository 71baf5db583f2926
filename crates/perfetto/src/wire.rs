//! The protobuf wire format at the level this crate walks by hand: varints,
//! field keys, and skipping. Packets and ftrace bundles are walked field by
//! field so that every field kind the importer does not use can be counted,
//! and so that the few hot fields are read without building a message.

/// A wire-format problem, with the offset (relative to the walked slice)
/// where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WireError {
    /// Offset inside the slice being walked.
    pub offset: usize,
    /// What is wrong.
    pub message: &'static str,
}

pub(crate) type WireResult<T> = Result<T, WireError>;

/// Reads a varint at `*pos`, advancing it. At most ten bytes.
#[inline]
pub(crate) fn varint(buf: &[u8], pos: &mut usize) -> WireResult<u64> {
    let start = *pos;
    if let Some(&b) = buf.get(start) {
        if b < 0x80 {
            *pos = start + 1;
            return Ok(u64::from(b));
        }
    }
    varint_long(buf, pos)
}

/// [`varint`] past its one-byte fast path.
#[inline(never)]
fn varint_long(buf: &[u8], pos: &mut usize) -> WireResult<u64> {
    let start = *pos;
    // Ten bytes at hand: a fixed-size window needs no bounds checks.
    if let Some(window) = buf.get(start..start + 10) {
        let window: &[u8; 10] = window.try_into().unwrap_or(&[0; 10]);
        let mut value = 0u64;
        for (i, &b) in window.iter().enumerate() {
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                *pos = start + i + 1;
                return Ok(value);
            }
        }
        return Err(WireError {
            offset: start,
            message: "varint longer than ten bytes",
        });
    }
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&b) = buf.get(start + i) else {
            return Err(WireError {
                offset: start,
                message: "varint runs past the end",
            });
        };
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            *pos = start + i + 1;
            return Ok(value);
        }
    }
    Err(WireError {
        offset: start,
        message: "varint longer than ten bytes",
    })
}

/// Appends `v` as a varint.
#[cfg(test)]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The value part of one field.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: the payload.
    Bytes(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

impl Value<'_> {
    /// The value as an unsigned integer (varint or fixed), if it is one.
    pub(crate) fn as_u64(self) -> Option<u64> {
        match self {
            Value::Varint(v) | Value::Fixed64(v) => Some(v),
            Value::Fixed32(v) => Some(u64::from(v)),
            Value::Bytes(_) => None,
        }
    }
}

/// One field: number, value and the offset of its key in the walked slice.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'a> {
    pub number: u32,
    pub value: Value<'a>,
    pub offset: usize,
}

/// Iterates over the fields of one message's bytes.
pub(crate) struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    /// Walks `buf` from its start.
    pub(crate) fn new(buf: &'a [u8]) -> Fields<'a> {
        Fields { buf, pos: 0 }
    }

    /// The next field, `None` at the end.
    #[inline(always)]
    pub(crate) fn next_field(&mut self) -> WireResult<Option<Field<'a>>> {
        let Some((key, offset)) = self.next_key()? else {
            return Ok(None);
        };
        self.field(key, offset).map(Some)
    }

    /// The next field's key (`number << 3 | wire type`) and offset, `None`
    /// at the end. Hot walks match whole keys of the fields they expect and
    /// read the value with [`Fields::varint`] or [`Fields::bytes`]; any
    /// other key goes to [`Fields::field`].
    #[inline(always)]
    pub(crate) fn next_key(&mut self) -> WireResult<Option<(u64, usize)>> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let offset = self.pos;
        Ok(Some((varint(self.buf, &mut self.pos)?, offset)))
    }

    /// A varint value (the key said wire type 0).
    #[inline(always)]
    pub(crate) fn varint(&mut self) -> WireResult<u64> {
        varint(self.buf, &mut self.pos)
    }

    /// A length-delimited value (the key said wire type 2).
    #[inline(always)]
    pub(crate) fn bytes(&mut self, key_offset: usize) -> WireResult<&'a [u8]> {
        let len = varint(self.buf, &mut self.pos)?;
        self.take(key_offset, usize::try_from(len).unwrap_or(usize::MAX))
    }

    /// The field whose key was just read.
    #[inline(always)]
    pub(crate) fn field(&mut self, key: u64, offset: usize) -> WireResult<Field<'a>> {
        let number = key >> 3;
        if number == 0 || number > u64::from(u32::MAX >> 3) {
            return Err(WireError {
                offset,
                message: "invalid field number",
            });
        }
        // Varints and length-delimited fields are nearly all there is; plain
        // tests keep them off the wire type's jump table.
        let wire = key & 7;
        let value = if wire == 0 {
            Value::Varint(varint(self.buf, &mut self.pos)?)
        } else if wire == 2 {
            Value::Bytes(self.bytes(offset)?)
        } else if wire == 1 {
            Value::Fixed64(u64::from_le_bytes(self.take(offset, 8)?.try_into().unwrap_or([0; 8])))
        } else if wire == 5 {
            Value::Fixed32(u32::from_le_bytes(self.take(offset, 4)?.try_into().unwrap_or([0; 4])))
        } else {
            return Err(WireError {
                offset,
                message: "invalid wire type",
            });
        };
        Ok(Field {
            number: number as u32,
            value,
            offset,
        })
    }

    fn take(&mut self, key_offset: usize, n: usize) -> WireResult<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(WireError {
                offset: key_offset,
                message: "field runs past the end of its message",
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_overlong() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut p = 0;
            assert_eq!(varint(&b, &mut p).unwrap(), v);
            assert_eq!(p, b.len());
        }
        let mut p = 0;
        assert!(varint(&[0xff; 11], &mut p).is_err());
        assert!(varint(&[0x80], &mut p).is_err());
    }

    #[test]
    fn walks_fields_and_reports_offsets() {
        // field 1 varint 150, field 2 bytes "hi", field 3 fixed32, bad wire type 7.
        let buf = [0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x0f];
        let mut f = Fields::new(&buf);
        assert_eq!(f.next_field().unwrap().unwrap().value.as_u64(), Some(150));
        let g = f.next_field().unwrap().unwrap();
        assert!(matches!(g.value, Value::Bytes(b"hi")));
        assert_eq!(f.next_field().unwrap().unwrap().value.as_u64(), Some(1));
        let e = f.next_field().unwrap_err();
        assert_eq!(e.offset, 12);
        let mut short = Fields::new(&[0x12, 0x05, 1]);
        assert_eq!(
            short.next_field().unwrap_err().message,
            "field runs past the end of its message"
        );
    }
}
