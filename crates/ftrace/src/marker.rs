//! Payloads that carry meaning of their own: atrace markers written through
//! `trace_marker` (`tracing_mark_write: B|pid|name`, the old `0: …` form),
//! atrace's clock-sync markers, and seed 002's power samples.
//!
//! Marker phases, as Android's `ATRACE_*` macros and Perfetto's importer
//! define them:
//!
//! | payload | meaning |
//! |---|---|
//! | `B\|pid\|name` | a slice begins on the writing thread |
//! | `E`, `E\|pid` | the writing thread's innermost slice ends |
//! | `C\|pid\|name\|value[\|category]` | a counter of process `pid` takes `value` |
//! | `S\|pid\|name\|cookie`, `F\|…` | an async slice of process `pid` begins / ends (paired by name and cookie) |
//! | `G\|pid\|track\|name\|cookie`, `H\|pid\|track\|[name\|]cookie` | the same on a named track |
//! | `I\|pid\|name` | an instant on the writing thread |
//! | `N\|pid\|track\|name` | an instant on a named track of process `pid` |
//! | `trace_event_clock_sync: parent_ts=S` | CLOCK_MONOTONIC, in seconds, when the marker was written |
//! | `trace_event_clock_sync: realtime_ts=MS` | CLOCK_REALTIME, in ms, when the marker was written |
//! | `trace_event_clock_sync: name=ID` | a sync point shared with another agent (BattOr, Chrome) |

use crate::line::{field, parse_i64, parse_u32, parse_u64};
use memchr::memchr;

/// One atrace marker payload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AtraceMarker<'a> {
    /// `B|pid|name`.
    Begin {
        /// Process of the writer.
        pid: u32,
        /// Slice name (`[empty slice name]` when empty, as Perfetto shows it).
        name: &'a [u8],
    },
    /// `E`, `E|pid` (anything after the pid is ignored).
    End,
    /// `C|pid|name|value`.
    Counter {
        /// Process the counter belongs to.
        pid: u32,
        /// Counter name.
        name: &'a [u8],
        /// Value (atrace writes integers; decimals are accepted too).
        value: f64,
    },
    /// `S|pid|name|cookie` (`end = false`) or `F|pid|name|cookie` (`end = true`).
    Async {
        /// Process.
        pid: u32,
        /// Slice name.
        name: &'a [u8],
        /// Pairs begin and end.
        cookie: i64,
        /// True for `F`.
        end: bool,
    },
    /// `G|pid|track|name|cookie` (begin) or `H|pid|track|[name|]cookie` (end; `name` empty).
    Track {
        /// Process.
        pid: u32,
        /// Track name.
        track: &'a [u8],
        /// Slice name (empty for `H`).
        name: &'a [u8],
        /// Pairs begin and end on the track.
        cookie: i64,
        /// True for `H`.
        end: bool,
    },
    /// `I|pid|name`: an instant on the writing thread.
    Instant {
        /// Process.
        pid: u32,
        /// Name.
        name: &'a [u8],
    },
    /// `N|pid|track|name`: an instant on a named track.
    TrackInstant {
        /// Process.
        pid: u32,
        /// Track name.
        track: &'a [u8],
        /// Name.
        name: &'a [u8],
    },
    /// `trace_event_clock_sync: …`.
    ClockSync(ClockSync<'a>),
    /// Anything else: free text written to `trace_marker`.
    Text(&'a [u8]),
}

/// An atrace clock-sync marker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockSync<'a> {
    /// `parent_ts=S`: CLOCK_MONOTONIC in ns (atrace formats a 32-bit float,
    /// so on a device up for days only a few digits are significant).
    ParentTs(u64),
    /// `realtime_ts=MS`: CLOCK_REALTIME in ms since the Unix epoch.
    RealtimeMs(i64),
    /// `name=ID`: a sync id another agent recorded too.
    Name(&'a [u8]),
}

/// Why a payload that looks like a marker is not a valid one.
pub type MarkerError = &'static str;

/// Parses an atrace marker payload. `Err` means it starts like a marker
/// (`B|`, `C|`, `trace_event_clock_sync:` …) but its fields are wrong.
pub fn parse_marker(payload: &[u8]) -> Result<AtraceMarker<'_>, MarkerError> {
    if let Some(rest) = payload.strip_prefix(b"trace_event_clock_sync:") {
        return parse_clock_sync(rest).map(AtraceMarker::ClockSync);
    }
    let phase = match payload {
        [p, b'|', ..] => *p,
        [b'E'] => return Ok(AtraceMarker::End),
        _ => return Ok(AtraceMarker::Text(payload)),
    };
    let mut fields = Fields(&payload[2..]);
    match phase {
        b'B' => {
            let pid = pid(fields.next())?;
            let name = fields.rest();
            let name = if name.is_empty() {
                &b"[empty slice name]"[..]
            } else {
                name
            };
            Ok(AtraceMarker::Begin { pid, name })
        }
        b'E' => Ok(AtraceMarker::End),
        b'C' => {
            let pid = pid(fields.next())?;
            let name = nonempty(fields.next())?;
            let v = fields.next().ok_or("counter without a value")?;
            let value = number(v).ok_or("counter value is not a number")?;
            Ok(AtraceMarker::Counter { pid, name, value })
        }
        b'S' | b'F' => {
            let pid = pid(fields.next())?;
            let name = nonempty(fields.next())?;
            let cookie = cookie(fields.next())?;
            Ok(AtraceMarker::Async {
                pid,
                name,
                cookie,
                end: phase == b'F',
            })
        }
        b'G' => {
            let pid = pid(fields.next())?;
            let track = nonempty(fields.next())?;
            let name = nonempty(fields.next())?;
            let cookie = cookie(fields.next())?;
            Ok(AtraceMarker::Track {
                pid,
                track,
                name,
                cookie,
                end: false,
            })
        }
        b'H' => {
            let pid = pid(fields.next())?;
            let track = nonempty(fields.next())?;
            let third = fields.next();
            let cookie = cookie(fields.next().or(third))?;
            Ok(AtraceMarker::Track {
                pid,
                track,
                name: b"",
                cookie,
                end: true,
            })
        }
        b'I' => {
            let pid = pid(fields.next())?;
            let name = nonempty(fields.next())?;
            Ok(AtraceMarker::Instant { pid, name })
        }
        b'N' => {
            let pid = pid(fields.next())?;
            let track = nonempty(fields.next())?;
            let name = nonempty(fields.next())?;
            Ok(AtraceMarker::TrackInstant { pid, track, name })
        }
        _ => Ok(AtraceMarker::Text(payload)),
    }
}

fn parse_clock_sync(rest: &[u8]) -> Result<ClockSync<'_>, MarkerError> {
    let rest = crate::line::trim(rest);
    if let Some(v) = field(rest, b"parent_ts=") {
        return seconds_to_ns(v).map(ClockSync::ParentTs).ok_or("bad parent_ts");
    }
    if let Some(v) = field(rest, b"realtime_ts=") {
        return parse_i64(v).map(ClockSync::RealtimeMs).ok_or("bad realtime_ts");
    }
    if let Some(v) = field(rest, b"name=") {
        return Ok(ClockSync::Name(v));
    }
    Err("unknown clock-sync marker")
}

/// `S`, `S.F` (any number of fraction digits) in ns; what a float printed
/// with `%f` looks like.
fn seconds_to_ns(v: &[u8]) -> Option<u64> {
    match memchr(b'.', v) {
        None => parse_u64(v)?.checked_mul(1_000_000_000),
        Some(d) => {
            let frac = &v[d + 1..];
            let frac = &frac[..frac.len().min(9)];
            let mut padded = [b'0'; 9];
            padded[..frac.len()].copy_from_slice(frac);
            let mut s = v[..d].to_vec();
            s.push(b'.');
            s.extend_from_slice(&padded);
            crate::line::parse_timestamp_ns(&s)
        }
    }
}

struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.0.is_empty() {
            return None;
        }
        let end = memchr(b'|', self.0).unwrap_or(self.0.len());
        let f = &self.0[..end];
        self.0 = self.0.get(end + 1..).unwrap_or(&[]);
        Some(f)
    }

    fn rest(&self) -> &'a [u8] {
        self.0
    }
}

fn pid(f: Option<&[u8]>) -> Result<u32, MarkerError> {
    f.and_then(parse_u32).ok_or("marker without a numeric pid")
}

fn nonempty(f: Option<&[u8]>) -> Result<&[u8], MarkerError> {
    f.filter(|s| !s.is_empty()).ok_or("marker with an empty field")
}

fn cookie(f: Option<&[u8]>) -> Result<i64, MarkerError> {
    f.and_then(parse_i64).ok_or("marker without a numeric cookie")
}

fn number(s: &[u8]) -> Option<f64> {
    if let Some(i) = parse_i64(s) {
        return Some(i as f64);
    }
    let v: f64 = std::str::from_utf8(s).ok()?.trim().parse().ok()?;
    v.is_finite().then_some(v)
}

/// One sample of seed 002's in-kernel power sampler, as the kernel printed it:
/// `v:<µV> c:<µA> e:<charge counter>` (or `V:… I:… E:…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PowerSample {
    /// Battery voltage, µV (`v:`/`V:`).
    pub voltage_uv: Option<i64>,
    /// Battery current, µA, sign as printed (`c:`/`I:`).
    pub current_ua: Option<i64>,
    /// The fuel gauge's extended charge counter, nAh (`e:`/`E:`).
    pub charge_nah: Option<i64>,
}

/// Parses a power-sample payload: whitespace-separated `key:value` tokens
/// with keys `v`/`V`, `c`/`C`/`I`/`i`, `e`/`E`; anything else means it is
/// not one. At least one of the three must be present.
pub fn parse_power_sample(payload: &[u8]) -> Option<PowerSample> {
    let mut s = PowerSample::default();
    let mut any = false;
    for tok in payload.split(|c| c.is_ascii_whitespace()).filter(|t| !t.is_empty()) {
        let (key, value) = match tok {
            [k, b':', v @ ..] => (*k, parse_i64(v)?),
            _ => return None,
        };
        let slot = match key {
            b'v' | b'V' => &mut s.voltage_uv,
            b'c' | b'C' | b'i' | b'I' => &mut s.current_ua,
            b'e' | b'E' => &mut s.charge_nah,
            _ => return None,
        };
        if slot.replace(value).is_some() {
            return None;
        }
        any = true;
    }
    any.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases() {
        assert_eq!(
            parse_marker(b"B|303|hwc_set_primary"),
            Ok(AtraceMarker::Begin {
                pid: 303,
                name: b"hwc_set_primary"
            })
        );
        assert_eq!(
            parse_marker(b"B|303|a|b"),
            Ok(AtraceMarker::Begin { pid: 303, name: b"a|b" })
        );
        assert_eq!(
            parse_marker(b"B|303|"),
            Ok(AtraceMarker::Begin {
                pid: 303,
                name: b"[empty slice name]"
            })
        );
        assert_eq!(parse_marker(b"E"), Ok(AtraceMarker::End));
        assert_eq!(parse_marker(b"E|303"), Ok(AtraceMarker::End));
        assert_eq!(
            parse_marker(b"C|124|VSYNC|1"),
            Ok(AtraceMarker::Counter {
                pid: 124,
                name: b"VSYNC",
                value: 1.0
            })
        );
        assert_eq!(
            parse_marker(b"C|3209|TransfersBytesPendingOnDisk-value|0|Blob"),
            Ok(AtraceMarker::Counter {
                pid: 3209,
                name: b"TransfersBytesPendingOnDisk-value",
                value: 0.0
            })
        );
        assert_eq!(
            parse_marker(b"C|1|power|2.5"),
            Ok(AtraceMarker::Counter {
                pid: 1,
                name: b"power",
                value: 2.5
            })
        );
        assert_eq!(
            parse_marker(b"F|13580|deliverInputEvent|263"),
            Ok(AtraceMarker::Async {
                pid: 13580,
                name: b"deliverInputEvent",
                cookie: 263,
                end: true
            })
        );
        assert_eq!(
            parse_marker(b"G|1339|track_name|slice_name|789"),
            Ok(AtraceMarker::Track {
                pid: 1339,
                track: b"track_name",
                name: b"slice_name",
                cookie: 789,
                end: false
            })
        );
        for h in [&b"H|6890|track_name|slice_name|135"[..], b"H|6890|track_name|135"] {
            assert_eq!(
                parse_marker(h),
                Ok(AtraceMarker::Track {
                    pid: 6890,
                    track: b"track_name",
                    name: b"",
                    cookie: 135,
                    end: true
                })
            );
        }
        assert_eq!(
            parse_marker(b"I|4820|instant"),
            Ok(AtraceMarker::Instant {
                pid: 4820,
                name: b"instant"
            })
        );
        assert_eq!(
            parse_marker(b"N|1938|track_name|instant_name"),
            Ok(AtraceMarker::TrackInstant {
                pid: 1938,
                track: b"track_name",
                name: b"instant_name"
            })
        );
        assert_eq!(parse_marker(b"hello world"), Ok(AtraceMarker::Text(b"hello world")));
        assert_eq!(parse_marker(b"X|1|y"), Ok(AtraceMarker::Text(b"X|1|y")));
    }

    #[test]
    fn malformed_markers() {
        for bad in [
            &b"B|abc|x"[..],
            b"B|",
            b"C|1|x",
            b"C|1|x|abc",
            b"S|1|x|",
            b"S|1||5",
            b"G|1|t|n",
            b"H|1|t",
            b"I|1",
            b"N|1|t",
        ] {
            assert!(parse_marker(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn clock_sync() {
        assert_eq!(
            parse_marker(b"trace_event_clock_sync: parent_ts=574.384408"),
            Ok(AtraceMarker::ClockSync(ClockSync::ParentTs(574_384_408_000)))
        );
        assert_eq!(
            parse_marker(b"trace_event_clock_sync: parent_ts=0.0"),
            Ok(AtraceMarker::ClockSync(ClockSync::ParentTs(0)))
        );
        assert_eq!(
            parse_marker(b"trace_event_clock_sync: realtime_ts=408128190"),
            Ok(AtraceMarker::ClockSync(ClockSync::RealtimeMs(408_128_190)))
        );
        assert_eq!(
            parse_marker(b"trace_event_clock_sync: name=abc-1"),
            Ok(AtraceMarker::ClockSync(ClockSync::Name(b"abc-1")))
        );
        assert!(parse_marker(b"trace_event_clock_sync: parent_ts=x").is_err());
        assert!(parse_marker(b"trace_event_clock_sync: what=1").is_err());
    }

    #[test]
    fn power_samples() {
        assert_eq!(
            parse_power_sample(b"v:4380937 c:530056 e:-203095456"),
            Some(PowerSample {
                voltage_uv: Some(4_380_937),
                current_ua: Some(530_056),
                charge_nah: Some(-203_095_456)
            })
        );
        assert_eq!(
            parse_power_sample(b"V:3214687 I:-1340040 E:32347638"),
            Some(PowerSample {
                voltage_uv: Some(3_214_687),
                current_ua: Some(-1_340_040),
                charge_nah: Some(32_347_638)
            })
        );
        assert_eq!(parse_power_sample(b""), None);
        assert_eq!(parse_power_sample(b"v:1 v:2"), None);
        assert_eq!(parse_power_sample(b"v:1 x:2"), None);
        assert_eq!(parse_power_sample(b"B|1|v:1"), None);
    }
}
