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

#[test]
fn emulator_runs_and_path_logs_are_tables_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An emulator run of a static ARM program (skipped without the cross compiler and QEMU).
    let have = |tool: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if have("arm-linux-gnueabihf-gcc") && have("qemu-arm") {
        std::fs::write(
            d.join("fib.c"),
            "int fib(int n){return n<2?n:fib(n-1)+fib(n-2);}\nint main(){return fib(18)&1;}\n",
        )
        .unwrap();
        let ok = Command::new("arm-linux-gnueabihf-gcc")
            .args(["-O1", "-static", "-o"])
            .arg(d.join("fib"))
            .arg(d.join("fib.c"))
            .status()
            .unwrap();
        assert!(ok.success());
        let run = d.join("run");
        let out = tracekit(&[
            "emu",
            "run",
            "--arch",
            "arm",
            "-o",
            run.to_str().unwrap(),
            "--",
            d.join("fib").to_str().unwrap(),
        ]);
        assert!(out.status.code().is_some(), "{}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value =
            serde_json::from_str(&ok_stdout(&["emu", "report", run.to_str().unwrap(), "--json"])).unwrap();
        let want: u64 = report["processes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["instructions"].as_u64().unwrap())
            .sum();
        let q = "SELECT (SELECT sum(instructions) FROM emu_process) AS p, (SELECT sum(instructions) FROM emu_category) AS c, \
                 (SELECT sum(executed_instructions) FROM emu_block) AS b";
        let csv = ok_stdout(&["sql", run.to_str().unwrap(), "--csv", "-q", q]);
        let row = csv.lines().nth(1).unwrap().to_owned();
        assert_eq!(row, format!("{want},{want},{want}"), "{csv}");
        let top = ok_stdout(&[
            "sql",
            run.to_str().unwrap(),
            "--csv",
            "-q",
            "SELECT symbol FROM emu_block ORDER BY executed_instructions DESC LIMIT 1",
        ]);
        assert!(top.contains("fib"), "{top}");
    } else {
        eprintln!("skipped: the emulator part needs arm-linux-gnueabihf-gcc and qemu-arm");
    }

    // A path log of a small Java program (skipped without a JDK and ASM).
    if !(have("javac") && std::path::Path::new("/usr/share/java/asm.jar").exists()) {
        eprintln!("skipped: the path part needs javac and ASM (libasm-java)");
        return;
    }
    std::fs::write(
        d.join("Main.java"),
        "public class Main { static int c(int x) { if (x % 3 == 0) return 1; return 0; }\n\
         public static void main(String[] a) { int n = 0; for (int i = 0; i < 300; i++) n += c(i); System.out.println(n); } }\n",
    )
    .unwrap();
    let sh = |cmd: &str| {
        let ok = Command::new("sh").arg("-c").arg(cmd).current_dir(d).status().unwrap();
        assert!(ok.success(), "{cmd}");
    };
    sh("javac -d classes Main.java && jar --create --file app.jar -C classes .");
    ok_stdout(&[
        "paths",
        "instrument",
        d.join("app.jar").to_str().unwrap(),
        "-o",
        d.join("traced.jar").to_str().unwrap(),
    ]);
    sh("TRACEKIT_PATHS_LOG=run.log java -cp traced.jar Main > /dev/null");
    let log = d.join("run.log");
    let jar = d.join("traced.jar");
    let decoded: serde_json::Value = serde_json::from_str(&ok_stdout(&[
        "paths",
        "decode-log",
        log.to_str().unwrap(),
        "--program",
        jar.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let invocations = decoded["invocations"].as_array().unwrap();
    let csv = ok_stdout(&[
        "sql", log.to_str().unwrap(), "--program", jar.to_str().unwrap(), "--csv", "-q",
        "SELECT m.name, p.blocks, count(*) AS n FROM path_invocation i JOIN path p ON p.id = i.path AND p.session = i.session \
         JOIN method m ON m.id = i.method AND m.session = i.session GROUP BY m.name, p.blocks ORDER BY m.name, p.blocks",
    ]);
    let mut want: std::collections::BTreeMap<(String, String), u64> = Default::default();
    for inv in invocations {
        let name = inv["method"].as_str().unwrap();
        let name = name.split('(').next().unwrap().rsplit('.').next().unwrap().to_owned();
        let blocks: Vec<String> = inv["path"].as_array().unwrap().iter().map(|b| b.to_string()).collect();
        *want.entry((name, blocks.join(" "))).or_default() += 1;
    }
    let got: std::collections::BTreeMap<(String, String), u64> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            ((f[0].to_owned(), f[1].to_owned()), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(got, want);
}
