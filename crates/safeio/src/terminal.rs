//! Escaping text for a terminal.

use std::borrow::Cow;

/// True for characters a terminal could obey instead of show: C0 and C1
/// controls, DEL, and the Unicode bidirectional overrides and isolates
/// (which can make a line read differently from what it holds).
fn dangerous(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_into(out: &mut String, s: &str, keep: impl Fn(char) -> bool) {
    for c in s.chars() {
        if dangerous(c) && !keep(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

/// One name made safe to print: every control character (line breaks and
/// tabs included) is written as a Rust-style escape such as `\u{1b}` or `\n`.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(dangerous) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(&mut out, s, |_| false);
    Cow::Owned(out)
}

/// A multi-line text made safe to print: control characters are escaped as
/// by [`terminal`], but line breaks (`\n`) and tabs stay.
pub fn terminal_lines(s: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t';
    if !s.chars().any(|c| dangerous(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    escape_into(&mut out, s, keep);
    Cow::Owned(out)
}
