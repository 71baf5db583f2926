//! A validating scanner for JSON values, specialised for trace events.
//!
//! `serde_json` reads an event into a borrowed struct at about a third of
//! the speed this scanner does, because it validates UTF-8 of every key and
//! moves the struct through several layers. The scanner checks the JSON
//! grammar of everything it passes (strings with their escapes and no raw
//! control characters, numbers, literals, nesting up to 128 levels, as
//! `serde_json` does) and records where the fields tracekit uses are;
//! their text is converted, and its UTF-8 checked, only when used. Like
//! `serde_json` skipping a value it ignores, it does not check the UTF-8 of
//! strings it only passes over. Its tests hold it to `serde_json`: for any
//! input both accept or both reject, except that the scanner refuses
//! values nested deeper than 128 levels (it recurses; `serde_json` skips
//! ignored values of any depth but builds none deeper than that).

use std::borrow::Cow;

/// Why a value could not be scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bad {
    /// The bytes end inside the value.
    Cut,
    /// Not JSON: the offset (from the start of the scanned slice) and why.
    At(usize, String),
}

/// How deep values may nest (`serde_json`'s limit for values it builds).
const MAX_DEPTH: usize = 128;

/// A JSON string as it appears in the input, quotes included.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JsonStr<'a> {
    pub quoted: &'a [u8],
    pub escaped: bool,
}

impl<'a> JsonStr<'a> {
    /// The bytes between the quotes, escapes not decoded.
    pub(crate) fn raw(&self) -> &'a [u8] {
        &self.quoted[1..self.quoted.len() - 1]
    }

    /// The decoded text; an error for invalid UTF-8 (or an escape that is
    /// not a Unicode scalar, such as a lone surrogate).
    pub(crate) fn text(&self) -> Result<Cow<'a, str>, String> {
        if !self.escaped {
            return std::str::from_utf8(self.raw())
                .map(Cow::Borrowed)
                .map_err(|e| format!("invalid UTF-8 in a string: {e}"));
        }
        serde_json::from_slice::<String>(self.quoted)
            .map(Cow::Owned)
            .map_err(|e| {
                let text = e.to_string();
                match text.rfind(" at line ") {
                    Some(i) => text[..i].to_owned(),
                    None => text,
                }
            })
    }
}

/// The fields of an event tracekit uses, as located in the input; any
/// other member is checked and passed over.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct RawEvent<'a> {
    /// `ph`: its one byte, or 0 for a string of another length.
    pub ph: Option<u8>,
    pub name: Option<JsonStr<'a>>,
    pub cat: Option<JsonStr<'a>>,
    /// Raw JSON text of the other fields.
    pub ts: Option<&'a [u8]>,
    pub dur: Option<&'a [u8]>,
    pub tts: Option<&'a [u8]>,
    pub tdur: Option<&'a [u8]>,
    pub pid: Option<&'a [u8]>,
    pub tid: Option<&'a [u8]>,
    pub id: Option<&'a [u8]>,
    pub id2: Option<&'a [u8]>,
    pub scope: Option<&'a [u8]>,
    pub args: Option<&'a [u8]>,
}

/// Scans the event object at the start of `b` into `e` (which should start
/// empty); returns the bytes it took. `null` members count as absent, as
/// `serde_json` reads an `Option`.
pub(crate) fn event<'a>(b: &'a [u8], e: &mut RawEvent<'a>) -> Result<usize, Bad> {
    let mut i = 0;
    if b.first() != Some(&b'{') {
        return Err(Bad::At(0, "expected an event object".into()));
    }
    i += 1;
    i = ws(b, i)?;
    if b[i] == b'}' {
        return Ok(i + 1);
    }
    loop {
        if b[i] != b'"' {
            return Err(Bad::At(i, "expected a key".into()));
        }
        let (key_end, key_escaped) = string(b, i)?;
        let key: Cow<[u8]> = if key_escaped {
            // A key spelt with escapes: decode it to know which it is.
            JsonStr {
                quoted: &b[i..key_end],
                escaped: true,
            }
            .text()
            .map_err(|m| Bad::At(i, m))?
            .into_owned()
            .into_bytes()
            .into()
        } else {
            Cow::Borrowed(&b[i + 1..key_end - 1])
        };
        i = ws(b, key_end)?;
        if b[i] != b':' {
            return Err(Bad::At(i, "expected ':' after a key".into()));
        }
        i = ws(b, i + 1)?;
        let start = i;
        let end = value(b, i, 1)?;
        let raw = &b[start..end];
        let is_null = raw == b"null";
        let slot = match key.as_ref() {
            b"ph" | b"name" | b"cat" => {
                if !is_null && raw[0] != b'"' {
                    let key = String::from_utf8_lossy(&key);
                    return Err(Bad::At(start, format!("invalid type: \"{key}\" is not a string")));
                }
                None
            }
            b"ts" => Some(&mut e.ts),
            b"dur" => Some(&mut e.dur),
            b"tts" => Some(&mut e.tts),
            b"tdur" => Some(&mut e.tdur),
            b"pid" => Some(&mut e.pid),
            b"tid" => Some(&mut e.tid),
            b"id" => Some(&mut e.id),
            b"id2" => Some(&mut e.id2),
            b"scope" => Some(&mut e.scope),
            b"args" => Some(&mut e.args),
            _ => None,
        };
        if let Some(slot) = slot {
            *slot = (!is_null).then_some(raw);
        } else if !is_null {
            let s = JsonStr {
                quoted: raw,
                escaped: raw.contains(&b'\\'),
            };
            match key.as_ref() {
                b"ph" => {
                    e.ph = Some(match s.raw() {
                        [p] if *p != b'\\' => *p,
                        _ => {
                            let text = s.text().map_err(|m| Bad::At(start, m))?;
                            match text.as_bytes() {
                                [p] => *p,
                                _ => 0,
                            }
                        }
                    });
                }
                b"name" => e.name = Some(s),
                b"cat" => e.cat = Some(s),
                _ => {}
            }
        } else {
            match key.as_ref() {
                b"ph" => e.ph = None,
                b"name" => e.name = None,
                b"cat" => e.cat = None,
                _ => {}
            }
        }
        i = ws(b, end)?;
        match b[i] {
            b',' => i = ws(b, i + 1)?,
            b'}' => return Ok(i + 1),
            _ => return Err(Bad::At(i, "expected ',' or '}' after an object member".into())),
        }
    }
}

/// Checks the value starting at `b[i]` and returns where it ends.
pub(crate) fn value(b: &[u8], i: usize, depth: usize) -> Result<usize, Bad> {
    let Some(&c) = b.get(i) else {
        return Err(Bad::Cut);
    };
    match c {
        b'"' => Ok(string(b, i)?.0),
        b'{' | b'[' => container(b, i, depth),
        b't' => literal(b, i, b"true"),
        b'f' => literal(b, i, b"false"),
        b'n' => literal(b, i, b"null"),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => Err(Bad::At(i, "expected a value".into())),
    }
}

fn container(b: &[u8], mut i: usize, depth: usize) -> Result<usize, Bad> {
    if depth > MAX_DEPTH {
        return Err(Bad::At(i, format!("values nested deeper than {MAX_DEPTH} levels")));
    }
    let (object, close) = if b[i] == b'{' { (true, b'}') } else { (false, b']') };
    i = ws(b, i + 1)?;
    if b[i] == close {
        return Ok(i + 1);
    }
    loop {
        if object {
            if b[i] != b'"' {
                return Err(Bad::At(i, "expected a key".into()));
            }
            i = ws(b, string(b, i)?.0)?;
            if b[i] != b':' {
                return Err(Bad::At(i, "expected ':' after a key".into()));
            }
            i = ws(b, i + 1)?;
        }
        i = ws(b, value(b, i, depth + 1)?)?;
        if b[i] == b',' {
            i = ws(b, i + 1)?;
        } else if b[i] == close {
            return Ok(i + 1);
        } else {
            return Err(Bad::At(i, format!("expected ',' or '{}'", close as char)));
        }
    }
}

/// Skips whitespace; the next byte must exist.
fn ws(b: &[u8], mut i: usize) -> Result<usize, Bad> {
    while let Some(&c) = b.get(i) {
        if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            return Ok(i);
        }
        i += 1;
    }
    Err(Bad::Cut)
}

/// Checks the string starting at `b[i]` (a quote); returns where it ends
/// and whether it has escapes.
pub(crate) fn string(b: &[u8], i: usize) -> Result<(usize, bool), Bad> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        j = plain_run(b, j);
        let Some(&c) = b.get(j) else {
            return Err(Bad::Cut);
        };
        match c {
            b'"' => return Ok((j + 1, escaped)),
            b'\\' => {
                escaped = true;
                let Some(&e) = b.get(j + 1) else {
                    return Err(Bad::Cut);
                };
                match e {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 2,
                    b'u' => {
                        for k in 0..4 {
                            match b.get(j + 2 + k) {
                                None => return Err(Bad::Cut),
                                Some(h) if h.is_ascii_hexdigit() => {}
                                Some(_) => return Err(Bad::At(j + 2 + k, "invalid \\u escape".into())),
                            }
                        }
                        j += 6;
                    }
                    _ => return Err(Bad::At(j + 1, "invalid escape".into())),
                }
            }
            0..=0x1F => return Err(Bad::At(j, "control character in a string".into())),
            _ => j += 1,
        }
    }
}

/// The end of the run of bytes from `j` on that need no look in a string
/// (not a quote, backslash or control character), eight at a time.
fn plain_run(b: &[u8], mut j: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero iff the same byte of `zero(x)` has its high bit set
    // (exact for the lowest such byte, which is all the search needs).
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    while let Some(chunk) = b.get(j..j + 8) {
        let x = u64::from_le_bytes([
            chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
        ]);
        let quote = zero(x ^ (ONES * u64::from(b'"')));
        let backslash = zero(x ^ (ONES * u64::from(b'\\')));
        // Bytes below 0x20: (x - 0x20 per byte) borrows into the high bit
        // of bytes whose high bit was clear.
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let hits = quote | backslash | control;
        if hits != 0 {
            return j + (hits.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    j
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Result<usize, Bad> {
    for (k, &w) in word.iter().enumerate() {
        match b.get(i + k) {
            None => return Err(Bad::Cut),
            Some(&c) if c == w => {}
            Some(_) => return Err(Bad::At(i + k, "invalid literal".into())),
        }
    }
    Ok(i + word.len())
}

/// Checks a number (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`). A number that
/// reaches the end of `b` is cut: it may go on.
fn number(b: &[u8], mut i: usize) -> Result<usize, Bad> {
    let digits = |b: &[u8], mut i: usize| -> Result<(usize, usize), Bad> {
        let start = i;
        while let Some(c) = b.get(i) {
            if !c.is_ascii_digit() {
                return Ok((i, i - start));
            }
            i += 1;
        }
        Err(Bad::Cut)
    };
    if b[i] == b'-' {
        i += 1;
    }
    match b.get(i) {
        None => return Err(Bad::Cut),
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i)?.0,
        Some(_) => return Err(Bad::At(i, "invalid number".into())),
    }
    let Some(&c) = b.get(i) else {
        return Err(Bad::Cut);
    };
    if c == b'.' {
        let (end, n) = digits(b, i + 1)?;
        if n == 0 {
            return Err(Bad::At(end, "invalid number".into()));
        }
        i = end;
    }
    let Some(&c) = b.get(i) else {
        return Err(Bad::Cut);
    };
    if c == b'e' || c == b'E' {
        i += 1;
        match b.get(i) {
            None => return Err(Bad::Cut),
            Some(b'+' | b'-') => i += 1,
            Some(_) => {}
        }
        let (end, n) = digits(b, i)?;
        if n == 0 {
            return Err(Bad::At(end, "invalid number".into()));
        }
        i = end;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `serde_json` takes `b` as one value (ignoring its content).
    fn serde_accepts(b: &[u8]) -> bool {
        serde_json::from_slice::<serde::de::IgnoredAny>(b).is_ok()
    }

    /// Whether the scanner takes `b` as one value followed by whitespace.
    fn scanner_accepts(b: &[u8]) -> bool {
        let mut padded = b.to_vec();
        padded.push(b' ');
        let start = padded
            .iter()
            .position(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
            .unwrap_or(padded.len());
        match value(&padded, start, 1) {
            Ok(end) => padded[end..].iter().all(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t')),
            Err(_) => false,
        }
    }

    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\"",
        "\"a\"",
        "\"\\u12ab\"",
        "\\",
        "\\u",
        "\\n",
        "\\x",
        "0",
        "1",
        "-",
        ".",
        "e",
        "E",
        "+",
        "12.5",
        "-0",
        "01",
        "true",
        "fals",
        "null",
        "nul",
        "\t",
        "\u{1}",
        "\u{e9}",
        "\u{ff}",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The scanner accepts exactly what `serde_json` accepts.
        #[test]
        fn agrees_with_serde_json(pieces in proptest::collection::vec(proptest::sample::select(PIECES), 1..14)) {
            let text = pieces.concat();
            prop_assert_eq!(scanner_accepts(text.as_bytes()), serde_accepts(text.as_bytes()), "{:?}", text);
        }

        #[test]
        fn agrees_with_serde_json_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 1..24)) {
            prop_assert_eq!(scanner_accepts(&bytes), serde_accepts(&bytes), "{:?}", bytes);
        }
    }

    /// `serde_json` skips ignored values of any depth (it keeps its own
    /// stack); the scanner, which recurses, stops at 128 levels — the limit
    /// `serde_json` puts on values it builds.
    #[test]
    fn nesting_limit() {
        for depth in [1, 64, 128, 129, 1000] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert!(serde_accepts(text.as_bytes()));
            assert_eq!(scanner_accepts(text.as_bytes()), depth <= MAX_DEPTH, "depth {depth}");
        }
    }

    fn ok(text: &str) -> usize {
        value(text.as_bytes(), 0, 1).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    /// Form feed is whitespace to Rust's `is_ascii_whitespace` but not to
    /// JSON; proptest once found `[12, 48]` through that gap in the helper.
    #[test]
    fn form_feed_is_not_whitespace() {
        assert!(!serde_accepts(b"\x0c0"));
        assert!(!scanner_accepts(b"\x0c0"));
        assert!(!scanner_accepts(b"0\x0c"));
    }

    #[test]
    fn values() {
        assert_eq!(ok(r#""a\"b\u00e9" "#), 12);
        assert_eq!(ok("-0.5e+3,"), 7);
        assert_eq!(ok("[1, {\"a\": [true, false, null]}] "), 31);
        assert_eq!(value(b"12", 0, 1), Err(Bad::Cut));
        assert_eq!(value(b"[1, 2", 0, 1), Err(Bad::Cut));
        assert_eq!(value(b"\"ab", 0, 1), Err(Bad::Cut));
        assert!(matches!(value(b"01 ", 0, 1), Ok(1)));
        assert!(matches!(value(b"1. ", 0, 1), Err(Bad::At(2, _))));
        assert!(matches!(value(b"[1,]", 0, 1), Err(Bad::At(3, _))));
        assert!(matches!(value(b"\"a\tb\"", 0, 1), Err(Bad::At(2, _))));
        assert!(matches!(value(b"\"\\x\"", 0, 1), Err(Bad::At(2, _))));
        assert!(matches!(value(b"tru ", 0, 1), Err(Bad::At(3, _))));
        let deep = "[".repeat(200);
        assert!(matches!(value(deep.as_bytes(), 0, 1), Err(Bad::At(..))));
    }

    #[test]
    fn events() {
        let text =
            br#"{"args":{"x":[1,"}"]},"ph":"X","name":"a\"b","ts":12.5,"pid":1,"tid":"t","dur":null,"\u0063at":"c"} ,"#;
        let mut e = RawEvent::default();
        let used = event(text, &mut e).unwrap();
        assert_eq!(used, text.len() - 2);
        assert_eq!(e.ph, Some(b'X'));
        assert_eq!(e.name.unwrap().text().unwrap(), "a\"b");
        assert_eq!(e.cat.unwrap().text().unwrap(), "c");
        assert_eq!(e.ts, Some(&b"12.5"[..]));
        assert_eq!(e.tid, Some(&b"\"t\""[..]));
        assert_eq!(e.dur, None);
        assert_eq!(e.args, Some(&br#"{"x":[1,"}"]}"#[..]));
        let scan = |t: &[u8]| event(t, &mut RawEvent::default());
        assert!(matches!(scan(br#"{"ph":5}"#), Err(Bad::At(6, _))));
        assert!(matches!(scan(br#"{"ph":"X" "#), Err(Bad::Cut)));
        assert!(matches!(scan(br#"{"ph":"X"]"#), Err(Bad::At(9, _))));
        let mut e = RawEvent::default();
        assert_eq!(event(br#"{"ph":"\u0058"}"#, &mut e), Ok(15));
        assert_eq!(e.ph, Some(b'X'));
        let bad_utf8 = JsonStr {
            quoted: b"\"\xff\"",
            escaped: false,
        };
        assert!(bad_utf8.text().is_err());
    }
}
