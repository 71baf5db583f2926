//! `tracekit problems BASE…`: where a problem occurs and which context goes with it.

use super::input::{self, open, safe};
use anyhow::{bail, Result};
use std::path::PathBuf;
use tracekit_analysis::hints::{hints, Hint, HintStats};
use tracekit_analysis::problems::{find, ProblemDef, ProblemMatch};
use tracekit_analysis::reports::ProblemReport;
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
}

/// Analyses the problem and prints occurrences and ranked hints.
pub fn run(a: Args) -> Result<()> {
    let def = match (&a.method, a.brb) {
        (Some(m), false) => ProblemDef::Method {
            method: m.clone(),
            when: a
                .when
                .as_deref()
                .map(|w| Condition::parse(w).map_err(|e| anyhow::anyhow!("--when {w:?}: {e}")))
                .transpose()?,
        },
        (None, true) => ProblemDef::Brb {
            method: a.brb_method.clone(),
        },
        _ => bail!("say what the problem is: --brb, or --method NAME [--when CONDITION]"),
    };
    let sessions: Vec<Session> = a.inputs.iter().map(|n| open(n)).collect::<Result<_>>()?;
    let finding = crate::progress::step("finding the occurrences and ranking the context");
    let m = find(&sessions, &def)?;
    let h = hints(&sessions, &m.occurrences);
    drop(finding);
    if a.json {
        return input::print_json(&ProblemReport::new(&sessions, &m, &h));
    }
    print_text(&sessions, &def, &m, &h, a.limit);
    Ok(())
}

fn describe(h: &Hint) -> String {
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
        } => format!("90% of values in [{a:.4}, {b:.4}]"),
        HintStats::Continuous { .. } => "undefined at every occurrence".into(),
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
    println!("\nContext at the occurrences, most suspicious first (score: how unlike the whole session, 0–1):");
    for (i, x) in h.iter().enumerate() {
        println!(
            "  {:>2}. {:<32} {:<6} {:.2}  {}",
            i + 1,
            safe(&x.label),
            x.kind,
            x.score,
            describe(x)
        );
    }
}
