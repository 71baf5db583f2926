//! `tracekit profile INPUT`: Traceview's profile table.

use super::charge::PowerArgs;
use super::input::{self, open, safe};
use anyhow::Result;
use rustc_hash::FxHashMap;
use std::path::PathBuf;
use tracekit_analysis::reports::{ProfileEnergy, ProfileReport};
use tracekit_analysis::{Profile, ProfileOptions};
use tracekit_attribution::Attribution;
use tracekit_model::{MethodId, Session, ThreadId};

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
    /// Add energy columns: the measured (or modelled) power charged to each
    /// method, inclusive and exclusive (see `tracekit energy --by method`).
    #[arg(long)]
    energy: bool,
    #[command(flatten)]
    charge: PowerArgs,
}

/// Method energies of an attribution, per thread and over threads.
pub struct EnergyColumns {
    /// (incl, excl) J per method, summed over the selected threads.
    pub all: FxHashMap<u32, (f64, f64)>,
    /// (incl, excl) J per (thread, method).
    pub by_thread: FxHashMap<(u32, u32), (f64, f64)>,
    /// The attribution.
    pub at: Attribution,
    /// Where the power came from.
    pub source: String,
}

impl EnergyColumns {
    /// Charges `s`'s power to its methods inside `window`, for the threads
    /// `threads` selects (all when `None`).
    pub fn compute(s: &Session, charge: &PowerArgs, opts: &ProfileOptions) -> Result<EnergyColumns> {
        let prepared = charge.prepare(s)?;
        let at = charge.attribute(s, &prepared, opts.window.clone(), true, false, 0);
        let mut all: FxHashMap<u32, (f64, f64)> = FxHashMap::default();
        let mut by_thread = FxHashMap::default();
        for t in &at.threads {
            let selected = opts.threads.as_ref().is_none_or(|v| v.contains(&t.thread));
            for m in &t.methods {
                by_thread.insert((t.thread.0, m.method.0), (m.incl_j, m.excl_j));
                if selected {
                    let e = all.entry(m.method.0).or_insert((0.0, 0.0));
                    e.0 += m.incl_j;
                    e.1 += m.excl_j;
                }
            }
        }
        Ok(EnergyColumns {
            all,
            by_thread,
            at,
            source: prepared.source,
        })
    }

    /// (incl, excl) J of `m` on `thread` (all selected threads when `None`).
    pub fn get(&self, thread: Option<ThreadId>, m: MethodId) -> Option<(f64, f64)> {
        match thread {
            None => self.all.get(&m.0).copied(),
            Some(t) => self.by_thread.get(&(t.0, m.0)).copied(),
        }
    }

    /// The report's summary.
    pub fn summary(&self) -> ProfileEnergy {
        ProfileEnergy {
            measured_j: self.at.measured_j,
            idle_j: self.at.idle_j,
            unattributed_j: self.at.unattributed_j,
            outside_methods_j: self.at.outside_methods_j,
            base_w: self.at.base_w,
            power_source: self.source.clone(),
            weights: self.at.weights.to_owned(),
        }
    }
}

/// Computes and prints the profile.
pub fn run(a: Args) -> Result<()> {
    // A recording is profiled as it is read, never held whole.
    let power = a.energy || a.charge.power.is_some() || a.charge.power_profile.is_some();
    if !power {
        let wanted = input::Wanted {
            profile: true,
            per_thread: a.per_thread,
            ..Default::default()
        };
        if let Some(st) = input::stream_analysis(&a.input, &a.select, wanted)? {
            let p = st.profile.expect("asked for");
            return print(&a, &st.session, &p, &st.per_thread, &st.options, None);
        }
    }
    let mut s = open(&a.input)?;
    a.charge.line_up(&mut s, &a.input)?;
    let opts = a.select.options(&s)?;
    let computing = crate::progress::step("computing the profile");
    let energy = if power {
        Some(EnergyColumns::compute(&s, &a.charge, &opts)?)
    } else {
        None
    };
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
    print(&a, &s, &p, &per_thread, &opts, energy.as_ref())
}

fn print(
    a: &Args,
    s: &Session,
    p: &Profile,
    per_thread: &[(ThreadId, Profile)],
    opts: &ProfileOptions,
    energy: Option<&EnergyColumns>,
) -> Result<()> {
    if a.json {
        let threads = a.per_thread.then_some(per_thread);
        let mut report = ProfileReport::new(s, p, opts.window.as_ref(), threads);
        if let Some(e) = energy {
            report.add_energy(p, threads, &|t, m| e.get(t, m), e.summary());
        }
        return input::print_json(&report);
    }
    if let Some(l) = input::lost_line(s) {
        println!("{l}");
    }
    print_table_with(s, p, a.limit, energy, None);
    for (id, tp) in per_thread {
        println!("\nThread {} ({}):", safe(&s.thread(*id).label()), s.thread(*id).tid);
        print_table_with(s, tp, a.limit, energy, Some(*id));
    }
    if let Some(pat) = &a.method {
        let ids = s.methods.find(pat);
        if ids.is_empty() {
            anyhow::bail!("no method matches {pat:?}");
        }
        for id in ids {
            print_family(s, p, id);
        }
    }
    Ok(())
}

/// Prints the head of a profile as a table.
pub fn print_table(s: &Session, p: &Profile, limit: usize) {
    print_table_with(s, p, limit, None, None);
}

/// Prints the head of a profile as a table, with energy columns when
/// `energy` is given (of `thread`, or of the selection when `None`).
pub fn print_table_with(
    s: &Session,
    p: &Profile,
    limit: usize,
    energy: Option<&EnergyColumns>,
    thread: Option<ThreadId>,
) {
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
    if let Some(e) = energy {
        println!(
            "Energy {:.3} J ({}): idle {:.3} J, unattributed {:.3} J, outside calls {:.3} J; base {:.3} W; weights: {}",
            e.at.measured_j,
            safe(&e.source),
            e.at.idle_j,
            e.at.unattributed_j,
            e.at.outside_methods_j,
            e.at.base_w,
            e.at.weights
        );
    }
    let energy_head = if energy.is_some() {
        format!(" {:>10} {:>7} {:>10} {:>7}", "incl J", "incl J%", "excl J", "excl J%")
    } else {
        String::new()
    };
    println!(
        "{:>7} {:>12} {:>12} {:>7} {:>12} {:>12} {:>10} {:>11}{energy_head}  method",
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
        let energy_cols = energy.map_or(String::new(), |e| {
            let (incl, excl) = e.get(thread, r.method).unwrap_or((0.0, 0.0));
            let pct = |x: f64| {
                if e.at.measured_j != 0.0 {
                    100.0 * x / e.at.measured_j
                } else {
                    0.0
                }
            };
            format!(" {incl:>10.4} {:>6.2}% {excl:>10.4} {:>6.2}%", pct(incl), pct(excl))
        });
        println!(
            "{:>6.2}% {:>12} {:>12} {:>6.2}% {:>12} {:>12} {:>10} {:>11}{energy_cols}  {}",
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
