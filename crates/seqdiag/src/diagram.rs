//! Infers a sequence diagram from object and cross-process events: the
//! caller of an operation is the object whose operation is active on the
//! same thread (or process, when threads are unknown); a stub's caller is
//! the proxy whose call reached its process.

use crate::events::{ordered, Ev};
use std::collections::HashMap;
use tracekit_model::{ObjectEventKind, RemoteCallKind, Session, ThreadId};

/// A lifeline: one object of one process, or a process itself (the caller
/// of operations entered from outside any traced object).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Participant {
    /// Owning process.
    pub pid: u32,
    /// Object id; `None` for the process lifeline.
    pub object_id: Option<u64>,
    /// Class name (or `process N`).
    pub class: String,
}

impl Participant {
    /// Label shown in the lifeline's head.
    pub fn label(&self) -> String {
        match self.object_id {
            Some(id) => format!("{}\n0x{id:x}", self.class),
            None => self.class.clone(),
        }
    }
}

/// What an arrow means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// Synchronous call.
    Call,
    /// Asynchronous call.
    AsyncCall,
    /// Return from a call.
    Return,
    /// Object creation.
    Create,
    /// Object destruction.
    Destroy,
}

/// One arrow.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    /// Timeline time.
    pub ts_ns: u64,
    /// Sender lifeline (index into [`Diagram::participants`]).
    pub from: usize,
    /// Receiver lifeline.
    pub to: usize,
    /// `Interface.operation` for calls, empty otherwise.
    pub label: String,
    /// Kind of arrow.
    pub kind: MessageKind,
    /// Crosses a process boundary.
    pub cross_process: bool,
    /// Part of a reported deadlock.
    pub deadlock: bool,
}

/// A sequence diagram (`tracekit seqdiag --json`: participants, messages
/// whose `from`/`to` index the participants, and the deadlocks found).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Diagram {
    /// Lifelines, grouped by process in order of first appearance.
    pub participants: Vec<Participant>,
    /// Arrows in time order.
    pub messages: Vec<Message>,
}

/// What to keep.
#[derive(Debug, Clone, Default)]
pub struct DiagramFilter {
    /// Keep only objects whose class matches one of these globs (all when empty).
    pub classes: Vec<String>,
    /// Keep only these processes (all when empty).
    pub pids: Vec<u32>,
    /// Keep messages at or after this time.
    pub from_ns: Option<u64>,
    /// Keep messages at or before this time.
    pub to_ns: Option<u64>,
}

/// Glob with `*` and `?`.
pub fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match (p.first(), t.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], t) || (!t.is_empty() && go(p, &t[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &t[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &t[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

#[derive(Default)]
struct Builder {
    d: Diagram,
    index: HashMap<(u32, Option<u64>, String), usize>,
}

impl Builder {
    fn lifeline(&mut self, pid: u32, object_id: Option<u64>, class: &str) -> usize {
        let key = (pid, object_id, class.to_owned());
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.d.participants.len();
        self.d.participants.push(Participant {
            pid,
            object_id,
            class: class.to_owned(),
        });
        self.index.insert(key, i);
        i
    }

    fn process(&mut self, pid: u32) -> usize {
        self.lifeline(pid, None, &format!("process {pid}"))
    }

    fn send(&mut self, ts_ns: u64, from: usize, to: usize, label: String, kind: MessageKind) {
        let cross = self.d.participants[from].pid != self.d.participants[to].pid;
        self.d.messages.push(Message {
            ts_ns,
            from,
            to,
            label,
            kind,
            cross_process: cross,
            deadlock: false,
        });
    }
}

/// An active operation on a thread: (lifeline, whom it returns to; `None`
/// for asynchronous deliveries, which return to nobody).
type Active = (usize, Option<usize>);

struct Pending {
    proxy: usize,
    pid: u32,
    target: u32,
    operation: String,
    kind: RemoteCallKind,
}

/// Builds the diagram of a session's object and remote-call events.
pub fn build(s: &Session, f: &DiagramFilter) -> Diagram {
    let mut b = Builder::default();
    let mut stacks: HashMap<(u32, Option<ThreadId>), Vec<Active>> = HashMap::new();
    let mut pending: Vec<Pending> = Vec::new();
    for ev in ordered(s) {
        let key = (ev.pid(), ev.thread());
        let caller = |b: &mut Builder, stacks: &HashMap<_, Vec<Active>>| {
            stacks
                .get(&key)
                .and_then(|v: &Vec<Active>| v.last().map(|e| e.0))
                .unwrap_or_else(|| b.process(ev.pid()))
        };
        match ev {
            Ev::Object(o) => {
                let me = b.lifeline(o.pid, Some(o.object_id), &o.class);
                let op = format!(
                    "{}.{}",
                    o.interface.as_deref().unwrap_or(""),
                    o.operation.as_deref().unwrap_or("")
                );
                match o.kind {
                    ObjectEventKind::Created => {
                        let from = caller(&mut b, &stacks);
                        b.send(o.ts_ns, from, me, String::new(), MessageKind::Create);
                    }
                    ObjectEventKind::Destroyed => {
                        let from = caller(&mut b, &stacks);
                        b.send(o.ts_ns, from, me, String::new(), MessageKind::Destroy);
                    }
                    ObjectEventKind::OperationEntered => {
                        let from = caller(&mut b, &stacks);
                        b.send(o.ts_ns, from, me, op, MessageKind::Call);
                        stacks.entry(key).or_default().push((me, Some(from)));
                    }
                    ObjectEventKind::OperationLeft => {
                        let st = stacks.entry(key).or_default();
                        if let Some(pos) = st.iter().rposition(|x| x.0 == me) {
                            let (_, back) = st[pos];
                            st.truncate(pos);
                            // An async proxy returns at once; its return arrow adds nothing.
                            let was_async = pending
                                .iter()
                                .any(|p| p.proxy == me && p.kind == RemoteCallKind::ProxyAsync);
                            if let (Some(to), false) = (back, was_async) {
                                b.send(o.ts_ns, me, to, String::new(), MessageKind::Return);
                            }
                        }
                        pending.retain(|p| !(p.proxy == me && p.target == u32::MAX));
                    }
                }
            }
            Ev::Remote(r) => {
                let me = b.lifeline(r.pid, Some(r.object_id), &r.class);
                let op = format!("{}.{}", r.interface, r.operation);
                match r.kind {
                    RemoteCallKind::ProxySync | RemoteCallKind::ProxyAsync => {
                        let from = caller(&mut b, &stacks);
                        let kind = if r.kind == RemoteCallKind::ProxySync {
                            MessageKind::Call
                        } else {
                            MessageKind::AsyncCall
                        };
                        b.send(r.ts_ns, from, me, op, kind);
                        stacks.entry(key).or_default().push((me, Some(from)));
                        pending.push(Pending {
                            proxy: me,
                            pid: r.pid,
                            target: r.remote_pid,
                            operation: r.operation.clone(),
                            kind: r.kind,
                        });
                    }
                    RemoteCallKind::Stub => {
                        let matches = |p: &Pending| p.target == r.pid && (r.remote_pid == 0 || p.pid == r.remote_pid);
                        let found = pending
                            .iter()
                            .rposition(|p| matches(p) && p.operation == r.operation)
                            .or_else(|| pending.iter().rposition(matches));
                        let (from, kind) = match found {
                            Some(i) => {
                                let p = pending.remove(i);
                                let kind = if p.kind == RemoteCallKind::ProxySync {
                                    MessageKind::Call
                                } else {
                                    MessageKind::AsyncCall
                                };
                                let proxy = p.proxy;
                                // Delivered: kept (with no target) until the proxy returns.
                                pending.push(Pending { target: u32::MAX, ..p });
                                (proxy, kind)
                            }
                            None if r.remote_pid != 0 => (b.process(r.remote_pid), MessageKind::Call),
                            None => (caller(&mut b, &stacks), MessageKind::Call),
                        };
                        b.send(r.ts_ns, from, me, op, kind);
                        let back = (kind == MessageKind::Call).then_some(from);
                        stacks.entry(key).or_default().push((me, back));
                    }
                }
            }
        }
    }
    filter(b.d, f)
}

fn filter(d: Diagram, f: &DiagramFilter) -> Diagram {
    let keep_p: Vec<bool> = d
        .participants
        .iter()
        .map(|p| {
            (f.pids.is_empty() || f.pids.contains(&p.pid))
                && (f.classes.is_empty() || p.object_id.is_none() || f.classes.iter().any(|g| glob(g, &p.class)))
        })
        .collect();
    let in_window = |t: u64| f.from_ns.is_none_or(|a| t >= a) && f.to_ns.is_none_or(|b| t <= b);
    let messages: Vec<&Message> = d
        .messages
        .iter()
        .filter(|m| keep_p[m.from] && keep_p[m.to] && in_window(m.ts_ns))
        .collect();
    let mut used = vec![false; d.participants.len()];
    for m in &messages {
        used[m.from] = true;
        used[m.to] = true;
    }
    // Group lifelines by process, in order of each process's first appearance.
    let mut order: Vec<usize> = (0..d.participants.len()).filter(|&i| used[i]).collect();
    let first_of_pid = |pid: u32| d.participants.iter().position(|p| p.pid == pid).unwrap_or(0);
    order.sort_by_key(|&i| {
        (
            first_of_pid(d.participants[i].pid),
            d.participants[i].object_id.is_some(),
            i,
        )
    });
    let mut remap = vec![usize::MAX; d.participants.len()];
    for (new, &old) in order.iter().enumerate() {
        remap[old] = new;
    }
    Diagram {
        participants: order.iter().map(|&i| d.participants[i].clone()).collect(),
        messages: messages
            .into_iter()
            .map(|m| Message {
                from: remap[m.from],
                to: remap[m.to],
                ..m.clone()
            })
            .collect(),
    }
}
