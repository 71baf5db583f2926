//! Draws tracekit's call graph — dmtracedump's graph of who calls whom,
//! extended as seed 000 §5.7 proposes with the part that ran while context
//! conditions held — as Graphviz DOT (for those who have Graphviz) or as a
//! self-contained SVG that tracekit lays out itself ([`layout`], a layered
//! layout: no Graphviz needed).
//!
//! The numbers come from [`tracekit_analysis::CallGraph`]; this crate only
//! draws them. Nodes are methods with their inclusive time, its share of
//! the total and their calls; edges go from caller to callee with their call
//! counts. With a condition, each node's and edge's share while it held is
//! written under it and drawn in red: a bar filling that share of the node,
//! and a red line along the edge as thick as that share of it. A pruned
//! graph says what it left out.
//!
//! ```
//! use tracekit_model::*;
//! use tracekit_analysis::CallGraph;
//! let mut s = Session::new("demo", Clocks::WALL);
//! let t = s.add_thread(Thread::new(1, "main"));
//! let run = s.methods.intern(Method::new("App", "run", "()V"));
//! let work = s.methods.intern(Method::new("App", "work", "()V"));
//! for e in [CallEvent::enter(run, 0, None), CallEvent::enter(work, 10, None),
//!           CallEvent::exit(work, 40, None), CallEvent::exit(run, 50, None)] {
//!     s.calls_mut(t).push(e);
//! }
//! let g = CallGraph::of(&s, None, None);
//! let caption = tracekit_callgraph::Caption { name: "demo".into(), condition: None };
//! let svg = tracekit_callgraph::render_svg(&g, &s, &caption);
//! assert!(svg.starts_with("<svg") && svg.contains("App.work"));
//! assert!(tracekit_callgraph::render_dot(&g, &s, &caption).contains("n0 -> n1"));
//! ```

mod dot;
pub mod layout;
mod svg;
mod text;

pub use dot::render_dot;
pub use svg::render_svg;

/// What the drawing says about itself besides the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caption {
    /// The session's name.
    pub name: String,
    /// The condition whose share is highlighted, as the user wrote it.
    pub condition: Option<String>,
}
