//! systrace HTML: the trace text sits in `<script class="trace-data"
//! type="application/text">` blocks (one per tracing agent), or, in the
//! 2012-era viewer, in a JavaScript string `var linuxPerfData = "…\n\`.
//!
//! The file is scanned the way an HTML parser tokenises it: outside a
//! `<script>` element look for the next `<script` tag; inside one, its text
//! runs to `</script`. So the viewer's own JavaScript — which contains the
//! trace-data tag's text escaped (`application\/text`) in a regular
//! expression — is never taken for data. Blocks holding JSON (Chrome or
//! process-dump agents) are counted and skipped.

use crate::error::Error;
use crate::importer::Importer;
use crate::input::{Chunked, JsStep, JsString};
use crate::line::{parse_event_line, trim, trim_start};
use crate::read::read_error;
use std::io::{self, Read};

/// Longest `<script …>` tag read.
const MAX_TAG: usize = 4096;

pub(crate) fn read_html<R: Read>(c: &mut Chunked<R>, imp: &mut Importer) -> Result<(), Error> {
    let mut found = false;
    loop {
        let io = |e: io::Error| Error::io(&imp.file, e);
        if c.skip_past(&[b"<script"]).map_err(io)?.is_none() {
            break;
        }
        let Some(tag) = c.take_until(b'>', MAX_TAG).map_err(io)? else {
            continue;
        };
        if !tag.is_empty() && !tag[0].is_ascii_whitespace() {
            continue; // `<scripts…>`, not a script tag
        }
        if is_trace_data(&tag) {
            found |= data_block(c, imp)?;
        } else {
            found |= script_body(c, imp)?;
        }
    }
    if found {
        Ok(())
    } else {
        Err(Error::unsupported(
            &imp.file,
            "HTML without trace text (no <script class=\"trace-data\"> block with ftrace lines, no linuxPerfData)",
        ))
    }
}

/// True for the attributes of a trace-data script tag. A backslash means
/// the text came from inside JavaScript, not from a tag.
fn is_trace_data(tag: &[u8]) -> bool {
    !tag.contains(&b'\\')
        && [&b"class=\"trace-data\""[..], b"class='trace-data'", b"class=trace-data"]
            .iter()
            .any(|n| memchr::memmem::find(tag, n).is_some())
}

/// Reads one trace-data block; true when it held ftrace text.
fn data_block<R: Read>(c: &mut Chunked<R>, imp: &mut Importer) -> Result<bool, Error> {
    // The rest of the tag's line is not data (the viewer drops the newline).
    let line_no = c.newlines + 1;
    let Some((first, ended)) = c
        .next_line_before(b"</script")
        .map_err(|e| read_error(imp, line_no, e))?
    else {
        return Ok(false);
    };
    let first_bytes = c.bytes(&first.range);
    if !trim(first_bytes).is_empty() {
        if !looks_like_ftrace(first_bytes) {
            if !ended {
                skip_block(c, imp)?;
            }
            foreign(imp);
            return Ok(false);
        }
        let first_bytes = first_bytes.to_vec();
        imp.feed(&first_bytes, line_no, first.terminated)?;
        if ended {
            return Ok(true);
        }
    } else {
        if ended {
            return Ok(false);
        }
        c.fill_to(64 * 1024).map_err(|e| Error::io(&imp.file, e))?;
        let ahead = trim_start(c.window());
        if ahead.starts_with(b"</script") {
            return Ok(false);
        }
        let first_line = &ahead[..memchr::memchr(b'\n', ahead).unwrap_or(ahead.len())];
        if !looks_like_ftrace(first_line) {
            skip_block(c, imp)?;
            foreign(imp);
            return Ok(false);
        }
    }
    loop {
        let line_no = c.newlines + 1;
        let Some((l, ended)) = c
            .next_line_before(b"</script")
            .map_err(|e| read_error(imp, line_no, e))?
        else {
            return Ok(true);
        };
        let bytes = c.bytes(&l.range);
        if ended {
            if !trim(bytes).is_empty() {
                imp.feed(bytes, line_no, true)?;
            }
            return Ok(true);
        }
        imp.feed(bytes, line_no, l.terminated)?;
    }
}

fn skip_block<R: Read>(c: &mut Chunked<R>, imp: &Importer) -> Result<(), Error> {
    c.skip_past(&[b"</script"]).map_err(|e| Error::io(&imp.file, e))?;
    Ok(())
}

fn foreign(imp: &mut Importer) {
    imp.outcome.foreign_blocks += 1;
    *imp.skipped
        .entry("trace-data block (not ftrace text)".into())
        .or_insert(0) += 1;
}

/// The first line of an ftrace block: a comment, atrace output or an event.
fn looks_like_ftrace(line: &[u8]) -> bool {
    let l = trim(line);
    l.starts_with(b"#") || l.starts_with(b"TRACE:") || l.starts_with(b"capturing trace") || parse_event_line(l).is_ok()
}

/// Skips a script's text, reading the legacy `linuxPerfData` string when
/// it is assigned there; true when it was.
fn script_body<R: Read>(c: &mut Chunked<R>, imp: &mut Importer) -> Result<bool, Error> {
    let mut found = false;
    loop {
        match c
            .skip_past(&[b"</script", b"linuxPerfData"])
            .map_err(|e| Error::io(&imp.file, e))?
        {
            None | Some(0) => return Ok(found),
            Some(_) => {}
        }
        c.fill_to(64).map_err(|e| Error::io(&imp.file, e))?;
        let w = c.window();
        let after = trim_start(w);
        let Some(after_eq) = after.strip_prefix(b"=") else {
            continue;
        };
        let value = trim_start(after_eq);
        // The data string opens with a line continuation: `= "\` at the end
        // of its line. (The newer viewer's JavaScript holds the same text in
        // a regular expression, `= "\\$/`, which must not be taken for data.)
        const OPENINGS: [&[u8]; 2] = [b"\"\\\n", b"\"\\\r\n"];
        let Some(opens) = OPENINGS.iter().find(|o| value.starts_with(o)) else {
            continue;
        };
        let skip = w.len() - value.len() + opens.len();
        c.consume(skip);
        found = true;
        if legacy_string(c, imp)? {
            return Ok(true);
        }
    }
}

/// Reads the JavaScript string's lines; true when `</script` followed its
/// closing quote on the same line (the script has ended).
fn legacy_string<R: Read>(c: &mut Chunked<R>, imp: &mut Importer) -> Result<bool, Error> {
    let mut js = JsString::default();
    loop {
        let line_no = c.newlines + 1;
        let Some(l) = c.next_line().map_err(|e| read_error(imp, line_no, e))? else {
            if !js.line.is_empty() {
                imp.feed(&js.line, line_no, false)?;
            }
            return Ok(true);
        };
        let bytes = c.bytes(&l.range);
        let step = js.feed(bytes, l.terminated, &mut |logical: &[u8], whole| {
            imp.feed(logical, line_no, whole)
        })?;
        if let JsStep::Ended(at) = step {
            return Ok(memchr::memmem::find(&bytes[at..], b"</script").is_some());
        }
    }
}
