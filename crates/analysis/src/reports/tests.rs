use super::*;
use crate::hints::hints;
use crate::problems::{find, ProblemDef};
use crate::{CallTree, Profile, ProfileOptions};
use tracekit_model::*;

fn session() -> Session {
    let mut s = Session::new("t", Clocks::WALL);
    let t = s.add_thread(Thread::new(7, "main"));
    let run = s.methods.intern(Method::new("App", "run", "()V"));
    let work = s.methods.intern(Method::new("App", "work", "()V"));
    for e in [
        CallEvent::enter(run, 0, None),
        CallEvent::enter(work, 10_000, None),
        CallEvent::exit(work, 40_000, None),
        CallEvent::exit(run, 50_000, None),
    ] {
        s.calls_mut(t).push(e);
    }
    s
}

/// The field names are the JSON contract of earlier issues: pinned here.
#[test]
fn reports_keep_their_field_names() {
    let s = session();
    let p = Profile::of(&s, &ProfileOptions::default());
    let v = serde_json::to_value(ProfileReport::new(&s, &p, None, None)).unwrap();
    assert_eq!(v["clock"], "wall");
    assert_eq!(v["total_cpu_us"], serde_json::Value::Null);
    assert!(v.get("threads").is_none(), "only with --per-thread");
    let run = &v["methods"][0];
    assert_eq!(
        (run["class"].as_str(), run["name"].as_str()),
        (Some("App"), Some("run"))
    );
    assert_eq!(run["incl_real_us"], 50.0);
    assert_eq!(run["excl_real_us"], 20.0);
    assert_eq!(run["incl_real_pct"], 100.0);
    assert!(run["incl_cpu_us"].is_null() && run["incl_cpu_pct"].is_null());

    let t = CallTree::of(&s, None, None);
    let v = serde_json::to_value(CallTreeReport::new(&s, &t, None, &|_| true)).unwrap();
    assert!(v["method"].is_null());
    assert_eq!(v["children"][0]["method"], "App.run ()V");
    assert_eq!(v["children"][0]["children"][0]["incl_real_us"], 30.0);
    let v = serde_json::to_value(CallTreeReport::new(&s, &t, Some(1), &|_| true)).unwrap();
    assert!(v["children"][0]["children"].as_array().unwrap().is_empty());

    let v = serde_json::to_value(SessionSummary::of(&s)).unwrap();
    for key in [
        "name",
        "clock",
        "start_unix_us",
        "duration_us",
        "methods",
        "call_events",
        "threads",
        "context",
        "properties",
        "repairs",
    ] {
        assert!(v.get(key).is_some(), "info lost {key}");
    }
    assert_eq!(v["threads"][0]["call_events"], 4);

    let sessions = [s];
    let m = find(&sessions, &ProblemDef::Brb { method: "work".into() }).unwrap();
    let v = serde_json::to_value(ProblemReport::new(&sessions, &m, &hints(&sessions, &m.occurrences))).unwrap();
    assert_eq!(v["occurrences"][0]["ts_us"], 10.0);
    assert_eq!(v["occurrences"][0]["thread"], "main");
    assert!(v["occurrences"][0].get("session").is_none());
    assert!(v["intervals_us"].is_null());
    let two = [sessions[0].clone(), sessions[0].clone()];
    let m = find(&two, &ProblemDef::Brb { method: "work".into() }).unwrap();
    let v = serde_json::to_value(ProblemReport::new(&two, &m, &[])).unwrap();
    assert_eq!(v["occurrences"][1]["session"], "t");
    assert_eq!(v["intervals_us"], serde_json::json!([null, null]));
}
