//! Parquet datasets: what is written reads back equal to the sessions in
//! memory, later exports add sessions, and a missing or corrupt file is
//! named.

mod common;

use common::{example, int, trace};
use tracekit_sql::{dataset, Engine, Error, QUERIES};

fn canned(engine: &Engine) -> Vec<(String, String)> {
    QUERIES
        .iter()
        .map(|(name, sql)| {
            let r = engine.run(sql).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut out = Vec::new();
            tracekit_sql::output::write(&r, tracekit_sql::OutputFormat::Csv, &mut out).unwrap();
            (name.to_string(), String::from_utf8(out).unwrap())
        })
        .collect()
}

#[test]
fn a_dataset_answers_as_the_sessions_in_memory_do() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds");
    dataset::write(&ds, vec![trace(1, "a"), trace(2, "b")], |_| {}).unwrap();
    // A later export adds to it.
    dataset::write(&ds, vec![trace(3, "c")], |_| {}).unwrap();
    let m = dataset::check(&ds).unwrap();
    assert_eq!(m.sessions.keys().collect::<Vec<_>>(), ["a", "b", "c"]);

    let from_disk = Engine::over_dataset(&ds).unwrap();
    let in_memory = Engine::over_sessions(vec![example(1, "a"), example(2, "b"), example(3, "c")]).unwrap();
    assert_eq!(canned(&from_disk), canned(&in_memory));
    assert_eq!(int(&from_disk, "SELECT count(DISTINCT session) FROM call"), 3);
    let full = "SELECT * FROM call ORDER BY session, thread, id";
    let (a, b) = (from_disk.run(full).unwrap(), in_memory.run(full).unwrap());
    let concat = |r: &tracekit_sql::QueryResult| {
        let mut out = Vec::new();
        tracekit_sql::output::write(r, tracekit_sql::OutputFormat::Csv, &mut out).unwrap();
        out
    };
    assert_eq!(concat(&a), concat(&b));
}

#[test]
fn a_missing_or_corrupt_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds");
    dataset::write(&ds, vec![trace(4, "a")], |_| {}).unwrap();
    let calls = dataset::file_of(&ds, "call", "a");

    // Corrupt: the footer cut off.
    let bytes = std::fs::read(&calls).unwrap();
    std::fs::write(&calls, &bytes[..bytes.len() / 2]).unwrap();
    let engine = Engine::over_dataset(&ds).unwrap();
    let err = engine.run("SELECT count(*) FROM call").unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Dataset { .. }), "{text}");
    assert!(text.contains("call/session=a/part-0.parquet"), "{text}");

    // Missing.
    std::fs::remove_file(&calls).unwrap();
    let Err(err) = Engine::over_dataset(&ds) else {
        panic!("a missing file is an error")
    };
    let text = err.to_string();
    assert!(
        text.contains("call/session=a/part-0.parquet") && text.contains("missing"),
        "{text}"
    );
}

#[test]
fn a_directory_that_is_not_a_dataset_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let err = dataset::write(dir.path(), vec![trace(1, "a")], |_| {}).unwrap_err();
    assert!(err.to_string().contains("not a tracekit dataset"), "{err}");
    assert!(Engine::over_dataset(dir.path()).is_err());
}

#[test]
fn a_corrupt_manifest_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let ds = dir.path().join("ds");
    dataset::write(&ds, vec![trace(5, "a")], |_| {}).unwrap();
    std::fs::write(
        ds.join(dataset::MANIFEST),
        "{\n  \"format\": \"tracekit-parquet\",\n  oops\n}",
    )
    .unwrap();
    let Err(err) = Engine::over_dataset(&ds) else {
        panic!("a corrupt manifest is an error")
    };
    let text = err.to_string();
    assert!(text.contains(dataset::MANIFEST) && text.contains("line 3"), "{text}");
}
