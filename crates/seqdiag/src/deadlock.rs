//! Deadlock detection: a cycle of processes each blocked in a synchronous
//! proxy call to the next (seed 004: proxy entries carry both process ids).
//! A synchronous proxy call blocks its process from its `P` entry until the
//! `L` entry of the same proxy object and operation.

use crate::events::{ordered, Ev};
use serde::Serialize;
use std::collections::BTreeSet;
use tracekit_model::{ObjectEventKind, RemoteCallKind, Session};

/// A synchronous proxy call that was still waiting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockedCall {
    /// When the call started.
    pub ts_ns: u64,
    /// Calling (blocked) process.
    pub pid: u32,
    /// Process called.
    pub remote_pid: u32,
    /// Proxy object id.
    pub object_id: u64,
    /// Proxy class.
    pub class: String,
    /// Interface.
    pub interface: String,
    /// Operation.
    pub operation: String,
}

/// A cycle of blocked processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deadlock {
    /// When the cycle closed.
    pub ts_ns: u64,
    /// The calls forming the cycle, each process calling the next's.
    pub calls: Vec<BlockedCall>,
}

impl std::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pids: Vec<String> = self
            .calls
            .iter()
            .map(|c| c.pid.to_string())
            .chain(self.calls.first().map(|c| c.pid.to_string()))
            .collect();
        writeln!(f, "deadlock at {} ns: processes {}", self.ts_ns, pids.join(" -> "))?;
        for c in &self.calls {
            writeln!(
                f,
                "  process {} blocked since {} ns in {}.{}.{} (proxy 0x{:x}) calling process {}",
                c.pid, c.ts_ns, c.class, c.interface, c.operation, c.object_id, c.remote_pid
            )?;
        }
        Ok(())
    }
}

/// Finds every cycle of processes blocked in synchronous proxy calls.
pub fn find_deadlocks(s: &Session) -> Vec<Deadlock> {
    let mut active: Vec<BlockedCall> = Vec::new();
    let mut found = Vec::new();
    let mut seen: BTreeSet<Vec<(u32, u64, u64)>> = BTreeSet::new();
    for ev in ordered(s) {
        match ev {
            Ev::Remote(r) if r.kind == RemoteCallKind::ProxySync => {
                let call = BlockedCall {
                    ts_ns: r.ts_ns,
                    pid: r.pid,
                    remote_pid: r.remote_pid,
                    object_id: r.object_id,
                    class: r.class.clone(),
                    interface: r.interface.clone(),
                    operation: r.operation.clone(),
                };
                active.push(call);
                if let Some(cycle) = cycle_through(&active, active.len() - 1) {
                    let key: Vec<(u32, u64, u64)> = {
                        let mut k: Vec<_> = cycle.iter().map(|c| (c.pid, c.object_id, c.ts_ns)).collect();
                        k.sort();
                        k
                    };
                    if seen.insert(key) {
                        found.push(Deadlock {
                            ts_ns: r.ts_ns,
                            calls: cycle,
                        });
                    }
                }
            }
            Ev::Object(o) if o.kind == ObjectEventKind::OperationLeft => {
                if let Some(i) = active.iter().rposition(|c| {
                    c.pid == o.pid && c.object_id == o.object_id && Some(c.operation.as_str()) == o.operation.as_deref()
                }) {
                    active.remove(i);
                }
            }
            _ => {}
        }
    }
    found
}

/// A cycle of blocked calls that starts with `active[start]`, if any
/// (depth-first over "process p waits for process q" edges).
fn cycle_through(active: &[BlockedCall], start: usize) -> Option<Vec<BlockedCall>> {
    let origin = active[start].pid;
    let mut path = vec![start];
    let mut visited = BTreeSet::new();
    fn dfs(active: &[BlockedCall], origin: u32, path: &mut Vec<usize>, visited: &mut BTreeSet<u32>) -> bool {
        let next_pid = active[*path.last().unwrap_or(&0)].remote_pid;
        if next_pid == origin {
            return true;
        }
        if !visited.insert(next_pid) {
            return false;
        }
        for (i, c) in active.iter().enumerate() {
            if c.pid == next_pid {
                path.push(i);
                if dfs(active, origin, path, visited) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    dfs(active, origin, &mut path, &mut visited).then(|| path.iter().map(|&i| active[i].clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{Clocks, ObjectEvent, RemoteCall};

    fn proxy(ts: u64, pid: u32, remote: u32, id: u64, op: &str) -> RemoteCall {
        RemoteCall {
            ts_ns: ts,
            pid,
            remote_pid: remote,
            thread: None,
            kind: RemoteCallKind::ProxySync,
            object_id: id,
            class: "Proxy".into(),
            interface: "I".into(),
            operation: op.into(),
        }
    }

    fn leave(ts: u64, pid: u32, id: u64, op: &str) -> ObjectEvent {
        ObjectEvent {
            ts_ns: ts,
            pid,
            thread: None,
            kind: ObjectEventKind::OperationLeft,
            object_id: id,
            class: "Proxy".into(),
            interface: Some("I".into()),
            operation: Some(op.into()),
        }
    }

    #[test]
    fn three_process_cycle_is_found() {
        let mut s = Session::new("d", Clocks::WALL);
        s.remote_calls = vec![
            proxy(1, 10, 20, 1, "a"),
            proxy(2, 20, 30, 2, "b"),
            proxy(3, 30, 10, 3, "c"),
        ];
        let d = find_deadlocks(&s);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].ts_ns, 3);
        assert_eq!(d[0].calls.iter().map(|c| c.pid).collect::<Vec<_>>(), vec![30, 10, 20]);
        assert!(d[0].to_string().contains("processes 30 -> 10 -> 20 -> 30"));
    }

    #[test]
    fn returned_calls_do_not_deadlock() {
        let mut s = Session::new("d", Clocks::WALL);
        s.remote_calls = vec![proxy(1, 10, 20, 1, "a"), proxy(3, 20, 10, 2, "b")];
        s.objects = vec![leave(2, 10, 1, "a")];
        assert!(find_deadlocks(&s).is_empty());
        // Async calls never block.
        s.objects.clear();
        s.remote_calls[0].kind = RemoteCallKind::ProxyAsync;
        assert!(find_deadlocks(&s).is_empty());
    }
}
