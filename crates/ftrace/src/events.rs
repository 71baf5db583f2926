//! What each ftrace event kind becomes in the model.

use crate::error::Error;
use crate::importer::{Importer, OpenAsync, Running, Took, MAX_CPUS};
use crate::line::{field, find, parse_i64, parse_u32, rfind, EventLine};
use crate::marker::{parse_marker, parse_power_sample, AtraceMarker, ClockSync, PowerSample};
use crate::repair;
use tracekit_model::{power, AsyncSlice, CallEvent, CounterKind, CounterTrack, EndState, Marker, SchedSlice};

/// `cpu_idle`'s state when a CPU leaves idle (`(u32)-1`); stored as -1.
pub const IDLE_EXIT: u64 = 4_294_967_295;

const FREQ: u8 = 0;
const IDLE: u8 = 1;
const VOLTAGE: u8 = 0;
const CURRENT: u8 = 1;
const CHARGE: u8 = 2;

impl Importer {
    pub(crate) fn event(&mut self, ev: &EventLine<'_>, line_no: u64) -> Result<Took, Error> {
        Ok(match ev.event {
            b"sched_switch" => self.sched_switch(ev, line_no)?,
            b"sched_wakeup" | b"sched_wakeup_new" | b"sched_waking" => {
                self.name_from(ev.payload, b"comm=", b" pid=");
                Took::SkippedEvent
            }
            b"cpu_frequency" => self.cpu_counter(ev, FREQ),
            b"cpu_idle" => self.cpu_counter(ev, IDLE),
            b"clock_set_rate" | b"clock_enable" | b"clock_disable" => self.clock(ev),
            b"tracing_mark_write" | b"0" | b"print" => {
                match looks_like_power(ev.payload).then(|| parse_power_sample(ev.payload)) {
                    Some(Some(p)) => self.power(ev, p),
                    _ => self.marker(ev),
                }
            }
            b"write_power_ringbuffer" => match parse_power_sample(ev.payload) {
                Some(p) => self.power(ev, p),
                None => Took::Skipped("write_power_ringbuffer (malformed)".into()),
            },
            b"" => Took::Skipped("function tracer call".into()),
            _ => match looks_like_power(ev.payload).then(|| parse_power_sample(ev.payload)) {
                Some(Some(p)) => self.power(ev, p),
                _ => Took::SkippedEvent,
            },
        })
    }

    fn sched_switch(&mut self, ev: &EventLine<'_>, line_no: u64) -> Result<Took, Error> {
        let Some(sw) = parse_sched_switch(ev.payload) else {
            return Ok(Took::Skipped("sched_switch (unrecognised format)".into()));
        };
        if ev.cpu >= MAX_CPUS {
            return Err(self.line_error(
                line_no,
                format!("CPU {} is out of range (at most {})", ev.cpu, MAX_CPUS - 1),
            ));
        }
        let cpu = ev.cpu as usize;
        if self.cpus.len() <= cpu {
            self.cpus.resize_with(cpu + 1, || None);
        }
        let t = self.at(ev.ts_ns);
        if let Some(r) = self.cpus[cpu].take() {
            let end_state = if r.tid == sw.prev_pid {
                Some(EndState::new(&String::from_utf8_lossy(sw.prev_state)))
            } else {
                self.note(repair::SCHED_MISMATCH, 1);
                None
            };
            self.s.sched.push(SchedSlice {
                cpu: cpu as u32,
                ts_ns: r.start,
                dur_ns: t - r.start,
                thread: r.thread,
                priority: r.prio,
                end_state,
            });
        }
        if let Some(&id) = self.threads.get(&sw.prev_pid) {
            self.rename(id, sw.prev_comm);
        }
        if sw.next_pid != 0 {
            let thread = self.thread(sw.next_pid, Some(sw.next_comm), None);
            self.cpus[cpu] = Some(Running {
                thread,
                tid: sw.next_pid,
                start: t,
                prio: sw.next_prio,
            });
        }
        Ok(Took::Used)
    }

    /// Names an existing thread from `comm=… pid=N` fields.
    fn name_from(&mut self, payload: &[u8], comm_key: &[u8], pid_key: &[u8]) {
        let Some(rest) = payload.strip_prefix(comm_key) else {
            return;
        };
        let Some(i) = rfind(rest, pid_key) else { return };
        let pid = field(&rest[i + 1..], &pid_key[1..]).and_then(parse_u32);
        if let Some(&id) = pid.and_then(|p| self.threads.get(&p)) {
            self.rename(id, &rest[..i]);
        }
    }

    fn cpu_counter(&mut self, ev: &EventLine<'_>, which: u8) -> Took {
        let state = field(ev.payload, b"state=").and_then(crate::line::parse_u64);
        let cpu = field(ev.payload, b"cpu_id=").and_then(parse_u32);
        let (Some(state), Some(cpu)) = (state, cpu) else {
            return malformed(ev, "malformed");
        };
        let t = self.at(ev.ts_ns) as i64;
        let idx = match self.cpu_counters.get(&(which, cpu)) {
            Some(&i) => i,
            None => {
                let mut c = if which == FREQ {
                    CounterTrack::new(format!("cpu{cpu} freq"), Some("kHz"))
                } else {
                    CounterTrack::new(format!("cpu{cpu} idle"), None)
                };
                c.cpu = Some(cpu);
                self.s.counters.push(c);
                self.cpu_counters.insert((which, cpu), self.s.counters.len() - 1);
                self.s.counters.len() - 1
            }
        };
        let value = if which == IDLE && state == IDLE_EXIT {
            -1.0
        } else {
            state as f64
        };
        self.s.counters[idx].push(t, value);
        Took::Used
    }

    fn clock(&mut self, ev: &EventLine<'_>) -> Took {
        let name_end = find(ev.payload, b" state=");
        let state = field(ev.payload, b"state=").and_then(crate::line::parse_u64);
        let (Some(name_end), Some(state)) = (name_end, state) else {
            return malformed(ev, "malformed");
        };
        let clk = String::from_utf8_lossy(&ev.payload[..name_end]);
        let (name, unit) = if ev.event == b"clock_set_rate" {
            (format!("clock {clk} rate"), Some("Hz"))
        } else {
            (format!("clock {clk} enabled"), None)
        };
        let t = self.at(ev.ts_ns) as i64;
        let idx = self.named_counter(None, name.as_bytes(), |n| CounterTrack::new(n, unit));
        self.s.counters[idx].push(t, state as f64);
        Took::Used
    }

    /// The counter track with this pid and name, created by `make` on first use.
    fn named_counter(&mut self, pid: Option<u32>, name: &[u8], make: impl FnOnce(String) -> CounterTrack) -> usize {
        let by_name = self.named_counters.entry(pid).or_default();
        if let Some(&i) = by_name.get(name) {
            return i;
        }
        let mut c = make(String::from_utf8_lossy(name).into_owned());
        c.pid = pid;
        self.s.counters.push(c);
        let i = self.s.counters.len() - 1;
        by_name.insert(name.to_vec(), i);
        i
    }

    /// Seed 002's power sample: one track per quantity and sampler thread,
    /// in the model's SI units (V, A, µAh).
    fn power(&mut self, ev: &EventLine<'_>, p: PowerSample) -> Took {
        let t = self.at(ev.ts_ns) as i64;
        let sampler = ev.tid;
        let pid = ev.tgid.unwrap_or(ev.tid);
        self.thread(ev.tid, Some(ev.task), ev.tgid);
        let quantities = [
            (VOLTAGE, p.voltage_uv.map(|v| v as f64 * 1e-6)),
            (CURRENT, p.current_ua.map(|v| v as f64 * 1e-6)),
            (CHARGE, p.charge_nah.map(|v| v as f64 * 1e-3)),
        ];
        for (q, value) in quantities {
            let Some(value) = value else { continue };
            let idx = match self.power_counters.get(&(sampler, q)) {
                Some(&i) => i,
                None => {
                    let (name, unit, kind) = match q {
                        VOLTAGE => (power::BATTERY_VOLTAGE, power::VOLT, CounterKind::Sampled),
                        CURRENT => (power::BATTERY_CURRENT, power::AMPERE, CounterKind::Sampled),
                        _ => (power::BATTERY_CHARGE, power::MICRO_AMPERE_HOUR, CounterKind::Cumulative),
                    };
                    let mut c = CounterTrack::new(name, Some(unit)).with_kind(kind);
                    c.pid = Some(pid);
                    self.s.counters.push(c);
                    self.power_counters.insert((sampler, q), self.s.counters.len() - 1);
                    self.s.counters.len() - 1
                }
            };
            self.s.counters[idx].push(t, value);
        }
        self.pids.insert(pid);
        if !self.s.properties.iter().any(|(k, _)| k == "power.units") {
            self.s.properties.push((
                "power.units".into(),
                "v: µV → V, c/I: µA → A (sign kept), e/E: nAh → µAh".into(),
            ));
        }
        Took::Used
    }

    fn marker(&mut self, ev: &EventLine<'_>) -> Took {
        let m = match parse_marker(ev.payload) {
            Ok(m) => m,
            Err(_) => return malformed(ev, "malformed marker"),
        };
        match m {
            AtraceMarker::Begin { pid, name } => {
                let th = self.thread(ev.tid, Some(ev.task), ev.tgid.or(Some(pid)));
                let m = self.method(name);
                let t = self.at(ev.ts_ns);
                self.s.calls_mut(th).push(CallEvent::enter(m, t, None));
                self.stacks[th.0 as usize].push(m);
            }
            AtraceMarker::End => {
                let th = self.thread(ev.tid, Some(ev.task), ev.tgid);
                match self.stacks[th.0 as usize].pop() {
                    Some(m) => {
                        let t = self.at(ev.ts_ns);
                        self.s.calls_mut(th).push(CallEvent::exit(m, t, None));
                    }
                    None => self.note(repair::END_WITHOUT_BEGIN, 1),
                }
            }
            AtraceMarker::Counter { pid, name, value } => {
                self.pids.insert(pid);
                let t = self.at(ev.ts_ns) as i64;
                let idx = self.named_counter(Some(pid), name, |n| CounterTrack::new(n, None));
                self.s.counters[idx].push(t, value);
            }
            AtraceMarker::Async { pid, name, cookie, end } => self.async_slice(ev, pid, None, name, cookie, end),
            AtraceMarker::Track {
                pid,
                track,
                name,
                cookie,
                end,
            } => self.async_slice(ev, pid, Some(track), name, cookie, end),
            AtraceMarker::Instant { pid, name } => {
                let th = self.thread(ev.tid, Some(ev.task), ev.tgid.or(Some(pid)));
                let t = self.at(ev.ts_ns);
                let name = String::from_utf8_lossy(name).into_owned();
                self.s.markers.push(Marker {
                    ts_ns: t,
                    thread: th,
                    name,
                });
            }
            AtraceMarker::TrackInstant { pid, track, name } => {
                self.pids.insert(pid);
                let th = self.thread(ev.tid, Some(ev.task), ev.tgid);
                let t = self.at(ev.ts_ns);
                self.s.async_slices.push(AsyncSlice {
                    name: String::from_utf8_lossy(name).into_owned(),
                    category: Some(String::from_utf8_lossy(track).into_owned()),
                    cookie: 0,
                    pid: Some(pid),
                    thread: Some(th),
                    ts_ns: t,
                    dur_ns: 0,
                    open: false,
                });
            }
            AtraceMarker::ClockSync(c) => return self.clock_sync(ev, c),
            AtraceMarker::Text(text) => {
                let th = self.thread(ev.tid, Some(ev.task), ev.tgid);
                let t = self.at(ev.ts_ns);
                let name = String::from_utf8_lossy(text).into_owned();
                self.s.markers.push(Marker {
                    ts_ns: t,
                    thread: th,
                    name,
                });
            }
        }
        Took::Used
    }

    fn async_slice(&mut self, ev: &EventLine<'_>, pid: u32, track: Option<&[u8]>, name: &[u8], cookie: i64, end: bool) {
        self.pids.insert(pid);
        // `S`/`F` pair by name and cookie; `G`/`H` by track and cookie.
        let key = (pid, track.is_some(), track.unwrap_or(name).to_vec(), cookie);
        let th = self.thread(ev.tid, Some(ev.task), ev.tgid);
        let t = self.at(ev.ts_ns);
        if end {
            match self.open_async.remove(&key) {
                Some(a) => self.s.async_slices.push(AsyncSlice {
                    name: a.name,
                    category: a.category,
                    cookie: a.cookie as u64,
                    pid: Some(a.pid),
                    thread: Some(a.thread),
                    ts_ns: a.start,
                    dur_ns: t - a.start,
                    open: false,
                }),
                None => self.note(repair::ASYNC_END_WITHOUT_BEGIN, 1),
            }
        } else if self.open_async.contains_key(&key) {
            self.note(repair::ASYNC_BEGIN_REPEATED, 1);
        } else {
            let open = OpenAsync {
                name: String::from_utf8_lossy(name).into_owned(),
                category: track.map(|t| String::from_utf8_lossy(t).into_owned()),
                pid,
                thread: th,
                start: t,
                cookie,
                seq: self.outcome.lines,
            };
            self.open_async.insert(key, open);
        }
    }

    fn clock_sync(&mut self, ev: &EventLine<'_>, c: ClockSync<'_>) -> Took {
        match c {
            // Legacy systrace appended `parent_ts=0.0` from a dummy task.
            ClockSync::ParentTs(0) => return Took::Skipped("trace_event_clock_sync (parent_ts=0)".into()),
            ClockSync::ParentTs(mono) => {
                self.parent_ts.get_or_insert((ev.ts_ns, mono));
            }
            ClockSync::RealtimeMs(ms) => {
                self.realtime.get_or_insert((ev.ts_ns, ms));
            }
            ClockSync::Name(id) => self
                .sync_names
                .push((String::from_utf8_lossy(id).into_owned(), ev.ts_ns)),
        }
        Took::Used
    }
}

/// Counts a line of a known kind whose fields could not be read.
fn malformed(ev: &EventLine<'_>, why: &str) -> Took {
    Took::Skipped(format!("{} ({why})", String::from_utf8_lossy(ev.event)).into())
}

/// A cheap test before [`parse_power_sample`]: `v:`, `V:`, `c:`, `I:`, `e:` …
fn looks_like_power(p: &[u8]) -> bool {
    matches!(p, [b'v' | b'V' | b'c' | b'C' | b'i' | b'I' | b'e' | b'E', b':', ..])
}

/// The fields of a `sched_switch` payload.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SchedSwitch<'a> {
    pub(crate) prev_comm: &'a [u8],
    pub(crate) prev_pid: u32,
    pub(crate) prev_state: &'a [u8],
    pub(crate) next_comm: &'a [u8],
    pub(crate) next_pid: u32,
    pub(crate) next_prio: Option<i32>,
}

/// `prev_comm=A prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=B next_pid=2 next_prio=120`;
/// comms may contain spaces, so each is cut at the last ` *_pid=` of its side.
pub(crate) fn parse_sched_switch(p: &[u8]) -> Option<SchedSwitch<'_>> {
    let arrow = find(p, b" ==> ")?;
    let (prev, next) = (&p[..arrow], &p[arrow + 5..]);
    let prev_rest = prev.strip_prefix(b"prev_comm=")?;
    let i = rfind(prev_rest, b" prev_pid=")?;
    let next_rest = next.strip_prefix(b"next_comm=")?;
    let j = rfind(next_rest, b" next_pid=")?;
    let prev_fields = &prev_rest[i + 1..];
    let next_fields = &next_rest[j + 1..];
    Some(SchedSwitch {
        prev_comm: &prev_rest[..i],
        prev_pid: field(prev_fields, b"prev_pid=").and_then(parse_u32)?,
        prev_state: field(prev_fields, b"prev_state=")?,
        next_comm: &next_rest[..j],
        next_pid: field(next_fields, b"next_pid=").and_then(parse_u32)?,
        next_prio: field(next_fields, b"next_prio=")
            .and_then(parse_i64)
            .and_then(|v| i32::try_from(v).ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sched_switch_fields() {
        let s = parse_sched_switch(
            b"prev_comm=Binder Thread #1 prev_pid=14446 prev_prio=120 prev_state=R+ ==> next_comm=swapper/0 next_pid=0 next_prio=120",
        )
        .unwrap();
        assert_eq!(s.prev_comm, b"Binder Thread #1");
        assert_eq!((s.prev_pid, s.prev_state), (14446, &b"R+"[..]));
        assert_eq!(
            (s.next_comm, s.next_pid, s.next_prio),
            (&b"swapper/0"[..], 0, Some(120))
        );
        assert!(parse_sched_switch(b"task swapper:0 [140] (R) ==> kworker:7 [120]").is_none());
        assert!(parse_sched_switch(b"prev_comm=a prev_pid=x prev_state=S ==> next_comm=b next_pid=2").is_none());
    }

    #[test]
    fn power_prefix_test() {
        assert!(looks_like_power(b"v:1"));
        assert!(looks_like_power(b"I:-1"));
        assert!(!looks_like_power(b"B|1|x"));
        assert!(!looks_like_power(b"E"));
    }
}
