//! Feeds arbitrary bytes to both read paths; they must not panic, must
//! agree, and any session they return must be balanced.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tracekit_model::CallKind;

fuzz_target!(|data: &[u8]| {
    let a = tracekit_dmtrace::read_bytes(data);
    let b = tracekit_dmtrace::read(data);
    match (a, b) {
        (Ok(x), Ok(y)) => {
            assert_eq!(x.call_event_count(), y.call_event_count());
            for (_, _, calls) in x.thread_calls() {
                let mut stack = Vec::new();
                for e in calls.iter() {
                    if e.kind == CallKind::Enter {
                        stack.push(e.method);
                    } else {
                        assert_eq!(stack.pop(), Some(e.method));
                    }
                }
                assert!(stack.is_empty());
            }
        }
        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
        (x, y) => panic!("read paths disagree: {:?} / {:?}", x.err(), y.err()),
    }
});
