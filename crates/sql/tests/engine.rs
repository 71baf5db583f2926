//! The embedded engine against tracekit's own analyses: the `call` table
//! sums to `tracekit profile`, every table holds what the model holds, on
//! the example and on every real capture; errors point into the query.

mod common;

use common::{example, int, realdata_files};
use std::collections::HashMap;
use tracekit_analysis::{Profile, ProfileOptions};
use tracekit_model::CallKind;
use tracekit_sql::{Engine, Error, SessionSource};

fn enters(s: &tracekit_model::Session) -> i64 {
    s.thread_calls()
        .map(|(_, _, c)| c.iter().filter(|e| e.kind == CallKind::Enter).count() as i64)
        .sum()
}

#[test]
fn method_profile_equals_the_profile() {
    let src = example(7, "ex");
    let profile = Profile::of(&src.session, &ProfileOptions::default());
    let names: Vec<String> = src.session.methods.iter().map(|(_, m)| m.qualified_name()).collect();
    let engine = Engine::over_sessions(vec![src]).unwrap();
    let r = engine
        .run("SELECT method, calls, recursive_calls, incl_ns, excl_ns, incl_cpu_ns, excl_cpu_ns FROM method_profile")
        .unwrap();
    let mut got = HashMap::new();
    for b in &r.batches {
        use datafusion::arrow::array::AsArray;
        use datafusion::arrow::datatypes::{Int32Type, Int64Type};
        let m = b.column(0).as_primitive::<Int32Type>();
        for i in 0..b.num_rows() {
            let v: Vec<i64> = (1..7)
                .map(|c| b.column(c).as_primitive::<Int64Type>().value(i))
                .collect();
            got.insert(m.value(i) as u32, v);
        }
    }
    assert_eq!(got.len(), profile.methods.len());
    for row in &profile.methods {
        let want = vec![
            row.calls as i64,
            row.recursive_calls as i64,
            row.incl_real_ns as i64,
            row.excl_real_ns as i64,
            row.incl_cpu_ns as i64,
            row.excl_cpu_ns as i64,
        ];
        assert_eq!(got[&row.method.0], want, "{}", names[row.method.0 as usize]);
    }
}

#[test]
fn every_table_holds_what_the_model_holds_on_real_captures() {
    let files = realdata_files();
    let mut checked = 0;
    for path in files {
        let loaded = match tracekit_io::open(&path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("not a trace tracekit opens (skipped): {}: {e}", path.display());
                continue;
            }
        };
        let s = &loaded.session;
        let want_calls = enters(s);
        let counters: i64 = s.counters.iter().map(|c| c.len() as i64).sum();
        let context: i64 = s.context.iter().map(|c| c.len() as i64).sum();
        let (markers, sched, threads, methods) = (
            s.markers.len() as i64,
            s.sched.len() as i64,
            s.threads.len() as i64,
            s.methods.len() as i64,
        );
        let profile = Profile::of(s, &ProfileOptions::default());
        let excl: i64 = profile.methods.iter().map(|m| m.excl_real_ns as i64).sum();
        let engine = Engine::over_sessions(vec![SessionSource {
            id: "real".into(),
            source: path.display().to_string(),
            format: loaded.format.name().into(),
            session: loaded.session,
        }])
        .unwrap();
        let name = path.display();
        assert_eq!(int(&engine, "SELECT count(*) FROM call"), want_calls, "{name}");
        assert_eq!(int(&engine, "SELECT sum(self_dur) FROM call"), excl, "{name}");
        assert_eq!(int(&engine, "SELECT count(*) FROM counter"), counters, "{name}");
        assert_eq!(int(&engine, "SELECT count(*) FROM context"), context, "{name}");
        assert_eq!(int(&engine, "SELECT count(*) FROM marker"), markers, "{name}");
        assert_eq!(int(&engine, "SELECT count(*) FROM sched"), sched, "{name}");
        assert_eq!(int(&engine, "SELECT count(*) FROM thread"), threads, "{name}");
        assert_eq!(int(&engine, "SELECT count(*) FROM method"), methods, "{name}");
        // Parents are calls of the same thread that started earlier and enclose the child.
        let orphans = int(
            &engine,
            "SELECT count(*) FROM call c LEFT JOIN call p ON p.id = c.parent AND p.thread = c.thread AND p.session = c.session \
             WHERE c.parent IS NOT NULL AND (p.id IS NULL OR p.ts > c.ts OR p.depth + 1 <> c.depth)",
        );
        assert_eq!(orphans, 0, "{name}");
        checked += 1;
    }
    eprintln!("{checked} real captures checked");
}

#[test]
fn a_query_error_points_at_its_line_and_column() {
    let engine = Engine::over_sessions(vec![example(1, "ex")]).unwrap();
    let Err(Error::Query {
        line, column, excerpt, ..
    }) = engine.run("SELECT count(*)\nFROM call\nWHERE nosuch > 3")
    else {
        panic!("an unknown column is a query error");
    };
    assert_eq!((line, column), (Some(3), Some(7)), "{excerpt:?}");
    let Err(Error::Query { line, column, .. }) = engine.run("SELECT ts,\n  FROM FROM call") else {
        panic!("a syntax error is a query error");
    };
    assert_eq!(line, Some(2));
    assert!(column.is_some());
    let Err(e) = engine.run("SELECT * FROM nosuch_table") else {
        panic!()
    };
    assert!(e.to_string().contains("nosuch_table"), "{e}");
}

#[test]
fn a_trace_without_a_table_s_data_gives_an_empty_table() {
    let mut s = tracekit_model::Session::new("bare", tracekit_model::Clocks::WALL);
    let t = s.add_thread(tracekit_model::Thread::new(1, "main"));
    let m = s.methods.intern(tracekit_model::Method::new("", "main", ""));
    s.calls_mut(t).push(tracekit_model::CallEvent::enter(m, 0, None));
    s.calls_mut(t).push(tracekit_model::CallEvent::exit(m, 10, None));
    let engine = Engine::over_sessions(vec![SessionSource {
        id: "bare".into(),
        source: "bare".into(),
        format: "test".into(),
        session: s,
    }])
    .unwrap();
    for table in [
        "context",
        "counter",
        "marker",
        "sched",
        "object_event",
        "remote_call",
        "occurrence_context",
    ] {
        assert_eq!(int(&engine, &format!("SELECT count(*) FROM {table}")), 0, "{table}");
    }
    assert_eq!(int(&engine, "SELECT count(*) FROM call WHERE thread_ts IS NULL"), 1);
}

#[test]
fn the_stdlib_order_file_lists_the_views_in_order() {
    let text = include_str!("../stdlib/ORDER");
    let listed: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let ours: Vec<&str> = tracekit_sql::stdlib::STDLIB.iter().map(|(n, _)| *n).collect();
    assert_eq!(listed, ours);
}
