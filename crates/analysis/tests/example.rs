//! The bundled example, analysed in memory: the BRB hints must single out
//! the portrait orientation and the short time since it changed.

use tracekit_analysis::problems::{find, ProblemDef};
use tracekit_analysis::{hints::hints, HintStats, Profile, ProfileOptions};
use tracekit_model::ContextValue;

#[test]
fn brb_hints_find_the_portrait_pattern() {
    let s = tracekit_example::browser_session(&tracekit_example::Options::default());
    let m = find(std::slice::from_ref(&s), &ProblemDef::Brb { method: "brb".into() }).unwrap();
    assert!(m.occurrences.len() >= 4, "{}", m.occurrences.len());
    let h = hints(std::slice::from_ref(&s), &m.occurrences);
    for x in &h {
        eprintln!("{:.3} {} {:?}", x.score, x.label, x.stats);
    }
    let top3: Vec<&str> = h.iter().take(3).map(|x| x.label.as_str()).collect();
    assert!(top3.contains(&"Screen orientation"), "{top3:?}");
    assert!(top3.contains(&"Time since orientation change"), "{top3:?}");
    let o = h.iter().find(|x| x.label == "Screen orientation").unwrap();
    let HintStats::Discrete { top_values } = &o.stats else {
        panic!()
    };
    assert_eq!(top_values[0].value, ContextValue::Int(1));
    assert_eq!(top_values[0].share, 1.0);
    let t = h.iter().find(|x| x.label == "Time since orientation change").unwrap();
    let HintStats::Continuous {
        p5: Some(a),
        p95: Some(b),
    } = t.stats
    else {
        panic!()
    };
    assert!(a > 0.9 && b < 2.0, "{a}..{b}");
    let p = Profile::of(&s, &ProfileOptions::default());
    assert!(p.methods.len() > 30);
}

#[test]
fn the_pattern_is_found_for_any_seed() {
    for seed in 1..=12 {
        let s = tracekit_example::browser_session(&tracekit_example::Options {
            seed,
            duration_s: 150.0,
        });
        let m = find(std::slice::from_ref(&s), &ProblemDef::Brb { method: "brb".into() }).unwrap();
        if m.occurrences.len() < 3 {
            continue; // too few presses to say anything
        }
        let h = hints(std::slice::from_ref(&s), &m.occurrences);
        let top3: Vec<&str> = h.iter().take(3).map(|x| x.label.as_str()).collect();
        assert!(top3.contains(&"Screen orientation"), "seed {seed}: {top3:?}");
        assert_eq!(h[0].label, "Time since orientation change", "seed {seed}: {top3:?}");
    }
}
