//! The control-flow graph of one method.
//!
//! A [`Cfg`] has named blocks, one entry and one exit. Besides the raw edges
//! it keeps the *live* part of the graph — blocks reachable from the entry
//! that can also reach the exit — because only live edges can occur in an
//! entry-to-exit path. Every scheme numbers live edges only, so unreachable
//! blocks and dead ends cost nothing.

use crate::error::{PathError, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Index of a block inside its [`Cfg`] (dense, from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Kind of a CFG edge. Kinds are informational: every scheme treats an
/// exception edge like any other transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// Fall-through, jump, branch or switch case.
    #[default]
    Normal,
    /// Transfer to an exception handler.
    Exception,
}

/// Name of the block added when a CFG has several sinks and no declared exit.
pub const VIRTUAL_EXIT: &str = "<exit>";

/// Above this out-degree a block's successor lookup uses a hash map.
const LINEAR_LOOKUP_LIMIT: usize = 16;

/// A method's control-flow graph with one entry and one exit.
#[derive(Debug, Clone)]
pub struct Cfg {
    name: String,
    names: Vec<String>,
    index: HashMap<String, BlockId>,
    entry: BlockId,
    exit: BlockId,
    edges: Vec<(BlockId, BlockId, EdgeKind)>,
    live: Vec<bool>,
    succ: Vec<Vec<BlockId>>,
    pred: Vec<Vec<BlockId>>,
    back: HashSet<(u32, u32)>,
    postorder: Vec<BlockId>,
    big_succ_index: HashMap<(u32, u32), u32>,
    virtual_exit: bool,
}

/// Builds a [`Cfg`] block by block and edge by edge.
///
/// ```
/// use tracekit_paths::CfgBuilder;
/// let mut b = CfgBuilder::new("m");
/// b.edge("A", "B").edge("B", "C").edge("C", "B").edge("C", "D");
/// let cfg = b.entry("A").exit("D").build().unwrap();
/// assert_eq!(cfg.block_count(), 4);
/// ```
#[derive(Debug, Clone, Default)]
pub struct CfgBuilder {
    name: String,
    names: Vec<String>,
    index: HashMap<String, BlockId>,
    edges: Vec<(BlockId, BlockId, EdgeKind)>,
    entry: Option<String>,
    exit: Option<String>,
}

impl CfgBuilder {
    /// Starts the CFG of method `name`.
    pub fn new(name: impl Into<String>) -> Self {
        CfgBuilder {
            name: name.into(),
            ..Default::default()
        }
    }

    /// Declares a block (blocks are also declared by naming them in edges);
    /// returns its id. Declaration order fixes block ids.
    pub fn block(&mut self, name: &str) -> BlockId {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = BlockId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }

    /// Adds a normal edge. Duplicate edges are merged (a path of blocks
    /// cannot tell them apart); the first occurrence fixes the out-edge order.
    pub fn edge(&mut self, from: &str, to: &str) -> &mut Self {
        self.edge_of_kind(from, to, EdgeKind::Normal)
    }

    /// Adds an edge of the given kind.
    pub fn edge_of_kind(&mut self, from: &str, to: &str, kind: EdgeKind) -> &mut Self {
        let f = self.block(from);
        let t = self.block(to);
        self.edges.push((f, t, kind));
        self
    }

    /// Sets the entry block.
    pub fn entry(&mut self, name: &str) -> &mut Self {
        self.block(name);
        self.entry = Some(name.to_string());
        self
    }

    /// Sets the exit block. Without it, the only sink is the exit, or a
    /// virtual exit named [`VIRTUAL_EXIT`] is added after every sink.
    pub fn exit(&mut self, name: &str) -> &mut Self {
        self.block(name);
        self.exit = Some(name.to_string());
        self
    }

    /// Checks the description and computes the live graph.
    pub fn build(&self) -> Result<Cfg> {
        let mut b = self.clone();
        let invalid = |m: String| PathError::InvalidCfg {
            method: self.name.clone(),
            message: m,
        };
        let entry_name = b.entry.clone().ok_or_else(|| invalid("no entry block".into()))?;
        let mut seen = HashSet::new();
        b.edges.retain(|&(f, t, _)| seen.insert((f, t)));
        let mut virtual_exit = false;
        let exit_name = match b.exit.clone() {
            Some(e) => e,
            None => {
                let mut has_out = vec![false; b.names.len()];
                for &(f, _, _) in &b.edges {
                    has_out[f.index()] = true;
                }
                let sinks: Vec<BlockId> = (0..b.names.len() as u32)
                    .map(BlockId)
                    .filter(|s| !has_out[s.index()])
                    .collect();
                if sinks.len() == 1 {
                    b.names[sinks[0].index()].clone()
                } else {
                    if b.index.contains_key(VIRTUAL_EXIT) {
                        return Err(invalid(format!(
                            "a block is named {VIRTUAL_EXIT:?}, which is reserved for the virtual exit"
                        )));
                    }
                    let x = b.block(VIRTUAL_EXIT);
                    for s in sinks {
                        b.edges.push((s, x, EdgeKind::Normal));
                    }
                    virtual_exit = true;
                    VIRTUAL_EXIT.to_string()
                }
            }
        };
        let entry = b.index[&entry_name];
        let exit = b.index[&exit_name];
        if let Some(&(_, t, _)) = b.edges.iter().find(|&&(f, _, _)| f == exit) {
            return Err(invalid(format!(
                "exit block {:?} has an out-edge (to {:?}); the exit must end every path",
                exit_name,
                b.names[t.index()]
            )));
        }
        if b.names.len() > u32::MAX as usize / 2 {
            return Err(invalid("too many blocks".into()));
        }
        Ok(Cfg::from_parts(
            b.name,
            b.names,
            b.index,
            entry,
            exit,
            b.edges,
            virtual_exit,
        ))
    }
}

impl Cfg {
    fn from_parts(
        name: String,
        names: Vec<String>,
        index: HashMap<String, BlockId>,
        entry: BlockId,
        exit: BlockId,
        edges: Vec<(BlockId, BlockId, EdgeKind)>,
        virtual_exit: bool,
    ) -> Cfg {
        let n = names.len();
        let mut raw_succ = vec![Vec::new(); n];
        let mut raw_pred = vec![Vec::new(); n];
        for &(f, t, _) in &edges {
            raw_succ[f.index()].push(t);
            raw_pred[t.index()].push(f);
        }
        let forward = reach(entry, &raw_succ);
        let backward = reach(exit, &raw_pred);
        let live: Vec<bool> = (0..n).map(|i| forward[i] && backward[i]).collect();
        let mut succ = vec![Vec::new(); n];
        let mut pred = vec![Vec::new(); n];
        for &(f, t, _) in &edges {
            if live[f.index()] && live[t.index()] {
                succ[f.index()].push(t);
                pred[t.index()].push(f);
            }
        }
        let (back, postorder) = if live[entry.index()] {
            dfs_back_edges(entry, &succ, n)
        } else {
            (HashSet::new(), Vec::new())
        };
        let mut big_succ_index = HashMap::new();
        for (f, s) in succ.iter().enumerate() {
            if s.len() > LINEAR_LOOKUP_LIMIT {
                for (i, t) in s.iter().enumerate() {
                    big_succ_index.insert((f as u32, t.0), i as u32);
                }
            }
        }
        Cfg {
            name,
            names,
            index,
            entry,
            exit,
            edges,
            live,
            succ,
            pred,
            back,
            postorder,
            big_succ_index,
            virtual_exit,
        }
    }

    /// The method name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Number of blocks, including unreachable ones and a virtual exit.
    pub fn block_count(&self) -> usize {
        self.names.len()
    }
    /// The entry block.
    pub fn entry(&self) -> BlockId {
        self.entry
    }
    /// The exit block.
    pub fn exit(&self) -> BlockId {
        self.exit
    }
    /// True when the exit was added because the CFG had several sinks.
    pub fn has_virtual_exit(&self) -> bool {
        self.virtual_exit
    }
    /// The name of a block.
    pub fn block_name(&self, b: BlockId) -> &str {
        &self.names[b.index()]
    }
    /// Looks a block up by name.
    pub fn block_id(&self, name: &str) -> Option<BlockId> {
        self.index.get(name).copied()
    }
    /// Looks a block up by name, or fails naming the method.
    pub fn require_block(&self, name: &str) -> Result<BlockId> {
        self.block_id(name).ok_or_else(|| PathError::UnknownBlock {
            method: self.name.clone(),
            block: name.to_string(),
        })
    }
    /// All blocks in id order.
    pub fn blocks(&self) -> impl Iterator<Item = BlockId> {
        (0..self.names.len() as u32).map(BlockId)
    }
    /// Every edge as declared (deduplicated, plus virtual-exit edges).
    pub fn edges(&self) -> &[(BlockId, BlockId, EdgeKind)] {
        &self.edges
    }
    /// True if `b` is reachable from the entry and reaches the exit.
    pub fn is_live(&self, b: BlockId) -> bool {
        self.live[b.index()]
    }
    /// Live successors of `b`, in declaration order. A choice at `b` is the
    /// index into this list.
    pub fn successors(&self, b: BlockId) -> &[BlockId] {
        &self.succ[b.index()]
    }
    /// Live predecessors of `b`, in declaration order.
    pub fn predecessors(&self, b: BlockId) -> &[BlockId] {
        &self.pred[b.index()]
    }
    /// True if `from → to` is a back edge of the depth-first search from the
    /// entry (its target is on the DFS stack). Removing back edges leaves a DAG.
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.back.contains(&(from.0, to.0))
    }
    /// Live blocks in DFS postorder: every non-back edge goes from a later
    /// to an earlier block of this list (reverse topological order).
    pub fn postorder(&self) -> &[BlockId] {
        &self.postorder
    }
    /// Position of `to` among the live successors of `from`.
    pub fn successor_index(&self, from: BlockId, to: BlockId) -> Option<usize> {
        let s = &self.succ[from.index()];
        if s.len() > LINEAR_LOOKUP_LIMIT {
            self.big_succ_index.get(&(from.0, to.0)).map(|&i| i as usize)
        } else {
            s.iter().position(|&t| t == to)
        }
    }

    /// Maps block names to ids, failing on the first unknown name.
    pub fn resolve_path<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<BlockId>> {
        names
            .iter()
            .enumerate()
            .map(|(step, n)| {
                self.block_id(n.as_ref()).ok_or_else(|| PathError::InvalidPath {
                    method: self.name.clone(),
                    step,
                    message: format!("unknown block {:?}", n.as_ref()),
                })
            })
            .collect()
    }

    /// Block names of a path.
    pub fn path_names(&self, path: &[BlockId]) -> Vec<String> {
        path.iter().map(|&b| self.block_name(b).to_string()).collect()
    }

    /// Checks that `path` starts at the entry, ends at the exit and follows
    /// edges; names the first bad step.
    pub fn check_path(&self, path: &[BlockId]) -> Result<()> {
        let bad = |step: usize, message: String| PathError::InvalidPath {
            method: self.name.clone(),
            step,
            message,
        };
        let Some(&first) = path.first() else {
            return Err(bad(0, "the path is empty".into()));
        };
        if first != self.entry {
            return Err(bad(
                0,
                format!(
                    "starts at {:?}, not at the entry {:?}",
                    self.block_name(first),
                    self.block_name(self.entry)
                ),
            ));
        }
        for (i, w) in path.windows(2).enumerate() {
            if w[0].index() >= self.names.len() || w[1].index() >= self.names.len() {
                return Err(bad(i + 1, "block id out of range".into()));
            }
            if self.successor_index(w[0], w[1]).is_none() {
                let why = if w[0] == self.exit {
                    "the path goes on after the exit".to_string()
                } else {
                    format!(
                        "no edge {:?} -> {:?} on an entry-to-exit path",
                        self.block_name(w[0]),
                        self.block_name(w[1])
                    )
                };
                return Err(bad(i + 1, why));
            }
        }
        let last = *path.last().unwrap();
        if last != self.exit {
            return Err(bad(
                path.len() - 1,
                format!(
                    "ends at {:?}, not at the exit {:?}",
                    self.block_name(last),
                    self.block_name(self.exit)
                ),
            ));
        }
        Ok(())
    }
}

/// Blocks reachable from `start` following `adj`.
fn reach(start: BlockId, adj: &[Vec<BlockId>]) -> Vec<bool> {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![start];
    seen[start.index()] = true;
    while let Some(v) = stack.pop() {
        for &w in &adj[v.index()] {
            if !seen[w.index()] {
                seen[w.index()] = true;
                stack.push(w);
            }
        }
    }
    seen
}

/// Iterative DFS from `entry` visiting successors in order; returns the back
/// edges and the postorder.
fn dfs_back_edges(entry: BlockId, succ: &[Vec<BlockId>], n: usize) -> (HashSet<(u32, u32)>, Vec<BlockId>) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnStack,
        Done,
    }
    let mut state = vec![State::New; n];
    let mut back = HashSet::new();
    let mut post = Vec::new();
    let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
    state[entry.index()] = State::OnStack;
    while let Some(top) = stack.last_mut() {
        let (v, i) = *top;
        if let Some(&w) = succ[v.index()].get(i) {
            top.1 += 1;
            match state[w.index()] {
                State::New => {
                    state[w.index()] = State::OnStack;
                    stack.push((w, 0));
                }
                State::OnStack => {
                    back.insert((v.0, w.0));
                }
                State::Done => {}
            }
        } else {
            state[v.index()] = State::Done;
            post.push(v);
            stack.pop();
        }
    }
    (back, post)
}

/// The seed's CFG (A→B, B→C, C→B, C→D), shared by unit tests.
#[cfg(test)]
pub(crate) fn seed_cfg() -> Cfg {
    let mut b = CfgBuilder::new("m");
    b.edge("A", "B").edge("B", "C").edge("C", "B").edge("C", "D");
    b.entry("A").exit("D").build().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> Cfg {
        seed_cfg()
    }

    #[test]
    fn back_edges_and_postorder() {
        let c = seed();
        let id = |n| c.block_id(n).unwrap();
        assert!(c.is_back_edge(id("C"), id("B")));
        assert!(!c.is_back_edge(id("B"), id("C")));
        let names: Vec<_> = c.postorder().iter().map(|&b| c.block_name(b)).collect();
        assert_eq!(names, ["D", "C", "B", "A"]);
    }

    #[test]
    fn virtual_exit_joins_sinks_and_dead_blocks_are_not_live() {
        let mut b = CfgBuilder::new("m");
        b.edge("A", "R1")
            .edge("A", "R2")
            .edge("U", "R1")
            .edge("A", "L")
            .edge("L", "L");
        let c = b.entry("A").build().unwrap();
        assert!(c.has_virtual_exit());
        let x = c.exit();
        assert_eq!(c.block_name(x), VIRTUAL_EXIT);
        assert!(!c.is_live(c.block_id("U").unwrap()));
        assert!(!c.is_live(c.block_id("L").unwrap()), "L never reaches the exit");
        assert_eq!(c.successors(c.entry()).len(), 2);
    }

    #[test]
    fn exit_with_out_edge_is_rejected() {
        let mut b = CfgBuilder::new("m");
        b.edge("A", "B").edge("B", "A");
        let e = b.entry("A").exit("B").build().unwrap_err();
        assert!(e.to_string().contains("exit block \"B\" has an out-edge"), "{e}");
    }

    #[test]
    fn check_path_names_the_bad_step() {
        let c = seed();
        let p = c.resolve_path(&["A", "B", "D"]).unwrap();
        let e = c.check_path(&p).unwrap_err().to_string();
        assert!(e.contains("step 2") && e.contains("\"B\" -> \"D\""), "{e}");
        let p = c.resolve_path(&["A", "B", "C"]).unwrap();
        assert!(c.check_path(&p).unwrap_err().to_string().contains("not at the exit"));
    }
}
