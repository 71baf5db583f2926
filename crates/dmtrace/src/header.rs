//! The 32-byte binary header and the record layout it implies.

use crate::error::{Error, Result};
use std::io::Read;

/// `SLOW`, little-endian.
pub const MAGIC: u32 = 0x574F_4C53;
/// Header length every writer uses.
pub const HEADER_LEN: u16 = 32;
/// Bit pattern of the ART streaming variant in the version field.
pub const STREAMING_FLAG: u16 = 0xF0;

/// The binary header in front of the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinaryHeader {
    /// Format version (1, 2, 3; the streaming flag removed).
    pub version: u16,
    /// True for the ART streaming variant (`0xF0 | version`).
    pub streaming: bool,
    /// Offset from the header start to the first record.
    pub data_offset: u16,
    /// Trace start, µs since the Unix epoch.
    pub start_unix_us: u64,
    /// Record size stated by the header (v3 and later), 0 when absent.
    pub record_size: u16,
    /// Versions 4 and 5: the trace start in ns on the device's monotonic
    /// clock (0 for older versions, whose start is `start_unix_us`).
    pub start_monotonic_ns: u64,
}

impl BinaryHeader {
    /// Reads the header from `r`, whose first byte is at `offset` in the file.
    /// Consumes exactly `data_offset` bytes.
    pub fn read<R: Read>(r: &mut R, offset: u64) -> Result<BinaryHeader> {
        let mut fixed = [0u8; 16];
        read_exact_or(r, &mut fixed, offset, "file ends inside the binary header")?;
        let magic = u32::from_le_bytes(fixed[0..4].try_into().expect("4 bytes"));
        if magic != MAGIC {
            return Err(Error::binary(
                offset,
                format!("bad magic {magic:#010x}, expected {MAGIC:#010x} (\"SLOW\")"),
            ));
        }
        let raw_version = u16::from_le_bytes([fixed[4], fixed[5]]);
        let streaming = raw_version & 0xF0 == STREAMING_FLAG;
        let version = if streaming { raw_version & 0x0F } else { raw_version };
        if matches!(version, 4 | 5) {
            // ART's newer format: u64 monotonic start (ns) at offset 6, 32 bytes in all.
            let start_monotonic_ns = u64::from_le_bytes(fixed[6..14].try_into().expect("8 bytes"));
            let mut rest = [0u8; 16];
            read_exact_or(r, &mut rest, offset + 16, "file ends inside the binary header")?;
            return Ok(BinaryHeader {
                version,
                streaming,
                data_offset: HEADER_LEN,
                start_unix_us: 0,
                record_size: 0,
                start_monotonic_ns,
            });
        }
        if !(1..=3).contains(&version) {
            return Err(Error::binary(
                offset + 4,
                format!("unsupported trace version {raw_version:#x}"),
            ));
        }
        let data_offset = u16::from_le_bytes([fixed[6], fixed[7]]);
        let start_unix_us = u64::from_le_bytes(fixed[8..16].try_into().expect("8 bytes"));
        let min_len = if version >= 3 { 18 } else { 16 };
        if data_offset < min_len {
            return Err(Error::binary(
                offset + 6,
                format!("header length {data_offset} is shorter than {min_len}"),
            ));
        }
        let mut record_size = 0;
        let mut rest = vec![0u8; usize::from(data_offset) - 16];
        read_exact_or(r, &mut rest, offset + 16, "file ends inside the binary header")?;
        if version >= 3 {
            record_size = u16::from_le_bytes([rest[0], rest[1]]);
        }
        Ok(BinaryHeader {
            version,
            streaming,
            data_offset,
            start_unix_us,
            record_size,
            start_monotonic_ns: 0,
        })
    }

    /// Serialises a 32-byte header.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN as usize] {
        let mut b = [0u8; HEADER_LEN as usize];
        b[0..4].copy_from_slice(&MAGIC.to_le_bytes());
        let v = if self.streaming {
            self.version | STREAMING_FLAG
        } else {
            self.version
        };
        b[4..6].copy_from_slice(&v.to_le_bytes());
        b[6..8].copy_from_slice(&HEADER_LEN.to_le_bytes());
        b[8..16].copy_from_slice(&self.start_unix_us.to_le_bytes());
        if self.version >= 3 {
            b[16..18].copy_from_slice(&self.record_size.to_le_bytes());
        }
        b
    }
}

/// Where the fields of one record sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// 1 (version 1) or 2 bytes of thread id.
    pub tid_bytes: usize,
    /// Number of u32 time fields (2 for dual clock).
    pub times: usize,
    /// Bytes per record (at least the fields above).
    pub record_size: usize,
}

impl Layout {
    /// The layout of `header`'s records when the file has `times` clocks.
    pub fn new(header: &BinaryHeader, times: usize, offset: u64) -> Result<Layout> {
        let tid_bytes = if header.version == 1 { 1 } else { 2 };
        let needed = tid_bytes + 4 + 4 * times;
        if header.version < 3 && times > 1 {
            return Err(Error::binary(offset + 4, "clock=dual needs trace version 3"));
        }
        let record_size = if header.version >= 3 && header.record_size != 0 {
            usize::from(header.record_size)
        } else {
            needed
        };
        if record_size < needed {
            return Err(Error::binary(
                offset + 16,
                format!("record size {record_size} is too small for {times} clock(s) (needs {needed})"),
            ));
        }
        Ok(Layout {
            tid_bytes,
            times,
            record_size,
        })
    }

    /// Decodes one record from `b` (at least `record_size` bytes).
    #[inline(always)]
    pub fn decode(&self, b: &[u8]) -> RawRecord {
        let (tid, rest) = if self.tid_bytes == 1 {
            (u16::from(b[0]), &b[1..])
        } else {
            (u16::from_le_bytes([b[0], b[1]]), &b[2..])
        };
        let word = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
        let t1 = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        let t2 = if self.times > 1 {
            u32::from_le_bytes([rest[8], rest[9], rest[10], rest[11]])
        } else {
            0
        };
        RawRecord { tid, word, t1, t2 }
    }
}

/// One record as stored: thread, `method | action`, and one or two times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawRecord {
    /// Thread id.
    pub tid: u16,
    /// Method id with the action in the low two bits.
    pub word: u32,
    /// First time field (thread-CPU for dual clock, else the only clock).
    pub t1: u32,
    /// Second time field (wall, dual clock only).
    pub t2: u32,
}

pub(crate) fn read_exact_or<R: Read>(r: &mut R, buf: &mut [u8], offset: u64, msg: &str) -> Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => return Err(Error::binary(offset + filled as u64, msg)),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let h = BinaryHeader {
            version: 3,
            streaming: true,
            data_offset: 32,
            start_unix_us: 1_700_000_000_000_000,
            record_size: 14,
            start_monotonic_ns: 0,
        };
        let b = h.to_bytes();
        assert_eq!(&b[0..4], b"SLOW");
        assert_eq!(b[4], 0xF3);
        assert_eq!(BinaryHeader::read(&mut &b[..], 0).unwrap(), h);
    }

    #[test]
    fn rejects_bad_headers() {
        assert!(BinaryHeader::read(&mut &b"SLOW"[..], 0).is_err());
        let mut b = BinaryHeader {
            version: 3,
            streaming: false,
            data_offset: 32,
            start_unix_us: 0,
            record_size: 14,
            start_monotonic_ns: 0,
        }
        .to_bytes();
        b[4] = 9;
        assert!(BinaryHeader::read(&mut &b[..], 0).is_err());
        b[4] = 3;
        b[6] = 4;
        assert!(BinaryHeader::read(&mut &b[..], 0).is_err());
    }

    #[test]
    fn layouts() {
        let h = BinaryHeader {
            version: 1,
            streaming: false,
            data_offset: 32,
            start_unix_us: 0,
            record_size: 0,
            start_monotonic_ns: 0,
        };
        let l = Layout::new(&h, 1, 0).unwrap();
        assert_eq!(l.record_size, 9);
        let r = l.decode(&[7, 0x05, 0x10, 0, 0, 100, 0, 0, 0]);
        assert_eq!(
            r,
            RawRecord {
                tid: 7,
                word: 0x1005,
                t1: 100,
                t2: 0
            }
        );
        assert!(Layout::new(&h, 2, 0).is_err());
        let h3 = BinaryHeader {
            version: 3,
            record_size: 12,
            ..h
        };
        assert!(Layout::new(&h3, 2, 0).is_err());
    }
}
