//! The UI server bounds what one request can cost: request bodies are
//! limited (413 beyond [`tracekit_ui::MAX_BODY`], read no further), and a
//! problem condition nested thousands of parentheses deep is a 422 answer,
//! not a stack overflow that aborts the server. Its own test binary, so
//! the memory measurements see this server alone.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use tracekit_report::{synthetic, AnalysisSolver, ViewModel};

fn server() -> SocketAddr {
    let session = Arc::new(synthetic::session(20_000));
    let view = Arc::new(ViewModel::new(&session));
    tracekit_ui::Server::bind(0, view, Arc::new(AnalysisSolver::new(session)), vec![])
        .unwrap()
        .spawn()
}

fn status_of(response: &str) -> u16 {
    response.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Sends `head` then up to `body_len` bytes of body (in a thread, ignoring
/// write errors once the server has answered), returns the response.
fn exchange(addr: SocketAddr, head: String, body_len: usize) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let mut w = s.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b' '; 1 << 16];
        let mut left = body_len;
        while left > 0 {
            let n = left.min(chunk.len());
            if w.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n;
        }
    });
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let _ = writer.join();
    String::from_utf8_lossy(&out).into_owned()
}

/// Peak resident memory of this process, KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn request_bodies_are_limited_and_problems_cannot_overflow_the_stack() {
    let addr = server();
    let profile = |body: &str| {
        exchange(
            addr,
            format!(
                "POST /api/profile HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ),
            0,
        )
    };
    // A normal request works (and warms the server up before measuring).
    assert_eq!(status_of(&profile(r#"{"intervals": null}"#)), 200);
    let before = peak_rss_kib();

    // Announced too large: refused before the body is read.
    let r = exchange(
        addr,
        format!(
            "POST /api/profile HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            200 << 20
        ),
        200 << 20,
    );
    assert_eq!(status_of(&r), 413, "{r:.300}");
    // Not announced (chunked): read up to the limit, then refused.
    let chunked = {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(
            s,
            "POST /api/profile HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .unwrap();
        let chunk = vec![b' '; 1 << 16];
        let mut sent = 0usize;
        while sent < (100 << 20) {
            if write!(s, "{:x}\r\n", chunk.len()).is_err()
                || s.write_all(&chunk).is_err()
                || s.write_all(b"\r\n").is_err()
            {
                break;
            }
            sent += chunk.len();
        }
        let _ = s.write_all(b"0\r\n\r\n");
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    };
    assert_eq!(status_of(&chunked), 413, "{chunked:.300}");
    let grown_mib = (peak_rss_kib() - before) / 1024;
    // tiny_http drains an unread body in reads of what the socket holds, so
    // the peak grows by a few socket buffers, not by the body (before the
    // limit a 200 MB body raised the server to 378 MB).
    eprintln!("peak grew by {grown_mib} MiB for 300 MB of refused bodies");
    assert!(
        grown_mib < 64,
        "serving 300 MB of refused bodies raised the peak by {grown_mib} MiB"
    );

    // Just under the limit is still served (a valid JSON padded with blanks).
    let mut body = String::from(r#"{"intervals": [[0, 1000]]}"#);
    body.push_str(&" ".repeat(tracekit_ui::MAX_BODY - body.len()));
    assert_eq!(status_of(&profile(&body)), 200);

    // A condition nested 2,800 (and 100,000) parentheses deep is a clear
    // 422, and the server keeps answering.
    for depth in [2_800, 100_000] {
        let when = format!("{}CPU > 0.5{}", "(".repeat(depth), ")".repeat(depth));
        let r = exchange(
            addr,
            format!(
                "GET /api/problem?kind=method&method=draw&when={} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n",
                when.replace(' ', "%20")
            ),
            0,
        );
        assert_eq!(status_of(&r), 422, "{r:.300}");
        assert!(r.contains("parentheses deep"), "{r:.300}");
    }
    assert_eq!(status_of(&profile(r#"{"intervals": null}"#)), 200);
}
