//! One pass in time order over everything that changes who runs: each
//! thread's call events, scheduling slices and CPU frequency changes, the
//! window's edges and the view's bin edges.
//!
//! Between two consecutive change points every thread's weight is
//! constant, so the excess energy of that stretch is shared in proportion
//! to the weights. Rather than touch every running thread at every change
//! point, the sweep keeps `G`, the excess energy per unit of weight since
//! the start (`G += ΔE / W`), and charges a thread `w · (G − G_then)` only
//! when its own weight or its top-of-stack method changes: O(1) per event
//! whatever the number of threads. `G` is kept as a double-double and `W`
//! with compensated sums, so the charges add up to the measured energy to
//! within a few ulps even over tens of millions of events.

use crate::curve::{Cum, CurveCursor, SplitCurve};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tracekit_analysis::IntervalSet;
use tracekit_model::{CallKind, Session};
use tracekit_powermodel::{CorePower, Step};

/// Where thread weights come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Scheduling slices: a thread weighs its CPU's factor while on it.
    Sched,
    /// The method trace: the thread's CPU time over wall time between its
    /// events (`cpu_clock`), or 1 while it is inside a call.
    Calls { cpu_clock: bool },
}

/// What the sweep needs.
pub(crate) struct Input<'a> {
    pub session: &'a Session,
    pub curve: &'a SplitCurve,
    pub window: Option<&'a IntervalSet>,
    pub mode: Mode,
    pub cpu_power: Option<&'a dyn CorePower>,
    pub methods: bool,
    pub record_calls: bool,
    /// First bin start, bin width and count.
    pub bins: Option<(i64, i64, usize)>,
}

/// One method's energy on one thread.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct MethodAcc {
    pub incl: f64,
    pub excl: f64,
    pub calls: u64,
}

/// Per-bin energies.
#[derive(Debug, Clone, Default)]
pub(crate) struct BinsRaw {
    pub idle: Vec<f64>,
    pub unattributed: Vec<f64>,
    /// Thread-major: `threads[t][b]`.
    pub threads: Vec<Vec<f64>>,
}

/// What the sweep found.
#[derive(Debug, Clone, Default)]
pub(crate) struct Output {
    pub measured_j: f64,
    pub idle_j: f64,
    pub unattributed_j: f64,
    pub outside_methods_j: f64,
    pub thread_j: Vec<f64>,
    /// Per thread: `(method id, accumulators)`.
    pub methods: Vec<Vec<(u32, MethodAcc)>>,
    /// Per thread: the thread's cumulative energy at each of its call events.
    pub call_cum: Option<Vec<Vec<f64>>>,
    pub bins: Option<BinsRaw>,
    /// Time inside the window and the power data, ns.
    pub covered_ns: i64,
}

/// A double-double running sum.
#[derive(Debug, Clone, Copy, Default)]
struct Dd {
    hi: f64,
    lo: f64,
}

impl Dd {
    #[inline]
    fn add(&mut self, x: f64) {
        let s = self.hi + x;
        let bp = s - self.hi;
        let err = (self.hi - (s - bp)) + (x - bp);
        self.hi = s;
        self.lo += err;
    }

    #[inline]
    fn since(&self, then: &Dd) -> f64 {
        (self.hi - then.hi) + (self.lo - then.lo)
    }
}

struct Frame {
    local: u32,
    c_enter: f64,
    outermost: bool,
}

#[derive(Default)]
struct Thread {
    w: f64,
    g: Dd,
    energy: f64,
    stack: Vec<Frame>,
    next: usize,
    local: FxHashMap<u32, u32>,
    ids: Vec<u32>,
    acc: Vec<MethodAcc>,
    on_stack: Vec<u32>,
    cpus_on: u32,
    bin_mark: f64,
    cum: Vec<f64>,
}

struct State<'a> {
    g: Dd,
    w_sum: Dd,
    active: usize,
    th: Vec<Thread>,
    out: Output,
    methods: bool,
    cursor: CurveCursor<'a>,
    last: Cum,
}

impl State<'_> {
    /// Charges thread `i` for the time since its last charge.
    #[inline]
    fn flush(&mut self, i: usize) {
        let t = &mut self.th[i];
        let dg = self.g.since(&t.g);
        t.g = self.g;
        if t.w == 0.0 || dg == 0.0 {
            return;
        }
        let e = t.w * dg;
        t.energy += e;
        self.out.thread_j[i] += e;
        match t.stack.last() {
            Some(f) if self.methods => t.acc[f.local as usize].excl += e,
            Some(_) => {}
            None => self.out.outside_methods_j += e,
        }
    }

    /// Sets thread `i`'s weight (after flushing it).
    #[inline]
    fn set_weight(&mut self, i: usize, w: f64) {
        let old = self.th[i].w;
        if old == w {
            return;
        }
        self.flush(i);
        self.th[i].w = w;
        match (old > 0.0, w > 0.0) {
            (false, true) => self.active += 1,
            (true, false) => self.active -= 1,
            _ => {}
        }
        if self.active == 0 {
            self.w_sum = Dd::default();
        } else {
            self.w_sum.add(w - old);
        }
    }

    /// Shares the energy of `[prev, t]` (inside the window when `inside`).
    #[inline]
    fn accrue(&mut self, t: i64, inside: bool) {
        let now = self.cursor.at(t);
        let (db, dx) = (now.base - self.last.base, now.excess - self.last.excess);
        self.last = now;
        if !inside {
            return;
        }
        self.out.idle_j += db;
        self.out.measured_j += db + dx;
        let w = self.w_sum.hi + self.w_sum.lo;
        if self.active > 0 && w > 0.0 {
            self.g.add(dx / w);
        } else {
            self.out.unattributed_j += dx;
        }
    }
}

/// The next call event of each thread, in time order: a linear scan over
/// a few threads (faster than a heap for the handful a method trace
/// usually has), a binary heap beyond.
enum Merge {
    Few { heads: Vec<(i64, u32)>, min: usize },
    Many(BinaryHeap<Reverse<(i64, u32)>>),
}

/// Threads up to which [`Merge`] scans instead of keeping a heap.
const FEW_THREADS: usize = 16;

impl Merge {
    fn new(threads: usize) -> Merge {
        if threads <= FEW_THREADS {
            Merge::Few {
                heads: Vec::with_capacity(threads),
                min: 0,
            }
        } else {
            Merge::Many(BinaryHeap::with_capacity(threads))
        }
    }

    #[inline]
    fn peek(&self) -> Option<(i64, u32)> {
        match self {
            Merge::Few { heads, min } => heads.get(*min).copied(),
            Merge::Many(h) => h.peek().map(|r| r.0),
        }
    }

    #[inline]
    fn fix_min(heads: &[(i64, u32)]) -> usize {
        let mut m = 0;
        for i in 1..heads.len() {
            if heads[i] < heads[m] {
                m = i;
            }
        }
        m
    }

    #[inline]
    fn pop(&mut self) {
        match self {
            Merge::Few { heads, min } => {
                heads.swap_remove(*min);
                *min = Merge::fix_min(heads);
            }
            Merge::Many(h) => {
                h.pop();
            }
        }
    }

    #[inline]
    fn push(&mut self, t: i64, i: u32) {
        match self {
            Merge::Few { heads, min } => {
                heads.push((t, i));
                if heads.len() == 1 || (t, i) < heads[*min] {
                    *min = heads.len() - 1;
                }
            }
            Merge::Many(h) => h.push(Reverse((t, i))),
        }
    }

    /// Replaces the earliest head by `(t, i)`, or removes it (`None`).
    #[inline]
    fn replace_min(&mut self, next: Option<(i64, u32)>) {
        match (self, next) {
            (Merge::Few { heads, min }, Some(x)) => {
                heads[*min] = x;
                *min = Merge::fix_min(heads);
            }
            (m, None) => m.pop(),
            (Merge::Many(h), Some(x)) => {
                if let Some(mut top) = h.peek_mut() {
                    *top = Reverse(x);
                }
            }
        }
    }
}

/// Sorted scheduling events: `(time, 0 = end / 1 = start, cpu, thread)`.
fn sched_events(s: &Session) -> Vec<(i64, u8, u32, u32)> {
    let mut v: Vec<(i64, u8, u32, u32)> = Vec::with_capacity(s.sched.len() * 2);
    for x in &s.sched {
        v.push((x.ts_ns as i64, 1, x.cpu, x.thread.0));
        v.push(((x.ts_ns + x.dur_ns) as i64, 0, x.cpu, x.thread.0));
    }
    v.sort_unstable();
    v
}

/// Sorted frequency changes `(time, cpu, khz)` and each CPU's first frequency.
fn freq_events(s: &Session, ncpu: usize) -> (Vec<(i64, u32, f64)>, Vec<f64>) {
    let mut first = vec![0.0; ncpu];
    let mut v = Vec::new();
    for c in s.counters.iter().filter(|c| c.name.ends_with(" freq") && !c.is_empty()) {
        let Some(cpu) = c.cpu.filter(|&x| (x as usize) < ncpu) else {
            continue;
        };
        let f = if c.unit.as_deref().is_some_and(|u| u.eq_ignore_ascii_case("Hz")) {
            1e-3
        } else {
            1.0
        };
        let step = Step::new(
            c.times.clone(),
            c.values.iter().map(|v| v * f).collect(),
            c.values[0] * f,
        );
        first[cpu as usize] = c.values[0] * f;
        v.extend(step.times().iter().zip(step.values()).map(|(&t, &khz)| (t, cpu, khz)));
    }
    v.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    (v, first)
}

/// Runs the sweep.
pub(crate) fn run(inp: &Input<'_>) -> Output {
    let s = inp.session;
    let nthreads = s.threads.len();
    let mut st = State {
        g: Dd::default(),
        w_sum: Dd::default(),
        active: 0,
        th: (0..nthreads).map(|_| Thread::default()).collect(),
        out: Output {
            thread_j: vec![0.0; nthreads],
            ..Output::default()
        },
        methods: inp.methods,
        cursor: inp.curve.cursor(),
        last: Cum::default(),
    };
    // Streams.
    let sched = if inp.mode == Mode::Sched {
        sched_events(s)
    } else {
        Vec::new()
    };
    let ncpu = s.sched.iter().map(|x| x.cpu as usize + 1).max().unwrap_or(0);
    let (freqs, first_freq) = match (inp.mode, inp.cpu_power) {
        (Mode::Sched, Some(_)) => freq_events(s, ncpu),
        _ => (Vec::new(), vec![0.0; ncpu]),
    };
    let factor = |cpu: u32, khz: f64| match inp.cpu_power {
        Some(m) => m.core_power_w(cpu, khz).unwrap_or(0.0).max(0.0),
        None => 1.0,
    };
    let mut cpu_factor: Vec<f64> = (0..ncpu).map(|c| factor(c as u32, first_freq[c])).collect();
    let mut cpu_on: Vec<Option<u32>> = vec![None; ncpu];
    let edges: Vec<(i64, bool)> = match inp.window {
        Some(w) => w
            .spans()
            .iter()
            .flat_map(|x| [(x.start, true), (x.end, false)])
            .collect(),
        None => Vec::new(),
    };
    let mut inside = inp.window.is_none();
    // Calls are always walked, even for processes and threads only: a
    // thread's share while no call is open is "outside methods" whatever
    // was asked for.
    let cols: Vec<_> = s.thread_calls().map(|(_, _, c)| c.columns()).collect();
    let mut heap = Merge::new(cols.iter().filter(|c| !c.1.is_empty()).count());
    for (i, (_, ts, _)) in cols.iter().enumerate() {
        if let Some(&t0) = ts.first() {
            heap.push(t0 as i64, i as u32);
        }
    }
    if inp.record_calls {
        for (i, (w, _, _)) in cols.iter().enumerate() {
            st.th[i].cum.reserve_exact(w.len());
        }
    }
    let mut bins = inp.bins.map(|(_, _, n)| BinsRaw {
        idle: vec![0.0; n],
        unattributed: vec![0.0; n],
        threads: vec![vec![0.0; n]; nthreads],
    });
    let mut bin_next = 0usize;
    let bin_time = |k: usize| inp.bins.map(|(a, w, _)| a + w * k as i64);
    let (mut bin_idle, mut bin_un) = (0.0, 0.0);
    let (mut si, mut fi, mut ei) = (0usize, 0usize, 0usize);
    let (lo, hi) = inp.curve.span().unwrap_or((0, 0));
    let next_time = |heap: &Merge, si: usize, fi: usize, ei: usize, bin_next: usize| {
        let mut t = i64::MAX;
        if let Some((x, _)) = heap.peek() {
            t = t.min(x);
        }
        if let Some(x) = sched.get(si) {
            t = t.min(x.0);
        }
        if let Some(x) = freqs.get(fi) {
            t = t.min(x.0);
        }
        if let Some(x) = edges.get(ei) {
            t = t.min(x.0);
        }
        if let Some((_, _, n)) = inp.bins {
            if bin_next <= n {
                t = t.min(bin_time(bin_next).unwrap_or(i64::MAX));
            }
        }
        t
    };
    // Power before the first event and after the last still counts.
    let mut prev = next_time(&heap, 0, 0, 0, 0).min(lo);
    let mut covered = 0i64;
    loop {
        let mut t = next_time(&heap, si, fi, ei, bin_next);
        if t == i64::MAX {
            if prev < hi {
                t = hi;
            } else {
                break;
            }
        }
        let t = t.max(prev);
        if inside {
            covered += (t.min(hi) - prev.max(lo)).max(0);
        }
        st.accrue(t, inside);
        prev = t;
        // Window edges.
        while let Some(&(x, into)) = edges.get(ei) {
            if x > t {
                break;
            }
            inside = into;
            ei += 1;
        }
        // Bin edges: close bin `bin_next - 1`.
        if let (Some(raw), Some((_, _, n))) = (bins.as_mut(), inp.bins) {
            while bin_next <= n && bin_time(bin_next).is_some_and(|b| b <= t) {
                if bin_next > 0 {
                    for i in 0..nthreads {
                        st.flush(i);
                        let th = &mut st.th[i];
                        raw.threads[i][bin_next - 1] = th.energy - th.bin_mark;
                        th.bin_mark = th.energy;
                    }
                    raw.idle[bin_next - 1] = st.out.idle_j - bin_idle;
                    raw.unattributed[bin_next - 1] = st.out.unattributed_j - bin_un;
                }
                bin_idle = st.out.idle_j;
                bin_un = st.out.unattributed_j;
                bin_next += 1;
            }
        }
        // Scheduling.
        while let Some(&(x, kind, cpu, th)) = sched.get(si) {
            if x > t {
                break;
            }
            si += 1;
            let (c, i) = (cpu as usize, th as usize);
            if i >= nthreads {
                continue;
            }
            if kind == 0 {
                if cpu_on[c] == Some(th) {
                    cpu_on[c] = None;
                    st.th[i].cpus_on -= 1;
                    let w = if st.th[i].cpus_on == 0 {
                        0.0
                    } else {
                        st.th[i].w - cpu_factor[c]
                    };
                    st.set_weight(i, w);
                }
            } else {
                if let Some(other) = cpu_on[c] {
                    let o = other as usize;
                    st.th[o].cpus_on -= 1;
                    let w = if st.th[o].cpus_on == 0 {
                        0.0
                    } else {
                        st.th[o].w - cpu_factor[c]
                    };
                    st.set_weight(o, w);
                }
                cpu_on[c] = Some(th);
                st.th[i].cpus_on += 1;
                let w = st.th[i].w + cpu_factor[c];
                st.set_weight(i, w);
            }
        }
        // Frequencies.
        while let Some(&(x, cpu, khz)) = freqs.get(fi) {
            if x > t {
                break;
            }
            fi += 1;
            let c = cpu as usize;
            let f = factor(cpu, khz);
            if let Some(th) = cpu_on[c] {
                let w = st.th[th as usize].w - cpu_factor[c] + f;
                st.set_weight(th as usize, w.max(0.0));
            }
            cpu_factor[c] = f;
        }
        // Calls.
        while let Some((x, i)) = heap.peek() {
            if x > t {
                break;
            }
            let i = i as usize;
            st.flush(i);
            let (words, ts, cpus) = cols[i];
            let n = words.len();
            let mut k = st.th[i].next;
            while k < n && ts[k] as i64 <= t {
                let word = words[k];
                let m = word >> 2;
                match CallKind::from_bits(word).unwrap_or(CallKind::Exit) {
                    CallKind::Enter if inp.methods => {
                        let th = &mut st.th[i];
                        let local = *th.local.entry(m).or_insert_with(|| {
                            th.ids.push(m);
                            th.acc.push(MethodAcc::default());
                            th.on_stack.push(0);
                            th.ids.len() as u32 - 1
                        });
                        let l = local as usize;
                        if inside {
                            th.acc[l].calls += 1;
                        }
                        let outermost = th.on_stack[l] == 0;
                        th.on_stack[l] += 1;
                        let c_enter = th.energy;
                        th.stack.push(Frame {
                            local,
                            c_enter,
                            outermost,
                        });
                    }
                    CallKind::Enter => st.th[i].stack.push(Frame {
                        local: 0,
                        c_enter: 0.0,
                        outermost: false,
                    }),
                    _ if inp.methods => {
                        let th = &mut st.th[i];
                        if let Some(&l) = th.local.get(&m) {
                            if th.on_stack[l as usize] > 0 {
                                while let Some(f) = th.stack.pop() {
                                    th.on_stack[f.local as usize] -= 1;
                                    if f.outermost {
                                        th.acc[f.local as usize].incl += th.energy - f.c_enter;
                                    }
                                    if f.local == l {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    _ => {
                        st.th[i].stack.pop();
                    }
                }
                if inp.record_calls {
                    let e = st.th[i].energy;
                    st.th[i].cum.push(e);
                }
                k += 1;
            }
            st.th[i].next = k;
            if let Mode::Calls { cpu_clock } = inp.mode {
                let w = if k < n && k > 0 {
                    let dt = ts[k].saturating_sub(ts[k - 1]);
                    if cpu_clock {
                        let c = cpus.map_or(0, |c| c[k].saturating_sub(c[k - 1]));
                        if dt == 0 {
                            st.th[i].w
                        } else {
                            let share = (c as f64 / dt as f64).clamp(0.0, 1.0);
                            if share < crate::MIN_CPU_SHARE {
                                0.0
                            } else {
                                share
                            }
                        }
                    } else {
                        f64::from(u8::from(!st.th[i].stack.is_empty()))
                    }
                } else {
                    0.0
                };
                st.set_weight(i, w);
            }
            heap.replace_min((k < n).then(|| (ts[k] as i64, i as u32)));
        }
    }
    for i in 0..nthreads {
        st.flush(i);
        let th = &mut st.th[i];
        while let Some(f) = th.stack.pop() {
            if inp.methods {
                th.on_stack[f.local as usize] -= 1;
                if f.outermost {
                    th.acc[f.local as usize].incl += th.energy - f.c_enter;
                }
            }
        }
    }
    st.out.covered_ns = covered;
    st.out.methods = st
        .th
        .iter_mut()
        .map(|t| t.ids.iter().copied().zip(t.acc.iter().copied()).collect())
        .collect();
    if inp.record_calls {
        st.out.call_cum = Some(st.th.iter_mut().map(|t| std::mem::take(&mut t.cum)).collect());
    }
    st.out.bins = bins;
    st.out
}
