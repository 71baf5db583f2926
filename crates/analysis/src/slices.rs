//! Call slices: a thread's enter/exit events paired into nested intervals,
//! stored per nesting depth: the index behind the level-of-detail query
//! ([`Level::boxes`]) and the windowed profile
//! ([`interval_profile`](crate::interval_profile)).

use tracekit_model::{CallColumns, CallKind, MethodId, Session};

/// The call slices of every thread of `session`, in the session's thread order.
pub fn session_slices(session: &Session) -> Vec<ThreadSlices> {
    let methods = session.methods.len();
    session
        .thread_calls()
        .map(|(_, _, calls)| ThreadSlices::build(calls, methods))
        .collect()
}

/// Bit set in [`Level::method`] when the call is a recursive invocation (the
/// same method is already on the thread's stack).
pub const RECURSIVE_BIT: u32 = 1 << 31;

/// Index meaning "no parent" in [`Level::parent`] (depth 0).
pub const NO_PARENT: u32 = u32::MAX;

/// The calls of one nesting depth of one thread, in time order and never
/// overlapping, stored as columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Level {
    /// Enter time (ns, timeline clock).
    pub start: Vec<u64>,
    /// Exit time (ns, timeline clock).
    pub end: Vec<u64>,
    /// Thread-CPU time at entry (empty when the session has no CPU clock).
    pub cpu_start: Vec<u64>,
    /// Thread-CPU time at exit (empty when the session has no CPU clock).
    pub cpu_end: Vec<u64>,
    /// Method id, with [`RECURSIVE_BIT`] set for recursive invocations.
    pub method: Vec<u32>,
    /// Index of the enclosing call in the level above ([`NO_PARENT`] at depth 0).
    pub parent: Vec<u32>,
    /// Inclusive energy of each call, J, when power was attributed to
    /// calls (`tracekit-attribution`); empty otherwise.
    pub energy: Vec<f64>,
}

impl Level {
    /// Number of calls at this depth.
    pub fn len(&self) -> usize {
        self.start.len()
    }

    /// True when the level holds no call.
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// True when the level carries thread-CPU times.
    pub fn has_cpu(&self) -> bool {
        !self.cpu_start.is_empty()
    }

    /// True when the level carries call energies.
    pub fn has_energy(&self) -> bool {
        !self.energy.is_empty() && self.energy.len() == self.start.len()
    }

    /// The method of call `i` without the recursion bit.
    pub fn method_id(&self, i: usize) -> MethodId {
        MethodId(self.method[i] & !RECURSIVE_BIT)
    }

    /// True when call `i` is a recursive invocation.
    pub fn is_recursive(&self, i: usize) -> bool {
        self.method[i] & RECURSIVE_BIT != 0
    }

    /// Index of the first call that ends after `t` (calls of one level do not
    /// overlap, so ends are sorted like starts).
    pub fn first_ending_after(&self, t: u64) -> usize {
        self.end.partition_point(|&e| e <= t)
    }

    /// What to draw for the window `[t0, t1)` at `ns_per_px` nanoseconds per
    /// pixel: calls at least one pixel wide as they are, and narrower calls
    /// merged into one aggregate box per pixel column, labelled with the
    /// column's first method (adjacent columns with the same label merge
    /// further). Costs O(pixels · log n), not O(calls).
    pub fn boxes(&self, t0: u64, t1: u64, ns_per_px: f64) -> Vec<DrawBox> {
        let mut out: Vec<DrawBox> = Vec::new();
        let n = self.len();
        let px = ns_per_px.max(1e-9);
        let mut i = self.first_ending_after(t0);
        while i < n && self.start[i] < t1 {
            let (s, e) = (self.start[i], self.end[i]);
            if (e - s) as f64 >= px {
                out.push(DrawBox {
                    start: s,
                    end: e,
                    method: self.method_id(i).0,
                    count: 1,
                    first: i as u32,
                });
                i += 1;
                continue;
            }
            // Everything starting before the next pixel edge folds into one box.
            let col = ((s.max(t0) - t0) as f64 / px).floor() + 1.0;
            let edge = t0 as f64 + col * px;
            let edge = if edge >= u64::MAX as f64 {
                u64::MAX
            } else {
                edge.ceil() as u64
            };
            let j = gallop(&self.start, i + 1, edge);
            let end = self.end[j - 1];
            let method = self.method_id(i).0;
            match out.last_mut() {
                Some(last) if last.count > 1 && last.method == method && last.end as f64 + px >= s as f64 => {
                    last.end = last.end.max(end);
                    last.count += (j - i) as u32;
                }
                _ => out.push(DrawBox {
                    start: s,
                    end,
                    method,
                    count: (j - i) as u32,
                    first: i as u32,
                }),
            }
            i = j;
        }
        out
    }
}

/// First index `>= from` whose value is `>= target` in a sorted slice,
/// searching outward from `from` (exponential search): the answer is usually
/// near, and nearby memory is cached, which matters on ten-million-call
/// arrays where a plain binary search misses the cache at every step.
pub fn gallop(v: &[u64], from: usize, target: u64) -> usize {
    let n = v.len();
    let mut lo = from;
    let mut step = 1;
    let mut hi = from;
    while hi < n && v[hi] < target {
        lo = hi + 1;
        hi = from + step;
        step *= 2;
    }
    let hi = hi.min(n);
    lo + v[lo..hi].partition_point(|&x| x < target)
}

/// One box the timeline draws: a call (`count == 1`) or an aggregate of
/// `count` calls too short to see, labelled with the first one's method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct DrawBox {
    /// Start (ns).
    pub start: u64,
    /// End (ns).
    pub end: u64,
    /// Method of the call (of the first call for an aggregate).
    pub method: u32,
    /// How many calls the box stands for.
    pub count: u32,
    /// Index of the (first) call in its level.
    pub first: u32,
}

/// All calls of one thread as nested slices, one [`Level`] per depth.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadSlices {
    /// Depth 0 first.
    pub levels: Vec<Level>,
}

impl ThreadSlices {
    /// Pairs enter and exit events into slices. An exit that does not match
    /// the innermost open call closes the calls above its own entry; an exit
    /// with no entry is skipped; calls still open at the end close at the
    /// thread's last event (importers report such repairs themselves).
    pub fn build(calls: &CallColumns, method_count: usize) -> ThreadSlices {
        let with_cpu = calls.has_cpu();
        let mut levels: Vec<Level> = Vec::new();
        let mut stack: Vec<(u32, usize)> = Vec::new(); // (method, index in level)
        let mut active = vec![0u32; method_count.max(1)];
        let mut last_ts = 0u64;
        let mut last_cpu = 0u64;
        for e in calls.iter() {
            // Clocks that step back (a broken file) are held still, so every
            // level stays sorted and no call ends before it starts.
            last_ts = e.ts_ns.max(last_ts);
            last_cpu = e.cpu_ns.unwrap_or(last_cpu).max(last_cpu);
            let m = e.method.0;
            if active.len() <= m as usize {
                active.resize(m as usize + 1, 0);
            }
            match e.kind {
                CallKind::Enter => {
                    let depth = stack.len();
                    if levels.len() <= depth {
                        levels.push(Level::default());
                    }
                    let parent = stack.last().map_or(NO_PARENT, |&(_, i)| i as u32);
                    let rec = if active[m as usize] > 0 { RECURSIVE_BIT } else { 0 };
                    active[m as usize] += 1;
                    let l = &mut levels[depth];
                    l.start.push(last_ts);
                    l.end.push(last_ts);
                    if with_cpu {
                        l.cpu_start.push(last_cpu);
                        l.cpu_end.push(last_cpu);
                    }
                    l.method.push(m | rec);
                    l.parent.push(parent);
                    stack.push((m, l.len() - 1));
                }
                CallKind::Exit | CallKind::Unwind => {
                    let Some(pos) = stack.iter().rposition(|&(sm, _)| sm == m) else {
                        continue;
                    };
                    while stack.len() > pos {
                        let (sm, i) = stack.pop().expect("non-empty");
                        active[sm as usize] -= 1;
                        let l = &mut levels[stack.len()];
                        l.end[i] = last_ts;
                        if with_cpu {
                            l.cpu_end[i] = last_cpu;
                        }
                    }
                }
            }
        }
        while let Some((_, i)) = stack.pop() {
            let l = &mut levels[stack.len()];
            l.end[i] = last_ts;
            if with_cpu {
                l.cpu_end[i] = last_cpu;
            }
        }
        ThreadSlices { levels }
    }

    /// Number of calls over all depths.
    pub fn call_count(&self) -> usize {
        self.levels.iter().map(Level::len).sum()
    }

    /// Deepest nesting (number of levels).
    pub fn depth(&self) -> usize {
        self.levels.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::CallEvent;

    fn cols(ev: &[(u32, char, u64)]) -> CallColumns {
        let mut c = CallColumns::new();
        for &(m, k, t) in ev {
            let m = MethodId(m);
            c.push(match k {
                'e' => CallEvent::enter(m, t, Some(t / 2)),
                'x' => CallEvent::exit(m, t, Some(t / 2)),
                _ => CallEvent::unwind(m, t, Some(t / 2)),
            });
        }
        c
    }

    #[test]
    fn nests_and_marks_recursion() {
        let c = cols(&[
            (0, 'e', 0),
            (1, 'e', 10),
            (1, 'e', 12),
            (1, 'x', 14),
            (1, 'u', 20),
            (2, 'e', 30),
            (2, 'x', 40),
            (0, 'x', 100),
        ]);
        let s = ThreadSlices::build(&c, 3);
        assert_eq!(s.depth(), 3);
        assert_eq!(s.call_count(), 4);
        assert_eq!(s.levels[0].start, vec![0]);
        assert_eq!(s.levels[0].end, vec![100]);
        assert_eq!(s.levels[1].start, vec![10, 30]);
        assert_eq!(s.levels[1].end, vec![20, 40]);
        assert_eq!(s.levels[1].parent, vec![0, 0]);
        assert!(s.levels[2].is_recursive(0));
        assert!(!s.levels[1].is_recursive(0));
        assert_eq!(s.levels[2].cpu_end, vec![7]);
    }

    #[test]
    fn repairs_unbalanced_input() {
        // exit without entry, an exit skipping an inner call, a call left open.
        let c = cols(&[
            (5, 'x', 1),
            (0, 'e', 2),
            (1, 'e', 3),
            (0, 'x', 9),
            (2, 'e', 10),
            (2, 'e', 11),
        ]);
        let s = ThreadSlices::build(&c, 3);
        assert_eq!(s.levels[0].start, vec![2, 10]);
        assert_eq!(s.levels[0].end, vec![9, 11]);
        assert_eq!(s.levels[1].end, vec![9, 11]);
    }

    #[test]
    fn gallop_finds_the_first_not_smaller() {
        let v: Vec<u64> = (0..1000).map(|x| x * 2).collect();
        for from in [0, 1, 7, 500, 999, 1000] {
            for target in [0, 1, 2, 3, 100, 1997, 1998, 1999, 5000] {
                let want = from + v[from..].partition_point(|&x| x < target);
                assert_eq!(gallop(&v, from, target), want, "from {from} target {target}");
            }
        }
    }

    #[test]
    fn level_of_detail_aggregates_sub_pixel_calls() {
        let mut l = Level::default();
        // 1000 calls of 1 ns every 10 ns, then one long call.
        for k in 0..1000u64 {
            l.start.push(k * 10);
            l.end.push(k * 10 + 1);
            l.method.push(3);
            l.parent.push(NO_PARENT);
        }
        l.start.push(20_000);
        l.end.push(30_000);
        l.method.push(4);
        l.parent.push(NO_PARENT);
        let b = l.boxes(0, 40_000, 100.0);
        let total: u32 = b.iter().map(|b| b.count).sum();
        assert_eq!(total, 1001, "every call is accounted for");
        assert_eq!(b.len(), 2, "one merged run and the long call: {b:?}");
        assert_eq!(
            b[1],
            DrawBox {
                start: 20_000,
                end: 30_000,
                method: 4,
                count: 1,
                first: 1000
            }
        );
        // Zoomed in far enough, every call is its own box.
        let b = l.boxes(0, 100, 0.5);
        assert_eq!(b.len(), 10);
        assert!(b.iter().all(|b| b.count == 1));
        // A window after everything is empty; one inside the long call shows it.
        assert!(l.boxes(31_000, 40_000, 1.0).is_empty());
        assert_eq!(l.boxes(25_000, 26_000, 1.0).len(), 1);
    }
}
