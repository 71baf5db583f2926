//! Sets of time intervals: where a condition holds, what a user selected.

use serde::Serialize;

/// A half-open time interval `[start, end)` in ns on the session timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Interval {
    /// Inclusive start.
    pub start: i64,
    /// Exclusive end.
    pub end: i64,
}

/// A normalised set of disjoint, sorted, non-empty intervals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IntervalSet {
    spans: Vec<Interval>,
    /// `covered[i]` = total length of `spans[..i]`, for O(log n) overlap queries.
    #[serde(skip)]
    covered: Vec<i64>,
}

impl IntervalSet {
    /// Builds a set from any intervals (overlapping, unsorted, empty ones dropped).
    pub fn from_intervals(mut v: Vec<Interval>) -> IntervalSet {
        v.retain(|i| i.end > i.start);
        v.sort();
        let mut spans: Vec<Interval> = Vec::with_capacity(v.len());
        for i in v {
            match spans.last_mut() {
                Some(last) if i.start <= last.end => last.end = last.end.max(i.end),
                _ => spans.push(i),
            }
        }
        let mut covered = Vec::with_capacity(spans.len() + 1);
        let mut acc = 0i64;
        covered.push(0);
        for s in &spans {
            acc += s.end - s.start;
            covered.push(acc);
        }
        IntervalSet { spans, covered }
    }

    /// One interval.
    pub fn single(start: i64, end: i64) -> IntervalSet {
        IntervalSet::from_intervals(vec![Interval { start, end }])
    }

    /// The intervals, sorted and disjoint.
    pub fn spans(&self) -> &[Interval] {
        &self.spans
    }

    /// True when the set is empty.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Total covered length.
    pub fn total(&self) -> i64 {
        *self.covered.last().unwrap_or(&0)
    }

    /// Whether `t` lies inside.
    pub fn contains(&self, t: i64) -> bool {
        let i = self.spans.partition_point(|s| s.end <= t);
        self.spans.get(i).is_some_and(|s| s.start <= t)
    }

    /// Length of the set's part that lies before `t`.
    pub fn covered_before(&self, t: i64) -> i64 {
        let i = self.spans.partition_point(|s| s.end <= t);
        let mut c = self.covered.get(i).copied().unwrap_or(0);
        if let Some(s) = self.spans.get(i) {
            if s.start < t {
                c += t - s.start;
            }
        }
        c
    }

    /// Length of the overlap with `[a, b)`.
    pub fn overlap(&self, a: i64, b: i64) -> i64 {
        if b <= a {
            return 0;
        }
        self.covered_before(b) - self.covered_before(a)
    }

    /// Intersection.
    pub fn intersect(&self, other: &IntervalSet) -> IntervalSet {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.spans.len() && j < other.spans.len() {
            let a = self.spans[i];
            let b = other.spans[j];
            let s = a.start.max(b.start);
            let e = a.end.min(b.end);
            if s < e {
                out.push(Interval { start: s, end: e });
            }
            if a.end < b.end {
                i += 1;
            } else {
                j += 1;
            }
        }
        IntervalSet::from_intervals(out)
    }

    /// Union.
    pub fn union(&self, other: &IntervalSet) -> IntervalSet {
        let mut v = self.spans.clone();
        v.extend_from_slice(&other.spans);
        IntervalSet::from_intervals(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(v: &[(i64, i64)]) -> IntervalSet {
        IntervalSet::from_intervals(v.iter().map(|&(start, end)| Interval { start, end }).collect())
    }

    #[test]
    fn normalises_and_queries() {
        let s = set(&[(5, 10), (0, 2), (8, 12), (20, 20)]);
        assert_eq!(
            s.spans(),
            &[Interval { start: 0, end: 2 }, Interval { start: 5, end: 12 }]
        );
        assert_eq!(s.total(), 9);
        assert!(s.contains(5) && !s.contains(12) && !s.contains(3));
        assert_eq!(s.overlap(1, 6), 2);
        assert_eq!(s.intersect(&set(&[(1, 6)])), set(&[(1, 2), (5, 6)]));
        assert_eq!(s.union(&set(&[(2, 5)])), set(&[(0, 12)]));
    }

    proptest! {
        #[test]
        fn overlap_matches_brute_force(v in prop::collection::vec((0i64..50, 0i64..10), 0..8), a in 0i64..60, b in 0i64..60) {
            let s = set(&v.iter().map(|&(x, l)| (x, x + l)).collect::<Vec<_>>());
            let brute = (a..b).filter(|&t| s.contains(t)).count() as i64;
            prop_assert_eq!(s.overlap(a, b), brute);
        }
    }
}
