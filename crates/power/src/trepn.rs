//! Qualcomm Trepn Profiler's CSV export.
//!
//! A few preamble lines (device, date, duration), then a header row in
//! which every series is preceded by its own `Time [ms]` column (a group may
//! hold more than one series, as `Battery Power* [uW] (Raw)` and
//! `(Delta)` share one time column), then rows of samples. Each group's
//! column ends at its first empty cell; the data ends at a row with no
//! cell at all (or at text such as `System Statistics:`), and a statistics
//! block follows, which is skipped and counted (a row whose first cell
//! starts with a letter ends the data). Cells are separated by
//! commas (tabs are accepted too) and may be quoted.
//!
//! Battery series are converted to [`tracekit_model::power`]'s names and
//! SI units; `Battery Status` (Android's `BatteryManager` codes: 2
//! charging, 3 discharging, 4 not charging, 5 full) becomes the
//! [`power::BATTERY_STATUS`] item; other numeric series keep their header
//! name and unit (CPU series carry their 0-based CPU); text series become
//! string context items.

use crate::lines::{lines, number, to_ns, Ctx, Line};
use crate::Error;
use tracekit_model::{power, Clocks, ContextTrack, ContextType, ContextValue, CounterKind, CounterTrack, Session};

/// How many lines may come before the header row.
const MAX_PREAMBLE: u64 = 32;

/// Splits one CSV row; `"…"` quotes may hold the separator and `""`.
fn split_cells(text: &str, sep: char) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            c => cell.push(c),
        }
    }
    cells.push(cell.trim().to_owned());
    cells
}

/// True for a `Time [ms]` header cell (Trepn writes one or two spaces).
fn is_time_cell(cell: &str) -> bool {
    cell.starts_with("Time") && cell.contains("[ms]")
}

/// The separator of a header row, when `text` is one.
fn header_separator(text: &str) -> Option<char> {
    ['\t', ','].into_iter().find(|&sep| {
        let cells = split_cells(text, sep);
        cells.len() >= 2 && is_time_cell(&cells[0])
    })
}

/// True when one of the first lines is a Trepn header row.
pub(crate) fn sniff(head: &[u8]) -> bool {
    lines(head)
        .take(MAX_PREAMBLE as usize + 1)
        .any(|l| l.complete && header_separator(&l.text).is_some())
}

/// What a series column holds, from its header text.
#[derive(Debug, Clone)]
struct Series {
    column: usize,
    header: String,
    /// Track name in the model.
    name: String,
    /// Unit after conversion.
    unit: Option<String>,
    /// Factor from the file's unit to `unit`.
    scale: f64,
    kind: CounterKind,
    cpu: Option<u32>,
    status: bool,
    samples: Vec<(i64, String)>,
}

/// A `Time [ms]` column and the series that use it.
#[derive(Debug)]
struct Group {
    time_column: usize,
    series: Vec<Series>,
    last_ns: Option<i64>,
}

fn describe(column: usize, header: &str) -> Series {
    let (name_part, rest) = header.split_once('[').unwrap_or((header, ""));
    let (unit, suffix) = match rest.split_once(']') {
        Some((u, s)) => (u.trim(), s.trim()),
        None => ("", ""),
    };
    let base = name_part.trim().trim_end_matches('*').trim().to_owned();
    let suffix = suffix.trim_matches(|c| c == '(' || c == ')').trim();
    let lower = base.to_ascii_lowercase();
    let scaled = |u: &str| -> Option<(f64, &'static str)> {
        Some(match u {
            "uW" | "µW" => (1e-6, power::WATT),
            "mW" => (1e-3, power::WATT),
            "W" => (1.0, power::WATT),
            "uA" | "µA" => (1e-6, power::AMPERE),
            "mA" => (1e-3, power::AMPERE),
            "A" => (1.0, power::AMPERE),
            "uV" | "µV" => (1e-6, power::VOLT),
            "mV" => (1e-3, power::VOLT),
            "V" => (1.0, power::VOLT),
            _ => return None,
        })
    };
    let mut s = Series {
        column,
        header: header.to_owned(),
        name: if suffix.is_empty() {
            base.clone()
        } else {
            format!("{base} ({suffix})")
        },
        unit: (!unit.is_empty()).then(|| unit.to_owned()),
        scale: 1.0,
        kind: CounterKind::Level,
        cpu: None,
        status: false,
        samples: Vec::new(),
    };
    let battery = |want: &str, model: &str, s: &mut Series| {
        if let Some((f, u)) = scaled(unit).filter(|(_, u)| *u == want) {
            s.scale = f;
            s.unit = Some(u.to_owned());
            s.kind = CounterKind::Sampled;
            let delta = suffix.eq_ignore_ascii_case("delta");
            s.name = if delta {
                format!("{model} delta")
            } else {
                model.to_owned()
            };
        }
    };
    if lower.starts_with("battery power") {
        battery(power::WATT, power::BATTERY_POWER, &mut s);
    } else if lower.starts_with("battery current") {
        battery(power::AMPERE, power::BATTERY_CURRENT, &mut s);
    } else if lower.starts_with("battery voltage") {
        battery(power::VOLT, power::BATTERY_VOLTAGE, &mut s);
    } else if lower.starts_with("battery remaining") && unit == "%" {
        s.name = power::BATTERY_CAPACITY.to_owned();
    } else if lower.starts_with("battery temperature") && (unit == "1/10 C" || unit == "C") {
        s.name = power::BATTERY_TEMPERATURE.to_owned();
        s.unit = Some(power::DEGREE_CELSIUS.to_owned());
        s.scale = if unit == "C" { 1.0 } else { 0.1 };
        s.kind = CounterKind::Sampled;
    } else if lower == "battery status" {
        s.name = power::BATTERY_STATUS.to_owned();
        s.status = true;
    } else if let Some(n) = lower
        .strip_prefix("cpu")
        .and_then(|r| r.split(' ').next())
        .and_then(|d| d.parse::<u32>().ok())
    {
        s.cpu = n.checked_sub(1);
    }
    s
}

/// Android `BatteryManager.BATTERY_STATUS_*` codes as kernel status words.
fn status_word(code: f64) -> &'static str {
    match code as i64 {
        2 => power::STATUS_CHARGING,
        3 => power::STATUS_DISCHARGING,
        4 => power::STATUS_NOT_CHARGING,
        5 => power::STATUS_FULL,
        _ => power::STATUS_UNKNOWN,
    }
}

fn header_groups(ctx: &Ctx<'_>, line: &Line<'_>, cells: &[String]) -> Result<Vec<Group>, Error> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        if cell.is_empty() {
            continue;
        }
        if is_time_cell(cell) {
            groups.push(Group {
                time_column: i,
                series: Vec::new(),
                last_ns: None,
            });
        } else {
            let g = groups.last_mut().ok_or_else(|| {
                ctx.err(
                    line,
                    format!("column {} ({cell:?}) has no `Time [ms]` column before it", i + 1),
                )
            })?;
            g.series.push(describe(i, cell));
        }
    }
    Ok(groups)
}

/// Reads a Trepn CSV export.
pub(crate) fn read(bytes: &[u8], name: &str) -> Result<Session, Error> {
    let ctx = Ctx { file: name };
    let mut session = Session::new(name, Clocks::WALL);
    let mut all = lines(bytes);
    let mut header = None;
    for line in all.by_ref() {
        if line.complete {
            if let Some(sep) = header_separator(&line.text) {
                header = Some((line, sep));
                break;
            }
        }
        if line.number >= MAX_PREAMBLE {
            return Err(ctx.err(&line, "no `Time [ms]` header row in the first lines"));
        }
        let text = split_cells(&line.text, if line.text.contains('\t') { '\t' } else { ',' })
            .into_iter()
            .filter(|c| !c.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if !text.is_empty() {
            session.properties.push(("trepn preamble".to_owned(), text));
        }
    }
    let Some((header_line, sep)) = header else {
        return Err(Error::Parse {
            file: name.to_owned(),
            line: 1,
            offset: 0,
            message: "no `Time [ms]` header row".to_owned(),
        });
    };
    let header_cells = split_cells(&header_line.text, sep);
    let mut groups = header_groups(&ctx, &header_line, &header_cells)?;
    let mut statistics = 0u64;
    let mut in_data = true;
    for line in all {
        if !in_data {
            statistics += 1;
            continue;
        }
        let cells = split_cells(&line.text, sep);
        let first_is_text = cells[0].starts_with(|c: char| c.is_alphabetic());
        if cells.iter().all(|c| c.is_empty()) || first_is_text {
            in_data = false;
            statistics += 1;
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
        if let Some(extra) = cells
            .iter()
            .enumerate()
            .skip(header_cells.len())
            .find(|(_, c)| !c.is_empty())
        {
            return Err(ctx.err(
                &line,
                format!(
                    "cell {} lies past the header's {} columns",
                    extra.0 + 1,
                    header_cells.len()
                ),
            ));
        }
        for g in &mut groups {
            let Some(t_text) = cells.get(g.time_column).filter(|c| !c.is_empty()) else {
                continue;
            };
            let t = number(t_text)
                .and_then(|ms| to_ns(ms, 1e6))
                .ok_or_else(|| ctx.err(&line, format!("bad time {t_text:?} in column {}", g.time_column + 1)))?;
            if g.last_ns.is_some_and(|prev| t < prev) {
                return Err(ctx.err(
                    &line,
                    format!("time {t_text} ms in column {} goes backwards", g.time_column + 1),
                ));
            }
            g.last_ns = Some(t);
            for s in &mut g.series {
                if let Some(v) = cells.get(s.column).filter(|c| !c.is_empty()) {
                    s.samples.push((t, v.clone()));
                }
            }
        }
    }
    session.note_skipped("trepn statistics block line", statistics);
    for s in groups.into_iter().flat_map(|g| g.series) {
        add_series(&mut session, s);
    }
    session
        .properties
        .push(("source format".to_owned(), "Trepn Profiler CSV".to_owned()));
    Ok(session)
}

fn add_series(session: &mut Session, s: Series) {
    if s.samples.is_empty() {
        return;
    }
    let numeric: Option<Vec<f64>> = s.samples.iter().map(|(_, v)| number(v)).collect();
    match numeric {
        Some(values) if s.status => {
            let mut t = ContextTrack::new(s.name, ContextType::String);
            for ((time, _), v) in s.samples.iter().zip(values) {
                t.push(*time, ContextValue::Str(status_word(v).to_owned()));
            }
            session.context.push(t);
        }
        Some(values) => {
            let mut c = CounterTrack::new(s.name, s.unit.as_deref()).with_kind(s.kind);
            c.cpu = s.cpu;
            for ((time, _), v) in s.samples.iter().zip(values) {
                c.push(*time, v * s.scale);
            }
            session.counters.push(c);
        }
        None => {
            let mut t = ContextTrack::new(s.header.clone(), ContextType::String);
            for (time, v) in s.samples {
                t.push(time, ContextValue::Str(v));
            }
            session.context.push(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = "System\t\tApr 19, 2019 @ 02:11:30 PM\t50 sec\t\t\n\
Time [ms]\tBattery Power [uW]\tTime [ms]\tBattery Remaining (%) [%]\tTime [ms]\tBattery Status\n\
0\t1041566\t0\t23\t0\t0\n97\t2222961\t22\t23\t22\t3\n";

    #[test]
    fn reads_tab_separated_seed_rows() {
        let s = read(SEED.as_bytes(), "t.csv").unwrap();
        let p = s.counters.iter().find(|c| c.name == power::BATTERY_POWER).unwrap();
        assert_eq!(p.times, vec![0, 97_000_000]);
        assert!((p.values[1] - 2.222961).abs() < 1e-12);
        assert_eq!(p.unit.as_deref(), Some("W"));
        let cap = s.counters.iter().find(|c| c.name == power::BATTERY_CAPACITY).unwrap();
        assert_eq!(cap.times, vec![0, 22_000_000]);
        let st = s.context_track(power::BATTERY_STATUS).unwrap();
        assert_eq!(st.samples.get(1).to_string(), power::STATUS_DISCHARGING);
        assert!(s.properties.iter().any(|(_, v)| v.contains("Apr 19, 2019")));
    }

    #[test]
    fn groups_share_time_columns_and_end_at_empty_cells() {
        let csv = "a\nb\nc\n\
Time  [ms],\"Battery Power* [uW] (Raw)\",\"Battery Power* [uW] (Delta)\",Time  [ms],CPU1 Frequency [kHz],Time  [ms],Application State\n\
5,1000000,10,4,300000,1,Started\n\
10,2000000,20,,,2,Running\n\
,,,,,,\n\
System Statistics:\n\
ID,Name\n";
        let s = read(csv.as_bytes(), "x").unwrap();
        let raw = s.counters.iter().find(|c| c.name == power::BATTERY_POWER).unwrap();
        assert_eq!(raw.values, vec![1.0, 2.0]);
        let delta = s.counters.iter().find(|c| c.name == "battery power delta").unwrap();
        assert!((delta.values[1] - 20e-6).abs() < 1e-18);
        let cpu = s.counters.iter().find(|c| c.name == "CPU1 Frequency").unwrap();
        assert_eq!((cpu.cpu, cpu.len(), cpu.unit.as_deref()), (Some(0), 1, Some("kHz")));
        assert_eq!(s.context_track("Application State").unwrap().len(), 2);
        assert_eq!(s.skipped, vec![("trepn statistics block line".to_owned(), 3)]);
    }

    #[test]
    fn bad_rows_name_their_line() {
        let e = read(b"Time [ms],Battery Power [uW]\n0,1\nzero?,2\n", "t").unwrap();
        assert_eq!(e.counters[0].len(), 1, "text in the first cell ends the data");
        let e = read(b"Time [ms],Battery Power [uW]\n5,1\n4,2\n", "t").unwrap_err();
        assert_eq!(e.line(), Some(3));
        let e = read(b"Time [ms],Battery Power [uW]\n5,1,7\n", "t").unwrap_err();
        assert!(e.to_string().contains("past the header"), "{e}");
        let e = read(b"Power,Time [ms]\n", "t").unwrap_err();
        assert!(e.to_string().starts_with("t:"), "{e}");
    }

    #[test]
    fn sniffs_headers_after_a_preamble() {
        assert!(sniff(SEED.as_bytes()));
        assert!(sniff(b"Time  [ms],Battery Status\n"));
        assert!(!sniff(b"# BattOr\n"));
        assert!(!sniff(b"Time [ms]\n"));
    }
}
