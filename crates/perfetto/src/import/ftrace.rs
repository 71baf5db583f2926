//! ftrace bundles: `sched_switch` (plain and compact) into scheduling
//! slices, `cpu_frequency` and `cpu_idle` into per-CPU counters, and `print`
//! (atrace's `trace_marker` writes) into calls, counters, async slices and
//! markers. Every other ftrace event is counted by kind.

use super::{bad, Importer};
use crate::proto::{self, CompactSched, CpuState, SchedSwitch};
use crate::repair;
use crate::wire::{Fields, Value, WireResult};
use prost::Message;
use rustc_hash::FxHashMap;
use tracekit_model::{AsyncSlice, CounterKind, CounterTrack, EndState, Marker, SchedSlice, ThreadId};

/// CPUs beyond this index are not believed (a corrupt field, not a machine).
const MAX_CPUS: usize = 4096;

/// The thread running on one CPU since the last switch.
#[derive(Debug, Clone, Copy)]
struct Running {
    tid: u32,
    since: u64,
    prio: i32,
}

/// An atrace async slice begun and not yet ended: name, start, thread,
/// category; keyed by (pid, track or name, cookie).
type OpenAsync = FxHashMap<(u32, String, u64), (String, u64, ThreadId, Option<String>)>;

/// State kept across bundles.
#[derive(Debug, Default)]
pub(crate) struct FtraceState {
    running: Vec<Option<Running>>,
    open_async: OpenAsync,
    /// Power rail names by index.
    pub rail_names: FxHashMap<u32, String>,
}

impl Importer {
    pub(crate) fn ftrace_bundle(&mut self, body: &[u8]) -> WireResult<()> {
        let mut cpu = 0u32;
        let mut events = Vec::new();
        let mut compact = None;
        let (mut clock, mut ftrace_ts, mut boot_ts) = (0u64, None, None);
        let mut fields = Fields::new(body);
        while let Some(f) = fields.next_field()? {
            match (f.number, f.value) {
                (1, v) => cpu = v.as_u64().unwrap_or(0) as u32,
                (2, Value::Bytes(b)) => events.push((b, f.offset)),
                (3, v) if v.as_u64() == Some(1) => self.tally.repair(repair::FTRACE_DATA_LOSS),
                (4, Value::Bytes(b)) => compact = Some((b, f.offset)),
                (5, v) => clock = v.as_u64().unwrap_or(0),
                (6, v) => ftrace_ts = v.as_u64(),
                (7, v) => boot_ts = v.as_u64(),
                (2 | 4, _) => return Err(bad(f.offset, "ftrace bundle field has the wrong wire type")),
                (3 | 9 | 10 | 11, _) => {}
                (8, _) => self.tally.skip("ftrace read error"),
                (n, _) => self.tally.skip(&format!("ftrace bundle field {n}")),
            }
        }
        // Timestamps are BOOTTIME unless the bundle names another ftrace
        // clock and gives a (ftrace, boot) pair to convert with.
        let shift = match (clock, ftrace_ts, boot_ts) {
            (c, Some(f), Some(b)) if c != 0 => i128::from(b as i64) - i128::from(f as i64),
            _ => 0,
        };
        let cpu_index = cpu as usize;
        if cpu_index >= MAX_CPUS {
            return Err(bad(0, "ftrace bundle names an impossible CPU"));
        }
        for (b, offset) in events {
            self.ftrace_event(cpu, b, shift)
                .map_err(|e| bad(offset + e.offset, e.message))?;
        }
        if let Some((b, offset)) = compact {
            let c = CompactSched::decode(b).map_err(|_| bad(offset, "malformed compact_sched"))?;
            self.compact_sched(cpu, &c, shift);
        }
        Ok(())
    }

    fn ftrace_event(&mut self, cpu: u32, body: &[u8], shift: i128) -> WireResult<()> {
        let (mut ts, mut pid) = (None, 0u32);
        let mut payload = None;
        let mut fields = Fields::new(body);
        while let Some(f) = fields.next_field()? {
            match (f.number, f.value) {
                (1, v) => ts = v.as_u64(),
                (2, v) => pid = v.as_u64().unwrap_or(0) as u32,
                (5, _) => {}
                (n @ (3 | 4 | 11 | 13), Value::Bytes(b)) => payload = Some((n, b, f.offset)),
                (3 | 4 | 11 | 13, _) => return Err(bad(f.offset, "ftrace event field has the wrong wire type")),
                (n, _) => *self.tally.skipped_ftrace.entry(n).or_default() += 1,
            }
        }
        let Some((kind, b, offset)) = payload else {
            return Ok(());
        };
        let Some(ts) = ts else {
            self.tally.repair(repair::NO_TIMESTAMP);
            return Ok(());
        };
        let ts = (i128::from(ts) + shift).clamp(0, i128::from(i64::MAX)) as u64;
        match kind {
            4 => {
                let s = SchedSwitch::decode(b).map_err(|_| bad(offset, "malformed sched_switch"))?;
                let next = s.next_pid.unwrap_or(0).max(0) as u32;
                let prev = s.prev_pid.unwrap_or(0).max(0) as u32;
                if let Some(c) = &s.next_comm {
                    if next != 0 {
                        self.threads.comm(next, c);
                    }
                }
                if let Some(c) = &s.prev_comm {
                    if prev != 0 {
                        self.threads.comm(prev, c);
                    }
                }
                self.switch(cpu, ts, s.prev_state.unwrap_or(0), next, s.next_prio.unwrap_or(0));
            }
            11 | 13 => {
                let st = CpuState::decode(b).map_err(|_| bad(offset, "malformed cpu state event"))?;
                let on = st.cpu_id.unwrap_or(cpu);
                let state = st.state.unwrap_or(0);
                let (name, unit, value) = if kind == 11 {
                    (format!("cpu{on} freq"), Some("kHz"), f64::from(state))
                } else {
                    // The kernel's PWR_EVENT_EXIT (u32::MAX) means "left idle".
                    let v = if state == u32::MAX { -1.0 } else { f64::from(state) };
                    (format!("cpu{on} idle"), None, v)
                };
                let i = self.counter(&name, || {
                    let mut t = CounterTrack::new(name.clone(), unit).with_kind(CounterKind::Level);
                    t.cpu = Some(on);
                    t
                });
                self.sample(i, ts, value);
            }
            _ => {
                let p = proto::Print::decode(b).map_err(|_| bad(offset, "malformed print"))?;
                self.atrace(ts, pid, &p.buf.unwrap_or_default());
            }
        }
        Ok(())
    }

    fn compact_sched(&mut self, cpu: u32, c: &CompactSched, shift: i128) {
        let n = c.switch_timestamp.len();
        if c.switch_prev_state.len() != n || c.switch_next_pid.len() != n || c.switch_next_prio.len() != n {
            self.tally.repair(repair::BAD_COMPACT_SCHED);
            return;
        }
        let mut ts = 0u64;
        for i in 0..n {
            ts = ts.wrapping_add(c.switch_timestamp[i]);
            let t = (i128::from(ts) + shift).clamp(0, i128::from(i64::MAX)) as u64;
            let next = c.switch_next_pid[i].max(0) as u32;
            if let Some(comm) = c
                .switch_next_comm_index
                .get(i)
                .and_then(|&k| c.intern_table.get(k as usize))
            {
                if next != 0 {
                    self.threads.comm(next, comm);
                }
            }
            self.switch(cpu, t, c.switch_prev_state[i], next, c.switch_next_prio[i]);
        }
        if !c.waking_timestamp.is_empty() {
            *self.tally.skipped_ftrace.entry(20).or_default() += c.waking_timestamp.len() as u64;
        }
    }

    /// CPU `cpu` switched at `ts` from whatever ran to `next` (0: idle).
    fn switch(&mut self, cpu: u32, ts: u64, prev_state: i64, next: u32, prio: i32) {
        self.saw(ts);
        let cpu_i = cpu as usize;
        if self.ftrace.running.len() <= cpu_i {
            self.ftrace.running.resize(cpu_i + 1, None);
        }
        if let Some(r) = self.ftrace.running[cpu_i].take() {
            let thread = self.threads.id(&mut self.s, r.tid);
            self.s.sched.push(SchedSlice {
                cpu,
                ts_ns: r.since,
                dur_ns: ts.saturating_sub(r.since),
                thread,
                priority: Some(r.prio),
                end_state: Some(end_state(prev_state)),
            });
        }
        if next != 0 {
            self.ftrace.running[cpu_i] = Some(Running {
                tid: next,
                since: ts,
                prio,
            });
        }
    }

    /// Threads still on a CPU at the end of the trace run until its last event.
    pub(crate) fn close_running(&mut self) {
        let end = self.max_ts;
        for cpu in 0..self.ftrace.running.len() {
            if let Some(r) = self.ftrace.running[cpu].take() {
                let thread = self.threads.id(&mut self.s, r.tid);
                self.s.sched.push(SchedSlice {
                    cpu: cpu as u32,
                    ts_ns: r.since,
                    dur_ns: end.saturating_sub(r.since),
                    thread,
                    priority: Some(r.prio),
                    end_state: None,
                });
            }
        }
        let open: Vec<_> = self.ftrace.open_async.drain().collect();
        for ((pid, _, cookie), (name, start, thread, category)) in open {
            self.tally.repair(repair::OPEN_AT_END);
            self.s.async_slices.push(AsyncSlice {
                name,
                category,
                cookie,
                pid: Some(pid),
                thread: Some(thread),
                ts_ns: start,
                dur_ns: 0,
                open: true,
            });
        }
    }

    /// One atrace marker written by thread `tid` at `ts`.
    fn atrace(&mut self, ts: u64, tid: u32, buf: &[u8]) {
        let line = String::from_utf8_lossy(buf);
        let line = line.trim_end_matches(['\n', '\0']);
        let mut parts = line.splitn(5, '|');
        let op = parts.next().unwrap_or("");
        let pid: Option<u32> = parts.next().and_then(|p| p.trim().parse().ok());
        let rest: Vec<&str> = parts.collect();
        let thread = self.threads.id(&mut self.s, tid);
        if let Some(p) = pid {
            self.threads.set_pid_if_unknown(tid, p);
        }
        let pid = pid.unwrap_or(tid);
        match (op, rest.as_slice()) {
            ("B", [name, ..]) => {
                let m = self.method(name, None);
                self.push_enter(thread, m, ts, None);
            }
            ("E", _) => self.push_exit(thread, false, ts, None),
            ("C", [name, value, ..]) => match value.trim().parse::<f64>() {
                Ok(v) => {
                    let key = format!("atrace {pid} {name}");
                    let i = self.counter(&key, || {
                        let mut t = CounterTrack::new(*name, None);
                        t.pid = Some(pid);
                        t
                    });
                    self.sample(i, ts, v);
                }
                Err(_) => self.tally.skip("atrace malformed counter"),
            },
            ("S", [name, cookie, ..]) => self.async_begin(ts, pid, thread, name, name, cookie, None),
            ("F", [name, cookie, ..]) => self.async_end(ts, pid, name, cookie),
            ("G", [track, name, cookie, ..]) => self.async_begin(ts, pid, thread, track, name, cookie, Some(track)),
            ("H", [track, cookie, ..]) => self.async_end(ts, pid, track, cookie),
            ("I", [name, ..]) => {
                self.saw(ts);
                self.s.markers.push(Marker {
                    ts_ns: ts,
                    thread,
                    name: (*name).to_owned(),
                });
            }
            ("N", [track, name, ..]) => {
                self.saw(ts);
                self.s.async_slices.push(AsyncSlice {
                    name: (*name).to_owned(),
                    category: Some((*track).to_owned()),
                    cookie: 0,
                    pid: Some(pid),
                    thread: Some(thread),
                    ts_ns: ts,
                    dur_ns: 0,
                    open: false,
                });
            }
            _ => self.tally.skip("ftrace print (not an atrace marker)"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn async_begin(
        &mut self,
        ts: u64,
        pid: u32,
        thread: ThreadId,
        key: &str,
        name: &str,
        cookie: &str,
        category: Option<&str>,
    ) {
        let cookie = cookie.trim().parse::<i64>().unwrap_or(0) as u64;
        self.saw(ts);
        let k = (pid, key.to_owned(), cookie);
        let v = (name.to_owned(), ts, thread, category.map(str::to_owned));
        if self.ftrace.open_async.insert(k, v).is_some() {
            self.tally.repair(repair::ASYNC_REOPENED);
        }
    }

    fn async_end(&mut self, ts: u64, pid: u32, key: &str, cookie: &str) {
        let cookie = cookie.trim().parse::<i64>().unwrap_or(0) as u64;
        self.saw(ts);
        match self.ftrace.open_async.remove(&(pid, key.to_owned(), cookie)) {
            Some((name, start, thread, category)) => self.s.async_slices.push(AsyncSlice {
                name,
                category,
                cookie,
                pid: Some(pid),
                thread: Some(thread),
                ts_ns: start,
                dur_ns: ts.saturating_sub(start),
                open: false,
            }),
            None => self.tally.repair(repair::END_WITHOUT_BEGIN),
        }
    }
}

/// The state a thread left the CPU in, as the kernel (4.14 and later)
/// prints it: `R` (or `R+` when preempted) for 0, else one letter per bit.
pub(crate) fn end_state(prev_state: i64) -> EndState {
    const LETTERS: [&str; 8] = ["S", "D", "T", "t", "X", "Z", "P", "I"];
    let bits = prev_state as u64;
    let low = bits & 0xff;
    if low == 0 {
        return EndState::new(if bits & 0x100 != 0 { "R+" } else { "R" });
    }
    let parts: Vec<&str> = (0..8).filter(|i| low & (1 << i) != 0).map(|i| LETTERS[i]).collect();
    EndState::new(&parts.join("|"))
}

/// The kernel bit mask for a state string (inverse of [`end_state`]).
pub(crate) fn prev_state_bits(state: &str) -> i64 {
    const LETTERS: [&str; 8] = ["S", "D", "T", "t", "X", "Z", "P", "I"];
    match state {
        "R" | "" => 0,
        "R+" => 0x100,
        s => s
            .split('|')
            .filter_map(|p| LETTERS.iter().position(|l| *l == p))
            .fold(0, |acc, i| acc | (1 << i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_states_round_trip() {
        for s in ["R", "R+", "S", "D", "D|K", "S|D", "I"] {
            let bits = prev_state_bits(s);
            let back = end_state(bits);
            if s != "D|K" {
                assert_eq!(back.as_str(), s, "{s}");
            }
        }
        assert_eq!(end_state(1).as_str(), "S");
        assert_eq!(end_state(0x100).as_str(), "R+");
    }
}
