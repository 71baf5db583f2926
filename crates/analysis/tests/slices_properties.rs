//! Property tests: any event sequence (unbalanced, clocks stepping back)
//! gives well-formed slices, and the level-of-detail and profile queries
//! account for every call without panicking.

use proptest::prelude::*;
use tracekit_analysis::{interval_profile, normalize_intervals, ThreadSlices};
use tracekit_model::{CallColumns, CallEvent, MethodId};

fn events() -> impl Strategy<Value = Vec<(u8, u32, u64)>> {
    prop::collection::vec((0u8..3, 0u32..6, 0u64..1_000), 0..300)
}

fn build(ev: &[(u8, u32, u64)]) -> ThreadSlices {
    let mut c = CallColumns::new();
    let mut t = 0u64;
    for &(k, m, dt) in ev {
        // Mostly forward, sometimes back.
        t = if dt > 900 { t.saturating_sub(dt - 900) } else { t + dt };
        let m = MethodId(m);
        c.push(match k {
            0 => CallEvent::enter(m, t, Some(t / 2)),
            1 => CallEvent::exit(m, t, Some(t / 2)),
            _ => CallEvent::unwind(m, t, Some(t / 2)),
        });
    }
    ThreadSlices::build(&c, 6)
}

proptest! {
    #[test]
    fn slices_are_well_formed(ev in events()) {
        let s = build(&ev);
        for (d, l) in s.levels.iter().enumerate() {
            for i in 0..l.len() {
                prop_assert!(l.start[i] <= l.end[i]);
                prop_assert!(l.cpu_start[i] <= l.cpu_end[i]);
                if i > 0 { prop_assert!(l.end[i - 1] <= l.start[i], "level {} overlaps", d); }
                if d > 0 {
                    let p = &s.levels[d - 1];
                    let pi = l.parent[i] as usize;
                    prop_assert!(p.start[pi] <= l.start[i] && l.end[i] <= p.end[pi]);
                }
            }
        }
    }

    #[test]
    fn boxes_account_for_every_visible_call(ev in events(), a in 0u64..20_000, w in 1u64..20_000, px in 1u32..2_000) {
        let s = build(&ev);
        for l in &s.levels {
            let boxes = l.boxes(a, a + w, w as f64 / px as f64);
            let visible = (0..l.len()).filter(|&i| l.end[i] > a && l.start[i] < a + w).count();
            prop_assert_eq!(boxes.iter().map(|b| b.count as usize).sum::<usize>(), visible);
            prop_assert!(boxes.len() <= visible);
        }
    }

    #[test]
    fn profiles_never_exceed_the_covered_time(ev in events(), iv in prop::collection::vec((0u64..30_000, 0u64..30_000), 0..5)) {
        let s = build(&ev);
        let iv = normalize_intervals(iv);
        let covered: u64 = iv.iter().map(|(a, b)| b - a).sum();
        let p = interval_profile(std::slice::from_ref(&s), &iv);
        prop_assert!(p.total_real <= covered as f64);
        for r in &p.rows {
            prop_assert!(r.excl_real >= -1e-6 && r.excl_real <= r.incl_real + 1e-6, "{:?}", r);
            prop_assert!(r.recursive_calls <= r.calls);
        }
    }
}
