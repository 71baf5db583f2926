//! Problems and hints: the seed's Firefox case in miniature.

use tracekit_analysis::problems::{find, ProblemDef};
use tracekit_analysis::{hints::hints, Condition, HintKind, HintStats};
use tracekit_model::*;

/// Orientation flips every 10 s (0 landscape, 1 portrait); `brb` is called
/// 1.5 s after every switch to portrait; CPU wanders independently.
fn firefox_like() -> Session {
    let s_ns = 1_000_000_000i64;
    let mut s = Session::new("ff", Clocks::DUAL);
    let t = s.add_thread(Thread::new(1, "main"));
    let brb = s.methods.intern(Method::new("org/ctx/ContextLogger", "brb", "()V"));
    let draw = s.methods.intern(Method::new("org/moz/View", "draw", "()V"));
    let mut orient = ContextTrack::new("Screen orientation", ContextType::Int);
    let mut since = ContextTrack::new("Time since orientation change", ContextType::Double);
    let mut cpu = ContextTrack::new("CPU", ContextType::Float);
    let mut events = Vec::new();
    for k in 0..10i64 {
        let t0 = k * 10 * s_ns;
        orient.push(t0, ContextValue::Int((k % 2) as i32));
        if k % 2 == 1 {
            let at = (t0 + 1_500_000_000) as u64;
            events.push(CallEvent::enter(brb, at, Some(at / 2)));
            events.push(CallEvent::exit(brb, at + 1000, Some(at / 2 + 500)));
        }
        for j in 0..10 {
            let at = t0 + j * s_ns;
            since.push(at, ContextValue::Double(j as f64));
            cpu.push(at, ContextValue::Float(((k * 7 + j * 3) % 10) as f32 / 10.0));
            let d = (at + 200_000_000) as u64;
            events.push(CallEvent::enter(draw, d, Some(d / 2)));
            events.push(CallEvent::exit(draw, d + 5000, Some(d / 2 + 100)));
        }
    }
    events.sort_by_key(|e| e.ts_ns);
    for e in events {
        s.calls_mut(t).push(e);
    }
    s.context = vec![cpu, orient, since];
    s
}

#[test]
fn brb_hints_point_at_portrait() {
    let s = firefox_like();
    let m = find(std::slice::from_ref(&s), &ProblemDef::Brb { method: "brb".into() }).unwrap();
    assert_eq!(m.occurrences.len(), 5);
    let h = hints(std::slice::from_ref(&s), &m.occurrences);
    assert_eq!(h.len(), 4, "three items and the session time: {h:?}");
    let time = h.iter().find(|x| x.basis == HintKind::Time).unwrap();
    assert_eq!(time.label, "Session time");
    assert_ne!(h[2].label, "Screen orientation", "orientation must not rank last");
    let orient = h.iter().find(|x| x.label == "Screen orientation").unwrap();
    match &orient.stats {
        HintStats::Discrete { top_values } => {
            assert_eq!(top_values.len(), 1);
            assert_eq!(top_values[0].value, ContextValue::Int(1));
            assert_eq!(top_values[0].share, 1.0);
        }
        other => panic!("{other:?}"),
    }
    let since = h.iter().find(|x| x.label == "Time since orientation change").unwrap();
    match since.stats {
        HintStats::Continuous {
            p5: Some(a),
            p95: Some(b),
        } => assert!((a - 1.5).abs() < 1e-9 && (b - 1.5).abs() < 1e-9),
        ref other => panic!("{other:?}"),
    }
    assert!(h[0].score > h[2].score);
    assert_eq!(h[2].label, "CPU", "CPU is unrelated and ranks after both: {h:?}");
    assert!(h.iter().all(|x| !x.confounded_with_time), "{h:?}");
}

#[test]
fn method_with_condition_splits_calls() {
    let s = firefox_like();
    let def = ProblemDef::Method {
        method: "View.draw".into(),
        when: Some(Condition::parse("Screen orientation == 1").unwrap()),
    };
    let m = find(std::slice::from_ref(&s), &def).unwrap();
    assert_eq!((m.calls_inside, m.calls_outside), (50, 50));
    // Pooled over two sessions.
    let two = [s.clone(), s];
    let m2 = find(&two, &def).unwrap();
    assert_eq!(m2.occurrences.len(), 100);
    assert_eq!(m2.occurrences[99].session, 1);
    let bad = ProblemDef::Method {
        method: "nope".into(),
        when: None,
    };
    assert!(find(&two, &bad).is_err());
}
