//! Brendan Gregg's collapsed ("folded") stacks: one line per distinct stack,
//! frames from the root joined by `;`, a space, and the stack's exclusive
//! time in whole microseconds.

use crate::walk::{walk, StackTrie};
use crate::{frame_names, json, thread_title, Clock, Error};
use std::io::{BufWriter, Write};
use tracekit_model::Session;

/// What [`write_folded`] writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FoldedOptions {
    /// The clock the weights measure.
    pub clock: Clock,
    /// Start every stack with a frame naming its thread (`main (tid 1)`),
    /// so a flame graph splits by thread; otherwise equal stacks of several
    /// threads are separate lines that the tools add up.
    pub thread_roots: bool,
}

/// Writes `session` as folded stacks.
///
/// For every thread (in session order) and every distinct call stack, the
/// line is the stack's frames from the outermost, named by
/// [`frame_names`](crate::frame_names) with `;` turned into `:` and line
/// breaks and other control characters into spaces, then the time spent
/// with exactly that stack on top (exclusive time) on `opts.clock`, in µs.
/// Stacks of one thread come depth-first, children in name order.
///
/// Rounding keeps totals: times are summed in ns and each line's weight is
/// the change in the rounded (half up) running total of its thread, so a
/// thread's weights add up to its total time rounded to the nearest µs (the
/// inclusive time of its outermost calls), and every line is within 1 µs of
/// its exact time. Lines that round to 0 are left out (their time is carried
/// by the running total, not lost).
///
/// Asking for a clock the session has not is [`Error::MissingClock`]. A
/// session without calls writes nothing.
pub fn write_folded(session: &Session, opts: &FoldedOptions, out: &mut impl Write) -> Result<(), Error> {
    let has = match opts.clock {
        Clock::Wall => session.clocks.wall,
        Clock::ThreadCpu => session.clocks.thread_cpu,
    };
    if !has {
        return Err(Error::MissingClock(opts.clock, session.clocks.name()));
    }
    let names: Vec<String> = frame_names(&session.methods).iter().map(|n| sanitize(n)).collect();
    let mut w = BufWriter::with_capacity(1 << 16, out);
    for (id, _, calls) in session.thread_calls() {
        if calls.is_empty() {
            continue;
        }
        if opts.clock == Clock::ThreadCpu && !calls.has_cpu() {
            return Err(Error::MissingClock(Clock::ThreadCpu, "wall"));
        }
        let (trie, excl) = exclusive_times(calls, session.methods.len(), opts.clock);
        let root = opts
            .thread_roots
            .then(|| sanitize(&thread_title(session, id.0 as usize)));
        write_thread(&mut w, &trie, &excl, &names, root.as_deref())?;
    }
    w.flush()?;
    Ok(())
}

/// The distinct stacks of one thread and each one's exclusive time in ns.
fn exclusive_times(calls: &tracekit_model::CallColumns, n_methods: usize, clock: Clock) -> (StackTrie, Vec<u64>) {
    let mut trie = StackTrie::default();
    let mut excl: Vec<u64> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    let mut prev = 0u64;
    walk(calls, n_methods, |s| {
        let now = match clock {
            Clock::Wall => s.ts,
            Clock::ThreadCpu => s.cpu,
        };
        if let Some(&top) = stack.last() {
            excl[top as usize] += now - prev;
        }
        prev = now;
        if s.open {
            let node = trie.child(stack.last().copied(), s.method);
            if node as usize == excl.len() {
                excl.push(0);
            }
            stack.push(node);
        } else {
            stack.pop();
        }
    });
    (trie, excl)
}

fn write_thread(
    w: &mut impl Write,
    trie: &StackTrie,
    excl: &[u64],
    names: &[String],
    root: Option<&str>,
) -> std::io::Result<()> {
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); trie.len()];
    let mut roots = Vec::new();
    for (node, parent) in trie.parent.iter().enumerate() {
        match parent {
            Some(p) => children[*p as usize].push(node as u32),
            None => roots.push(node as u32),
        }
    }
    let name = |n: u32| {
        names
            .get(trie.method[n as usize].0 as usize)
            .map_or("?", String::as_str)
    };
    let by_name = |a: &u32, b: &u32| name(*a).cmp(name(*b)).then(a.cmp(b));
    roots.sort_by(by_name);
    for c in &mut children {
        c.sort_by(by_name);
    }
    let mut path = String::from(root.unwrap_or(""));
    let (mut total_ns, mut written_us) = (0u128, 0u128);
    // Depth-first with an explicit stack (recursion can be thousands deep):
    // (node, length of `path` before the node's name was appended).
    let mut todo: Vec<(u32, usize)> = roots.iter().rev().map(|&r| (r, path.len())).collect();
    while let Some((node, keep)) = todo.pop() {
        path.truncate(keep);
        if !path.is_empty() {
            path.push(';');
        }
        path.push_str(name(node));
        total_ns += excl[node as usize] as u128;
        let rounded_us = (total_ns + 500) / 1000;
        let weight = rounded_us - written_us;
        if weight > 0 {
            w.write_all(path.as_bytes())?;
            w.write_all(b" ")?;
            json::uint(w, weight as u64)?;
            w.write_all(b"\n")?;
            written_us = rounded_us;
        }
        let len = path.len();
        todo.extend(children[node as usize].iter().rev().map(|&c| (c, len)));
    }
    Ok(())
}

/// A frame name that cannot break a folded line: `;` becomes `:`, control
/// characters (line breaks, tabs) become spaces.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => ':',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{CallEvent, Clocks, Method, Thread};

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize("a;b\nc\td"), "a:b c d");
    }

    #[test]
    fn rounding_keeps_the_thread_total() {
        // Three sibling calls of 1.4 µs each under a root of 0.3 µs self:
        // rounding each line would give 0+1+1+1 = 3 µs; the total is 4.5 µs → 5 (half up).
        let mut s = Session::new("r", Clocks::DUAL);
        let t = s.add_thread(Thread::new(1, "main"));
        let root = s.methods.intern(Method::new("", "root", ""));
        let leaf = s.methods.intern(Method::new("", "leaf", ""));
        let mut ts = 0;
        s.calls_mut(t).push(CallEvent::enter(root, ts, Some(ts)));
        ts += 300;
        for _ in 0..3 {
            s.calls_mut(t).push(CallEvent::enter(leaf, ts, Some(ts)));
            ts += 1_400;
            s.calls_mut(t).push(CallEvent::exit(leaf, ts, Some(ts)));
        }
        s.calls_mut(t).push(CallEvent::exit(root, ts, Some(ts)));
        let mut out = Vec::new();
        write_folded(&s, &FoldedOptions::default(), &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "root;leaf 5\n");
        let opts = FoldedOptions {
            clock: Clock::ThreadCpu,
            thread_roots: true,
        };
        let mut out = Vec::new();
        write_folded(&s, &opts, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "main (tid 1);root;leaf 5\n");
    }

    #[test]
    fn a_missing_clock_is_an_error() {
        let s = Session::new("w", Clocks::WALL);
        let opts = FoldedOptions {
            clock: Clock::ThreadCpu,
            thread_roots: false,
        };
        let e = write_folded(&s, &opts, &mut Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "the session has no thread-cpu clock (it has: wall)");
    }
}
