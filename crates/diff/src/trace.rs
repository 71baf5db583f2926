//! Rows of a session: per method (Traceview's profile) or per call path
//! (dmtracedump's call tree), with calls and inclusive/exclusive time on
//! each clock the session has, and energy when an attribution is given.

use crate::metric::{By, Metric};
use crate::run::RunData;
use tracekit_analysis::{CallTree, Profile, ProfileOptions};
use tracekit_model::{Method, MethodId, Session, ThreadId};

/// Energy charged to what ran, per method and per call-tree node: the hook
/// for per-method energy attribution (issue 12, `tracekit-energy`). When a
/// session's attribution is given, runs gain the `incl-energy` and
/// `excl-energy` metrics; without one they have none.
pub trait EnergyAttribution {
    /// Inclusive and exclusive energy (J) of a method over the session (or
    /// the threads profiled).
    fn method_j(&self, method: MethodId) -> Option<(f64, f64)>;
    /// Inclusive and exclusive energy (J) of node `node` of
    /// `CallTree::of(session, threads, None)`.
    fn node_j(&self, node: usize) -> Option<(f64, f64)>;
}

/// The name a method is matched by across files: `Class.name signature`
/// (class, name and signature, as Traceview lists them); a native function
/// with a module is `name (module file name)`, so equal names in two
/// libraries stay apart while the module's directory may differ.
pub fn method_key(m: &Method) -> String {
    match &m.module {
        Some(module) if m.class.is_empty() => {
            let file = module.rsplit('/').next().unwrap_or(module);
            format!("{} ({file})", m.display_name())
        }
        _ => m.display_name(),
    }
}

/// The metrics a session can give: calls, time on each clock it has, and
/// energy when `energy` is given.
pub fn session_metrics(session: &Session, energy: bool) -> Vec<Metric> {
    let mut m = vec![Metric::Calls];
    if session.clocks.wall {
        m.extend([Metric::InclWall, Metric::ExclWall]);
    }
    if session.clocks.thread_cpu {
        m.extend([Metric::InclCpu, Metric::ExclCpu]);
    }
    if energy {
        m.extend([Metric::InclEnergy, Metric::ExclEnergy]);
    }
    m
}

/// Reduces a session to rows by method ([`By::Method`]) or by call path
/// ([`By::Path`]), over `threads` (all when `None`).
///
/// Panics when `by` is neither.
pub fn from_session(
    label: impl Into<String>,
    session: &Session,
    by: By,
    threads: Option<&[ThreadId]>,
    energy: Option<&dyn EnergyAttribution>,
) -> RunData {
    let metrics = session_metrics(session, energy.is_some());
    let mut run = RunData::new(label, by, metrics.clone());
    let names: Vec<String> = session.methods.iter().map(|(_, m)| method_key(m)).collect();
    let mut values = vec![0.0; metrics.len()];
    // One row's values in `metrics` order.
    let mut fill = |calls: u64, incl: (u64, u64), excl: (u64, u64), joules: Option<(f64, f64)>| {
        for (slot, m) in values.iter_mut().zip(&metrics) {
            *slot = match m {
                Metric::Calls => calls as f64,
                Metric::InclWall => incl.0 as f64,
                Metric::ExclWall => excl.0 as f64,
                Metric::InclCpu => incl.1 as f64,
                Metric::ExclCpu => excl.1 as f64,
                Metric::InclEnergy => joules.map_or(0.0, |j| j.0),
                Metric::ExclEnergy => joules.map_or(0.0, |j| j.1),
                _ => 0.0,
            };
        }
        values.clone()
    };
    match by {
        By::Method => {
            let opts = ProfileOptions {
                threads: threads.map(<[ThreadId]>::to_vec),
                window: None,
            };
            let profile = Profile::of(session, &opts);
            for r in &profile.methods {
                let f = run.frame(&names[r.method.0 as usize]);
                let v = fill(
                    r.calls,
                    (r.incl_real_ns, r.incl_cpu_ns),
                    (r.excl_real_ns, r.excl_cpu_ns),
                    energy.and_then(|e| e.method_j(r.method)),
                );
                run.add(&[f], &v);
            }
        }
        By::Path => {
            let tree = CallTree::of(session, threads, None);
            // Nodes are created parent first, so a node's parent key exists.
            let mut keys: Vec<Vec<u32>> = Vec::with_capacity(tree.nodes.len());
            keys.push(Vec::new());
            for (i, n) in tree.nodes.iter().enumerate().skip(1) {
                let mut key = keys[n.parent.unwrap_or(0)].clone();
                key.push(run.frame(&names[n.method.map_or(0, |m| m.0 as usize)]));
                let v = fill(
                    n.calls,
                    (n.incl_real_ns, n.incl_cpu_ns),
                    (n.excl_real_ns, n.excl_cpu_ns),
                    energy.and_then(|e| e.node_j(i)),
                );
                run.add(&key, &v);
                keys.push(key);
            }
        }
        other => panic!("a session has no rows by {}", other.name()),
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{CallEvent, Clocks, Thread};

    fn session(ids_reversed: bool) -> Session {
        let mut s = Session::new("t", Clocks::DUAL);
        let t = s.add_thread(Thread::new(1, "main"));
        let (run, work) = if ids_reversed {
            let w = s.methods.intern(Method::new("a/App", "work", "(I)V"));
            (s.methods.intern(Method::new("a/App", "run", "()V")), w)
        } else {
            let r = s.methods.intern(Method::new("a/App", "run", "()V"));
            (r, s.methods.intern(Method::new("a/App", "work", "(I)V")))
        };
        for e in [
            CallEvent::enter(run, 0, Some(0)),
            CallEvent::enter(work, 10, Some(5)),
            CallEvent::exit(work, 40, Some(30)),
            CallEvent::enter(work, 50, Some(35)),
            CallEvent::exit(work, 60, Some(40)),
            CallEvent::exit(run, 100, Some(80)),
        ] {
            s.calls_mut(t).push(e);
        }
        s
    }

    fn rows(r: &RunData) -> Vec<(Vec<String>, Vec<f64>)> {
        let mut v: Vec<_> = r
            .rows()
            .map(|(k, v)| {
                (
                    r.key_names(k).iter().map(|s| s.to_string()).collect::<Vec<String>>(),
                    v.to_vec(),
                )
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    #[test]
    fn methods_are_named_not_numbered() {
        let a = from_session("a", &session(false), By::Method, None, None);
        let b = from_session("b", &session(true), By::Method, None, None);
        assert_eq!(
            a.metrics,
            [
                Metric::Calls,
                Metric::InclWall,
                Metric::ExclWall,
                Metric::InclCpu,
                Metric::ExclCpu
            ]
        );
        assert_eq!(rows(&a), rows(&b));
        let r = rows(&a);
        assert_eq!(r[0].0, ["a.App.run ()V"]);
        assert_eq!(r[0].1, [1.0, 100.0, 60.0, 80.0, 50.0]);
        assert_eq!(r[1].1, [2.0, 40.0, 40.0, 30.0, 30.0]);
    }

    #[test]
    fn paths_carry_their_stack() {
        let p = from_session("a", &session(false), By::Path, None, None);
        let r = rows(&p);
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].0, ["a.App.run ()V", "a.App.work (I)V"]);
        assert_eq!(r[1].1[0], 2.0);
    }

    #[test]
    fn native_functions_are_matched_by_name_and_module_file() {
        let mut m = Method::new("", "compress", "");
        m.module = Some("/tmp/run1/libz.so".into());
        assert_eq!(method_key(&m), "compress (libz.so)");
        m.module = Some("/opt/libz.so".into());
        assert_eq!(method_key(&m), "compress (libz.so)");
    }

    struct Flat;
    impl EnergyAttribution for Flat {
        fn method_j(&self, m: MethodId) -> Option<(f64, f64)> {
            Some((m.0 as f64 + 1.0, 0.5))
        }
        fn node_j(&self, _: usize) -> Option<(f64, f64)> {
            None
        }
    }

    #[test]
    fn energy_columns_plug_in() {
        let r = from_session("a", &session(false), By::Method, None, Some(&Flat));
        assert_eq!(r.metrics.last(), Some(&Metric::ExclEnergy));
        let i = r.metric_index(Metric::InclEnergy).unwrap();
        let rows = rows(&r);
        assert_eq!(rows[0].1[i], 1.0);
        assert_eq!(rows[1].1[i], 2.0);
    }
}
