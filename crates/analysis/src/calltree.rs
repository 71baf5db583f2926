//! dmtracedump's call tree: one node per distinct call path, with call
//! counts and inclusive/exclusive times.

use crate::intervals::IntervalSet;
use crate::walk::{Closed, Visitor, Walker};
use rustc_hash::FxHashMap;
use tracekit_model::{MethodId, Session, ThreadId};

/// One node: a method reached by one particular path from the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallNode {
    /// The method (`None` for the root).
    pub method: Option<MethodId>,
    /// Parent node index (`None` for the root).
    pub parent: Option<usize>,
    /// Child node indices, by descending inclusive time once built.
    pub children: Vec<usize>,
    /// Calls along this path.
    pub calls: u64,
    /// Inclusive real time (ns).
    pub incl_real_ns: u64,
    /// Exclusive real time (ns).
    pub excl_real_ns: u64,
    /// Inclusive CPU time (ns).
    pub incl_cpu_ns: u64,
    /// Exclusive CPU time (ns).
    pub excl_cpu_ns: u64,
}

impl CallNode {
    fn empty(method: Option<MethodId>, parent: Option<usize>) -> CallNode {
        CallNode {
            method,
            parent,
            children: Vec::new(),
            calls: 0,
            incl_real_ns: 0,
            excl_real_ns: 0,
            incl_cpu_ns: 0,
            excl_cpu_ns: 0,
        }
    }
}

/// A call tree; node 0 is the root.
#[derive(Debug, Clone)]
pub struct CallTree {
    /// All nodes; index 0 is the root.
    pub nodes: Vec<CallNode>,
}

pub(crate) struct Builder {
    nodes: Vec<CallNode>,
    index: FxHashMap<(usize, u32), usize>,
    path: Vec<usize>,
}

impl Builder {
    pub(crate) fn new() -> Builder {
        Builder {
            nodes: vec![CallNode::empty(None, None)],
            index: FxHashMap::default(),
            path: Vec::new(),
        }
    }

    /// Forgets the open path (a new thread starts at the root).
    pub(crate) fn restart(&mut self) {
        self.path.clear();
    }
}

impl Visitor for Builder {
    fn enter(&mut self, method: MethodId, _: usize, _: bool) {
        let parent = *self.path.last().unwrap_or(&0);
        let next = self.nodes.len();
        let node = *self.index.entry((parent, method.0)).or_insert(next);
        if node == next {
            self.nodes.push(CallNode::empty(Some(method), Some(parent)));
            self.nodes[parent].children.push(node);
        }
        self.path.push(node);
    }

    fn exit(&mut self, c: &Closed) {
        let Some(node) = self.path.pop() else { return };
        let n = &mut self.nodes[node];
        if c.counted {
            n.calls += 1;
        }
        n.incl_real_ns += c.real;
        n.excl_real_ns += c.real - c.child_real;
        n.incl_cpu_ns += c.cpu;
        n.excl_cpu_ns += c.cpu - c.child_cpu;
    }
}

impl CallTree {
    /// Builds the tree of the chosen threads (all when `threads` is `None`),
    /// merged across threads, optionally restricted to a window.
    pub fn of(session: &Session, threads: Option<&[ThreadId]>, window: Option<&IntervalSet>) -> CallTree {
        let mut b = Builder::new();
        let mut w = Walker::default();
        for (id, _, calls) in session.thread_calls() {
            if threads.is_some_and(|t| !t.contains(&id)) {
                continue;
            }
            b.path.clear();
            w.walk(calls, session.methods.len(), window, &mut b);
        }
        CallTree::from_builder(b)
    }

    /// The tree a walk built.
    pub(crate) fn from_builder(b: Builder) -> CallTree {
        let mut nodes = b.nodes;
        let (mut r, mut c) = (0, 0);
        for &ch in &nodes[0].children {
            r += nodes[ch].incl_real_ns;
            c += nodes[ch].incl_cpu_ns;
        }
        nodes[0].incl_real_ns = r;
        nodes[0].incl_cpu_ns = c;
        // A path that never ran inside the window (no call, no time, and
        // nothing below it that did) is left out: a tree restricted to a
        // window is the same whether the calls after it were read or not.
        // Children always come after their parent, so one pass from the
        // end settles every node's children first.
        let mut keep = vec![false; nodes.len()];
        for i in (1..nodes.len()).rev() {
            let n = &nodes[i];
            keep[i] = n.calls > 0 || n.incl_real_ns > 0 || n.incl_cpu_ns > 0 || n.children.iter().any(|&ch| keep[ch]);
        }
        for n in &mut nodes {
            n.children.retain(|&ch| keep[ch]);
        }
        let keys: Vec<u64> = nodes.iter().map(|n| n.incl_real_ns.max(n.incl_cpu_ns)).collect();
        for n in &mut nodes {
            n.children.sort_by(|&a, &b| keys[b].cmp(&keys[a]).then(a.cmp(&b)));
        }
        CallTree { nodes }
    }

    /// The root node.
    pub fn root(&self) -> &CallNode {
        &self.nodes[0]
    }

    /// Visits nodes depth first (children by descending time) with their depth,
    /// the root excluded, stopping below `max_depth` when given.
    pub fn depth_first(&self, max_depth: Option<usize>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut stack: Vec<(usize, usize)> = self.nodes[0].children.iter().rev().map(|&c| (c, 0)).collect();
        while let Some((n, d)) = stack.pop() {
            out.push((n, d));
            if max_depth.is_none_or(|m| d + 1 < m) {
                stack.extend(self.nodes[n].children.iter().rev().map(|&c| (c, d + 1)));
            }
        }
        out
    }
}
