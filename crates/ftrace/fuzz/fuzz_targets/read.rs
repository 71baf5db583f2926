//! Feeds arbitrary bytes to the reader, from memory and in small chunks;
//! it must not panic, both must agree, and any session it returns must be
//! balanced, in time order and have every line accounted for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Read;
use tracekit_model::CallKind;

/// Hands out 1 to 7 bytes per read.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.1 = self.1 % 7 + 1;
        let n = self.1.min(self.0.len()).min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let a = tracekit_ftrace::read_bytes_with_outcome(data, "fuzz");
    let b = tracekit_ftrace::read_input(Trickle(data, 0), "fuzz");
    match (a, b) {
        (Ok((s, o)), Ok((t, p))) => {
            assert_eq!(o, p);
            assert_eq!(o.unaccounted(), 0);
            assert_eq!(s.call_event_count(), t.call_event_count());
            assert_eq!(s.counters, t.counters);
            for (_, _, calls) in s.thread_calls() {
                let mut stack = Vec::new();
                let mut last = 0;
                for e in calls.iter() {
                    assert!(e.ts_ns >= last);
                    last = e.ts_ns;
                    if e.kind == CallKind::Enter {
                        stack.push(e.method);
                    } else {
                        assert_eq!(stack.pop(), Some(e.method));
                    }
                }
                assert!(stack.is_empty());
            }
            for c in &s.counters {
                assert!(c.times.windows(2).all(|w| w[0] <= w[1]));
            }
        }
        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
        (x, y) => panic!("read paths disagree: {:?} / {:?}", x.err(), y.err()),
    }
});
