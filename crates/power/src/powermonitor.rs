//! Battery Historian's power-monitor file: one reading per line,
//! `unix_seconds amps`, as a Monsoon monitor's `monsoon.py -timestamp`
//! prints it. Further numbers on a line are ignored (Historian does the
//! same).
//!
//! Timestamps are either all whole seconds or all fractional. With whole
//! seconds a monitor prints several readings per second; like Historian,
//! the readings of one second are spread evenly over that second. The
//! session's anchor is the first whole second; the timeline counts from it.
//! The device draws its current from the monitor, so positive current is
//! consumption ([`power::CURRENT_SIGN_PROPERTY`]).

use crate::lines::{lines, number, Ctx, Line};
use crate::Error;
use tracekit_model::{power, Clocks, CounterKind, CounterTrack, Session};

/// Parsed `seconds[.fraction] amps`: whole seconds, nanoseconds into the
/// second, whether a fraction was written, and the amps.
fn parse_line(text: &str) -> Option<(i64, i64, bool, f64)> {
    let mut fields = text.split_whitespace();
    let stamp = fields.next()?;
    let amps = number(fields.next()?)?;
    for extra in fields {
        number(extra)?;
    }
    let (whole, frac) = match stamp.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (stamp, None),
    };
    if whole.is_empty() || whole.len() > 10 || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = whole.parse().ok().filter(|&s: &i64| s < 9_000_000_000)?;
    let mut ns = 0i64;
    if let Some(f) = frac {
        if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits: String = f.chars().chain(std::iter::repeat('0')).take(9).collect();
        ns = digits.parse().ok()?;
    }
    Some((secs, ns, frac.is_some(), amps))
}

/// True when the first non-blank lines look like `unix_seconds amps` with a
/// plausible Unix time (1998 to 2128).
pub(crate) fn sniff(head: &[u8]) -> bool {
    let mut seen = 0;
    for line in lines(head) {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        if !line.complete && seen > 0 {
            break;
        }
        match parse_line(text) {
            Some((secs, ..)) if (900_000_000..5_000_000_000).contains(&secs) => seen += 1,
            _ => return false,
        }
        if seen == 5 {
            break;
        }
    }
    seen > 0
}

/// Reads a power-monitor file.
pub(crate) fn read(bytes: &[u8], name: &str) -> Result<Session, Error> {
    let ctx = Ctx { file: name };
    let mut readings: Vec<(i64, i64, f64)> = Vec::new();
    let mut fractional: Option<bool> = None;
    let mut session = Session::new(name, Clocks::WALL);
    let mut last: Option<Line<'_>> = None;
    for line in lines(bytes) {
        let text = line.text.trim();
        if text.is_empty() {
            continue;
        }
        if !line.complete {
            session.note_repair(
                "unterminated-last-line",
                1,
                "the last line has no line ending and may have been cut; it was left out",
            );
            break;
        }
        let (secs, ns, has_frac, amps) =
            parse_line(text).ok_or_else(|| ctx.err(&line, "expected `unix_seconds amps`"))?;
        match fractional {
            Some(f) if f != has_frac => {
                return Err(ctx.err(
                    &line,
                    "timestamps mix whole and fractional seconds (Battery Historian refuses that too)",
                ))
            }
            _ => fractional = Some(has_frac),
        }
        if readings.last().is_some_and(|&(s, n, _)| (secs, ns) < (s, n)) {
            return Err(ctx.err(&line, format!("time {text:.24} goes backwards")));
        }
        readings.push((secs, ns, amps));
        last = Some(line);
    }
    let Some(&(first_secs, ..)) = readings.first() else {
        return Err(Error::Parse {
            file: name.to_owned(),
            line: last.map_or(1, |l| l.number),
            offset: 0,
            message: "no readings".to_owned(),
        });
    };
    let mut current = CounterTrack::new(power::BATTERY_CURRENT, Some(power::AMPERE)).with_kind(CounterKind::Sampled);
    let rel = |secs: i64, ns: i64| (secs - first_secs) * 1_000_000_000 + ns;
    if fractional == Some(true) {
        for &(s, n, a) in &readings {
            current.push(rel(s, n), a);
        }
    } else {
        let mut i = 0;
        while i < readings.len() {
            let secs = readings[i].0;
            let n = readings[i..].iter().take_while(|r| r.0 == secs).count();
            for (k, r) in readings[i..i + n].iter().enumerate() {
                current.push(rel(secs, 0) + 1_000_000_000 * k as i64 / n as i64, r.2);
            }
            i += n;
        }
    }
    session.anchor_unix_ns = first_secs.checked_mul(1_000_000_000);
    session.properties.push((
        power::CURRENT_SIGN_PROPERTY.to_owned(),
        power::SIGN_POSITIVE_IS_DISCHARGE.to_owned(),
    ));
    session.properties.push((
        "source format".to_owned(),
        "power monitor (unix seconds, amps)".to_owned(),
    ));
    session.counters.push(current);
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_seconds_are_spread_like_historian() {
        // Battery Historian's "readings per second increases" case.
        let text = b"1433786060 0.003811\n1433786060 0.003791\n1433786061 0.003811\n1433786061 0.003791\n\
1433786062 0.017514\n1433786062 0.005186\n1433786062 0.003810\n";
        let s = read(text, "pm").unwrap();
        let c = &s.counters[0];
        assert_eq!(s.anchor_unix_ns, Some(1_433_786_060_000_000_000));
        assert_eq!(
            c.times[..5],
            [0, 500_000_000, 1_000_000_000, 1_500_000_000, 2_000_000_000]
        );
        assert_eq!(c.times[5], 2_333_333_333);
        assert!((c.values[4] - 0.017514).abs() < 1e-15);
    }

    #[test]
    fn fractional_seconds_and_extra_columns() {
        let s = read(b"1433786060.0 0.004262 0.004262\n1433786060.25 -0.004737 1\n", "pm").unwrap();
        assert_eq!(s.counters[0].times, vec![0, 250_000_000]);
        assert_eq!(s.counters[0].values[1], -0.004737);
    }

    #[test]
    fn refuses_mixed_modes_and_garbage() {
        let e = read(b"1433786060 0.1\n1433786060.1 0.1\n", "pm").unwrap_err();
        assert_eq!(e.line(), Some(2));
        let e = read(b"1433786060 0.1\n1433786060 badstring\n", "pm").unwrap_err();
        assert!(e.to_string().starts_with("pm:2:"), "{e}");
    }

    #[test]
    fn sniff_wants_unix_times() {
        assert!(sniff(b"1433786060 0.004262\n1433786060 0.004737\n"));
        assert!(!sniff(b"0.00 6.5 4307.7\n"));
        assert!(!sniff(b"# BattOr\n"));
        assert!(!sniff(b"Time [ms],x\n"));
    }
}
