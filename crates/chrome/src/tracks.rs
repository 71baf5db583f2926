//! Counters (`C`) and async slices (`b`/`e`/`n`, legacy `S`/`F`), gathered
//! while reading and turned into the model's tracks at the end.

use rustc_hash::FxHashMap;
use tracekit_model::{AsyncSlice, CounterTrack, ThreadId};

/// One series of a counter: a `C` event's argument.
struct Series {
    pid: Option<i64>,
    /// The event's name, with `[id]` when it has an `id`.
    base: String,
    arg: String,
    times: Vec<i64>,
    values: Vec<f64>,
}

/// Counter series by process, name (and id) and argument.
#[derive(Default)]
pub(crate) struct Counters {
    series: Vec<Series>,
    index: FxHashMap<(Option<i64>, String, String), usize>,
}

impl Counters {
    /// Adds a sample of series `arg` of counter `base` in process `pid`.
    pub(crate) fn push(&mut self, pid: Option<i64>, base: &str, arg: &str, t: i64, v: f64) {
        let key = (pid, base.to_owned(), arg.to_owned());
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.series.push(Series {
                    pid,
                    base: key.1.clone(),
                    arg: key.2.clone(),
                    times: Vec::new(),
                    values: Vec::new(),
                });
                self.index.insert(key, self.series.len() - 1);
                self.series.len() - 1
            }
        };
        let s = &mut self.series[i];
        s.times.push(t);
        s.values.push(v);
    }

    /// The tracks: a counter with one series is named as the event, one with
    /// several `name.arg` per series; a name that several processes use
    /// gets ` (pid N)`. Times become ns from `origin`, sorted.
    pub(crate) fn into_tracks(self, origin: i64) -> Vec<CounterTrack> {
        let mut series_of: FxHashMap<(Option<i64>, &str), usize> = FxHashMap::default();
        for s in &self.series {
            *series_of.entry((s.pid, s.base.as_str())).or_default() += 1;
        }
        let names: Vec<String> = self
            .series
            .iter()
            .map(|s| {
                if series_of[&(s.pid, s.base.as_str())] == 1 {
                    s.base.clone()
                } else {
                    format!("{}.{}", s.base, s.arg)
                }
            })
            .collect();
        let mut pids_of: FxHashMap<&str, Vec<Option<i64>>> = FxHashMap::default();
        for (s, n) in self.series.iter().zip(&names) {
            let pids = pids_of.entry(n.as_str()).or_default();
            if !pids.contains(&s.pid) {
                pids.push(s.pid);
            }
        }
        let shared: Vec<bool> = names.iter().map(|n| pids_of[n.as_str()].len() > 1).collect();
        self.series
            .into_iter()
            .zip(names)
            .zip(shared)
            .map(|((s, name), shared)| {
                let name = match (shared, s.pid) {
                    (true, Some(p)) => format!("{name} (pid {p})"),
                    _ => name,
                };
                let mut track = CounterTrack::new(name, None);
                track.pid = s.pid.map(|p| p as u32);
                let mut samples: Vec<(i64, f64)> = s
                    .times
                    .into_iter()
                    .map(|t| t.saturating_sub(origin))
                    .zip(s.values)
                    .collect();
                samples.sort_by_key(|&(t, _)| t);
                (track.times, track.values) = samples.into_iter().unzip();
                track
            })
            .collect()
    }
}

/// What pairs an async begin with its end: category, scope, process (for
/// process-local ids), id, and whether it is a legacy `S`/`F` pair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct AsyncKey {
    pub cat: String,
    pub scope: Option<String>,
    pub pid: Option<i64>,
    pub id: String,
    pub legacy: bool,
}

/// A begun async slice.
struct Open {
    name: String,
    ts: i64,
    thread: u32,
    cookie: u64,
    pid: Option<i64>,
}

/// A finished (or never finished) async slice; `thread` is the builder's index.
struct Done {
    name: String,
    category: Option<String>,
    cookie: u64,
    pid: Option<i64>,
    thread: u32,
    ts: i64,
    dur: i64,
    open: bool,
}

/// Async slices being paired.
#[derive(Default)]
pub(crate) struct Asyncs {
    open: FxHashMap<AsyncKey, Vec<Open>>,
    done: Vec<Done>,
    /// Ends with no begin, ignored.
    pub ends_without_begin: u64,
}

impl Asyncs {
    /// A `b` or `S`.
    pub(crate) fn begin(&mut self, key: AsyncKey, name: &str, ts: i64, thread: u32, cookie: u64, pid: Option<i64>) {
        self.open.entry(key).or_default().push(Open {
            name: name.to_owned(),
            ts,
            thread,
            cookie,
            pid,
        });
    }

    /// An `e` or `F`: ends the innermost open slice of the key with the same
    /// name, or the innermost one when none has the name (or the end has none).
    pub(crate) fn end(&mut self, key: AsyncKey, name: &str, ts: i64) {
        let Some(stack) = self.open.get_mut(&key) else {
            self.ends_without_begin += 1;
            return;
        };
        let i = match stack.iter().rposition(|o| o.name == name) {
            Some(i) => i,
            None if stack.is_empty() => {
                self.ends_without_begin += 1;
                return;
            }
            None => stack.len() - 1,
        };
        let o = stack.remove(i);
        self.done.push(Done {
            name: o.name,
            category: (!key.cat.is_empty()).then(|| key.cat.clone()),
            cookie: o.cookie,
            pid: o.pid,
            thread: o.thread,
            ts: o.ts,
            dur: ts.saturating_sub(o.ts).max(0),
            open: false,
        });
    }

    /// An `n`: a slice of no duration.
    pub(crate) fn instant(&mut self, key: &AsyncKey, name: &str, ts: i64, thread: u32, cookie: u64, pid: Option<i64>) {
        self.done.push(Done {
            name: name.to_owned(),
            category: (!key.cat.is_empty()).then(|| key.cat.clone()),
            cookie,
            pid,
            thread,
            ts,
            dur: 0,
            open: false,
        });
    }

    /// The slices in start order, times from `origin`, threads renumbered
    /// by `thread_of`; also how many were still open at the end.
    pub(crate) fn into_slices(mut self, origin: i64, thread_of: &[u32]) -> (Vec<AsyncSlice>, u64) {
        let mut open = 0;
        for (key, stack) in self.open.drain() {
            for o in stack {
                open += 1;
                self.done.push(Done {
                    name: o.name,
                    category: (!key.cat.is_empty()).then(|| key.cat.clone()),
                    cookie: o.cookie,
                    pid: o.pid,
                    thread: o.thread,
                    ts: o.ts,
                    dur: 0,
                    open: true,
                });
            }
        }
        // Hash-map order is arbitrary: sort fully so the result is stable.
        self.done
            .sort_by(|a, b| (a.ts, &a.name, a.cookie).cmp(&(b.ts, &b.name, b.cookie)));
        let slices = self
            .done
            .into_iter()
            .map(|d| AsyncSlice {
                name: d.name,
                category: d.category,
                cookie: d.cookie,
                pid: d.pid.map(|p| p as u32),
                thread: Some(ThreadId(thread_of[d.thread as usize])),
                ts_ns: (d.ts as u64 ^ (1 << 63)).saturating_sub(origin as u64 ^ (1 << 63)),
                dur_ns: d.dur as u64,
                open: d.open,
            })
            .collect();
        (slices, open)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_named_by_series_and_process() {
        let mut c = Counters::default();
        c.push(Some(1), "mem", "heap", 20, 5.0);
        c.push(Some(1), "mem", "stack", 20, 1.0);
        c.push(Some(1), "mem", "heap", 10, 4.0);
        c.push(Some(1), "fps", "value", 10, 60.0);
        c.push(Some(2), "fps", "value", 15, 30.0);
        let t = c.into_tracks(10);
        let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["mem.heap", "mem.stack", "fps (pid 1)", "fps (pid 2)"]);
        assert_eq!(t[0].times, vec![0, 10]);
        assert_eq!(t[0].values, vec![4.0, 5.0]);
        assert_eq!(t[3].pid, Some(2));
    }

    #[test]
    fn async_slices_pair_by_key_and_name() {
        let key = |id: &str| AsyncKey {
            cat: "net".into(),
            scope: None,
            pid: None,
            id: id.into(),
            legacy: false,
        };
        let mut a = Asyncs::default();
        a.begin(key("1"), "outer", 0, 0, 1, Some(5));
        a.begin(key("1"), "inner", 10, 0, 1, Some(5));
        a.end(key("1"), "outer", 50);
        a.end(key("2"), "x", 60);
        a.begin(key("3"), "never", 70, 0, 3, None);
        let (s, open) = a.into_slices(0, &[4]);
        assert_eq!(open, 2);
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].name.as_str(), s[0].dur_ns, s[0].open), ("outer", 50, false));
        assert!(s[1].open && s[2].open);
        assert_eq!(s[0].thread, Some(ThreadId(4)));
    }
}
