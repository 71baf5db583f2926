//! Session ids: short, readable, stable names for the `session` column and
//! the dataset's directories, made from the inputs' paths.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Characters kept in an id; others become `_` (ids name directories and
/// must survive Hive-style partition parsing in every engine).
fn clean(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The parts of a path an id is made from: its components, last first,
/// with a trace's `.trace`/`.clog` extension dropped.
fn parts(source: &str) -> Vec<String> {
    let p = Path::new(source);
    let base = match p.extension().and_then(|e| e.to_str()) {
        Some("trace") | Some("clog") => p.with_extension(""),
        _ => p.to_owned(),
    };
    let mut out: Vec<String> = base
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(clean(&s.to_string_lossy())),
            _ => None,
        })
        .filter(|s| !s.is_empty() && s != "." && s != "..")
        .collect();
    out.reverse();
    if out.is_empty() {
        out.push("session".into());
    }
    out
}

/// An id for each source (absolute paths), unique among them and against
/// `taken` (a dataset's existing sessions: id → source): the shortest tail
/// of the path (`browser`, then `user1-browser`, …) that no other source
/// uses. A source already in `taken` keeps its id, so exporting it again
/// replaces it.
pub fn session_ids(sources: &[String], taken: &BTreeMap<String, String>) -> Vec<String> {
    let mut used: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(sources.len());
    for (i, source) in sources.iter().enumerate() {
        if let Some((id, _)) = taken.iter().find(|(_, s)| *s == source) {
            if used.insert(id.clone()) {
                out.push(id.clone());
                continue;
            }
        }
        let parts = parts(source);
        let clashes =
            |id: &str, used: &HashSet<String>| used.contains(id) || taken.get(id).is_some_and(|s| s != source);
        let mut chosen = None;
        for k in 1..=parts.len() {
            let mut tail: Vec<&str> = parts[..k].iter().map(String::as_str).collect();
            tail.reverse();
            let id = tail.join("-");
            // A tail another input shares is kept for neither.
            let shared = sources
                .iter()
                .enumerate()
                .any(|(j, o)| j != i && o != source && parts_tail(o, k) == id);
            if !clashes(&id, &used) && !shared {
                chosen = Some(id);
                break;
            }
        }
        let mut id = chosen.unwrap_or_else(|| parts.iter().rev().cloned().collect::<Vec<_>>().join("-"));
        let base = id.clone();
        let mut n = 2;
        while clashes(&id, &used) {
            id = format!("{base}-{n}");
            n += 1;
        }
        used.insert(id.clone());
        out.push(id);
    }
    out
}

fn parts_tail(source: &str, k: usize) -> String {
    let p = parts(source);
    let mut tail: Vec<&str> = p.iter().take(k).map(String::as_str).collect();
    tail.reverse();
    tail.join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &[&str], taken: &[(&str, &str)]) -> Vec<String> {
        let sources: Vec<String> = s.iter().map(|x| x.to_string()).collect();
        let taken = taken.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        session_ids(&sources, &taken)
    }

    #[test]
    fn shortest_unique_tails() {
        assert_eq!(ids(&["/d/a.trace", "/d/b.trace"], &[]), ["a", "b"]);
        assert_eq!(ids(&["/u1/browser", "/u2/browser"], &[]), ["u1-browser", "u2-browser"]);
        assert_eq!(ids(&["/x/run 1.trace"], &[]), ["run_1"]);
        assert_eq!(ids(&["/same", "/same"], &[]), ["same", "same-2"]);
    }

    #[test]
    fn a_dataset_keeps_its_ids() {
        assert_eq!(ids(&["/u2/browser"], &[("browser", "/u1/browser")]), ["u2-browser"]);
        assert_eq!(ids(&["/u1/browser"], &[("browser", "/u1/browser")]), ["browser"]);
    }
}
