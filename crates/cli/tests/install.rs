//! Installed tracekit: a binary alone (as `cargo install` leaves it) finds
//! the libraries it embeds, and the Debian package installs (with dpkg)
//! into a scratch root and runs the demo from there.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn run(cmd: &mut Command) -> Output {
    // A binary copied by this test can be "busy" for a moment: a process
    // another test thread forks between its copy and its exec inherits the
    // copy's write descriptor until it execs (ETXTBSY). Retry then.
    let mut tries = 0;
    let out = loop {
        match cmd.stdin(Stdio::null()).output() {
            // 26: ETXTBSY on Linux.
            Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.expect("run"),
        }
    };
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Everything below `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// A C program built with -finstrument-functions (what `record` is for).
fn instrumented_program(dir: &Path) -> PathBuf {
    let src = dir.join("work.c");
    std::fs::write(
        &src,
        "int work(int n) { return n < 2 ? n : work(n - 1) + work(n - 2); }\n\
         int main(void) { return work(15) == 610 ? 0 : 1; }\n",
    )
    .unwrap();
    let exe = dir.join("work");
    run(Command::new("cc")
        .args(["-O0", "-g", "-finstrument-functions", "-o"])
        .arg(&exe)
        .arg(&src));
    exe
}

#[test]
fn a_lone_binary_writes_its_embedded_runtime_to_the_cache_and_records_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let tk = bin.join("tracekit");
    // Copied alone, as `cargo install` leaves it: nothing beside it.
    std::fs::copy(env!("CARGO_BIN_EXE_tracekit"), &tk).unwrap();
    let cache = dir.path().join("cache");
    let exe = instrumented_program(dir.path());
    let rec = dir.path().join("rec");
    let out = run(Command::new(&tk)
        .env_remove("TRACEKIT_RT")
        .env("XDG_CACHE_HOME", &cache)
        .args(["record", "--context", "none", "-o"])
        .arg(&rec)
        .arg("--")
        .arg(&exe));
    let cached = files_under(&cache);
    assert_eq!(cached.len(), 1, "{cached:?}");
    assert!(
        cached[0].starts_with("tracekit/lib-") && cached[0].ends_with("/libtracekit_rt.so"),
        "{cached:?}"
    );
    // The recording holds the calls the embedded runtime wrote.
    let replay = run(Command::new(&tk).arg("profile").arg(&rec));
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        text.contains("work"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A second run reuses the cached copy.
    let before = std::fs::metadata(cache.join(&cached[0])).unwrap().modified().unwrap();
    run(Command::new(&tk)
        .env("XDG_CACHE_HOME", &cache)
        .args(["record", "--force", "--context", "none", "-o"])
        .arg(&rec)
        .arg("--")
        .arg(&exe));
    assert_eq!(files_under(&cache), cached);
    assert_eq!(
        std::fs::metadata(cache.join(&cached[0])).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn a_lone_binary_runs_the_emulator_with_its_embedded_plugin() {
    if Command::new("qemu-x86_64").arg("--version").output().is_err() {
        eprintln!("skipped: qemu-x86_64 absent (scripts/setup installs qemu-user)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tk = dir.path().join("tracekit");
    std::fs::copy(env!("CARGO_BIN_EXE_tracekit"), &tk).unwrap();
    let cache = dir.path().join("cache");
    let out = dir.path().join("run");
    run(Command::new(&tk)
        .env_remove("TRACEKIT_QEMU_PLUGIN")
        .env("XDG_CACHE_HOME", &cache)
        .args(["emu", "run", "--arch", "x86_64", "-o"])
        .arg(&out)
        .args(["--", "/bin/true"]));
    assert!(
        files_under(&cache)
            .iter()
            .any(|f| f.ends_with("/libtracekit_qemu_plugin.so")),
        "{:?}",
        files_under(&cache)
    );
    let report = run(Command::new(&tk).args(["emu", "report", "--json"]).arg(&out));
    let json: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert!(json.to_string().contains("instructions"), "{json}");
}

#[test]
fn the_debian_package_installs_into_a_scratch_root_and_runs_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(Command::new("bash")
        .arg(root().join("scripts/package/deb"))
        .args(["--fast", "--binary", env!("CARGO_BIN_EXE_tracekit"), "-o"])
        .arg(dir.path()));
    let deb = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_owned());
    assert!(deb.extension().is_some_and(|e| e == "deb"), "{deb:?}");

    let info = run(Command::new("dpkg-deb").arg("--info").arg(&deb));
    let info = String::from_utf8_lossy(&info.stdout);
    for field in ["Package: tracekit", "Architecture: ", "Depends: libc6", "Description: "] {
        assert!(info.contains(field), "{info}");
    }

    // dpkg itself installs it into an empty root with a database of its own
    // (libc6 is not in that root, hence --force-depends; not as the
    // superuser, hence --force-not-root).
    let scratch = dir.path().join("root");
    for d in ["var/lib/dpkg/info", "var/lib/dpkg/updates"] {
        std::fs::create_dir_all(scratch.join(d)).unwrap();
    }
    std::fs::write(scratch.join("var/lib/dpkg/status"), "").unwrap();
    let dpkg = |args: &[&str]| {
        let mut cmd = Command::new("dpkg");
        cmd.arg(format!("--root={}", scratch.display())).args([
            "--force-depends",
            "--force-not-root",
            "--force-script-chrootless",
            "--log=/dev/null",
        ]);
        run(cmd.args(args))
    };
    dpkg(&["-i", deb.to_str().unwrap()]);
    let status = dpkg(&["-s", "tracekit"]);
    assert!(
        String::from_utf8_lossy(&status.stdout).contains("Status: install ok installed"),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
    let files = files_under(&scratch);
    for expected in [
        "usr/bin/tracekit",
        "usr/lib/tracekit/libtracekit_rt.so",
        "usr/lib/tracekit/libtracekit_qemu_plugin.so",
        "usr/share/bash-completion/completions/tracekit",
        "usr/share/zsh/vendor-completions/_tracekit",
        "usr/share/fish/vendor_completions.d/tracekit.fish",
        "usr/share/man/man1/tracekit.1.gz",
        "usr/share/man/man1/tracekit-profile.1.gz",
        "usr/share/man/man1/tracekit-emu-run.1.gz",
        "usr/share/doc/tracekit/copyright",
    ] {
        assert!(files.iter().any(|f| f == expected), "{expected} not in {files:?}");
    }

    // The demo, from the scratch root, with a home of its own.
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let tk = scratch.join("usr/bin/tracekit");
    let demo = run(Command::new(&tk).arg("demo").env("HOME", &home).current_dir(&home));
    let text = String::from_utf8_lossy(&demo.stdout);
    assert!(text.contains("Screen orientation"), "{text}");

    // `record` finds the package's runtime in ../lib/tracekit: nothing is
    // written to the cache.
    let exe = instrumented_program(dir.path());
    run(Command::new(&tk)
        .env_remove("TRACEKIT_RT")
        .env("HOME", &home)
        .env_remove("XDG_CACHE_HOME")
        .args(["record", "--context", "none", "-o"])
        .arg(home.join("rec"))
        .arg("--")
        .arg(&exe));
    assert!(!home.join(".cache").exists(), "{:?}", files_under(&home));

    // The manual pages are valid roff that man renders.
    if Command::new("man").arg("--version").output().is_ok() {
        let page = run(Command::new("man")
            .arg("-l")
            .arg(scratch.join("usr/share/man/man1/tracekit-convert.1.gz"))
            .env("MANWIDTH", "100")
            .env("MANPAGER", "cat"));
        let page = String::from_utf8_lossy(&page.stdout);
        assert!(page.contains("--to") && page.contains("speedscope"), "{page}");
    }
    // And bash accepts the completion script and completes a subcommand.
    let bash = run(Command::new("bash").arg("-c").arg(format!(
        "source {}; COMP_WORDS=(tracekit prof); COMP_CWORD=1; _tracekit tracekit prof tracekit; echo \"${{COMPREPLY[@]}}\"",
        scratch.join("usr/share/bash-completion/completions/tracekit").display()
    )));
    assert_eq!(String::from_utf8_lossy(&bash.stdout).trim(), "profile");

    // Removing the package takes every file it installed.
    dpkg(&["-r", "tracekit"]);
    let left: Vec<String> = files_under(&scratch.join("usr"));
    assert!(left.is_empty(), "{left:?}");
}

/// The zsh and fish completion scripts, loaded by the shells themselves,
/// complete a subcommand and a fixed choice (`convert --to`).
#[test]
fn zsh_and_fish_complete_with_the_generated_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let tk = env!("CARGO_BIN_EXE_tracekit");
    for (shell, file) in [("zsh", "_tracekit"), ("fish", "tracekit.fish")] {
        run(Command::new(tk)
            .args(["generate", "completions", "--shell", shell, "-o"])
            .arg(dir.path().join(file)));
    }
    let formats = "android chrome-json firefox folded objtrace perfetto speedscope";

    if Command::new("fish").arg("--version").output().is_ok() {
        let complete = |line: &str| {
            let out = run(Command::new("fish").arg("--no-config").arg("-c").arg(format!(
                "source {}; complete -C '{line}'",
                dir.path().join("tracekit.fish").display()
            )));
            let mut words: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(|l| l.split('\t').next().unwrap_or("").to_owned())
                .collect();
            words.sort();
            words.join(" ")
        };
        assert_eq!(complete("tracekit prof"), "profile");
        assert_eq!(complete("tracekit convert x --to "), formats);
        assert!(
            !complete("tracekit ").contains("generate"),
            "hidden commands are not offered"
        );
    } else {
        eprintln!("skipped fish: not installed (scripts/deps/install.apt)");
    }

    if Command::new("zsh").arg("--version").output().is_ok() {
        // zsh completes only in its line editor: drive an interactive zsh in
        // a pseudo-terminal (zpty), record what the completion function adds.
        let hits = dir.path().join("hits");
        let script = dir.path().join("complete.zsh");
        std::fs::write(
            &script,
            format!(
                r#"zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=''"
zpty -w z "fpath=({dir} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd () {{ builtin compadd -O __hits "$@"; print -l -- $__hits >> {hits}; builtin compadd "$@"; }}'
zpty -w -n z "$1"$'\t'
for i in {{1..100}}; do [[ -s {hits} ]] && break; sleep 0.05; done
sleep 0.2
zpty -d z
"#,
                dir = dir.path().display(),
                hits = hits.display()
            ),
        )
        .unwrap();
        let complete = |line: &str| {
            let _ = std::fs::remove_file(&hits);
            run(Command::new("zsh").arg("-f").arg(&script).arg(line));
            let mut words: Vec<String> = std::fs::read_to_string(&hits)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect();
            words.sort();
            words.dedup();
            words.join(" ")
        };
        assert_eq!(complete("tracekit prof"), "profile");
        assert_eq!(complete("tracekit convert x --to "), formats);
    } else {
        eprintln!("skipped zsh: not installed (scripts/deps/install.apt)");
    }
}
