//! A set of method CFGs with their call sites, and the CFG JSON file.
//!
//! File format (`--cfg F`):
//!
//! ```json
//! {"methods": [
//!   {"name": "m", "entry": "A", "exit": "D",
//!    "edges": [["A","B"], ["B","C"], ["C","B"], ["C","D"], ["B","H","exception"]],
//!    "blocks": ["U"],
//!    "calls": {"B": ["f"]}}
//! ]}
//! ```
//!
//! `exit` is optional (the single sink, or a virtual exit `<exit>` joining
//! every sink); `blocks` declares extra blocks (e.g. unreachable ones with no
//! edges); an edge may carry a third element `"normal"` or `"exception"`;
//! `calls` lists, per block, the profiled methods that block invokes, in
//! order (used by AdapTracer's interprocedural coding). Unknown fields are
//! ignored so other tools can annotate the file.

use crate::cfg::{BlockId, Cfg, CfgBuilder, EdgeKind};
use crate::error::{PathError, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Index of a method inside a [`Program`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodId(pub u32);

impl MethodId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One block visit of an interprocedural path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Visit {
    /// The method the block belongs to.
    pub method: MethodId,
    /// The block.
    pub block: BlockId,
}

/// Method CFGs by name, with resolved call sites.
#[derive(Debug, Clone, Default)]
pub struct Program {
    methods: Vec<Cfg>,
    by_name: HashMap<String, MethodId>,
    /// `calls[m][b]` = methods invoked by block `b` of method `m`, in order.
    calls: Vec<Vec<Vec<MethodId>>>,
    /// Call sites by name, resolved when the program is complete.
    pending_calls: Vec<Vec<(BlockId, Vec<String>)>>,
}

/// One method as written in the CFG file.
#[derive(Debug, Clone, Deserialize)]
pub struct MethodSpec {
    /// Method name, unique in the file.
    pub name: String,
    /// Entry block.
    pub entry: String,
    /// Exit block (optional).
    #[serde(default)]
    pub exit: Option<String>,
    /// Edges `[from, to]` or `[from, to, kind]`.
    pub edges: Vec<EdgeSpec>,
    /// Extra blocks, declared in this order before edge endpoints.
    #[serde(default)]
    pub blocks: Vec<String>,
    /// Per block, the profiled methods it invokes.
    #[serde(default)]
    pub calls: BTreeMap<String, Vec<String>>,
}

/// An edge in the CFG file.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum EdgeSpec {
    /// `[from, to]`.
    Plain(String, String),
    /// `[from, to, "normal"|"exception"]`.
    Kinded(String, String, EdgeKind),
}

#[derive(Debug, Deserialize)]
struct CfgFile {
    methods: Vec<MethodSpec>,
}

impl Program {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a method; `calls` names callees that must exist once
    /// [`Program::resolve_calls`] runs. Fails on a duplicate name.
    pub fn add_method(&mut self, cfg: Cfg, calls: Vec<(BlockId, Vec<String>)>) -> Result<MethodId> {
        if self.by_name.contains_key(cfg.name()) {
            return Err(PathError::InvalidCfg {
                method: cfg.name().to_string(),
                message: "defined twice".into(),
            });
        }
        let id = MethodId(self.methods.len() as u32);
        self.by_name.insert(cfg.name().to_string(), id);
        self.calls.push(vec![Vec::new(); cfg.block_count()]);
        self.methods.push(cfg);
        self.pending_calls.push(calls);
        Ok(id)
    }

    /// Resolves every call site added so far by callee name.
    pub fn resolve_calls(&mut self) -> Result<()> {
        for m in 0..self.methods.len() {
            for (b, names) in std::mem::take(&mut self.pending_calls[m]) {
                let mut ids = Vec::with_capacity(names.len());
                for n in names {
                    let id = self.method_id(&n).map_err(|_| PathError::InvalidCfg {
                        method: self.methods[m].name().to_string(),
                        message: format!("block {:?} calls unknown method {n:?}", self.methods[m].block_name(b)),
                    })?;
                    ids.push(id);
                }
                self.calls[m][b.index()] = ids;
            }
        }
        Ok(())
    }

    /// Builds a program from parsed method descriptions.
    pub fn from_specs(specs: &[MethodSpec]) -> Result<Program> {
        let mut p = Program::new();
        for s in specs {
            let mut b = CfgBuilder::new(&s.name);
            for n in &s.blocks {
                b.block(n);
            }
            b.entry(&s.entry);
            if let Some(x) = &s.exit {
                b.exit(x);
            }
            for e in &s.edges {
                match e {
                    EdgeSpec::Plain(f, t) => b.edge(f, t),
                    EdgeSpec::Kinded(f, t, k) => b.edge_of_kind(f, t, *k),
                };
            }
            let cfg = b.build()?;
            let mut calls = Vec::new();
            for (block, callees) in &s.calls {
                calls.push((cfg.require_block(block)?, callees.clone()));
            }
            p.add_method(cfg, calls)?;
        }
        p.resolve_calls()?;
        Ok(p)
    }

    /// Parses the CFG JSON text; `origin` names the file in errors, which
    /// carry serde_json's line and column.
    pub fn from_json_str(text: &str, origin: &Path) -> Result<Program> {
        let file: CfgFile = serde_json::from_str(text).map_err(|e| PathError::Parse {
            path: origin.to_path_buf(),
            message: format!("not a CFG file: {e}"),
        })?;
        Program::from_specs(&file.methods).map_err(|e| PathError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Reads a CFG JSON file.
    pub fn load(path: &Path) -> Result<Program> {
        let text = tracekit_safeio::read_text(path).map_err(PathError::from)?;
        Program::from_json_str(&text, path)
    }

    /// Number of methods.
    pub fn len(&self) -> usize {
        self.methods.len()
    }
    /// True when the program has no method.
    pub fn is_empty(&self) -> bool {
        self.methods.is_empty()
    }
    /// All method ids.
    pub fn method_ids(&self) -> impl Iterator<Item = MethodId> {
        (0..self.methods.len() as u32).map(MethodId)
    }
    /// The CFG of a method.
    pub fn cfg(&self, m: MethodId) -> &Cfg {
        &self.methods[m.index()]
    }
    /// Looks a method up by name.
    pub fn method_id(&self, name: &str) -> Result<MethodId> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| PathError::UnknownMethod(name.to_string()))
    }
    /// The CFG of a method by name.
    pub fn method(&self, name: &str) -> Result<&Cfg> {
        Ok(self.cfg(self.method_id(name)?))
    }
    /// Methods invoked by block `b` of method `m`, in order.
    pub fn calls(&self, m: MethodId, b: BlockId) -> &[MethodId] {
        &self.calls[m.index()][b.index()]
    }
    /// True when any block of any method has a call site.
    pub fn has_calls(&self) -> bool {
        self.calls.iter().flatten().any(|c| !c.is_empty())
    }

    /// Checks an interprocedural path rooted at `root` against the CFGs and
    /// call sites, reporting its structure in order: `Enter` when an
    /// invocation starts (at its entry), `Step` for each intraprocedural
    /// edge, `Leave` when an invocation reaches its exit. The calls of a
    /// block come right after the block's visit, before its out-edge.
    pub fn walk_visits(
        &self,
        root: MethodId,
        visits: &[Visit],
        mut on: impl FnMut(WalkEvent) -> Result<()>,
    ) -> Result<()> {
        struct Frame {
            m: MethodId,
            b: BlockId,
            next_call: usize,
        }
        let bad = |m: MethodId, step: usize, message: String| PathError::InvalidPath {
            method: self.cfg(m).name().to_string(),
            step,
            message,
        };
        let root_entry = self.cfg(root).entry();
        if visits.first()
            != Some(&Visit {
                method: root,
                block: root_entry,
            })
        {
            return Err(bad(root, 0, "the path does not start at the entry".into()));
        }
        on(WalkEvent::Enter(root))?;
        let mut stack = vec![Frame {
            m: root,
            b: root_entry,
            next_call: 0,
        }];
        let mut i = 1;
        while let Some(top) = stack.last_mut() {
            let calls = self.calls(top.m, top.b);
            if let Some(&callee) = calls.get(top.next_call) {
                top.next_call += 1;
                let want = Visit {
                    method: callee,
                    block: self.cfg(callee).entry(),
                };
                if visits.get(i) != Some(&want) {
                    let (m, b) = (top.m, top.b);
                    return Err(bad(
                        m,
                        i,
                        format!(
                            "block {:?} calls {}, whose entry must come next",
                            self.cfg(m).block_name(b),
                            self.cfg(callee).name()
                        ),
                    ));
                }
                on(WalkEvent::Enter(callee))?;
                stack.push(Frame {
                    m: callee,
                    b: want.block,
                    next_call: 0,
                });
                i += 1;
                continue;
            }
            let cfg = self.cfg(top.m);
            if top.b == cfg.exit() {
                on(WalkEvent::Leave(top.m))?;
                stack.pop();
                continue;
            }
            let Some(v) = visits.get(i) else {
                return Err(bad(
                    top.m,
                    i,
                    format!("the path ends inside the method at {:?}", cfg.block_name(top.b)),
                ));
            };
            if v.method != top.m || cfg.successor_index(top.b, v.block).is_none() {
                return Err(bad(
                    top.m,
                    i,
                    format!(
                        "no edge from {:?} to {}::{:?}",
                        cfg.block_name(top.b),
                        self.cfg(v.method).name(),
                        self.cfg(v.method).block_name(v.block)
                    ),
                ));
            }
            on(WalkEvent::Step {
                method: top.m,
                from: top.b,
                to: v.block,
            })?;
            top.b = v.block;
            top.next_call = 0;
            i += 1;
        }
        if i != visits.len() {
            return Err(bad(root, i, "the path goes on after the root method's exit".into()));
        }
        Ok(())
    }

    /// Splits an interprocedural path into `(method, path)` invocations in
    /// the order they started; callee visits are removed from the caller's
    /// path.
    pub fn split_invocations(&self, root: MethodId, visits: &[Visit]) -> Result<Vec<(MethodId, Vec<BlockId>)>> {
        let mut done: Vec<(MethodId, Vec<BlockId>)> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        self.walk_visits(root, visits, |e| {
            match e {
                WalkEvent::Enter(m) => {
                    done.push((m, vec![self.cfg(m).entry()]));
                    open.push(done.len() - 1);
                }
                WalkEvent::Step { to, .. } => done[*open.last().unwrap()].1.push(to),
                WalkEvent::Leave(_) => {
                    open.pop();
                }
            }
            Ok(())
        })?;
        Ok(done)
    }
}

/// What [`Program::walk_visits`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkEvent {
    /// An invocation of this method starts at its entry.
    Enter(MethodId),
    /// An intraprocedural edge is taken.
    Step {
        /// The method.
        method: MethodId,
        /// Source block.
        from: BlockId,
        /// Target block.
        to: BlockId,
    },
    /// The invocation of this method reaches its exit.
    Leave(MethodId),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_names_file_line_and_column() {
        let e = Program::from_json_str("{\"methods\": [\n {\"name\": 3}]}", Path::new("x.json"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.json: "), "{e}");
        assert!(e.contains("line 2 column"), "{e}");
    }

    #[test]
    fn parses_kinds_blocks_and_calls() {
        let text = r#"{"methods":[
          {"name":"m","entry":"A","exit":"D","blocks":["U"],
           "edges":[["A","B"],["B","D"],["A","H","exception"],["H","D"]],
           "calls":{"B":["f"]}},
          {"name":"f","entry":"X","edges":[["X","Y"]]}]}"#;
        let p = Program::from_json_str(text, Path::new("t.json")).unwrap();
        let m = p.method_id("m").unwrap();
        let cfg = p.cfg(m);
        assert_eq!(cfg.block_name(BlockId(0)), "U");
        assert!(!cfg.is_live(BlockId(0)));
        let b = cfg.block_id("B").unwrap();
        assert_eq!(p.calls(m, b), &[p.method_id("f").unwrap()]);
        assert_eq!(cfg.edges()[2].2, EdgeKind::Exception);
        assert!(p.method("nope").is_err());
    }

    #[test]
    fn unknown_callee_is_an_error() {
        let text = r#"{"methods":[{"name":"m","entry":"A","edges":[["A","B"]],"calls":{"A":["g"]}}]}"#;
        let e = Program::from_json_str(text, Path::new("t.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("calls unknown method \"g\""), "{e}");
    }
}
