//! `tracekit-seqdiag`: UML sequence diagrams of the objects and processes
//! in a trace, and detection of deadlocks between processes.
//!
//! The diagram is inferred from a session's object events (created,
//! destroyed, operation entered/left) and cross-process events (proxy sync
//! or async, stub), as seed 004's tool inferred it from an object trace.
//! Lifelines are objects grouped by process; a process lifeline stands for
//! callers outside any traced object. It renders as PlantUML, Mermaid or a
//! self-drawn SVG. [`find_deadlocks`] reports cycles of processes each
//! blocked in a synchronous proxy call to the next; [`diagram`] marks their
//! calls in red.
//!
//! ```
//! use tracekit_model::*;
//! let mut s = Session::new("demo", Clocks::WALL);
//! let ev = |ts, kind, op: Option<&str>| ObjectEvent { ts_ns: ts, pid: 1, thread: None, kind,
//!     object_id: 0x10, class: "Alarm".into(), interface: op.map(|_| "IAlarm".into()), operation: op.map(Into::into) };
//! s.objects = vec![ev(1, ObjectEventKind::Created, None), ev(2, ObjectEventKind::OperationEntered, Some("Set")),
//!                  ev(3, ObjectEventKind::OperationLeft, Some("Set"))];
//! let d = tracekit_seqdiag::diagram(&s, &tracekit_seqdiag::DiagramFilter::default());
//! assert!(tracekit_seqdiag::plantuml(&d).contains("p0 -> p1 : IAlarm.Set"));
//! ```

mod deadlock;
mod diagram;
mod events;
mod render;
mod svg;

pub use deadlock::{find_deadlocks, BlockedCall, Deadlock};
pub use diagram::{build, glob, Diagram, DiagramFilter, Message, MessageKind, Participant};
pub use render::{mermaid, plantuml};
pub use svg::svg;

use tracekit_model::Session;

/// The diagram and the deadlocks of a session, as `tracekit seqdiag
/// --json` prints them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SeqdiagReport {
    /// Lifelines and arrows.
    #[serde(flatten)]
    pub diagram: Diagram,
    /// Cycles of processes blocked in synchronous calls to each other.
    pub deadlocks: Vec<Deadlock>,
}

impl SeqdiagReport {
    /// The diagram of `s` under `f`, with its deadlocks.
    pub fn new(s: &Session, f: &DiagramFilter) -> SeqdiagReport {
        SeqdiagReport {
            diagram: diagram(s, f),
            deadlocks: find_deadlocks(s),
        }
    }
}

/// Builds the diagram and marks the calls of every deadlock in it.
pub fn diagram(s: &Session, f: &DiagramFilter) -> Diagram {
    let mut d = build(s, f);
    for dl in find_deadlocks(s) {
        for c in &dl.calls {
            for m in d.messages.iter_mut() {
                let to = &d.participants[m.to];
                if m.kind == MessageKind::Call
                    && m.ts_ns == c.ts_ns
                    && to.pid == c.pid
                    && to.object_id == Some(c.object_id)
                {
                    m.deadlock = true;
                }
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::*;

    /// Two processes: 10's Client calls Server in 20 through a proxy and stub.
    fn session() -> Session {
        let mut s = Session::new("t", Clocks::WALL);
        let obj = |ts, pid, id, class: &str, kind, op: Option<&str>| ObjectEvent {
            ts_ns: ts,
            pid,
            thread: None,
            kind,
            object_id: id,
            class: class.into(),
            interface: op.map(|_| "I".into()),
            operation: op.map(Into::into),
        };
        let rc = |ts, pid, remote, id, class: &str, kind| RemoteCall {
            ts_ns: ts,
            pid,
            remote_pid: remote,
            thread: None,
            kind,
            object_id: id,
            class: class.into(),
            interface: "I".into(),
            operation: "Get".into(),
        };
        use ObjectEventKind::*;
        s.objects = vec![
            obj(1, 10, 1, "Client", Created, None),
            obj(2, 10, 1, "Client", OperationEntered, Some("Run")),
            obj(5, 20, 3, "ServerStub", OperationLeft, Some("Get")),
            obj(6, 10, 2, "ServerProxy", OperationLeft, Some("Get")),
            obj(7, 10, 1, "Client", OperationLeft, Some("Run")),
            obj(8, 10, 1, "Client", Destroyed, None),
        ];
        s.remote_calls = vec![
            rc(3, 10, 20, 2, "ServerProxy", RemoteCallKind::ProxySync),
            rc(4, 20, 10, 3, "ServerStub", RemoteCallKind::Stub),
        ];
        s
    }

    #[test]
    fn infers_callers_across_processes() {
        let d = diagram(&session(), &DiagramFilter::default());
        let names: Vec<String> = d.participants.iter().map(|p| p.class.clone()).collect();
        assert_eq!(names, vec!["process 10", "Client", "ServerProxy", "ServerStub"]);
        let arrows: Vec<(String, String, MessageKind, bool)> = d
            .messages
            .iter()
            .map(|m| {
                (
                    d.participants[m.from].class.clone(),
                    d.participants[m.to].class.clone(),
                    m.kind,
                    m.cross_process,
                )
            })
            .collect();
        use MessageKind::*;
        let a = |f: &str, t: &str, k, c| (f.to_string(), t.to_string(), k, c);
        assert_eq!(
            arrows,
            vec![
                a("process 10", "Client", Create, false),
                a("process 10", "Client", Call, false),
                a("Client", "ServerProxy", Call, false),
                a("ServerProxy", "ServerStub", Call, true),
                a("ServerStub", "ServerProxy", Return, true),
                a("ServerProxy", "Client", Return, false),
                a("Client", "process 10", Return, false),
                a("process 10", "Client", Destroy, false),
            ]
        );
        let p = plantuml(&d);
        assert!(p.starts_with("@startuml\nbox \"process 10\""), "{p}");
        assert!(p.contains("p2 -> p3 : I.Get"), "{p}");
        let m = mermaid(&d);
        assert!(m.contains("p2->>+p3: I.Get"), "{m}");
        let svg = svg(&d);
        assert!(svg.contains(">process 20</text>") && svg.ends_with("</svg>\n"));
    }

    #[test]
    fn filters_by_class_pid_and_time() {
        let s = session();
        let only_client = diagram(
            &s,
            &DiagramFilter {
                classes: vec!["Cli*".into()],
                ..Default::default()
            },
        );
        assert!(only_client
            .participants
            .iter()
            .all(|p| p.class == "Client" || p.object_id.is_none()));
        let pid20 = diagram(
            &s,
            &DiagramFilter {
                pids: vec![20],
                ..Default::default()
            },
        );
        assert!(pid20.messages.is_empty());
        let window = diagram(
            &s,
            &DiagramFilter {
                from_ns: Some(3),
                to_ns: Some(4),
                ..Default::default()
            },
        );
        assert_eq!(window.messages.len(), 2);
    }

    #[test]
    fn deadlock_calls_are_marked() {
        let mut s = Session::new("d", Clocks::WALL);
        let rc = |ts, pid, remote, id| RemoteCall {
            ts_ns: ts,
            pid,
            remote_pid: remote,
            thread: None,
            kind: RemoteCallKind::ProxySync,
            object_id: id,
            class: "P".into(),
            interface: "I".into(),
            operation: "op".into(),
        };
        s.remote_calls = vec![rc(1, 1, 2, 7), rc(2, 2, 1, 8)];
        let d = diagram(&s, &DiagramFilter::default());
        assert_eq!(d.messages.iter().filter(|m| m.deadlock).count(), 2);
        assert!(plantuml(&d).contains("-[#red]>"));
        assert!(svg(&d).contains("deadlock"));
    }
}
