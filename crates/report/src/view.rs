//! The view model: a session prepared for drawing (call slices per thread,
//! the time span, the small tracks as JSON-ready metadata).

use serde::Serialize;
use serde_json::{json, Value};
use tracekit_analysis::ThreadSlices;
use tracekit_model::{ContextSamples, Session};

/// A session prepared for the viewer. Built once; both the HTML report and
/// the web UI read it.
#[derive(Debug, Clone)]
pub struct ViewModel {
    /// Session name.
    pub name: String,
    /// First and last timestamp over calls, markers and context (ns).
    pub span: (u64, u64),
    /// Call slices, one entry per thread (same order as the session's threads).
    pub threads: Vec<ThreadSlices>,
    /// Everything small enough to send whole: methods, thread names, context
    /// and counter tracks, markers, repairs (see [`ViewModel::meta`]).
    meta: Value,
}

/// Most scheduling slices sent per CPU: a row holds what a viewer can draw
/// at once (the rest is counted in the row's `omitted`).
pub const MAX_SCHED_PER_CPU: usize = 200_000;

/// One row per CPU: the scheduling slices as columns (start, duration,
/// thread index, end state), in time order.
fn cpu_rows(session: &Session) -> Vec<Value> {
    let mut by_cpu: std::collections::BTreeMap<u32, Vec<&tracekit_model::SchedSlice>> = Default::default();
    for s in &session.sched {
        by_cpu.entry(s.cpu).or_default().push(s);
    }
    by_cpu
        .into_iter()
        .map(|(cpu, mut slices)| {
            slices.sort_by_key(|s| s.ts_ns);
            let omitted = slices.len().saturating_sub(MAX_SCHED_PER_CPU);
            slices.truncate(MAX_SCHED_PER_CPU);
            json!({
                "cpu": cpu,
                "ts": slices.iter().map(|s| s.ts_ns).collect::<Vec<_>>(),
                "dur": slices.iter().map(|s| s.dur_ns).collect::<Vec<_>>(),
                "thread": slices.iter().map(|s| s.thread.0).collect::<Vec<_>>(),
                "state": slices.iter().map(|s| s.end_state.map(|e| e.as_str().to_owned()).unwrap_or_default()).collect::<Vec<_>>(),
                "omitted": omitted,
            })
        })
        .collect()
}

/// Per-thread facts sent with the metadata.
#[derive(Debug, Serialize)]
struct ThreadMeta {
    name: String,
    tid: u32,
    depth: usize,
    calls: usize,
}

impl ViewModel {
    /// Prepares `session` for drawing.
    pub fn new(session: &Session) -> ViewModel {
        let threads: Vec<ThreadSlices> = tracekit_analysis::session_slices(session);
        let (mut lo, mut hi) = session.time_span().unwrap_or((u64::MAX, 0));
        for t in &session.context {
            if let (Some(&a), Some(&b)) = (t.times.first(), t.times.last()) {
                lo = lo.min(a.max(0) as u64);
                hi = hi.max(b.max(0) as u64);
            }
        }
        for c in &session.counters {
            if let (Some(&a), Some(&b)) = (c.times.first(), c.times.last()) {
                lo = lo.min(a.max(0) as u64);
                hi = hi.max(b.max(0) as u64);
            }
        }
        if lo > hi {
            (lo, hi) = (0, 1);
        }
        if hi == lo {
            hi = lo + 1;
        }
        let thread_meta: Vec<ThreadMeta> = session
            .threads
            .iter()
            .zip(&threads)
            .map(|(t, s)| ThreadMeta {
                name: t.label(),
                tid: t.tid,
                depth: s.depth(),
                calls: s.call_count(),
            })
            .collect();
        let methods: Vec<Value> = session
            .methods
            .iter()
            .map(|(_, m)| json!({"name": m.qualified_name(), "sig": m.signature}))
            .collect();
        let context: Vec<Value> = session
            .context
            .iter()
            .map(|t| {
                let values = match &t.samples {
                    ContextSamples::Int(v) => json!(v),
                    ContextSamples::Long(v) => json!(v),
                    ContextSamples::Float(v) => json!(v),
                    ContextSamples::Double(v) => json!(v),
                    ContextSamples::String(v) => json!(v),
                };
                json!({"label": t.label, "type": t.kind().name(), "unit": t.unit, "times": t.times, "values": values})
            })
            .collect();
        let counters: Vec<Value> = session
            .counters
            .iter()
            .map(|c| json!({"name": c.name, "unit": c.unit, "kind": c.kind, "wrapsAt": c.wraps_at, "times": c.times, "values": c.values}))
            .collect();
        let cpus = cpu_rows(session);
        let markers: Vec<Value> = session
            .markers
            .iter()
            .map(|m| json!({"ts": m.ts_ns, "thread": m.thread.0, "name": m.name}))
            .collect();
        let meta = json!({
            "name": session.name,
            "clocks": session.clocks.name(),
            "hasCpu": session.clocks.thread_cpu,
            "span": [lo, hi],
            // Where the last held context value stops holding (hints).
            "horizon": tracekit_analysis::problems::horizon(session),
            "methods": methods,
            "threads": thread_meta,
            "context": context,
            "counters": counters,
            "markers": markers,
            "cpus": cpus,
            "repairs": session.repairs,
            "lostEvents": session.lost_events,
            "totalCalls": threads.iter().map(ThreadSlices::call_count).sum::<usize>(),
            "hasEnergy": false,
        });
        ViewModel {
            name: session.name.clone(),
            span: (lo, hi),
            threads,
            meta,
        }
    }

    /// Metadata as JSON: name, clocks, span, methods, threads, context and
    /// counter tracks, markers, repairs, total calls.
    pub fn meta(&self) -> &Value {
        &self.meta
    }

    /// Adds energy, computed elsewhere (`tracekit-attribution`): the call
    /// slices' energy columns are already filled in `threads`; `summary`
    /// (where the power came from, totals) and `power_stack` (power per
    /// bin per process and per thread) go to the metadata as `energy` and
    /// `powerStack`. The page then shows energy columns, an
    /// energy-weighted flame graph and stacked power rows.
    pub fn set_energy(&mut self, summary: Value, power_stack: Value) {
        self.meta["hasEnergy"] = Value::Bool(self.threads.iter().any(|t| t.levels.iter().any(|l| l.has_energy())));
        self.meta["energy"] = summary;
        self.meta["powerStack"] = power_stack;
    }

    /// Adds a counter row computed from the session rather than read from
    /// it (power from V·I, cumulative energy): drawn like the session's
    /// counters, flagged `derived` in the metadata.
    pub fn add_derived_counter(&mut self, name: &str, unit: &str, times: &[i64], values: &[f64]) {
        if let Some(list) = self.meta["counters"].as_array_mut() {
            list.push(json!({"name": name, "unit": unit, "times": times, "values": values, "derived": true}));
        }
    }

    /// Gives the last derived counter (the cumulative energy, J) the power
    /// it integrates (W, at the same times) and the rule joining the
    /// samples (`trapezoid`, `left-hold`, `right-hold`), so that the page
    /// can take the energy of any interval exactly.
    pub fn set_energy_curve(&mut self, watts: &[f64], rule: &str) {
        if let Some(c) = self.meta["counters"].as_array_mut().and_then(|l| l.last_mut()) {
            c["power"] = json!(watts);
            c["rule"] = json!(rule);
        }
    }

    /// Total number of calls over all threads.
    pub fn call_count(&self) -> usize {
        self.threads.iter().map(ThreadSlices::call_count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::*;

    #[test]
    fn meta_lists_tracks_and_span() {
        let mut s = Session::new("m", Clocks::WALL);
        let t = s.add_thread(Thread::new(3, "main"));
        let f = s.methods.intern(Method::new("a/B", "f", "()V"));
        s.calls_mut(t).push(CallEvent::enter(f, 100, None));
        s.calls_mut(t).push(CallEvent::exit(f, 200, None));
        let mut c = ContextTrack::new("Battery", ContextType::Float);
        c.push(50, ContextValue::Float(0.5));
        c.push(300, ContextValue::Float(0.25));
        s.context.push(c);
        let v = ViewModel::new(&s);
        assert_eq!(v.span, (50, 300));
        assert_eq!(v.meta()["threads"][0]["name"], "main");
        assert_eq!(v.meta()["methods"][0]["name"], "a.B.f");
        assert_eq!(v.meta()["context"][0]["values"][1], 0.25);
        assert_eq!(v.meta()["context"][0]["type"], "float");
        assert_eq!(v.call_count(), 1);
    }
}
