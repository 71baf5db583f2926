//! ARCHITECTURE.md's layering, checked: each crate may depend only on the
//! tracekit crates listed here (normal dependencies; tests may use more).
//! Data flows capture → formats → model → analysis → views; formats and
//! capture never reach analysis, and views never reach a file format.

use std::collections::BTreeMap;
use std::path::Path;

const ALLOWED: &[(&str, &[&str])] = &[
    // Safe file reading and terminal escaping: below every layer, so every
    // crate may use it (checked separately below).
    ("safeio", &[]),
    ("model", &[]),
    // Formats: only the model.
    ("dmtrace", &["model"]),
    ("clog", &["model"]),
    ("objtrace", &["model"]),
    ("ftrace", &["model"]),
    ("chrome", &["model"]),
    ("power", &["model"]),
    ("perfetto", &["model"]),
    ("rt-format", &[]),
    ("recording", &["model", "rt-format"]),
    ("emu-format", &[]),
    // Capture: formats and the model, never analysis.
    ("rt", &["rt-format", "rt-macros"]),
    ("rt-macros", &[]),
    ("record", &["model", "rt-format", "recording"]),
    ("qemu-plugin", &["emu-format"]),
    ("jvm", &["paths"]),
    ("smali", &["jvm", "paths"]),
    // The one door from a path to a session: every format crate.
    (
        "io",
        &[
            "model",
            "dmtrace",
            "clog",
            "objtrace",
            "recording",
            "ftrace",
            "chrome",
            "perfetto",
            "power",
            "perfetto",
            "emu-format",
        ],
    ),
    ("example", &["model"]),
    // Analysis: the model only (paths and emu keep their own data).
    ("analysis", &["model"]),
    ("seqdiag", &["model"]),
    ("energy", &["model", "analysis"]),
    ("powermodel", &["model"]),
    ("attribution", &["model", "analysis", "energy", "powermodel"]),
    // Comparing runs: traces (model, analysis), emulator runs and path
    // logs (their own data types); it reads no file.
    ("diff", &["model", "analysis", "emu", "jvm"]),
    ("paths", &[]),
    ("emu", &["emu-format"]),
    // Views: analysis and model, never a format.
    ("report", &["model", "analysis", "diff"]),
    ("callgraph", &["model", "analysis"]),
    ("ui", &["model", "analysis", "report"]),
    ("export", &["model", "analysis"]),
    // SQL: a view over sessions the CLI opened (and the Parquet datasets
    // it writes itself); it never parses a trace.
    ("sql", &["model", "analysis", "emu"]),
    ("browser", &[]),
];

fn normal_deps(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if in_deps {
            if let Some(name) = t.strip_prefix("tracekit-") {
                out.push(name.split([' ', '=']).next().unwrap().to_string());
            }
        }
    }
    out
}

#[test]
fn crates_depend_only_on_the_layers_below_them() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        if name == "cli" {
            continue; // the binary may use everything
        }
        let ok = allowed.get(name.as_str()).unwrap_or_else(|| {
            panic!("crates/{name} is new: add it to ALLOWED here and to ARCHITECTURE.md's code map")
        });
        for dep in normal_deps(&manifest) {
            if dep == "safeio" {
                continue; // the leaf every layer may use
            }
            assert!(
                ok.contains(&dep.as_str()),
                "crates/{name} depends on tracekit-{dep}, which ARCHITECTURE.md's layering forbids"
            );
        }
    }
}
