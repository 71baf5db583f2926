//! Reading a whole capture: recognising its form, then streaming its lines
//! into an [`Importer`].

use crate::error::Error;
use crate::importer::{Importer, Outcome};
use crate::input::{is_zlib_header, Chunked, Inflate, JsStep, JsString};
use crate::line::{parse_event_line, trim};
use crate::repair;
use std::io::{self, Read};
use std::path::Path;
use tracekit_model::Session;

/// How much of the input is looked at to recognise its form.
const HEAD: usize = 64 * 1024;

/// The forms of capture this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// ftrace/atrace text (possibly after `capturing trace... done` / `TRACE:` lines).
    Text,
    /// atrace `-z` output: prefix lines, then a zlib stream at `body_at`.
    Compressed { body_at: usize, prefix_lines: u64 },
    /// systrace HTML.
    Html,
    /// Nothing at all.
    Empty,
}

pub(crate) fn detect(head: &[u8]) -> Form {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let body = crate::line::trim_start(head);
    if body.is_empty() {
        return Form::Empty;
    }
    if ["<!doctype", "<html", "<!--", "<head"]
        .iter()
        .any(|p| starts_with_ci(body, p.as_bytes()))
    {
        return Form::Html;
    }
    let mut pos = head.len() - body.len();
    let mut prefix_lines = 0;
    loop {
        let rest = &head[pos..];
        if rest.starts_with(b"capturing trace") {
            let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            // adb may glue `TRACE:` right after the dots.
            match memchr::memmem::find(&rest[..end], b"TRACE:") {
                Some(glued) => pos += glued,
                None => {
                    pos += end;
                    prefix_lines += 1;
                }
            }
            continue;
        }
        if let Some(after) = rest.strip_prefix(b"TRACE:") {
            let mut k = 0;
            while after.get(k) == Some(&b'\r') {
                k += 1;
            }
            if after.get(k) == Some(&b'\n') {
                k += 1;
            }
            if is_zlib_header(&after[k..]) {
                return Form::Compressed {
                    body_at: pos + 6 + k,
                    prefix_lines: prefix_lines + 1,
                };
            }
        }
        return Form::Text;
    }
}

fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// True when `head` (the first up to 64 KiB of an input, maybe fewer)
/// looks like something this crate reads: ftrace/atrace text (a
/// `# tracer:` header, `TRACE:` or `capturing trace` output, or a first
/// non-comment line that parses as an event line), compressed atrace
/// (`TRACE:` then a zlib header), or systrace HTML (an HTML document whose
/// head mentions `trace-data`, `linuxPerfData` or the title "Android System
/// Trace"; the trace data itself may start megabytes later).
pub fn sniff(head: &[u8]) -> bool {
    let head = &head[..head.len().min(HEAD)];
    match detect(head) {
        Form::Empty => false,
        Form::Compressed { .. } => true,
        Form::Html => ["trace-data", "linuxPerfData", "<title>Android System Trace</title>"]
            .iter()
            .any(|n| memchr::memmem::find(head, n.as_bytes()).is_some()),
        Form::Text => text_looks_like_ftrace(head),
    }
}

fn text_looks_like_ftrace(head: &[u8]) -> bool {
    let mut lines = head.split(|&c| c == b'\n').peekable();
    while let Some(raw) = lines.next() {
        let last_and_cut = lines.peek().is_none() && head.last() != Some(&b'\n');
        let l = trim(raw);
        let l = l.strip_suffix(b"\\n\\").unwrap_or(l);
        if l.is_empty() {
            continue;
        }
        if l.starts_with(b"# tracer:") || l.starts_with(b"TRACE:") || l.starts_with(b"capturing trace") {
            return true;
        }
        if l[0] == b'#' {
            continue;
        }
        return parse_event_line(l).is_ok() || (last_and_cut && head.len() >= HEAD);
    }
    false
}

/// Reads a capture from a file: ftrace/atrace text, `TRACE:` + zlib, or
/// systrace HTML. Refuses anything but a regular file (a FIFO, `/dev/zero`,
/// a directory) so reading is bounded. The file is streamed: memory is the
/// session plus a 256 KiB buffer.
pub fn read_path(path: &Path) -> Result<Session, Error> {
    read_path_with_outcome(path).map(|(s, _)| s)
}

/// [`read_path`], also saying how every line was accounted for.
pub fn read_path_with_outcome(path: &Path) -> Result<(Session, Outcome), Error> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::io(&name, e))?;
    let meta = file.metadata().map_err(|e| Error::io(&name, e))?;
    if !meta.is_file() {
        return Err(Error::unsupported(
            &name,
            "not a regular file (a FIFO, device or directory); refusing to read it",
        ));
    }
    let (mut s, o) = read_input(file, &name)?;
    s.name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(name);
    Ok((s, o))
}

/// Reads a capture held in memory; `name` names it in errors and becomes
/// the session's name.
pub fn read_bytes(bytes: &[u8], name: &str) -> Result<Session, Error> {
    read_bytes_with_outcome(bytes, name).map(|(s, _)| s)
}

/// [`read_bytes`], also saying how every line was accounted for.
pub fn read_bytes_with_outcome(bytes: &[u8], name: &str) -> Result<(Session, Outcome), Error> {
    read_input(bytes, name)
}

/// Reads a capture from any reader, streaming it.
pub fn read_input<R: Read>(reader: R, name: &str) -> Result<(Session, Outcome), Error> {
    let mut c = Chunked::new(reader);
    c.fill_to(HEAD).map_err(|e| Error::io(name, e))?;
    let mut imp = Importer::new(name);
    match detect(c.window()) {
        Form::Empty => return Err(Error::unsupported(name, "empty input: no trace lines")),
        Form::Text => text(&mut c, &mut imp)?,
        Form::Html => crate::html::read_html(&mut c, &mut imp)?,
        Form::Compressed { body_at, prefix_lines } => {
            for _ in 0..prefix_lines {
                imp.prefix_line();
            }
            c.consume(body_at);
            let body_start = c.offset;
            let inflate = Inflate::new(c.into_rest(), body_start);
            imp.inflated = true;
            let mut z = Chunked::new(inflate);
            let result = text(&mut z, &mut imp);
            let inf = z.inner();
            if let Some((offset, message)) = &inf.failure {
                return Err(Error::Compressed {
                    file: name.to_owned(),
                    offset: *offset,
                    body_start,
                    message: message.clone(),
                });
            }
            result?;
            if inf.truncated {
                imp.note(repair::COMPRESSED_TRUNCATED, 1);
            }
            if inf.trailing > 0 {
                imp.outcome.trailing_bytes = inf.trailing;
                imp.note(repair::BYTES_AFTER_BODY, inf.trailing);
            }
        }
    }
    Ok(imp.finish())
}

/// Feeds every line of a text capture. Lines ending in a literal `\n\`
/// (the legacy systrace text, a JavaScript string body) are decoded as such.
pub(crate) fn text<R: Read>(c: &mut Chunked<R>, imp: &mut Importer) -> Result<(), Error> {
    let mut js: Option<JsString> = None;
    let mut decided = false;
    let mut line_no = 0u64;
    loop {
        let l = match c.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => {
                // A JavaScript string cut inside a continued line.
                if let Some(js) = js.filter(|js| !js.line.is_empty()) {
                    imp.feed(&js.line, line_no, false)?;
                }
                return Ok(());
            }
            Err(e) => return Err(read_error(imp, line_no + 1, e)),
        };
        line_no += 1;
        let bytes = c.bytes(&l.range);
        if !decided && !trim(bytes).is_empty() {
            decided = true;
            if trim(bytes).ends_with(b"\\n\\") {
                js = Some(JsString::default());
            }
        }
        match &mut js {
            None => imp.feed(bytes, line_no, l.terminated)?,
            Some(js) => {
                let step = js.feed(bytes, l.terminated, &mut |logical: &[u8], whole| {
                    imp.feed(logical, line_no, whole)
                })?;
                if let JsStep::Ended(_) = step {
                    // The closing quote: nothing after it is trace text.
                    return Ok(());
                }
            }
        }
    }
}

/// The error for a failed read at `line`: an over-long line or I/O.
pub(crate) fn read_error(imp: &Importer, line: u64, e: io::Error) -> Error {
    // (When an inflater failed, the caller reports its offset instead.)
    if e.kind() == io::ErrorKind::InvalidData {
        return imp.line_error(line, format!("{e}: not ftrace text"));
    }
    Error::io(&imp.file, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(detect(b""), Form::Empty);
        assert_eq!(detect(b" \n"), Form::Empty);
        assert_eq!(detect(b"# tracer: nop\n"), Form::Text);
        assert_eq!(detect(b"<!DOCTYPE html>\n<html>"), Form::Html);
        assert_eq!(detect(b"<...>-12 (-----) [000] ...1 1.0: x: y"), Form::Text);
        assert_eq!(
            detect(b"TRACE:\n\x78\x9c\x01"),
            Form::Compressed {
                body_at: 7,
                prefix_lines: 1
            }
        );
        assert_eq!(
            detect(b"capturing trace... done\nTRACE:\r\n\x78\x9c"),
            Form::Compressed {
                body_at: 32,
                prefix_lines: 2
            }
        );
        assert_eq!(
            detect(b"capturing trace...TRACE:\n\x78\x9c"),
            Form::Compressed {
                body_at: 25,
                prefix_lines: 1
            }
        );
        assert_eq!(detect(b"TRACE:\n# tracer: nop\n"), Form::Text);
    }

    #[test]
    fn sniffing() {
        assert!(sniff(b"# tracer: nop\n#\n"));
        assert!(sniff(b"TRACE:\n\x78\x9c"));
        assert!(sniff(b"capturing trace... done\nTRACE:\n# tracer: nop\n"));
        assert!(sniff(
            b"# comment\n  atrace-1 [000] 1.000001: sched_wakeup: comm=a pid=1\n"
        ));
        assert!(sniff(b"# tracer: nop\\n\\\n#\\n\\\n"));
        assert!(sniff(
            b"<!DOCTYPE html>\n<html><head><title>Android System Trace</title>"
        ));
        assert!(!sniff(b"<!DOCTYPE html>\n<html><head><title>Something else</title>"));
        assert!(!sniff(b"{\"traceEvents\": []}"));
        assert!(!sniff(b"*version\n3\n"));
        assert!(!sniff(b"SLOW\x03\x00"));
        assert!(!sniff(b""));
        assert!(!sniff(b"# only comments\n"));
    }
}
