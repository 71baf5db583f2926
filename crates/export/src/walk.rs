//! One pass over a thread's call events that yields a balanced, time-ordered
//! sequence of opens and closes, the shape every exported format needs.
//!
//! Sessions from tracekit's readers are already balanced and ordered (a
//! model invariant), and then the walk reports exactly the events stored.
//! A hand-built or foreign session may not be, and a viewer rejects a file
//! whose frames do not nest, so the walk closes such input the way
//! `tracekit-analysis`'s walk does: an exit of a method that is not open is
//! ignored, an exit of a method open further down closes the calls above
//! it at the same instant, calls still open at the end close at the
//! thread's last time, and a time that goes backwards is held at the
//! latest time seen (on each clock).

use tracekit_model::{CallColumns, CallKind, MethodId};

/// One open or close of a call, with its times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    /// True for an open (enter), false for a close (exit or unwind).
    pub open: bool,
    /// The method opened or closed.
    pub method: MethodId,
    /// Timeline time in ns, never less than the previous step's.
    pub ts: u64,
    /// Thread-CPU time in ns (0 when the thread has no CPU column), never
    /// less than the previous step's.
    pub cpu: u64,
}

/// Walks `calls`, calling `f` for every step in order. `n_methods` sizes
/// the per-method open counts (ids beyond it are handled too).
pub(crate) fn walk(calls: &CallColumns, n_methods: usize, mut f: impl FnMut(Step)) {
    let (words, times, cpus) = calls.columns();
    let mut on_stack = vec![0u32; n_methods];
    let mut stack: Vec<MethodId> = Vec::new();
    let (mut ts, mut cpu) = (0u64, 0u64);
    for (i, (&word, &t)) in words.iter().zip(times).enumerate() {
        ts = ts.max(t);
        if let Some(c) = cpus {
            cpu = cpu.max(c[i]);
        }
        let method = MethodId(word >> 2);
        let m = method.0 as usize;
        if m >= on_stack.len() {
            on_stack.resize(m + 1, 0);
        }
        match CallKind::from_bits(word) {
            Some(CallKind::Enter) => {
                on_stack[m] += 1;
                stack.push(method);
                f(Step {
                    open: true,
                    method,
                    ts,
                    cpu,
                });
            }
            _ => {
                if on_stack[m] == 0 {
                    continue;
                }
                while let Some(top) = stack.pop() {
                    on_stack[top.0 as usize] -= 1;
                    f(Step {
                        open: false,
                        method: top,
                        ts,
                        cpu,
                    });
                    if top == method {
                        break;
                    }
                }
            }
        }
    }
    while let Some(top) = stack.pop() {
        f(Step {
            open: false,
            method: top,
            ts,
            cpu,
        });
    }
}

/// A tree of distinct call stacks: node `i` is its parent's stack plus one
/// method. Nodes are numbered in creation order, so a parent always comes
/// before its children (the order the Firefox Profiler's stack table needs).
#[derive(Debug, Default)]
pub(crate) struct StackTrie {
    /// Parent node of each node (`None` for a root).
    pub parent: Vec<Option<u32>>,
    /// Method of each node.
    pub method: Vec<MethodId>,
    index: rustc_hash::FxHashMap<(u32, u32), u32>,
}

/// `u32::MAX` as the "no parent" key of roots in the trie's index.
const ROOT: u32 = u32::MAX;

impl StackTrie {
    /// The node for `parent`'s stack plus `method`, made if new.
    #[inline]
    pub fn child(&mut self, parent: Option<u32>, method: MethodId) -> u32 {
        let next = self.method.len() as u32;
        let id = *self.index.entry((parent.unwrap_or(ROOT), method.0)).or_insert(next);
        if id == next {
            self.parent.push(parent);
            self.method.push(method);
        }
        id
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.method.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::CallEvent;

    fn steps(events: &[CallEvent]) -> Vec<(bool, u32, u64)> {
        let mut c = CallColumns::new();
        for &e in events {
            c.push(e);
        }
        let mut out = Vec::new();
        walk(&c, 2, |s| out.push((s.open, s.method.0, s.ts)));
        out
    }

    #[test]
    fn balanced_input_is_reported_as_is() {
        let (a, b) = (MethodId(0), MethodId(1));
        let got = steps(&[
            CallEvent::enter(a, 1, None),
            CallEvent::enter(b, 2, None),
            CallEvent::unwind(b, 3, None),
            CallEvent::exit(a, 4, None),
        ]);
        assert_eq!(got, vec![(true, 0, 1), (true, 1, 2), (false, 1, 3), (false, 0, 4)]);
    }

    #[test]
    fn unbalanced_input_is_closed_like_the_analysis_walk() {
        let (a, b, c) = (MethodId(0), MethodId(1), MethodId(7));
        let got = steps(&[
            CallEvent::exit(c, 1, None), // never entered: ignored
            CallEvent::enter(a, 2, None),
            CallEvent::enter(b, 5, None),
            CallEvent::enter(c, 4, None), // time goes back: held at 5
            CallEvent::exit(b, 6, None),  // closes c, then b
            CallEvent::enter(b, 7, None), // open at the end: closed at 7
        ]);
        assert_eq!(
            got,
            vec![
                (true, 0, 2),
                (true, 1, 5),
                (true, 7, 5),
                (false, 7, 6),
                (false, 1, 6),
                (true, 1, 7),
                (false, 1, 7),
                (false, 0, 7)
            ]
        );
    }

    #[test]
    fn trie_numbers_parents_first_and_shares_prefixes() {
        let mut t = StackTrie::default();
        let a = t.child(None, MethodId(3));
        let ab = t.child(Some(a), MethodId(4));
        assert_eq!(t.child(None, MethodId(3)), a);
        assert_eq!(t.child(Some(a), MethodId(4)), ab);
        let b = t.child(None, MethodId(4));
        assert_ne!(b, ab);
        assert_eq!(t.len(), 3);
        assert_eq!(t.parent, vec![None, Some(a), None]);
    }
}
