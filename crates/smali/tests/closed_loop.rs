//! The closed loop on this machine: a smali workload is assembled to dex
//! (`smali`), disassembled (`baksmali`, as a user's app would be),
//! instrumented under every scheme with the verification sidecar,
//! reassembled, checked by `dexdump`, converted back to a jar (`enjarify`)
//! and run on the JVM with the probe runtime. Its log must decode with
//! every invocation matching the sidecar, and the program's output must
//! equal the uninstrumented run's. Needs scripts/deps/smali.apt and
//! scripts/deps/jvm.apt; prints "skipped" without them.

use std::path::{Path, PathBuf};
use std::process::Command;

use tracekit_jvm::decode::{decode_file, Options};
use tracekit_jvm::schemes::CoreProgram;
use tracekit_jvm::tables::{Config, Scheme};
use tracekit_smali::apk;

fn tools_present() -> bool {
    ["smali", "baksmali", "dexdump", "enjarify", "java", "javac"]
        .iter()
        .all(|t| apk::have(t))
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tracekit-smali-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn java(jar: &Path, main: &str, log: Option<&Path>) -> String {
    let mut cmd = Command::new("java");
    cmd.arg("-Xverify:all").arg("-cp").arg(jar).arg(main);
    if let Some(l) = log {
        cmd.env("TRACEKIT_PATHS_LOG", l);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One scheme through the whole loop; returns (invocations, log bytes, trace bits).
pub fn loop_once(work: &Path, smali_dir: &Path, main: &str, config: &Config, expected: &str) -> (u64, u64, u64) {
    let name = tracekit_jvm::compare::variant_name(config);
    let out = work.join(format!("traced-{name}"));
    let done = tracekit_smali::instrument_dir(smali_dir, &out, config, None).unwrap();
    assert!(done.methods > 0);
    let dex = work.join(format!("{name}.dex"));
    apk::assemble(&out, &dex).unwrap();
    apk::dexdump_check(&dex).unwrap();
    let jar = work.join(format!("{name}.jar"));
    apk::enjarify(&dex, &jar).unwrap();
    let full = work.join(format!("{name}-rt.jar"));
    apk::jar_with_runtime(&jar, &done.resources, &full).unwrap();
    let log = work.join(format!("{name}.log"));
    assert_eq!(
        java(&full, main, Some(&log)),
        expected,
        "{name}: output differs from the uninstrumented run"
    );
    let stored = tracekit_jvm::Program::from_instrumented_jar(&full).unwrap();
    let core = CoreProgram::new(&stored).unwrap();
    let mut aborted = 0;
    let mut per_method = vec![0u64; stored.program.methods.len()];
    let s = decode_file(
        &stored,
        &core,
        &log,
        Options {
            replay: config.scheme == Scheme::Adaptracer,
        },
        |d| {
            aborted += u64::from(d.aborted_after.is_some());
            per_method[d.method] += 1;
            Ok(())
        },
    )
    .unwrap();
    // Every method of the workload runs; fib(15) alone makes 1973 calls.
    assert!(
        stored.program.skipped.is_empty(),
        "{name}: {:?}",
        stored.program.skipped
    );
    assert!(
        per_method.iter().all(|&c| c > 0),
        "{name}: a method never recorded: {per_method:?}"
    );
    assert_eq!(per_method.iter().max(), Some(&1973), "{name}: {per_method:?}");
    assert!(s.complete, "{name}: log not finished");
    assert!(s.invocations > 100, "{name}: {} invocations", s.invocations);
    assert_eq!(
        s.verified, s.invocations,
        "{name}: not every invocation checked against the sidecar"
    );
    assert!(
        aborted > 0,
        "{name}: the workload's unwound frames must show as aborted"
    );
    if let Some(r) = s.replay {
        assert!(r.words_equal, "{name}: core re-encoding differs");
    }
    (s.invocations, s.log_bytes, s.bits)
}

#[test]
fn workload_round_trips_under_every_scheme() {
    if !tools_present() {
        println!("skipped: smali/baksmali/dexdump/enjarify/java not installed (scripts/deps/smali.apt)");
        return;
    }
    let work = scratch("loop");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/workloads/loop");
    let dex = work.join("w.dex");
    apk::assemble(&src, &dex).unwrap();
    let plain = work.join("plain");
    apk::disassemble(&dex, &plain).unwrap();
    let jar = work.join("plain.jar");
    apk::enjarify(&dex, &jar).unwrap();
    let expected = java(&jar, "wk.Main", None);
    let mut configs = Vec::new();
    for scheme in Scheme::ALL {
        configs.push(Config {
            scheme,
            verify: true,
            ..Config::default()
        });
    }
    configs.push(Config {
        scheme: Scheme::Adaptracer,
        verify: true,
        stream: true,
        ..Config::default()
    });
    configs.push(Config {
        scheme: Scheme::Adaptracer,
        verify: true,
        stream: true,
        context: true,
        ..Config::default()
    });
    for c in &configs {
        let (inv, bytes, bits) = loop_once(&work, &plain, "wk.Main", c, &expected);
        println!(
            "{:<24} invocations {inv} log bytes {bytes} trace bits {bits}",
            tracekit_jvm::compare::variant_name(c)
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn corpus_reassembles_and_passes_dexdump_under_every_scheme() {
    if !tools_present() {
        println!("skipped: smali/dexdump not installed (scripts/deps/smali.apt)");
        return;
    }
    let work = scratch("corpus");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    for scheme in Scheme::ALL {
        let config = Config {
            scheme,
            verify: true,
            ..Config::default()
        };
        let out = work.join(scheme.name());
        let done = tracekit_smali::instrument_dir(&src, &out, &config, None).unwrap();
        assert!(done.skipped.is_empty(), "{:?}", done.skipped);
        let dex = work.join(format!("{}.dex", scheme.name()));
        apk::assemble(&out, &dex).unwrap();
        assert!(apk::dexdump_check(&dex).unwrap() >= done.methods);
    }
    let _ = std::fs::remove_dir_all(&work);
}
