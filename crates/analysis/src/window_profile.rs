//! Profile and call tree restricted to a set of time intervals, answered
//! from the call-slice index ([`crate::slices`]) in time proportional to the
//! calls inside the intervals. [`crate::Profile::of`] answers the same
//! question by walking every event; this is the indexed form an interactive
//! viewer needs when each selection or zoom asks again. The two are pinned
//! to each other by `tests/consistency.rs`. The self-contained HTML report
//! runs the same rules in the browser (`tracekit-report`'s
//! `assets/tables.js`).
//!
//! Rules (Traceview's): inclusive time is the part of a call inside the
//! intervals; exclusive time is inclusive minus the inclusive time of its
//! direct children; a recursive invocation adds to calls and exclusive time
//! but not to inclusive time (the outermost invocation already counts it); a
//! call counts as a call of the intervals it starts in.
//! CPU time of a call cut by an interval edge is scaled by the share of its
//! wall time inside. Energy, when the slices carry it (see
//! [`crate::slices::Level::energy`]), follows the same rules as CPU time.

use crate::slices::{ThreadSlices, NO_PARENT};
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

/// One method's row in the profile table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProfileRow {
    /// Method id.
    pub method: u32,
    /// Calls, recursive ones included (as `tracekit-analysis` counts them).
    pub calls: u64,
    /// Calls made while the method was already on the stack.
    pub recursive_calls: u64,
    /// Inclusive wall time (ns).
    pub incl_real: f64,
    /// Exclusive wall time (ns).
    pub excl_real: f64,
    /// Inclusive CPU time (ns); 0 without a CPU clock.
    pub incl_cpu: f64,
    /// Exclusive CPU time (ns); 0 without a CPU clock.
    pub excl_cpu: f64,
    /// Inclusive energy (J); 0 without call energies.
    pub incl_energy: f64,
    /// Exclusive energy (J); 0 without call energies.
    pub excl_energy: f64,
}

/// One node of the call tree: a call path merged over all its calls.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeNode {
    /// Parent node index, `None` for a thread's root calls.
    pub parent: Option<u32>,
    /// Thread index.
    pub thread: u32,
    /// Method id.
    pub method: u32,
    /// Calls merged into this node.
    pub calls: u64,
    /// Inclusive wall time (ns).
    pub incl_real: f64,
    /// Exclusive wall time (ns).
    pub excl_real: f64,
    /// Inclusive CPU time (ns).
    pub incl_cpu: f64,
    /// Inclusive energy (J); 0 without call energies.
    pub incl_energy: f64,
}

/// Profile rows and call tree for a set of intervals.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IntervalProfile {
    /// Total wall time inside the intervals over all threads' root calls (ns).
    pub total_real: f64,
    /// Total CPU time of root calls inside the intervals (ns).
    pub total_cpu: f64,
    /// Total energy of root calls inside the intervals (J).
    pub total_energy: f64,
    /// True when the slices carry call energies.
    pub has_energy: bool,
    /// Rows, one per method that ran, by inclusive wall time, largest first.
    pub rows: Vec<ProfileRow>,
    /// Call tree nodes; children follow no particular order.
    pub tree: Vec<TreeNode>,
    /// Call-tree nodes left out by [`IntervalProfile::prune_tree`].
    pub tree_dropped: usize,
}

/// Most call-tree nodes the viewer is sent (the heaviest ones).
pub const MAX_TREE_NODES: usize = 20_000;

impl IntervalProfile {
    /// Keeps at most about `max_nodes` call-tree nodes, the ones with the
    /// largest inclusive time. A child never has more inclusive time than its
    /// parent, so every kept node keeps its parent. Returns how many nodes
    /// were dropped.
    pub fn prune_tree(&mut self, max_nodes: usize) -> usize {
        let n = self.tree.len();
        if n <= max_nodes || max_nodes == 0 {
            return 0;
        }
        let mut incl: Vec<f64> = self.tree.iter().map(|t| t.incl_real).collect();
        let (_, &mut cut, _) = incl.select_nth_unstable_by(n - max_nodes - 1, f64::total_cmp);
        let mut map = vec![u32::MAX; n];
        let mut kept = Vec::with_capacity(max_nodes + 1);
        for (i, node) in self.tree.iter().enumerate() {
            let parent_kept = node.parent.is_none_or(|p| map[p as usize] != u32::MAX);
            if node.incl_real > cut && parent_kept {
                map[i] = kept.len() as u32;
                let mut k = node.clone();
                k.parent = node.parent.map(|p| map[p as usize]);
                kept.push(k);
            }
        }
        self.tree = kept;
        self.tree_dropped += n - self.tree.len();
        n - self.tree.len()
    }
}

/// Sorts intervals, drops empty ones and merges those that overlap or touch,
/// as [`interval_profile`] expects.
pub fn normalize_intervals(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.retain(|&(a, b)| a < b);
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if last.1 >= a => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Computes the profile of `threads` inside `intervals` (sorted, disjoint,
/// `[start, end)` in ns; see [`normalize_intervals`]).
pub fn interval_profile(threads: &[ThreadSlices], intervals: &[(u64, u64)]) -> IntervalProfile {
    let mut rows: HashMap<u32, ProfileRow> = HashMap::default();
    let mut tree: Vec<TreeNode> = Vec::new();
    let mut tree_index: HashMap<(u32, u32, u32), u32> = HashMap::default(); // (thread, parent+1, method)
    let (mut total_real, mut total_cpu, mut total_energy) = (0.0, 0.0, 0.0);
    let mut has_energy = false;
    for (ti, th) in threads.iter().enumerate() {
        let mut prev_nodes: Vec<u32> = Vec::new();
        for (d, l) in th.levels.iter().enumerate() {
            let mut nodes = vec![u32::MAX; l.len()];
            for &(a, b) in intervals {
                let mut i = l.first_ending_after(a);
                while i < l.len() && l.start[i] < b {
                    let (s, e) = (l.start[i], l.end[i]);
                    let inside = (e.min(b) - s.max(a)) as f64;
                    let wall = (e - s) as f64;
                    let cpu = if l.has_cpu() {
                        let c = (l.cpu_end[i] - l.cpu_start[i]) as f64;
                        if wall > 0.0 {
                            c * inside / wall
                        } else {
                            c
                        }
                    } else {
                        0.0
                    };
                    let energy = if l.has_energy() {
                        has_energy = true;
                        let j = l.energy[i];
                        if wall > 0.0 {
                            j * inside / wall
                        } else {
                            j
                        }
                    } else {
                        0.0
                    };
                    // A call counts where it starts (issue 2's rule for "inside").
                    let count = u64::from(s >= a);
                    let m = l.method_id(i).0;
                    let rec = l.is_recursive(i);
                    let row = rows.entry(m).or_insert_with(|| ProfileRow {
                        method: m,
                        ..Default::default()
                    });
                    row.calls += count;
                    if rec {
                        row.recursive_calls += count;
                    } else {
                        row.incl_real += inside;
                        row.incl_cpu += cpu;
                        row.incl_energy += energy;
                    }
                    row.excl_real += inside;
                    row.excl_cpu += cpu;
                    row.excl_energy += energy;
                    let parent_node = if d == 0 {
                        total_real += inside;
                        total_cpu += cpu;
                        total_energy += energy;
                        None
                    } else {
                        let p = l.parent[i];
                        debug_assert_ne!(p, NO_PARENT);
                        let pm = th.levels[d - 1].method_id(p as usize).0;
                        let prow = rows.get_mut(&pm).expect("parent overlaps the interval too");
                        prow.excl_real -= inside;
                        prow.excl_cpu -= cpu;
                        prow.excl_energy -= energy;
                        Some(prev_nodes[p as usize])
                    };
                    let key = (ti as u32, parent_node.map_or(0, |p| p + 1), m);
                    let node = *tree_index.entry(key).or_insert_with(|| {
                        tree.push(TreeNode {
                            parent: parent_node,
                            thread: ti as u32,
                            method: m,
                            calls: 0,
                            incl_real: 0.0,
                            excl_real: 0.0,
                            incl_cpu: 0.0,
                            incl_energy: 0.0,
                        });
                        tree.len() as u32 - 1
                    });
                    let n = &mut tree[node as usize];
                    n.calls += count;
                    n.incl_real += inside;
                    n.excl_real += inside;
                    n.incl_cpu += cpu;
                    n.incl_energy += energy;
                    if let Some(p) = parent_node {
                        tree[p as usize].excl_real -= inside;
                    }
                    nodes[i] = node;
                    i += 1;
                }
            }
            prev_nodes = nodes;
        }
    }
    let mut rows: Vec<ProfileRow> = rows.into_values().collect();
    rows.sort_by(|a, b| b.incl_real.total_cmp(&a.incl_real).then(a.method.cmp(&b.method)));
    IntervalProfile {
        total_real,
        total_cpu,
        total_energy,
        has_energy,
        rows,
        tree,
        tree_dropped: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{CallColumns, CallEvent, MethodId};

    fn thread() -> ThreadSlices {
        // main [0,100) calls f [10,50) which recurses f [20,30); then g [60,80).
        let mut c = CallColumns::new();
        for (m, enter, t) in [
            (0, true, 0),
            (1, true, 10),
            (1, true, 20),
            (1, false, 30),
            (1, false, 50),
            (2, true, 60),
            (2, false, 80),
            (0, false, 100),
        ] {
            let m = MethodId(m);
            c.push(if enter {
                CallEvent::enter(m, t, Some(t))
            } else {
                CallEvent::exit(m, t, Some(t))
            });
        }
        ThreadSlices::build(&c, 3)
    }

    #[test]
    fn whole_range_follows_traceview_rules() {
        let p = interval_profile(&[thread()], &[(0, 1000)]);
        let row = |m: u32| p.rows.iter().find(|r| r.method == m).unwrap().clone();
        assert_eq!(p.total_real, 100.0);
        assert_eq!((row(0).incl_real, row(0).excl_real), (100.0, 40.0));
        assert_eq!(
            (row(1).incl_real, row(1).excl_real, row(1).calls, row(1).recursive_calls),
            (40.0, 40.0, 2, 1)
        );
        assert_eq!((row(2).incl_real, row(2).excl_cpu), (20.0, 20.0));
        assert_eq!(p.rows[0].method, 0, "sorted by inclusive time");
        // Tree: main → f → f, main → g.
        assert_eq!(p.tree.len(), 4);
        let f_inner = p
            .tree
            .iter()
            .find(|n| n.method == 1 && n.parent.is_some_and(|q| p.tree[q as usize].method == 1))
            .unwrap();
        assert_eq!(f_inner.incl_real, 10.0);
        let main = &p.tree[0];
        assert_eq!((main.method, main.excl_real), (0, 40.0));
    }

    #[test]
    fn pruning_keeps_the_heaviest_nodes_and_their_parents() {
        let mut p = interval_profile(&[thread()], &[(0, 1000)]);
        assert_eq!(p.prune_tree(10), 0);
        assert_eq!(p.prune_tree(2), 2);
        let kept: Vec<(u32, f64)> = p.tree.iter().map(|n| (n.method, n.incl_real)).collect();
        assert_eq!(kept, [(0, 100.0), (1, 40.0)]);
        assert_eq!(p.tree[1].parent, Some(0));
    }

    #[test]
    fn intervals_clip_calls() {
        let p = interval_profile(&[thread()], &[(25, 65), (70, 75)]);
        let row = |m: u32| p.rows.iter().find(|r| r.method == m).unwrap().clone();
        assert_eq!(p.total_real, 45.0);
        assert_eq!(row(1).incl_real, 25.0);
        assert_eq!(row(2).incl_real, 10.0);
        assert_eq!(row(2).calls, 1, "a call cut by two intervals counts once");
        let late = interval_profile(&[thread()], &[(65, 75)]);
        let g = late.rows.iter().find(|r| r.method == 2).unwrap();
        assert_eq!((g.calls, g.incl_real), (0, 10.0), "a call counts only where it starts");
        assert_eq!(row(0).excl_real, 10.0);
        assert!(interval_profile(&[thread()], &[]).rows.is_empty());
    }
}
