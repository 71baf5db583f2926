//! Issue 14's checks of the statistics, on runs the example generator acts
//! out (log-normal run, method and call noise; method ids shuffled per run):
//! a planted +10% regression is found and nothing else is, and a null
//! comparison flags something in at most 5% of repetitions.

use tracekit_diff::trace::from_session;
use tracekit_diff::{compare, By, DiffReport, Metric, Options, RunData, Verdict};
use tracekit_example::runs::{method, program_run, RunsSpec, Side};

fn runs(spec: &RunsSpec, side: Side, n: u32, by: By) -> Vec<RunData> {
    (0..n)
        .map(|r| from_session(format!("{side:?}{r}"), &program_run(spec, side, r), by, None, None))
        .collect()
}

fn flagged(report: &DiffReport) -> Vec<(String, Verdict)> {
    report.flagged().map(|r| (r.key.join(";"), r.verdict)).collect()
}

fn name(i: usize) -> String {
    tracekit_diff::trace::method_key(&method(i))
}

#[test]
fn a_planted_regression_is_flagged_and_nothing_else() {
    for seed in 1..=10u64 {
        let planted = 3 + seed as usize * 4;
        let spec = RunsSpec {
            seed,
            methods: 50,
            calls: 20_000,
            changes: vec![(planted, 1.10)],
            ..RunsSpec::default()
        };
        let a = runs(&spec, Side::A, 10, By::Method);
        let b = runs(&spec, Side::B, 10, By::Method);
        let report = compare(&a, &b, &Options::default()).unwrap();
        assert_eq!(report.metrics, [Metric::ExclWall]);
        assert_eq!(report.summary.rows, 50, "every method matched by name across runs");
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(
            flagged(&report),
            [(name(planted), Verdict::Regressed)],
            "seed {seed}: only the planted method is flagged"
        );
        let row = report.regressions().next().unwrap();
        assert!(row.ci_low > 0.0 && row.ci_high > row.ci_low, "{row:?}");
        assert!(
            row.ci_low < 0.10 && row.ci_high > 0.10,
            "seed {seed}: the interval holds the planted +10%: {row:?}"
        );
        assert!(row.q_value.unwrap() < 0.05 && row.cliffs_delta > 0.5, "{row:?}");

        // Call counts of this deterministic program are exact and unchanged.
        let calls = compare(
            &a,
            &b,
            &Options {
                metrics: vec![Metric::Calls],
                ..Options::default()
            },
        )
        .unwrap();
        assert!(calls
            .rows
            .iter()
            .all(|r| r.exact && r.delta == 0.0 && r.verdict == Verdict::Unchanged));
    }
}

#[test]
fn a_null_comparison_flags_something_in_at_most_five_percent_of_repetitions() {
    let mut with_flags = 0;
    let mut rows = 0;
    for rep in 0..100u64 {
        let spec = RunsSpec {
            seed: 1000 + rep,
            methods: 50,
            calls: 1000,
            ..RunsSpec::default()
        };
        let a = runs(&spec, Side::A, 10, By::Method);
        let b = runs(&spec, Side::B, 10, By::Method);
        let report = compare(&a, &b, &Options::default()).unwrap();
        rows += report.summary.rows;
        if report.flagged().next().is_some() {
            with_flags += 1;
        }
    }
    assert_eq!(rows, 100 * 50);
    eprintln!("null comparisons with a flagged row: {with_flags} of 100");
    assert!(with_flags <= 5, "{with_flags} of 100 null comparisons flagged a row");
}

#[test]
fn normalising_removes_a_whole_run_speed_factor() {
    // Machines whose speed varies 15% from run to run: the raw times of the
    // planted method are lost in it, its share of each run's total is not.
    let spec = RunsSpec {
        seed: 77,
        methods: 40,
        calls: 2000,
        run_sigma: 0.15,
        changes: vec![(9, 1.25)],
        ..RunsSpec::default()
    };
    let a = runs(&spec, Side::A, 10, By::Method);
    let b = runs(&spec, Side::B, 10, By::Method);
    let raw = compare(&a, &b, &Options::default()).unwrap();
    let raw_row = raw.rows.iter().find(|r| r.key == [name(9)]).unwrap();
    assert_ne!(raw_row.verdict, Verdict::Regressed, "{raw_row:?}");
    assert!(raw_row.spread > 0.08, "{raw_row:?}");
    let norm = compare(
        &a,
        &b,
        &Options {
            normalize: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(norm.settings.normalized);
    let regressed: Vec<_> = norm.regressions().map(|r| r.key.clone()).collect();
    assert_eq!(regressed, [vec![name(9)]]);
    // Shares of each run's total: the medians sum to about 1 over methods.
    let shares: f64 = norm.rows.iter().map(|r| r.median_a).sum();
    assert!((shares - 1.0).abs() < 0.05, "{shares}");
}

#[test]
fn call_paths_are_compared_with_the_same_statistics() {
    let spec = RunsSpec {
        seed: 5,
        methods: 30,
        calls: 2000,
        changes: vec![(12, 1.3)],
        ..RunsSpec::default()
    };
    let a = runs(&spec, Side::A, 8, By::Path);
    let b = runs(&spec, Side::B, 8, By::Path);
    let report = compare(&a, &b, &Options::default()).unwrap();
    assert_eq!(report.by, By::Path);
    let flagged = flagged(&report);
    assert!(!flagged.is_empty());
    for (key, verdict) in &flagged {
        assert_eq!(*verdict, Verdict::Regressed);
        assert!(key.ends_with(&name(12)), "{key}");
        assert!(key.starts_with(&name(0)), "paths start at main: {key}");
    }
}

#[test]
fn one_run_per_side_gives_differences_and_says_it_cannot_judge_them() {
    let spec = RunsSpec {
        seed: 3,
        methods: 20,
        calls: 500,
        changes: vec![(4, 2.0)],
        ..RunsSpec::default()
    };
    let a = runs(&spec, Side::A, 1, By::Method);
    let b = runs(&spec, Side::B, 1, By::Method);
    let report = compare(&a, &b, &Options::default()).unwrap();
    assert!(report.warnings[0].contains("one run per side"), "{:?}", report.warnings);
    assert!(report.flagged().next().is_none(), "no test, no flag");
    let row = report.rows.iter().find(|r| r.key == [name(4)]).unwrap();
    assert!(row.change > 0.5 && row.verdict == Verdict::Inconclusive, "{row:?}");
    assert_eq!(row.delta, row.values_b[0] - row.values_a[0]);
}
