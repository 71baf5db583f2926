//! The trace model: what a recorded session *is*, independent of the file it
//! came from.
//!
//! Importers (`tracekit-dmtrace`, `tracekit-clog`, the native recorder, …)
//! fill a [`Session`]; analyses read it. The model knows nothing about file
//! formats and nothing about analysis, so both sides can grow without
//! touching each other.
//!
//! A session holds:
//! - processes and threads ([`Process`], [`Thread`]),
//! - a method/function table ([`MethodTable`]),
//! - per-thread call events stored column-wise ([`CallColumns`]) so ten
//!   million calls fit in about 20 bytes each,
//! - instant markers, object lifetimes and cross-process calls ([`Marker`],
//!   [`ObjectEvent`], [`RemoteCall`]),
//! - typed context tracks ([`ContextTrack`]) and numeric counter tracks
//!   ([`CounterTrack`], per process or per CPU),
//! - beside sessions, a device's power profile ([`power_profile::PowerProfile`],
//!   Android's `power_profile.xml`), which power models read,
//! - system activity: which thread each CPU ran ([`SchedSlice`]), spans
//!   that are not calls on a stack ([`AsyncSlice`]), and the clock a source
//!   used ([`SourceClock`]),
//! - the clock domains it has ([`Clocks`]) and the wall-clock anchor
//!   ([`Session::anchor_unix_ns`]) that lets two files line up.
//!
//! All timestamps are nanoseconds. Every event has a `ts_ns` on the session's
//! *timeline clock*: wall time counted from the session anchor when the
//! session has a wall clock, otherwise thread-CPU time. Call events also carry
//! `cpu_ns`, the thread's CPU time counted from its first reading, whenever
//! the session has the thread-CPU clock.
//!
//! ```
//! use tracekit_model::*;
//! let mut s = Session::new("demo", Clocks::DUAL);
//! let main = s.add_thread(Thread::new(1, "main"));
//! let m = s.methods.intern(Method::new("com/example/App", "run", "()V"));
//! s.calls_mut(main).push(CallEvent::enter(m, 0, Some(0)));
//! s.calls_mut(main).push(CallEvent::exit(m, 1_000, Some(800)));
//! assert_eq!(s.calls(main).len(), 2);
//! assert_eq!(s.calls(main).get(1).ts_ns, 1_000);
//! ```

mod calls;
mod context;
mod events;
mod method;
pub mod power;
pub mod power_profile;
mod session;
mod system;
mod time;

pub use calls::{CallColumns, CallEvent, CallKind};
pub use context::{ContextSamples, ContextTrack, ContextType, ContextValue, CounterKind, CounterTrack};
pub use events::{Marker, ObjectEvent, ObjectEventKind, RemoteCall, RemoteCallKind};
pub use method::{Method, MethodId, MethodTable};
pub use session::{Process, Repair, Session, Thread, ThreadId};
pub use system::{AsyncSlice, EndState, SchedSlice, SourceClock};
pub use time::{ClockDomain, Clocks, NS_PER_US};
