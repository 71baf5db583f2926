//! The user guide's examples run: every fenced block marked ```` ```sh,test ````
//! in `docs/guide/src/**/*.md` is run with the tracekit just built first
//! on `PATH`, page by page (a page's blocks share one shell and one fresh
//! directory, in order), and must succeed.
//!
//! A block may say what it needs: `needs=diff` runs it only when `tracekit
//! diff --help` works (a command being written elsewhere), `tool=qemu-arm`
//! only when that program is installed, `file=PATH` only when that file
//! exists (a library a command needs). A block that cannot run skips the
//! rest of its page, since later blocks build on it; each skip is printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn guide() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/src")
}

/// A runnable block: where it is, what it needs, its text.
struct Block {
    line: usize,
    needs: Vec<String>,
    tools: Vec<String>,
    files: Vec<String>,
    text: String,
}

/// The `sh,test` blocks of a Markdown page.
fn blocks(page: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    let mut in_other_block = false;
    for (i, line) in page.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        if in_other_block {
            in_other_block = fence.is_none();
            continue;
        }
        if let Some(b) = current.as_mut() {
            match fence {
                Some(_) => out.push(current.take().unwrap()),
                None => {
                    b.text.push_str(line);
                    b.text.push('\n');
                }
            }
            continue;
        }
        let Some(info) = fence else { continue };
        let mut parts = info.split(',').map(str::trim);
        let lang = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        if (lang == "sh" || lang == "bash") && rest.contains(&"test") {
            current = Some(Block {
                line: i + 1,
                needs: rest
                    .iter()
                    .filter_map(|p| p.strip_prefix("needs="))
                    .map(str::to_owned)
                    .collect(),
                tools: rest
                    .iter()
                    .filter_map(|p| p.strip_prefix("tool="))
                    .map(str::to_owned)
                    .collect(),
                files: rest
                    .iter()
                    .filter_map(|p| p.strip_prefix("file="))
                    .map(str::to_owned)
                    .collect(),
                text: String::new(),
            });
        } else {
            in_other_block = true;
        }
    }
    out
}

fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            pages(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            out.push(p);
        }
    }
}

fn tracekit_has(command: &str) -> bool {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args([command, "--help"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn tool_exists(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v '{tool}' >/dev/null")])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_blocks_parser_finds_marked_blocks_only() {
    let page = "text\n```sh\nnot run\n```\n```sh,test\ntracekit version\n```\n```text\nplain\n```\n\
                ```sh,test,needs=diff,tool=qemu-arm,file=/x.jar\ntracekit diff a --vs b\n```\n";
    let b = blocks(page);
    assert_eq!(b.len(), 2, "{:?}", b.iter().map(|b| &b.text).collect::<Vec<_>>());
    assert_eq!(b[0].text, "tracekit version\n");
    assert_eq!(b[0].line, 5);
    assert_eq!(b[1].needs, ["diff"]);
    assert_eq!(b[1].tools, ["qemu-arm"]);
    assert_eq!(b[1].files, ["/x.jar"]);
}

#[test]
fn every_example_of_the_guide_runs() {
    let mut all = Vec::new();
    pages(&guide(), &mut all);
    assert!(all.len() >= 20, "the guide has {} pages", all.len());
    // One script per page: its runnable blocks in order.
    let mut jobs: Vec<(String, String, usize)> = Vec::new();
    for page in &all {
        let text = std::fs::read_to_string(page).unwrap();
        let rel = page.strip_prefix(guide()).unwrap().display().to_string();
        let mut script = String::from("set -euo pipefail\n");
        let mut count = 0;
        for b in blocks(&text) {
            let missing: Vec<String> = b
                .needs
                .iter()
                .filter(|c| !tracekit_has(c))
                .map(|c| format!("`tracekit {c}`"))
                .chain(b.tools.iter().filter(|t| !tool_exists(t)).map(|t| format!("`{t}`")))
                .chain(b.files.iter().filter(|f| !Path::new(f).exists()).map(|f| f.to_owned()))
                .collect();
            if !missing.is_empty() {
                eprintln!(
                    "skipped: {rel}:{} and the rest of the page: {} not available",
                    b.line,
                    missing.join(", ")
                );
                break;
            }
            script.push_str(&format!("echo '>>> {rel}:{}' >&2\n{}", b.line, b.text));
            count += 1;
        }
        if count > 0 {
            jobs.push((rel, script, count));
        }
    }
    let ran: usize = jobs.iter().map(|j| j.2).sum();
    assert!(ran >= 20, "only {ran} blocks can run");

    // Two pages at a time (the machines have two cores).
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((rel, script, _)) = jobs.get(i) else { break };
                if let Err(e) = run_page(script) {
                    failures.lock().unwrap().push(format!("{rel}: {e}"));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs one page's script in a fresh directory with the built tracekit
/// first on `PATH`.
fn run_page(script: &str) -> Result<(), String> {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_tracekit")).parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .env("PATH", &path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let at = stderr
        .lines()
        .rfind(|l| l.starts_with(">>> "))
        .unwrap_or("?")
        .to_owned();
    Err(format!(
        "{at} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        stderr
    ))
}

/// Under `pipefail`, `tracekit … | head` fails now and then: head exits
/// first and tracekit dies of SIGPIPE (status 141) when it writes again.
/// The pages write to a file and read its head instead.
#[test]
fn no_example_pipes_into_head() {
    let mut all = Vec::new();
    pages(&guide(), &mut all);
    for page in &all {
        let text = std::fs::read_to_string(page).unwrap();
        for b in blocks(&text) {
            assert!(
                !b.text.contains("| head"),
                "{}:{}: write to a file, then head it",
                page.display(),
                b.line
            );
        }
    }
}
