//! One ftrace event line, split into its columns.
//!
//! ```text
//!            <...>-18926 (-----) [005] ...1 683202.115809: tracing_mark_write: B|18926|Choreographer#doFrame
//! periodic_power-3003    ( 3003)    [000]    .... 574.487676: write_power_ringbuffer: v:4380937 c:530056 e:-203095456
//!           atrace-14662 [000] 50260.647576: sched_switch: prev_comm=atrace prev_pid=14662 …
//! └ task ─────────┘ pid  tgid     cpu  flags   seconds.fraction: event: payload
//! ```
//!
//! The TGID column is optional (`(-----)` means unknown, the number may be
//! space-padded), the irq-flags column is absent in old kernels, and the task
//! (the thread's `comm`, at most 15 bytes) may contain spaces, dashes,
//! brackets and parentheses, so the header is found from the `[cpu]` column
//! outwards: the first `[digits]` preceded by `-pid`, whitespace and an
//! optional `(tgid)`.

use memchr::memchr;

/// The columns of one event line; slices borrow the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLine<'a> {
    /// The task as printed: a `comm` (`surfaceflinger`, `Binder:303_2`), or
    /// a placeholder (`<...>` unknown, `<idle>`, `<11123>`); see [`is_placeholder`].
    pub task: &'a [u8],
    /// The thread id (the `-pid` after the task).
    pub tid: u32,
    /// The thread group (process) id, when the TGID column is present and known.
    pub tgid: Option<u32>,
    /// The CPU the event was recorded on.
    pub cpu: u32,
    /// The irq-flags column (`d..2`, `...1`), absent in old kernels.
    pub flags: Option<&'a [u8]>,
    /// The timestamp in ns on the trace clock.
    pub ts_ns: u64,
    /// The event name (`sched_switch`, `tracing_mark_write`, `0` for old
    /// atrace markers); `""` for a function-tracer line (`func <-parent`).
    pub event: &'a [u8],
    /// Everything after `event: `, without surrounding whitespace.
    pub payload: &'a [u8],
}

/// True for task names the kernel prints when it does not know the `comm`:
/// `<...>`, `<idle>` and `<pid>`.
pub fn is_placeholder(task: &[u8]) -> bool {
    task.first() == Some(&b'<') && task.last() == Some(&b'>')
}

/// Splits an event line into its columns, or says why it is not one.
pub fn parse_event_line(line: &[u8]) -> Result<EventLine<'_>, &'static str> {
    let mut from = 0;
    while let Some(i) = memchr(b'[', &line[from..]) {
        let open = from + i;
        if let Some(head) = header_at(line, open) {
            return tail(line, head);
        }
        from = open + 1;
    }
    Err("no `task-pid [cpu]` columns")
}

struct Head<'a> {
    task: &'a [u8],
    tid: u32,
    tgid: Option<u32>,
    cpu: u32,
    after: usize,
}

/// Tries to read `-pid (tgid) [cpu]` around the `[` at `open`.
fn header_at(line: &[u8], open: usize) -> Option<Head<'_>> {
    let close = open + 1 + line[open + 1..].iter().take(11).position(|&c| c == b']')?;
    let cpu = parse_u32(&line[open + 1..close])?;
    let mut j = skip_space_back(line, open);
    let mut tgid = None;
    if j > 0 && line[j - 1] == b')' {
        let par = line[..j - 1].iter().rev().take(16).position(|&c| c == b'(')?;
        let lpar = j - 2 - par;
        let inner = trim(&line[lpar + 1..j - 1]);
        if inner.is_empty() {
            return None;
        }
        if !inner.iter().all(|&c| c == b'-') {
            tgid = Some(parse_u32(inner)?);
        }
        j = lpar;
        let k = skip_space_back(line, j);
        if k == j {
            return None;
        }
        j = k;
    } else if j == open {
        return None;
    }
    let digits_end = j;
    while j > 0 && line[j - 1].is_ascii_digit() {
        j -= 1;
    }
    if j == 0 || line[j - 1] != b'-' {
        return None;
    }
    let tid = parse_u32(&line[j..digits_end])?;
    Some(Head {
        task: trim(&line[..j - 1]),
        tid,
        tgid,
        cpu,
        after: close + 1,
    })
}

fn tail<'a>(line: &'a [u8], h: Head<'a>) -> Result<EventLine<'a>, &'static str> {
    let mut rest = trim_start(&line[h.after..]);
    let (first, after_first) = token(rest);
    let (flags, ts_tok) = if first.last() == Some(&b':') && parse_timestamp_ns(&first[..first.len() - 1]).is_some() {
        rest = after_first;
        (None, first)
    } else {
        let (second, after_second) = token(trim_start(after_first));
        rest = after_second;
        (Some(first), second)
    };
    let ts = ts_tok.strip_suffix(b":").ok_or("no `seconds.fraction:` timestamp")?;
    let ts_ns = parse_timestamp_ns(ts).ok_or("bad timestamp")?;
    let rest = trim_start(rest);
    let (event, payload) = match rest.iter().position(|&c| c == b':' || c == b' ' || c == b'\t') {
        Some(c) if rest[c] == b':' && c > 0 => (&rest[..c], &rest[c + 1..]),
        // Function tracer: `func <-parent`, no event name.
        _ => (&rest[..0], rest),
    };
    Ok(EventLine {
        task: h.task,
        tid: h.tid,
        tgid: h.tgid,
        cpu: h.cpu,
        flags,
        ts_ns,
        event,
        payload: trim(payload),
    })
}

/// Parses `seconds.fraction` (1 to 9 fraction digits; more are cut) into
/// ns; `None` past `i64::MAX` ns.
pub fn parse_timestamp_ns(s: &[u8]) -> Option<u64> {
    let dot = memchr(b'.', s)?;
    let (int, frac) = (&s[..dot], &s[dot + 1..]);
    if int.is_empty() || int.len() > 11 || frac.is_empty() || frac.len() > 12 {
        return None;
    }
    let secs = parse_u64(int)?;
    let mut ns = 0u64;
    for i in 0..9 {
        let d = match frac.get(i) {
            Some(c) if c.is_ascii_digit() => u64::from(c - b'0'),
            Some(_) => return None,
            None => 0,
        };
        ns = ns * 10 + d;
    }
    if !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Beyond i64::MAX ns (292 years) a timestamp cannot be a trace clock's,
    // and every later subtraction stays in range below it.
    secs.checked_mul(1_000_000_000)?
        .checked_add(ns)
        .filter(|&t| t <= i64::MAX as u64)
}

/// The value of `key=` in a space-separated `key=value` payload (the key
/// must start the payload or follow a space); the value runs to the next space.
pub fn field<'a>(payload: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let mut from = 0;
    while let Some(i) = find(&payload[from..], key) {
        let at = from + i;
        if at == 0 || payload[at - 1] == b' ' {
            let v = &payload[at + key.len()..];
            let end = memchr(b' ', v).unwrap_or(v.len());
            return Some(&v[..end]);
        }
        from = at + 1;
    }
    None
}

/// The first position of a short `needle` in a short `hay` (payloads are a
/// few dozen bytes: building a `memmem` searcher per call costs more).
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(i) = memchr(first, hay.get(from..)?) {
        let at = from + i;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The last position of a short `needle` in a short `hay`.
pub(crate) fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut end = hay.len();
    while let Some(at) = memchr::memrchr(first, &hay[..end]) {
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        end = at;
    }
    None
}

/// Parses an unsigned decimal that fits in `u32` (no sign, no spaces).
pub(crate) fn parse_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    u32::try_from(parse_u64(s)?).ok()
}

/// Parses an unsigned decimal that fits in `u64`.
pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v = 0u64;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

/// Parses a signed decimal that fits in `i64`.
pub(crate) fn parse_i64(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let v = parse_u64(digits)?;
    if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    }
}

fn token(s: &[u8]) -> (&[u8], &[u8]) {
    let end = s.iter().position(|&c| c == b' ' || c == b'\t').unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn skip_space_back(line: &[u8], mut j: usize) -> usize {
    while j > 0 && (line[j - 1] == b' ' || line[j - 1] == b'\t') {
        j -= 1;
    }
    j
}

pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    let i = s.iter().position(|&c| !c.is_ascii_whitespace()).unwrap_or(s.len());
    &s[i..]
}

pub(crate) fn trim(s: &[u8]) -> &[u8] {
    let s = trim_start(s);
    let end = s
        .iter()
        .rposition(|&c| !c.is_ascii_whitespace() && c != 0)
        .map_or(0, |i| i + 1);
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tgid_column_known_and_unknown() {
        let l = parse_event_line(
            b"           <...>-19161 (-----) [001] ...1 683201.354908: tracing_mark_write: trace_event_clock_sync: parent_ts=683201.375000",
        )
        .unwrap();
        assert_eq!(l.task, b"<...>");
        assert!(is_placeholder(l.task));
        assert_eq!((l.tid, l.tgid, l.cpu), (19161, None, 1));
        assert_eq!(l.flags, Some(&b"...1"[..]));
        assert_eq!(l.ts_ns, 683_201_354_908_000);
        assert_eq!(l.event, b"tracing_mark_write");
        assert_eq!(l.payload, b"trace_event_clock_sync: parent_ts=683201.375000");

        let l = parse_event_line(b" ndroid.systemui-13580 (13580) [001] ...1 683202.104223: tracing_mark_write: S|13580|deliverInputEvent|263").unwrap();
        assert_eq!((l.task, l.tid, l.tgid), (&b"ndroid.systemui"[..], 13580, Some(13580)));
    }

    #[test]
    fn seed_lines_with_padding() {
        let l = parse_event_line(
            b"periodic_power-3003    ( 3003)    [000]    .... 574.487676: write_power_ringbuffer: v:4380937 c:530056 e:-203095456",
        )
        .unwrap();
        assert_eq!(
            (l.task, l.tid, l.tgid, l.cpu),
            (&b"periodic_power"[..], 3003, Some(3003), 0)
        );
        assert_eq!(l.ts_ns, 574_487_676_000);
        assert_eq!(l.event, b"write_power_ringbuffer");
        assert_eq!(l.payload, b"v:4380937 c:530056 e:-203095456");
        let l =
            parse_event_line(b"periodic_power_-15464 (15464) [000] .... 18090.093080: write_power_ringbuffer: V:3214687 I:-1340040 E:32347638")
                .unwrap();
        assert_eq!((l.task, l.tid), (&b"periodic_power_"[..], 15464));
    }

    #[test]
    fn old_form_without_flags_and_tasks_with_dashes() {
        let l = parse_event_line(
            b" irq/409-inv_irq-99    [000] 50260.766705: sched_switch: prev_comm=irq/409-inv_irq prev_pid=99",
        )
        .unwrap();
        assert_eq!(
            (l.task, l.tid, l.tgid, l.flags),
            (&b"irq/409-inv_irq"[..], 99, None, None)
        );
        let l = parse_event_line(b"     hwc_eventmon-336   [000] 50260.929925: 0: C|124|VSYNC|1").unwrap();
        assert_eq!((l.event, l.payload), (&b"0"[..], &b"C|124|VSYNC|1"[..]));
        let l =
            parse_event_line(b"           dummy-0000  [000] 0.0: 0: trace_event_clock_sync: parent_ts=0.0").unwrap();
        assert_eq!((l.tid, l.ts_ns), (0, 0));
        let l = parse_event_line(
            b"<11123>-11123 [001] ...1 25123.408360: clock_set_rate: afab_a_clk state=133000000 cpu_id=1",
        )
        .unwrap();
        assert_eq!((l.task, l.tid), (&b"<11123>"[..], 11123));
    }

    #[test]
    fn task_names_with_spaces_and_brackets() {
        let l = parse_event_line(b"  Binder Thread [3]-1234  ( 1200) [002] d..2 10.000001: sched_waking: comm=a pid=1")
            .unwrap();
        assert_eq!(
            (l.task, l.tid, l.tgid, l.cpu),
            (&b"Binder Thread [3]"[..], 1234, Some(1200), 2)
        );
        assert_eq!(l.ts_ns, 10_000_001_000);
        let l = parse_event_line(b"x-1 [000] dNh2. 1.5: e: p").unwrap();
        assert_eq!((l.flags, l.ts_ns), (Some(&b"dNh2."[..]), 1_500_000_000));
    }

    #[test]
    fn function_tracer_lines_have_no_event_name() {
        let l = parse_event_line(b"  <idle>-0  [000] d..2  1.000100: do_idle <-cpu_startup_entry").unwrap();
        assert_eq!(l.event, b"");
        assert_eq!(l.payload, b"do_idle <-cpu_startup_entry");
    }

    #[test]
    fn rejects_what_is_not_an_event_line() {
        for bad in [
            &b""[..],
            b"hello world",
            b"task-12 [000] ...1 nottime: x: y",
            b"task [000] ...1 1.0: x: y",
            b"task-12[000] 1.0: x: y",
            b"task-12 [99999999999] 1.0: x: y",
            b"task-12 [000] ...1 1.0",
        ] {
            assert!(parse_event_line(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn timestamps_are_exact() {
        assert_eq!(parse_timestamp_ns(b"574.487676"), Some(574_487_676_000));
        assert_eq!(parse_timestamp_ns(b"1.123456789"), Some(1_123_456_789));
        assert_eq!(parse_timestamp_ns(b"1.1234567891"), Some(1_123_456_789));
        assert_eq!(parse_timestamp_ns(b"0.0"), Some(0));
        assert_eq!(
            parse_timestamp_ns(b"9223372036.854775"),
            Some(9_223_372_036_854_775_000)
        );
        assert_eq!(parse_timestamp_ns(b"9999999999.999999"), None);
        assert_eq!(parse_timestamp_ns(b"99999999999.999999"), None);
        assert_eq!(parse_timestamp_ns(b"1."), None);
        assert_eq!(parse_timestamp_ns(b".5"), None);
        assert_eq!(parse_timestamp_ns(b"1.5x"), None);
        assert_eq!(parse_timestamp_ns(b"-1.5"), None);
    }

    #[test]
    fn fields_and_numbers() {
        let p = b"prev_comm=a b prev_pid=3 prev_state=R+";
        assert_eq!(field(p, b"prev_pid="), Some(&b"3"[..]));
        assert_eq!(field(p, b"prev_state="), Some(&b"R+"[..]));
        assert_eq!(field(p, b"pid="), None);
        assert_eq!(parse_i64(b"-203095456"), Some(-203_095_456));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64(b"9223372036854775808"), None);
        assert_eq!(parse_u32(b"4294967296"), None);
        assert_eq!(find(b"a pid=1 pid=2", b" pid="), Some(1));
        assert_eq!(rfind(b"a pid=1 pid=2", b" pid="), Some(7));
        assert_eq!(
            (find(b"abc", b"abcd"), rfind(b"", b"a"), find(b"abc", b"")),
            (None, None, None)
        );
    }
}
