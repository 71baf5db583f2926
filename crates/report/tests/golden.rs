//! Golden test of the data a report inlines, on a small hand-made session:
//! any change to the format shows up as a diff. Regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p tracekit-report --test golden`.

use tracekit_model::*;
use tracekit_report::{report_data, ProblemDef, ProblemView, ReportOptions, ThreadInstant, ViewModel};

fn session() -> Session {
    let mut s = Session::new("golden", Clocks::DUAL);
    let main = s.add_thread(Thread::new(7, "main"));
    let worker = s.add_thread(Thread::new(8, ""));
    let run = s.methods.intern(Method::new("a/App", "run", "()V"));
    let draw = s.methods.intern(Method::new("a/View", "draw", "(I)V"));
    let brb = s.methods.intern(Method::new("a/Log", "brb", "()V"));
    for (m, enter, t) in [
        (run, true, 0),
        (draw, true, 100),
        (draw, true, 150),
        (draw, false, 180),
        (draw, false, 400),
        (brb, true, 500),
        (brb, false, 510),
        (run, false, 1_000),
    ] {
        s.calls_mut(main).push(if enter {
            CallEvent::enter(m, t, Some(t / 2))
        } else {
            CallEvent::exit(m, t, Some(t / 2))
        });
    }
    s.calls_mut(worker).push(CallEvent::enter(draw, 200, Some(0)));
    s.calls_mut(worker).push(CallEvent::unwind(draw, 300, Some(90)));
    let mut o = ContextTrack::new("Screen orientation", ContextType::Int);
    o.push(-50, ContextValue::Int(0));
    o.push(450, ContextValue::Int(1));
    let mut w = ContextTrack::new("Wi-Fi", ContextType::String);
    w.push(0, ContextValue::Str("on".into()));
    let mut b = ContextTrack::new("Battery", ContextType::Double);
    b.unit = Some("%".into());
    b.push(0, ContextValue::Double(80.0));
    b.push(1_000, ContextValue::Double(79.5));
    s.context = vec![o, w, b];
    s.markers.push(Marker {
        ts_ns: 505,
        thread: main,
        name: "brb".into(),
    });
    s
}

#[test]
fn report_data_matches_the_golden_file() {
    let s = session();
    let view = ViewModel::new(&s);
    let problem = ProblemView {
        def: ProblemDef::Brb { method: "brb".into() },
        title: "BRB (brb)".into(),
        occurrences: vec![ThreadInstant { ts_ns: 500, thread: 0 }],
        intervals: vec![],
        calls_inside: vec![],
        calls_outside: vec![],
        hints: vec![],
    };
    for (name, budget) in [("report-data.json", 1_000), ("report-data-summarised.json", 3)] {
        let got = serde_json::to_string_pretty(&report_data(
            &view,
            std::slice::from_ref(&problem),
            &ReportOptions { max_slices: budget },
        ))
        .unwrap()
            + "\n";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &got).unwrap();
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
        assert_eq!(
            got, want,
            "{name} changed; if on purpose, rerun with UPDATE_GOLDEN=1 and review the diff"
        );
    }
}
