//! The HTML report in a real browser (headless Chromium): tracks, problem
//! definitions, selection, keyboard, hover, summarising. Screenshots go to
//! `target/viewer-artifacts/`. Set `TRACEKIT_SKIP_BROWSER=1` to skip on a
//! machine without Chromium (CI installs it through scripts/setup).

use serde_json::Value;
use tracekit_browser::{artifacts_dir, Browser};
use tracekit_report::{
    problem_view, render_report, synthetic, ProblemDef, ProblemView, ReportOptions, ThreadInstant, ViewModel,
};

fn browser() -> Option<Browser> {
    if std::env::var_os("TRACEKIT_SKIP_BROWSER").is_some() {
        eprintln!("TRACEKIT_SKIP_BROWSER set: skipping the browser test");
        return None;
    }
    Some(Browser::launch(1400, 900).unwrap_or_else(|e| panic!("headless Chromium is needed (run scripts/setup): {e}")))
}

fn write(name: &str, html: &str) -> String {
    let dir = artifacts_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, html).unwrap();
    format!("file://{}", path.canonicalize().unwrap().display())
}

fn texts(b: &mut Browser, selector: &str) -> Vec<String> {
    let v = b
        .eval(&format!(
            "Array.from(document.querySelectorAll({selector:?})).map(e => e.firstChild.textContent)"
        ))
        .unwrap();
    serde_json::from_value(v).unwrap()
}

/// Clicks the centre of the element `selector` with real mouse events.
fn click(b: &mut Browser, selector: &str) {
    let r = b
        .eval(&format!("(() => {{ const e = document.querySelector({selector:?}); e.scrollIntoView({{block: 'nearest', inline: 'nearest'}}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"))
        .unwrap();
    let (x, y) = (r[0].as_f64().unwrap(), r[1].as_f64().unwrap());
    b.mouse("mouseMoved", x, y).unwrap();
    b.mouse("mousePressed", x, y).unwrap();
    b.mouse("mouseReleased", x, y).unwrap();
}

fn type_into(b: &mut Browser, selector: &str, text: &str) {
    b.eval(&format!(
        "document.querySelector({selector:?}).focus(); document.querySelector({selector:?}).value = ''"
    ))
    .unwrap();
    b.call("Input.insertText", serde_json::json!({"text": text})).unwrap();
}

/// The hints the page shows (computed in the browser) equal `rust`'s:
/// order, kinds, confounded marks, value statistics and scores.
fn assert_same_hints(b: &mut Browser, rust: &ProblemView) {
    let page = b.eval("TK.state.problem.hints").unwrap();
    let page = page.as_array().unwrap();
    let want = serde_json::to_value(&rust.hints).unwrap();
    let want = want.as_array().unwrap();
    let labels = |v: &[Value]| {
        v.iter()
            .map(|h| h["label"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(labels(page), labels(want), "ranking");
    assert!(want.iter().any(|h| h["kind"] == "time"), "the session time is ranked");
    for (p, w) in page.iter().zip(want) {
        for key in ["type", "kind", "confounded_with_time", "unit", "defined"] {
            assert_eq!(p[key], w[key], "{key} of {}", w["label"]);
        }
        let shares = |v: &Value| -> Option<Vec<(String, f64)>> {
            v.as_array().map(|a| {
                a.iter()
                    .map(|x| (x["value"].as_str().unwrap().to_owned(), x["share"].as_f64().unwrap()))
                    .collect()
            })
        };
        match (shares(&p["top_values"]), shares(&w["top_values"])) {
            (Some(x), Some(y)) => {
                assert_eq!(x.len(), y.len(), "values of {}", w["label"]);
                for (a, b) in x.iter().zip(&y) {
                    assert!(
                        a.0 == b.0 && (a.1 - b.1).abs() < 1e-12,
                        "values of {}: {x:?} vs {y:?}",
                        w["label"]
                    );
                }
            }
            (x, y) => assert_eq!(x, y, "values of {}", w["label"]),
        }
        for key in ["score", "raw_score", "expected_from_time", "p5", "p95"] {
            match (p[key].as_f64(), w[key].as_f64()) {
                (Some(x), Some(y)) => assert!(
                    (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                    "{key} of {}: {x} vs {y}",
                    w["label"]
                ),
                (x, y) => assert_eq!(x, y, "{key} of {}", w["label"]),
            }
        }
        assert_eq!(p["note"].is_null(), w["note"].is_null(), "note of {}", w["label"]);
    }
}

#[test]
fn report_shows_tracks_problems_and_tables() {
    let Some(mut b) = browser() else { return };
    let session = synthetic::session(30_000);
    let view = ViewModel::new(&session);
    // A ready-made problem as the analysis would hand it over.
    let preset = ProblemView {
        def: ProblemDef::Method {
            method: "Js.gc".into(),
            when: "Wi-Fi == disconnected".into(),
        },
        title: "Js.gc when Wi-Fi == disconnected".into(),
        occurrences: vec![ThreadInstant {
            ts_ns: view.span.1 / 3,
            thread: 2,
        }],
        intervals: vec![(view.span.1 / 4, view.span.1 / 2)],
        calls_inside: vec![ThreadInstant {
            ts_ns: view.span.1 / 3,
            thread: 2,
        }],
        calls_outside: vec![],
        hints: vec![],
    };
    let url = write(
        "report.html",
        &render_report(&view, &[preset], &ReportOptions::default()),
    );
    b.navigate(&url).unwrap();
    b.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();

    // Every track label is DOM text.
    assert_eq!(
        texts(&mut b, ".tk-label[data-kind=thread]"),
        ["main", "RenderThread", "NetworkThread"]
    );
    assert_eq!(
        texts(&mut b, ".tk-label[data-kind=context]"),
        ["Screen orientation", "Free RAM", "Battery level", "CPU load", "Wi-Fi"]
    );
    assert_eq!(texts(&mut b, ".tk-label[data-kind=counter]"), ["Power"]);
    assert!(
        b.eval("document.querySelectorAll('#tk-profile-table tbody tr').length")
            .unwrap()
            .as_u64()
            .unwrap()
            >= 10
    );

    // The browser's profile rules agree with the Rust ones.
    let same = b
        .eval(
            "(() => { const d = TK.source.data.profile, s = TK.span, j = TK.intervalProfile(TK.source.threads, [[s[0], s[1] + 1]]);
               return j.rows.length === d.rows.length && Math.abs(j.total_real - d.total_real) < 1 && j.tree.length === d.tree.length &&
                 j.rows.every((r, i) => r.method === d.rows[i].method && Math.abs(r.excl_cpu - d.rows[i].excl_cpu) <= 1e-6 * d.total_cpu && r.calls === d.rows[i].calls); })()",
        )
        .unwrap();
    assert_eq!(same, Value::Bool(true));

    // Sorting by a column header.
    click(&mut b, "#tk-profile-table th[data-key=calls_total]");
    let calls: Vec<String> = texts(&mut b, "#tk-profile-table tbody tr td:nth-child(10)");
    let totals: Vec<u64> = calls
        .iter()
        .map(|c| c.split('+').map(|x| x.parse::<u64>().unwrap()).sum())
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "sorted by calls: {totals:?}");

    // Click through the BRB problem (the default choice).
    click(&mut b, "#tk-apply");
    b.wait_for("document.querySelectorAll('.tk-occurrence').length === 4", 10.0)
        .unwrap();
    let top = b
        .eval("document.querySelector('#tk-hints tbody tr').textContent")
        .unwrap();
    assert!(
        top.as_str().unwrap().contains("Screen orientation"),
        "portrait is the top hint: {top}"
    );
    assert!(top.as_str().unwrap().contains("1 100%"), "{top}");
    // The page computed these hints itself; they are the analysis's.
    let rust = problem_view(&session, &ProblemDef::Brb { method: "brb".into() }).unwrap();
    assert_same_hints(&mut b, &rust);
    b.screenshot(&artifacts_dir().join("report-brb.png")).unwrap();

    // Method + condition: intervals highlighted, calls split inside/outside.
    click(&mut b, "input[name=kind][value=method]");
    type_into(&mut b, "#tk-method", "Renderer.draw");
    type_into(&mut b, "#tk-when", "Screen orientation == 1");
    click(&mut b, "#tk-apply");
    b.wait_for("TK.state.problem && TK.state.problem.def.kind === 'method'", 10.0)
        .unwrap();
    let p = b.eval("[TK.state.problem.intervals.length, TK.state.problem.calls_inside.length, TK.state.problem.calls_outside.length]").unwrap();
    let draws: usize = view
        .threads
        .iter()
        .flat_map(|t| &t.levels)
        .map(|l| (0..l.len()).filter(|&i| l.method_id(i).0 == 2).count())
        .sum();
    assert_eq!(p[0], 4, "four portrait intervals");
    assert_eq!((p[1].as_u64().unwrap() + p[2].as_u64().unwrap()) as usize, draws);
    assert!(p[1].as_u64().unwrap() > 0 && p[2].as_u64().unwrap() > 0);
    // The browser's evaluation agrees with tracekit-analysis.
    let def = ProblemDef::Method {
        method: "Renderer.draw".into(),
        when: "Screen orientation == 1".into(),
    };
    let rust = problem_view(&session, &def).unwrap();
    assert_eq!(
        (p[1].as_u64().unwrap() as usize, p[2].as_u64().unwrap() as usize),
        (rust.calls_inside.len(), rust.calls_outside.len())
    );
    let js: Vec<(f64, f64)> = serde_json::from_value(b.eval("TK.state.problem.intervals").unwrap()).unwrap();
    assert_eq!(js.len(), rust.intervals.len());
    for (j, r) in js.iter().zip(&rust.intervals) {
        assert_eq!(j.0, r.0 as f64, "interval starts agree");
    }
    assert_same_hints(&mut b, &rust);
    click(&mut b, "#tk-conditioned");
    b.wait_for(
        "document.getElementById('tk-scope').textContent.includes('where Screen orientation == 1 holds')",
        10.0,
    )
    .unwrap();
    b.screenshot(&artifacts_dir().join("report-condition.png")).unwrap();

    // The ready-made problem.
    click(&mut b, ".tk-preset");
    b.wait_for("TK.state.problem.title === 'Js.gc when Wi-Fi == disconnected'", 5.0)
        .unwrap();

    // N and P step through the occurrences.
    b.eval("TK.timeline.setView(0, 5e6)").unwrap();
    b.key("n").unwrap();
    let centre = b
        .eval("(TK.state.view[0] + TK.state.view[1]) / 2")
        .unwrap()
        .as_f64()
        .unwrap();
    let first = b
        .eval("Math.min(...TK.state.problem.occurrences.map(o => o.ts_ns))")
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(
        (centre - first).abs() < 1.0,
        "centred on the first occurrence: {centre} vs {first}"
    );

    // A thread's label folds its row.
    let h = "document.querySelector('.tk-label[data-kind=thread]').getBoundingClientRect().height";
    let open = b.eval(h).unwrap().as_f64().unwrap();
    click(&mut b, ".tk-label[data-kind=thread]");
    assert!(b.eval(h).unwrap().as_f64().unwrap() < open / 3.0);
    click(&mut b, ".tk-label[data-kind=thread]");
    assert_eq!(b.eval(h).unwrap().as_f64().unwrap(), open);
    b.key("0").unwrap();

    // Select an interval on the first thread row: zooms and restricts the tables.
    let before = b.eval("TK.state.view[1] - TK.state.view[0]").unwrap().as_f64().unwrap();
    let (x0, y) = (
        b.eval("TK.$('tk-canvas').getBoundingClientRect().x")
            .unwrap()
            .as_f64()
            .unwrap(),
        150.0,
    );
    b.drag(x0 + 300.0, x0 + 500.0, y).unwrap();
    b.wait_for("TK.state.selection !== null", 5.0).unwrap();
    let after = b.eval("TK.state.view[1] - TK.state.view[0]").unwrap().as_f64().unwrap();
    assert!(after < before / 3.0, "zoomed from {before} to {after}");
    b.wait_for(
        "document.getElementById('tk-scope').textContent.includes('selection')",
        5.0,
    )
    .unwrap();

    // Alt + drag pans without selecting.
    let view = b.eval("TK.state.view").unwrap();
    b.drag_with(x0 + 600.0, x0 + 500.0, y, 1).unwrap();
    let moved = b.eval("TK.state.view").unwrap();
    let width = view[1].as_f64().unwrap() - view[0].as_f64().unwrap();
    assert!(
        moved[0].as_f64().unwrap() > view[0].as_f64().unwrap(),
        "panned right: {view} -> {moved}"
    );
    assert!(
        (moved[1].as_f64().unwrap() - moved[0].as_f64().unwrap() - width).abs() < 1.0,
        "same width"
    );

    // Keyboard: zoom out, pan, reset.
    b.key("s").unwrap();
    let wider = b.eval("TK.state.view[1] - TK.state.view[0]").unwrap().as_f64().unwrap();
    assert!((wider / after - 2.0).abs() < 0.01);
    let left = b.eval("TK.state.view[0]").unwrap().as_f64().unwrap();
    b.key("ArrowRight").unwrap();
    assert!(b.eval("TK.state.view[0]").unwrap().as_f64().unwrap() > left);

    // Hover over the Battery row lists every context value at that time.
    let ry = b.eval("(() => { const e = document.querySelector('.tk-label[data-index=\"2\"][data-kind=context]'); e.scrollIntoView(); const r = e.getBoundingClientRect(); return r.y + r.height / 2; })()").unwrap();
    b.mouse("mouseMoved", x0 + 400.0, ry.as_f64().unwrap()).unwrap();
    let tip = b
        .eval("document.getElementById('tk-tooltip').hidden ? '' : document.getElementById('tk-tooltip').textContent")
        .unwrap();
    for label in ["Battery level", "Screen orientation", "Wi-Fi", "Power"] {
        assert!(tip.as_str().unwrap().contains(label), "tooltip lists {label}: {tip}");
    }
    // Hover over a call shows name, duration and depth.
    b.eval("document.getElementById('tk-tracks').scrollTop = 0").unwrap();
    b.mouse("mouseMoved", x0 + 400.0, 100.0).unwrap();
    let tip = b.eval("document.getElementById('tk-tooltip').textContent").unwrap();
    assert!(
        tip.as_str().unwrap().contains("duration") && tip.as_str().unwrap().contains("depth"),
        "{tip}"
    );
    b.screenshot(&artifacts_dir().join("report-hover.png")).unwrap();

    // Choosing a method in the profile highlights its calls on the timeline.
    click(&mut b, "#tk-profile-table tbody tr:nth-child(2) td:first-child");
    let chosen = b
        .eval("[TK.state.highlight, Number(document.querySelector('#tk-profile-table tr.tk-selected').dataset.method)]")
        .unwrap();
    assert_eq!(chosen[0], chosen[1]);
    b.screenshot(&artifacts_dir().join("report-highlight.png")).unwrap();

    // Flame graph and call tree tabs render; the call tree sorts too.
    click(&mut b, "button[data-tab=calltree]");
    click(&mut b, "#tk-calltree-table th[data-key=calls]");
    assert_eq!(
        b.eval("document.querySelector('#tk-calltree-table th[data-key=calls]').getAttribute('aria-sort')")
            .unwrap(),
        "descending"
    );
    let rows = b
        .eval("document.querySelectorAll('#tk-calltree-table tbody tr').length")
        .unwrap();
    assert!(
        rows.as_u64().unwrap() >= 3,
        "{rows} call tree rows; {}; {:?}",
        b.eval("document.getElementById('tk-tab-calltree').outerHTML.slice(0, 500)")
            .unwrap(),
        b.page_errors()
    );
    click(&mut b, "button[data-tab=flame]");
    b.key("0").unwrap();
    // Clicking a flame-graph frame focuses on its call path.
    let target = b
        .eval("(() => { const f = TK.tables.flameBoxes.find(x => x.d === 2 && x.w > 20), r = TK.$('tk-flame').getBoundingClientRect(); return [r.x + f.x + f.w / 2, r.y + 2 * 16 + 8, f.node]; })()")
        .unwrap();
    b.mouse("mousePressed", target[0].as_f64().unwrap(), target[1].as_f64().unwrap())
        .unwrap();
    b.mouse(
        "mouseReleased",
        target[0].as_f64().unwrap(),
        target[1].as_f64().unwrap(),
    )
    .unwrap();
    assert_eq!(b.eval("TK.tables.flameFocus").unwrap(), target[2]);
    b.screenshot(&artifacts_dir().join("report-flame.png")).unwrap();
    assert!(b.page_errors().is_empty(), "page errors: {:?}", b.page_errors());
}

#[test]
fn summarised_report_says_so() {
    let Some(mut b) = browser() else { return };
    let view = ViewModel::new(&synthetic::session(30_000));
    let html = render_report(&view, &[], &ReportOptions { max_slices: 3_000 });
    let url = write("report-summarised.html", &html);
    b.navigate(&url).unwrap();
    b.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();
    let note = b.eval("document.getElementById('tk-summary').textContent").unwrap();
    let note = note.as_str().unwrap();
    assert!(note.starts_with("Summarised: "), "{note}");
    assert!(
        note.contains(&format!("of {} calls", fmt_thousands(view.call_count()))),
        "{note}"
    );
    b.screenshot(&artifacts_dir().join("report-summarised.png")).unwrap();
    assert!(b.page_errors().is_empty(), "page errors: {:?}", b.page_errors());
}

fn fmt_thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn session_without_calls_still_renders() {
    let Some(mut b) = browser() else { return };
    let mut s = tracekit_model::Session::new("context only", tracekit_model::Clocks::WALL);
    let mut t = tracekit_model::ContextTrack::new("Wi-Fi", tracekit_model::ContextType::String);
    t.push(0, tracekit_model::ContextValue::Str("on".into()));
    t.push(5_000, tracekit_model::ContextValue::Str("off".into()));
    s.context.push(t);
    s.counters.push(tracekit_model::CounterTrack::new("Power", Some("mW")));
    let url = write(
        "report-empty.html",
        &render_report(&ViewModel::new(&s), &[], &ReportOptions::default()),
    );
    b.navigate(&url).unwrap();
    b.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();
    assert_eq!(texts(&mut b, ".tk-label[data-kind=context]"), ["Wi-Fi"]);
    click(&mut b, "#tk-apply");
    b.wait_for("document.querySelector('#tk-problem-result .tk-error')", 5.0)
        .unwrap();
    click(&mut b, "button[data-tab=flame]");
    click(&mut b, "button[data-tab=calltree]");
    assert!(b.page_errors().is_empty(), "page errors: {:?}", b.page_errors());
}
