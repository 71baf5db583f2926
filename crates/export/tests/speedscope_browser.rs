//! The speedscope export opened in speedscope itself: the npm package's
//! built app (installed by `scripts/deps/export.sh`) and the exported file
//! are served from 127.0.0.1, headless Chromium loads them through
//! speedscope's `#profileURL=` parameter, and the sandwich view's table
//! (DOM rows: total, self, frame name) must list every method of every
//! thread with the times `tracekit-analysis` computes, as speedscope
//! formats them. Screenshots go to `target/viewer-artifacts/`.
//!
//! Skips with a message when Chromium or speedscope is absent
//! (`TRACEKIT_SKIP_BROWSER=1` skips it too); `scripts/setup` installs both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tracekit_analysis::{Profile, ProfileOptions};
use tracekit_browser::{artifacts_dir, find_chromium, Browser};
use tracekit_model::*;

mod common;

/// speedscope's built app: `$TRACEKIT_SPEEDSCOPE_DIR`, else where
/// `scripts/deps/export.sh` installs it.
fn speedscope_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TRACEKIT_SPEEDSCOPE_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
            cache.join("tracekit/speedscope-1.25.0/node_modules/speedscope/dist/release")
        }
    };
    dir.join("index.html").is_file().then_some(dir)
}

/// Serves `root`'s files and `profile` (as `/profile.json`) on 127.0.0.1
/// until the returned server is dropped.
fn serve(root: PathBuf, profile: Vec<u8>) -> (Arc<tiny_http::Server>, String) {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
    let addr = format!("http://{}", server.server_addr().to_ip().expect("ip address"));
    let s = server.clone();
    std::thread::spawn(move || {
        for req in s.incoming_requests() {
            let path = req.url().split(['?', '#']).next().unwrap_or("/").to_owned();
            let body = if path == "/profile.json" {
                Some(profile.clone())
            } else {
                let rel = path.trim_start_matches('/');
                let rel = if rel.is_empty() { "index.html" } else { rel };
                // Only plain names inside the app's folder.
                (!rel.contains(".."))
                    .then(|| std::fs::read(root.join(rel)).ok())
                    .flatten()
            };
            let kind = match path.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("css") => "text/css",
                Some("json") => "application/json",
                Some("wasm") => "application/wasm",
                Some("png") => "image/png",
                Some("woff2") => "font/woff2",
                _ => "application/octet-stream",
            };
            let header = tiny_http::Header::from_bytes("Content-Type", kind).unwrap();
            let _ = match body {
                Some(b) => req.respond(tiny_http::Response::from_data(b).with_header(header)),
                None => req.respond(tiny_http::Response::empty(404)),
            };
        }
    });
    (server, addr)
}

/// speedscope's TimeFormatter for nanosecond values.
fn format_ns(ns: f64) -> String {
    let s = ns * 1e-9;
    if s >= 60.0 {
        let minutes = (s / 60.0).floor();
        return format!("{}:{:02}", minutes, (s - minutes * 60.0).floor());
    }
    if s >= 1.0 {
        format!("{:.2}s", s)
    } else if s >= 1e-3 {
        format!("{:.2}ms", s / 1e-3)
    } else if s >= 1e-6 {
        format!("{:.2}µs", s / 1e-6)
    } else {
        format!("{:.2}ns", s / 1e-9)
    }
}

/// What the sandwich table must show for one thread: frame name → (total, self).
fn expected_rows(s: &Session, thread: ThreadId) -> BTreeMap<String, (String, String)> {
    let opts = ProfileOptions {
        threads: Some(vec![thread]),
        ..ProfileOptions::default()
    };
    let p = Profile::of(s, &opts);
    let names = tracekit_export::frame_names(&s.methods);
    p.methods
        .iter()
        .map(|m| {
            (
                names[m.method.0 as usize].clone(),
                (format_ns(m.incl_real_ns as f64), format_ns(m.excl_real_ns as f64)),
            )
        })
        .collect()
}

/// The rows of the tables on the page: `(frame rows, profile rows)`. The
/// sandwich table's rows are "total (percent)", "self (percent)", frame
/// name; the profile list's are number, profile name, total weight.
#[allow(clippy::type_complexity)]
fn shown_rows(b: &mut Browser) -> (BTreeMap<String, (String, String)>, BTreeMap<String, String>) {
    let v = b
        .eval(
            "Array.from(document.querySelectorAll('tr')).filter(r => r.cells.length === 3)\
             .map(r => Array.from(r.cells).map(c => c.textContent.trim()))",
        )
        .unwrap();
    let rows: Vec<Vec<String>> = serde_json::from_value(v).unwrap();
    let cut = |x: &str| x.split(" (").next().unwrap_or("").to_owned();
    let frames = rows
        .iter()
        .filter(|r| r[0].ends_with("%)"))
        .map(|r| (r[2].clone(), (cut(&r[0]), cut(&r[1]))))
        .collect();
    let profiles = rows
        .iter()
        .filter(|r| r[0].parse::<u32>().is_ok())
        .map(|r| (r[1].clone(), r[2].clone()))
        .collect();
    (frames, profiles)
}

#[test]
fn speedscope_shows_every_thread_with_the_trace_times() {
    if std::env::var_os("TRACEKIT_SKIP_BROWSER").is_some() {
        eprintln!("skipped: TRACEKIT_SKIP_BROWSER is set");
        return;
    }
    let Some(app) = speedscope_dir() else {
        eprintln!("skipped: speedscope is not installed (run scripts/setup, or set TRACEKIT_SPEEDSCOPE_DIR)");
        return;
    };
    if find_chromium().is_none() {
        eprintln!("skipped: no chromium on PATH (run scripts/setup)");
        return;
    }
    for (name, session) in [("handmade", common::handmade()), ("example", common::example())] {
        let mut file = Vec::new();
        tracekit_export::write_speedscope(&session, &mut file).unwrap();
        let (server, addr) = serve(app.clone(), file);
        let mut b = Browser::launch(1400, 900).expect("headless Chromium starts");
        // speedscope reports import failures with alert(), which would block the page.
        b.call(
            "Page.addScriptToEvaluateOnNewDocument",
            serde_json::json!({"source": "window.__alerts = []; window.alert = m => window.__alerts.push(String(m));"}),
        )
        .unwrap();
        b.navigate(&format!(
            "{addr}/index.html#profileURL={addr}/profile.json&view=sandwich"
        ))
        .unwrap();
        b.wait_for(
            "window.__alerts.length > 0 || (document.title.endsWith(' - speedscope') && document.querySelectorAll('tr').length > 2)",
            60.0,
        )
        .unwrap();
        let alerts = b.eval("window.__alerts").unwrap();
        assert_eq!(alerts, serde_json::json!([]), "speedscope refused the {name} export");
        assert_eq!(
            b.eval("document.title").unwrap(),
            format!("{} - speedscope", session.name)
        );

        let threads = common::threads_with_calls(&session);
        let active = threads
            .iter()
            .enumerate()
            .max_by_key(|(k, t)| (session.calls(**t).len(), usize::MAX - k))
            .unwrap()
            .0;
        // speedscope opens the profile `activeProfileIndex` names (the
        // thread with most calls) first; `p` and `n` step through the rest.
        let order: Vec<usize> = std::iter::once(active)
            .chain((0..active).rev())
            .chain(0..threads.len())
            .collect();
        for (step, &k) in order.iter().enumerate() {
            let t = threads[k];
            let want = expected_rows(&session, t);
            let (got, profiles) = shown_rows(&mut b);
            let label = session.thread(t).label();
            // The profile list: one entry per thread, its total the
            // inclusive time of the thread's outermost calls.
            assert_eq!(profiles.len(), threads.len(), "{name}: {profiles:?}");
            for &u in &threads {
                let title = format!("{} (tid {})", session.thread(u).label(), session.thread(u).tid);
                let total = Profile::of(
                    &session,
                    &ProfileOptions {
                        threads: Some(vec![u]),
                        ..ProfileOptions::default()
                    },
                )
                .total_real_ns;
                assert_eq!(
                    profiles.get(&title),
                    Some(&format_ns(total as f64)),
                    "{name}: {profiles:?}"
                );
            }
            // Rows scrolled out of view are not in the DOM; the table lists
            // the heaviest first, so every method or the first screenful.
            assert!(
                got.len() >= want.len().min(10),
                "{name}, {label}: too few rows: {got:?}"
            );
            for (frame, times) in &got {
                let expected = want
                    .get(frame)
                    .unwrap_or_else(|| panic!("{name}, {label}: unexpected frame {frame}"));
                assert_eq!(times, expected, "{name}, {label}: {frame} (total, self)");
            }
            b.screenshot(&artifacts_dir().join(format!("speedscope-{name}-sandwich-{step}.png")))
                .unwrap();
            if let Some(&next) = order.get(step + 1) {
                let before = b.eval("document.body.innerText").unwrap();
                b.key(if next < k {
                    "p"
                } else if next > k {
                    "n"
                } else {
                    continue;
                })
                .unwrap();
                b.wait_for(&format!("document.body.innerText !== {before}"), 10.0)
                    .unwrap();
            }
        }
        // The time-ordered flame chart (canvas) of the last profile.
        b.key("1").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        b.screenshot(&artifacts_dir().join(format!("speedscope-{name}-timeline.png")))
            .unwrap();
        assert!(b.page_errors().is_empty(), "{name}: page errors {:?}", b.page_errors());
        drop(b);
        server.unblock();
    }
}

/// Checks `v` against a JSON schema, for the draft-07 keywords speedscope's
/// published schema uses: `$ref` (local), `anyOf`, `type`, `const`, `enum`,
/// `required`, `properties`, `items`.
fn validate(
    root: &serde_json::Value,
    schema: &serde_json::Value,
    v: &serde_json::Value,
    at: &str,
) -> Result<(), String> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r
            .strip_prefix("#/definitions/")
            .ok_or(format!("unsupported $ref {r}"))?;
        return validate(root, &root["definitions"][name], v, at);
    }
    if let Some(any) = schema["anyOf"].as_array() {
        let errors: Vec<String> = any.iter().filter_map(|s| validate(root, s, v, at).err()).collect();
        if errors.len() == any.len() {
            return Err(format!("{at}: matches no alternative: {errors:?}"));
        }
    }
    if let Some(t) = schema["type"].as_str() {
        let ok = match t {
            "string" => v.is_string(),
            "number" => v.is_number(),
            "object" => v.is_object(),
            "array" => v.is_array(),
            "boolean" => v.is_boolean(),
            other => return Err(format!("unsupported type {other}")),
        };
        if !ok {
            return Err(format!("{at}: not a {t}: {v}"));
        }
    }
    if let Some(c) = schema.get("const") {
        if c != v {
            return Err(format!("{at}: {v} is not {c}"));
        }
    }
    if let Some(e) = schema["enum"].as_array() {
        if !e.contains(v) {
            return Err(format!("{at}: {v} is not one of {e:?}"));
        }
    }
    for r in schema["required"].as_array().into_iter().flatten() {
        let key = r.as_str().unwrap();
        if v.get(key).is_none() {
            return Err(format!("{at}: missing {key}"));
        }
    }
    if let (Some(props), Some(obj)) = (schema["properties"].as_object(), v.as_object()) {
        for (k, s) in props {
            if let Some(x) = obj.get(k) {
                validate(root, s, x, &format!("{at}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            validate(root, items, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn the_export_satisfies_speedscopes_published_schema() {
    let Some(app) = speedscope_dir() else {
        eprintln!("skipped: speedscope is not installed (run scripts/setup, or set TRACEKIT_SPEEDSCOPE_DIR)");
        return;
    };
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(app.join("file-format-schema.json")).unwrap()).unwrap();
    for session in [common::handmade(), common::example()] {
        let mut file = Vec::new();
        tracekit_export::write_speedscope(&session, &mut file).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&file).unwrap();
        validate(&schema, &schema, &v, "$").unwrap();
        // The validator is not vacuous: a wrong unit and a missing field fail.
        let mut bad = v.clone();
        bad["profiles"][0]["unit"] = "ticks".into();
        assert!(validate(&schema, &schema, &bad, "$").is_err());
        let mut bad = v.clone();
        bad["profiles"][0]["events"][0].as_object_mut().unwrap().remove("at");
        assert!(validate(&schema, &schema, &bad, "$").is_err());
    }
}
