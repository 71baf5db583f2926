//! The end of an import: held events placed, open slices closed, each
//! thread's calls sorted and paired where they came out of order, and every
//! time moved from the trace clock onto the session's timeline.

use super::threads::UNKNOWN_METHOD;
use super::Importer;
use crate::repair;
use tracekit_model::{CallColumns, CallEvent, CallKind, Clocks, Session, SourceClock, ThreadId};

impl Importer {
    pub(crate) fn finish(mut self) -> Session {
        self.place_pending();
        self.close_open_spans();
        self.close_running();
        if self.clocks.unknown_clock > 0 {
            self.tally
                .repairs
                .insert(repair::UNKNOWN_CLOCK, self.clocks.unknown_clock);
        }
        // Timeline 0: the earliest event, or the first clock snapshot (the
        // start of tracing) when that came first. Counter samples may come
        // before it (negative times, as a context log may start first).
        let origin = match (
            self.min_ts.min(self.clocks.earliest_boot.unwrap_or(u64::MAX)),
            self.min_sample,
        ) {
            (u64::MAX, u64::MAX) => 0,
            (u64::MAX, m) => m,
            (e, _) => e,
        };
        self.finish_calls(origin);
        let s = &mut self.s;
        for m in &mut s.markers {
            m.ts_ns -= origin.min(m.ts_ns);
        }
        s.markers.sort_by_key(|m| m.ts_ns);
        for x in &mut s.sched {
            x.ts_ns -= origin.min(x.ts_ns);
        }
        s.sched.sort_by_key(|x| (x.ts_ns, x.cpu));
        for a in &mut s.async_slices {
            a.ts_ns -= origin.min(a.ts_ns);
        }
        s.async_slices.sort_by_key(|a| a.ts_ns);
        for (c, times) in s.context.iter_mut().zip(std::mem::take(&mut self.text_times)) {
            c.times = times.into_iter().map(|t| t.wrapping_sub(origin) as i64).collect();
        }
        s.counters.retain(|c| !c.is_empty());
        for c in &mut s.counters {
            for t in &mut c.times {
                *t = t.wrapping_sub(origin as i64);
            }
            if c.times.windows(2).any(|w| w[1] < w[0]) {
                let mut pairs: Vec<(i64, f64)> = c.times.iter().copied().zip(c.values.iter().copied()).collect();
                pairs.sort_by_key(|p| p.0);
                (c.times, c.values) = pairs.into_iter().unzip();
            }
        }
        if let Some((realtime, boot)) = self.clocks.realtime_pair {
            s.anchor_unix_ns = Some((i128::from(realtime) + i128::from(origin) - i128::from(boot)) as i64);
        }
        if self.max_ts >= origin && (self.min_ts != u64::MAX || self.min_sample != u64::MAX) {
            s.duration_ns = Some(self.max_ts - origin);
        }
        s.source_clock = Some(SourceClock {
            name: "boot".into(),
            origin_ns: origin as i64,
        });
        self.threads.apply(&mut self.s);
        self.flush_tally();
        self.s
    }

    /// Sorts and pairs each thread's calls where needed, closes what is
    /// still open, decides whether the session has thread-CPU time, and
    /// moves the times onto the timeline.
    fn finish_calls(&mut self, origin: u64) {
        let n = self.s.threads.len();
        let mut any = false;
        let mut all_cpu = true;
        for i in 0..n {
            let b = &self.threads.build[i];
            if self.s.calls(ThreadId(i as u32)).is_empty() {
                continue;
            }
            any = true;
            all_cpu &= b.with_cpu > 0 && b.without_cpu == 0;
        }
        let thread_cpu = any && all_cpu;
        self.s.clocks = if thread_cpu { Clocks::DUAL } else { Clocks::WALL };
        for i in 0..n {
            let t = ThreadId(i as u32);
            if self.s.calls(t).is_empty() {
                continue;
            }
            let b = &mut self.threads.build[i];
            let calls = self.s.calls(t);
            if b.rebuild || (calls.has_cpu() && !thread_cpu) {
                let (cols, unmatched, open) = rebalance(calls, thread_cpu);
                self.tally
                    .repairs
                    .entry(repair::END_WITHOUT_BEGIN)
                    .and_modify(|c| *c += unmatched)
                    .or_insert(unmatched);
                self.tally
                    .repairs
                    .entry(repair::OPEN_AT_END)
                    .and_modify(|c| *c += open)
                    .or_insert(open);
                self.s.set_calls(t, cols);
            } else if !b.stack.is_empty() {
                let last = calls.get(calls.len() - 1);
                let open = b.stack.len() as u64;
                let cols = self.s.calls_mut(t);
                while let Some(m) = b.stack.pop() {
                    cols.push(CallEvent::exit(m, last.ts_ns, last.cpu_ns));
                }
                *self.tally.repairs.entry(repair::OPEN_AT_END).or_default() += open;
            }
            // Thread-CPU times stay as the trace gives them (CPU time since
            // the thread started): only their differences matter.
            let cols = self.s.calls_mut(t);
            cols.shift_earlier(origin, 0);
            cols.shrink_to_fit();
        }
        self.tally.repairs.retain(|_, c| *c > 0);
    }
}

/// A thread's calls sorted by time (ties keep file order) and paired: each
/// end closes the innermost open slice; an end with nothing open is
/// dropped; slices open at the end close at the last time. Returns the
/// columns, the ends dropped and the slices closed.
fn rebalance(calls: &CallColumns, keep_cpu: bool) -> (CallColumns, u64, u64) {
    let mut events: Vec<CallEvent> = calls.iter().collect();
    events.sort_by_key(|e| e.ts_ns);
    let mut out = CallColumns::with_capacity(events.len(), keep_cpu);
    let mut stack = Vec::new();
    let mut unmatched = 0;
    let (mut last_ts, mut last_cpu) = (0, None);
    for mut e in events {
        if !keep_cpu {
            e.cpu_ns = None;
        }
        last_ts = e.ts_ns;
        last_cpu = e.cpu_ns;
        match e.kind {
            CallKind::Enter => {
                stack.push(e.method);
                out.push(e);
            }
            _ => match stack.pop() {
                Some(m) => out.push(CallEvent { method: m, ..e }),
                None => unmatched += 1,
            },
        }
    }
    let open = stack.len() as u64;
    while let Some(m) = stack.pop() {
        debug_assert_ne!(m, UNKNOWN_METHOD);
        out.push(CallEvent::exit(m, last_ts, last_cpu));
    }
    (out, unmatched, open)
}
