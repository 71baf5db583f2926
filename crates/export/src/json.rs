//! The few JSON pieces the streaming writers need: strings (escaped by
//! serde_json), integers (itoa) and nanoseconds written as exact decimal
//! milliseconds or microseconds. The writers emit event columns directly
//! instead of building a document, so a ten-million-call session is never
//! held twice.

use std::io::{self, Write};

/// Writes `s` as a JSON string.
pub(crate) fn string(out: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(out, s).map_err(io::Error::from)
}

/// Writes an unsigned integer.
#[inline]
pub(crate) fn uint(out: &mut impl Write, n: u64) -> io::Result<()> {
    out.write_all(itoa::Buffer::new().format(n).as_bytes())
}

/// Writes `ns / 10^digits` as an exact decimal (no trailing zeros, no
/// exponent): `fraction(w, 1_234_500, 6)` writes `1.2345`.
#[inline]
pub(crate) fn fraction(out: &mut impl Write, ns: u64, digits: u32) -> io::Result<()> {
    let unit = 10u64.pow(digits);
    let (whole, mut frac) = (ns / unit, ns % unit);
    let mut b = itoa::Buffer::new();
    if frac == 0 {
        return out.write_all(b.format(whole).as_bytes());
    }
    // One write of "whole.fraction" (u64::MAX has 20 digits).
    let mut buf = [b'0'; 48];
    let w = b.format(whole).as_bytes();
    let wl = w.len();
    buf[..wl].copy_from_slice(w);
    buf[wl] = b'.';
    let mut width = digits as usize;
    while frac % 10 == 0 {
        frac /= 10;
        width -= 1;
    }
    let f = b.format(frac).as_bytes();
    let end = wl + 1 + width;
    buf[end - f.len()..end].copy_from_slice(f);
    out.write_all(&buf[..end])
}

/// Writes nanoseconds as exact decimal milliseconds.
#[inline]
pub(crate) fn ms(out: &mut impl Write, ns: u64) -> io::Result<()> {
    fraction(out, ns, 6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(ns: u64, digits: u32) -> String {
        let mut v = Vec::new();
        fraction(&mut v, ns, digits).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn decimals_are_exact_and_short() {
        assert_eq!(show(0, 6), "0");
        assert_eq!(show(1, 6), "0.000001");
        assert_eq!(show(1_234_500, 6), "1.2345");
        assert_eq!(show(5_000_000, 6), "5");
        assert_eq!(show(u64::MAX, 6), "18446744073709.551615");
        assert_eq!(show(1_050, 3), "1.05");
        for ns in [7u64, 999_999, 1_000_001, 123_456_789_012] {
            let parsed: f64 = show(ns, 6).parse().unwrap();
            assert_eq!(parsed, ns as f64 / 1e6);
        }
    }

    #[test]
    fn strings_are_escaped() {
        let mut v = Vec::new();
        string(&mut v, "a\"b\\c\nd").unwrap();
        assert_eq!(String::from_utf8(v).unwrap(), r#""a\"b\\c\nd""#);
    }
}
