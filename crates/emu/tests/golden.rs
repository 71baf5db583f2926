//! Golden-file tests of the reports: a real capture of
//! `workloads/emu/asm/fork-arm.S` (pids renamed to 100 and 101) with the
//! program's ELF, analyzed and rendered; compared with `tests/golden/`.
//! Regenerate after an intended change with `TRACEKIT_UPDATE_GOLDEN=1`.

use std::path::{Path, PathBuf};

use tracekit_emu::analysis::{analyze, Analysis};
use tracekit_emu::capture::load_dir;
use tracekit_emu::profile::Profile;
use tracekit_emu::regions::Namer;
use tracekit_emu::report::{render_report, render_side_by_side, report_json};
use tracekit_emu::run::{Arch, CountMode, RunRecord};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/arm-fork")
}

fn record() -> RunRecord {
    RunRecord {
        arch: Arch::Arm,
        qemu: "qemu-arm".into(),
        plugin: "libtracekit_qemu_plugin.so".into(),
        program: "fork".into(),
        args: vec![],
        mode: CountMode::Tb,
        exit_code: Some(0),
        signal: None,
        wall_s: 0.05,
        profile: "armv7-cortex-a8".into(),
        injected_args: vec![],
        ld_prefix: None,
        labels: Default::default(),
    }
}

fn analysis(profile: &str) -> Analysis {
    let captures = load_dir(&data()).unwrap();
    let program = data().join("fork");
    let namer = Namer::new(Some(&program));
    analyze(
        &captures,
        &Profile::builtin(profile).unwrap(),
        Some(&program),
        &namer,
        10,
    )
}

fn check(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("TRACEKIT_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual,
        expected,
        "{} differs (TRACEKIT_UPDATE_GOLDEN=1 regenerates)",
        path.display()
    );
}

#[test]
fn text_report() {
    check(
        "arm-fork-report.txt",
        &render_report(&record(), &analysis("armv7-cortex-a8"), 10),
    );
}

#[test]
fn json_report() {
    let json = serde_json::to_string_pretty(&report_json(&record(), &analysis("armv7-cortex-a8"))).unwrap();
    check("arm-fork-report.json", &(json + "\n"));
}

#[test]
fn organizations_side_by_side() {
    let columns: Vec<_> = ["armv7-cortex-a8", "armv7-cortex-a9"]
        .iter()
        .map(|p| (p.to_string(), analysis(p).total()))
        .collect();
    check("arm-fork-a8-vs-a9.txt", &render_side_by_side(&columns));
}

#[test]
fn inherited_blocks_and_mapping_symbols_are_resolved() {
    let a = analysis("armv7-cortex-a8");
    let child = a.processes.iter().find(|p| p.pid == 101).unwrap();
    assert_eq!(child.parent, 100);
    assert_eq!(child.instructions, 611);
    assert_eq!(child.modes.get("thumb"), Some(&607));
    let hot = &child.hottest[0];
    assert_eq!(hot.symbol.as_deref(), Some("thumb_child+0x2"));
}
