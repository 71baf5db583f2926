//! The Firefox Profiler's processed profile format, written as version 55 of
//! its layout (per-thread string, stack, frame and function tables), which
//! the profiler upgrades to its current version when it loads the file.
//!
//! The profiler is a sampling profiler's UI; an instrumented trace becomes
//! *synthetic samples*, the representation the profiler's own type
//! documentation gives for tracing data (`WeightType`): at every instant
//! where a thread's stack changes there is one sample carrying the stack
//! after all changes at that instant, weighted (`weightType: "tracing-ms"`)
//! by the time until the next change. A sample's weight is the exclusive
//! time of its stack for that stretch, so the call tree's running and self
//! times, the flame graph and the stack chart (which draws each sample until
//! the next one) are the trace's own times. Times are written as exact
//! decimal milliseconds from ns; only the viewer's float sums round.

use crate::walk::{walk, StackTrie, Step};
use crate::{frame_names, json, thread_title, Error};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use tracekit_model::{CallColumns, MethodId, Session, ThreadId};

/// The processed-profile layout version written.
pub const FIREFOX_PROCESSED_VERSION: u32 = 55;

/// Writes `session` as a Firefox Profiler processed profile.
///
/// - One profiler thread per session thread that has calls or markers,
///   grouped into processes by pid (`pid` 0 when unknown); the first such
///   thread of each process is its main thread.
/// - Samples as described in the module documentation, on the timeline
///   clock; with the thread-CPU clock, `threadCPUDelta` (unit `ns`) gives
///   the CPU time each stretch used, which the profiler draws as the
///   thread's CPU activity graph.
/// - Functions are methods (named by [`crate::frame_names`], with file name
///   and line when known), one frame per function.
/// - The session's markers become instant markers on their thread.
/// - `meta.startTime` is the session's wall-clock anchor (0 when unknown);
///   sample and marker times are ms from it.
///
/// A session where no thread has calls or markers is [`Error::NoCalls`].
pub fn write_firefox(session: &Session, out: &mut impl Write) -> Result<(), Error> {
    let mut markers_of: Vec<Vec<usize>> = vec![Vec::new(); session.threads.len()];
    for (i, m) in session.markers.iter().enumerate() {
        if let Some(v) = markers_of.get_mut(m.thread.0 as usize) {
            v.push(i);
        }
    }
    let threads: Vec<usize> = (0..session.threads.len())
        .filter(|&t| !session.calls(ThreadId(t as u32)).is_empty() || !markers_of[t].is_empty())
        .collect();
    if threads.is_empty() {
        return Err(Error::NoCalls);
    }
    let names = frame_names(&session.methods);
    let mut w = BufWriter::with_capacity(1 << 16, out);
    write_meta(&mut w, session, threads.len())?;
    w.write_all(b",\"libs\":[],\"pages\":[],\"profilerOverhead\":[],\"counters\":[],\"threads\":[")?;
    let mut main_of_pid: Vec<u32> = Vec::new();
    for (k, &t) in threads.iter().enumerate() {
        if k > 0 {
            w.write_all(b",")?;
        }
        let pid = session.threads[t].pid.unwrap_or(0);
        let is_main = !main_of_pid.contains(&pid);
        if is_main {
            main_of_pid.push(pid);
        }
        let marker_list: Vec<&tracekit_model::Marker> = markers_of[t].iter().map(|&i| &session.markers[i]).collect();
        write_thread(&mut w, session, t, is_main, &names, &marker_list)?;
    }
    w.write_all(b"]}\n")?;
    w.flush()?;
    Ok(())
}

fn write_meta(w: &mut impl Write, session: &Session, n_threads: usize) -> std::io::Result<()> {
    w.write_all(b"{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":")?;
    json::uint(w, FIREFOX_PROCESSED_VERSION as u64)?;
    w.write_all(b",\"interval\":0.001,\"startTime\":")?;
    json::ms(w, session.anchor_unix_ns.unwrap_or(0).max(0) as u64)?;
    w.write_all(b",\"processType\":0,\"product\":")?;
    json::string(w, &session.name)?;
    w.write_all(
        b",\"debug\":false,\"stackwalk\":0,\"symbolicated\":true,\"pausedRanges\":[],\
\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]}],\
\"markerSchema\":[],\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":\"ns\"},\
\"extensions\":{\"length\":0,\"baseURL\":[],\"id\":[],\"name\":[]},\
\"usesOnlyOneStackType\":true,\"sourceCodeIsNotOnSearchfox\":true,\"initialVisibleThreads\":[",
    )?;
    for k in 0..n_threads {
        if k > 0 {
            w.write_all(b",")?;
        }
        json::uint(w, k as u64)?;
    }
    w.write_all(b"],\"initialSelectedThreads\":[0]}")
}

/// A thread's string table: each distinct string once.
#[derive(Default)]
struct Strings {
    list: Vec<String>,
    index: HashMap<String, u32>,
}

impl Strings {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_owned());
        self.index.insert(s.to_owned(), i);
        i
    }
}

/// Walks a thread and marks the sample instants: `on(Some(step), ts, cpu)`
/// for every step, then `on(None, ts, cpu)` once all steps at `ts` are done
/// (one sample per distinct time, carrying the stack and CPU time after
/// them).
fn instants(calls: &CallColumns, n_methods: usize, mut on: impl FnMut(Option<Step>, u64, u64)) {
    let mut pending: Option<(u64, u64)> = None;
    walk(calls, n_methods, |s| {
        if let Some((t, c)) = pending {
            if s.ts != t {
                on(None, t, c);
            }
        }
        pending = Some((s.ts, s.cpu));
        on(Some(s), s.ts, s.cpu);
    });
    if let Some((t, c)) = pending {
        on(None, t, c);
    }
}

fn write_thread(
    w: &mut impl Write,
    session: &Session,
    t: usize,
    is_main: bool,
    names: &[String],
    markers: &[&tracekit_model::Marker],
) -> std::io::Result<()> {
    let calls = session.calls(ThreadId(t as u32));
    let n_methods = session.methods.len();
    // Pass 1: the distinct stacks, the functions used, each sample's stack.
    let mut trie = StackTrie::default();
    let mut func_of: Vec<u32> = vec![u32::MAX; n_methods];
    let mut funcs: Vec<MethodId> = Vec::new();
    let mut sample_stack: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    instants(calls, n_methods, |step, _, _| match step {
        Some(s) if s.open => {
            stack.push(trie.child(stack.last().copied(), s.method));
            let m = s.method.0 as usize;
            if m >= func_of.len() {
                func_of.resize(m + 1, u32::MAX);
            }
            if func_of[m] == u32::MAX {
                func_of[m] = funcs.len() as u32;
                funcs.push(s.method);
            }
        }
        Some(_) => {
            stack.pop();
        }
        None => sample_stack.push(stack.last().copied().unwrap_or(u32::MAX)),
    });
    let mut strings = Strings::default();
    let func_name: Vec<u32> = funcs.iter().map(|m| strings.intern(&names[m.0 as usize])).collect();
    let func_file: Vec<Option<u32>> = funcs
        .iter()
        .map(|m| {
            session
                .methods
                .get(*m)
                .source_file
                .as_deref()
                .map(|f| strings.intern(f))
        })
        .collect();
    let marker_name: Vec<u32> = markers.iter().map(|m| strings.intern(&m.name)).collect();
    let title = thread_title(session, t);
    let thread = &session.threads[t];
    let process_name = thread
        .pid
        .and_then(|pid| session.processes.iter().find(|p| p.pid == pid))
        .map_or(session.name.as_str(), |p| p.name.as_str());

    w.write_all(b"{\"name\":")?;
    json::string(w, &title)?;
    w.write_all(b",\"processName\":")?;
    json::string(w, process_name)?;
    write!(
        w,
        ",\"pid\":\"{}\",\"tid\":\"{}\",\"isMainThread\":{is_main},\"processType\":\"default\",\
\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,\
\"pausedRanges\":[],\"showMarkersInTimeline\":true,\
\"resourceTable\":{{\"length\":0,\"lib\":[],\"name\":[],\"host\":[],\"type\":[]}},\
\"nativeSymbols\":{{\"length\":0,\"address\":[],\"functionSize\":[],\"libIndex\":[],\"name\":[]}}",
        thread.pid.unwrap_or(0),
        thread.tid
    )?;

    // Functions and frames (frame i is function i).
    let n = funcs.len();
    write!(w, ",\"funcTable\":{{\"length\":{n},\"name\":")?;
    list(w, &func_name, |w, &s| json::uint(w, s as u64))?;
    w.write_all(b",\"isJS\":")?;
    repeat(w, "false", n)?;
    w.write_all(b",\"relevantForJS\":")?;
    repeat(w, "false", n)?;
    w.write_all(b",\"resource\":")?;
    repeat(w, "-1", n)?;
    w.write_all(b",\"fileName\":")?;
    list(w, &func_file, |w, f| optional(w, f.map(u64::from)))?;
    w.write_all(b",\"lineNumber\":")?;
    list(w, &funcs, |w, m| {
        optional(w, session.methods.get(*m).line.map(u64::from))
    })?;
    w.write_all(b",\"columnNumber\":")?;
    repeat(w, "null", n)?;
    write!(w, "}},\"frameTable\":{{\"length\":{n},\"address\":")?;
    repeat(w, "-1", n)?;
    w.write_all(b",\"inlineDepth\":")?;
    repeat(w, "0", n)?;
    w.write_all(b",\"category\":")?;
    repeat(w, "0", n)?;
    w.write_all(b",\"subcategory\":")?;
    repeat(w, "0", n)?;
    w.write_all(b",\"func\":")?;
    list(w, &(0..n as u32).collect::<Vec<_>>(), |w, &i| json::uint(w, i as u64))?;
    w.write_all(b",\"nativeSymbol\":")?;
    repeat(w, "null", n)?;
    w.write_all(b",\"innerWindowID\":")?;
    repeat(w, "0", n)?;
    w.write_all(b",\"line\":")?;
    repeat(w, "null", n)?;
    w.write_all(b",\"column\":")?;
    repeat(w, "null", n)?;

    // Stacks: node i of the trie, its parent and its method's frame.
    write!(w, "}},\"stackTable\":{{\"length\":{},\"prefix\":", trie.len())?;
    list(w, &trie.parent, |w, p| optional(w, p.map(u64::from)))?;
    w.write_all(b",\"frame\":")?;
    list(w, &trie.method, |w, m| json::uint(w, func_of[m.0 as usize] as u64))?;

    // Samples: stacks from pass 1; times, weights and CPU deltas by walking again.
    write!(
        w,
        "}},\"samples\":{{\"length\":{},\"weightType\":\"tracing-ms\",\"stack\":",
        sample_stack.len()
    )?;
    list(w, &sample_stack, |w, &s| {
        optional(w, (s != u32::MAX).then_some(s as u64))
    })?;
    w.write_all(b",\"timeDeltas\":[")?;
    let mut prev: Option<u64> = None;
    each_instant(calls, n_methods, |ts, _| {
        sep(w, prev.is_none())?;
        json::ms(w, ts - prev.unwrap_or(0))?;
        prev = Some(ts);
        Ok(())
    })?;
    // Sample i weighs the time to sample i + 1; the last one, after which
    // nothing runs, weighs 0.
    w.write_all(b"],\"weight\":[")?;
    let mut prev: Option<u64> = None;
    each_instant(calls, n_methods, |ts, _| {
        if let Some(p) = prev {
            json::ms(w, ts - p)?;
            w.write_all(b",")?;
        }
        prev = Some(ts);
        Ok(())
    })?;
    if prev.is_some() {
        w.write_all(b"0")?;
    }
    w.write_all(b"]")?;
    if calls.has_cpu() {
        w.write_all(b",\"threadCPUDelta\":[")?;
        let mut prev: Option<u64> = None;
        each_instant(calls, n_methods, |_, cpu| {
            sep(w, prev.is_none())?;
            json::uint(w, cpu - prev.unwrap_or(cpu))?;
            prev = Some(cpu);
            Ok(())
        })?;
        w.write_all(b"]")?;
    }

    // Markers: instants on this thread.
    write!(w, "}},\"markers\":{{\"length\":{},\"category\":", markers.len())?;
    repeat(w, "0", markers.len())?;
    w.write_all(b",\"data\":")?;
    repeat(w, "null", markers.len())?;
    w.write_all(b",\"name\":")?;
    list(w, &marker_name, |w, &s| json::uint(w, s as u64))?;
    w.write_all(b",\"phase\":")?;
    repeat(w, "0", markers.len())?;
    w.write_all(b",\"startTime\":")?;
    list(w, markers, |w, m| json::ms(w, m.ts_ns))?;
    w.write_all(b",\"endTime\":")?;
    repeat(w, "null", markers.len())?;
    w.write_all(b"},\"stringArray\":")?;
    list(w, &strings.list, |w, s| json::string(w, s))?;
    w.write_all(b"}")
}

/// Calls `f(ts, cpu)` for every sample instant, stopping at the first error.
fn each_instant(
    calls: &CallColumns,
    n_methods: usize,
    mut f: impl FnMut(u64, u64) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut res = Ok(());
    instants(calls, n_methods, |step, ts, cpu| {
        if step.is_none() && res.is_ok() {
            res = f(ts, cpu);
        }
    });
    res
}

#[inline]
fn sep(w: &mut impl Write, first: bool) -> std::io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b",")
    }
}

fn optional(w: &mut impl Write, v: Option<u64>) -> std::io::Result<()> {
    match v {
        Some(v) => json::uint(w, v),
        None => w.write_all(b"null"),
    }
}

fn list<W: Write, T>(
    w: &mut W,
    items: &[T],
    mut item: impl FnMut(&mut W, &T) -> std::io::Result<()>,
) -> std::io::Result<()> {
    w.write_all(b"[")?;
    for (i, x) in items.iter().enumerate() {
        sep(w, i == 0)?;
        item(w, x)?;
    }
    w.write_all(b"]")
}

fn repeat(w: &mut impl Write, value: &str, n: usize) -> std::io::Result<()> {
    w.write_all(b"[")?;
    for i in 0..n {
        sep(w, i == 0)?;
        w.write_all(value.as_bytes())?;
    }
    w.write_all(b"]")
}
