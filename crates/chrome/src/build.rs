//! Events, one at a time: threads and processes by id, names interned once,
//! calls placed per thread as they come ([`calls`]), markers, counters and
//! async slices gathered; `finish.rs` makes the session.
//!
//! [`calls`]: crate::calls

use crate::calls::{biased, Ctx, Repairs, ThreadCalls, NO_NAME, UNNAMED};
use crate::event::{async_id, counter_value, micros_to_ns, parse_id, ArgList, EndArgs, Id2, MetaArgs};
use crate::scan::{JsonStr, RawEvent};
use crate::tracks::{AsyncKey, Asyncs, Counters};
use rustc_hash::FxHashMap;
use tracekit_model::{Method, MethodTable};

/// Name of slices whose file gives none.
pub(crate) const UNNAMED_TEXT: &str = "(unnamed)";

/// A thread being built, keyed by the file's (pid, tid).
pub(crate) struct ThreadBuild {
    pub pid: Option<i64>,
    pub tid: i64,
    pub name: String,
    pub sort: Option<i64>,
    pub calls: ThreadCalls,
}

/// A process seen in the file.
pub(crate) struct ProcessBuild {
    pub pid: i64,
    pub name: String,
    pub sort: Option<i64>,
}

/// Everything read so far.
pub(crate) struct Builder {
    pub(crate) threads: Vec<ThreadBuild>,
    pub(crate) thread_index: FxHashMap<(Option<i64>, i64), u32>,
    /// The raw `pid` and `tid` of the last event and its thread: runs of
    /// one thread's events skip parsing and hashing them.
    pub(crate) last_ids: (Option<Vec<u8>>, Option<Vec<u8>>, u32),
    pub(crate) processes: Vec<ProcessBuild>,
    pub(crate) process_index: FxHashMap<i64, usize>,
    pub(crate) methods: MethodTable,
    /// Method ids by the name's bytes as written (escapes undecoded), so a
    /// name seen before costs one lookup and no UTF-8 check.
    pub(crate) method_index: FxHashMap<Box<[u8]>, u32>,
    pub(crate) markers: Vec<(i64, u32, String)>,
    pub(crate) counters: Counters,
    pub(crate) asyncs: Asyncs,
    pub(crate) skipped: Vec<(String, u64)>,
    pub(crate) repairs: Repairs,
    pub(crate) negative_durations: u64,
    pub(crate) missing_durations: u64,
    pub(crate) truncated_at: Option<u64>,
    /// Every call event so far had thread time.
    pub(crate) cpu_ok: bool,
    pub(crate) calls_seen: bool,
    /// tracekit's own metadata said the session had both clocks (which a
    /// file without calls cannot show through `tts`).
    pub(crate) declared_dual: bool,
    pub(crate) min_ts: i64,
    pub(crate) properties: Vec<(String, String)>,
    pub(crate) clock_domain: Option<String>,
    /// tracekit's own metadata: Unix ns at a file ts (ns).
    pub(crate) anchor: Option<(i64, i64)>,
}

/// The phases that are read but not used, with what they are.
const PHASE_NAMES: &[(u8, &str)] = &[
    (b's', "flow start"),
    (b't', "flow step"),
    (b'f', "flow end"),
    (b'P', "sample"),
    (b'R', "mark"),
    (b'O', "object snapshot"),
    (b'N', "object created"),
    (b'D', "object destroyed"),
    (b'T', "async step"),
    (b'p', "async step"),
    (b'(', "context enter"),
    (b')', "context leave"),
    (b'c', "clock sync"),
    (b'V', "memory dump"),
    (b'v', "memory dump"),
    (b'a', "linked id"),
    (b'=', "linked id"),
];

impl Builder {
    /// An empty builder.
    pub(crate) fn new() -> Builder {
        Builder {
            threads: Vec::new(),
            thread_index: FxHashMap::default(),
            last_ids: (None, None, u32::MAX),
            processes: Vec::new(),
            process_index: FxHashMap::default(),
            methods: MethodTable::new(),
            method_index: FxHashMap::default(),
            markers: Vec::new(),
            counters: Counters::default(),
            asyncs: Asyncs::default(),
            skipped: Vec::new(),
            repairs: Repairs::default(),
            negative_durations: 0,
            missing_durations: 0,
            truncated_at: None,
            cpu_ok: true,
            calls_seen: false,
            declared_dual: false,
            min_ts: i64::MAX,
            properties: Vec::new(),
            clock_domain: None,
            anchor: None,
        }
    }

    /// Counts `n` events of a kind that is read but not used.
    pub(crate) fn skip(&mut self, kind: &str, n: u64) {
        match self.skipped.iter_mut().find(|(k, _)| k == kind) {
            Some((_, c)) => *c += n,
            None => self.skipped.push((kind.to_owned(), n)),
        }
    }

    /// Notes that the input ends, cut, at this offset.
    pub(crate) fn truncated(&mut self, offset: u64) {
        self.truncated_at.get_or_insert(offset);
    }

    /// One event. The error is a message; the reader adds the position.
    pub(crate) fn event(&mut self, e: &RawEvent) -> Result<(), String> {
        let Some(p) = e.ph else {
            return Err("an event without \"ph\"".into());
        };
        match p {
            b'B' | b'E' | b'X' => self.call(e, p),
            b'i' | b'I' => {
                let t = self.ts(e, p)?;
                let thread = self.thread(e)?;
                let name = text(e.name)?.into_owned();
                self.markers.push((t, thread, name));
                Ok(())
            }
            b'C' => self.counter(e),
            b'M' => self.metadata_event(e),
            b'b' | b'e' | b'n' | b'S' | b'F' => self.async_event(e, p),
            _ => {
                let kind = match PHASE_NAMES.iter().find(|(c, _)| *c == p) {
                    Some((_, what)) => format!("{} ({what})", p as char),
                    None if p.is_ascii_graphic() => format!("ph {:?}", p as char),
                    None => "ph (not one ASCII character)".to_owned(),
                };
                self.skip(&kind, 1);
                Ok(())
            }
        }
    }

    /// The event's `ts` in ns (also moves the earliest time).
    fn ts(&mut self, e: &RawEvent, p: u8) -> Result<i64, String> {
        let raw =
            e.ts.ok_or_else(|| format!("a \"{}\" event without \"ts\"", p as char))?;
        let t = micros_to_ns(raw).ok_or_else(|| not_a_number("ts", raw))?;
        self.min_ts = self.min_ts.min(t);
        Ok(t)
    }

    fn pid(e: &RawEvent) -> Result<Option<(i64, Option<String>)>, String> {
        e.pid
            .map(|r| parse_id(r).ok_or_else(|| format!("\"pid\" is not an integer or a string: {}", short(r))))
            .transpose()
    }

    /// The builder index of the event's thread, made on first sight.
    fn thread(&mut self, e: &RawEvent) -> Result<u32, String> {
        let (last_pid, last_tid, last) = &self.last_ids;
        if *last != u32::MAX && e.pid == last_pid.as_deref() && e.tid == last_tid.as_deref() {
            return Ok(*last);
        }
        let i = self.thread_by_ids(e)?;
        self.last_ids = (e.pid.map(<[u8]>::to_vec), e.tid.map(<[u8]>::to_vec), i);
        Ok(i)
    }

    fn thread_by_ids(&mut self, e: &RawEvent) -> Result<u32, String> {
        let pid = Self::pid(e)?;
        let tid = e
            .tid
            .map(|r| parse_id(r).ok_or_else(|| format!("\"tid\" is not an integer or a string: {}", short(r))))
            .transpose()?;
        let key = (pid.as_ref().map(|p| p.0), tid.as_ref().map_or(0, |t| t.0));
        if let Some(&i) = self.thread_index.get(&key) {
            return Ok(i);
        }
        if let Some((p, name)) = pid {
            self.process(p, name);
        }
        let i = self.threads.len() as u32;
        self.threads.push(ThreadBuild {
            pid: key.0,
            tid: key.1,
            name: tid.and_then(|t| t.1).unwrap_or_default(),
            sort: None,
            calls: ThreadCalls::default(),
        });
        self.thread_index.insert(key, i);
        Ok(i)
    }

    fn process(&mut self, pid: i64, name: Option<String>) -> usize {
        if let Some(&i) = self.process_index.get(&pid) {
            return i;
        }
        self.processes.push(ProcessBuild {
            pid,
            name: name.unwrap_or_default(),
            sort: None,
        });
        self.process_index.insert(pid, self.processes.len() - 1);
        self.processes.len() - 1
    }

    /// The method named `name` (category `cat` kept as its module).
    fn method(&mut self, name: Option<JsonStr>, cat: Option<JsonStr>) -> Result<u32, String> {
        let raw = name.map_or(&b""[..], |n| n.raw());
        if let Some(&id) = self.method_index.get(raw) {
            return Ok(id);
        }
        if self.methods.len() >= UNNAMED as usize {
            return Err("more distinct slice names than tracekit can hold (2^30)".into());
        }
        let text = text(name)?;
        let mut m = Method::new("", if text.is_empty() { UNNAMED_TEXT } else { &text }, "");
        m.module = Some(self::text(cat)?.into_owned()).filter(|c| !c.is_empty());
        let id = self.methods.intern(m).0;
        self.method_index.insert(raw.into(), id);
        Ok(id)
    }

    /// Thread time of a call event (biased), or 0 once thread time is off.
    fn cpu(&mut self, raw: Option<&[u8]>) -> Result<u64, String> {
        if !self.cpu_ok {
            return Ok(0);
        }
        match raw {
            Some(r) => Ok(biased(micros_to_ns(r).ok_or_else(|| not_a_number("tts", r))?)),
            None => {
                self.cpu_ok = false;
                for t in &mut self.threads {
                    t.calls.drop_cpu();
                }
                Ok(0)
            }
        }
    }

    /// `B`, `E` or `X`.
    fn call(&mut self, e: &RawEvent, p: u8) -> Result<(), String> {
        let t = self.ts(e, p)?;
        let thread = self.thread(e)? as usize;
        let cpu = self.cpu(e.tts)?;
        self.calls_seen = true;
        match p {
            b'E' => {
                let named = e.name.is_some_and(|n| !n.raw().is_empty());
                let method = if named { self.method(e.name, e.cat)? } else { NO_NAME };
                let unwind = match e.args {
                    Some(a) => serde_json::from_slice::<EndArgs>(a)
                        .map_err(|err| format!("\"args\" of an \"E\" event: {err}"))?
                        .unwind
                        .is_some_and(|u| u.get() == "true"),
                    None => false,
                };
                let mut cx = Ctx {
                    repairs: &mut self.repairs,
                    cpu: self.cpu_ok,
                };
                self.threads[thread].calls.end(&mut cx, method, biased(t), cpu, unwind);
            }
            b'B' => {
                let method = self.method(e.name, e.cat)?;
                let mut cx = Ctx {
                    repairs: &mut self.repairs,
                    cpu: self.cpu_ok,
                };
                self.threads[thread].calls.begin(&mut cx, method, biased(t), cpu, None);
            }
            _ => {
                let method = self.method(e.name, e.cat)?;
                let dur = self.duration(e.dur, "dur")?;
                let cpu_end = match (self.cpu_ok, e.tdur) {
                    (false, _) => 0,
                    (true, Some(r)) => cpu.saturating_add(self.duration(Some(r), "tdur")? as u64),
                    (true, None) => self.cpu(None)?,
                };
                let end = t.saturating_add(dur);
                let mut cx = Ctx {
                    repairs: &mut self.repairs,
                    cpu: self.cpu_ok,
                };
                self.threads[thread]
                    .calls
                    .begin(&mut cx, method, biased(t), cpu, Some((biased(end), cpu_end)));
            }
        }
        Ok(())
    }

    /// A duration in ns; missing or negative ones count as repairs and are 0.
    fn duration(&mut self, raw: Option<&[u8]>, field: &str) -> Result<i64, String> {
        let Some(r) = raw else {
            self.missing_durations += 1;
            return Ok(0);
        };
        let d = micros_to_ns(r).ok_or_else(|| not_a_number(field, r))?;
        if d < 0 {
            self.negative_durations += 1;
            return Ok(0);
        }
        Ok(d)
    }

    /// `C`: every numeric argument is a series.
    fn counter(&mut self, e: &RawEvent) -> Result<(), String> {
        let t = self.ts(e, b'C')?;
        let pid = Self::pid(e)?;
        if let Some((p, name)) = &pid {
            self.process(*p, name.clone());
        }
        let mut base = text(e.name)?.into_owned();
        if let Some(id) = e.id {
            base = format!("{base}[{}]", async_id(id).0);
        }
        let Some(args) = e.args else {
            self.skip("C without args", 1);
            return Ok(());
        };
        let args: ArgList = serde_json::from_slice(args).map_err(|err| format!("\"args\" of a \"C\" event: {err}"))?;
        for (arg, raw) in &args.0 {
            match counter_value(raw) {
                Some(v) => self.counters.push(pid.as_ref().map(|p| p.0), &base, arg, t, v),
                None => self.skip("C non-numeric value", 1),
            }
        }
        Ok(())
    }

    /// `M`: process and thread names and sort indexes.
    fn metadata_event(&mut self, e: &RawEvent) -> Result<(), String> {
        let what = text(e.name)?;
        let what = what.as_ref();
        let args: Option<MetaArgs> = match e.args {
            Some(a) => Some(serde_json::from_slice(a).map_err(|err| format!("\"args\" of an \"M\" event: {err}"))?),
            None => None,
        };
        let name = args.as_ref().and_then(|a| a.name.as_ref()).map(|n| n.0.to_string());
        let sort = match args.as_ref().and_then(|a| a.sort_index) {
            Some(r) => {
                let r = r.get().as_bytes();
                Some(
                    parse_id(r)
                        .filter(|v| v.1.is_none())
                        .ok_or_else(|| not_a_number("sort_index", r))?
                        .0,
                )
            }
            None => None,
        };
        match what {
            "process_name" | "process_sort_index" => {
                let Some((pid, _)) = Self::pid(e)? else {
                    self.skip(&format!("M {what} without pid"), 1);
                    return Ok(());
                };
                let i = self.process(pid, None);
                if let Some(n) = name.filter(|_| what == "process_name") {
                    self.processes[i].name = n;
                }
                if what == "process_sort_index" {
                    self.processes[i].sort = sort;
                }
            }
            "thread_name" | "thread_sort_index" => {
                let i = self.thread(e)? as usize;
                if let Some(n) = name.filter(|_| what == "thread_name") {
                    self.threads[i].name = n;
                }
                if what == "thread_sort_index" {
                    self.threads[i].sort = sort;
                }
            }
            _ => self.skip(&format!("M {what}"), 1),
        }
        Ok(())
    }

    /// `b`, `e`, `n`, `S`, `F`.
    fn async_event(&mut self, e: &RawEvent, p: u8) -> Result<(), String> {
        let t = self.ts(e, p)?;
        let thread = self.thread(e)?;
        let pid = self.threads[thread as usize].pid;
        let id2: Option<Id2> = match e.id2 {
            Some(raw) => Some(serde_json::from_slice(raw).map_err(|err| format!("\"id2\": {err}"))?),
            None => None,
        };
        let (local, id) = match id2 {
            Some(id2) if id2.local.is_some() => (true, id2.local.map(|r| r.get().as_bytes())),
            Some(id2) => (false, id2.global.map(|r| r.get().as_bytes())),
            None => (false, e.id),
        };
        let (id_text, cookie) = id.map(async_id).unwrap_or_default();
        let key = AsyncKey {
            cat: text(e.cat)?.into_owned(),
            scope: e.scope.map(|s| {
                serde_json::from_slice::<String>(s).unwrap_or_else(|_| String::from_utf8_lossy(s).into_owned())
            }),
            pid: if local { pid } else { None },
            id: id_text,
            legacy: matches!(p, b'S' | b'F'),
        };
        let name = text(e.name)?;
        match p {
            b'b' | b'S' => self.asyncs.begin(key, &name, t, thread, cookie, pid),
            b'n' => self.asyncs.instant(&key, &name, t, thread, cookie, pid),
            _ => self.asyncs.end(key, &name, t),
        }
        Ok(())
    }

    /// The top-level `metadata` object: scalars become properties,
    /// `clock-domain` names the source clock, `tracekit` holds the anchor.
    pub(crate) fn metadata(&mut self, v: serde_json::Value) {
        let serde_json::Value::Object(map) = v else {
            return;
        };
        for (k, v) in map {
            match v {
                serde_json::Value::String(s) => {
                    if k == "clock-domain" {
                        self.clock_domain = Some(s.clone());
                    }
                    self.properties.push((k, s));
                }
                serde_json::Value::Number(n) => self.properties.push((k, n.to_string())),
                serde_json::Value::Bool(b) => self.properties.push((k, b.to_string())),
                serde_json::Value::Object(o) if k == "tracekit" => {
                    let num = |f: &str| o.get(f).and_then(serde_json::Value::as_i64);
                    if let (Some(unix), Some(ts)) = (num("anchor_unix_ns"), num("anchor_ts_ns")) {
                        self.anchor = Some((unix, ts));
                    }
                    self.declared_dual = o.get("clocks").and_then(serde_json::Value::as_str) == Some("dual");
                }
                _ => {}
            }
        }
    }

    /// A top-level property (such as `displayTimeUnit`).
    pub(crate) fn property(&mut self, key: &str, value: String) {
        self.properties.push((key.to_owned(), value));
    }
}

/// The decoded text of an optional string field ("" when absent).
fn text(s: Option<JsonStr<'_>>) -> Result<std::borrow::Cow<'_, str>, String> {
    s.map_or(Ok(std::borrow::Cow::Borrowed("")), |s| s.text())
}

/// The start of a raw value, for messages.
fn short(r: &[u8]) -> String {
    let t = String::from_utf8_lossy(r);
    match t.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.into_owned(),
    }
}

fn not_a_number(field: &str, r: &[u8]) -> String {
    format!("\"{field}\" is not a number of µs: {}", short(r))
}
