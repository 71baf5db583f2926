//! The Firefox export loaded by the Firefox Profiler's own code: its
//! command-line front end `profiler-cli` (npm `@firefox-devtools/profiler-cli`,
//! installed by `scripts/deps/export.sh`) runs the profiler's profile
//! loading, format upgrading and call-tree computation under Node. Every
//! thread's top-down call tree must be the session's inclusive wall time
//! per call path, its CPU total the thread's CPU time, and its markers the
//! session's markers.
//!
//! Skips with a message when Node or profiler-cli is absent; `scripts/setup`
//! installs profiler-cli.

mod common;

use common::{call_tree, threads_with_calls, SEP};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn profiler_cli() -> Option<PathBuf> {
    let js = match std::env::var_os("TRACEKIT_PROFILER_CLI") {
        Some(p) => PathBuf::from(p),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
            cache.join("tracekit/profiler-cli-0.10.0/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js")
        }
    };
    js.is_file().then_some(js)
}

/// A profiler-cli daemon session, stopped on drop.
struct Cli {
    js: PathBuf,
    dir: PathBuf,
    session: String,
    daemon: std::process::Child,
}

impl Cli {
    /// Starts the daemon on `file` and waits until it answers. `load` would
    /// start it too, but gives it only 500 ms to come up, too little on a
    /// loaded machine; this runs the same daemon command (the one `load`
    /// prints as its foreground equivalent) as our own child.
    fn start(js: &Path, dir: &Path, session: String, file: &Path) -> Cli {
        let daemon = Command::new("node")
            .arg(js)
            .arg("--daemon")
            .arg(file)
            .args(["--session", &session])
            .env("PROFILER_CLI_SESSION_DIR", dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the profiler-cli daemon");
        let mut cli = Cli {
            js: js.to_owned(),
            dir: dir.to_owned(),
            session,
            daemon,
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        // The daemon publishes `<session>.json` once it listens. Ask nothing
        // before: a client that finds no metadata deletes the session's files,
        // racing with the daemon that is about to write them.
        let metadata = dir.join(format!("{}.json", cli.session));
        while !metadata.exists() {
            if let Ok(Some(status)) = cli.daemon.try_wait() {
                panic!("the profiler-cli daemon exited ({status}) loading {}", file.display());
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the profiler-cli daemon did not start within 120 s"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        loop {
            let out = cli.command(&["profile", "info", "--json"]);
            if out.status.success() {
                return cli;
            }
            if let Ok(Some(status)) = cli.daemon.try_wait() {
                panic!("the profiler-cli daemon exited ({status}) loading {}", file.display());
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the profiler-cli daemon did not answer within 120 s: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    fn command(&self, args: &[&str]) -> std::process::Output {
        Command::new("node")
            .arg(&self.js)
            .args(args)
            .args(["--session", &self.session])
            .env("PROFILER_CLI_SESSION_DIR", &self.dir)
            .output()
            .expect("run node")
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.command(args);
        assert!(
            out.status.success(),
            "profiler-cli {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let text = self.run(&[args, &["--json"]].concat());
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("profiler-cli {args:?}: {e}: {text}"))
    }
}

impl Drop for Cli {
    fn drop(&mut self) {
        let _ = Command::new("node")
            .arg(&self.js)
            .args(["stop", &self.session])
            .env("PROFILER_CLI_SESSION_DIR", &self.dir)
            .output();
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// Flattens profiler-cli's top-down tree into call path → total ms.
fn flatten(node: &Value, prefix: &str, out: &mut BTreeMap<String, f64>) {
    for child in node["children"].as_array().into_iter().flatten() {
        let name = child["name"].as_str().unwrap();
        let path = if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}{SEP}{name}")
        };
        assert!(
            out.insert(path.clone(), child["totalSamples"].as_f64().unwrap())
                .is_none(),
            "{path} twice"
        );
        flatten(child, &path, out);
    }
}

#[test]
fn the_firefox_profiler_loads_the_export_with_the_trace_times() {
    let Some(js) = profiler_cli() else {
        eprintln!("skipped: @firefox-devtools/profiler-cli is not installed (run scripts/setup, or set TRACEKIT_PROFILER_CLI)");
        return;
    };
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipped: node is not on PATH");
        return;
    }
    // Unix socket paths are limited to 108 bytes: keep the directory short.
    let dir = std::env::temp_dir().join(format!("tkpq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, s) in [("handmade", common::handmade()), ("example", common::example())] {
        let file = dir.join(format!("{name}.json"));
        tracekit_export::write_firefox(&s, &mut std::fs::File::create(&file).unwrap()).unwrap();
        let cli = Cli::start(&js, &dir, format!("{name}{}", std::process::id()), &file);

        let info = cli.json(&["profile", "info", "--all"]);
        let shown: BTreeMap<String, f64> = info["processes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p["threads"].as_array().unwrap().iter())
            .map(|t| (t["name"].as_str().unwrap().to_owned(), t["cpuMs"].as_f64().unwrap()))
            .collect();
        let threads = threads_with_calls(&s);
        assert_eq!(shown.len(), threads.len(), "{name}: {info}");
        for (k, &t) in threads.iter().enumerate() {
            let th = s.thread(t);
            let title = format!("{} (tid {})", th.label(), th.tid);
            // CPU: the sum of the samples' CPU deltas is the thread's CPU time.
            let (_, _, cpu) = s.calls(t).columns();
            let cpu = cpu.unwrap();
            let cpu_ms = (cpu[cpu.len() - 1] - cpu[0]) as f64 / 1e6;
            let got_cpu = shown[&title];
            assert!(
                (got_cpu - cpu_ms).abs() < 1e-6 * cpu_ms.max(1.0),
                "{name}, {title}: CPU {got_cpu} ms vs {cpu_ms} ms"
            );

            let handle = format!("t-{k}");
            let tree = cli.json(&[
                "thread",
                "samples-top-down",
                "--thread",
                &handle,
                "--max-lines",
                "100000",
            ]);
            assert_eq!(tree["friendlyThreadName"], title.as_str());
            assert_eq!(tree["weightType"], "tracing-ms");
            let mut got = BTreeMap::new();
            flatten(&tree["regularCallTree"], "", &mut got);
            let want = call_tree(&s, t);
            for (path, node) in &want {
                let ms = node.wall_ns as f64 / 1e6;
                let have = got.remove(path).unwrap_or(0.0);
                assert!(
                    (have - ms).abs() < 1e-6 * ms.max(1.0),
                    "{name}, {title}: {path}: {have} ms vs {ms} ms"
                );
            }
            assert!(
                got.is_empty(),
                "{name}, {title}: paths the trace does not have: {got:?}"
            );

            let markers = cli.json(&["thread", "markers", "--thread", &handle, "--list", "--limit", "0"]);
            let shown: Vec<(String, f64)> = markers["flatMarkers"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|m| (m["name"].as_str().unwrap().to_owned(), m["start"].as_f64().unwrap()))
                        .collect()
                })
                .unwrap_or_default();
            let want: Vec<(String, f64)> = s
                .markers
                .iter()
                .filter(|m| m.thread == t)
                .map(|m| (m.name.clone(), m.ts_ns as f64 / 1e6))
                .collect();
            assert_eq!(shown.len(), want.len(), "{name}, {title}: markers {markers}");
            for ((a, x), (b, y)) in shown.iter().zip(&want) {
                assert_eq!(a, b);
                assert!((x - y).abs() < 1e-9, "{a}: {x} vs {y}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
