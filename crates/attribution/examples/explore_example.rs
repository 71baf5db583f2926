//! Scratch: what the analysis finds in the bundled example's battery.
use tracekit_analysis::hints::hints;
use tracekit_analysis::problems::{find, ProblemDef};
use tracekit_attribution::{attribute, context::power_hints, EnergyIndex, Options};

fn main() {
    let seed: u64 = std::env::args().nth(1).map_or(739_177, |a| a.parse().unwrap());
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed,
        duration_s: 150.0,
    });
    let idx = EnergyIndex::build(&s, &tracekit_energy::Options::default()).unwrap();
    let p = idx.power_samples().unwrap();
    let a = attribute(
        &s,
        &p,
        &Options {
            methods: true,
            ..Options::default()
        },
    );
    println!(
        "measured {:.2} J, idle {:.2}, unattr {:.2}, outside {:.2}, base {:.3} W",
        a.measured_j, a.idle_j, a.unattributed_j, a.outside_methods_j, a.base_w
    );
    for t in &a.threads {
        println!("  thread {:<16} {:.2} J", s.thread(t.thread).label(), t.energy_j);
    }
    for m in a.methods.iter().take(8) {
        println!(
            "  {:<60} excl {:.2} incl {:.2}",
            s.methods.get(m.method).display_name(),
            m.excl_j,
            m.incl_j
        );
    }
    let h = power_hints(&s, &p, &["Battery current".into(), "Battery voltage".into()]);
    for x in h.iter().take(8) {
        let g: Vec<String> = x
            .groups
            .iter()
            .take(3)
            .map(|g| {
                format!(
                    "{} {:.2} W ({:.0}% time)",
                    g.value,
                    g.mean_power_w,
                    g.time_share * 100.0
                )
            })
            .collect();
        println!("  {:.3} {:<32} {}", x.score, x.label, g.join("; "));
    }
    for x in h.iter().filter(|x| x.label.contains("rientation")) {
        let g: Vec<String> = x
            .groups
            .iter()
            .take(3)
            .map(|g| {
                format!(
                    "{} {:.2} W ({:.0}% time)",
                    g.value,
                    g.mean_power_w,
                    g.time_share * 100.0
                )
            })
            .collect();
        println!("  {:.3} {:<32} {}", x.score, x.label, g.join("; "));
    }
    let iv = tracekit_analysis::Condition::parse("Screen orientation == 1")
        .unwrap()
        .intervals(&s, tracekit_analysis::problems::horizon(&s))
        .unwrap();
    let prof = tracekit_analysis::Profile::of(
        &s,
        &tracekit_analysis::ProfileOptions {
            threads: None,
            window: Some(iv.clone()),
        },
    );
    let all = tracekit_analysis::Profile::of(&s, &tracekit_analysis::ProfileOptions::default());
    let df = s.methods.find("LayerRenderer.onDrawFrame")[0];
    println!(
        "portrait {:.1} s: {} frames; whole {} frames",
        iv.total() as f64 * 1e-9,
        prof.method(df).unwrap().calls,
        all.method(df).unwrap().calls
    );
    let m = find(std::slice::from_ref(&s), &ProblemDef::Brb { method: "brb".into() }).unwrap();
    let hb = hints(std::slice::from_ref(&s), &m.occurrences);
    for x in hb.iter().take(6) {
        println!("  brb {:.3} {}", x.score, x.label);
    }
}
