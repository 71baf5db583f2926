//! `tracekit problems BASE…`: where a problem occurs and which context goes with it.

use super::input::{self, open};
use anyhow::{bail, Result};
use serde_json::json;
use std::path::PathBuf;
use tracekit_analysis::hints::{hints, Hint, HintStats};
use tracekit_analysis::problems::{find, ProblemDef, ProblemMatch};
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
    #[arg(long, requires = "method")]
    when: Option<String>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
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
    let h = hints(&sessions, &m.occurrences);
    if a.json {
        return input::print_json(&to_json(&sessions, &m, &h));
    }
    print_text(&sessions, &def, &m, &h);
    Ok(())
}

fn to_json(sessions: &[Session], m: &ProblemMatch, h: &[Hint]) -> serde_json::Value {
    let occ: Vec<_> = m
        .occurrences
        .iter()
        .map(|o| {
            let s = &sessions[o.session];
            let mut v = json!({"ts_us": input::us(o.ts_ns), "thread": s.thread(o.thread).label()});
            if sessions.len() > 1 {
                v["session"] = json!(s.name);
            }
            v
        })
        .collect();
    let intervals: Vec<_> = m
        .intervals
        .iter()
        .map(|iv| {
            iv.as_ref().map(|iv| {
                iv.spans()
                    .iter()
                    .map(|x| json!([x.start as f64 / 1000.0, x.end as f64 / 1000.0]))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    json!({
        "occurrences": occ,
        "calls_inside": m.calls_inside,
        "calls_outside": m.calls_outside,
        "intervals_us": if sessions.len() == 1 { json!(intervals[0]) } else { json!(intervals) },
        "hints": h,
    })
}

fn describe(h: &Hint) -> String {
    match &h.stats {
        HintStats::Discrete { top_values } if top_values.is_empty() => "undefined at every occurrence".into(),
        HintStats::Discrete { top_values } => top_values
            .iter()
            .map(|v| format!("{} ({:.0}%)", v.value, v.share * 100.0))
            .collect::<Vec<_>>()
            .join(", "),
        HintStats::Continuous {
            p5: Some(a),
            p95: Some(b),
        } => format!("90% of values in [{a:.4}, {b:.4}]"),
        HintStats::Continuous { .. } => "undefined at every occurrence".into(),
    }
}

/// Prints occurrences and hints for people.
pub fn print_text(sessions: &[Session], def: &ProblemDef, m: &ProblemMatch, h: &[Hint]) {
    match def {
        ProblemDef::Brb { method } => println!(
            "Problem: big red button (calls to `{method}`): {} occurrence(s)",
            m.occurrences.len()
        ),
        ProblemDef::Method { method, when } => {
            println!(
                "Problem: calls to `{method}`{}",
                when.as_ref().map_or(String::new(), |c| format!(" while {c}"))
            );
            println!(
                "  {} call(s) inside the condition's intervals, {} outside",
                m.calls_inside, m.calls_outside
            );
        }
    }
    for o in m.occurrences.iter().take(20) {
        let s = &sessions[o.session];
        let prefix = if sessions.len() > 1 {
            format!("{}: ", s.name)
        } else {
            String::new()
        };
        println!(
            "  {prefix}{:>12.3} s  {}",
            o.ts_ns as f64 / 1e9,
            s.thread(o.thread).label()
        );
    }
    if m.occurrences.len() > 20 {
        println!("  … {} more", m.occurrences.len() - 20);
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
            x.label,
            x.kind,
            x.score,
            describe(x)
        );
    }
}
