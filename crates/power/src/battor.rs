//! BattOr power-monitor text, as catapult's BattOr agent writes it:
//!
//! ```text
//! # BattOr
//! # voltage_range [-6079.7, 6196.8] mV
//! # current_range [-6057.3, 5764.1] mA
//! # sample_rate 10000 Hz, gain 10.1x
//! 0.00 6.5 4307.7
//! ```
//!
//! Each data row is `time_ms current_mA voltage_mV`, optionally followed by
//! a clock-sync id. Current is positive while the device draws from the
//! monitor (negative while charging), which the session records under
//! [`power::CURRENT_SIGN_PROPERTY`].

use crate::lines::{lines, number, to_ns, Ctx};
use crate::Error;
use tracekit_model::{power, Clocks, CounterKind, CounterTrack, Session};

/// True when the text starts with the `# BattOr` header.
pub(crate) fn sniff(head: &[u8]) -> bool {
    let head = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    let text = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&head[..0], |i| &head[i..]);
    text.starts_with(b"# BattOr")
}

/// Reads a BattOr text file.
pub(crate) fn read(bytes: &[u8], name: &str) -> Result<Session, Error> {
    let ctx = Ctx { file: name };
    let mut session = Session::new(name, Clocks::WALL);
    let mut current = CounterTrack::new(power::BATTERY_CURRENT, Some(power::AMPERE)).with_kind(CounterKind::Sampled);
    let mut voltage = CounterTrack::new(power::BATTERY_VOLTAGE, Some(power::VOLT)).with_kind(CounterKind::Sampled);
    let mut saw_header = false;
    let mut last_line = None;
    for line in lines(bytes) {
        let text = line.text.trim();
        last_line = Some(line.clone());
        if text.is_empty() {
            continue;
        }
        if let Some(comment) = text.strip_prefix('#') {
            let comment = comment.trim();
            if comment == "BattOr" {
                saw_header = true;
            } else if let Some((key, value)) = comment.split_once(char::is_whitespace) {
                session
                    .properties
                    .push((format!("battor {key}"), value.trim().to_owned()));
            }
            continue;
        }
        if !saw_header {
            return Err(ctx.err(&line, "data before the `# BattOr` header"));
        }
        if !line.complete {
            session.note_repair(
                "unterminated-last-line",
                1,
                "the last line has no line ending and may have been cut; it was left out",
            );
            break;
        }
        let mut fields = text.split_whitespace();
        let mut next = |what: &str| {
            fields.next().and_then(number).ok_or_else(|| {
                ctx.err(
                    &line,
                    format!("expected `time_ms current_mA voltage_mV`, bad or missing {what}"),
                )
            })
        };
        let t_ms = next("time")?;
        let ma = next("current")?;
        let mv = next("voltage")?;
        if let Some(sync) = text.split_whitespace().nth(3) {
            session
                .properties
                .push(("battor sync".to_owned(), format!("{sync} at {t_ms} ms")));
        }
        if text.split_whitespace().nth(4).is_some() {
            return Err(ctx.err(&line, "more than four fields on a BattOr data row"));
        }
        let t = to_ns(t_ms, 1e6).ok_or_else(|| ctx.err(&line, "time out of range"))?;
        if current.times.last().is_some_and(|&prev| t < prev) {
            return Err(ctx.err(&line, format!("time {t_ms} ms goes backwards")));
        }
        current.push(t, ma * 1e-3);
        voltage.push(t, mv * 1e-3);
    }
    if current.is_empty() {
        let message = if saw_header {
            "no samples after the header"
        } else {
            "no `# BattOr` header"
        };
        return Err(match last_line {
            Some(l) => ctx.err(&l, message),
            None => Error::Parse {
                file: name.to_owned(),
                line: 1,
                offset: 0,
                message: message.to_owned(),
            },
        });
    }
    session.properties.push((
        power::CURRENT_SIGN_PROPERTY.to_owned(),
        power::SIGN_POSITIVE_IS_DISCHARGE.to_owned(),
    ));
    session
        .properties
        .push(("source format".to_owned(), "BattOr text".to_owned()));
    session.duration_ns = Some((current.times[current.len() - 1] - current.times[0]).max(0) as u64);
    session.counters.push(voltage);
    session.counters.push(current);
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_and_header() {
        let s = read(
            b"# BattOr\n# sample_rate 10000 Hz, gain 10.1x\n0.00 6.5 4307.7\n0.10 -15.1 4313.7 <7>\n",
            "b",
        )
        .unwrap();
        let i = &s.counters[1];
        assert_eq!(i.name, power::BATTERY_CURRENT);
        assert_eq!(i.times, vec![0, 100_000]);
        assert!((i.values[1] + 0.0151).abs() < 1e-12);
        assert!((s.counters[0].values[0] - 4.3077).abs() < 1e-12);
        assert!(s
            .properties
            .iter()
            .any(|(k, v)| k == "battor sample_rate" && v.starts_with("10000 Hz")));
        assert!(s
            .properties
            .iter()
            .any(|(k, v)| k == "battor sync" && v == "<7> at 0.1 ms"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = read(b"# BattOr\n0.0 1 2\nx 1 2\n", "f.txt").unwrap_err();
        assert_eq!((e.line(), e.offset()), (Some(3), Some(17)));
        assert!(e.to_string().starts_with("f.txt:3:"), "{e}");
        let e = read(b"# BattOr\n0.2 1 2\n0.1 1 2\n", "f").unwrap_err();
        assert!(e.to_string().contains("backwards"));
    }

    #[test]
    fn a_cut_last_line_is_left_out() {
        let s = read(b"# BattOr\n0.0 1 2\n0.1 1 4", "f").unwrap();
        assert_eq!(s.counters[0].len(), 1);
        assert_eq!(s.repairs[0].code, "unterminated-last-line");
    }

    #[test]
    fn sniffs_the_header_only() {
        assert!(sniff(b"# BattOr\n"));
        assert!(sniff(b"\n  # BattOr\n"));
        assert!(!sniff(b"0.0 1 2\n"));
    }
}
