//! The viewer's own profile (computed from call slices, because the browser
//! must compute the same thing for a selection) agrees with
//! `tracekit-analysis` on the whole session and on windows.

use tracekit_analysis::{IntervalSet, Profile, ProfileOptions};
use tracekit_report::{interval_profile, synthetic, ViewModel};

fn compare(session: &tracekit_model::Session, view: &ViewModel, window: Option<(u64, u64)>) {
    let iv = window.unwrap_or((view.span.0, view.span.1 + 1));
    let ours = interval_profile(&view.threads, &[iv]);
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
    assert_eq!(n, ours.rows.len());
}

#[test]
fn agrees_with_the_analysis() {
    let session = synthetic::session(20_000);
    let view = ViewModel::new(&session);
    compare(&session, &view, None);
    let (a, b) = view.span;
    let w = (b - a) / 7;
    for k in 0..5 {
        compare(&session, &view, Some((a + k * w + 12_345, a + k * w + w)));
    }
}

#[test]
fn agrees_with_the_analysis_on_the_bundled_example() {
    let session = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 11,
        duration_s: 20.0,
    });
    let view = ViewModel::new(&session);
    compare(&session, &view, None);
    let (a, b) = view.span;
    compare(&session, &view, Some((a + (b - a) / 3, a + (b - a) / 2)));
}
