//! Android's `power_profile.xml`: reading it into a
//! [`PowerProfile`] and writing one back.
//!
//! The AOSP form is a `<device name="Android">` root holding
//! `<item name="…">number</item>` and
//! `<array name="…"><value>number</value>…</array>` elements (currents in
//! mA, speeds in kHz, capacity in mAh, voltages in mV). Comments are
//! ignored. Elements of other shapes (Android 14's nested `<modem>` block,
//! vendor additions) are not read: they are counted per name in
//! [`ProfileRead::skipped`], never dropped in silence. A value that is not
//! a finite number, an item without a name or a root that is not
//! `<device>` is an error naming the file, the line and the byte offset
//! where that line starts.
//!
//! The XML itself is parsed by `roxmltree` (a small, dependency-free,
//! strict XML 1.0 parser with text positions and bounded entity
//! expansion); files are at most [`MAX_PROFILE_BYTES`].

use crate::Error;
use std::fmt::Write as _;
use std::path::Path;
use tracekit_model::power_profile::{PowerProfile, ProfileValue};

/// Largest `power_profile.xml` read (real ones are about 10 KB).
pub const MAX_PROFILE_BYTES: u64 = 4 << 20;

/// A power profile and what was not read from it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRead {
    /// The items and arrays.
    pub profile: PowerProfile,
    /// Elements of another shape, counted per element name.
    pub skipped: Vec<(String, u64)>,
}

/// True when `head` (the first bytes of a file) looks like a
/// `power_profile.xml`: XML whose first element is `<device`.
pub fn sniff_profile(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(64 << 10)]);
    let mut rest: &str = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("<?") {
            match r.find("?>") {
                Some(i) => rest = &r[i + 2..],
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix("<!--") {
            match r.find("-->") {
                Some(i) => rest = &r[i + 3..],
                None => return false,
            }
        } else {
            return rest.starts_with("<device") && rest[7..].starts_with(|c: char| c.is_whitespace() || c == '>');
        }
    }
}

/// Line (1-based) and the byte offset where that line starts, for byte `at`.
fn line_of(text: &[u8], at: usize) -> (u64, u64) {
    let at = at.min(text.len());
    let line = text[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = text[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, start as u64)
}

fn parse_error(file: &str, text: &[u8], at: usize, message: impl Into<String>) -> Error {
    let (line, offset) = line_of(text, at);
    Error::Parse {
        file: file.to_owned(),
        line,
        offset,
        message: message.into(),
    }
}

fn number(file: &str, text: &[u8], node: roxmltree::Node, what: &str) -> Result<f64, Error> {
    let raw: String = node
        .children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect();
    let t = raw.trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(parse_error(
            file,
            text,
            node.range().start,
            format!("{what}: {t:?} is not a finite number"),
        )),
    }
}

fn name_of(file: &str, text: &[u8], node: roxmltree::Node) -> Result<String, Error> {
    match node.attribute("name") {
        Some(n) if !n.trim().is_empty() => Ok(n.trim().to_owned()),
        _ => Err(parse_error(
            file,
            text,
            node.range().start,
            format!("<{}> has no name attribute", node.tag_name().name()),
        )),
    }
}

/// Reads a `power_profile.xml` from memory; `file` names it in errors.
pub fn read_profile_bytes(bytes: &[u8], file: &str) -> Result<ProfileRead, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        parse_error(
            file,
            bytes,
            e.valid_up_to(),
            format!("not UTF-8 (invalid byte at offset {})", e.valid_up_to()),
        )
    })?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        // Byte offset of the reported row and column.
        let line_start: usize = text
            .split_inclusive('\n')
            .take(pos.row.saturating_sub(1) as usize)
            .map(str::len)
            .sum();
        let col_bytes: usize = text[line_start..]
            .chars()
            .take(pos.col.saturating_sub(1) as usize)
            .map(char::len_utf8)
            .sum();
        parse_error(file, bytes, line_start + col_bytes, format!("not well-formed XML: {e}"))
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "device" {
        return Err(parse_error(
            file,
            bytes,
            root.range().start,
            format!(
                "the root element is <{}>, not <device> (not a power_profile.xml)",
                root.tag_name().name()
            ),
        ));
    }
    let mut profile = PowerProfile {
        device: root.attribute("name").map(str::to_owned),
        entries: Vec::new(),
    };
    let mut skipped: Vec<(String, u64)> = Vec::new();
    let mut skip = |name: &str| match skipped.iter_mut().find(|(k, _)| k == name) {
        Some((_, n)) => *n += 1,
        None => skipped.push((name.to_owned(), 1)),
    };
    for node in root.children().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "item" => {
                let name = name_of(file, bytes, node)?;
                let v = number(file, bytes, node, &name)?;
                profile.entries.push(entry(name, ProfileValue::Item(v)));
            }
            "array" => {
                let name = name_of(file, bytes, node)?;
                let mut values = Vec::new();
                for v in node.children().filter(|n| n.is_element()) {
                    if v.tag_name().name() == "value" {
                        values.push(number(file, bytes, v, &name)?);
                    } else {
                        skip(&format!("{} in array {name}", v.tag_name().name()));
                    }
                }
                profile.entries.push(entry(name, ProfileValue::Array(values)));
            }
            other => skip(other),
        }
    }
    Ok(ProfileRead { profile, skipped })
}

fn entry(name: String, value: ProfileValue) -> tracekit_model::power_profile::ProfileEntry {
    tracekit_model::power_profile::ProfileEntry { name, value }
}

/// Reads a `power_profile.xml`, refusing anything but a regular file and
/// files over [`MAX_PROFILE_BYTES`].
pub fn read_profile_path(path: &Path) -> Result<ProfileRead, Error> {
    let (bytes, file) = crate::read_regular(path, MAX_PROFILE_BYTES)?;
    read_profile_bytes(&bytes, &file)
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}

/// A comment's text made safe for `<!-- … -->` (no `--`, no trailing `-`).
fn comment_text(s: &str) -> String {
    let mut t = s.replace("--", "- -");
    if t.ends_with('-') {
        t.push(' ');
    }
    t
}

/// The shortest text that reads back to `v`: plain decimals between 1e-6
/// and 1e15, exponent form beyond.
fn num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || (1e-6..1e15).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Writes `profile` in AOSP's form. `header` lines become a comment at the
/// top and `note(name)` a comment after an entry (where it says where a
/// value came from). Numbers are written in the shortest form that reads
/// back to the same value, so [`read_profile_bytes`] returns `profile`.
pub fn write_profile(profile: &PowerProfile, header: &[String], note: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    if !header.is_empty() {
        out.push_str("<!--\n");
        for h in header {
            let _ = writeln!(out, "     {}", comment_text(h));
        }
        out.push_str("-->\n");
    }
    let device = profile.device.as_deref().unwrap_or("Android");
    let _ = writeln!(out, "<device name=\"{}\">", escape(device));
    for e in &profile.entries {
        let name = escape(&e.name);
        match &e.value {
            ProfileValue::Item(v) => {
                let _ = write!(out, "    <item name=\"{name}\">{}</item>", num(*v));
            }
            ProfileValue::Array(vs) => {
                let _ = writeln!(out, "    <array name=\"{name}\">");
                for v in vs {
                    let _ = writeln!(out, "      <value>{}</value>", num(*v));
                }
                out.push_str("    </array>");
            }
        }
        if let Some(n) = note(&e.name) {
            let _ = write!(out, " <!-- {} -->", comment_text(&n));
        }
        out.push('\n');
    }
    out.push_str("</device>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<!-- All values are in mA except as noted -->
<device name="Android">
  <item name="battery.capacity">2800</item>
  <array name="cpu.clusters.cores">
    <value>4</value> <!-- cluster 0 -->
    <value>4</value>
  </array>
  <item name="screen.on"> 94 </item>
  <modem><sleep>0</sleep></modem>
</device>
"#;

    #[test]
    fn reads_items_arrays_and_counts_the_rest() {
        assert!(sniff_profile(SMALL.as_bytes()));
        assert!(!sniff_profile(b"<devices/>"));
        assert!(!sniff_profile(b"# BattOr\n"));
        let r = read_profile_bytes(SMALL.as_bytes(), "p.xml").unwrap();
        assert_eq!(r.profile.device.as_deref(), Some("Android"));
        assert_eq!(r.profile.item("battery.capacity"), Some(2800.0));
        assert_eq!(r.profile.array("cpu.clusters.cores"), Some(vec![4.0, 4.0]));
        assert_eq!(r.profile.item("screen.on"), Some(94.0));
        assert_eq!(r.skipped, vec![("modem".to_owned(), 1)]);
    }

    #[test]
    fn errors_name_file_line_and_offset() {
        let bad = SMALL.replace(">94 <", ">x<").replace("> 94 <", ">ninety<");
        let e = read_profile_bytes(bad.as_bytes(), "p.xml").unwrap_err();
        let (line, offset) = (e.line().unwrap(), e.offset().unwrap());
        assert_eq!(line, 9, "{e}");
        assert_eq!(&bad.as_bytes()[offset as usize..offset as usize + 7], b"  <item");
        assert!(e.to_string().starts_with("p.xml:9: screen.on"), "{e}");
        let e = read_profile_bytes(b"<device><item>1</item></device>", "q.xml").unwrap_err();
        assert!(e.to_string().contains("no name attribute"), "{e}");
        let e = read_profile_bytes(b"<device>\n<item name='a'>1</item>\n</devic>", "q.xml").unwrap_err();
        assert_eq!(e.line(), Some(3), "{e}");
        let e = read_profile_bytes(b"<resources/>", "q.xml").unwrap_err();
        assert!(e.to_string().contains("not <device>"), "{e}");
        let e = read_profile_bytes(b"<device>\xff</device>", "q.xml").unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        let e = read_profile_bytes(b"<device><item name='a'>inf</item></device>", "q.xml").unwrap_err();
        assert!(e.to_string().contains("finite"), "{e}");
    }

    #[test]
    fn written_profiles_read_back() {
        let mut p = PowerProfile::new("tracekit <fit> & \"co\"");
        p.set_item("cpu.idle", 5.4);
        p.set_item("tiny", 1e-300);
        p.set_array("cpu.core_power.cluster0", vec![39.44, 0.1 + 0.2, 1234567.875]);
        let text = write_profile(&p, &["fitted -- by tracekit".into()], &|n| {
            (n == "cpu.idle").then(|| "from the intercept --".to_owned())
        });
        assert!(text.contains("<!-- from the intercept - -  -->"), "{text}");
        assert!(text.contains(">1e-300<"), "{text}");
        let back = read_profile_bytes(text.as_bytes(), "w.xml").unwrap();
        assert_eq!(back.profile, p);
        assert!(back.skipped.is_empty());
    }
}
