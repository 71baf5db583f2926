//! The session's tracks as the quantities power models need, each a step
//! function over time ([`Step`]): per-CPU frequency and running state,
//! screen state and brightness, Wi-Fi state and traffic, mobile radio and
//! GPS. [`Drivers::discover`] finds the tracks by name and says which it
//! used.
//!
//! Where several sources could say whether a CPU runs, scheduling slices
//! win (a thread on the CPU), then the `cpuN idle` track (the kernel's
//! `cpu_idle`: −1 means the CPU left idle, a state number that it entered
//! one). A CPU with neither is not modelled, and the drivers say so.

use serde::Serialize;
use tracekit_model::{ContextTrack, CounterTrack, Session};

/// A quantity held from each sample to the next, with its integral.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Step {
    times: Vec<i64>,
    values: Vec<f64>,
    /// ∫ from the first sample up to each sample (value × seconds).
    cum: Vec<f64>,
    /// The value before the first sample.
    before: f64,
}

impl Step {
    /// A step function from samples in time order (later samples at the same
    /// instant replace earlier ones); `before` holds before the first.
    pub fn new(times: Vec<i64>, values: Vec<f64>, before: f64) -> Step {
        let mut t2: Vec<i64> = Vec::with_capacity(times.len());
        let mut v2: Vec<f64> = Vec::with_capacity(values.len());
        for (t, v) in times.into_iter().zip(values) {
            if t2.last() == Some(&t) {
                *v2.last_mut().expect("same length") = v;
            } else if v2.last() != Some(&v) || t2.is_empty() {
                t2.push(t);
                v2.push(v);
            }
        }
        let mut cum = Vec::with_capacity(t2.len());
        let mut acc = 0.0;
        for k in 0..t2.len() {
            if k > 0 {
                acc += v2[k - 1] * (t2[k] - t2[k - 1]) as f64 * 1e-9;
            }
            cum.push(acc);
        }
        Step {
            times: t2,
            values: v2,
            cum,
            before,
        }
    }

    /// A constant.
    pub fn constant(v: f64) -> Step {
        Step::new(Vec::new(), Vec::new(), v)
    }

    /// Change times.
    pub fn times(&self) -> &[i64] {
        &self.times
    }

    /// Values from each change time on.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// True when the function never changes.
    pub fn is_constant(&self) -> bool {
        self.times.len() <= 1 && self.values.first().is_none_or(|&v| v == self.before)
    }

    /// The value at `t`.
    pub fn at(&self, t: i64) -> f64 {
        match self.times.partition_point(|&x| x <= t) {
            0 => self.before,
            i => self.values[i - 1],
        }
    }

    /// ∫ from the first sample to `t` (negative before it, counting
    /// `before`), for window means.
    fn integral_at(&self, t: i64, k: usize) -> f64 {
        // k = number of samples at or before t.
        match k {
            0 => match self.times.first() {
                Some(&t0) => -self.before * (t0 - t) as f64 * 1e-9,
                None => self.before * t as f64 * 1e-9,
            },
            k => self.cum[k - 1] + self.values[k - 1] * (t - self.times[k - 1]) as f64 * 1e-9,
        }
    }

    /// The mean over `[a, b]` (the value at `a` when the window is empty).
    pub fn mean(&self, a: i64, b: i64) -> f64 {
        if b <= a {
            return self.at(a);
        }
        let ka = self.times.partition_point(|&x| x <= a);
        let kb = self.times.partition_point(|&x| x <= b);
        (self.integral_at(b, kb) - self.integral_at(a, ka)) / ((b - a) as f64 * 1e-9)
    }

    /// A cursor for window means at times that never go backwards.
    pub fn cursor(&self) -> StepCursor<'_> {
        StepCursor { step: self, k: 0 }
    }

    /// `f` of several step functions, as one step function changing at the
    /// union of their change times.
    pub fn combine(inputs: &[&Step], f: impl Fn(&[f64]) -> f64) -> Step {
        let mut times: Vec<i64> = inputs.iter().flat_map(|s| s.times.iter().copied()).collect();
        times.sort_unstable();
        times.dedup();
        let mut idx = vec![0usize; inputs.len()];
        let mut cur: Vec<f64> = inputs.iter().map(|s| s.before).collect();
        let before = f(&cur);
        let mut values = Vec::with_capacity(times.len());
        for &t in &times {
            for (j, s) in inputs.iter().enumerate() {
                while idx[j] < s.times.len() && s.times[idx[j]] <= t {
                    cur[j] = s.values[idx[j]];
                    idx[j] += 1;
                }
            }
            values.push(f(&cur));
        }
        Step::new(times, values, before)
    }
}

/// Window means of a [`Step`] at non-decreasing times, in amortised O(1).
#[derive(Debug, Clone)]
pub struct StepCursor<'a> {
    step: &'a Step,
    k: usize,
}

impl StepCursor<'_> {
    fn integral(&mut self, t: i64) -> f64 {
        let s = self.step;
        while self.k < s.times.len() && s.times[self.k] <= t {
            self.k += 1;
        }
        s.integral_at(t, self.k)
    }

    /// The mean over `[a, b]`; `a` must not be before the previous call's `b`.
    pub fn mean(&mut self, a: i64, b: i64) -> f64 {
        if b <= a {
            return self.step.at(a);
        }
        let ia = self.integral(a);
        let ib = self.integral(b);
        (ib - ia) / ((b - a) as f64 * 1e-9)
    }
}

/// A numeric track of the session: a counter, or a context item whose
/// values are numbers.
fn numeric(session: &Session, label: &str) -> Option<(Vec<i64>, Vec<f64>)> {
    if let Some(c) = session
        .counters
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(label) && !c.is_empty())
    {
        return Some((c.times.clone(), c.values.clone()));
    }
    let t: &ContextTrack = session
        .context
        .iter()
        .find(|t| t.label.eq_ignore_ascii_case(label) && !t.is_empty())?;
    let values: Option<Vec<f64>> = (0..t.len()).map(|i| t.samples.get_f64(i)).collect();
    Some((t.times.clone(), values?))
}

/// The tracks that drive a power model, found by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Drivers {
    /// Per CPU: its frequency track (kHz).
    pub cpu_freq: Vec<(u32, String)>,
    /// Per CPU: where its running state comes from (`sched` or an idle track).
    pub cpu_running: Vec<(u32, String)>,
    /// Screen on (non-zero = on).
    pub screen_on: Option<String>,
    /// Screen brightness (0–255).
    pub brightness: Option<String>,
    /// Wi-Fi enabled (Android's `WIFI_STATE_ENABLED` = 3, or non-zero).
    pub wifi_on: Option<String>,
    /// Bytes received, cumulative.
    pub rx_bytes: Option<String>,
    /// Bytes sent, cumulative.
    pub tx_bytes: Option<String>,
    /// Mobile radio active (non-zero).
    pub radio: Option<String>,
    /// GPS on (non-zero).
    pub gps: Option<String>,
    /// CPU utilisation of the whole device (0–1, or %), when no CPU's
    /// running state is known (seed 000's `CPU` item).
    pub cpu_utilisation: Option<String>,
    /// What could not be found.
    pub missing: Vec<String>,
}

/// Traffic faster than this (bytes per second) counts as the radio being active.
pub const ACTIVE_TRAFFIC_BPS: f64 = 1024.0;

fn first_present(session: &Session, labels: &[&str]) -> Option<String> {
    labels
        .iter()
        .find(|l| numeric(session, l).is_some())
        .map(|l| (*l).to_owned())
}

fn cpu_counter<'s>(session: &'s Session, cpu: u32, suffix: &str) -> Option<&'s CounterTrack> {
    session
        .counters
        .iter()
        .find(|c| c.cpu == Some(cpu) && c.name.ends_with(suffix) && !c.is_empty())
}

impl Drivers {
    /// Finds the tracks in `session`: `cpuN freq` / `cpuN idle` counters
    /// and scheduling slices per CPU; `Screen state` or `screen on`;
    /// `Screen brightness` or a `Backlight … brightness` item; `Wifi state`
    /// or `wifi on`; `Total received traffic` / `Total sent traffic`;
    /// `radio active`; `gps on` (names compared without case).
    pub fn discover(session: &Session) -> Drivers {
        let mut d = Drivers::default();
        let mut cpus: Vec<u32> = session.counters.iter().filter_map(|c| c.cpu).collect();
        cpus.extend(session.sched.iter().map(|s| s.cpu));
        cpus.sort_unstable();
        cpus.dedup();
        for cpu in cpus {
            if let Some(c) = cpu_counter(session, cpu, " freq") {
                d.cpu_freq.push((cpu, c.name.clone()));
            }
            if session.sched.iter().any(|s| s.cpu == cpu) {
                d.cpu_running.push((cpu, "sched".to_owned()));
            } else if let Some(c) = cpu_counter(session, cpu, " idle") {
                d.cpu_running.push((cpu, c.name.clone()));
            } else {
                d.missing.push(format!("cpu{cpu}: no scheduling slices or idle track"));
            }
        }
        d.screen_on = first_present(session, &["Screen state", "screen on"]);
        d.brightness = first_present(session, &["Screen brightness", "screen brightness"]).or_else(|| {
            session
                .context_items()
                .iter()
                .find(|t| {
                    let l = t.label.to_ascii_lowercase();
                    l.starts_with("backlight") && l.ends_with("brightness")
                })
                .map(|t| t.label.clone())
        });
        d.wifi_on = first_present(session, &["Wifi state", "wifi on"]);
        d.rx_bytes = first_present(session, &["Total received traffic"]);
        d.tx_bytes = first_present(session, &["Total sent traffic"]);
        d.radio = first_present(session, &["radio active", "Mobile radio active"]);
        d.gps = first_present(session, &["gps on", "GPS"]);
        if d.cpu_running.is_empty() {
            d.cpu_utilisation = first_present(session, &["CPU", "CPU usage", "cpu utilisation", "cpu utilization"]);
        }
        for (what, v) in [
            ("screen state", &d.screen_on),
            ("brightness", &d.brightness),
            ("Wi-Fi state", &d.wifi_on),
            ("network traffic", &d.rx_bytes),
        ] {
            if v.is_none() {
                d.missing.push(format!("no {what} track"));
            }
        }
        d
    }
}

/// The quantities, as step functions, that the drivers name.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// Per CPU (index = CPU number): frequency in kHz, when known.
    pub freq_khz: Vec<Option<Step>>,
    /// Per CPU: 1 while running, 0 while idle, when known.
    pub running: Vec<Option<Step>>,
    /// Screen on: 1 / 0.
    pub screen_on: Option<Step>,
    /// Brightness as a fraction of full (0–1).
    pub brightness: Option<Step>,
    /// Wi-Fi on: 1 / 0.
    pub wifi_on: Option<Step>,
    /// Receiving: 1 while more than [`ACTIVE_TRAFFIC_BPS`] come in.
    pub rx_active: Option<Step>,
    /// Sending: 1 while more than [`ACTIVE_TRAFFIC_BPS`] go out.
    pub tx_active: Option<Step>,
    /// Mobile radio active: 1 / 0.
    pub radio: Option<Step>,
    /// GPS on: 1 / 0.
    pub gps: Option<Step>,
    /// Device CPU utilisation, 0–1.
    pub cpu_utilisation: Option<Step>,
}

fn nonzero(v: f64) -> f64 {
    f64::from(u8::from(v != 0.0))
}

/// A cumulative byte counter as 1 while it grows faster than the threshold.
fn active_from_bytes(times: &[i64], bytes: &[f64]) -> Step {
    let mut t = Vec::with_capacity(times.len());
    let mut v = Vec::with_capacity(times.len());
    for k in 1..times.len() {
        let dt = (times[k] - times[k - 1]) as f64 * 1e-9;
        let rate = if dt > 0.0 { (bytes[k] - bytes[k - 1]) / dt } else { 0.0 };
        t.push(times[k - 1]);
        v.push(f64::from(u8::from(rate > ACTIVE_TRAFFIC_BPS)));
    }
    if let Some(&last) = times.last() {
        t.push(last);
        v.push(0.0);
    }
    Step::new(t, v, 0.0)
}

/// When each CPU ran, from scheduling slices: 1 inside a slice.
fn running_from_sched(session: &Session, cpu: u32) -> Step {
    let mut edges: Vec<(i64, i32)> = Vec::new();
    for s in session.sched.iter().filter(|s| s.cpu == cpu) {
        edges.push((s.ts_ns as i64, 1));
        edges.push(((s.ts_ns + s.dur_ns) as i64, -1));
    }
    edges.sort_unstable();
    let mut depth = 0;
    let (mut t, mut v) = (Vec::new(), Vec::new());
    for (time, d) in edges {
        depth += d;
        t.push(time);
        v.push(f64::from(u8::from(depth > 0)));
    }
    Step::new(t, v, 0.0)
}

impl Signals {
    /// Builds the step functions the drivers name.
    pub fn build(session: &Session, d: &Drivers) -> Signals {
        let mut s = Signals::default();
        let n = d
            .cpu_freq
            .iter()
            .map(|x| x.0)
            .chain(d.cpu_running.iter().map(|x| x.0))
            .max()
            .map_or(0, |m| m as usize + 1);
        s.freq_khz = vec![None; n];
        s.running = vec![None; n];
        for (cpu, name) in &d.cpu_freq {
            if let Some(c) = session.counters.iter().find(|c| &c.name == name && c.cpu == Some(*cpu)) {
                let f = if c.unit.as_deref().is_some_and(|u| u.eq_ignore_ascii_case("Hz")) {
                    1e-3
                } else {
                    1.0
                };
                let first = c.values.first().copied().unwrap_or(0.0) * f;
                s.freq_khz[*cpu as usize] = Some(Step::new(
                    c.times.clone(),
                    c.values.iter().map(|v| v * f).collect(),
                    first,
                ));
            }
        }
        for (cpu, source) in &d.cpu_running {
            let step = if source == "sched" {
                running_from_sched(session, *cpu)
            } else if let Some(c) = session
                .counters
                .iter()
                .find(|c| &c.name == source && c.cpu == Some(*cpu))
            {
                Step::new(
                    c.times.clone(),
                    c.values.iter().map(|&v| f64::from(u8::from(v < 0.0))).collect(),
                    0.0,
                )
            } else {
                continue;
            };
            s.running[*cpu as usize] = Some(step);
        }
        let level = |name: &Option<String>, map: &dyn Fn(f64) -> f64| {
            name.as_ref().and_then(|l| numeric(session, l)).map(|(t, v)| {
                let v: Vec<f64> = v.into_iter().map(map).collect();
                let first = v.first().copied().unwrap_or(0.0);
                Step::new(t, v, first)
            })
        };
        s.screen_on = level(&d.screen_on, &nonzero);
        s.brightness = level(&d.brightness, &|v| (v / 255.0).clamp(0.0, 1.0));
        let wifi_label = d.wifi_on.clone().unwrap_or_default();
        s.wifi_on = level(&d.wifi_on, &|v| {
            if wifi_label.eq_ignore_ascii_case("Wifi state") {
                f64::from(u8::from(v == 3.0))
            } else {
                nonzero(v)
            }
        });
        let bytes = |name: &Option<String>| {
            name.as_ref()
                .and_then(|l| numeric(session, l))
                .map(|(t, v)| active_from_bytes(&t, &v))
        };
        s.rx_active = bytes(&d.rx_bytes);
        s.tx_active = bytes(&d.tx_bytes);
        s.radio = level(&d.radio, &nonzero);
        s.gps = level(&d.gps, &nonzero);
        if let Some((t, v)) = d.cpu_utilisation.as_ref().and_then(|l| numeric(session, l)) {
            let percent = v.iter().any(|&x| x > 1.5);
            let v: Vec<f64> = v.iter().map(|&x| if percent { x / 100.0 } else { x }).collect();
            let first = v.first().copied().unwrap_or(0.0);
            s.cpu_utilisation = Some(Step::new(t, v, first));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_and_average() {
        let s = Step::new(vec![0, 10, 10, 20], vec![1.0, 5.0, 3.0, 0.0], 2.0);
        assert_eq!(s.times(), &[0, 10, 20]);
        assert_eq!((s.at(-1), s.at(0), s.at(15), s.at(99)), (2.0, 1.0, 3.0, 0.0));
        assert!((s.mean(0, 20) - 2.0).abs() < 1e-12);
        assert!((s.mean(-10, 0) - 2.0).abs() < 1e-12);
        assert!((s.mean(5, 25) - (5.0 + 30.0) / 20.0).abs() < 1e-12);
        let mut c = s.cursor();
        assert!((c.mean(-10, 0) - 2.0).abs() < 1e-12);
        assert!((c.mean(5, 25) - 1.75).abs() < 1e-12);
        let sum = Step::combine(&[&s, &Step::new(vec![5], vec![10.0], 0.0)], |v| v[0] + v[1]);
        assert_eq!((sum.at(-1), sum.at(7), sum.at(12)), (2.0, 11.0, 13.0));
    }

    #[test]
    fn traffic_counts_as_active_above_the_threshold() {
        let s = active_from_bytes(&[0, 1_000_000_000, 2_000_000_000], &[0.0, 100.0, 100_100.0]);
        assert_eq!(
            (s.at(500_000_000), s.at(1_500_000_000), s.at(3_000_000_000)),
            (0.0, 1.0, 0.0)
        );
    }
}
