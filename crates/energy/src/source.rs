//! Finding the power tracks of a session, converting them to SI units and
//! merging tracks of the same name (one per writer).

use crate::Error;
use serde::Serialize;
use tracekit_model::{power, CounterKind, CounterTrack, Session};

/// Names of the tracks the analysis reads (the model's names by default).
#[derive(Debug, Clone, PartialEq)]
pub struct TrackNames {
    /// Battery voltage (V).
    pub voltage: String,
    /// Battery current (A, the source's sign).
    pub current: String,
    /// Power (W, positive = drawn).
    pub power: String,
    /// Energy counter (J): cumulative = consumed; otherwise energy left.
    pub energy: String,
    /// Charge counter (µAh, falls while discharging).
    pub charge: String,
    /// Battery status context item.
    pub status: String,
    /// Context items that stand for a power track when the session has no
    /// counter track of that name (see [`ContextAlias`]).
    pub context_aliases: Vec<ContextAlias>,
}

/// A numeric context item read as a power track: seed 000's context logger
/// logs the battery under its own labels and Android's units, and a `.clog`
/// carries no units, so the alias states them.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextAlias {
    /// The context item's label.
    pub label: String,
    /// The track it stands for (one of [`TrackNames`]' names).
    pub track: String,
    /// The item's unit (`mV`, `µA`, …).
    pub unit: String,
    /// The current's sign convention its source documents, if it is a current.
    pub sign: Option<crate::CurrentSign>,
}

impl ContextAlias {
    /// The aliases tracekit knows: Android's `BatteryManager` as seed 000's
    /// logger reports it: `Battery voltage` in mV (`EXTRA_VOLTAGE`) and
    /// `Battery current` in µA (`BATTERY_PROPERTY_CURRENT_NOW`, documented
    /// as negative while the battery discharges).
    pub fn android_logger() -> Vec<ContextAlias> {
        vec![
            ContextAlias {
                label: "Battery voltage".to_owned(),
                track: power::BATTERY_VOLTAGE.to_owned(),
                unit: "mV".to_owned(),
                sign: None,
            },
            ContextAlias {
                label: "Battery current".to_owned(),
                track: power::BATTERY_CURRENT.to_owned(),
                unit: "µA".to_owned(),
                sign: Some(crate::CurrentSign::NegativeIsDischarge),
            },
        ]
    }
}

impl Default for TrackNames {
    fn default() -> TrackNames {
        TrackNames {
            voltage: power::BATTERY_VOLTAGE.to_owned(),
            current: power::BATTERY_CURRENT.to_owned(),
            power: power::BATTERY_POWER.to_owned(),
            energy: power::BATTERY_ENERGY.to_owned(),
            charge: power::BATTERY_CHARGE.to_owned(),
            status: power::BATTERY_STATUS.to_owned(),
            context_aliases: ContextAlias::android_logger(),
        }
    }
}

/// Samples of one quantity, in SI units (µAh for charge), merged over all
/// tracks of that name in time order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Series {
    pub name: String,
    pub unit: String,
    pub kind: CounterKind,
    pub times: Vec<i64>,
    pub values: Vec<f64>,
    /// Writer of each sample, when its track names a process.
    pub pids: Vec<Option<u32>>,
    /// How many tracks were merged.
    pub tracks: usize,
    /// The context alias it was read from, when no counter track had the name.
    pub alias: Option<ContextAlias>,
}

impl Series {
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Distinct writers.
    pub fn writers(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.pids.iter().flatten().copied().collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Linear interpolation at `t` (clamped to the ends).
    pub fn value_at(&self, t: i64) -> Option<f64> {
        let n = self.times.len();
        if n == 0 {
            return None;
        }
        let i = self.times.partition_point(|&x| x <= t);
        if i == 0 {
            return Some(self.values[0]);
        }
        if i == n {
            return Some(self.values[n - 1]);
        }
        let (t0, t1) = (self.times[i - 1], self.times[i]);
        let f = (t - t0) as f64 / (t1 - t0) as f64;
        Some(self.values[i - 1] + (self.values[i] - self.values[i - 1]) * f)
    }

    /// Mean of |value| over time (left-hold), or the plain mean of one sample.
    pub fn mean_abs(&self) -> f64 {
        let n = self.times.len();
        if n == 0 {
            return 0.0;
        }
        let span = (self.times[n - 1] - self.times[0]) as f64;
        if span <= 0.0 {
            return self.values.iter().map(|v| v.abs()).sum::<f64>() / n as f64;
        }
        (1..n)
            .map(|k| self.values[k - 1].abs() * (self.times[k] - self.times[k - 1]) as f64)
            .sum::<f64>()
            / span
    }
}

/// Factor from `unit` to the SI `base` (`V`, `A`, `W`, `J`), or to µAh for
/// charge (`base` = `µAh`). `None` means the track did not say; the model's
/// unit is assumed.
fn factor(unit: Option<&str>, base: &str) -> Option<f64> {
    let Some(u) = unit.map(str::trim).filter(|u| !u.is_empty()) else {
        return Some(1.0);
    };
    let (symbol, scale_to_base) = if base == power::MICRO_AMPERE_HOUR {
        ("Ah", 1e6)
    } else {
        (base, 1.0)
    };
    let prefix = u.strip_suffix(symbol)?;
    let p = match prefix {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e-3,
        "u" | "µ" | "μ" => 1e-6,
        "n" => 1e-9,
        _ => return None,
    };
    Some(p * scale_to_base)
}

/// The numeric context item an alias names, as a series in `base` units.
fn alias_series(session: &Session, name: &str, base: &str, aliases: &[ContextAlias]) -> Result<Option<Series>, Error> {
    for a in aliases.iter().filter(|a| a.track == name) {
        let Some(t) = session.context_track(&a.label).filter(|t| !t.is_empty()) else {
            continue;
        };
        let f = factor(Some(&a.unit), base).ok_or_else(|| Error::Unit {
            track: a.label.clone(),
            unit: a.unit.clone(),
            want: base.to_owned(),
        })?;
        let mut values = Vec::with_capacity(t.len());
        for i in 0..t.len() {
            match t.samples.get_f64(i) {
                Some(v) if v.is_finite() => values.push(v * f),
                Some(_) => return Err(Error::NonFinite { track: a.label.clone() }),
                None => break, // a string item: not a number track
            }
        }
        if values.len() != t.len() {
            continue;
        }
        if t.times.windows(2).any(|w| w[1] < w[0]) {
            return Err(Error::Unsorted { track: a.label.clone() });
        }
        let mut times = t.times.clone();
        // An int or long item is logged when it changes and holds its value
        // (seed 000 §6.6): the last one lasts as long as the log does.
        if !t.kind().is_continuous() {
            let log_end = session.context.iter().filter_map(|c| c.times.last().copied()).max();
            if let (Some(end), Some(&last), Some(&v)) = (log_end, times.last(), values.last()) {
                if end > last {
                    times.push(end);
                    values.push(v);
                }
            }
        }
        return Ok(Some(Series {
            name: a.label.clone(),
            unit: base.to_owned(),
            kind: CounterKind::Sampled,
            times,
            pids: vec![None; values.len()],
            values,
            tracks: 1,
            alias: Some(a.clone()),
        }));
    }
    Ok(None)
}

/// All non-empty counter tracks named `name`, merged in time order and
/// converted to `base` units; without any, the context item an alias names.
pub(crate) fn series_or_alias(
    session: &Session,
    name: &str,
    base: &str,
    aliases: &[ContextAlias],
) -> Result<Series, Error> {
    let s = series(session, name, base)?;
    if !s.is_empty() {
        return Ok(s);
    }
    Ok(alias_series(session, name, base, aliases)?.unwrap_or(s))
}

/// All non-empty counter tracks named `name`, merged in time order and
/// converted to `base` units.
pub(crate) fn series(session: &Session, name: &str, base: &str) -> Result<Series, Error> {
    let tracks: Vec<&CounterTrack> = session
        .counters
        .iter()
        .filter(|c| c.name == name && !c.is_empty())
        .collect();
    let mut s = Series {
        name: name.to_owned(),
        unit: base.to_owned(),
        tracks: tracks.len(),
        ..Series::default()
    };
    let mut rows: Vec<(i64, f64, Option<u32>)> = Vec::new();
    for t in &tracks {
        let f = factor(t.unit.as_deref(), base).ok_or_else(|| Error::Unit {
            track: name.to_owned(),
            unit: t.unit.clone().unwrap_or_default(),
            want: base.to_owned(),
        })?;
        s.kind = t.kind;
        rows.extend(t.times.iter().zip(&t.values).map(|(&time, &v)| (time, v * f, t.pid)));
    }
    if tracks.len() > 1 {
        rows.sort_by_key(|r| r.0);
    }
    if rows.iter().any(|r| !r.1.is_finite()) {
        return Err(Error::NonFinite { track: name.to_owned() });
    }
    if rows.windows(2).any(|w| w[1].0 < w[0].0) {
        return Err(Error::Unsorted { track: name.to_owned() });
    }
    s.times = rows.iter().map(|r| r.0).collect();
    s.values = rows.iter().map(|r| r.1).collect();
    s.pids = rows.iter().map(|r| r.2).collect();
    Ok(s)
}

/// A track the analysis used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceTrack {
    /// Track name.
    pub track: String,
    /// What it was used for: `voltage`, `current`, `power`, `energy`,
    /// `charge`, `status`.
    pub role: String,
    /// Unit the values were converted to.
    pub unit: String,
    /// Number of samples.
    pub samples: usize,
    /// First and last sample, µs on the session timeline.
    pub from_us: f64,
    /// Last sample, µs.
    pub to_us: f64,
    /// Number of tracks of that name merged (one per writer).
    pub tracks: usize,
}

impl SourceTrack {
    pub(crate) fn of(s: &Series, role: &str) -> SourceTrack {
        SourceTrack {
            track: s.name.clone(),
            role: role.to_owned(),
            unit: s.unit.clone(),
            samples: s.times.len(),
            from_us: s.times.first().map_or(0.0, |&t| t as f64 * 1e-3),
            to_us: s.times.last().map_or(0.0, |&t| t as f64 * 1e-3),
            tracks: s.tracks,
        }
    }
}

/// `V(t)·k·I(t)` at every instant where either track has a sample, within
/// the span both cover, each track linear between its samples.
pub(crate) fn product(v: &Series, i: &Series, k: f64) -> (Vec<i64>, Vec<f64>) {
    let (Some(&v0), Some(&i0)) = (v.times.first(), i.times.first()) else {
        return (Vec::new(), Vec::new());
    };
    let lo = v0.max(i0);
    let hi = (*v.times.last().unwrap()).min(*i.times.last().unwrap());
    if v.times == i.times {
        return (
            v.times.clone(),
            v.values.iter().zip(&i.values).map(|(a, b)| a * k * b).collect(),
        );
    }
    let mut times: Vec<i64> = v
        .times
        .iter()
        .chain(&i.times)
        .copied()
        .filter(|&t| t >= lo && t <= hi)
        .collect();
    times.sort_unstable();
    times.dedup();
    let values = times
        .iter()
        .map(|&t| v.value_at(t).unwrap_or(0.0) * k * i.value_at(t).unwrap_or(0.0))
        .collect();
    (times, values)
}

/// A cumulative counter's consumed total: deltas that survive wraps
/// (`wrap` = the range it wraps at) and resets. Returns the running total
/// and the number of wraps and resets seen. A counter that is not
/// [`CounterKind::Cumulative`] holds what is *left* (it falls as energy is
/// drawn), so its deltas are negated and never wrap.
pub(crate) fn unwrap_counter(s: &Series, wrap: Option<f64>) -> (Vec<f64>, usize, usize) {
    let cumulative = s.kind == CounterKind::Cumulative;
    let mut total = Vec::with_capacity(s.values.len());
    let (mut wraps, mut resets) = (0, 0);
    let mut acc = 0.0;
    for k in 0..s.values.len() {
        if k > 0 {
            let mut d = s.values[k] - s.values[k - 1];
            if !cumulative {
                d = -d;
            } else if d < 0.0 {
                match wrap {
                    Some(range) if range > 0.0 => {
                        d += range;
                        wraps += 1;
                    }
                    _ => {
                        d = s.values[k];
                        resets += 1;
                    }
                }
            }
            acc += d;
        }
        total.push(acc);
    }
    (total, wraps, resets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::Clocks;

    #[test]
    fn units_convert() {
        assert_eq!(factor(Some("mV"), "V"), Some(1e-3));
        assert_eq!(factor(Some("µA"), "A"), Some(1e-6));
        assert_eq!(factor(Some("mAh"), power::MICRO_AMPERE_HOUR), Some(1e3));
        assert_eq!(factor(Some("µAh"), power::MICRO_AMPERE_HOUR), Some(1.0));
        assert_eq!(factor(Some("kJ"), "J"), Some(1e3));
        assert_eq!(factor(None, "W"), Some(1.0));
        assert_eq!(factor(Some("Hz"), "W"), None);
    }

    #[test]
    fn tracks_of_one_name_merge_in_time_order() {
        let mut s = Session::new("s", Clocks::WALL);
        for (pid, t0) in [(1, 0), (2, 5)] {
            let mut c = CounterTrack::new(power::BATTERY_VOLTAGE, Some("mV"));
            c.pid = Some(pid);
            c.push(t0, 4000.0);
            c.push(t0 + 10, 4100.0);
            s.counters.push(c);
        }
        let v = series(&s, power::BATTERY_VOLTAGE, "V").unwrap();
        assert_eq!(v.times, vec![0, 5, 10, 15]);
        assert_eq!(v.pids, vec![Some(1), Some(2), Some(1), Some(2)]);
        assert_eq!(v.writers(), vec![1, 2]);
        assert!((v.values[0] - 4.0).abs() < 1e-12);
        s.counters[0].unit = Some("Hz".into());
        assert!(series(&s, power::BATTERY_VOLTAGE, "V").is_err());
    }

    #[test]
    fn products_on_a_union_timeline() {
        let v = Series {
            times: vec![0, 10],
            values: vec![4.0, 4.0],
            ..Series::default()
        };
        let i = Series {
            times: vec![5, 10, 20],
            values: vec![1.0, 2.0, 3.0],
            ..Series::default()
        };
        let (t, p) = product(&v, &i, -1.0);
        assert_eq!(t, vec![5, 10]);
        assert_eq!(p, vec![-4.0, -8.0]);
    }

    #[test]
    fn counters_unwrap() {
        let s = Series {
            kind: CounterKind::Cumulative,
            times: vec![0, 1, 2, 3],
            values: vec![90.0, 98.0, 4.0, 10.0],
            ..Series::default()
        };
        assert_eq!(unwrap_counter(&s, Some(100.0)), (vec![0.0, 8.0, 14.0, 20.0], 1, 0));
        assert_eq!(unwrap_counter(&s, None), (vec![0.0, 8.0, 12.0, 18.0], 0, 1));
        let left = Series {
            kind: CounterKind::Level,
            values: vec![10.0, 9.0, 7.0, 7.0],
            ..s
        };
        assert_eq!(unwrap_counter(&left, None).0, vec![0.0, 1.0, 3.0, 3.0]);
    }
}
