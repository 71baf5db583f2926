//! `tracekit profile INPUT`: Traceview's profile table.

use super::input::{self, open, safe};
use anyhow::Result;
use std::path::PathBuf;
use tracekit_analysis::reports::ProfileReport;
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
    #[arg(long, default_value_t = 25, alias = "top")]
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
    let computing = crate::progress::step("computing the profile");
    let p = Profile::of(&s, &opts);
    let per_thread: Vec<(ThreadId, Profile)> = if a.per_thread {
        s.thread_calls()
            .map(|(id, _, _)| id)
            .filter(|id| opts.threads.as_ref().is_none_or(|t| t.contains(id)))
            .map(|id| {
                let only = ProfileOptions {
                    threads: Some(vec![id]),
                    window: opts.window.clone(),
                };
                (id, Profile::of(&s, &only))
            })
            .collect()
    } else {
        Vec::new()
    };
    drop(computing);
    if a.json {
        let threads = a.per_thread.then_some(per_thread.as_slice());
        return input::print_json(&ProfileReport::new(&s, &p, opts.window.as_ref(), threads));
    }
    print_table(&s, &p, a.limit);
    for (id, tp) in &per_thread {
        println!("\nThread {} ({}):", safe(&s.thread(*id).label()), s.thread(*id).tid);
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
            safe(&m.display_name())
        );
    }
    if n < p.methods.len() {
        println!("… {} more methods (--limit 0 shows all)", p.methods.len() - n);
    }
}

fn print_family(s: &Session, p: &Profile, id: tracekit_model::MethodId) {
    let name = |m: Option<tracekit_model::MethodId>| {
        m.map_or("(toplevel)".to_string(), |m| {
            safe(&s.methods.get(m).display_name()).into_owned()
        })
    };
    println!("\n{}", name(Some(id)));
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
