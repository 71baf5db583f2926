//! The energy index of one session and the report built from it.

use crate::curve::{secs, Rate, Rule, Total};
use crate::gauge::{self, SamplerPair, TrackGauge};
use crate::report::WindowEnergy;
use crate::sign::{self, SignDecision, SignEvidence};
use crate::source::{self, Series, SourceTrack};
use crate::windows::Window;
use crate::{counter_names, wrap_from_session, Error, Method, Options, SourceChoice};
use tracekit_model::{power, Session};

/// The shape of the energy source.
#[derive(Debug, Clone)]
pub(crate) enum Curve {
    Rate(Rate),
    Total(Total),
    Nothing,
}

/// A source of energy over time, ready for window queries.
#[derive(Debug, Clone)]
pub(crate) struct Energy {
    pub(crate) curve: Curve,
    /// Resolution term per covered second, W.
    pub(crate) res_w: f64,
    /// Resolution term per window, J.
    pub(crate) res_j: f64,
}

/// Power samples and how they are joined ([`EnergyIndex::power_samples`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PowerSamples {
    /// Sample times, ns on the session's timeline, non-decreasing.
    pub times: Vec<i64>,
    /// Power at each sample, W.
    pub watts: Vec<f64>,
    /// Linear between samples ([`Rule::Trapezoid`]) or held
    /// ([`Rule::LeftHold`]).
    pub rule: Rule,
}

/// A session's power data prepared for window queries.
#[derive(Debug, Clone)]
pub struct EnergyIndex {
    pub(crate) method: Method,
    pub(crate) rule: Rule,
    pub(crate) energy: Energy,
    /// Current (A, normalised) or drawn charge total (µAh).
    pub(crate) charge: Curve,
    pub(crate) span: (i64, i64),
    pub(crate) lag_ns: i64,
    pub(crate) min_window_ns: i64,
    pub(crate) sign: SignDecision,
    pub(crate) sources: Vec<SourceTrack>,
    pub(crate) gauge: Vec<TrackGauge>,
    pub(crate) stale_samples: usize,
    pub(crate) gauge_period_ms: Option<f64>,
    pub(crate) sampling_period_ms: Option<f64>,
    pub(crate) two_samplers: Vec<SamplerPair>,
    pub(crate) alternatives: Vec<(String, Energy, String)>,
    pub(crate) notes: Vec<String>,
}

struct Inputs {
    v: Series,
    i: Series,
    p: Series,
    e: Series,
    q: Series,
}

fn res_or(given: Option<f64>, g: Option<&TrackGauge>) -> f64 {
    given.or_else(|| g.and_then(|g| g.resolution)).unwrap_or(0.0)
}

impl EnergyIndex {
    /// Finds the power tracks, decides the current's sign, measures the
    /// gauge and prepares the chosen source.
    pub fn build(session: &Session, o: &Options) -> Result<EnergyIndex, Error> {
        let n = &o.tracks;
        let inp = Inputs {
            v: source::series_or_alias(session, &n.voltage, power::VOLT, &n.context_aliases)?,
            i: source::series_or_alias(session, &n.current, power::AMPERE, &n.context_aliases)?,
            p: source::series_or_alias(session, &n.power, power::WATT, &n.context_aliases)?,
            e: source::series_or_alias(session, &n.energy, power::JOULE, &n.context_aliases)?,
            q: source::series_or_alias(session, &n.charge, power::MICRO_AMPERE_HOUR, &n.context_aliases)?,
        };
        let sign = sign::decide(
            session,
            o.current_sign,
            &SignEvidence {
                times: &inp.i.times,
                current: &inp.i.values,
                charge: (!inp.q.is_empty()).then(|| (&inp.q.times[..], &inp.q.values[..])),
                voltage: (!inp.v.is_empty()).then(|| (&inp.v.times[..], &inp.v.values[..])),
                status_label: &n.status,
                declared: inp.i.alias.as_ref().and_then(|a| a.sign),
            },
        );
        let k = sign.factor();
        let gauges: Vec<(char, TrackGauge)> = [
            ('v', &inp.v),
            ('i', &inp.i),
            ('p', &inp.p),
            ('e', &inp.e),
            ('q', &inp.q),
        ]
        .into_iter()
        .filter(|(_, s)| !s.is_empty())
        .map(|(c, s)| {
            (
                c,
                gauge::track_gauge(&s.name, &s.unit, &s.times, &s.values, s.writers()),
            )
        })
        .collect();
        let g = |c: char| gauges.iter().find(|(x, _)| *x == c).map(|(_, g)| g);
        let has = |s: &Series| !s.is_empty();
        let nominal = o.nominal_voltage_v;
        let choice = match o.source {
            SourceChoice::Auto if has(&inp.v) && has(&inp.i) => SourceChoice::VoltageCurrent,
            SourceChoice::Auto if has(&inp.p) => SourceChoice::Power,
            SourceChoice::Auto if has(&inp.e) => SourceChoice::EnergyCounter,
            SourceChoice::Auto if has(&inp.q) && (has(&inp.v) || nominal.is_some()) => SourceChoice::ChargeCounter,
            SourceChoice::Auto if has(&inp.i) => SourceChoice::Current,
            SourceChoice::Auto => {
                return Err(Error::NoPowerData {
                    wanted: format!(
                        "{}, {}, {}, {} or {}",
                        n.voltage, n.current, n.power, n.energy, n.charge
                    ),
                    present: counter_names(session),
                })
            }
            c => c,
        };
        let missing = |what: &str| Error::NoPowerData {
            wanted: what.to_owned(),
            present: counter_names(session),
        };
        let mut notes = Vec::new();
        let rule = if o.method == Method::LeftHold {
            Rule::LeftHold
        } else {
            Rule::Trapezoid
        };
        let rate_method = if rule == Rule::LeftHold {
            Method::LeftHold
        } else {
            Method::Trapezoid
        };
        let mut sources = Vec::new();
        let v_mean = inp.v.mean_abs();
        let i_mean = inp.i.mean_abs();
        let charge_rate = || {
            Curve::Rate(Rate::new(
                inp.i.times.clone(),
                inp.i.values.iter().map(|x| x * k).collect(),
            ))
        };
        let (method, energy, charge, primary): (Method, Energy, Curve, Vec<&Series>) = match choice {
            SourceChoice::VoltageCurrent => {
                if !has(&inp.v) || !has(&inp.i) {
                    return Err(missing(&format!("{} and {}", n.voltage, n.current)));
                }
                let (t, p) = source::product(&inp.v, &inp.i, k);
                sources.push(SourceTrack::of(&inp.v, "voltage"));
                sources.push(SourceTrack::of(&inp.i, "current"));
                let res_w = v_mean * res_or(o.resolution.current_a, g('i')) / 2.0
                    + i_mean * res_or(o.resolution.voltage_v, g('v')) / 2.0;
                let e = Energy {
                    curve: Curve::Rate(Rate::new(t, p)),
                    res_w,
                    res_j: 0.0,
                };
                (rate_method, e, charge_rate(), vec![&inp.v, &inp.i])
            }
            SourceChoice::Power => {
                if !has(&inp.p) {
                    return Err(missing(&n.power));
                }
                sources.push(SourceTrack::of(&inp.p, "power"));
                let e = power_energy(&inp.p, res_or(o.resolution.power_w, g('p')));
                let charge = if has(&inp.i) {
                    sources.push(SourceTrack::of(&inp.i, "current"));
                    charge_rate()
                } else {
                    Curve::Nothing
                };
                (rate_method, e, charge, vec![&inp.p])
            }
            SourceChoice::EnergyCounter => {
                if !has(&inp.e) {
                    return Err(missing(&n.energy));
                }
                sources.push(SourceTrack::of(&inp.e, "energy"));
                let wrap = o
                    .wrap_range_j
                    .or_else(|| wrap_from_session(session, &n.energy, inp.e.kind));
                let (e, note) = counter_energy(&inp.e, wrap, res_or(o.resolution.energy_j, g('e')));
                notes.extend(note);
                let charge = if has(&inp.i) { charge_rate() } else { Curve::Nothing };
                (Method::EnergyCounter, e, charge, vec![&inp.e])
            }
            SourceChoice::ChargeCounter => {
                if !has(&inp.q) || (!has(&inp.v) && nominal.is_none()) {
                    return Err(missing(&format!(
                        "{} with {} (or a nominal voltage)",
                        n.charge, n.voltage
                    )));
                }
                sources.push(SourceTrack::of(&inp.q, "charge"));
                if has(&inp.v) {
                    sources.push(SourceTrack::of(&inp.v, "voltage"));
                }
                let vq = if has(&inp.v) { v_mean } else { nominal.unwrap_or(0.0) };
                let e = charge_energy(
                    &inp.q,
                    &inp.v,
                    nominal,
                    res_or(o.resolution.charge_uah, g('q')) * 3.6e-3 * vq,
                );
                let q = &inp.q;
                let drawn: Vec<f64> = q.values.iter().map(|x| q.values[0] - x).collect();
                (
                    Method::ChargeCounter,
                    e,
                    Curve::Total(Total::new(q.times.clone(), drawn)),
                    vec![&inp.q],
                )
            }
            SourceChoice::Current => {
                if !has(&inp.i) {
                    return Err(missing(&n.current));
                }
                sources.push(SourceTrack::of(&inp.i, "current"));
                let e = match nominal {
                    Some(vn) => Energy {
                        curve: Curve::Rate(Rate::new(
                            inp.i.times.clone(),
                            inp.i.values.iter().map(|x| x * k * vn).collect(),
                        )),
                        res_w: vn * res_or(o.resolution.current_a, g('i')) / 2.0,
                        res_j: 0.0,
                    },
                    None => {
                        notes.push(
                            "current without a voltage: charge only (give a nominal voltage for energy)".to_owned(),
                        );
                        Energy {
                            curve: Curve::Nothing,
                            res_w: 0.0,
                            res_j: 0.0,
                        }
                    }
                };
                if let Some(vn) = nominal {
                    notes.push(format!("energy assumes a constant {vn} V supply"));
                }
                (rate_method, e, charge_rate(), vec![&inp.i])
            }
            SourceChoice::Auto => unreachable!("resolved above"),
        };
        // Gauge behaviour over the primary inputs.
        let joint: Vec<(&[i64], &[f64])> = primary.iter().map(|s| (&s.times[..], &s.values[..])).collect();
        let (stale, fresh) = gauge::joint_freshness(&joint);
        let mut all_times: Vec<i64> = primary.iter().flat_map(|s| s.times.iter().copied()).collect();
        all_times.sort_unstable();
        all_times.dedup();
        let sampling_ns = gauge::median_interval_ns(&all_times);
        let gauge_period_ms = o.gauge_period_ms.or_else(|| {
            if stale > 0 {
                gauge::change_period_ms(&fresh).0
            } else {
                None
            }
        });
        let lag_ns = gauge_period_ms
            .map(|ms| ms * 1e6)
            .or(sampling_ns)
            .unwrap_or(0.0)
            .round() as i64;
        let pairs: Vec<SamplerPair> = primary
            .iter()
            .flat_map(|s| gauge::close_pairs(&s.name, &s.times, &s.values, &s.pids))
            .collect();
        let two_samplers = gauge::merge_pairs(pairs);
        for p in &two_samplers {
            notes.push(format!(
                "two samplers: samples at {:.6} s and {:.6} s are {:.0} µs apart{}{}",
                p.first_us * 1e-6,
                p.second_us * 1e-6,
                p.gap_us,
                if p.same_values { " with the same values" } else { "" },
                if p.pids.len() > 1 {
                    format!(" from pids {:?}", p.pids)
                } else {
                    String::new()
                }
            ));
        }
        for s in &primary {
            if s.writers().len() > 1 {
                notes.push(format!(
                    "{} was written by {} processes: {:?}",
                    s.name,
                    s.writers().len(),
                    s.writers()
                ));
            }
        }
        // Other sources, as cross-checks.
        let mut alternatives = Vec::new();
        if choice != SourceChoice::Power && has(&inp.p) {
            alternatives.push((
                "power track".to_owned(),
                power_energy(&inp.p, res_or(o.resolution.power_w, g('p'))),
                format!("{} integrated by the same rule", n.power),
            ));
        }
        if choice != SourceChoice::EnergyCounter && has(&inp.e) {
            let wrap = o
                .wrap_range_j
                .or_else(|| wrap_from_session(session, &n.energy, inp.e.kind));
            let (e, _) = counter_energy(&inp.e, wrap, res_or(o.resolution.energy_j, g('e')));
            alternatives.push(("energy counter".to_owned(), e, format!("deltas of {}", n.energy)));
        }
        if choice != SourceChoice::ChargeCounter && has(&inp.q) && (has(&inp.v) || nominal.is_some()) {
            let vq = if has(&inp.v) { v_mean } else { nominal.unwrap_or(0.0) };
            let res_j = res_or(o.resolution.charge_uah, g('q')) * 3.6e-3 * vq;
            alternatives.push((
                "charge counter × mean voltage".to_owned(),
                charge_energy(&inp.q, &inp.v, nominal, res_j),
                format!("−Δ{} (µAh, falling while discharging) × voltage", n.charge),
            ));
        }
        let span = primary
            .iter()
            .filter_map(|s| Some((*s.times.first()?, *s.times.last()?)))
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
            .unwrap_or((0, 0));
        if has(&inp.q) && !sources.iter().any(|t| t.role == "charge") {
            sources.push(SourceTrack::of(&inp.q, "charge"));
        }
        if session.context_track(&n.status).is_some() {
            sources.push(SourceTrack {
                track: n.status.clone(),
                role: "status".to_owned(),
                unit: String::new(),
                samples: session.context_track(&n.status).map_or(0, |t| t.len()),
                from_us: 0.0,
                to_us: 0.0,
                tracks: 1,
            });
        }
        Ok(EnergyIndex {
            method,
            rule,
            energy,
            charge,
            span,
            lag_ns,
            min_window_ns: gauge_period_ms
                .map(|ms| (ms * 1e6) as i64)
                .or(sampling_ns.map(|s| s as i64))
                .unwrap_or(0),
            sign,
            sources,
            gauge: gauges.into_iter().map(|(_, g)| g).collect(),
            stale_samples: stale,
            gauge_period_ms,
            sampling_period_ms: sampling_ns.map(|ns| ns * 1e-6),
            two_samplers,
            alternatives,
            notes,
        })
    }

    /// The power the energy comes from, as samples on the session's
    /// timeline (W, positive = drawn from the battery), joined by `rule`:
    /// what attributing energy to what ran needs. A rate source (V·I, a
    /// power track, current × a nominal voltage) gives its own samples and
    /// rule; a counter (energy, or charge × voltage) gives each interval's
    /// mean power held over it ([`Rule::LeftHold`]), which integrates to the
    /// counter's linear reading over any window. `None` when the capture
    /// gives charge only.
    pub fn power_samples(&self) -> Option<PowerSamples> {
        match &self.energy.curve {
            Curve::Rate(r) => {
                let (times, watts) = r.samples().unzip();
                Some(PowerSamples {
                    times,
                    watts,
                    rule: self.rule,
                })
            }
            Curve::Total(t) => {
                let recs: Vec<(i64, f64)> = t.samples().collect();
                let watts = (0..recs.len())
                    .map(|k| match recs.get(k + 1) {
                        Some(&(t1, e1)) if t1 > recs[k].0 => (e1 - recs[k].1) / secs(t1 - recs[k].0),
                        _ => 0.0,
                    })
                    .collect();
                Some(PowerSamples {
                    times: recs.iter().map(|r| r.0).collect(),
                    watts,
                    rule: Rule::LeftHold,
                })
            }
            Curve::Nothing => None,
        }
    }

    /// The tracks the energy came from.
    pub fn sources(&self) -> &[SourceTrack] {
        &self.sources
    }

    /// The method used.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The sign decision.
    pub fn current_sign(&self) -> &SignDecision {
        &self.sign
    }

    /// First and last sample time of the source, ns.
    pub fn span(&self) -> (i64, i64) {
        self.span
    }

    /// The whole capture as one window.
    pub fn whole(&self) -> Window {
        Window::new(self.span.0, self.span.1)
    }

    /// Energy over `[from_ns, to_ns]`, J: the fast path, two lookups.
    pub fn energy_j(&self, from_ns: i64, to_ns: i64) -> Option<f64> {
        energy_between(&self.energy.curve, self.rule, from_ns, to_ns)
    }

    /// [`EnergyIndex::energy_j`] of many windows, in their order. They are
    /// visited in time order, so the samples each one reads are already in
    /// the cache: a million windows in random order cost a third of what
    /// visiting them in their own order does.
    pub fn energies(&self, windows: &[Window]) -> Vec<Option<f64>> {
        let mut order: Vec<(i64, i64, u32)> = windows
            .iter()
            .enumerate()
            .map(|(i, w)| (w.from_ns, w.to_ns, i as u32))
            .collect();
        order.sort_unstable_by_key(|o| o.0);
        let mut out = vec![None; windows.len()];
        for (a, b, i) in order {
            out[i as usize] = self.energy_j(a, b);
        }
        out
    }

    /// [`EnergyIndex::window`] of many windows, in their order (visited in
    /// time order, like [`EnergyIndex::energies`]).
    pub fn windows(&self, windows: &[Window]) -> Vec<WindowEnergy> {
        in_time_order(windows, |w| self.window(w))
    }

    /// Energy, mean power, charge and bounds over one window.
    pub fn window(&self, w: &Window) -> WindowEnergy {
        let (a, b) = (w.from_ns, w.to_ns.max(w.from_ns));
        let covered = b.min(self.span.1).saturating_sub(a.max(self.span.0)).max(0);
        let cs = secs(covered);
        let (energy_j, bounds_j) = self.energy_and_bounds(&self.energy, a, b, cs);
        let charge_uah = match &self.charge {
            Curve::Rate(r) => Some(r.integral(a, b, self.rule) / 3.6e-3),
            Curve::Total(t) => Some(t.at(b).linear - t.at(a).linear),
            Curve::Nothing => None,
        };
        let mut reasons = Vec::new();
        if covered < b.saturating_sub(a) {
            reasons.push(format!(
                "only {:.1}% of the window has data",
                100.0 * covered as f64 / b.saturating_sub(a).max(1) as f64
            ));
        }
        if b.saturating_sub(a) < self.min_window_ns {
            reasons.push(format!(
                "the window ({:.3} ms) is shorter than the gauge's update period ({:.3} ms)",
                b.saturating_sub(a) as f64 * 1e-6,
                self.min_window_ns as f64 * 1e-6
            ));
        }
        WindowEnergy {
            from_us: a as f64 * 1e-3,
            to_us: b as f64 * 1e-3,
            label: w.label.clone(),
            energy_j,
            mean_power_w: energy_j.filter(|_| covered > 0).map(|e| e / cs),
            charge_uah,
            bounds_j,
            covered_us: covered as f64 * 1e-3,
            uncertain: !reasons.is_empty(),
            uncertain_reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        }
    }

    fn energy_and_bounds(&self, e: &Energy, a: i64, b: i64, covered_s: f64) -> (Option<f64>, Option<[f64; 2]>) {
        let (mid, spread) = match &e.curve {
            Curve::Rate(r) => {
                let d = r.between(a, b);
                (d.get(self.rule), [d.trapezoid, d.left, d.right])
            }
            Curve::Total(t) => {
                let (ta, tb) = (t.at(a), t.at(b.max(a)));
                (
                    tb.linear - ta.linear,
                    [tb.linear - ta.linear, tb.late - ta.early, tb.early - ta.late],
                )
            }
            Curve::Nothing => return (None, None),
        };
        let mut lo = mid;
        let mut hi = mid;
        let mut take = |x: f64| {
            lo = lo.min(x);
            hi = hi.max(x);
        };
        spread.into_iter().for_each(&mut take);
        // Gauge lag: the covered part read δ later, the data's last rate
        // carrying on past its end.
        let (ca, cb) = (a.max(self.span.0), b.min(self.span.1));
        if cb > ca {
            let beyond_rate = match &e.curve {
                Curve::Rate(r) => r.last_value(),
                Curve::Total(t) => t.last_rate(),
                Curve::Nothing => 0.0,
            };
            for q in 1..=2 {
                let d = self.lag_ns * q / 2;
                let (start, stop) = (ca.saturating_add(d), cb.saturating_add(d));
                let inside_end = stop.min(self.span.1).max(start);
                let beyond = stop.saturating_sub(start.max(self.span.1)).max(0);
                if let Some(x) = energy_between(&e.curve, self.rule, start, inside_end) {
                    take(x + beyond_rate * secs(beyond));
                }
            }
        }
        let res = e.res_w * covered_s + if covered_s > 0.0 { e.res_j } else { 0.0 };
        (Some(mid), Some([lo - res, hi + res]))
    }
}

/// `f` of every window, computed in order of start time, returned in the
/// windows' order.
fn in_time_order<T>(windows: &[Window], mut f: impl FnMut(&Window) -> T) -> Vec<T> {
    let mut order: Vec<(i64, u32)> = windows.iter().enumerate().map(|(i, w)| (w.from_ns, i as u32)).collect();
    order.sort_unstable();
    let mut out: Vec<Option<T>> = (0..windows.len()).map(|_| None).collect();
    for (_, i) in order {
        out[i as usize] = Some(f(&windows[i as usize]));
    }
    out.into_iter().map(|x| x.expect("every window visited")).collect()
}

pub(crate) fn energy_between(curve: &Curve, rule: Rule, a: i64, b: i64) -> Option<f64> {
    match curve {
        Curve::Rate(r) => Some(r.integral(a, b.max(a), rule)),
        Curve::Total(t) => Some(t.at(b.max(a)).linear - t.at(a).linear),
        Curve::Nothing => None,
    }
}

fn power_energy(p: &Series, res_w: f64) -> Energy {
    Energy {
        curve: Curve::Rate(Rate::new(p.times.clone(), p.values.clone())),
        res_w: res_w / 2.0,
        res_j: 0.0,
    }
}

fn counter_energy(e: &Series, wrap: Option<f64>, res_j: f64) -> (Energy, Option<String>) {
    let (total, wraps, resets) = source::unwrap_counter(e, wrap);
    let mut note = Vec::new();
    if wraps > 0 {
        note.push(format!(
            "{} wrapped {wraps} time(s) at {} J",
            e.name,
            wrap.unwrap_or(0.0)
        ));
    }
    if resets > 0 {
        note.push(format!(
            "{} went backwards {resets} time(s) with no known wrap range; read as resets",
            e.name
        ));
    }
    let energy = Energy {
        curve: Curve::Total(Total::new(e.times.clone(), total)),
        res_w: 0.0,
        res_j,
    };
    (energy, (!note.is_empty()).then(|| note.join("; ")))
}

/// Drawn energy from a charge counter: each interval's −ΔQ times the
/// voltage midway (the voltage track, else the nominal voltage).
fn charge_energy(q: &Series, v: &Series, nominal: Option<f64>, res_j: f64) -> Energy {
    let volts = |t: i64| v.value_at(t).or(nominal).unwrap_or(0.0);
    let mut acc = 0.0;
    let mut total = Vec::with_capacity(q.values.len());
    for k in 0..q.values.len() {
        if k > 0 {
            let dq = q.values[k - 1] - q.values[k];
            let vm = 0.5 * (volts(q.times[k - 1]) + volts(q.times[k]));
            acc += dq * 3.6e-3 * vm;
        }
        total.push(acc);
    }
    Energy {
        curve: Curve::Total(Total::new(q.times.clone(), total)),
        res_w: 0.0,
        res_j,
    }
}
