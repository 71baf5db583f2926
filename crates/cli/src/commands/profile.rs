//! `tracekit profile NAME`: Traceview's profile table.

use super::input::{self, open};
use anyhow::Result;
use serde_json::json;
use std::path::PathBuf;
use tracekit_analysis::{Profile, ProfileOptions};
use tracekit_model::{Session, ThreadId};

/// Arguments of `tracekit profile`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(value_name = "INPUT", help = tracekit_io::INPUT_HELP)]
    input: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    select: input::Selection,
    /// Rows to print in the table (0 = all).
    #[arg(long, default_value_t = 25)]
    limit: usize,
    /// Also list the parents and children of methods matching this name.
    #[arg(long)]
    method: Option<String>,
    /// Also profile each thread on its own.
    #[arg(long)]
    per_thread: bool,
}

/// Computes and prints the profile.
pub fn run(a: Args) -> Result<()> {
    let s = open(&a.input)?;
    let opts = a.select.options(&s)?;
    let p = Profile::of(&s, &opts);
    let (real, cpu) = (s.clocks.wall, s.clocks.thread_cpu);
    let per_thread: Vec<(ThreadId, Profile)> = if a.per_thread {
        s.thread_calls()
            .map(|(id, _, _)| id)
            .filter(|id| opts.threads.as_ref().is_none_or(|t| t.contains(id)))
            .map(|id| {
                (
                    id,
                    Profile::of(
                        &s,
                        &ProfileOptions {
                            threads: Some(vec![id]),
                            window: opts.window.clone(),
                        },
                    ),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    if a.json {
        let threads: Vec<_> = per_thread
            .iter()
            .map(|(id, tp)| json!({"tid": s.thread(*id).tid, "name": s.thread(*id).label(), "methods": rows_json(&s, tp)}))
            .collect();
        let mut v = json!({
            "clock": s.clocks.name(),
            "window_us": opts.window.as_ref().map(|w| input::us(w.total().max(0) as u64)),
            "total_real_us": val(real, p.total_real_ns),
            "total_cpu_us": val(cpu, p.total_cpu_ns),
            "methods": rows_json(&s, &p),
        });
        if a.per_thread {
            v["threads"] = json!(threads);
        }
        return input::print_json(&v);
    }
    print_table(&s, &p, a.limit);
    for (id, tp) in &per_thread {
        println!("\nThread {} ({}):", s.thread(*id).label(), s.thread(*id).tid);
        print_table(&s, tp, a.limit);
    }
    if let Some(pat) = &a.method {
        let ids = s.methods.find(pat);
        if ids.is_empty() {
            anyhow::bail!("no method matches {pat:?}");
        }
        for id in ids {
            print_family(&s, &p, id);
        }
    }
    Ok(())
}

fn val(present: bool, ns: u64) -> serde_json::Value {
    if present {
        json!(input::us(ns))
    } else {
        serde_json::Value::Null
    }
}

/// One JSON object per method row (a clock the session lacks gives `null`).
fn rows_json(s: &Session, p: &Profile) -> Vec<serde_json::Value> {
    let (real, cpu) = (s.clocks.wall, s.clocks.thread_cpu);
    p.methods
        .iter()
        .map(|r| {
            let m = s.methods.get(r.method);
            json!({
                "class": m.class, "name": m.name, "signature": m.signature,
                "calls": r.calls, "recursive_calls": r.recursive_calls,
                "incl_real_us": val(real, r.incl_real_ns), "excl_real_us": val(real, r.excl_real_ns),
                "incl_cpu_us": val(cpu, r.incl_cpu_ns), "excl_cpu_us": val(cpu, r.excl_cpu_ns),
                "incl_real_pct": if real { json!(p.real_percent(r.incl_real_ns)) } else { json!(null) },
                "incl_cpu_pct": if cpu { json!(p.cpu_percent(r.incl_cpu_ns)) } else { json!(null) },
            })
        })
        .collect()
}

/// Prints the head of a profile as a table.
pub fn print_table(s: &Session, p: &Profile, limit: usize) {
    let clocks = match (s.clocks.wall, s.clocks.thread_cpu) {
        (true, true) => "real and CPU time",
        (true, false) => "real time only",
        _ => "CPU time only",
    };
    println!(
        "Profile ({clocks}); total real {} ms, CPU {} ms",
        input::ms(p.total_real_ns),
        input::ms(p.total_cpu_ns)
    );
    println!(
        "{:>7} {:>12} {:>12} {:>7} {:>12} {:>12} {:>10} {:>11}  method",
        "incl%", "incl real ms", "excl real ms", "cpu%", "incl cpu ms", "excl cpu ms", "calls+rec", "real ms/call"
    );
    let n = if limit == 0 {
        p.methods.len()
    } else {
        limit.min(p.methods.len())
    };
    for r in &p.methods[..n] {
        let m = s.methods.get(r.method);
        let per_call = r.incl_real_ns.checked_div(r.calls).unwrap_or(0);
        println!(
            "{:>6.2}% {:>12} {:>12} {:>6.2}% {:>12} {:>12} {:>10} {:>11}  {}",
            p.real_percent(r.incl_real_ns),
            input::ms(r.incl_real_ns),
            input::ms(r.excl_real_ns),
            p.cpu_percent(r.incl_cpu_ns),
            input::ms(r.incl_cpu_ns),
            input::ms(r.excl_cpu_ns),
            format!("{}+{}", r.calls - r.recursive_calls, r.recursive_calls),
            input::ms(per_call),
            m.display_name()
        );
    }
    if n < p.methods.len() {
        println!("… {} more methods (--limit 0 shows all)", p.methods.len() - n);
    }
}

fn print_family(s: &Session, p: &Profile, id: tracekit_model::MethodId) {
    let name =
        |m: Option<tracekit_model::MethodId>| m.map_or("(toplevel)".to_string(), |m| s.methods.get(m).display_name());
    println!("\n{}", s.methods.get(id).display_name());
    println!("  parents:");
    for e in p.parents(id) {
        println!(
            "    {:>8} calls {:>12} ms  {}",
            e.calls,
            input::ms(e.incl_real_ns),
            name(e.parent)
        );
    }
    println!("  children:");
    for e in p.children(id) {
        println!(
            "    {:>8} calls {:>12} ms  {}",
            e.calls,
            input::ms(e.incl_real_ns),
            name(Some(e.child))
        );
    }
}
