//! A synthetic browser-like session of any size, for the viewer's tests and
//! benchmarks (the project's realistic example lives with the analysis; this
//! one only needs the right shape: nested calls on several threads, context
//! items of every type, big-red-button presses).

use tracekit_model::*;

/// Small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const METHODS: [(&str, &str); 16] = [
    ("android/os/Looper", "loop"),
    ("android/os/Handler", "dispatchMessage"),
    ("org/example/browser/Renderer", "draw"),
    ("org/example/browser/Layout", "measure"),
    ("org/example/browser/Layout", "place"),
    ("org/example/browser/Canvas", "drawText"),
    ("org/example/browser/Canvas", "drawImage"),
    ("org/example/browser/Net", "fetch"),
    ("org/example/browser/Net", "readChunk"),
    ("org/example/browser/Html", "parse"),
    ("org/example/browser/Html", "tokenize"),
    ("org/example/browser/Js", "eval"),
    ("org/example/browser/Js", "gc"),
    ("org/example/browser/Tabs", "restore"),
    ("org/example/browser/Prefs", "load"),
    ("org/example/browser/ContextLogger", "brb"),
];

/// Index of `brb` in the method table of a synthetic session.
pub const BRB_METHOD: u32 = 15;

/// Times (ns) of the big-red-button presses in a synthetic session: shortly
/// after each turn to portrait.
pub fn brb_times(span_ns: u64) -> Vec<u64> {
    orientation_changes(span_ns)
        .into_iter()
        .filter(|&(_, v)| v == 1)
        .map(|(t, _)| t + span_ns / 200)
        .collect()
}

fn orientation_changes(span_ns: u64) -> Vec<(u64, i32)> {
    (0..8)
        .map(|k| (span_ns * k / 8 + span_ns / 40, (k % 2) as i32))
        .collect()
}

/// A session with about `calls` calls over three threads (`main`,
/// `RenderThread`, `NetworkThread`), dual clock, five context items
/// (`Screen orientation` int, `Free RAM` long, `Battery level` float,
/// `CPU load` double, `Wi-Fi` string), a `Power` counter, and `brb` calls on
/// `main` at [`brb_times`].
pub fn session(calls: usize) -> Session {
    let mut s = Session::new(format!("synthetic-{calls}"), Clocks::DUAL);
    for (c, n) in METHODS {
        s.methods.intern(Method::new(c, n, "()V"));
    }
    let names = ["main", "RenderThread", "NetworkThread"];
    let per_thread = calls / names.len();
    // About 10 µs per call on average (see `emit_tree` and the gaps below).
    let span = (per_thread as u64).max(10) * 10_250;
    let brb = brb_times(span);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (ti, name) in names.iter().enumerate() {
        let id = s.add_thread(Thread::new(100 + ti as u32, *name));
        let mut cols = CallColumns::with_capacity(per_thread * 2 + 16, true);
        let (mut t, mut cpu, mut made) = (0u64, 0u64, 0usize);
        let mut next_brb = 0;
        let root = MethodId(0);
        cols.push(CallEvent::enter(root, t, Some(cpu)));
        made += 1;
        while made < per_thread.max(2) {
            t += 1_000 + rng.below(40_000);
            if ti == 0 && next_brb < brb.len() && t >= brb[next_brb] {
                cols.push(CallEvent::enter(MethodId(BRB_METHOD), brb[next_brb].max(t), Some(cpu)));
                t = brb[next_brb].max(t) + 2_000;
                cols.push(CallEvent::exit(MethodId(BRB_METHOD), t, Some(cpu + 500)));
                cpu += 500;
                next_brb += 1;
                made += 1;
                continue;
            }
            let budget = (per_thread - made).min(1 + rng.below(60) as usize);
            made += emit_tree(&mut cols, &mut rng, ti, 1, budget, &mut t, &mut cpu);
        }
        t += 1_000;
        cols.push(CallEvent::exit(root, t, Some(cpu)));
        s.set_calls(id, cols);
    }
    let end = s.time_span().map_or(span, |(_, b)| b);
    let mut orient = ContextTrack::new("Screen orientation", ContextType::Int);
    for (t, v) in orientation_changes(span) {
        orient.push(t as i64, ContextValue::Int(v));
    }
    let mut ram = ContextTrack::new("Free RAM", ContextType::Long);
    ram.unit = Some("kB".into());
    let mut battery = ContextTrack::new("Battery level", ContextType::Float);
    battery.unit = Some("%".into());
    let mut load = ContextTrack::new("CPU load", ContextType::Double);
    let mut wifi = ContextTrack::new("Wi-Fi", ContextType::String);
    for k in 0..=40u64 {
        let ts = (end * k / 40) as i64;
        ram.push(
            ts,
            ContextValue::Long(800_000 - 3_000 * k as i64 + rng.below(20_000) as i64),
        );
        battery.push(ts, ContextValue::Float(90.0 - k as f32 * 0.5));
        load.push(ts, ContextValue::Double(0.2 + (rng.below(600) as f64) / 1000.0));
        if k % 10 == 0 {
            wifi.push(
                ts,
                ContextValue::Str(if k % 20 == 0 { "connected" } else { "disconnected" }.into()),
            );
        }
    }
    s.context = vec![orient, ram, battery, load, wifi];
    let mut power = CounterTrack::new("Power", Some("mW"));
    for k in 0..=80u64 {
        power.push((end * k / 80) as i64, 300.0 + rng.below(900) as f64);
    }
    s.counters.push(power);
    s
}

/// Emits one call tree of at most `budget` calls; returns how many it made.
fn emit_tree(
    c: &mut CallColumns,
    rng: &mut Rng,
    thread: usize,
    depth: usize,
    budget: usize,
    t: &mut u64,
    cpu: &mut u64,
) -> usize {
    if budget == 0 {
        return 0;
    }
    // Two candidates per thread and depth keep call paths as few as in a
    // real program while every method still shows up.
    let base = [1, 2, 7][thread.min(2)];
    let pick = 1 + (base + depth * 3 + rng.below(2) as usize) % 14;
    let m = MethodId(pick as u32);
    c.push(CallEvent::enter(m, *t, Some(*cpu)));
    let mut made = 1;
    let self_ns = 500 + rng.below(20_000);
    *t += self_ns / 2;
    *cpu += self_ns * 3 / 8;
    while made < budget && depth < 12 && rng.below(100) < 70 {
        let sub = (budget - made).min(1 + rng.below(((budget - made) as u64).max(1)) as usize);
        made += emit_tree(c, rng, thread, depth + 1, sub, t, cpu);
    }
    *t += self_ns / 2;
    *cpu += self_ns * 3 / 8;
    c.push(CallEvent::exit(m, *t, Some(*cpu)));
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ViewModel;

    #[test]
    fn has_the_requested_size_and_shape() {
        let s = session(30_000);
        let v = ViewModel::new(&s);
        let n = v.call_count();
        assert!((29_000..=31_000).contains(&n), "{n} calls");
        assert_eq!(s.threads.len(), 3);
        assert_eq!(s.context.len(), 5);
        assert!(v.threads[0].depth() > 3);
        let brb: usize = v.threads[0]
            .levels
            .iter()
            .map(|l| (0..l.len()).filter(|&i| l.method_id(i).0 == BRB_METHOD).count())
            .sum();
        assert_eq!(brb, 4);
    }
}
