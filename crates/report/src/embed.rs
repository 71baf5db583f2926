//! Packs call slices for the self-contained report: little-endian typed
//! columns in base64 (decoded straight into `Float64Array`/`Uint32Array`),
//! summarised to a budget when the trace is larger than one file should hold.

use base64::Engine as _;
use serde_json::{json, Value};
use tracekit_analysis::slices::{Level, ThreadSlices, NO_PARENT};

/// Number of time buckets in which omitted calls are counted per level.
pub const DENSITY_BUCKETS: usize = 2048;

/// What was left out of a summarised report.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Calls in the session.
    pub total_calls: usize,
    /// Calls drawn individually.
    pub shown_calls: usize,
    /// Calls this long or shorter (ns) were counted per time bucket instead
    /// of drawn individually; 0 when nothing was left out.
    pub max_omitted_ns: u64,
}

impl Summary {
    /// True when some calls are drawn only as counts.
    pub fn summarised(&self) -> bool {
        self.shown_calls < self.total_calls
    }
}

fn b64_f64(v: impl Iterator<Item = u64>) -> String {
    let mut bytes = Vec::new();
    for x in v {
        bytes.extend_from_slice(&(x as f64).to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn b64_f64v(v: impl Iterator<Item = f64>) -> String {
    let mut bytes = Vec::new();
    for x in v {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn b64_f32(v: impl Iterator<Item = f32>) -> String {
    let mut bytes = Vec::new();
    for x in v {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn b64_u32(v: impl Iterator<Item = u32>) -> String {
    let mut bytes = Vec::new();
    for x in v {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The duration (ns) at or below which calls are omitted so that at most
/// `budget` calls remain; `None` when everything fits.
pub fn omission_threshold(threads: &[ThreadSlices], budget: usize) -> Option<u64> {
    let total: usize = threads.iter().map(ThreadSlices::call_count).sum();
    if total <= budget {
        return None;
    }
    let mut d: Vec<u64> = threads
        .iter()
        .flat_map(|t| t.levels.iter())
        .flat_map(|l| l.start.iter().zip(&l.end).map(|(s, e)| e - s))
        .collect();
    // Keep calls strictly longer than the (total - budget)-th shortest: a
    // parent is never shorter than its child, so kept calls keep their parents.
    let k = total - budget;
    let (_, &mut nth, _) = d.select_nth_unstable(k - 1);
    Some(nth)
}

/// Encodes the slices of every thread, keeping only calls longer than
/// `threshold` (all when `None`); omitted calls are counted per level in
/// [`DENSITY_BUCKETS`] buckets over `span`.
pub fn encode_threads(threads: &[ThreadSlices], span: (u64, u64), threshold: Option<u64>) -> (Vec<Value>, Summary) {
    let total_calls: usize = threads.iter().map(ThreadSlices::call_count).sum();
    let mut shown = 0usize;
    let width = (span.1 - span.0).max(1) as f64;
    let out = threads
        .iter()
        .map(|t| {
            let mut levels = Vec::new();
            let mut density = Vec::new();
            let mut prev_map: Vec<u32> = Vec::new();
            for l in &t.levels {
                let keep: Vec<bool> = match threshold {
                    None => vec![true; l.len()],
                    Some(th) => (0..l.len()).map(|i| l.end[i] - l.start[i] > th).collect(),
                };
                let mut map = vec![NO_PARENT; l.len()];
                let mut kept = Vec::new();
                let mut counts = vec![0u32; if threshold.is_some() { DENSITY_BUCKETS } else { 0 }];
                for i in 0..l.len() {
                    if keep[i] {
                        map[i] = kept.len() as u32;
                        kept.push(i);
                    } else {
                        let b = ((l.start[i].saturating_sub(span.0)) as f64 / width * DENSITY_BUCKETS as f64) as usize;
                        counts[b.min(DENSITY_BUCKETS - 1)] += 1;
                    }
                }
                shown += kept.len();
                if !counts.is_empty() {
                    density.push(b64_u32(counts.into_iter()));
                }
                if !kept.is_empty() {
                    levels.push(encode_level(l, &kept, &prev_map));
                }
                prev_map = map;
            }
            json!({"levels": levels, "omitted": density})
        })
        .collect();
    let summary = Summary {
        total_calls,
        shown_calls: shown,
        max_omitted_ns: threshold.unwrap_or(0),
    };
    (out, summary)
}

fn encode_level(l: &Level, kept: &[usize], parent_map: &[u32]) -> Value {
    let cpu = l.has_cpu();
    json!({
        "start": b64_f64(kept.iter().map(|&i| l.start[i])),
        "end": b64_f64(kept.iter().map(|&i| l.end[i])),
        // Only CPU durations are ever used; 32-bit floats keep them to 7 digits.
        "cpuDur": if cpu { Value::from(b64_f32(kept.iter().map(|&i| (l.cpu_end[i] - l.cpu_start[i]) as f32))) } else { Value::Null },
        // Inclusive energy of each call, J, when power was charged to calls.
        "energy": if l.has_energy() { Value::from(b64_f64v(kept.iter().map(|&i| l.energy[i]))) } else { Value::Null },
        "method": b64_u32(kept.iter().map(|&i| l.method[i])),
        "parent": b64_u32(kept.iter().map(|&i| {
            let p = l.parent[i];
            if p == NO_PARENT { NO_PARENT } else { parent_map[p as usize] }
        })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{CallColumns, CallEvent, MethodId};

    fn thread(n: u64) -> ThreadSlices {
        // One root spanning everything, with n children of growing length.
        let mut c = CallColumns::new();
        c.push(CallEvent::enter(MethodId(0), 0, None));
        let mut t = 1;
        for k in 1..=n {
            c.push(CallEvent::enter(MethodId(1), t, None));
            c.push(CallEvent::exit(MethodId(1), t + k, None));
            t += k + 1;
        }
        c.push(CallEvent::exit(MethodId(0), t, None));
        ThreadSlices::build(&c, 2)
    }

    #[test]
    fn fits_without_summary() {
        let th = [thread(10)];
        assert_eq!(omission_threshold(&th, 11), None);
        let (v, s) = encode_threads(&th, (0, 100), None);
        assert!(!s.summarised());
        assert_eq!(s.shown_calls, 11);
        assert_eq!(v[0]["levels"].as_array().unwrap().len(), 2);
        assert_eq!(v[0]["omitted"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn summary_keeps_longest_calls_and_counts_the_rest() {
        let th = [thread(100)];
        let cut = omission_threshold(&th, 21).unwrap();
        assert_eq!(cut, 80, "children last 1..=100 ns; the 20 longest plus the root stay");
        let (v, s) = encode_threads(&th, (0, 6000), Some(cut));
        assert!(s.summarised());
        assert_eq!((s.total_calls, s.shown_calls), (101, 21));
        let counts = base64::engine::general_purpose::STANDARD
            .decode(v[0]["omitted"][1].as_str().unwrap())
            .unwrap();
        let omitted: u32 = counts
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .sum();
        assert_eq!(omitted, 80);
        let parents = base64::engine::general_purpose::STANDARD
            .decode(v[0]["levels"][1]["parent"].as_str().unwrap())
            .unwrap();
        assert!(
            parents
                .chunks(4)
                .all(|c| u32::from_le_bytes(c.try_into().unwrap()) == 0),
            "parents remapped to the kept root"
        );
    }
}
