//! A large synthetic method trace for benchmarks: `calls` calls on four
//! threads (dual clock, 2,000 methods in 100 classes, calls of 1–21 µs
//! nested up to depth 8), from a fixed xorshift sequence so every run and
//! every benchmark gets the same trace.

use tracekit_model::{CallEvent, Clocks, Method, Session, Thread};

/// The synthetic session of `calls` calls (rounded down to a multiple of 4).
pub fn synthetic_calls(calls: usize) -> Session {
    let mut s = Session::new("bench", Clocks::DUAL);
    let methods: Vec<_> = (0..2000)
        .map(|k| {
            s.methods
                .intern(Method::new(format!("pkg/C{}", k / 20), format!("m{k}"), "()V"))
        })
        .collect();
    let mut x = 0x9e3779b97f4a7c15u64;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for th in 0..4u32 {
        let t = s.add_thread(Thread::new(th + 1, format!("t{th}")));
        let c = s.calls_mut(t);
        let (mut now, mut cpu) = (0u64, 0u64);
        let mut stack: Vec<usize> = Vec::new();
        let mut made = 0usize;
        while made < calls / 4 || !stack.is_empty() {
            let dt = 1_000 + rnd() % 20_000;
            now += dt;
            cpu += dt * (rnd() % 100) / 100;
            if stack.len() < 8 && made < calls / 4 && (stack.is_empty() || rnd() % 2 == 0) {
                let m = (rnd() % methods.len() as u64) as usize;
                stack.push(m);
                c.push(CallEvent::enter(methods[m], now, Some(cpu)));
                made += 1;
            } else {
                let m = stack.pop().expect("open call");
                c.push(CallEvent::exit(methods[m], now, Some(cpu)));
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn calls_are_balanced_and_counted() {
        let s = super::synthetic_calls(1000);
        assert_eq!(s.call_event_count(), 2000);
    }
}
