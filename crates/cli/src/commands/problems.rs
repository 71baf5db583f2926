//! `tracekit problems BASE…`: where a problem occurs and which context goes with it.

use super::input::{self, open, safe};
use anyhow::{bail, Result};
use std::path::PathBuf;
use tracekit_analysis::hints::{hints_with, Hint, HintKind, HintOptions, HintStats};
use tracekit_analysis::problems::{find, ProblemDef, ProblemMatch};
use tracekit_analysis::reports::{ProblemEnergy, ProblemReport};
use tracekit_analysis::Condition;
use tracekit_model::Session;

/// Arguments of `tracekit problems`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// One or more traces (any format tracekit reads, found by content); occurrences and hints are pooled.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The problem is every press of the big red button.
    #[arg(long, conflicts_with = "method")]
    brb: bool,
    /// The method the big red button calls.
    #[arg(long, default_value = "brb")]
    brb_method: String,
    /// The problem is a call of this method (name, Class.name or pkg/Class.name).
    #[arg(long)]
    method: Option<String>,
    /// …made while this condition holds, e.g. "Screen orientation == 1 and CPU > 0.5".
    #[arg(long, requires = "method", value_name = "CONDITION")]
    when: Option<String>,
    /// Occurrences to list (0 = all; JSON always has all).
    #[arg(long, default_value_t = 20, alias = "top")]
    limit: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    hint: HintArgs,
}

/// How hints compare (shared with `tracekit demo`'s defaults).
#[derive(Debug, Clone, clap::Args)]
pub struct HintArgs {
    /// Counters (running totals) are ranked by their rate over a window of
    /// this many seconds centred on each occurrence.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS", value_parser = input::positive_seconds)]
    rate_window_s: f64,
    /// The time-adjusted score compares each occurrence with the item within
    /// a window this wide around its session time [default: a quarter of
    /// the (median) session length].
    #[arg(long, value_name = "SECONDS", value_parser = input::positive_seconds)]
    time_window_s: Option<f64>,
}

impl HintArgs {
    /// The analysis options.
    pub fn options(&self) -> HintOptions {
        HintOptions {
            rate_window_s: self.rate_window_s,
            time_window_s: self.time_window_s,
        }
    }
}

/// Analyses the problem and prints occurrences and ranked hints.
pub fn run(a: Args) -> Result<()> {
    let def = match (&a.method, a.brb) {
        (Some(m), false) => ProblemDef::Method {
            method: m.clone(),
            when: a.when.as_deref().map(Condition::parse).transpose()?,
        },
        (None, true) => ProblemDef::Brb {
            method: a.brb_method.clone(),
        },
        _ => bail!("say what the problem is: --brb, or --method NAME [--when CONDITION]"),
    };
    let sessions: Vec<Session> = a.inputs.iter().map(|n| open(n)).collect::<Result<_>>()?;
    let m = find(&sessions, &def)?;
    let h = hints_with(&sessions, &m.occurrences, &a.hint.options());
    let energy = match sessions.as_slice() {
        [one] => problem_energy(one, &def),
        _ => None,
    };
    if a.json {
        let mut r = ProblemReport::new(&sessions, &m, &h);
        r.energy = energy;
        return input::print_json(&r);
    }
    print_text(&sessions, &def, &m, &h, a.limit);
    if let Some(e) = &energy {
        print_energy(e);
    }
    Ok(())
}

/// Energy inside and outside a method problem's intervals, when the
/// session measures power.
pub fn problem_energy(s: &Session, def: &ProblemDef) -> Option<ProblemEnergy> {
    if matches!(def, ProblemDef::Brb { .. }) {
        return None;
    }
    let idx = tracekit_energy::EnergyIndex::build(s, &tracekit_energy::Options::default()).ok()?;
    idx.power_samples()?;
    let end = tracekit_analysis::problems::horizon(s);
    let from = s.time_span().map_or(0, |(a, _)| a as i64);
    let (inside, outside) = tracekit_energy::problem_windows(s, def, from, end).ok()?;
    let sum = |ws: &[tracekit_energy::Window]| {
        let r = idx.windows(ws);
        let j: f64 = r.iter().filter_map(|w| w.energy_j).sum();
        let secs: f64 = r.iter().map(|w| w.covered_us * 1e-6).sum();
        (j, secs, (secs > 0.0).then(|| j / secs))
    };
    let (inside_j, inside_s, inside_mean_w) = sum(&inside);
    let (outside_j, outside_s, outside_mean_w) = sum(&outside);
    Some(ProblemEnergy {
        inside_j,
        inside_s,
        inside_mean_w,
        outside_j,
        outside_s,
        outside_mean_w,
    })
}

/// Prints a problem's energy inside and outside its intervals.
pub fn print_energy(e: &ProblemEnergy) {
    let w = |x: Option<f64>| x.map_or("—".to_owned(), |v| format!("{v:.3} W"));
    println!(
        "\nEnergy: {:.3} J inside the problem's intervals ({:.1} s, mean {}), {:.3} J outside ({:.1} s, mean {})",
        e.inside_j,
        e.inside_s,
        w(e.inside_mean_w),
        e.outside_j,
        e.outside_s,
        w(e.outside_mean_w)
    );
}

fn describe(h: &Hint) -> String {
    let unit = match h.basis {
        HintKind::Value => String::new(),
        _ => h.unit.as_deref().map_or(String::new(), |u| format!(" {}", safe(u))),
    };
    let what = match h.basis {
        HintKind::Rate => "rates",
        HintKind::Time => "times",
        HintKind::Value => "values",
    };
    match &h.stats {
        HintStats::Discrete { top_values } if top_values.is_empty() => "undefined at every occurrence".into(),
        HintStats::Discrete { top_values } => top_values
            .iter()
            .map(|v| format!("{} ({:.0}%)", safe(&v.value.to_string()), v.share * 100.0))
            .collect::<Vec<_>>()
            .join(", "),
        HintStats::Continuous {
            p5: Some(a),
            p95: Some(b),
        } if h.basis == HintKind::Value => format!("90% of {what} in [{a:.4}, {b:.4}]"),
        HintStats::Continuous {
            p5: Some(a),
            p95: Some(b),
        } => format!("90% of {what} in [{}, {}]{unit}", short(*a), short(*b)),
        HintStats::Continuous { .. } => "undefined at every occurrence".into(),
    }
}

/// A rate or time with as many decimals as its size needs.
fn short(x: f64) -> String {
    match x.abs() {
        a if a >= 1000.0 => format!("{x:.0}"),
        a if a >= 10.0 => format!("{x:.1}"),
        _ => format!("{x:.3}"),
    }
}

fn print_hint(rank: usize, x: &Hint) {
    println!(
        "  {:>2}. {:<32} {:<6} {:<5} {:.2}  raw {:.2}  {}",
        rank,
        safe(&x.label),
        x.kind,
        x.basis.name(),
        x.score,
        x.raw_score,
        describe(x)
    );
    if let Some(note) = &x.note {
        println!("      {}", safe(note));
    }
}

/// Prints occurrences (at most `limit`, 0 = all) and hints for people.
pub fn print_text(sessions: &[Session], def: &ProblemDef, m: &ProblemMatch, h: &[Hint], limit: usize) {
    match def {
        ProblemDef::Brb { method } => println!(
            "Problem: big red button (calls to `{}`): {} occurrence(s)",
            safe(method),
            m.occurrences.len()
        ),
        ProblemDef::Method { method, when } => {
            println!(
                "Problem: calls to `{}`{}",
                safe(method),
                when.as_ref()
                    .map_or(String::new(), |c| format!(" while {}", safe(&c.to_string())))
            );
            println!(
                "  {} call(s) inside the condition's intervals, {} outside",
                m.calls_inside, m.calls_outside
            );
        }
    }
    let shown = if limit == 0 { m.occurrences.len() } else { limit };
    for o in m.occurrences.iter().take(shown) {
        let s = &sessions[o.session];
        let prefix = if sessions.len() > 1 {
            format!("{}: ", safe(&s.name))
        } else {
            String::new()
        };
        println!(
            "  {prefix}{:>12.3} s  {}",
            o.ts_ns as f64 / 1e9,
            safe(&s.thread(o.thread).label())
        );
    }
    if m.occurrences.len() > shown {
        println!("  … {} more", m.occurrences.len() - shown);
    }
    if m.occurrences.is_empty() {
        println!("No occurrences, so no hints.");
        return;
    }
    if h.is_empty() {
        println!("No context log, so no hints (put NAME.clog beside NAME.trace).");
        return;
    }
    println!(
        "\nContext at the occurrences, most suspicious first (score: how unlike the item at nearby times; raw: how unlike the whole session; 0–1):"
    );
    let mut confounded_shown = false;
    for (i, x) in h.iter().enumerate() {
        if x.confounded_with_time && !confounded_shown {
            println!("Confounded with time (no stronger than when the occurrences happened; not suspects):");
            confounded_shown = true;
        }
        print_hint(i + 1, x);
    }
}
