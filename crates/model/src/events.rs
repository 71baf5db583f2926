//! Instant markers, object lifetimes and calls that cross processes.

use crate::session::ThreadId;
use serde::{Deserialize, Serialize};

/// An instant event on a thread, such as a big-red-button press.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Time in ns on the session's timeline clock (wall time since the anchor).
    pub ts_ns: u64,
    /// Thread that emitted the marker.
    pub thread: ThreadId,
    /// Marker name (for example `brb`).
    pub name: String,
}

/// What happened to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectEventKind {
    /// The instance was created.
    Created,
    /// The instance was destroyed.
    Destroyed,
    /// An operation's body was entered on the instance.
    OperationEntered,
    /// An operation's body was left.
    OperationLeft,
}

/// An event in the life of one object (seed 004's `C`, `D`, `E`, `L`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectEvent {
    /// Time in ns on the session's timeline clock (wall time since the anchor).
    pub ts_ns: u64,
    /// Process that owns the object.
    pub pid: u32,
    /// Thread that produced the event, when known.
    pub thread: Option<ThreadId>,
    /// Created, destroyed, operation entered or left.
    pub kind: ObjectEventKind,
    /// Object id, unique among live objects of the process (an address, say).
    pub object_id: u64,
    /// Class of the object.
    pub class: String,
    /// Interface of the operation (operation events only).
    pub interface: Option<String>,
    /// Operation name (operation events only).
    pub operation: Option<String>,
}

/// Which side of a cross-process call an event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RemoteCallKind {
    /// Client-side proxy of a synchronous operation entered (the caller blocks).
    ProxySync,
    /// Client-side proxy of an asynchronous operation entered.
    ProxyAsync,
    /// Server-side stub entered in the receiving process.
    Stub,
}

/// One side of a call between processes (seed 004's `P`, `A`, `S`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteCall {
    /// Time in ns on the session's timeline clock (wall time since the anchor).
    pub ts_ns: u64,
    /// Process where the event was recorded.
    pub pid: u32,
    /// The other process: the receiver for proxies, the sender for stubs when known.
    pub remote_pid: u32,
    /// Thread that produced the event, when known.
    pub thread: Option<ThreadId>,
    /// Proxy (sync or async) or stub.
    pub kind: RemoteCallKind,
    /// Id of the proxy or stub object.
    pub object_id: u64,
    /// Class of the proxy or stub object.
    pub class: String,
    /// Interface of the operation.
    pub interface: String,
    /// Operation name.
    pub operation: String,
}
