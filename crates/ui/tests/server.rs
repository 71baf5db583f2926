//! The UI server's endpoints over real HTTP on loopback.

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use tracekit_report::{synthetic, AnalysisSolver, ViewModel};

fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status = out[9..12].parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (st, body) = request(addr, "GET", path, "");
    (
        st,
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body:.200}")),
    )
}

#[test]
fn endpoints_answer_with_level_of_detail() {
    let session = Arc::new(synthetic::session(150_000));
    let view = Arc::new(ViewModel::new(&session));
    let calls = view.call_count();
    let server = tracekit_ui::Server::bind(0, view.clone(), Arc::new(AnalysisSolver::new(session)), vec![]).unwrap();
    let addr = server.spawn();
    assert!(addr.ip().is_loopback(), "{addr}");

    let (st, page) = request(addr, "GET", "/", "");
    assert_eq!(st, 200);
    assert!(page.contains("data-mode=\"server\""));

    let (st, meta) = get_json(addr, "/api/meta");
    assert_eq!(st, 200);
    assert_eq!(meta["meta"]["threads"].as_array().unwrap().len(), 3);
    assert_eq!(meta["meta"]["totalCalls"], calls);

    // The whole session at 1000 px: every call is accounted for, in few boxes.
    let (t0, t1) = view.span;
    let (st, s) = get_json(addr, &format!("/api/slices?t0={t0}&t1={}&px=1000", t1 + 1));
    assert_eq!(st, 200);
    let mut boxes = 0;
    let mut counted = 0;
    for t in s["threads"].as_array().unwrap() {
        for l in t["levels"].as_array().unwrap() {
            let l = l.as_array().unwrap();
            assert!(l.len() <= 1000, "at most one box per pixel column and level");
            boxes += l.len();
            counted += l.iter().map(|b| b[3].as_u64().unwrap()).sum::<u64>();
        }
    }
    assert_eq!(counted as usize, calls);
    assert!(boxes < calls / 5, "{boxes} boxes for {calls} calls");
    assert_eq!(get_json(addr, "/api/slices?t0=5&t1=5&px=10").0, 400);
    assert_eq!(get_json(addr, "/api/slices?t0=x&t1=5&px=10").0, 400);

    // Profiles for the session and for two intervals.
    let (st, p) = request(addr, "POST", "/api/profile", &json!({"intervals": null}).to_string());
    assert_eq!(st, 200);
    let p: Value = serde_json::from_str(&p).unwrap();
    let roots: u64 = view
        .threads
        .iter()
        .map(|t| {
            t.levels[0]
                .start
                .iter()
                .zip(&t.levels[0].end)
                .map(|(a, b)| b - a)
                .sum::<u64>()
        })
        .sum();
    assert_eq!(p["total_real"].as_f64().unwrap(), roots as f64);
    let whole = p["total_real"].as_f64().unwrap();
    let mid = (t0 + t1) / 2;
    let (_, q) = request(
        addr,
        "POST",
        "/api/profile",
        &json!({"intervals": [[t0, mid]]}).to_string(),
    );
    let q: Value = serde_json::from_str(&q).unwrap();
    assert!(q["total_real"].as_f64().unwrap() < whole && q["total_real"].as_f64().unwrap() > whole / 3.0);
    assert_eq!(request(addr, "POST", "/api/profile", "{").0, 400);

    // Problems through the analysis.
    let (st, brb) = get_json(addr, "/api/problem?kind=brb&method=brb");
    assert_eq!(st, 200);
    assert_eq!(brb["occurrences"].as_array().unwrap().len(), 4);
    let (st, err) = get_json(addr, "/api/problem?kind=method&method=nothing&when=");
    assert_eq!(st, 422);
    assert!(err["error"].as_str().unwrap().contains("nothing"));
    assert_eq!(get_json(addr, "/api/nothing").0, 404);

    // A page from elsewhere that rebinds its name to 127.0.0.1 is refused.
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /api/meta HTTP/1.0\r\nHost: evil.example:{}\r\n\r\n",
        addr.port()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    assert!(
        out.starts_with("HTTP/1.0 403") || out.starts_with("HTTP/1.1 403"),
        "{out:.60}"
    );
}
