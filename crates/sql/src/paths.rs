//! Decoded path logs as rows: each invocation, the distinct paths of each
//! method, and edge counts (seed 003's path profiles). The CLI decodes the
//! log through `tracekit-jvm` and hands every invocation to
//! [`PathsBuilder::add`]; paths are stored once per method and invocations
//! refer to them, so a long run costs a few words per invocation.

use crate::rows::{Rows, Value};
use crate::schema::table;
use std::collections::HashMap;

/// A decoded path log.
#[derive(Debug, Default)]
pub struct PathsSource {
    /// The session's id.
    pub id: String,
    /// The log's path.
    pub source: String,
    /// Methods: (class, name, descriptor), indexed by the log's method ids.
    pub methods: Vec<(String, String, String)>,
    /// Thread names, by the log's thread index.
    pub threads: Vec<String>,
    /// Per invocation: thread, method, path (index into `paths`), aborted, bits.
    invocations: Vec<(u32, u32, u32, bool, u64)>,
    /// Distinct paths: (method, blocks).
    paths: Vec<(u32, Vec<u32>)>,
    path_ids: HashMap<(u32, Vec<u32>), u32>,
    /// Edge counts: (method, from block or entry, to block or exit).
    edges: HashMap<(u32, Option<u32>, Option<u32>), u64>,
}

/// Fills a [`PathsSource`] one invocation at a time.
pub struct PathsBuilder(PathsSource);

impl PathsBuilder {
    /// An empty log of a program with these methods.
    pub fn new(id: String, source: String, methods: Vec<(String, String, String)>) -> PathsBuilder {
        PathsBuilder(PathsSource {
            id,
            source,
            methods,
            ..Default::default()
        })
    }

    /// One invocation: its thread, method, the blocks it ran (bytecode-order
    /// ids), whether an exception ended it, and its bits in the trace.
    pub fn add(&mut self, thread: usize, method: usize, blocks: impl Iterator<Item = u32>, aborted: bool, bits: u64) {
        let s = &mut self.0;
        let method = method as u32;
        let blocks: Vec<u32> = blocks.collect();
        let mut from = None;
        for &b in &blocks {
            *s.edges.entry((method, from, Some(b))).or_default() += 1;
            from = Some(b);
        }
        *s.edges.entry((method, from, None)).or_default() += 1;
        let next = s.paths.len() as u32;
        let id = *s.path_ids.entry((method, blocks.clone())).or_insert_with(|| next);
        if id == next {
            s.paths.push((method, blocks));
        }
        s.invocations.push((thread as u32, method, id, aborted, bits));
    }

    /// The log, with its thread names.
    pub fn finish(mut self, threads: Vec<String>) -> PathsSource {
        self.0.threads = threads;
        self.0.path_ids = HashMap::new();
        self.0
    }
}

/// Path tables.
pub const PATH_TABLES: &[&str] = &["path", "path_invocation", "path_edge"];

/// Table `name` of a path log (`method` and `thread` too); `None` for any
/// other table.
pub fn paths_rows(name: &str, s: &PathsSource) -> Option<Rows> {
    let mut rows = Rows::new(table(name)?);
    match name {
        "method" => {
            for (i, (class, mname, desc)) in s.methods.iter().enumerate() {
                let qualified = if class.is_empty() {
                    mname.clone()
                } else {
                    format!("{}.{mname}", class.replace('/', "."))
                };
                rows.push(&[
                    (i as u32).into(),
                    class.into(),
                    mname.into(),
                    desc.into(),
                    qualified.as_str().into(),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                ]);
            }
        }
        "thread" => {
            for (i, t) in s.threads.iter().enumerate() {
                rows.push(&[(i as u32).into(), (i as u32).into(), Value::Null, t.into()]);
            }
        }
        "path" => {
            for (id, (method, blocks)) in s.paths.iter().enumerate() {
                let text: Vec<String> = blocks.iter().map(u32::to_string).collect();
                rows.push(&[
                    (id as u32).into(),
                    (*method).into(),
                    text.join(" ").as_str().into(),
                    (blocks.len() as u32).into(),
                ]);
            }
        }
        "path_invocation" => {
            for (seq, &(thread, method, path, aborted, bits)) in s.invocations.iter().enumerate() {
                rows.push(&[
                    (seq as u64).into(),
                    thread.into(),
                    method.into(),
                    path.into(),
                    aborted.into(),
                    bits.into(),
                ]);
            }
        }
        "path_edge" => {
            let mut edges: Vec<_> = s.edges.iter().collect();
            edges.sort();
            for (&(method, from, to), &count) in edges {
                rows.push(&[method.into(), from.into(), to.into(), count.into()]);
            }
        }
        _ => return None,
    }
    Some(rows)
}

/// The `session` row of a path log.
pub fn session_row(s: &PathsSource, rows: &mut Rows) {
    let name = std::path::Path::new(&s.source)
        .file_name()
        .map_or_else(|| s.source.clone(), |n| n.to_string_lossy().into_owned());
    rows.push(&[
        name.as_str().into(),
        s.source.as_str().into(),
        "path log".into(),
        "none".into(),
        Value::Null,
        Value::Null,
        0i64.into(),
        0i64.into(),
    ]);
}
