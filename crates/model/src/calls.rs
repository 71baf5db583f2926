//! Call events (enter, exit, exit by exception) stored column-wise.

use crate::method::MethodId;
use serde::{Deserialize, Serialize};

/// What a call event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    /// The method was entered.
    Enter = 0,
    /// The method returned normally.
    Exit = 1,
    /// The method was left because an exception unwound it.
    Unwind = 2,
}

impl CallKind {
    /// Decodes the two low bits used by [`CallColumns`] (and by Android traces).
    pub fn from_bits(bits: u32) -> Option<CallKind> {
        match bits & 3 {
            0 => Some(CallKind::Enter),
            1 => Some(CallKind::Exit),
            2 => Some(CallKind::Unwind),
            _ => None,
        }
    }

    /// True for [`CallKind::Exit`] and [`CallKind::Unwind`].
    pub fn is_exit(self) -> bool {
        !matches!(self, CallKind::Enter)
    }
}

/// One call event of one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallEvent {
    /// Enter, exit or unwind.
    pub kind: CallKind,
    /// The method entered or left.
    pub method: MethodId,
    /// Time in ns on the session's timeline clock: wall time since the
    /// session anchor when the session has a wall clock, otherwise the
    /// thread's CPU time.
    pub ts_ns: u64,
    /// Thread-CPU time in ns; `Some` exactly when the session has the
    /// thread-CPU clock (for a CPU-only session it equals `ts_ns`).
    pub cpu_ns: Option<u64>,
}

impl CallEvent {
    /// An enter event.
    pub fn enter(method: MethodId, ts_ns: u64, cpu_ns: Option<u64>) -> CallEvent {
        CallEvent {
            kind: CallKind::Enter,
            method,
            ts_ns,
            cpu_ns,
        }
    }

    /// A normal exit event.
    pub fn exit(method: MethodId, ts_ns: u64, cpu_ns: Option<u64>) -> CallEvent {
        CallEvent {
            kind: CallKind::Exit,
            method,
            ts_ns,
            cpu_ns,
        }
    }

    /// An exit by exception.
    pub fn unwind(method: MethodId, ts_ns: u64, cpu_ns: Option<u64>) -> CallEvent {
        CallEvent {
            kind: CallKind::Unwind,
            method,
            ts_ns,
            cpu_ns,
        }
    }
}

/// The call events of one thread, in time order, stored as columns.
///
/// Each event costs 12 bytes, plus 8 when the thread-CPU clock is present.
/// Method ids must stay below 2³⁰ (the two low bits of the packed word hold
/// the [`CallKind`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallColumns {
    words: Vec<u32>,
    ts: Vec<u64>,
    cpu: Vec<u64>,
}

impl CallColumns {
    /// An empty column set.
    pub fn new() -> CallColumns {
        CallColumns::default()
    }

    /// An empty column set with room for `n` events.
    pub fn with_capacity(n: usize, with_cpu: bool) -> CallColumns {
        CallColumns {
            words: Vec::with_capacity(n),
            ts: Vec::with_capacity(n),
            cpu: if with_cpu { Vec::with_capacity(n) } else { Vec::new() },
        }
    }

    /// Columns from their raw parts, in the layout [`CallColumns::columns`]
    /// returns: packed words (`method << 2 | kind`), timeline times, and CPU
    /// times (empty when the thread has no CPU clock). Importers that must
    /// rewrite times after reading (the session's origin is known only at the
    /// end) build the vectors themselves and hand them over without a copy.
    /// Returns `None` when the lengths disagree.
    pub fn from_parts(words: Vec<u32>, ts: Vec<u64>, cpu: Vec<u64>) -> Option<CallColumns> {
        if words.len() != ts.len() || !(cpu.is_empty() || cpu.len() == words.len()) {
            return None;
        }
        Some(CallColumns { words, ts, cpu })
    }

    /// Appends an event. Events should be pushed in time order. The CPU
    /// column is kept only if the first event pushed has a CPU time.
    #[inline]
    pub fn push(&mut self, e: CallEvent) {
        debug_assert!(e.method.0 < (1 << 30), "method id too large");
        let keep_cpu = self.cpu.len() == self.words.len() && (self.words.is_empty() || !self.cpu.is_empty());
        self.words.push((e.method.0 << 2) | e.kind as u32);
        self.ts.push(e.ts_ns);
        if keep_cpu {
            if let Some(c) = e.cpu_ns {
                self.cpu.push(c);
            } else if !self.cpu.is_empty() {
                let last = *self.cpu.last().unwrap_or(&0);
                self.cpu.push(last);
            }
        }
    }

    /// Number of events.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the thread has no events.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// True when events carry thread-CPU times.
    pub fn has_cpu(&self) -> bool {
        !self.cpu.is_empty() && self.cpu.len() == self.words.len()
    }

    /// The event at `i`. Panics when `i` is out of range.
    #[inline]
    pub fn get(&self, i: usize) -> CallEvent {
        let w = self.words[i];
        CallEvent {
            kind: CallKind::from_bits(w).unwrap_or(CallKind::Exit),
            method: MethodId(w >> 2),
            ts_ns: self.ts[i],
            cpu_ns: if self.has_cpu() { Some(self.cpu[i]) } else { None },
        }
    }

    /// Timeline timestamps (see [`CallEvent::ts_ns`]) of every event, in order.
    pub fn times(&self) -> &[u64] {
        &self.ts
    }

    /// The raw columns, for hot loops: packed words (`method << 2 | kind`),
    /// timeline times, and CPU times when present.
    pub fn columns(&self) -> (&[u32], &[u64], Option<&[u64]>) {
        (
            &self.words,
            &self.ts,
            if self.has_cpu() { Some(&self.cpu) } else { None },
        )
    }

    /// Iterates over the events in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = CallEvent> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Index of the first event whose timeline time is `>= t` (binary search).
    pub fn first_at_or_after(&self, t: u64) -> usize {
        self.ts.partition_point(|&w| w < t)
    }

    /// Moves every event earlier: subtracts `ts_by` from each timeline time
    /// and `cpu_by` from each CPU time (saturating at 0). For importers that
    /// learn where the timeline starts only after reading every event (a
    /// Perfetto trace's earliest event can come last in the file).
    pub fn shift_earlier(&mut self, ts_by: u64, cpu_by: u64) {
        if ts_by != 0 {
            self.ts.iter_mut().for_each(|t| *t = t.saturating_sub(ts_by));
        }
        if cpu_by != 0 {
            self.cpu.iter_mut().for_each(|t| *t = t.saturating_sub(cpu_by));
        }
    }

    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
        self.ts.shrink_to_fit();
        self.cpu.shrink_to_fit();
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 4 + self.ts.capacity() * 8 + self.cpu.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks() {
        let mut c = CallColumns::new();
        c.push(CallEvent::enter(MethodId(7), 10, Some(5)));
        c.push(CallEvent::unwind(MethodId(7), 20, Some(9)));
        assert!(c.has_cpu());
        assert_eq!(c.get(0), CallEvent::enter(MethodId(7), 10, Some(5)));
        assert_eq!(c.get(1).kind, CallKind::Unwind);
        assert_eq!(c.first_at_or_after(11), 1);
    }

    #[test]
    fn from_parts_checks_lengths() {
        let c = CallColumns::from_parts(vec![7 << 2, (7 << 2) | 1], vec![10, 20], vec![5, 9]).unwrap();
        assert_eq!(c.get(1), CallEvent::exit(MethodId(7), 20, Some(9)));
        let w = CallColumns::from_parts(vec![0], vec![1], Vec::new()).unwrap();
        assert!(!w.has_cpu());
        assert!(CallColumns::from_parts(vec![0], vec![], Vec::new()).is_none());
        assert!(CallColumns::from_parts(vec![0, 1], vec![1, 2], vec![3]).is_none());
    }

    #[test]
    fn shifting_moves_both_clocks() {
        let mut c = CallColumns::new();
        c.push(CallEvent::enter(MethodId(1), 100, Some(40)));
        c.push(CallEvent::exit(MethodId(1), 150, Some(70)));
        c.shift_earlier(100, 50);
        assert_eq!(c.get(0), CallEvent::enter(MethodId(1), 0, Some(0)));
        assert_eq!(c.get(1), CallEvent::exit(MethodId(1), 50, Some(20)));
    }

    #[test]
    fn wall_only_has_no_cpu() {
        let mut c = CallColumns::new();
        c.push(CallEvent::enter(MethodId(1), 1, None));
        c.push(CallEvent::exit(MethodId(1), 2, None));
        assert!(!c.has_cpu());
        assert_eq!(c.get(1).cpu_ns, None);
        assert_eq!(c.iter().count(), 2);
    }
}
