//! The battery history of `dumpsys batterystats` (human-readable form).
//!
//! ```text
//! Battery History (0% used, 84 used of 256KB, 3 strings using 134):
//!                     0 (9) RESET:TIME: 2016-07-17-22-21-06
//!                     0 (2) 100 status=full health=good plug=none temp=370 volt=4317 +running
//!              +3s487ms (2) 100 +screen
//! ```
//!
//! Each entry is a time since the history began (`0`, `+1m02s345ms`), a
//! command number in parentheses, then the battery level (percent) and the
//! state that changed: `status=`, `temp=` (tenths of a degree), `volt=`
//! (mV), `charge=` (mAh, newer Android), flags switched on or off (`+screen`,
//! `-wake_lock`) and other `key=value` items. Level, voltage, temperature
//! and charge become counter tracks (held until the next entry), `status=`
//! the [`power::BATTERY_STATUS`] item. Flags and other items are counted per
//! name in [`Session::skipped`], as are the lines outside the history
//! (per-app statistics): those are not read yet.

use crate::lines::{lines, number, Ctx, Line};
use crate::Error;
use tracekit_model::{power, Clocks, ContextTrack, ContextType, ContextValue, CounterTrack, Session};

/// True when the head holds a batterystats dump.
pub(crate) fn sniff(head: &[u8]) -> bool {
    lines(head).take(400).any(|l| {
        let t = l.text.trim_start();
        t.starts_with("Battery History (")
            || t.starts_with("DUMP OF SERVICE batterystats")
            || t.starts_with("Statistics since last charge:")
    })
}

/// Parses `0`, `+3s487ms`, `+1h02m03s004ms`, `+2d1h` into ns.
fn history_time(token: &str) -> Option<i64> {
    if token == "0" {
        return Some(0);
    }
    let mut rest = token.strip_prefix('+')?;
    if rest.is_empty() {
        return None;
    }
    let mut ns: i64 = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 9 {
            return None;
        }
        let value: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit_ns, len) = if rest.starts_with("ms") {
            (1_000_000, 2)
        } else {
            let unit = match rest.as_bytes().first()? {
                b'd' => 86_400_000_000_000,
                b'h' => 3_600_000_000_000,
                b'm' => 60_000_000_000,
                b's' => 1_000_000_000,
                _ => return None,
            };
            (unit, 1)
        };
        rest = &rest[len..];
        ns = ns.checked_add(value.checked_mul(unit_ns)?)?;
    }
    Some(ns)
}

/// batterystats' `status=` words as kernel status words.
fn status_word(word: &str) -> &'static str {
    match word {
        "charging" => power::STATUS_CHARGING,
        "discharging" => power::STATUS_DISCHARGING,
        "not-charging" => power::STATUS_NOT_CHARGING,
        "full" => power::STATUS_FULL,
        _ => power::STATUS_UNKNOWN,
    }
}

struct Tracks {
    level: CounterTrack,
    volt: CounterTrack,
    temp: CounterTrack,
    charge: CounterTrack,
    status: ContextTrack,
}

impl Tracks {
    fn new() -> Tracks {
        Tracks {
            level: CounterTrack::new(power::BATTERY_CAPACITY, Some("%")),
            volt: CounterTrack::new(power::BATTERY_VOLTAGE, Some(power::VOLT)),
            temp: CounterTrack::new(power::BATTERY_TEMPERATURE, Some(power::DEGREE_CELSIUS)),
            charge: CounterTrack::new(power::BATTERY_CHARGE, Some(power::MICRO_AMPERE_HOUR)),
            status: ContextTrack::new(power::BATTERY_STATUS, ContextType::String),
        }
    }
}

/// Pushes a value when it differs from the track's last one.
fn set(track: &mut CounterTrack, t: i64, v: f64) {
    if track.values.last() != Some(&v) {
        track.push(t, v);
    }
}

fn entry(
    ctx: &Ctx<'_>,
    line: &Line<'_>,
    t: i64,
    rest: &[&str],
    tracks: &mut Tracks,
    session: &mut Session,
) -> Result<(), Error> {
    let Some((&first, items)) = rest.split_first() else {
        return Err(ctx.err(line, "history entry without level or command"));
    };
    if first.contains(':') || !first.bytes().all(|b| b.is_ascii_digit()) {
        let command = first.split(':').next().unwrap_or(first);
        if first.starts_with("TIME:") || first.starts_with("RESET:TIME:") {
            let when = line.text.split("TIME:").nth(1).unwrap_or("").trim();
            session.properties.push((
                "batterystats clock".to_owned(),
                format!("{when} at +{} ms", t / 1_000_000),
            ));
        }
        session.note_skipped(&format!("batterystats history command {command}"), 1);
        return Ok(());
    }
    let level = number(first).ok_or_else(|| ctx.err(line, "bad battery level"))?;
    set(&mut tracks.level, t, level);
    for item in items {
        let bad = |what: &str| ctx.err(line, format!("bad {what} in {item:?}"));
        match item.split_once('=') {
            Some(("volt", v)) => set(&mut tracks.volt, t, number(v).ok_or_else(|| bad("voltage"))? * 1e-3),
            Some(("temp", v)) => set(&mut tracks.temp, t, number(v).ok_or_else(|| bad("temperature"))? * 0.1),
            Some(("charge", v)) => set(&mut tracks.charge, t, number(v).ok_or_else(|| bad("charge"))? * 1e3),
            Some(("status", v)) => {
                let word = status_word(v).to_owned();
                let last = tracks.status.len().checked_sub(1).map(|i| tracks.status.samples.get(i));
                if last != Some(ContextValue::Str(word.clone())) {
                    tracks.status.push(t, ContextValue::Str(word));
                }
            }
            Some((key, _)) => session.note_skipped(&format!("batterystats history {key}"), 1),
            None => {
                let flag = item.trim_start_matches(['+', '-']);
                session.note_skipped(&format!("batterystats history {flag}"), 1);
            }
        }
    }
    Ok(())
}

/// Reads the battery history of a batterystats dump.
pub(crate) fn read(bytes: &[u8], name: &str) -> Result<Session, Error> {
    let ctx = Ctx { file: name };
    let mut session = Session::new(name, Clocks::WALL);
    let mut tracks = Tracks::new();
    let mut in_history = false;
    let mut found = false;
    let mut outside = 0u64;
    let mut last_t = 0i64;
    for line in lines(bytes) {
        let trimmed = line.text.trim();
        if trimmed.starts_with("Battery History (") {
            in_history = true;
            found = true;
            continue;
        }
        if in_history {
            let tokens: Vec<&str> = trimmed.split_whitespace().collect();
            let t = tokens.first().and_then(|tok| history_time(tok));
            if let (Some(t), Some(cmd)) = (t, tokens.get(1)) {
                if cmd.starts_with('(') && cmd.ends_with(')') {
                    if !line.complete {
                        session.note_repair(
                            "unterminated-last-line",
                            1,
                            "the last line has no line ending and may have been cut; it was left out",
                        );
                        break;
                    }
                    if t < last_t {
                        return Err(ctx.err(&line, "history time goes backwards"));
                    }
                    last_t = t;
                    entry(&ctx, &line, t, &tokens[2..], &mut tracks, &mut session)?;
                    continue;
                }
            }
            in_history = false;
        }
        if !trimmed.is_empty() {
            outside += 1;
        }
    }
    if !found {
        return Err(Error::Unsupported {
            file: name.to_owned(),
            what: "a batterystats dump without a `Battery History` section (dump it with `dumpsys batterystats --history`)"
                .to_owned(),
        });
    }
    session.note_skipped("batterystats line outside the battery history (not read yet)", outside);
    let Tracks {
        level,
        volt,
        temp,
        charge,
        status,
    } = tracks;
    for c in [volt, level, temp, charge] {
        if !c.is_empty() {
            session.counters.push(c);
        }
    }
    if !status.is_empty() {
        session.context.push(status);
    }
    session.duration_ns = Some(last_t as u64);
    session
        .properties
        .push(("source format".to_owned(), "dumpsys batterystats history".to_owned()));
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_times() {
        assert_eq!(history_time("0"), Some(0));
        assert_eq!(history_time("+3s487ms"), Some(3_487_000_000));
        assert_eq!(history_time("+1m02s345ms"), Some(62_345_000_000));
        assert_eq!(history_time("+1h00m00s001ms"), Some(3_600_001_000_000));
        assert_eq!(history_time("+"), None);
        assert_eq!(history_time("+3x"), None);
        assert_eq!(history_time("12"), None);
    }

    #[test]
    fn reads_entries() {
        let text = "Battery History (0% used):\n\
                    0 (9) RESET:TIME: 2016-07-17-22-21-06\n\
                    0 (2) 100 status=discharging temp=370 volt=4317 +running\n\
             +1m02s (2) 099 volt=4300 charge=2650 -running\n\
\n\
Per-PID Stats:\n";
        let s = read(text.as_bytes(), "bs").unwrap();
        let v = s.counters.iter().find(|c| c.name == power::BATTERY_VOLTAGE).unwrap();
        assert_eq!(v.times, vec![0, 62_000_000_000]);
        assert!((v.values[1] - 4.3).abs() < 1e-12);
        let cap = s.counters.iter().find(|c| c.name == power::BATTERY_CAPACITY).unwrap();
        assert_eq!(cap.values, vec![100.0, 99.0]);
        let q = s.counters.iter().find(|c| c.name == power::BATTERY_CHARGE).unwrap();
        assert_eq!(q.values, vec![2_650_000.0]);
        assert_eq!(
            s.context_track(power::BATTERY_STATUS)
                .unwrap()
                .samples
                .get(0)
                .to_string(),
            "Discharging"
        );
        assert!(s
            .skipped
            .iter()
            .any(|(k, n)| k == "batterystats history running" && *n == 2));
        assert!(s
            .properties
            .iter()
            .any(|(k, v)| k == "batterystats clock" && v.starts_with("2016-07-17")));
    }

    #[test]
    fn without_history_it_says_so() {
        let e = read(b"Statistics since last charge:\n", "bs").unwrap_err();
        assert!(e.to_string().contains("not supported yet"), "{e}");
        let e = read(b"Battery History (1%):\n  0 (2) 100 volt=x\n", "bs").unwrap_err();
        assert_eq!(e.line(), Some(2));
    }
}
