//! Drives headless Chromium over the Chrome DevTools Protocol, for tracekit's
//! viewer tests and its first-paint benchmark.
//!
//! The browser runs with the flags this machine needs (no sandbox as root, no
//! GPU, no background networking) and a fresh profile directory that is
//! removed on drop. Commands go over one websocket to the browser, using a
//! flattened session attached to one page.
//!
//! ```no_run
//! use tracekit_browser::Browser;
//! let mut b = Browser::launch(1280, 800).expect("chromium runs");
//! b.navigate("file:///tmp/report.html").unwrap();
//! b.wait_for("document.body.dataset.painted === '1'", 20.0).unwrap();
//! let rows = b.eval("document.querySelectorAll('.tk-label').length").unwrap();
//! b.screenshot(std::path::Path::new("target/report.png")).unwrap();
//! # let _ = rows;
//! ```

use base64::Engine as _;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// The Chromium binary: `$TRACEKIT_CHROMIUM`, else the first of Debian's
/// `chromium`, `chromium-browser`, `google-chrome` found on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TRACEKIT_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A running headless Chromium with one page.
pub struct Browser {
    child: Child,
    ws: WebSocket<TcpStream>,
    session: String,
    next_id: u64,
    profile: PathBuf,
    errors: Arc<Mutex<Vec<String>>>,
    page_errors: Vec<String>,
}

type Result<T> = std::result::Result<T, String>;

impl Browser {
    /// Starts Chromium with a `width` × `height` viewport.
    pub fn launch(width: u32, height: u32) -> Result<Browser> {
        let exe = find_chromium().ok_or("no chromium on PATH (install it with scripts/setup)")?;
        let profile = std::env::temp_dir().join(format!("tracekit-chromium-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&profile).map_err(|e| format!("{}: {e}", profile.display()))?;
        let mut child = Command::new(&exe)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                "--remote-debugging-address=127.0.0.1",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            // Its own process group, so that dropping the browser ends its
            // helper processes too (they write into the profile).
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        let errors = Arc::new(Mutex::new(Vec::new()));
        let log = errors.clone();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
                if !sent {
                    if let Some(i) = line.find("ws://") {
                        let _ = tx.send(line[i..].trim().to_owned());
                        sent = true;
                        continue;
                    }
                }
                if let Ok(mut l) = log.lock() {
                    if l.len() < 200 {
                        l.push(line);
                    }
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(90)) {
            Ok(u) => u,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                let log = errors.lock().map(|l| l.join("\n")).unwrap_or_default();
                return Err(format!("chromium printed no DevTools address within 90 s:\n{log}"));
            }
        };
        let rest = url.trim_start_matches("ws://");
        let host = rest.split('/').next().unwrap_or_default().to_owned();
        let stream = TcpStream::connect(&host).map_err(|e| format!("connect {host}: {e}"))?;
        let (ws, _) = tungstenite::client(url.as_str(), stream).map_err(|e| format!("websocket {url}: {e}"))?;
        ws.get_ref()
            .set_read_timeout(Some(Duration::from_millis(200)))
            .map_err(|e| e.to_string())?;
        let mut b = Browser {
            child,
            ws,
            session: String::new(),
            next_id: 1,
            profile,
            errors,
            page_errors: Vec::new(),
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}))?;
        let id = target["targetId"].as_str().ok_or("no targetId")?.to_owned();
        let att = b.call("Target.attachToTarget", json!({"targetId": id, "flatten": true}))?;
        b.session = att["sessionId"].as_str().ok_or("no sessionId")?.to_owned();
        b.call("Page.enable", json!({}))?;
        b.call("Runtime.enable", json!({}))?;
        b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        )?;
        Ok(b)
    }

    /// Sends one DevTools command to the page (or the browser before a page
    /// is attached) and waits up to 60 s for its answer.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = Value::from(self.session.clone());
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .map_err(|e| format!("{method}: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if Instant::now() > deadline {
                return Err(format!("{method}: no answer within 60 s"));
            }
            let m = match self.ws.read() {
                Ok(m) => m,
                Err(tungstenite::Error::Io(e))
                    if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
                {
                    continue
                }
                Err(e) => return Err(format!("{method}: {e}")),
            };
            let Message::Text(text) = m else { continue };
            let v: Value = serde_json::from_str(text.as_ref()).map_err(|e| e.to_string())?;
            if v["id"].as_u64() == Some(id) {
                if let Some(err) = v.get("error") {
                    return Err(format!("{method}: {err}"));
                }
                return Ok(v["result"].clone());
            }
            match v["method"].as_str() {
                Some("Runtime.exceptionThrown") => {
                    let d = &v["params"]["exceptionDetails"];
                    self.page_errors
                        .push(format!("{} {}", d["text"], d["exception"]["description"]));
                }
                Some("Runtime.consoleAPICalled") if v["params"]["type"] == "error" => {
                    self.page_errors.push(v["params"]["args"].to_string());
                }
                _ => {}
            }
        }
    }

    /// Loads `url` and waits for the document to finish loading.
    pub fn navigate(&mut self, url: &str) -> Result<()> {
        self.call("Page.navigate", json!({"url": url}))?;
        self.wait_for("document.readyState === 'complete'", 60.0).map(|_| ())
    }

    /// Evaluates a JavaScript expression in the page (promises awaited) and
    /// returns its value.
    pub fn eval(&mut self, expr: &str) -> Result<Value> {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(format!(
                "{expr}: {}",
                ex["exception"]["description"].as_str().unwrap_or(&ex.to_string())
            ));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Polls `expr` until it is truthy, up to `seconds`; returns its value.
    pub fn wait_for(&mut self, expr: &str, seconds: f64) -> Result<Value> {
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        loop {
            let v = self.eval(expr)?;
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return Ok(v);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "timed out after {seconds} s waiting for {expr}; page errors: {:?}",
                    self.page_errors
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A mouse event at viewport coordinates: `kind` is `mousePressed`,
    /// `mouseReleased` or `mouseMoved`.
    pub fn mouse(&mut self, kind: &str, x: f64, y: f64) -> Result<()> {
        self.mouse_with(kind, x, y, 0)
    }

    /// A mouse event with modifier keys held (DevTools bits: Alt 1, Ctrl 2,
    /// Meta 4, Shift 8).
    pub fn mouse_with(&mut self, kind: &str, x: f64, y: f64, modifiers: u32) -> Result<()> {
        let (button, buttons) = match kind {
            "mouseMoved" => ("none", 0),
            _ => ("left", 1),
        };
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": 1, "modifiers": modifiers}),
        )
        .map(|_| ())
    }

    /// Drags with the left button from `(x0, y)` to `(x1, y)`.
    pub fn drag(&mut self, x0: f64, x1: f64, y: f64) -> Result<()> {
        self.drag_with(x0, x1, y, 0)
    }

    /// Drags with the left button and modifier keys held (see [`Browser::mouse_with`]).
    pub fn drag_with(&mut self, x0: f64, x1: f64, y: f64, modifiers: u32) -> Result<()> {
        self.mouse_with("mouseMoved", x0, y, modifiers)?;
        self.mouse_with("mousePressed", x0, y, modifiers)?;
        for k in 1..=5 {
            self.mouse_with("mouseMoved", x0 + (x1 - x0) * k as f64 / 5.0, y, modifiers)?;
        }
        self.mouse_with("mouseReleased", x1, y, modifiers)
    }

    /// Presses and releases a key (`"w"`, `"ArrowLeft"`, …).
    pub fn key(&mut self, key: &str) -> Result<()> {
        let text = if key.chars().count() == 1 { key } else { "" };
        self.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyDown", "key": key, "text": text}),
        )?;
        self.call("Input.dispatchKeyEvent", json!({"type": "keyUp", "key": key}))
            .map(|_| ())
    }

    /// Saves a PNG screenshot of the viewport.
    pub fn screenshot(&mut self, path: &Path) -> Result<()> {
        let r = self.call("Page.captureScreenshot", json!({"format": "png"}))?;
        let data = base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().ok_or("no screenshot data")?)
            .map_err(|e| e.to_string())?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, data).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Uncaught exceptions and `console.error` calls seen so far in the page.
    pub fn page_errors(&self) -> &[String] {
        &self.page_errors
    }

    /// Chromium's own stderr lines (for diagnosing a failed start).
    pub fn browser_log(&self) -> Vec<String> {
        self.errors.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.ws.close(None);
        // The whole group: Chromium's helpers outlive a killed browser
        // process for a moment and would write into the removed profile.
        if let Ok(group) = i32::try_from(self.child.id()) {
            // SAFETY: signals our own child's process group.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        for _ in 0..20 {
            if std::fs::remove_dir_all(&self.profile).is_ok() || !self.profile.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (N.fetch_add(1, Ordering::Relaxed) << 48)
}

/// Where tests put screenshots and other artefacts: `$CARGO_TARGET_DIR` or
/// the workspace's `target/`, under `viewer-artifacts/`.
pub fn artifacts_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("viewer-artifacts")
}
