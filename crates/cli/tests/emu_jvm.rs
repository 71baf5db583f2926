//! End-to-end tests of `tracekit emu` on managed code: Debian's OpenJDK for
//! arm64 under qemu-aarch64 (installed through multiarch by
//! `scripts/deps/emu-jvm.sh`) and for armhf under qemu-arm (unpacked by the
//! same script), code written at run time (a mini JIT with
//! known counts on every ISA, and a HotSpot C1 loop of known length), code
//! regions, the study tables, a killed JVM, and guests that cannot start.
//! Workloads are tiny: a JVM under QEMU takes a second or two to start.

mod common;

use common::{emu_plugin as plugin, repo_root as root};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

const JAVA: &str = "/usr/lib/jvm/java-17-openjdk-arm64/bin/java";

/// Builds the C workloads, the JNI library and the jar once.
fn built() {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        for script in ["scripts/deps/emu.sh", "scripts/deps/jvm.sh"] {
            let ok = Command::new("bash").arg(root().join(script)).status().expect("bash");
            assert!(ok.success(), "{script} failed");
        }
        assert!(
            Path::new(JAVA).is_file(),
            "{JAVA} missing: run scripts/setup (scripts/deps/emu-jvm.sh installs openjdk-17-jre-headless:arm64)"
        );
    });
}

fn workload(arch: &str, name: &str) -> PathBuf {
    built();
    root().join("target/workloads/emu").join(arch).join(name)
}

fn jar() -> String {
    built();
    root().join("workloads/jvm/build/tkbench.jar").display().to_string()
}

fn tracekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .env("TRACEKIT_QEMU_PLUGIN", plugin())
        .output()
        .expect("run tracekit")
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "tracekit failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

fn json(args: &[&str]) -> Value {
    serde_json::from_slice(&ok(tracekit(args)).stdout).expect("JSON")
}

fn emu_run(arch: &str, mode: &str, out: &Path, command: &[&str]) -> Output {
    let mut a = vec![
        "emu",
        "run",
        "--arch",
        arch,
        "--mode",
        mode,
        "-o",
        out.to_str().unwrap(),
        "--",
    ];
    a.extend_from_slice(command);
    tracekit(&a)
}

/// Every block of every process of a run, with its count, from the library.
fn blocks(dir: &Path) -> Vec<(u64, Vec<u8>, u64, u64)> {
    let caps = tracekit_emu::run::load_capture(dir).unwrap();
    let mut out = Vec::new();
    for cap in &caps {
        for b in &cap.blocks {
            let bytes: Vec<u8> = b.insns.iter().flat_map(|i| i.bytes.clone()).collect();
            out.push((b.vaddr, bytes, cap.block_count(b), cap.insn_counts(b).sum()));
        }
    }
    out
}

#[test]
fn code_rewritten_in_place_is_counted_exactly_as_two_blocks_on_every_isa() {
    let tmp = tempfile::tempdir().unwrap();
    let (n1, n2, n3) = (3000u64, 5000u64, 7000u64);
    for arch in ["aarch64", "x86_64", "arm", "mips"] {
        for mode in ["tb", "insn"] {
            let dir = tmp.path().join(format!("{arch}-{mode}"));
            let out = ok(emu_run(
                arch,
                mode,
                &dir,
                &[
                    workload(arch, "minijit").to_str().unwrap(),
                    &n1.to_string(),
                    &n2.to_string(),
                    &n3.to_string(),
                ],
            ));
            // "jit <addr> a_insns <a> b_insns <b> sum <s>"
            let line = String::from_utf8_lossy(&out.stdout).to_string();
            let f: Vec<&str> = line.split_whitespace().collect();
            let addr = u64::from_str_radix(f[1], 16).unwrap();
            let (a, b): (u64, u64) = (f[3].parse().unwrap(), f[5].parse().unwrap());
            let at: Vec<_> = blocks(&dir).into_iter().filter(|x| x.0 == addr).collect();
            assert_eq!(at.len(), 2, "{arch} {mode}: two versions at {addr:#x}: {at:?}");
            let mut execs: Vec<(u64, u64)> = at.iter().map(|x| (x.2, x.3)).collect();
            execs.sort();
            assert_eq!(execs, vec![(n2, b * n2), (n1 + n3, a * (n1 + n3))], "{arch} {mode}");
            assert_ne!(at[0].1, at[1].1, "different bytes");
        }
    }
}

#[test]
fn a_c1_compiled_loop_of_known_length_is_counted_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let mut found = Vec::new();
    for n in [20_000u64, 20_777] {
        let dir = tmp.path().join(n.to_string());
        let n_arg = n.to_string();
        let j = jar();
        ok(emu_run(
            "aarch64",
            "tb",
            &dir,
            &[
                "java",
                "-Xcomp",
                "-XX:TieredStopAtLevel=1",
                "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=compileonly,tkbench.emu.JitLoop::spin",
                "-cp",
                &j,
                "tkbench.emu.JitLoop",
                &n_arg,
            ],
        ));
        let listing = json(&["emu", "blocks", dir.to_str().unwrap(), "--limit", "2000", "--json"]);
        let spin: Vec<u64> = listing[0]["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["symbol"].as_str().is_some_and(|s| s.contains("JitLoop.spin")))
            .map(|b| b["executions"].as_u64().unwrap())
            .collect();
        assert!(spin.contains(&n), "the loop body ran {n} times in JIT code: {spin:?}");
        let report = json(&["emu", "report", dir.to_str().unwrap(), "--json"]);
        let regions = &report["processes"][0]["regions"];
        let jit = regions
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["region"] == "jit")
            .map(|r| r["instructions"].as_u64().unwrap())
            .unwrap();
        found.push(jit);
    }
    // The JIT region differs by exactly (loop instructions) × 777.
    let delta = found[1] - found[0];
    assert_eq!(delta % 777, 0, "{found:?}");
    assert!(delta / 777 >= 3 && delta / 777 <= 40, "{found:?}");
}

fn region(report: &Value, name: &str) -> u64 {
    report["processes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["regions"].as_array().unwrap().iter())
        .filter(|r| r["region"] == name)
        .map(|r| r["instructions"].as_u64().unwrap())
        .sum()
}

#[test]
fn java_jni_interpreted_and_c_forms_split_by_region_and_make_the_study() {
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("study");
    let lib = format!("-Dtkkernels.lib={}", workload("aarch64", "libtkkernels.so").display());
    let j = jar();
    let forms: [(&str, Vec<&str>); 4] = [
        (
            "java",
            vec!["java", "-cp", &j, "tkbench.emu.Kernels", "sor", "java", "1"],
        ),
        (
            "java-int",
            vec!["java", "-Xint", "-cp", &j, "tkbench.emu.Kernels", "sor", "java", "1"],
        ),
        (
            "jni",
            vec!["java", &lib, "-cp", &j, "tkbench.emu.Kernels", "sor", "jni", "1"],
        ),
        ("c", vec![]),
    ];
    let c_prog = workload("aarch64", "suite");
    let mut outputs = Vec::new();
    for (name, command) in &forms {
        let dir = study.join(name);
        let out = if command.is_empty() {
            ok(emu_run("aarch64", "tb", &dir, &[c_prog.to_str().unwrap(), "sor", "1"]))
        } else {
            ok(emu_run("aarch64", "tb", &dir, command))
        };
        outputs.push(String::from_utf8_lossy(&out.stdout).trim().to_owned());
        let report = json(&["emu", "report", dir.to_str().unwrap(), "--json"]);
        let (vm, interp, jit, app) = (
            region(&report, "vm"),
            region(&report, "interpreter"),
            region(&report, "jit"),
            region(&report, "app-native"),
        );
        match *name {
            "java" => assert!(vm > 0 && interp > 0 && jit > 0 && app == 0, "{vm} {interp} {jit} {app}"),
            "java-int" => assert!(
                vm > 0 && interp > 0 && jit == 0 && app == 0,
                "{vm} {interp} {jit} {app}"
            ),
            "jni" => assert!(app > 0, "the JNI library's instructions: {app}"),
            _ => assert!(region(&report, "program") > 0 && vm == 0),
        }
    }
    assert!(
        outputs.iter().all(|o| o == &outputs[0]),
        "same checksum in every form: {outputs:?}"
    );
    // The study recognises every run from its command line.
    let s = json(&["emu", "study", study.to_str().unwrap(), "--json"]);
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    let kinds: Vec<(String, bool)> = runs
        .iter()
        .map(|r| (r["form"].as_str().unwrap().to_owned(), r["jit"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("c".into(), true),
            ("java".into(), true),
            ("java".into(), false),
            ("jni".into(), true)
        ]
    );
    assert!(runs.iter().all(|r| r["estimates"].as_array().unwrap().len() == 2));
    let text = String::from_utf8(ok(tracekit(&["emu", "study", study.to_str().unwrap()])).stdout).unwrap();
    for heading in ["Java against JNI", "JIT on against off", "two organizations"] {
        assert!(text.contains(heading), "{text}");
    }
    // Compare sets the forms side by side with their regions.
    let dirs: Vec<String> = ["java", "java-int", "jni", "c"]
        .iter()
        .map(|n| study.join(n).display().to_string())
        .collect();
    let mut args = vec!["emu", "compare"];
    args.extend(dirs.iter().map(String::as_str));
    let cmp = String::from_utf8(ok(tracekit(&args)).stdout).unwrap();
    assert!(cmp.contains("in jit") && cmp.contains("in app-native"), "{cmp}");
}

/// The armhf JDK `scripts/deps/emu-jvm.sh` unpacks (no multiarch).
const ARM_JAVA: &str = "/opt/tracekit/guest-jvm/armhf/usr/lib/jvm/java-17-openjdk-armhf/bin/java";

#[test]
fn an_armv7_jvm_runs_from_its_unpacked_jdk_and_the_study_sets_the_arches_side_by_side() {
    built();
    assert!(
        Path::new(ARM_JAVA).is_file(),
        "{ARM_JAVA} missing: run scripts/setup (scripts/deps/emu-jvm.sh unpacks openjdk-17-jre-headless:armhf)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let study = tmp.path().join("study");
    let j = jar();
    let mut outputs = Vec::new();
    for (arch, form) in [("arm", "java"), ("arm", "jni"), ("aarch64", "java")] {
        let lib = format!("-Dtkkernels.lib={}", workload(arch, "libtkkernels.so").display());
        // The bare name: `emu run` finds the guest's java for the arch.
        let command = ["java", &lib, "-cp", &j, "tkbench.emu.Kernels", "sor", form, "1"];
        let dir = study.join(format!("{arch}-{form}"));
        let out = ok(emu_run(arch, "tb", &dir, &command));
        outputs.push(String::from_utf8_lossy(&out.stdout).trim().to_owned());
        let report = json(&["emu", "report", dir.to_str().unwrap(), "--json"]);
        let (vm, interp, app, system) = (
            region(&report, "vm"),
            region(&report, "interpreter"),
            region(&report, "app-native"),
            region(&report, "system"),
        );
        assert!(vm > 0 && interp > 0, "{arch} {form}: vm {vm}, interpreter {interp}");
        if form == "java" {
            // libgcc_s and the like from the cross toolchain's root are system libraries.
            assert_eq!(app, 0, "{arch}: a pure Java run has no application native code");
        } else {
            assert!(app > 0, "{arch}: the JNI library's instructions: {app}");
        }
        if arch == "arm" {
            assert!(
                system > 0,
                "ARMv7 HotSpot divides in the cross root's libgcc_s (__aeabi_uidiv)"
            );
        }
    }
    assert!(outputs.iter().all(|o| o == &outputs[0]), "same checksum: {outputs:?}");
    let s = json(&["emu", "study", study.to_str().unwrap(), "--json"]);
    let mut arches: Vec<&str> = s["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["arch"].as_str().unwrap())
        .collect();
    arches.dedup();
    assert_eq!(arches, ["aarch64", "arm"]);
    let text = String::from_utf8(ok(tracekit(&["emu", "study", study.to_str().unwrap()])).stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("| sor | java |"))
        .unwrap_or_else(|| panic!("no arch-against-arch row for sor in Java:\n{text}"));
    assert!(text.contains("## aarch64 against arm"), "{text}");
    assert!(row.split('|').filter(|c| !c.trim().is_empty()).count() >= 9, "{row}");
}

#[test]
fn tracekits_disassembly_equals_qemus_on_a_jvm() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    let j = jar();
    ok(tracekit(&[
        "emu",
        "run",
        "--arch",
        "aarch64",
        "--disas-all",
        "-o",
        dir.to_str().unwrap(),
        "--",
        "java",
        "-Xint",
        "-cp",
        &j,
        "tkbench.emu.JitLoop",
        "10",
    ]));
    // The logs, packed or loose, as the readers find them.
    let raw = tracekit_emu::raw_files::RawFiles::open(&dir.join("raw")).unwrap();
    let mut compared = 0;
    for kind in raw.kinds() {
        if !matches!(kind, tracekit_emu::raw_files::RawFile::Blocks(_)) {
            continue;
        }
        let (p, text) = raw.text(kind).unwrap();
        let log = tracekit_emu::capture::parse_log(&p, &text).unwrap();
        let mut stripped = log.blocks.clone();
        for b in &mut stripped {
            for i in &mut std::sync::Arc::make_mut(b).insns {
                i.disas.clear();
            }
        }
        tracekit_emu::disasm::fill(&log.target, &mut stripped).unwrap();
        for (q, t) in log.blocks.iter().zip(&stripped) {
            for (qi, ti) in q.insns.iter().zip(&t.insns) {
                assert_eq!(qi.disas, ti.disas, "at {:#x}", qi.vaddr);
                compared += 1;
            }
        }
    }
    assert!(compared > 100_000, "only {compared} instructions compared");
}

#[test]
fn a_killed_jvm_keeps_every_count_up_to_the_kill() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("k");
    let ram = tmp.path().join("ram");
    std::fs::create_dir(&ram).unwrap();
    let j = jar();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args([
            "emu",
            "run",
            "--arch",
            "aarch64",
            "-o",
            dir.to_str().unwrap(),
            "--",
            "java",
            "-cp",
            &j,
        ])
        .args(["tkbench.emu.Kernels", "fft", "java", "1000000"])
        .env("TRACEKIT_QEMU_PLUGIN", plugin())
        .env("TRACEKIT_STAGE_DIR", &ram)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the JVM runs Java code (its log, staged in `ram` while
    // QEMU runs, has grown), then SIGKILL QEMU.
    let staged = || {
        std::fs::read_dir(&ram)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| e.path())
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let pid = loop {
        assert!(std::time::Instant::now() < deadline, "the JVM never started");
        std::thread::sleep(std::time::Duration::from_millis(200));
        let Some(raw) = staged() else { continue };
        let logs: Vec<PathBuf> = std::fs::read_dir(&raw)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        if let Some(log) = logs.iter().find(|p| p.extension().is_some_and(|e| e == "blocks")) {
            let grown = std::fs::read(log)
                .map(|b| b.iter().filter(|&&c| c == b'\n').count())
                .unwrap_or(0);
            if grown > 200_000 {
                let name = log.file_stem().unwrap().to_str().unwrap();
                break name.trim_start_matches("pid-").parse::<i32>().unwrap();
            }
        }
    };
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(unsafe { libc_kill(pid, 9) }, 0);
    let status = child.wait().unwrap();
    assert!(!status.success(), "the program's death is passed through");
    assert!(staged().is_none(), "the files were packed into raw/");
    let report = json(&["emu", "report", dir.to_str().unwrap(), "--json"]);
    let p = &report["processes"][0];
    assert_eq!(p["exited_normally"], false);
    assert!(
        p["instructions"].as_u64().unwrap() > 10_000_000,
        "{}",
        p["instructions"]
    );
    // No code map without an exit: the code cache is reported as generated code.
    assert!(region(&report, "generated") > 0);
    assert!(region(&report, "vm") > 0);
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

#[test]
fn a_guest_that_cannot_start_is_refused_before_qemu_runs() {
    let tmp = tempfile::tempdir().unwrap();
    // A dynamically linked program whose loader does not exist.
    let src = tmp.path().join("hello.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let prog = tmp.path().join("hello");
    let cc = Command::new("aarch64-linux-gnu-gcc")
        .args(["-Wl,--dynamic-linker=/lib/ld-tracekit-missing.so.1", "-o"])
        .arg(&prog)
        .arg(&src)
        .status()
        .expect("aarch64-linux-gnu-gcc (scripts/setup)");
    assert!(cc.success());
    let dir = tmp.path().join("run");
    let out = emu_run("aarch64", "tb", &dir, &[prog.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/lib/ld-tracekit-missing.so.1") && err.contains("not installed"),
        "{err}"
    );
    assert!(!dir.join("raw").exists(), "nothing ran");
    // The host's java is not a MIPS program, and there is no MIPS JVM.
    let out = emu_run("mips", "tb", &dir, &["java", "-version"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not built for mips"), "{err}");
    // An arm64 JVM named by path for the wrong arch.
    let out = emu_run("arm", "tb", &dir, &[JAVA, "-version"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not arm"));
}
