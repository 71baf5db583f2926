//! `tracekit sql` and `tracekit export` end to end, on the example and on
//! real captures: output formats, datasets, errors with positions, the
//! prompt. Built only with the `sql` feature (`./scripts/test` enables it).

#![cfg(feature = "sql")]

mod common;

use common::{ok_stdout, tracekit};
use std::io::Write;
use std::process::{Command, Stdio};

fn example(dir: &std::path::Path, name: &str, seed: &str) -> String {
    let base = dir.join(name);
    ok_stdout(&[
        "example",
        "-o",
        base.to_str().unwrap(),
        "--seed",
        seed,
        "--duration-s",
        "30",
    ]);
    base.join("browser").display().to_string()
}

#[test]
fn sql_prints_tables_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let ex = example(dir.path(), "ex", "3");
    let table = ok_stdout(&["sql", &ex, "-q", "SELECT count(*) AS calls FROM call"]);
    assert!(table.contains("calls") && table.contains("(1 row)"), "{table}");
    let csv = ok_stdout(&[
        "sql",
        &ex,
        "--csv",
        "-q",
        "SELECT name, calls FROM method_profile ORDER BY incl_ns DESC LIMIT 3",
    ]);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "name,calls");
    assert_eq!(lines.len(), 4, "{csv}");
    let json: serde_json::Value = serde_json::from_str(&ok_stdout(&[
        "sql",
        &ex,
        "--json",
        "-q",
        "SELECT label, type FROM context_track ORDER BY label",
    ]))
    .unwrap();
    assert!(json.as_array().unwrap().len() >= 10, "{json}");

    // A query file, several statements: the last one's rows.
    let f = dir.path().join("q.sql");
    std::fs::write(
        &f,
        "CREATE VIEW slow AS SELECT * FROM call WHERE dur > 1000000;\nSELECT count(*) AS n FROM slow;\n",
    )
    .unwrap();
    let out = ok_stdout(&["sql", &ex, "--csv", "-f", f.to_str().unwrap()]);
    assert!(out.starts_with("n\n"), "{out}");
}

#[test]
fn export_then_query_the_dataset_and_add_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let a = example(dir.path(), "user1", "1");
    let b = example(dir.path(), "user2", "2");
    let ds = dir.path().join("ds");
    let ds_s = ds.to_str().unwrap();
    let out = ok_stdout(&["export", "--parquet", ds_s, &a]);
    assert!(out.contains("1 session written"), "{out}");
    ok_stdout(&["export", "--parquet", ds_s, &b]);
    let csv = ok_stdout(&[
        "sql",
        ds_s,
        "--csv",
        "-q",
        "SELECT session, count(*) AS calls FROM call GROUP BY session ORDER BY session",
    ]);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    // The same query over the traces directly gives the same counts.
    let direct = ok_stdout(&[
        "sql",
        &a,
        &b,
        "--csv",
        "-q",
        "SELECT count(*) AS calls FROM call GROUP BY session ORDER BY calls",
    ]);
    let mut from_ds: Vec<&str> = rows.iter().map(|r| r.split(',').nth(1).unwrap()).collect();
    from_ds.sort_by_key(|n| n.parse::<u64>().unwrap());
    assert_eq!(direct.lines().skip(1).collect::<Vec<_>>(), from_ds);

    // An export never writes over its input.
    let out = tracekit(&[
        "export",
        "--parquet",
        &dir.path().join("user1").display().to_string(),
        &a,
    ]);
    assert!(!out.status.success());
}

#[test]
fn errors_name_the_line_column_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let ex = example(dir.path(), "ex", "4");
    let out = tracekit(&["sql", &ex, "-q", "SELECT ts\nFROM call\nWHERE nosuch = 1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3, column 7"), "{err}");
    assert!(err.contains("nosuch"), "{err}");

    let ds = dir.path().join("ds");
    ok_stdout(&["export", "--parquet", ds.to_str().unwrap(), &ex]);
    let victim = std::fs::read_dir(ds.join("call"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("part-0.parquet");
    std::fs::write(&victim, b"PAR1 not really").unwrap();
    let out = tracekit(&["sql", ds.to_str().unwrap(), "-q", "SELECT count(*) FROM call"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("part-0.parquet"), "{err}");
}

#[test]
fn a_query_comes_from_standard_input_or_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let ex = example(dir.path(), "ex", "5");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["sql", &ex, "--csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SELECT count(*) AS threads FROM thread")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "threads\n4\n");

    // The prompt, on a terminal (util-linux's script gives it one).
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: the prompt test needs script (util-linux)");
        return;
    }
    let cmd = format!("{} sql {ex}", env!("CARGO_BIN_EXE_tracekit"));
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SELECT count(*) AS n\nFROM thread;\n.tables\n.quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tracekit>") && text.contains("...>"), "{text}");
    assert!(text.contains("| 4 |") || text.contains("| 4 "), "{text}");
    assert!(text.contains("method_profile"), "{text}");
}

#[test]
fn real_captures_load_into_sql() {
    let Some(dir) = common::realdata() else { return };
    for (file, min_calls) in [
        ("dmtrace/tracereader_test1_v3_dual_dalvik_xposed.trace", 100_000),
        ("dmtrace/fenix_art_streaming_v3_dual.trace", 10_000),
    ] {
        let path = dir.join(file);
        let csv = ok_stdout(&[
            "sql",
            path.to_str().unwrap(),
            "--csv",
            "-q",
            "SELECT count(*) AS n FROM call",
        ]);
        let n: u64 = csv.lines().nth(1).unwrap().parse().unwrap();
        assert!(n >= min_calls, "{file}: {n} calls");
    }
}
