//! The block log's `B`/`I` record of a new block (see [`crate::recorder`]
//! for the format), formatted by hand: this runs for every block a process
//! translates, some 100,000 times in a JVM's start-up. The record is
//! formatted in place at the end of the mapped log: its room is made once,
//! from an upper bound of its length, and every field is then stored
//! through a cursor, with no capacity check or copy per number or byte.

use crate::recorder::InsnBytes;

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// An upper bound of the length of [`write`]'s record.
pub fn room(insns: &[InsnBytes<'_>], texts: &[Option<String>]) -> usize {
    // "B " + 20 digits + " " + 16 + " " + 20 + " " + mode + "\n" fits in 64;
    // "I " + 16 + " " + the bytes' hex + " " + text + "\n" per instruction.
    64 + insns
        .iter()
        .enumerate()
        .map(|(i, insn)| 21 + 2 * insn.bytes.len() + text(texts, i).map_or(0, |t| 1 + t.len()))
        .sum::<usize>()
}

fn text(texts: &[Option<String>], i: usize) -> Option<&str> {
    texts.get(i).and_then(|t| t.as_deref())
}

/// Stores at the start of `out`, which holds at least [`room`] bytes, the
/// record of a new block: its slot, address, instruction count and ISA
/// mode, then one line per instruction, with QEMU's disassembly `texts[i]`
/// where there is one (`texts` may be shorter than `insns`, or empty).
/// Returns the record's length.
pub fn write(
    out: &mut [u8],
    slot: u64,
    vaddr: u64,
    mode: char,
    insns: &[InsnBytes<'_>],
    texts: &[Option<String>],
) -> usize {
    let mut w = Cursor { buf: out, at: 0 };
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
        let disas = text(texts, i);
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
    w.at
}

/// Every byte's two lowercase hex digits.
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [HEX_DIGITS[b >> 4], HEX_DIGITS[b & 15]];
        b += 1;
    }
    pairs
};

/// Stores bytes one after another into room made beforehand. Each number
/// takes its slice of the room at once and fills it, so there is one
/// bounds check per field rather than one per byte.
struct Cursor<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn byte(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    /// The next `n` bytes of the room, now counted as written.
    fn take(&mut self, n: usize) -> &mut [u8] {
        let at = self.at;
        self.at += n;
        &mut self.buf[at..at + n]
    }

    fn put(&mut self, bytes: &[u8]) {
        self.take(bytes.len()).copy_from_slice(bytes);
    }

    /// `v` in lowercase hex without leading zeros (as `{:x}`).
    fn hex_number(&mut self, mut v: u64) {
        let digits = (64 - v.leading_zeros()).div_ceil(4).max(1) as usize;
        for d in self.take(digits).iter_mut().rev() {
            *d = HEX_DIGITS[(v & 15) as usize];
            v >>= 4;
        }
    }

    /// `v` in decimal (as `{}`).
    fn dec(&mut self, mut v: u64) {
        let digits = v.checked_ilog10().map_or(1, |l| l as usize + 1);
        for d in self.take(digits).iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }

    /// `bytes` as lowercase hex, two digits each.
    fn hex(&mut self, bytes: &[u8]) {
        for (pair, &b) in self.take(2 * bytes.len()).chunks_exact_mut(2).zip(bytes) {
            pair.copy_from_slice(&HEX_PAIRS[usize::from(b)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appends to `out` the record of a new block, as the log gets it.
    fn append(out: &mut Vec<u8>, slot: u64, vaddr: u64, mode: char, insns: &[InsnBytes<'_>], texts: &[Option<String>]) {
        let start = out.len();
        out.resize(start + room(insns, texts), 0);
        let len = write(&mut out[start..], slot, vaddr, mode, insns, texts);
        out.truncate(start + len);
    }

    #[test]
    fn hand_written_numbers_match_the_formatter() {
        for v in (0..20)
            .flat_map(|e| [10u64.pow(e) - 1, 10u64.pow(e)])
            .chain((0..64).map(|s| 1u64 << s))
            .chain([0, 15, 255, 4095, 0xdead_beef, u64::MAX, 12_345_678_901])
        {
            let mut buf = [0u8; 41];
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
