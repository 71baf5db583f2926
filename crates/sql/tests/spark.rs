//! The same dataset on Apache Spark (PySpark, `local[2]` on the installed
//! JDK) and on the embedded engine: every canned query gives the same rows,
//! the fleet profile equals tracekit's pooled profile, and the fleet hints
//! equal `tracekit problems`' pooled occurrences and ranked hints.
//!
//! Skipped, saying so, when PySpark is not installed — unless
//! `TRACEKIT_REQUIRE_SPARK` is set (as `./scripts/test` sets it), when its
//! absence fails the test.

mod common;

use common::{example, trace};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use tracekit_analysis::problems::{find, ProblemDef};
use tracekit_analysis::{hints, Profile, ProfileOptions};
use tracekit_sql::{dataset, Engine, QUERIES};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn spark_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import pyspark"])
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("java")
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("TRACEKIT_REQUIRE_SPARK").is_none(),
            "PySpark or Java is missing (scripts/deps/spark.sh installs PySpark)"
        );
        eprintln!("skipped: PySpark or Java not installed (scripts/deps/spark.sh)");
    }
    ok
}

/// Runs `spark/fleet JOB DATASET ARGS… --json --master local[2]`.
fn fleet(job: &str, ds: &Path, args: &[&str]) -> Value {
    let out = Command::new(repo().join("spark/fleet"))
        .arg(job)
        .arg(ds)
        .args(args)
        .args(["--json", "--master", "local[2]"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "spark/fleet {job}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Two values are the same result: numbers within 1e-9 (relative), the rest equal.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn embedded_rows(engine: &Engine, sql: &str) -> Vec<Value> {
    let r = engine.run(sql).unwrap();
    let mut out = Vec::new();
    tracekit_sql::output::write(&r, tracekit_sql::OutputFormat::Json, &mut out).unwrap();
    let rows: Vec<BTreeMap<String, Value>> = serde_json::from_slice(&out).unwrap();
    let cols: Vec<String> = r.schema.fields().iter().map(|f| f.name().clone()).collect();
    rows.into_iter()
        .map(|row| {
            Value::Array(
                cols.iter()
                    .map(|c| row.get(c).cloned().unwrap_or(Value::Null))
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn spark_equals_the_embedded_engine_and_tracekit() {
    if !spark_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds");
    let ids = ["u1", "u2", "u3"];
    let sources: Vec<_> = ids.iter().zip([11, 12, 13]).map(|(id, seed)| trace(seed, id)).collect();
    dataset::write(&ds, sources, |_| {}).unwrap();
    let engine = Engine::over_dataset(&ds).unwrap();

    // One Spark session for everything (its start-up is most of the time).
    let all = fleet("all", &ds, &[]);

    // 1. Every canned query, on both engines.
    let spark = &all["queries"];
    for (name, sql) in QUERIES {
        let ours = embedded_rows(&engine, sql);
        let theirs = spark[name]["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no rows from Spark"));
        assert!(!ours.is_empty() || name == &"counter_stats", "{name}: no rows");
        assert!(
            same(&Value::Array(ours.clone()), &Value::Array(theirs.clone())),
            "{name} differs:\nDataFusion: {ours:?}\nSpark:      {theirs:?}"
        );
    }

    // 2. The fleet profile against tracekit's profiles, pooled by name and signature.
    let sessions: Vec<_> = ids
        .iter()
        .zip([11, 12, 13])
        .map(|(id, seed)| example(seed, id).session)
        .collect();
    let mut pooled: BTreeMap<(String, String), [i64; 5]> = BTreeMap::new();
    for s in &sessions {
        for row in Profile::of(s, &ProfileOptions::default()).methods {
            let m = s.methods.get(row.method);
            let e = pooled.entry((m.qualified_name(), m.signature.clone())).or_default();
            e[0] += 1;
            e[1] += row.calls as i64;
            e[2] += row.incl_real_ns as i64;
            e[3] += row.excl_real_ns as i64;
            e[4] += row.incl_cpu_ns as i64;
        }
    }
    let rows = all["profile"].as_array().unwrap();
    assert_eq!(rows.len(), pooled.len());
    for r in rows {
        let key = (
            r["name"].as_str().unwrap().to_owned(),
            r["signature"].as_str().unwrap().to_owned(),
        );
        let want = pooled[&key];
        let got = [
            r["sessions"].as_i64().unwrap(),
            r["calls"].as_i64().unwrap(),
            r["incl_ns"].as_i64().unwrap(),
            r["excl_ns"].as_i64().unwrap(),
            r["incl_cpu_ns"].as_i64().unwrap(),
        ];
        assert_eq!(got, want, "{key:?}");
    }

    // 3. Occurrences and ranked hints, pooled in the order of the ids.
    let m = find(&sessions, &ProblemDef::Brb { method: "brb".into() }).unwrap();
    let ours = hints::hints(&sessions, &m.occurrences);
    let spark_hints = &all["hints"];
    let occ = spark_hints["occurrences"].as_array().unwrap();
    assert_eq!(occ.len(), m.occurrences.len());
    for (o, w) in occ.iter().zip(&m.occurrences) {
        assert_eq!(o["session"].as_str().unwrap(), ids[w.session]);
        assert_eq!(o["ts_ns"].as_u64().unwrap(), w.ts_ns);
    }
    let ours = serde_json::to_value(&ours).unwrap();
    assert!(
        same(&ours, &spark_hints["hints"]),
        "hints differ:\ntracekit: {ours:#}\nSpark:    {:#}",
        spark_hints["hints"]
    );
}

#[test]
fn the_python_hints_port_passes_its_own_tests() {
    // No Spark needed: hand-made sessions whose results came from the Rust side.
    let out = Command::new("python3")
        .args(["-m", "unittest", "discover", "-s", "spark/tests"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python3 -m unittest: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
