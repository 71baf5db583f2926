//! `tracekit report NAME --html -o FILE`: the self-contained HTML viewer.

use super::charge::PowerArgs;
use super::input::{check_output, open_loaded};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use tracekit_report::{problem_view, render_report, ProblemDef, ReportOptions, ViewModel};

/// Arguments of `tracekit report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Write the HTML viewer (the only report format so far).
    #[arg(long)]
    html: bool,
    /// Output file.
    #[arg(short = 'o', long = "output", alias = "out", value_name = "PATH")]
    out: PathBuf,
    /// Method the big red button calls; its presses are shown when there are any.
    #[arg(long, default_value = "brb")]
    brb_method: String,
    /// A problem to compute for the report: "METHOD" or "METHOD when CONDITION"
    /// (repeatable), e.g. "Renderer.draw when Screen orientation == 1".
    #[arg(long = "problem")]
    problems: Vec<String>,
    /// Most calls drawn individually; beyond it the shortest calls are drawn
    /// as counts per time bucket, and the report says so.
    #[arg(long, default_value_t = ReportOptions::default().max_slices)]
    max_slices: usize,
    #[command(flatten)]
    charge: PowerArgs,
}

/// Parses "METHOD" or "METHOD when CONDITION".
pub fn parse_problem(text: &str) -> ProblemDef {
    match text.split_once(" when ") {
        Some((m, c)) => ProblemDef::Method {
            method: m.trim().to_owned(),
            when: c.trim().to_owned(),
        },
        None => ProblemDef::Method {
            method: text.trim().to_owned(),
            when: String::new(),
        },
    }
}

/// Problem views to show ready-made: BRB presses when there are any, then
/// each `--problem` (an error in one names it).
pub fn ready_problems(
    session: &tracekit_model::Session,
    brb_method: &str,
    problems: &[String],
) -> Result<Vec<tracekit_report::ProblemView>> {
    let mut out = Vec::new();
    if let Ok(v) = problem_view(
        session,
        &ProblemDef::Brb {
            method: brb_method.to_owned(),
        },
    ) {
        if !v.occurrences.is_empty() {
            out.push(v);
        }
    }
    for p in problems {
        let v = problem_view(session, &parse_problem(p))
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("problem {p:?}"))?;
        out.push(v);
    }
    Ok(out)
}

/// Writes the report.
pub fn run(a: Args) -> Result<()> {
    if !a.html {
        bail!("say which report: --html (the self-contained timeline viewer)");
    }
    let loaded = open_loaded(&a.input)?;
    check_output(&a.out, &loaded)?;
    let mut session = loaded.session;
    a.charge.line_up(&mut session, &a.input)?;
    let problems = ready_problems(&session, &a.brb_method, &a.problems)?;
    let mut view = ViewModel::new(&session);
    a.charge.attach_to_view(&mut view, &session)?;
    let html = render_report(
        &view,
        &problems,
        &ReportOptions {
            max_slices: a.max_slices,
        },
    );
    std::fs::write(&a.out, &html).with_context(|| format!("cannot write {}", a.out.display()))?;
    let calls = view.call_count();
    let note = if calls > a.max_slices {
        format!(
            " (summarised: the {} longest of {calls} calls drawn individually)",
            a.max_slices
        )
    } else {
        String::new()
    };
    println!("wrote {} ({} bytes){note}", a.out.display(), html.len());
    Ok(())
}
