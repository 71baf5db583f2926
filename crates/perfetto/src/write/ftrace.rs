//! What the writer puts in ftrace bundles: scheduling slices as
//! `sched_switch` events, per-CPU frequency and idle counters as
//! `cpu_frequency` / `cpu_idle` events (so Perfetto draws its own CPU
//! tracks), and the lanes async slices are packed into.

use super::{Writer, BUNDLE, SEQ};
use crate::error::Error;
use crate::import::prev_state_bits;
use crate::proto::*;
use std::cmp::Reverse;
use std::io::Write;
use tracekit_model::{CounterKind, CounterTrack, Session, ThreadId};

/// The ftrace event (field number in `FtraceEvent`) a per-CPU counter is
/// written as: `cpuN freq` in kHz → `cpu_frequency`, `cpuN idle` →
/// `cpu_idle`, when every value fits the event's u32 (−1 for idle: left idle).
pub(super) fn cpu_event(c: &CounterTrack) -> Option<(u32, u32)> {
    let cpu = c.cpu?;
    let number = if c.name == format!("cpu{cpu} freq") && c.unit.as_deref() == Some("kHz") {
        11
    } else if c.name == format!("cpu{cpu} idle") && c.unit.is_none() {
        13
    } else {
        return None;
    };
    let fits =
        |v: f64| v.fract() == 0.0 && ((0.0..=f64::from(u32::MAX - 1)).contains(&v) || (number == 13 && v == -1.0));
    (c.kind == CounterKind::Level && c.values.iter().all(|&v| fits(v))).then_some((cpu, number))
}

impl<W: Write> Writer<'_, W> {
    /// Scheduling slices as ftrace `sched_switch` events, per CPU: a switch
    /// from idle (or the previous slice's thread when they touch) at each
    /// start, and to idle at each end that no slice follows at once.
    pub(super) fn sched(&mut self, s: &Session) -> Result<(), Error> {
        let mut cpus: Vec<u32> = s.sched.iter().map(|x| x.cpu).collect();
        cpus.sort_unstable();
        cpus.dedup();
        for cpu in cpus {
            let mut slices: Vec<_> = s.sched.iter().filter(|x| x.cpu == cpu).collect();
            slices.sort_by_key(|x| x.ts_ns);
            let idle = (0u32, format!("swapper/{cpu}").into_bytes(), 120);
            let who = |t: ThreadId, prio: Option<i32>| {
                let th = s.thread(t);
                (th.tid, th.name.clone().into_bytes(), prio.unwrap_or(120))
            };
            let mut events = Vec::new();
            let mut prev: Option<(u64, ThreadId, Option<i32>, i64)> = None; // end, thread, prio, state
            for x in &slices {
                let from = match prev {
                    Some((end, t, prio, state)) if end == x.ts_ns => (who(t, prio), state),
                    Some((end, t, prio, state)) => {
                        events.push(switch(end, who(t, prio), state, idle.clone()));
                        (idle.clone(), 0)
                    }
                    None => (idle.clone(), 0),
                };
                events.push(switch(x.ts_ns, from.0, from.1, who(x.thread, x.priority)));
                let state = x.end_state.map_or(0, |e| prev_state_bits(e.as_str()));
                prev = Some((x.ts_ns + x.dur_ns, x.thread, x.priority, state));
                if x.end_state.is_none() {
                    prev = None; // still running when the trace ended
                }
            }
            if let Some((end, t, prio, state)) = prev {
                events.push(switch(end, who(t, prio), state, idle.clone()));
            }
            for chunk in events.chunks(BUNDLE) {
                let mut chunk = chunk.to_vec();
                for e in &mut chunk {
                    e.timestamp = e.timestamp.map(|t| self.at(t as i64));
                }
                self.packet = TracePacket {
                    trusted_packet_sequence_id: Some(SEQ + 1),
                    ftrace_events: Some(FtraceEventBundle {
                        cpu: Some(cpu),
                        event: chunk,
                    }),
                    ..Default::default()
                };
                self.emit()?;
            }
        }
        Ok(())
    }

    /// Per-CPU frequency and idle counters as the ftrace events they came
    /// from, so Perfetto shows them as its own CPU tracks.
    pub(super) fn cpu_counters(&mut self, s: &Session) -> Result<(), Error> {
        for c in &s.counters {
            let Some((cpu, number)) = cpu_event(c) else {
                continue;
            };
            let events: Vec<FtraceEvent> = c
                .times
                .iter()
                .zip(&c.values)
                .map(|(&t, &v)| {
                    let state = CpuState {
                        state: Some(if v < 0.0 { u32::MAX } else { v as u32 }),
                        cpu_id: Some(cpu),
                    };
                    FtraceEvent {
                        timestamp: Some(self.at(t)),
                        pid: Some(0),
                        cpu_frequency: (number == 11).then(|| state.clone()),
                        cpu_idle: (number == 13).then_some(state),
                        ..Default::default()
                    }
                })
                .collect();
            for chunk in events.chunks(BUNDLE) {
                self.packet = TracePacket {
                    trusted_packet_sequence_id: Some(SEQ + 1),
                    ftrace_events: Some(FtraceEventBundle {
                        cpu: Some(cpu),
                        event: chunk.to_vec(),
                    }),
                    ..Default::default()
                };
                self.emit()?;
            }
        }
        Ok(())
    }
}

/// One `sched_switch` at timeline time `ts` (converted by the caller).
fn switch(ts: u64, from: (u32, Vec<u8>, i32), state: i64, to: (u32, Vec<u8>, i32)) -> FtraceEvent {
    FtraceEvent {
        timestamp: Some(ts),
        pid: Some(from.0),
        sched_switch: Some(SchedSwitch {
            prev_comm: Some(from.1),
            prev_pid: Some(from.0 as i32),
            prev_prio: Some(from.2),
            prev_state: Some(state),
            next_comm: Some(to.1),
            next_pid: Some(to.0 as i32),
            next_prio: Some(to.2),
        }),
        ..Default::default()
    }
}

/// Async slices packed into lanes per (process, category): in each lane
/// slices follow one another without overlapping, so each lane is a
/// Perfetto track on which begin/end pair up. Open slices keep their lane.
#[allow(clippy::type_complexity)]
pub(super) fn lanes(s: &Session) -> Vec<((Option<u32>, Option<String>), Vec<(u64, usize, bool)>)> {
    let mut order: Vec<usize> = (0..s.async_slices.len()).collect();
    order.sort_by_key(|&i| (s.async_slices[i].ts_ns, Reverse(s.async_slices[i].dur_ns)));
    let mut groups: Vec<((Option<u32>, Option<String>), Vec<(u64, Vec<(u64, usize, bool)>)>)> = Vec::new();
    for i in order {
        let a = &s.async_slices[i];
        let key = (a.pid, a.category.clone());
        let g = match groups.iter().position(|g| g.0 == key) {
            Some(g) => g,
            None => {
                groups.push((key, Vec::new()));
                groups.len() - 1
            }
        };
        let lanes = &mut groups[g].1;
        let end = if a.open { u64::MAX } else { a.ts_ns + a.dur_ns };
        let lane = match lanes.iter().position(|l| l.0 <= a.ts_ns) {
            Some(l) => l,
            None => {
                lanes.push((0, Vec::new()));
                lanes.len() - 1
            }
        };
        lanes[lane].0 = end;
        lanes[lane].1.push((a.ts_ns, i, true));
        if !a.open {
            lanes[lane].1.push((end, i, false));
        }
    }
    groups
        .into_iter()
        .flat_map(|(key, lanes)| lanes.into_iter().map(move |l| (key.clone(), l.1)))
        .collect()
}
