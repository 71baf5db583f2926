//! The file's outer structure: an array of events, or an object whose
//! `traceEvents` holds them, next to `metadata`, `displayTimeUnit`,
//! `stackFrames`, `samples` and whatever else a tool adds. Events stream
//! through the builder one at a time; other large values are skipped
//! without being held.

use crate::build::Builder;
use crate::error::Error;
use crate::input::{parse_owned, parse_prefix, Input, Parsed};
use crate::scan;
use std::borrow::Cow;
use std::io::Read;
use tracekit_model::Session;

/// How deep skipped values may nest.
const MAX_DEPTH: usize = 128;

/// Whether a part was read to its end or the input ended inside it.
#[derive(PartialEq, Eq)]
enum Done {
    Complete,
    Cut,
}

/// Reads a whole trace from `reader`; `file` names it in errors and
/// `session` is the session's name.
pub(crate) fn read_trace<R: Read>(reader: R, file: &str, session: &str) -> Result<Session, Error> {
    let mut input = Input::new(reader, file);
    let mut b = Builder::new();
    input.skip_bom()?;
    let done = match input.peek()? {
        None => return Err(input.error_here("empty input: no Chrome JSON trace")),
        Some(b'[') => {
            input.bump();
            events(&mut input, &mut b, true)?
        }
        Some(b'{') => {
            input.bump();
            object(&mut input, &mut b)?
        }
        Some(c) => {
            return Err(input.error_here(format!(
                "expected '[' or '{{' at the start of a Chrome JSON trace, found {}",
                show(c)
            )))
        }
    };
    if done == Done::Complete {
        if let Some(c) = input.peek()? {
            return Err(input.error_here(format!("unexpected {} after the end of the trace", show(c))));
        }
    }
    Ok(crate::finish::finish(b, session))
}

/// The elements of an event array, after its `[`. In the array form the
/// closing `]` may be missing (the format allows it): that is no repair;
/// an input that ends inside an event, or inside the object form, is.
fn events<R: Read>(input: &mut Input<R>, b: &mut Builder, array_form: bool) -> Result<Done, Error> {
    loop {
        match input.peek()? {
            None => {
                if !array_form {
                    b.truncated(input.offset());
                }
                return Ok(Done::Cut);
            }
            Some(b']') => {
                input.bump();
                return Ok(Done::Complete);
            }
            Some(b'{') => {
                let start = input.offset();
                let parsed = input.value(|slice, _| {
                    let mut e = scan::RawEvent::default();
                    let used = scan::event(slice, &mut e)?;
                    Ok((b.event(&e), used))
                })?;
                match parsed {
                    Parsed::Value(Ok(())) => {}
                    Parsed::Value(Err(message)) => return Err(input.error_at(start, message)),
                    Parsed::Truncated(at) => {
                        b.truncated(at);
                        return Ok(Done::Cut);
                    }
                }
            }
            Some(c) => return Err(input.error_here(format!("expected an event object, found {}", show(c)))),
        }
        match input.peek()? {
            Some(b',') => input.bump(),
            Some(b']') => {
                input.bump();
                return Ok(Done::Complete);
            }
            None => {
                if !array_form {
                    b.truncated(input.offset());
                }
                return Ok(Done::Cut);
            }
            Some(c) => return Err(input.error_here(format!("expected ',' or ']' after an event, found {}", show(c)))),
        }
    }
}

/// The members of the object form, after its `{`.
fn object<R: Read>(input: &mut Input<R>, b: &mut Builder) -> Result<Done, Error> {
    loop {
        match input.peek()? {
            None => return Ok(cut(input, b)),
            Some(b'}') => {
                input.bump();
                return Ok(Done::Complete);
            }
            Some(b'"') => {}
            Some(c) => return Err(input.error_here(format!("expected a key or '}}', found {}", show(c)))),
        }
        let key = match input.value(|s, more| parse_prefix::<Cow<str>>(s, more).map(|(k, n)| (k.into_owned(), n)))? {
            Parsed::Value(k) => k,
            Parsed::Truncated(at) => {
                b.truncated(at);
                return Ok(Done::Cut);
            }
        };
        match input.peek()? {
            Some(b':') => input.bump(),
            None => return Ok(cut(input, b)),
            Some(c) => return Err(input.error_here(format!("expected ':' after \"{key}\", found {}", show(c)))),
        }
        let Some(first) = input.peek()? else {
            return Ok(cut(input, b));
        };
        let done = match (key.as_str(), first) {
            ("traceEvents", b'[') => {
                input.bump();
                events(input, b, false)?
            }
            ("traceEvents", _) => return Err(input.error_here("\"traceEvents\" is not an array")),
            ("metadata" | "otherData", _) => match input.value(parse_owned::<serde_json::Value>)? {
                Parsed::Value(v) => {
                    b.metadata(v);
                    Done::Complete
                }
                Parsed::Truncated(at) => {
                    b.truncated(at);
                    Done::Cut
                }
            },
            ("displayTimeUnit", _) => match input.value(parse_owned::<serde_json::Value>)? {
                Parsed::Value(v) => {
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    b.property("displayTimeUnit", text);
                    Done::Complete
                }
                Parsed::Truncated(at) => {
                    b.truncated(at);
                    Done::Cut
                }
            },
            (other, c) => {
                // `samples` is an array, `stackFrames` an object: count their
                // members; anything else counts once.
                let counted = (other == "samples" && c == b'[') || (other == "stackFrames" && c == b'{');
                let (done, members) = skip(input, b, 0)?;
                b.skip(other, if counted { members } else { 1 });
                done
            }
        };
        if done == Done::Cut {
            return Ok(Done::Cut);
        }
        match input.peek()? {
            Some(b',') => input.bump(),
            Some(b'}') => {
                input.bump();
                return Ok(Done::Complete);
            }
            None => return Ok(cut(input, b)),
            Some(c) => return Err(input.error_here(format!("expected ',' or '}}', found {}", show(c)))),
        }
    }
}

fn cut<R: Read>(input: &Input<R>, b: &mut Builder) -> Done {
    b.truncated(input.offset());
    Done::Cut
}

/// Skips one value without holding containers or strings whole; returns
/// whether it ended and how many members a container had.
fn skip<R: Read>(input: &mut Input<R>, b: &mut Builder, depth: usize) -> Result<(Done, u64), Error> {
    if depth > MAX_DEPTH {
        return Err(input.error_here(format!("values nested deeper than {MAX_DEPTH} levels")));
    }
    let Some(first) = input.peek()? else {
        return Ok((cut(input, b), 0));
    };
    let close = match first {
        b'"' => {
            if input.skip_string()? {
                return Ok((Done::Complete, 0));
            }
            return Ok((cut(input, b), 0));
        }
        b'[' => b']',
        b'{' => b'}',
        _ => {
            return match input.value(parse_owned::<serde::de::IgnoredAny>)? {
                Parsed::Value(_) => Ok((Done::Complete, 0)),
                Parsed::Truncated(at) => {
                    b.truncated(at);
                    Ok((Done::Cut, 0))
                }
            };
        }
    };
    input.bump();
    let mut members = 0u64;
    loop {
        match input.peek()? {
            None => return Ok((cut(input, b), members)),
            Some(c) if c == close => {
                input.bump();
                return Ok((Done::Complete, members));
            }
            Some(_) => {}
        }
        if close == b'}' {
            match input.peek()? {
                Some(b'"') => {
                    if !input.skip_string()? {
                        return Ok((cut(input, b), members));
                    }
                }
                Some(c) => return Err(input.error_here(format!("expected a key, found {}", show(c)))),
                None => return Ok((cut(input, b), members)),
            }
            match input.peek()? {
                Some(b':') => input.bump(),
                None => return Ok((cut(input, b), members)),
                Some(c) => return Err(input.error_here(format!("expected ':', found {}", show(c)))),
            }
        }
        if skip(input, b, depth + 1)?.0 == Done::Cut {
            return Ok((Done::Cut, members));
        }
        members += 1;
        match input.peek()? {
            Some(b',') => input.bump(),
            Some(c) if c == close => {}
            None => return Ok((cut(input, b), members)),
            Some(c) => return Err(input.error_here(format!("expected ',' or '{}', found {}", close as char, show(c)))),
        }
    }
}

/// A byte for a message: the character when printable ASCII, else its value.
fn show(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else {
        format!("byte 0x{c:02x}")
    }
}
