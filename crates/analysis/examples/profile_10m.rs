//! Times `Profile::of` and `CallTree::of` on a synthetic session with ten
//! million call events (the size issue 2's benchmark names), in memory.
//!
//! `cargo run --release -p tracekit-analysis --example profile_10m`

use std::time::Instant;
use tracekit_analysis::{CallTree, Profile, ProfileOptions};
use tracekit_model::*;

fn main() {
    let events: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let mut s = Session::new("big", Clocks::DUAL);
    let methods: Vec<MethodId> = (0..2_000)
        .map(|i| {
            s.methods
                .intern(Method::new(format!("pkg/C{}", i % 97), format!("m{i}"), "()V"))
        })
        .collect();
    let threads: Vec<ThreadId> = (0..8).map(|i| s.add_thread(Thread::new(i, format!("t{i}")))).collect();
    let mut x = 0x2545F4914F6CDD1Du64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let per_thread = events / threads.len();
    for &t in &threads {
        let mut c = CallColumns::with_capacity(per_thread, true);
        let (mut ts, mut stack) = (0u64, Vec::new());
        for _ in 0..per_thread {
            ts += 1_000 + rnd() % 5_000;
            let r = rnd();
            if stack.len() < 2 || (stack.len() < 40 && r % 2 == 0) {
                // Real programs call a few callees from each method: pick one
                // of eight per caller, so paths and edges repeat as they do.
                let parent = stack.last().map_or(0, |m: &MethodId| m.0 as usize);
                let m = methods[(parent * 31 + (r >> 8) as usize % 8 + 1) % methods.len()];
                stack.push(m);
                c.push(CallEvent::enter(m, ts, Some(ts / 2)));
            } else {
                let m = stack.pop().unwrap();
                c.push(CallEvent::exit(m, ts, Some(ts / 2)));
            }
        }
        s.set_calls(t, c);
    }
    println!("{} call events on {} threads", s.call_event_count(), threads.len());
    let mut times = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        let p = Profile::of(&s, &ProfileOptions::default());
        times.push(t0.elapsed().as_secs_f64());
        assert!(!p.methods.is_empty());
    }
    times.sort_by(f64::total_cmp);
    println!(
        "profile: median {:.3} s over 5 runs (min {:.3}, max {:.3})",
        times[2], times[0], times[4]
    );
    let t0 = Instant::now();
    let tree = CallTree::of(&s, None, None);
    println!(
        "call tree: {:.3} s, {} nodes",
        t0.elapsed().as_secs_f64(),
        tree.nodes.len()
    );
}
