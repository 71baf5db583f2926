//! Loads a recording directory into a [`Session`]: decodes every thread
//! file, converts ticks to the timeline clock, symbolizes addresses, repairs
//! stacks left by `longjmp`, and attaches object, proxy, marker and context
//! events.

use crate::meta::{RecordingMeta, TickConverter, CONTEXT_FILE};
use crate::symbolize::{parse_maps, Mapping, Symbolizer};
use crate::thread_file::{read_thread_file, thread_stats, RawEvent, ThreadStats, ThreadTrace};
use anyhow::Context as _;
use std::collections::HashMap;
use std::path::Path;
use tracekit_model::*;
use tracekit_rt_format::names::{self, RecordingFile};
use tracekit_rt_format::{ExtEvent, ExtKind, CLOCK_MONOTONIC_NS, CLOCK_ORDER};

/// Per-thread event and lost-event counts of the recording in `dir`, read
/// without building a session (cheap even for hundreds of millions of events).
pub fn recording_stats(dir: &Path) -> anyhow::Result<Vec<ThreadStats>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))? {
        let path = e?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(RecordingFile::Thread { .. }) = names::parse(name) {
            out.push(thread_stats(&path)?);
        }
    }
    out.sort_by_key(|t| (t.header.pid, t.header.tid));
    Ok(out)
}

/// Loads the recording in `dir`.
///
/// A directory written by the runtime alone (no `tracekit record`: the
/// program linked the runtime or ran with `TRACEKIT_DIR` set) has no
/// `recording.json`; the anchor then comes from the earliest thread file and
/// ticks are converted with the clock pairs the runtime saved at exit.
pub fn load_recording(dir: &Path) -> anyhow::Result<Session> {
    let meta = if dir.join(crate::meta::META_FILE).exists() {
        Some(RecordingMeta::read(dir)?)
    } else {
        None
    };
    let mut stats: Vec<(ThreadStats, std::path::PathBuf)> = Vec::new();
    let mut extra_pairs: Vec<(u64, u64)> = Vec::new();
    let mut maps: HashMap<(u32, u64), Vec<Mapping>> = HashMap::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in &entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let kind = names::parse(name);
        if let Some(RecordingFile::Thread { .. }) = kind {
            stats.push((thread_stats(path)?, path.clone()));
        } else if let Some(RecordingFile::Clock { .. }) = kind {
            let text = tracekit_safeio::read_text(path)?;
            for (i, line) in text.lines().enumerate() {
                let mut f = line.split_whitespace().map(str::parse::<u64>);
                match (f.next(), f.next()) {
                    (Some(Ok(t)), Some(Ok(m))) => extra_pairs.push((t, m)),
                    _ => anyhow::bail!("{}: line {}: expected `<clock> <monotonic ns>`", path.display(), i + 1),
                }
            }
        } else if let Some(RecordingFile::Maps { pid, image }) = kind {
            let key = (pid, image);
            let text = tracekit_safeio::read_text(path)?;
            let (m, bad) = parse_maps(&text);
            if let Some((line, _)) = bad.first() {
                anyhow::bail!("{}: line {line}: not a /proc/<pid>/maps line", path.display());
            }
            maps.insert(key, m);
        }
    }
    // Threads in order of their first event, processes in order of appearance.
    stats.sort_by_key(|(t, _)| (t.first_clock.unwrap_or(u64::MAX), t.header.pid, t.header.tid));
    let meta = match meta {
        Some(m) => m,
        None => {
            let first = stats.iter().map(|(t, _)| &t.header).min_by_key(|h| h.created.1);
            let first = first.ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: no recording.json and no thread files: not a recording",
                    dir.display()
                )
            })?;
            RecordingMeta {
                version: 1,
                command: vec![],
                anchor_unix_ns: first.created_unix_ns as i64,
                anchor_mono_ns: first.created.1,
                clock_pairs: vec![],
                exit_code: None,
                signal: None,
                filter: None,
            }
        }
    };
    let mut pairs = meta.clock_pairs.clone();
    pairs.extend(extra_pairs);
    pairs.extend(stats.iter().map(|(t, _)| t.header.created));
    let tsc = TickConverter::from_pairs(&pairs).unwrap_or(TickConverter::IDENTITY);

    let name = meta
        .command
        .first()
        .map(|c| c.rsplit('/').next().unwrap_or(c).to_owned())
        .unwrap_or_default();
    let mut b = Builder {
        s: Session::new(name, Clocks::WALL),
        sym: Symbolizer::new(),
        methods: HashMap::new(),
        anchor_mono: meta.anchor_mono_ns,
    };
    b.s.anchor_unix_ns = Some(meta.anchor_unix_ns);
    b.s.properties.push(("command".into(), meta.command.join(" ")));
    if let Some(c) = meta.exit_code {
        b.s.properties.push(("exit-code".into(), c.to_string()));
    }
    if let Some(sig) = meta.signal {
        b.s.properties.push(("signal".into(), sig.to_string()));
    }
    let empty = Vec::new();
    // One thread file in memory at a time.
    for (_, path) in &stats {
        let t = &read_thread_file(path)?;
        let conv = if t.header.clock == CLOCK_MONOTONIC_NS {
            TickConverter::IDENTITY
        } else {
            tsc
        };
        if t.header.clock == CLOCK_ORDER {
            b.s.properties
                .push(("clock".into(), "order (timestamps are event numbers)".into()));
        }
        let m = maps.get(&(t.header.pid, t.header.image)).unwrap_or(&empty);
        b.add_thread(t, m, conv);
    }
    let ctx = dir.join(CONTEXT_FILE);
    if ctx.exists() {
        crate::context_file::load_samples(&ctx, meta.anchor_mono_ns, &mut b.s)?;
    }
    let mut s = b.s;
    s.markers.sort_by_key(|m| m.ts_ns);
    s.objects.sort_by_key(|o| o.ts_ns);
    s.remote_calls.sort_by_key(|r| r.ts_ns);
    s.duration_ns = s.time_span().map(|(_, hi)| hi);
    Ok(s)
}

struct Builder {
    s: Session,
    sym: Symbolizer,
    methods: HashMap<(u32, u64, u64), MethodId>,
    anchor_mono: u64,
}

impl Builder {
    fn method_at(&mut self, pid: u32, image: u64, maps: &[Mapping], addr: u64) -> MethodId {
        if let Some(&m) = self.methods.get(&(pid, image, addr)) {
            return m;
        }
        let info = self.sym.lookup(maps, addr);
        let mut m = Method::new("", info.name, "");
        m.module = info.module;
        m.address = info.module_address.or(Some(addr));
        m.source_file = info.file;
        m.line = info.line;
        let id = self.s.methods.intern(m);
        self.methods.insert((pid, image, addr), id);
        id
    }

    fn add_thread(&mut self, t: &ThreadTrace, maps: &[Mapping], conv: TickConverter) {
        let h = &t.header;
        if !self.s.processes.iter().any(|p| p.pid == h.pid) {
            let exe = maps
                .first()
                .map(|m| m.path.rsplit('/').next().unwrap_or(&m.path).to_owned());
            self.s.processes.push(Process {
                pid: h.pid,
                name: exe.unwrap_or_else(|| h.name.clone()),
            });
        }
        let tid = self.s.add_thread(Thread {
            tid: h.tid,
            pid: Some(h.pid),
            name: h.name.clone(),
        });
        self.s.lost_events += h.lost;
        if h.lost > 0 {
            self.s.note_repair(
                "buffer-full",
                h.lost,
                "events dropped because a thread's buffer was full (counted exactly)",
            );
        }
        let anchor = if h.clock == CLOCK_ORDER { 0 } else { self.anchor_mono };
        let conv = if h.clock == CLOCK_ORDER {
            TickConverter::IDENTITY
        } else {
            conv
        };
        let ts = |raw: u64| conv.to_mono(raw).saturating_sub(anchor);
        // Function events first resolved to method ids; `None` marks a longjmp.
        let mut calls: Vec<(u64, Option<(CallKind, MethodId)>)> = Vec::with_capacity(t.events.len());
        for (raw, ev) in &t.events {
            let at = ts(*raw);
            match ev {
                RawEvent::Enter(a) => {
                    calls.push((at, Some((CallKind::Enter, self.method_at(h.pid, h.image, maps, *a)))))
                }
                RawEvent::Exit(a) => calls.push((at, Some((CallKind::Exit, self.method_at(h.pid, h.image, maps, *a))))),
                RawEvent::Ext(x) => match x.sub {
                    ExtKind::NamedEnter | ExtKind::NamedExit => {
                        let name = x.strings.first().cloned().unwrap_or_default();
                        let m = self.s.methods.intern(Method::new("", name, ""));
                        let kind = if x.sub == ExtKind::NamedEnter {
                            CallKind::Enter
                        } else {
                            CallKind::Exit
                        };
                        calls.push((at, Some((kind, m))));
                    }
                    ExtKind::Longjmp => calls.push((at, None)),
                    _ => self.add_ext(at, h.pid, tid, x),
                },
            }
        }
        let (mut cols, repairs) = balance(&calls);
        drop(calls);
        cols.shrink_to_fit();
        for (code, n, detail) in repairs {
            self.s.note_repair(code, n, detail);
        }
        self.s.set_calls(tid, cols);
    }

    fn add_ext(&mut self, ts_ns: u64, pid: u32, thread: ThreadId, x: &ExtEvent) {
        let st = |i: usize| x.strings.get(i).cloned().unwrap_or_default();
        let obj = |kind| ObjectEvent {
            ts_ns,
            pid,
            thread: Some(thread),
            kind,
            object_id: x.object_id,
            class: st(0),
            interface: x.strings.get(1).cloned(),
            operation: x.strings.get(2).cloned(),
        };
        let remote = |kind| RemoteCall {
            ts_ns,
            pid,
            remote_pid: x.remote_pid,
            thread: Some(thread),
            kind,
            object_id: x.object_id,
            class: st(0),
            interface: st(1),
            operation: st(2),
        };
        match x.sub {
            ExtKind::ObjectCreated => self.s.objects.push(obj(ObjectEventKind::Created)),
            ExtKind::ObjectDestroyed => self.s.objects.push(obj(ObjectEventKind::Destroyed)),
            ExtKind::OperationEntered => self.s.objects.push(obj(ObjectEventKind::OperationEntered)),
            ExtKind::OperationLeft => self.s.objects.push(obj(ObjectEventKind::OperationLeft)),
            ExtKind::ProxySync => self.s.remote_calls.push(remote(RemoteCallKind::ProxySync)),
            ExtKind::ProxyAsync => self.s.remote_calls.push(remote(RemoteCallKind::ProxyAsync)),
            ExtKind::Stub => self.s.remote_calls.push(remote(RemoteCallKind::Stub)),
            ExtKind::Marker => self.s.markers.push(Marker {
                ts_ns,
                thread,
                name: st(0),
            }),
            ExtKind::ContextInt => push_context(&mut self.s, &st(0), ts_ns, ContextValue::Long(x.value as i64)),
            ExtKind::ContextDouble => push_context(
                &mut self.s,
                &st(0),
                ts_ns,
                ContextValue::Double(f64::from_bits(x.value)),
            ),
            ExtKind::ContextText => push_context(&mut self.s, &st(0), ts_ns, ContextValue::Str(st(1))),
            ExtKind::NamedEnter | ExtKind::NamedExit | ExtKind::Longjmp => {}
        }
    }
}

fn push_context(s: &mut Session, label: &str, ts_ns: u64, v: ContextValue) {
    let i = match s.context.iter().position(|t| t.label == label && t.kind() == v.kind()) {
        Some(i) => i,
        None => {
            s.context.push(ContextTrack::new(label, v.kind()));
            s.context.len() - 1
        }
    };
    s.context[i].push(ts_ns as i64, v);
}

type RepairNote = (&'static str, u64, &'static str);

/// Turns one thread's function events into balanced call columns. An exit
/// below the top of the stack closes the frames above it; an exit of a
/// function not on the stack is dropped; a `longjmp` (`None`) closes the
/// frames it abandoned, found from the first later exit that matches no
/// later entry.
pub fn balance(events: &[(u64, Option<(CallKind, MethodId)>)]) -> (CallColumns, Vec<RepairNote>) {
    let mut cols = CallColumns::with_capacity(events.len(), false);
    let mut stack: Vec<MethodId> = Vec::new();
    let (mut unbalanced, mut orphan, mut jumps) = (0u64, 0u64, 0u64);
    for (i, &(ts, ev)) in events.iter().enumerate() {
        match ev {
            Some((CallKind::Enter, m)) => {
                stack.push(m);
                cols.push(CallEvent::enter(m, ts, None));
            }
            Some((_, m)) => match stack.iter().rposition(|&s| s == m) {
                Some(pos) => {
                    while stack.len() > pos + 1 {
                        let top = stack.pop().unwrap_or(m);
                        cols.push(CallEvent::exit(top, ts, None));
                        unbalanced += 1;
                    }
                    stack.pop();
                    cols.push(CallEvent::exit(m, ts, None));
                }
                None => orphan += 1,
            },
            None => {
                let mut depth = 0usize;
                let target = events[i + 1..].iter().find_map(|&(_, e)| match e {
                    Some((CallKind::Enter, _)) => {
                        depth += 1;
                        None
                    }
                    Some((_, m)) if depth == 0 => Some(m),
                    Some(_) => {
                        depth -= 1;
                        None
                    }
                    None => None,
                });
                if let Some(pos) = target.and_then(|t| stack.iter().rposition(|&s| s == t)) {
                    while stack.len() > pos + 1 {
                        let top = stack.pop().unwrap_or(MethodId(0));
                        cols.push(CallEvent::exit(top, ts, None));
                        jumps += 1;
                    }
                }
            }
        }
    }
    let mut notes = Vec::new();
    if jumps > 0 {
        notes.push((
            "longjmp-closed-frames",
            jumps,
            "frames abandoned by longjmp were closed at the jump",
        ));
    }
    if unbalanced > 0 {
        notes.push((
            "missing-exit",
            unbalanced,
            "frames whose exit was not recorded were closed by their caller's exit",
        ));
    }
    if orphan > 0 {
        notes.push((
            "exit-without-entry",
            orphan,
            "exits of functions not on the stack were dropped",
        ));
    }
    (cols, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(ts: u64, k: CallKind, m: u32) -> (u64, Option<(CallKind, MethodId)>) {
        (ts, Some((k, MethodId(m))))
    }

    #[test]
    fn longjmp_closes_abandoned_frames() {
        use CallKind::*;
        // run(1) { deep(2) { deeper(3) { longjmp } } } after(4) ; exit run
        let ev = vec![
            e(1, Enter, 1),
            e(2, Enter, 2),
            e(3, Enter, 3),
            (4, None),
            e(5, Enter, 4),
            e(6, Exit, 4),
            e(7, Exit, 1),
        ];
        let (c, notes) = balance(&ev);
        let kinds: Vec<_> = c.iter().map(|x| (x.kind, x.method.0, x.ts_ns)).collect();
        assert_eq!(
            kinds,
            vec![
                (Enter, 1, 1),
                (Enter, 2, 2),
                (Enter, 3, 3),
                (Exit, 3, 4),
                (Exit, 2, 4),
                (Enter, 4, 5),
                (Exit, 4, 6),
                (Exit, 1, 7)
            ]
        );
        assert_eq!(notes[0].1, 2);
    }

    #[test]
    fn orphan_exit_dropped_and_missing_exit_closed() {
        use CallKind::*;
        let ev = vec![e(1, Exit, 9), e(2, Enter, 1), e(3, Enter, 2), e(4, Exit, 1)];
        let (c, notes) = balance(&ev);
        assert_eq!(c.len(), 4);
        assert_eq!(notes.len(), 2);
    }
}
