//! The block log's `B`/`I` record of a new block (see [`crate::recorder`]
//! for the format), formatted by hand: this runs for every block a process
//! translates, some 100,000 times in a JVM's start-up. The record's room is
//! made once, from an upper bound of its length, and every byte is then
//! stored through a cursor: no capacity check and no `memcpy` call per
//! number or per byte.

use crate::recorder::InsnBytes;

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Appends to `out` the record of a new block: its slot, address,
/// instruction count and ISA mode, then one line per instruction, with
/// QEMU's disassembly `texts[i]` where there is one (`texts` may be
/// shorter than `insns`, or empty).
pub fn append(out: &mut Vec<u8>, slot: u64, vaddr: u64, mode: char, insns: &[InsnBytes<'_>], texts: &[Option<String>]) {
    let text = |i: usize| texts.get(i).and_then(|t| t.as_deref());
    // "B " + 20 digits + " " + 16 + " " + 20 + " " + mode + "\n" fits in 64;
    // "I " + 16 + " " + the bytes' hex + " " + text + "\n" per instruction.
    let bound = 64
        + insns
            .iter()
            .enumerate()
            .map(|(i, insn)| 21 + 2 * insn.bytes.len() + text(i).map_or(0, |t| 1 + t.len()))
            .sum::<usize>();
    let start = out.len();
    out.resize(start + bound, 0);
    let mut w = Cursor {
        buf: &mut out[start..],
        at: 0,
    };
    w.put(b"B ");
    w.dec(slot);
    w.byte(b' ');
    w.hex_number(vaddr);
    w.byte(b' ');
    w.dec(insns.len() as u64);
    w.byte(b' ');
    w.byte(u8::try_from(mode).unwrap_or(b'?'));
    w.byte(b'\n');
    let mut next = vaddr;
    for (i, insn) in insns.iter().enumerate() {
        let disas = text(i);
        w.put(b"I ");
        // The short form (bytes only) when the address follows and no
        // text comes after: half the bytes of the log.
        if insn.vaddr != next || disas.is_some() || insn.bytes.is_empty() {
            w.hex_number(insn.vaddr);
            w.byte(b' ');
        }
        w.hex(insn.bytes);
        if let Some(d) = disas {
            w.byte(b' ');
            // Line breaks are single bytes in UTF-8, never inside a character.
            for c in d.trim().bytes() {
                w.byte(if c == b'\n' || c == b'\r' { b' ' } else { c });
            }
        }
        w.byte(b'\n');
        next = insn.vaddr.wrapping_add(insn.bytes.len() as u64);
    }
    let len = w.at;
    out.truncate(start + len);
}

/// Stores bytes one after another into room made beforehand.
struct Cursor<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn byte(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    fn put(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    /// `v` in lowercase hex without leading zeros (as `{:x}`).
    fn hex_number(&mut self, v: u64) {
        let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
        for i in (0..digits).rev() {
            self.byte(HEX_DIGITS[((v >> (4 * i)) & 15) as usize]);
        }
    }

    /// `v` in decimal (as `{}`).
    fn dec(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.put(&digits[i..]);
    }

    /// `bytes` as lowercase hex, two digits each.
    fn hex(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(HEX_DIGITS[usize::from(b >> 4)]);
            self.byte(HEX_DIGITS[usize::from(b & 15)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_written_numbers_match_the_formatter() {
        for v in [0u64, 1, 9, 10, 15, 16, 255, 4096, 0xdead_beef, u64::MAX, 12_345_678_901] {
            let mut buf = [0u8; 40];
            let mut w = Cursor { buf: &mut buf, at: 0 };
            w.hex_number(v);
            let hex_len = w.at;
            w.byte(b' ');
            w.dec(v);
            let at = w.at;
            assert_eq!(buf[..at], format!("{v:x} {v}").into_bytes()[..], "{v}");
            assert_eq!(hex_len, format!("{v:x}").len());
        }
    }

    #[test]
    fn records_match_the_format_with_and_without_text() {
        let (a, b) = ([0x1f, 0x20, 0x03, 0xd5], [0xc3]);
        let insns = [
            InsnBytes {
                vaddr: 0x4000,
                bytes: &a,
            },
            InsnBytes {
                vaddr: 0x4004,
                bytes: &a,
            },
            InsnBytes {
                vaddr: 0x5000,
                bytes: &b,
            },
        ];
        let mut out = b"before\n".to_vec();
        append(&mut out, 7, 0x4000, '-', &insns, &[]);
        let expected = "before\nB 7 4000 3 -\nI 1f2003d5\nI 1f2003d5\nI 5000 c3\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        let texts = [None, Some("  nop\r\n x ".to_string())];
        let mut out = Vec::new();
        append(&mut out, u64::MAX, u64::MAX, 'T', &insns, &texts);
        let expected = format!(
            "B {} ffffffffffffffff 3 T\nI 4000 1f2003d5\nI 4004 1f2003d5 nop   x\nI 5000 c3\n",
            u64::MAX
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
