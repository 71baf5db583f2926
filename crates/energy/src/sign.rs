//! Which sign of the battery current means discharge.
//!
//! The kernel's ABI documents `current_now` as negative while discharging,
//! but many drivers (the seed's Nexus 6 among them) report it positive,
//! some report only magnitudes, and Perfetto's `BatteryCounters` comment
//! has said both. The analysis therefore decides per capture, from the
//! strongest evidence available, in this order:
//!
//! 1. the user's override;
//! 2. a convention the reader declared because its source documents it
//!    ([`power::CURRENT_SIGN_PROPERTY`]);
//! 3. the battery status item: the sign of the current while the status
//!    says `Discharging` (or the opposite of its sign while `Charging`);
//! 4. the charge counter, when its change over the capture agrees in size
//!    with the integrated current (ratio within 0.5..2, so its unit is
//!    right): a falling counter means the current's net sign is discharge;
//! 5. otherwise the net sign of the current itself is taken as discharge:
//!    energy is measured on battery with charging disabled, so most of the
//!    charge leaves the battery. This is the weakest basis and is said so.
//!
//! Evidence further down the list that disagrees with the chosen basis is
//! reported as a note, and so is a terminal voltage that climbs with the
//! drawn current (a battery's voltage sags under load and rises while
//! charging; the seed's capture shows it, correlation 0.75).

use serde::Serialize;
use tracekit_model::{power, ContextSamples, Session};

/// The user's choice of convention.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CurrentSign {
    /// Decide from the capture.
    #[default]
    Auto,
    /// Positive current drains the battery.
    PositiveIsDischarge,
    /// Negative current drains the battery (the kernel ABI).
    NegativeIsDischarge,
}

impl CurrentSign {
    /// Parses `auto`, `positive` / `positive-is-discharge`, `negative` /
    /// `negative-is-discharge`.
    pub fn parse(s: &str) -> Option<CurrentSign> {
        Some(match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "auto" => CurrentSign::Auto,
            "positive" | "positive-is-discharge" => CurrentSign::PositiveIsDischarge,
            "negative" | "negative-is-discharge" => CurrentSign::NegativeIsDischarge,
            _ => return None,
        })
    }
}

/// What the decision rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignBasis {
    /// The user said so.
    Override,
    /// The reader declared its source's convention.
    Declared,
    /// The battery status item.
    Status,
    /// The charge counter's trend.
    ChargeCounter,
    /// The current's net sign (assumed on battery).
    NetSign,
    /// There is no current track; nothing to decide.
    NoCurrent,
}

/// How far to trust the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// A guess from the data's shape.
    Low,
    /// Indirect evidence.
    Medium,
    /// Stated or observed directly.
    High,
}

/// The convention used, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignDecision {
    /// `positive_is_discharge` or `negative_is_discharge`.
    pub convention: CurrentSign,
    /// What the decision rests on.
    pub basis: SignBasis,
    /// How far to trust it.
    pub confidence: Confidence,
    /// One sentence for the user.
    pub reason: String,
    /// Disagreeing or weaker evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl SignDecision {
    /// Factor that turns the source's current into "positive = drawn from
    /// the battery".
    pub fn factor(&self) -> f64 {
        if self.convention == CurrentSign::NegativeIsDischarge {
            -1.0
        } else {
            1.0
        }
    }
}

/// The inputs the decision looks at.
pub(crate) struct SignEvidence<'a> {
    /// Current samples (A, source sign), merged over tracks.
    pub times: &'a [i64],
    pub current: &'a [f64],
    /// Charge counter samples (µAh), if any.
    pub charge: Option<(&'a [i64], &'a [f64])>,
    /// Voltage samples (V), if any.
    pub voltage: Option<(&'a [i64], &'a [f64])>,
    /// Label of the status context item.
    pub status_label: &'a str,
    /// The convention the current's source documents, when it came from a
    /// context alias that says (a session property takes precedence).
    pub declared: Option<CurrentSign>,
}

fn convention_of(sign_of_discharge: f64) -> CurrentSign {
    if sign_of_discharge < 0.0 {
        CurrentSign::NegativeIsDischarge
    } else {
        CurrentSign::PositiveIsDischarge
    }
}

fn describe(c: CurrentSign) -> &'static str {
    match c {
        CurrentSign::NegativeIsDischarge => "negative current is discharge",
        _ => "positive current is discharge",
    }
}

/// ∫ I dt (A·s) by left-hold over samples for which `keep(time)` holds.
fn net_charge(times: &[i64], current: &[f64], mut keep: impl FnMut(i64) -> bool) -> (f64, f64) {
    let (mut net, mut dur) = (0.0, 0.0);
    for k in 1..times.len() {
        if keep(times[k - 1]) {
            let dt = (times[k] - times[k - 1]) as f64 * 1e-9;
            net += current[k - 1] * dt;
            dur += dt;
        }
    }
    (net, dur)
}

/// The status word in force at `t` (held from its last record).
fn status_at<'s>(times: &[i64], words: &'s [String], t: i64) -> Option<&'s str> {
    let i = times.partition_point(|&x| x <= t);
    i.checked_sub(1).map(|i| words[i].as_str())
}

fn from_status(session: &Session, ev: &SignEvidence<'_>) -> Option<(CurrentSign, String)> {
    let track = session.context_track(ev.status_label)?;
    let ContextSamples::String(words) = &track.samples else {
        return None;
    };
    let (dis, dis_s) = net_charge(ev.times, ev.current, |t| {
        status_at(&track.times, words, t) == Some(power::STATUS_DISCHARGING)
    });
    let (chg, chg_s) = net_charge(ev.times, ev.current, |t| {
        status_at(&track.times, words, t) == Some(power::STATUS_CHARGING)
    });
    if dis_s >= chg_s && dis != 0.0 {
        let c = convention_of(dis);
        Some((
            c,
            format!(
                "the current's net sign while the status said Discharging ({dis_s:.3} s): {}",
                describe(c)
            ),
        ))
    } else if chg != 0.0 {
        let c = convention_of(-chg);
        Some((
            c,
            format!(
                "the current's net sign while the status said Charging ({chg_s:.3} s) is charge, so {}",
                describe(c)
            ),
        ))
    } else {
        None
    }
}

/// Ratio of the charge counter's change to the integrated current, and the
/// convention it implies when that ratio says the units agree.
fn from_counter(ev: &SignEvidence<'_>) -> Option<(Option<CurrentSign>, String)> {
    let (qt, qv) = ev.charge?;
    let (&t0, &t1) = (ev.times.first()?, ev.times.last()?);
    let at = |t: i64| {
        let i = qt.partition_point(|&x| x <= t).checked_sub(1)?;
        Some(qv[i])
    };
    let dq = at(t1)? - at(t0)?; // µAh
    let (net, _) = net_charge(ev.times, ev.current, |_| true);
    let integrated = net / 3.6e-3; // µAh
    if dq == 0.0 || integrated == 0.0 {
        return None;
    }
    let ratio = dq.abs() / integrated.abs();
    if (0.5..=2.0).contains(&ratio) {
        // The counter falls while discharging.
        let c = convention_of(if dq < 0.0 { net } else { -net });
        let trend = if dq < 0.0 { "fell" } else { "rose" };
        Some((
            Some(c),
            format!(
                "the charge counter {trend} by {:.1} µAh while the current integrates to {integrated:.1} µAh: {}",
                dq.abs(),
                describe(c)
            ),
        ))
    } else {
        Some((
            None,
            format!(
                "the charge counter changed by {dq:.1} while the current integrates to {integrated:.1} µAh (ratio {ratio:.3}): its unit or scale differs, so it says nothing about the sign"
            ),
        ))
    }
}

/// Pearson correlation of the voltage (held at each current sample) with
/// the current, over at least eight samples.
fn voltage_current_correlation(ev: &SignEvidence<'_>) -> Option<f64> {
    let (vt, vv) = ev.voltage?;
    let pairs: Vec<(f64, f64)> = ev
        .times
        .iter()
        .zip(ev.current)
        .filter_map(|(&t, &i)| Some((vv[vt.partition_point(|&x| x <= t).checked_sub(1)?], i)))
        .collect();
    if pairs.len() < 8 {
        return None;
    }
    let n = pairs.len() as f64;
    let (mv, mi) = pairs.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (mut cov, mut sv, mut si) = (0.0, 0.0, 0.0);
    for (v, i) in &pairs {
        cov += (v - mv) * (i - mi);
        sv += (v - mv) * (v - mv);
        si += (i - mi) * (i - mi);
    }
    (sv > 0.0 && si > 0.0).then(|| cov / (sv * si).sqrt())
}

/// Decides the convention for one capture.
pub(crate) fn decide(session: &Session, choice: CurrentSign, ev: &SignEvidence<'_>) -> SignDecision {
    let mut notes = Vec::new();
    let (net, _) = net_charge(ev.times, ev.current, |_| true);
    let abs_total: f64 = net_charge(
        ev.times,
        &ev.current.iter().map(|v| v.abs()).collect::<Vec<_>>(),
        |_| true,
    )
    .0;
    if abs_total > 0.0 && (abs_total - net.abs()) / 2.0 > 0.1 * abs_total {
        let minority = (abs_total - net.abs()) / 2.0 / abs_total * 100.0;
        notes.push(format!("the current changes sign: {minority:.0}% of the charge flows against the net direction (charging part of the time?)"));
    }
    let status = from_status(session, ev);
    let counter = from_counter(ev);
    let declared = session
        .properties
        .iter()
        .rev()
        .find(|(k, _)| k == power::CURRENT_SIGN_PROPERTY)
        .and_then(|(_, v)| match v.as_str() {
            power::SIGN_POSITIVE_IS_DISCHARGE => Some(CurrentSign::PositiveIsDischarge),
            power::SIGN_NEGATIVE_IS_DISCHARGE => Some(CurrentSign::NegativeIsDischarge),
            _ => None,
        })
        .or(ev.declared);
    let net_conv = convention_of(net);
    let (convention, basis, confidence, reason) = if choice != CurrentSign::Auto {
        (
            choice,
            SignBasis::Override,
            Confidence::High,
            format!("given by the user: {}", describe(choice)),
        )
    } else if ev.times.is_empty() {
        (
            CurrentSign::PositiveIsDischarge,
            SignBasis::NoCurrent,
            Confidence::High,
            "no current track: power and energy tracks are read as positive = drawn".to_owned(),
        )
    } else if let Some(c) = declared {
        (
            c,
            SignBasis::Declared,
            Confidence::High,
            format!("the file's format documents it: {}", describe(c)),
        )
    } else if let Some((c, why)) = &status {
        (*c, SignBasis::Status, Confidence::High, why.clone())
    } else if let Some((Some(c), why)) = &counter {
        (*c, SignBasis::ChargeCounter, Confidence::Medium, why.clone())
    } else {
        (
            net_conv,
            SignBasis::NetSign,
            Confidence::Low,
            format!(
                "no status item and no usable charge counter; assumed the device ran on battery, so the current's net sign ({}) is discharge",
                if net < 0.0 { "negative" } else { "positive" }
            ),
        )
    };
    if basis != SignBasis::Status {
        if let Some((c, why)) = &status {
            if *c != convention {
                notes.push(format!("the status item disagrees: {why}"));
            }
        }
    }
    match &counter {
        Some((Some(c), why)) if *c != convention && basis != SignBasis::ChargeCounter => {
            notes.push(format!("the charge counter disagrees: {why}"))
        }
        Some((None, why)) => notes.push(why.clone()),
        _ => {}
    }
    // A battery's terminal voltage sags as it delivers more current and
    // rises as it takes more: voltage that climbs with the drawn current
    // looks like charging. Only a note: gauges average V and I differently.
    if let Some(r) = voltage_current_correlation(ev) {
        let drawn = if convention == CurrentSign::NegativeIsDischarge {
            -r
        } else {
            r
        };
        if drawn > 0.5 {
            notes.push(format!(
                "the voltage rises with the drawn current (correlation {drawn:.2}), as it does while charging: if the device was charging, the energy is stored, not drawn"
            ));
        }
    }
    if basis != SignBasis::NoCurrent && net_conv != convention && net != 0.0 {
        notes.push("with this convention the battery charged on balance over the capture".to_owned());
    }
    SignDecision {
        convention,
        basis,
        confidence,
        reason,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracekit_model::{Clocks, ContextTrack, ContextType, ContextValue};

    fn ev<'a>(t: &'a [i64], i: &'a [f64]) -> SignEvidence<'a> {
        SignEvidence {
            times: t,
            current: i,
            charge: None,
            voltage: None,
            status_label: power::BATTERY_STATUS,
            declared: None,
        }
    }

    #[test]
    fn status_decides_over_the_net_sign() {
        let mut s = Session::new("s", Clocks::WALL);
        let mut st = ContextTrack::new(power::BATTERY_STATUS, ContextType::String);
        st.push(0, ContextValue::Str("Discharging".into()));
        s.context.push(st);
        let t = [0, 1_000_000_000, 2_000_000_000];
        let d = decide(&s, CurrentSign::Auto, &ev(&t, &[-0.5, -0.4, -0.6]));
        assert_eq!(
            (d.convention, d.basis),
            (CurrentSign::NegativeIsDischarge, SignBasis::Status)
        );
        assert_eq!(d.factor(), -1.0);
    }

    #[test]
    fn charge_counter_with_matching_units() {
        let s = Session::new("s", Clocks::WALL);
        let t = [0, 3_600_000_000_000]; // one hour at 0.5 A = 500 000 µAh
        let q = [1_000_000.0, 500_000.0];
        let mut e = ev(&t, &[0.5, 0.5]);
        e.charge = Some((&t, &q));
        let d = decide(&s, CurrentSign::Auto, &e);
        assert_eq!(
            (d.convention, d.basis),
            (CurrentSign::PositiveIsDischarge, SignBasis::ChargeCounter)
        );
        // A rising counter with positive current: positive is charge.
        let q = [500_000.0, 1_000_000.0];
        e.charge = Some((&t, &q));
        assert_eq!(
            decide(&s, CurrentSign::Auto, &e).convention,
            CurrentSign::NegativeIsDischarge
        );
        // A counter a thousand times off is ignored and said so.
        let q = [1e9, 0.5e9];
        e.charge = Some((&t, &q));
        let d = decide(&s, CurrentSign::Auto, &e);
        assert_eq!(d.basis, SignBasis::NetSign);
        assert!(d.notes.iter().any(|n| n.contains("unit or scale")));
    }

    #[test]
    fn declared_and_override() {
        let mut s = Session::new("s", Clocks::WALL);
        s.properties.push((
            power::CURRENT_SIGN_PROPERTY.into(),
            power::SIGN_NEGATIVE_IS_DISCHARGE.into(),
        ));
        let t = [0, 1];
        let d = decide(&s, CurrentSign::Auto, &ev(&t, &[1.0, 1.0]));
        assert_eq!(
            (d.convention, d.basis),
            (CurrentSign::NegativeIsDischarge, SignBasis::Declared)
        );
        assert!(d.notes.iter().any(|n| n.contains("charged on balance")));
        let d = decide(&s, CurrentSign::PositiveIsDischarge, &ev(&t, &[1.0, 1.0]));
        assert_eq!(d.basis, SignBasis::Override);
        assert_eq!(CurrentSign::parse("negative"), Some(CurrentSign::NegativeIsDischarge));
    }
}
