//! How the fuel gauge behaves under the sampler: repeated (stale) samples,
//! its real update period, its resolution, and two samplers writing the
//! same readings.
//!
//! - A sample is *stale* when none of the input tracks brought a value that
//!   differs from its previous one: the sampler read faster than the gauge
//!   updated.
//! - The gauge's update period is estimated as the mean time between
//!   samples that did bring a new value: `(last change − first change) /
//!   (changes − 1)`. Observed changes are quantised to sampling instants,
//!   so single intervals are multiples of the sampling period (the seed's
//!   `e` changes every 107 or 213 ms, median 212 ms), but their mean
//!   converges on the gauge's own period. With no stale samples the gauge
//!   is at least as fast as the sampler and no period is claimed.
//! - Resolution is estimated as the smallest non-zero step between
//!   consecutive values (an upper bound of the true step).
//! - Two samplers: no single sampler reads the gauge twice within
//!   [`CLOSE_PAIR_NS`], nor at a quarter of its own median period; two
//!   consecutive samples that close come from two writers (the seed's
//!   18090.093080 s and 18090.093645 s, from pids 15464 and 12268).

use serde::Serialize;

/// Two samples of one track closer than this are not one sampler's.
pub const CLOSE_PAIR_NS: i64 = 5_000_000;

/// What the samples of one input track show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackGauge {
    /// Track name.
    pub track: String,
    /// Unit of the values below.
    pub unit: String,
    /// Number of samples.
    pub samples: usize,
    /// Median interval between samples, ms.
    pub sampling_period_ms: Option<f64>,
    /// Consecutive pairs with the same value.
    pub unchanged_pairs: usize,
    /// Consecutive pairs whose value changed.
    pub changes: usize,
    /// Mean time between changes, ms (the gauge's update period), when
    /// some samples repeated.
    pub update_period_ms: Option<f64>,
    /// Median time between changes, ms.
    pub median_change_interval_ms: Option<f64>,
    /// Smallest non-zero step between consecutive values.
    pub resolution: Option<f64>,
    /// Processes that wrote the samples, when the tracks say.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pids: Vec<u32>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    })
}

/// Median interval between consecutive times, ns.
pub(crate) fn median_interval_ns(times: &[i64]) -> Option<f64> {
    median(times.windows(2).map(|w| (w[1] - w[0]) as f64).collect())
}

/// Mean and median interval between the given change times, ms.
pub(crate) fn change_period_ms(change_times: &[i64]) -> (Option<f64>, Option<f64>) {
    if change_times.len() < 2 {
        return (None, None);
    }
    let n = change_times.len();
    let mean = (change_times[n - 1] - change_times[0]) as f64 / (n - 1) as f64 * 1e-6;
    let med = median(change_times.windows(2).map(|w| (w[1] - w[0]) as f64 * 1e-6).collect());
    (Some(mean), med)
}

/// Analyses one track's samples.
pub(crate) fn track_gauge(track: &str, unit: &str, times: &[i64], values: &[f64], pids: Vec<u32>) -> TrackGauge {
    let mut changes = Vec::new();
    let mut unchanged = 0;
    let mut resolution: Option<f64> = None;
    for k in 1..values.len() {
        let step = (values[k] - values[k - 1]).abs();
        if step == 0.0 {
            unchanged += 1;
        } else {
            changes.push(times[k]);
            resolution = Some(resolution.map_or(step, |r: f64| r.min(step)));
        }
    }
    let (mean, med) = change_period_ms(&changes);
    TrackGauge {
        track: track.to_owned(),
        unit: unit.to_owned(),
        samples: values.len(),
        sampling_period_ms: median_interval_ns(times).map(|ns| ns * 1e-6),
        unchanged_pairs: unchanged,
        changes: changes.len(),
        update_period_ms: if unchanged > 0 { mean } else { None },
        median_change_interval_ms: med,
        resolution,
        pids,
    }
}

/// Samples of several tracks taken together: which sample instants
/// brought no new value on any track (stale), and the instants that did.
/// Each track is `(times, values)`; instants are the union of their times.
pub(crate) fn joint_freshness(tracks: &[(&[i64], &[f64])]) -> (usize, Vec<i64>) {
    let mut events: Vec<(i64, bool)> = Vec::new();
    for (times, values) in tracks {
        for k in 0..times.len() {
            let fresh = k == 0 || values[k] != values[k - 1];
            events.push((times[k], fresh));
        }
    }
    events.sort_by_key(|e| e.0);
    let mut stale = 0;
    let mut fresh_times = Vec::new();
    let mut i = 0;
    let mut first = true;
    while i < events.len() {
        let t = events[i].0;
        let mut fresh = false;
        while i < events.len() && events[i].0 == t {
            fresh |= events[i].1;
            i += 1;
        }
        if first {
            first = false;
        } else if fresh {
            fresh_times.push(t);
        } else {
            stale += 1;
        }
    }
    (stale, fresh_times)
}

/// Two consecutive samples too close for one sampler.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplerPair {
    /// Time of the first sample, µs on the session timeline.
    pub first_us: f64,
    /// Time of the second sample, µs.
    pub second_us: f64,
    /// Their distance, µs.
    pub gap_us: f64,
    /// True when the second repeats the first's values.
    pub same_values: bool,
    /// Tracks in which the pair shows.
    pub tracks: Vec<String>,
    /// Writers of the two samples, when the tracks say.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pids: Vec<u32>,
}

/// Close pairs in one track (`pids[k]` the writer of sample `k`, if known).
pub(crate) fn close_pairs(track: &str, times: &[i64], values: &[f64], pids: &[Option<u32>]) -> Vec<SamplerPair> {
    let intervals = times.len().saturating_sub(1);
    let limit = match median_interval_ns(times) {
        Some(m) if intervals >= 3 => (CLOSE_PAIR_NS as f64).min(m / 4.0),
        _ => CLOSE_PAIR_NS as f64,
    };
    let mut out = Vec::new();
    for k in 1..times.len() {
        let gap = times[k] - times[k - 1];
        if (gap as f64) < limit {
            let mut writers: Vec<u32> = [pids.get(k - 1), pids.get(k)]
                .into_iter()
                .flatten()
                .flatten()
                .copied()
                .collect();
            writers.dedup();
            out.push(SamplerPair {
                first_us: times[k - 1] as f64 * 1e-3,
                second_us: times[k] as f64 * 1e-3,
                gap_us: gap as f64 * 1e-3,
                same_values: values[k] == values[k - 1],
                tracks: vec![track.to_owned()],
                pids: writers,
            });
        }
    }
    out
}

/// Merges pairs found in several tracks at the same instants.
pub(crate) fn merge_pairs(mut pairs: Vec<SamplerPair>) -> Vec<SamplerPair> {
    pairs.sort_by(|a, b| {
        a.first_us
            .total_cmp(&b.first_us)
            .then(a.second_us.total_cmp(&b.second_us))
    });
    let mut out: Vec<SamplerPair> = Vec::new();
    for p in pairs {
        match out.last_mut() {
            Some(last) if last.first_us == p.first_us && last.second_us == p.second_us => {
                last.same_values &= p.same_values;
                last.tracks.extend(p.tracks);
                for pid in p.pids {
                    if !last.pids.contains(&pid) {
                        last.pids.push(pid);
                    }
                }
            }
            _ => out.push(p),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_samples_and_period() {
        // A gauge updating every 200 ms read every 100 ms.
        let t: Vec<i64> = (0..9).map(|k| k * 100_000_000).collect();
        let v = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0, 5.0];
        let g = track_gauge("x", "V", &t, &v, vec![]);
        assert_eq!((g.unchanged_pairs, g.changes), (4, 4));
        assert_eq!(g.update_period_ms, Some(200.0));
        assert_eq!(g.sampling_period_ms, Some(100.0));
        assert_eq!(g.resolution, Some(1.0));
        let (stale, fresh) = joint_freshness(&[(&t, &v), (&t, &v)]);
        assert_eq!((stale, fresh.len()), (4, 4));
    }

    #[test]
    fn close_pairs_need_to_be_close_for_the_sampler() {
        let t = [0, 100_000_000, 200_000_000, 200_565_000, 300_000_000];
        let v = [1.0, 2.0, 3.0, 3.0, 4.0];
        let p = close_pairs("v", &t, &v, &[None, None, Some(15464), Some(12268), None]);
        assert_eq!(p.len(), 1);
        assert!((p[0].gap_us - 565.0).abs() < 1e-9 && p[0].same_values);
        assert_eq!(p[0].pids, vec![15464, 12268]);
        // A 10 kHz monitor is not two samplers.
        let t: Vec<i64> = (0..10).map(|k| k * 100_000).collect();
        assert!(close_pairs("i", &t, &[0.0; 10], &[]).is_empty());
        // Two samples alone, 0.565 ms apart: flagged.
        assert_eq!(close_pairs("i", &[0, 565_000], &[1.0, 1.0], &[]).len(), 1);
    }
}
