//! The indexed windowed profile ([`interval_profile`], what viewers ask on
//! every selection) agrees with the event walk ([`Profile::of`]) on whole
//! sessions and on windows.

use tracekit_analysis::{interval_profile, session_slices, IntervalSet, Profile, ProfileOptions};
use tracekit_model::Session;

fn compare(session: &Session, window: Option<(u64, u64)>) {
    let (a, b) = session.time_span().expect("calls");
    let iv = window.unwrap_or((a, b + 1));
    let ours = interval_profile(&session_slices(session), &[iv]);
    let opts = ProfileOptions {
        window: window.map(|(a, b)| IntervalSet::single(a as i64, b as i64)),
        ..Default::default()
    };
    let theirs = Profile::of(session, &opts);
    let mut n = 0;
    for t in &theirs.methods {
        let o = ours.rows.iter().find(|r| r.method == t.method.0);
        let Some(o) = o else {
            assert_eq!((t.calls, t.incl_real_ns), (0, 0), "method {} missing", t.method.0);
            continue;
        };
        n += 1;
        assert_eq!(
            (o.calls, o.recursive_calls),
            (t.calls, t.recursive_calls),
            "calls of method {} in {window:?}",
            t.method.0
        );
        assert_eq!(
            (o.incl_real as u64, o.excl_real as u64),
            (t.incl_real_ns, t.excl_real_ns),
            "real time of method {} in {window:?}",
            t.method.0
        );
        if window.is_none() {
            assert_eq!(
                (o.incl_cpu as u64, o.excl_cpu as u64),
                (t.incl_cpu_ns, t.excl_cpu_ns),
                "cpu of method {}",
                t.method.0
            );
        }
    }
    assert!(n >= 3, "too few methods compared: {n}");
    assert_eq!(n, ours.rows.len());
}

#[test]
fn agrees_with_the_event_walk_on_example_sessions() {
    for seed in [3, 11] {
        let session = tracekit_example::browser_session(&tracekit_example::Options { seed, duration_s: 20.0 });
        compare(&session, None);
        let (a, b) = session.time_span().unwrap();
        let w = (b - a) / 7;
        for k in 0..5 {
            compare(&session, Some((a + k * w + 12_345, a + k * w + w)));
        }
    }
}

/// The profile and call tree of `s`'s events fed one at a time, thread by
/// thread, optionally in a window set before the first event.
fn streamed(s: &Session, window: Option<IntervalSet>) -> (Profile, tracekit_analysis::CallTree) {
    let mut a = tracekit_analysis::StreamAnalysis::new(true, true);
    if let Some(w) = window {
        a.set_window(w);
    }
    for (_, _, calls) in s.thread_calls() {
        a.begin_thread();
        for e in calls.iter() {
            a.event(&e);
        }
        a.end_thread();
    }
    let (p, t) = a.finish(s.clocks, &s.methods);
    (p.unwrap(), t.unwrap())
}

/// Events fed one at a time ([`StreamAnalysis`], how recordings are
/// profiled without loading them) give exactly the session walk's profile
/// and call tree.
#[test]
fn streamed_events_give_the_same_profile_and_call_tree() {
    use tracekit_analysis::CallTree;
    for seed in [3, 11] {
        let s = tracekit_example::browser_session(&tracekit_example::Options { seed, duration_s: 10.0 });
        let (p, t) = streamed(&s, None);
        let want = Profile::of(&s, &ProfileOptions::default());
        assert_eq!(p.methods, want.methods, "seed {seed}");
        assert_eq!(p.edges, want.edges, "seed {seed}");
        assert_eq!(
            (p.total_real_ns, p.total_cpu_ns),
            (want.total_real_ns, want.total_cpu_ns)
        );
        assert_eq!(t.nodes, CallTree::of(&s, None, None).nodes, "seed {seed}");
    }
}

/// With a `--when` window set before the first event, the streamed profile
/// and call tree equal the session walk's in that window, including a
/// window that runs on past the last event (a condition that still holds
/// at the end, evaluated before the session's end is known).
#[test]
fn streamed_events_in_a_window_give_the_windowed_profile_and_call_tree() {
    use tracekit_analysis::CallTree;
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 5,
        duration_s: 10.0,
    });
    let (a, b) = s.time_span().unwrap();
    let w = (b - a) / 5;
    let mut bounded = IntervalSet::single((a + w) as i64, (a + 2 * w) as i64);
    bounded = bounded.union(&IntervalSet::single((a + 3 * w) as i64, (b + 1) as i64));
    let open_ended = IntervalSet::single((a + w) as i64, (a + 2 * w) as i64)
        .union(&IntervalSet::single((a + 3 * w) as i64, i64::MAX / 4));
    let want = ProfileOptions {
        window: Some(bounded.clone()),
        ..Default::default()
    };
    let want_profile = Profile::of(&s, &want);
    let want_tree = CallTree::of(&s, None, Some(&bounded));
    for window in [bounded.clone(), open_ended] {
        let (p, t) = streamed(&s, Some(window));
        assert_eq!(p.methods, want_profile.methods);
        assert_eq!(p.total_real_ns, want_profile.total_real_ns);
        assert_eq!(t.nodes, want_tree.nodes);
    }
    assert!(want_profile.methods.iter().any(|m| m.calls > 0));
}

/// Each thread's own profile, kept apart in the same streamed walk, equals
/// the session walk's profile of that thread alone, and the whole profile
/// is still the session's.
#[test]
fn streamed_events_give_each_threads_own_profile_in_the_same_walk() {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 7,
        duration_s: 10.0,
    });
    let (a, b) = s.time_span().unwrap();
    let half = IntervalSet::single(a as i64, (a + (b - a) / 2) as i64);
    for window in [None, Some(half)] {
        let mut st = tracekit_analysis::StreamAnalysis::new(true, false);
        st.keep_thread_profiles();
        if let Some(w) = &window {
            st.set_window(w.clone());
        }
        let mut ids = Vec::new();
        for (id, _, calls) in s.thread_calls() {
            ids.push(id);
            st.begin_thread();
            for e in calls.iter() {
                st.event(&e);
            }
            st.end_thread();
        }
        let (whole, _, own) = st.finish_with_threads(s.clocks, &s.methods);
        let whole = whole.unwrap();
        let want = Profile::of(
            &s,
            &ProfileOptions {
                threads: None,
                window: window.clone(),
            },
        );
        assert_eq!(whole.methods, want.methods);
        assert_eq!(whole.edges, want.edges);
        assert_eq!(whole.total_real_ns, want.total_real_ns);
        assert_eq!(own.len(), ids.len());
        assert!(ids.len() >= 2, "several threads");
        for (id, p) in ids.iter().zip(&own) {
            let one = Profile::of(
                &s,
                &ProfileOptions {
                    threads: Some(vec![*id]),
                    window: window.clone(),
                },
            );
            assert_eq!(p.methods, one.methods, "thread {id:?}");
            assert_eq!(p.edges, one.edges, "thread {id:?}");
            assert_eq!(p.total_cpu_ns, one.total_cpu_ns, "thread {id:?}");
        }
    }
}
