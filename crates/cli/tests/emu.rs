//! End-to-end tests of `tracekit emu`: the real binary runs real programs
//! under Debian's qemu-user with the real plugin.
//!
//! Needs what `scripts/setup` installs (qemu-user and the cross compilers);
//! the workloads are (re)built by `scripts/deps/emu.sh` and the plugin by
//! cargo into `target/emu-plugin`, both on first use.

mod common;

use common::{emu_plugin as plugin, repo_root as root};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

const ARCHES: [&str; 4] = ["arm", "mips", "aarch64", "x86_64"];

/// Cross-compiled workloads, built on first use by the project's script.
fn workload(arch: &str, name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let ok = Command::new("bash")
            .arg(root().join("scripts/deps/emu.sh"))
            .status()
            .expect("bash");
        assert!(ok.success(), "scripts/deps/emu.sh failed");
    });
    let p = root().join("target/workloads/emu").join(arch).join(name);
    assert!(
        p.is_file(),
        "{} missing: run scripts/setup (cross compilers, qemu-user)",
        p.display()
    );
    p
}

fn tracekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .env("TRACEKIT_QEMU_PLUGIN", plugin())
        .output()
        .expect("run tracekit")
}

/// `emu run` with its files staged and packed into `raw/` (the default).
fn run(arch: &str, mode: &str, out: &Path, prog: &Path, args: &[&str]) -> Output {
    run_staged(arch, mode, out, prog, args, None)
}

/// `emu run` with its files written straight into `raw/`, one per
/// process, for tests that damage or edit them.
fn run_loose(arch: &str, mode: &str, out: &Path, prog: &Path, args: &[&str]) -> Output {
    run_staged(arch, mode, out, prog, args, Some("none"))
}

fn run_staged(arch: &str, mode: &str, out: &Path, prog: &Path, args: &[&str], stage: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tracekit"));
    command
        .args(["emu", "run", "--arch", arch, "--mode", mode, "-o"])
        .arg(out)
        .arg("--")
        .arg(prog)
        .args(args)
        .env("TRACEKIT_QEMU_PLUGIN", plugin());
    if let Some(stage) = stage {
        command.env("TRACEKIT_STAGE_DIR", stage);
    }
    command.output().expect("run tracekit")
}

fn report_json(dir: &Path) -> Value {
    let out = tracekit(&["emu", "report", dir.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("report is JSON")
}

/// `// expect <role> key=value …` lines of a known-count program.
fn expectations(arch: &str, name: &str) -> BTreeMap<String, BTreeMap<String, u64>> {
    let src = root().join(format!("workloads/emu/asm/{name}-{arch}.S"));
    let text = std::fs::read_to_string(&src).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("// expect ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let role = words.next().unwrap().to_owned();
        let kv = words.map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k.to_owned(), v.parse().unwrap())
        });
        out.insert(role, kv.collect());
    }
    assert!(!out.is_empty(), "{} has no expect lines", src.display());
    out
}

/// Mnemonic counts of one process (over ARM/Thumb types) from the analysis.
fn mnemonics(dir: &Path, pid: u64) -> BTreeMap<String, u64> {
    let a = tracekit_emu::run::analysis_for(dir, None).unwrap();
    let p = a.processes.iter().find(|p| u64::from(p.pid) == pid).unwrap();
    let mut m = BTreeMap::new();
    for c in &p.mnemonics {
        *m.entry(c.mnemonic.clone()).or_default() += c.count;
    }
    m
}

fn check_process(dir: &Path, proc_json: &Value, want: &BTreeMap<String, u64>, what: &str) {
    let pid = proc_json["pid"].as_u64().unwrap();
    let got = mnemonics(dir, pid);
    for (k, v) in want {
        match k.as_str() {
            "instructions" => assert_eq!(proc_json["instructions"].as_u64(), Some(*v), "{what}: instructions"),
            "signal" => {}
            m => assert_eq!(got.get(m).copied().unwrap_or(0), *v, "{what}: executions of {m}"),
        }
    }
}

#[test]
fn fork_programs_count_exactly_per_process_on_every_isa() {
    let tmp = tempfile::tempdir().unwrap();
    for arch in ARCHES {
        let want = expectations(arch, "fork");
        for mode in ["tb", "insn"] {
            let dir = tmp.path().join(format!("{arch}-{mode}"));
            let out = run(arch, mode, &dir, &workload(arch, "fork"), &[]);
            assert!(out.status.success(), "{arch}: {}", String::from_utf8_lossy(&out.stderr));
            let report = report_json(&dir);
            let procs = report["processes"].as_array().unwrap();
            assert_eq!(procs.len(), 2, "{arch}/{mode}: one parent and one child");
            let parent = procs.iter().find(|p| p["parent"] == 0).unwrap();
            let child = procs.iter().find(|p| p["parent"] == parent["pid"]).unwrap();
            check_process(&dir, parent, &want["parent"], &format!("{arch}/{mode} parent"));
            check_process(&dir, child, &want["child"], &format!("{arch}/{mode} child"));
            assert!(parent["blocks"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn thumb_code_is_recognized_in_the_arm_fork_program() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("arm");
    assert!(run("arm", "tb", &dir, &workload("arm", "fork"), &[]).status.success());
    let report = report_json(&dir);
    let child = report["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["parent"] != 0)
        .unwrap()
        .clone();
    // Child: 2 ARM instructions shared with the parent, adr + bx in ARM,
    // then 607 Thumb instructions (see workloads/emu/asm/fork-arm.S), 3 of
    // them in blocks only the ELF's mapping symbols can place.
    assert_eq!(child["modes"]["arm"], 4);
    assert_eq!(child["modes"]["thumb"], 607);
    let mut ambiguous = 0;
    let raw = tracekit_emu::raw_files::RawFiles::open(&dir.join("raw")).unwrap();
    for kind in raw.kinds() {
        if let tracekit_emu::raw_files::RawFile::Blocks(_) = kind {
            let text = raw.text(kind).unwrap().1;
            ambiguous += text
                .lines()
                .filter(|l| l.starts_with("B ") && l.ends_with(" ?"))
                .count();
        }
    }
    assert_eq!(
        ambiguous, 2,
        "the plugin leaves the two all-32-bit Thumb blocks undecided"
    );

    // The annotated listing names the child's loop and shows its counts.
    let pid = child["pid"].to_string();
    let out = tracekit(&[
        "emu",
        "blocks",
        dir.to_str().unwrap(),
        "--pid",
        &pid,
        "--top",
        "1",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hot = &v[0]["blocks"][0];
    assert_eq!(hot["symbol"], "thumb_child+0x2");
    assert_eq!(hot["ty"], "thumb");
    assert_eq!(hot["executions"], 199);
    let categories: Vec<&str> = hot["insns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["category"].as_str().unwrap())
        .collect();
    assert_eq!(categories, ["ALU", "ALU", "CondBranch"]);
}

#[test]
fn a_process_killed_by_a_signal_keeps_exact_counts() {
    let tmp = tempfile::tempdir().unwrap();
    for arch in ARCHES {
        let want = expectations(arch, "kill");
        let dir = tmp.path().join(arch);
        let out = run(arch, "tb", &dir, &workload(arch, "kill"), &[]);
        assert_eq!(
            out.status.code(),
            Some(128 + 15),
            "{arch}: exit status mirrors the signal"
        );
        let report = report_json(&dir);
        assert_eq!(report["signal"], 15);
        let p = &report["processes"][0];
        assert_eq!(p["exited_normally"], false);
        check_process(&dir, p, &want["main"], arch);
    }
}

#[test]
fn block_counts_equal_the_per_instruction_callback_counts_on_the_c_suite() {
    let tmp = tempfile::tempdir().unwrap();
    for arch in ARCHES {
        let mut per_mode = Vec::new();
        let mut stdout = Vec::new();
        for mode in ["tb", "insn"] {
            let dir = tmp.path().join(format!("{arch}-{mode}"));
            let out = run(arch, mode, &dir, &workload(arch, "suite"), &["all", "1"]);
            assert!(out.status.success(), "{arch}: {}", String::from_utf8_lossy(&out.stderr));
            stdout.push(out.stdout);
            let caps = tracekit_emu::run::load_capture(&dir).unwrap();
            assert_eq!(caps.len(), 1);
            per_mode.push((tracekit_emu::analysis::address_counts(&caps[0]), report_json(&dir)));
        }
        assert_eq!(
            stdout[0], stdout[1],
            "{arch}: the program behaves the same in both modes"
        );
        let (tb, insn) = (&per_mode[0], &per_mode[1]);
        assert!(tb.0.len() > 500, "{arch}: suite executes many instructions");
        let diff: Vec<_> =
            tb.0.keys()
                .chain(insn.0.keys())
                .filter(|a| tb.0.get(a) != insn.0.get(a))
                .take(20)
                .map(|a| format!("{a:#x}: tb {:?} insn {:?}", tb.0.get(a), insn.0.get(a)))
                .collect();
        assert!(
            diff.is_empty(),
            "{arch}: executions per instruction address differ: {diff:#?}"
        );
        let (t, i) = (&tb.1["processes"][0], &insn.1["processes"][0]);
        assert_eq!(t["instructions"], i["instructions"], "{arch}");
        assert_eq!(t["categories"], i["categories"], "{arch}");

        // The shipped default profile classifies ≥ 99% of what ran.
        let total = t["instructions"].as_u64().unwrap();
        let undefined = t["categories"]["Undefined"].as_u64().unwrap();
        assert!(undefined * 100 <= total, "{arch}: {undefined} of {total} uncategorized");
    }
}

#[test]
fn estimate_reproduces_the_seed_figure_exactly() {
    let out = tracekit(&[
        "emu",
        "estimate",
        "--freq-ghz",
        "1",
        "--power-w",
        "0.89",
        "--cpi",
        "13.03",
        "--base-instructions",
        "39171751755",
        "--base-misses",
        "521966483",
        "--mem-access-nj",
        "2.61",
        "--instructions",
        "56750218825",
        "--json",
    ]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["time_s"].as_f64(), Some(739.45535128975));
    assert_eq!(v["power_w"].as_f64(), Some(0.8926691053428465));
    assert_eq!(v["energy_j"].as_f64(), Some(660.0889468768014));
    let bad = tracekit(&[
        "emu",
        "estimate",
        "--freq-ghz",
        "0",
        "--power-w",
        "1",
        "--cpi",
        "1",
        "--base-instructions",
        "1",
        "--base-misses",
        "0",
        "--mem-access-nj",
        "1",
        "--instructions",
        "1",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--freq-ghz"));
}

#[test]
fn profiles_can_be_exported_edited_imported_and_reported_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    assert!(run("arm", "tb", &dir, &workload("arm", "fork"), &[]).status.success());
    let d = dir.to_str().unwrap();

    // A profile without a category for the mnemonics the program runs.
    let file = tmp.path().join("mine.profile");
    let f = file.to_str().unwrap();
    std::fs::write(
        &file,
        "profile mine\nisa armv7\nfreq_ghz 1\ndefault Undefined cycles=1 power_mw=100\n",
    )
    .unwrap();
    let out = tracekit(&["emu", "profile", "import", f, "--into", d]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = tracekit(&["emu", "profile", "uncategorized", d, "--profile", "mine"]);
    let text = String::from_utf8_lossy(&listed.stdout).to_string();
    assert!(text.contains("subs") && text.contains("thumb"), "{text}");

    assert!(tracekit(&[
        "emu",
        "profile",
        "create-category",
        "--profile",
        f,
        "Loop",
        "--cycles",
        "2",
        "--power-mw",
        "50"
    ])
    .status
    .success());
    assert!(
        tracekit(&["emu", "profile", "assign", "--profile", f, "Loop", "subs", "bne"])
            .status
            .success()
    );
    let wrong = tracekit(&["emu", "profile", "assign", "--profile", f, "NoSuch", "subs"]);
    assert!(!wrong.status.success());
    let loop_count = |profile: &str| -> u64 {
        let out = tracekit(&["emu", "report", d, "--json", "--profile", profile]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["processes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["categories"]["Loop"].as_u64().unwrap_or(0))
            .sum()
    };
    // By path: the cached analysis of the unedited "mine" must not answer.
    assert_eq!(loop_count(f), 100 + 100 + 200 + 200, "parent and child subs/bne");
    assert_eq!(loop_count("mine"), 0, "the imported copy is still the old one");
    assert!(tracekit(&["emu", "profile", "import", f, "--into", d]).status.success());
    assert_eq!(loop_count("mine"), 600);

    // Export of a built-in parses back; two organizations side by side.
    let exported = tracekit(&["emu", "profile", "export", "armv7-cortex-a9"]);
    let p = tracekit_emu::profile::Profile::parse(Path::new("x"), &String::from_utf8_lossy(&exported.stdout)).unwrap();
    assert_eq!(p, tracekit_emu::profile::Profile::builtin("armv7-cortex-a9").unwrap());
    let side = tracekit(&[
        "emu",
        "report",
        d,
        "--profile",
        "armv7-cortex-a8",
        "--profile",
        "armv7-cortex-a9",
    ]);
    let text = String::from_utf8_lossy(&side.stdout).to_string();
    assert!(
        text.contains("armv7-cortex-a8") && text.contains("armv7-cortex-a9 vs first"),
        "{text}"
    );
    let cmp = tracekit(&["emu", "compare", d, d]);
    assert!(cmp.status.success());
}

/// `key` summed over the processes of a `--json` report.
fn total(report: &Value, key: &str) -> u64 {
    report["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[key].as_u64().unwrap())
        .sum()
}

/// The counts file of the run's first process.
fn counts_file(dir: &Path) -> PathBuf {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("raw"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "counts"))
        .collect();
    files.sort();
    files.remove(0)
}

#[test]
fn a_truncated_counts_file_is_an_error_not_a_smaller_count() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    assert!(
        run_loose("x86_64", "tb", &dir, &workload("x86_64", "suite"), &["all", "1"])
            .status
            .success()
    );
    let before = total(&report_json(&dir), "instructions");
    assert!(before > 100_000, "{before}");
    let counts = counts_file(&dir);
    let f = std::fs::OpenOptions::new().write(true).open(&counts).unwrap();
    f.set_len(4096).unwrap();
    drop(f);
    let out = tracekit(&["emu", "report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("tracekit: error: ")
            && err.contains(counts.file_name().unwrap().to_str().unwrap())
            && err.contains("truncated: 4096 bytes"),
        "{err}"
    );
}

#[test]
fn the_cached_analysis_follows_changes_in_raw() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    assert!(run_loose("x86_64", "tb", &dir, &workload("x86_64", "fork"), &[])
        .status
        .success());
    let before = total(&report_json(&dir), "blocks");
    // Add 1000 executions to every counter of the first process: the next
    // report must see them although an analysis is cached.
    let counts = counts_file(&dir);
    let mut bytes = std::fs::read(&counts).unwrap();
    let mut changed = 0u64;
    for slot in 1..bytes.len() / 8 {
        let c = u64::from_le_bytes(bytes[slot * 8..slot * 8 + 8].try_into().unwrap());
        if c > 0 {
            bytes[slot * 8..slot * 8 + 8].copy_from_slice(&(c + 1000).to_le_bytes());
            changed += 1000;
        }
    }
    std::fs::write(&counts, &bytes).unwrap();
    let after = total(&report_json(&dir), "blocks");
    assert_eq!(after, before + changed);
}

#[test]
fn a_damaged_block_log_is_reported_with_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    assert!(run_loose("x86_64", "tb", &dir, &workload("x86_64", "fork"), &[])
        .status
        .success());
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.file_name().unwrap().to_str().unwrap().starts_with("analysis-") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let log = std::fs::read_dir(dir.join("raw"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "blocks"))
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    // The first block record follows the header and memory-map snapshot.
    let line = text[..text.find("\nB ").unwrap()].lines().count() + 1;
    std::fs::write(&log, text.replacen("\nB ", "\nB zz ", 1)).unwrap();
    let out = tracekit(&["emu", "report", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(log.file_name().unwrap().to_str().unwrap()) && err.contains(&format!("line {line}:")),
        "{err}"
    );
}

#[test]
fn a_bad_profile_or_arch_is_refused_before_running() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.profile");
    std::fs::write(&bad, "profile bad\nisa x\n").unwrap();
    let dir = tmp.path().join("run");
    let prog = workload("x86_64", "fork");
    let out = tracekit(&[
        "emu",
        "run",
        "--arch",
        "x86_64",
        "--profile",
        bad.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
        "--",
        prog.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.profile"));
    assert!(!dir.join("raw").exists(), "nothing ran");
    let out = tracekit(&[
        "emu",
        "run",
        "--arch",
        "arm",
        "-o",
        dir.to_str().unwrap(),
        "--",
        prog.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not arm"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn estimate_can_take_the_instruction_count_from_a_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    assert!(run("x86_64", "tb", &dir, &workload("x86_64", "fork"), &[])
        .status
        .success());
    let out = tracekit(&[
        "emu",
        "estimate",
        "--freq-ghz",
        "2",
        "--power-w",
        "1",
        "--cpi",
        "1.5",
        "--base-instructions",
        "100",
        "--base-misses",
        "0",
        "--mem-access-nj",
        "2.61",
        "--run",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // fork-x86_64.S: parent 214 + child 606 instructions.
    assert_eq!(v["time_s"].as_f64(), Some(1.5 * 820.0 / 2e9));
    assert_eq!(v["power_w"].as_f64(), Some(1.0), "no misses, no memory power");
}

/// `emu run` stages the plugin's files in a RAM directory and moves them
/// into `raw/` at the end: the same counts as writing straight into
/// `raw/`, nothing left behind, and a run whose move never happened says
/// where its files are.
#[test]
fn staged_and_direct_runs_count_the_same_and_an_unmoved_run_says_where_its_files_are() {
    let tmp = tempfile::tempdir().unwrap();
    let ram = tmp.path().join("ram");
    std::fs::create_dir(&ram).unwrap();
    let prog = workload("x86_64", "fork");
    let mut blocks = Vec::new();
    for (name, stage) in [("staged", ram.to_str().unwrap()), ("direct", "none")] {
        let dir = tmp.path().join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
            .args(["emu", "run", "--arch", "x86_64", "-o", dir.to_str().unwrap(), "--"])
            .arg(&prog)
            .env("TRACEKIT_QEMU_PLUGIN", plugin())
            .env("TRACEKIT_STAGE_DIR", stage)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!dir.join("raw/STAGED").exists());
        blocks.push(total(&report_json(&dir), "blocks"));
    }
    assert_eq!(blocks[0], blocks[1]);
    assert_eq!(
        std::fs::read_dir(&ram).unwrap().count(),
        0,
        "the staging directory is removed"
    );
    // As a killed `tracekit` leaves it: the marker names the staging directory.
    let dir = tmp.path().join("direct");
    std::fs::write(dir.join("raw/STAGED"), "/dev/shm/tracekit-emu-gone\n").unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.file_name().unwrap().to_str().unwrap().starts_with("analysis-") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let out = tracekit(&["emu", "report", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("STAGED") && err.contains("/dev/shm/tracekit-emu-gone"),
        "{err}"
    );
}
