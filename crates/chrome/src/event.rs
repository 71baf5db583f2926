//! One trace event as it appears in the file, borrowed from the input, and
//! the conversions of its fields (µs times to exact ns, ids, arguments).
//!
//! Numbers are kept as raw JSON text and converted here:
//! decimal µs become integer ns without going through `f64`, so
//! `1234567890.123` is exactly 1,234,567,890,123 ns, and a value written
//! with three decimals reads back to the nanosecond.

use serde::de::{MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A string field, borrowed when it has no escapes.
#[derive(Debug, Deserialize)]
pub(crate) struct Text<'a>(#[serde(borrow)] pub Cow<'a, str>);

/// `id2`: an async id that says whether it is process-local or global.
#[derive(Debug, Deserialize)]
pub(crate) struct Id2<'a> {
    #[serde(borrow, default)]
    pub local: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub global: Option<&'a RawValue>,
}

/// The arguments of `M` events.
#[derive(Debug, Deserialize)]
pub(crate) struct MetaArgs<'a> {
    #[serde(borrow, default)]
    pub name: Option<Text<'a>>,
    #[serde(borrow, default)]
    pub sort_index: Option<&'a RawValue>,
}

/// The one argument of `E` events tracekit reads: `unwind: true` marks an
/// exit by exception (tracekit's own export writes it).
#[derive(Debug, Deserialize)]
pub(crate) struct EndArgs<'a> {
    #[serde(borrow, default)]
    pub unwind: Option<&'a RawValue>,
}

/// All arguments of an event in file order, values unparsed (counters).
pub(crate) struct ArgList<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for ArgList<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ArgList<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of arguments")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ArgList<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some((Text(k), v)) = map.next_entry::<Text<'de>, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(ArgList(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The bytes of a raw value with the quotes of a JSON string removed (a
/// string without escapes; `None` for a string that has escapes), and
/// blanks around a string's text.
fn unquoted(raw: &[u8]) -> Option<&[u8]> {
    let Some(inner) = raw.strip_prefix(b"\"") else {
        return Some(raw);
    };
    let inner = inner.strip_suffix(b"\"")?;
    if inner.contains(&b'\\') {
        return None;
    }
    Some(inner.trim_ascii())
}

/// A time in µs (a JSON number, or a string holding one) as integer ns,
/// rounded to the nearest ns. `None` when it is not a number or does not
/// fit.
pub(crate) fn micros_to_ns(raw: &[u8]) -> Option<i64> {
    parse_micros(unquoted(raw)?)
}

/// [`micros_to_ns`] on the number's text, in one pass: whole µs, then up
/// to three decimals for the ns, the fourth rounding; an exponent falls
/// back to `f64`.
pub(crate) fn parse_micros(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let mut whole: i64 = 0;
    let mut i = 0;
    while let Some(&c) = digits.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        whole = whole.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
        i += 1;
    }
    let mut any = i > 0;
    let mut frac: i64 = 0;
    let mut round_up = false;
    if digits.get(i) == Some(&b'.') {
        i += 1;
        let mut n = 0;
        while let Some(&c) = digits.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            let d = i64::from(c - b'0');
            if n < 3 {
                frac = frac * 10 + d;
            } else if n == 3 {
                round_up = d >= 5;
            }
            n += 1;
            i += 1;
            any = true;
        }
        for _ in n..3 {
            frac *= 10;
        }
    }
    if matches!(digits.get(i), Some(b'e' | b'E')) {
        let v: f64 = std::str::from_utf8(b).ok()?.parse().ok()?;
        let ns = (v * 1000.0).round();
        return (ns.is_finite() && ns.abs() < 9.0e18).then_some(ns as i64);
    }
    if i != digits.len() || !any {
        return None;
    }
    let ns = whole.checked_mul(1000)?.checked_add(frac + i64::from(round_up))?;
    Some(if neg { -ns } else { ns })
}

/// A process or thread id: a JSON integer, or a string. Strings that hold
/// an integer count as that integer; other strings get a stable 31-bit
/// hash and are returned as the name to show.
pub(crate) fn parse_id(raw: &[u8]) -> Option<(i64, Option<String>)> {
    if let Some(v) = small_int(raw) {
        return Some((v, None));
    }
    if raw.starts_with(b"\"") {
        let s: String = serde_json::from_slice(raw).ok()?;
        if let Ok(v) = s.trim().parse::<i64>() {
            return Some((v, None));
        }
        return Some((i64::from(fnv1a(s.as_bytes()) as u32 & 0x7FFF_FFFF), Some(s)));
    }
    let t = std::str::from_utf8(raw).ok()?;
    if let Ok(v) = t.parse::<i64>() {
        return Some((v, None));
    }
    if let Ok(v) = t.parse::<u64>() {
        return Some((v as i64, None));
    }
    let f: f64 = t.parse().ok()?;
    (f.fract() == 0.0 && f.abs() < 9.0e18).then_some((f as i64, None))
}

/// A non-negative integer of up to 18 digits, the common case of ids.
fn small_int(raw: &[u8]) -> Option<i64> {
    if raw.is_empty() || raw.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in raw {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(c - b'0');
    }
    Some(v)
}

/// An async id's text (`"0x1f"` or `31`) as the pairing key, and as a
/// number: hexadecimal `0x…`, decimal, or a hash of any other text.
pub(crate) fn async_id(raw: &[u8]) -> (String, u64) {
    let text = match serde_json::from_slice::<String>(raw) {
        Ok(s) => s,
        Err(_) => String::from_utf8_lossy(raw).into_owned(),
    };
    let t = text.trim();
    let num = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Ok(v) = t.parse::<u64>() {
        Some(v)
    } else {
        t.parse::<i64>().ok().map(|v| v as u64)
    };
    let n = num.unwrap_or_else(|| fnv1a(t.as_bytes()));
    (text, n)
}

/// A counter argument's value: a number, or a string holding one.
pub(crate) fn counter_value(raw: &RawValue) -> Option<f64> {
    let t = std::str::from_utf8(unquoted(raw.get().as_bytes())?).ok()?;
    let v: f64 = t.parse().ok()?;
    v.is_finite().then_some(v)
}

/// 64-bit FNV-1a, for ids given as arbitrary text.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(t: &str) -> &[u8] {
        t.as_bytes()
    }

    #[test]
    fn micros_are_exact_ns() {
        assert_eq!(parse_micros(b"1234567890.123"), Some(1_234_567_890_123));
        assert_eq!(parse_micros(b"0.5"), Some(500));
        assert_eq!(parse_micros(b"7"), Some(7_000));
        assert_eq!(parse_micros(b"-2.25"), Some(-2_250));
        assert_eq!(parse_micros(b"1.0005"), Some(1_001));
        assert_eq!(parse_micros(b"1.0004999"), Some(1_000));
        assert_eq!(parse_micros(b"1.5e3"), Some(1_500_000));
        assert_eq!(parse_micros(b"12."), Some(12_000));
        assert_eq!(parse_micros(b""), None);
        assert_eq!(parse_micros(b"-"), None);
        assert_eq!(parse_micros(b"1x"), None);
        assert_eq!(parse_micros(b"99999999999999999999"), None);
        assert_eq!(micros_to_ns(raw("\"42.5\"")), Some(42_500));
        assert_eq!(micros_to_ns(raw("true")), None);
        assert_eq!(micros_to_ns(raw("null")), None);
    }

    #[test]
    fn ids_numbers_and_strings() {
        assert_eq!(parse_id(raw("259")), Some((259, None)));
        assert_eq!(parse_id(raw("\"17\"")), Some((17, None)));
        assert_eq!(parse_id(raw("-1")), Some((-1, None)));
        let (n, name) = parse_id(raw("\"Browser\"")).unwrap();
        assert!(n >= 0);
        assert_eq!(name.as_deref(), Some("Browser"));
        assert_eq!(parse_id(raw("1.5")), None);
        assert_eq!(parse_id(raw("{}")), None);
        assert_eq!(async_id(raw("\"0x1f\"")), ("0x1f".to_owned(), 31));
        assert_eq!(async_id(raw("31")).1, 31);
        let two = RawValue::from_string("\"2.5\"".into()).unwrap();
        assert_eq!(counter_value(&two), Some(2.5));
        let x = RawValue::from_string("\"x\"".into()).unwrap();
        assert_eq!(counter_value(&x), None);
    }
}
