//! Hand-made systrace HTML (`tests/corpus/`): the trace-data tag's text inside
//! the viewer's JavaScript is not data, JSON blocks are skipped and counted,
//! newer marker phases and the legacy JavaScript string are read.

mod common;

use common::check_invariants;
use std::path::PathBuf;
use tracekit_ftrace::read_path_with_outcome;
use tracekit_model::{CallKind, EndState, ThreadId};

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name)
}

#[test]
fn only_real_trace_data_blocks_are_read() {
    let (s, o) = read_path_with_outcome(&corpus("viewer_like.html")).unwrap();
    check_invariants(&s, &o);
    assert_eq!(o.foreign_blocks, 1, "the JSON block");
    assert_eq!((o.lines, o.used, o.comments), (13, 11, 2));
    assert!(s.skipped.contains(&("trace-data block (not ftrace text)".into(), 1)));

    let main = s.threads.iter().position(|t| t.tid == 4242).unwrap();
    let calls: Vec<_> = s.calls(ThreadId(main as u32)).iter().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0].kind, calls[0].ts_ns), (CallKind::Enter, 0));
    assert_eq!((calls[1].kind, calls[1].ts_ns), (CallKind::Exit, 300_000));
    assert_eq!(s.methods.get(calls[0].method).name, "inflate");
    assert_eq!(
        s.threads[main].pid,
        Some(4242),
        "B|4242 names the process of a `(-----)` task"
    );

    let queue = s.counters.iter().find(|c| c.name == "queue").unwrap();
    assert_eq!((queue.pid, queue.values.as_slice()), (Some(4242), &[3.0][..]));
    let idle = s.counters.iter().find(|c| c.name == "cpu1 idle").unwrap();
    assert_eq!((idle.cpu, idle.values.as_slice()), (Some(1), &[-1.0, 1.0][..]));
    let clk = s.counters.iter().find(|c| c.name == "clock bimc_clk enabled").unwrap();
    assert_eq!(clk.values, vec![1.0, 0.0]);

    let draw = s.async_slices.iter().find(|a| a.name == "draw").unwrap();
    assert_eq!(
        (draw.category.as_deref(), draw.cookie, draw.dur_ns, draw.open),
        (Some("frames"), 7, 200_000, false)
    );
    let tap = s.async_slices.iter().find(|a| a.name == "tap").unwrap();
    assert_eq!((tap.category.as_deref(), tap.dur_ns), (Some("input"), 0));
    assert_eq!(s.markers.len(), 1);
    assert_eq!(s.markers[0].name, "vsync");
    let render = &s.threads[s.markers[0].thread.0 as usize];
    assert_eq!(
        (render.tid, render.name.as_str(), render.pid),
        (4243, "RenderThread", Some(4242))
    );
}

#[test]
fn legacy_javascript_string_with_escapes_and_spaces_in_names() {
    let (s, o) = read_path_with_outcome(&corpus("legacy_string.html")).unwrap();
    check_invariants(&s, &o);
    assert_eq!((o.lines, o.used, o.skipped, o.comments), (7, 4, 1, 2));
    let sf = s.threads.iter().position(|t| t.tid == 124).unwrap();
    assert_eq!(s.threads[sf].name, "surface flinger");
    let first = s.calls(ThreadId(sf as u32)).get(0);
    assert_eq!(s.methods.get(first.method).name, "compose \"main\"");
    assert_eq!(s.sched.len(), 1);
    let slice = s.sched[0];
    assert_eq!((slice.ts_ns, slice.dur_ns, slice.priority), (2_000, 1_000, Some(112)));
    assert_eq!(slice.end_state, Some(EndState::new("R+")));
    assert_eq!(s.source_clock.as_ref().unwrap().name, "trace");
}
