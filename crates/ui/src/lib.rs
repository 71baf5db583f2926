//! The local web UI behind `tracekit ui NAME`: serves the timeline viewer
//! (the same page as the HTML report) on 127.0.0.1 and answers its
//! questions piece by piece, so sessions too large for one file stay
//! responsive.
//!
//! Endpoints (all JSON but `/`):
//! - `GET /` — the viewer page in server mode.
//! - `GET /api/meta` — methods, threads, context and counter tracks, markers,
//!   and the problems computed at start (`{"meta": …, "problems": […]}`).
//! - `GET /api/slices?t0=&t1=&px=` — level of detail for a window: per thread
//!   and depth, boxes `[start, end, method, count, index]` where calls
//!   narrower than a pixel are merged (`count > 1`). Costs O(px · log calls).
//! - `POST /api/profile` with `{"intervals": [[a, b], …] | null}` — profile and
//!   call tree inside the intervals (whole session for `null`).
//! - `GET /api/problem?kind=brb|method&method=&when=` — a problem view,
//!   computed by the [`ProblemSolver`] the caller supplies (a malformed or
//!   too deeply nested condition is a 422 with the reason).
//!
//! Request bodies larger than [`MAX_BODY`] are answered with 413 and not
//! kept in memory.
//!
//! ```no_run
//! use std::sync::Arc;
//! use tracekit_model::{Clocks, Session};
//! use tracekit_report::{ProblemDef, ProblemSolver, ProblemView, ViewModel};
//! struct NoProblems;
//! impl ProblemSolver for NoProblems {
//!     fn solve(&self, _: &ProblemDef) -> Result<ProblemView, String> { Err("none".into()) }
//! }
//! let view = ViewModel::new(&Session::new("s", Clocks::WALL));
//! let server = tracekit_ui::Server::bind(0, Arc::new(view), Arc::new(NoProblems), vec![]).unwrap();
//! println!("http://{}/", server.addr());
//! server.run(); // until the process ends
//! ```

use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;
use tiny_http::{Header, Method, Request, Response};
use tracekit_report::{
    interval_profile, normalize_intervals, page, PageMode, ProblemDef, ProblemSolver, ProblemView, ViewModel,
    MAX_TREE_NODES,
};

/// The web UI server, bound to 127.0.0.1.
pub struct Server {
    http: tiny_http::Server,
    state: Arc<State>,
}

struct State {
    view: Arc<ViewModel>,
    solver: Arc<dyn ProblemSolver>,
    problems: Vec<ProblemView>,
    page: String,
    /// The whole-session profile, computed on first request and kept.
    whole_profile: std::sync::OnceLock<Value>,
}

/// Most boxes one `/api/slices` answer may hold per level (a safety bound
/// for absurd `px` values).
const MAX_PX: u64 = 16_384;

/// Largest request body read (1 MiB): a profile request for ten thousand
/// intervals is under 400 KB. Larger bodies get `413 Payload Too Large`
/// without being read, so no request can make the server grow (a 200 MB
/// body used to raise it to 378 MB).
pub const MAX_BODY: usize = 1 << 20;

impl Server {
    /// Binds `127.0.0.1:port` (0 picks a free port). `problems` are shown
    /// as ready-made definitions; `solver` answers new ones.
    pub fn bind(
        port: u16,
        view: Arc<ViewModel>,
        solver: Arc<dyn ProblemSolver>,
        problems: Vec<ProblemView>,
    ) -> Result<Server, String> {
        let http = tiny_http::Server::http(("127.0.0.1", port))
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
        let page = page(PageMode::Server, &view.name, &Value::Null);
        Ok(Server {
            http,
            state: Arc::new(State {
                view,
                solver,
                problems,
                page,
                whole_profile: std::sync::OnceLock::new(),
            }),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.http.server_addr().to_ip().expect("bound to an IP address")
    }

    /// Serves requests until the process ends, two at a time (the machine
    /// this is meant for has two cores; profile requests can be slow).
    pub fn run(self) {
        // Warm the whole-session profile while the page loads.
        let warm = self.state.clone();
        std::thread::spawn(move || warm.profile(r#"{"intervals": null}"#));
        let http = Arc::new(self.http);
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let (http, state) = (http.clone(), self.state.clone());
                std::thread::spawn(move || {
                    for req in http.incoming_requests() {
                        state.handle(req);
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.join();
        }
    }

    /// Serves in a background thread and returns the address (for tests).
    pub fn spawn(self) -> SocketAddr {
        let addr = self.addr();
        std::thread::spawn(move || self.run());
        addr
    }
}

fn query(url: &str) -> Vec<(String, String)> {
    let Some((_, q)) = url.split_once('?') else {
        return Vec::new();
    };
    q.split('&')
        .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
        .map(|(k, v)| (percent_decode(k), percent_decode(v)))
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match (b[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(v)) => {
                out.push(v);
                i += 2;
            }
            (c, _) => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// True for `127.0.0.1[:port]`, `localhost[:port]` and `[::1][:port]`.
fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    matches!(name.to_ascii_lowercase().as_str(), "127.0.0.1" | "localhost" | "::1")
}

fn param<'a>(q: &'a [(String, String)], name: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn json_response(status: u16, v: &Value) -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(serde_json::to_vec(v).expect("JSON values serialise"))
        .with_status_code(status)
        .with_header(Header::from_bytes("Content-Type", "application/json").expect("valid header"))
        .with_header(Header::from_bytes("Cache-Control", "no-store").expect("valid header"))
}

/// The request's body as text, at most [`MAX_BODY`] bytes; a larger body
/// (announced or sent) is answered with 413 and not read.
fn read_body(req: &mut Request) -> Result<String, Response<std::io::Cursor<Vec<u8>>>> {
    use std::io::Read as _;
    let too_large = || {
        json_response(
            413,
            &json!({"error": format!("request body larger than {MAX_BODY} bytes")}),
        )
    };
    if req.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    if let Err(e) = req.as_reader().take(MAX_BODY as u64 + 1).read_to_end(&mut body) {
        return Err(json_response(400, &json!({"error": format!("request body: {e}")})));
    }
    if body.len() > MAX_BODY {
        return Err(too_large());
    }
    String::from_utf8(body).map_err(|_| json_response(400, &json!({"error": "request body is not UTF-8"})))
}

impl State {
    fn handle(&self, mut req: Request) {
        // Only pages on this machine may talk to us: a Host other than a
        // loopback name is a DNS-rebinding attempt from some web page.
        let host_ok = req
            .headers()
            .iter()
            .filter(|h| h.field.equiv("Host"))
            .all(|h| loopback_host(h.value.as_str()));
        if !host_ok {
            let _ = req.respond(json_response(
                403,
                &json!({"error": "only loopback hosts may use this server"}),
            ));
            return;
        }
        let url = req.url().to_owned();
        let path = url.split('?').next().unwrap_or("/").to_owned();
        let q = query(&url);
        let resp = match (req.method(), path.as_str()) {
            (Method::Get, "/") | (Method::Get, "/index.html") => Response::from_string(self.page.clone())
                .with_header(Header::from_bytes("Content-Type", "text/html; charset=utf-8").expect("valid header")),
            (Method::Get, "/api/meta") => {
                json_response(200, &json!({"meta": self.view.meta(), "problems": self.problems}))
            }
            (Method::Get, "/api/slices") => match self.slices(&q) {
                Ok(body) => Response::from_data(body.into_bytes())
                    .with_header(Header::from_bytes("Content-Type", "application/json").expect("valid header")),
                Err(e) => json_response(400, &json!({"error": e})),
            },
            (Method::Post, "/api/profile") => match read_body(&mut req) {
                Err(resp) => resp,
                Ok(body) => match self.profile(&body) {
                    Ok(v) => json_response(200, &v),
                    Err(e) => json_response(400, &json!({"error": e})),
                },
            },
            (Method::Get, "/api/problem") => match self.problem(&q) {
                Ok(v) => json_response(200, &v),
                Err(e) => json_response(422, &json!({"error": e})),
            },
            _ => json_response(404, &json!({"error": format!("no such page: {path}")})),
        };
        let _ = req.respond(resp);
    }

    fn slices(&self, q: &[(String, String)]) -> Result<String, String> {
        let num = |name: &str| -> Result<u64, String> {
            param(q, name)
                .ok_or(format!("missing {name}"))?
                .parse::<u64>()
                .map_err(|_| format!("{name} is not a whole number"))
        };
        let (t0, t1, px) = (num("t0")?, num("t1")?, num("px")?.clamp(1, MAX_PX));
        if t1 <= t0 {
            return Err("t1 must be after t0".into());
        }
        let ns_per_px = (t1 - t0) as f64 / px as f64;
        // Written by hand: a whole-span answer for ten million calls holds
        // tens of thousands of boxes, and building `Value`s for them costs
        // more than finding them.
        use std::fmt::Write as _;
        let mut out = String::with_capacity(64 * 1024);
        out.push_str("{\"threads\":[");
        for (ti, t) in self.view.threads.iter().enumerate() {
            out.push_str(if ti == 0 { "{\"levels\":[" } else { ",{\"levels\":[" });
            for (li, l) in t.levels.iter().enumerate() {
                out.push_str(if li == 0 { "[" } else { ",[" });
                for (bi, b) in l.boxes(t0, t1, ns_per_px).into_iter().enumerate() {
                    let sep = if bi == 0 { "" } else { "," };
                    let _ = write!(out, "{sep}[{},{},{},{},{}]", b.start, b.end, b.method, b.count, b.first);
                }
                out.push(']');
            }
            out.push_str("]}");
        }
        out.push_str("]}");
        Ok(out)
    }

    fn profile(&self, body: &str) -> Result<Value, String> {
        let v: Value = serde_json::from_str(body).map_err(|e| format!("request body: {e}"))?;
        let intervals: Vec<(u64, u64)> = match &v["intervals"] {
            Value::Null => {
                let whole = || {
                    let mut p = interval_profile(
                        &self.view.threads,
                        &[(self.view.span.0, self.view.span.1.saturating_add(1))],
                    );
                    p.prune_tree(MAX_TREE_NODES);
                    serde_json::to_value(p).expect("profiles serialise")
                };
                return Ok(self.whole_profile.get_or_init(whole).clone());
            }
            Value::Array(a) => a
                .iter()
                .map(|iv| {
                    let a = iv[0].as_f64().ok_or("interval start is not a number")?;
                    let b = iv[1].as_f64().ok_or("interval end is not a number")?;
                    Ok((a.max(0.0) as u64, b.max(0.0).ceil() as u64))
                })
                .collect::<Result<_, String>>()?,
            _ => return Err("intervals must be a list or null".into()),
        };
        let mut p = interval_profile(&self.view.threads, &normalize_intervals(intervals));
        p.prune_tree(MAX_TREE_NODES);
        serde_json::to_value(p).map_err(|e| e.to_string())
    }

    fn problem(&self, q: &[(String, String)]) -> Result<Value, String> {
        let method = param(q, "method").unwrap_or("").trim().to_owned();
        let def = match param(q, "kind") {
            Some("brb") => ProblemDef::Brb {
                method: if method.is_empty() { "brb".into() } else { method },
            },
            Some("method") => ProblemDef::Method {
                method,
                when: param(q, "when").unwrap_or("").to_owned(),
            },
            _ => return Err("kind must be brb or method".into()),
        };
        let view = self.solver.solve(&def)?;
        serde_json::to_value(view).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_url_parses_without_panic(url in ".{0,80}") {
            let _ = query(&url);
        }

        #[test]
        fn encoded_text_decodes_back(text in "[ -~]{0,40}") {
            let enc: String = text.bytes().map(|b| format!("%{b:02X}")).collect();
            prop_assert_eq!(percent_decode(&enc), text);
        }
    }

    #[test]
    fn only_loopback_hosts() {
        for h in ["127.0.0.1:8040", "localhost", "LOCALHOST:1", "[::1]:80", "127.0.0.1"] {
            assert!(loopback_host(h), "{h}");
        }
        for h in [
            "evil.example:8040",
            "127.0.0.2",
            "",
            "localhost.evil.example",
            "[::2]:80",
        ] {
            assert!(!loopback_host(h), "{h}");
        }
    }

    #[test]
    fn decodes_queries() {
        let q = query("/api/problem?kind=method&method=a.B.f&when=Screen%20orientation+%3D%3D+1&x");
        assert_eq!(param(&q, "when"), Some("Screen orientation == 1"));
        assert_eq!(param(&q, "x"), Some(""));
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%+1"), "% 1", "a sign is not a hex digit");
    }
}
