//! The comparison as a text table (names are printed as they are: the
//! caller escapes control characters for a terminal).

use crate::metric::{Metric, MetricKind};
use crate::report::{DiffReport, DiffRow, OnlyRow, Verdict};
use std::fmt::Write;

/// A value of `metric` for people: times in the largest unit that keeps
/// them at least 1 (up to four decimals), energies in J/mJ/µJ, counts as numbers, shares of
/// the run's total as percentages.
pub fn format_value(v: f64, metric: Metric, normalized: bool) -> String {
    if normalized {
        return format!("{:.3}%", v * 100.0);
    }
    let scaled = |v: f64, units: &[(f64, &str)]| {
        let a = v.abs();
        let (f, u) = units
            .iter()
            .find(|(f, _)| a >= *f)
            .unwrap_or(units.last().unwrap_or(&(1.0, "")));
        let num = format!("{:.4}", v / f);
        format!("{} {u}", num.trim_end_matches('0').trim_end_matches('.'))
    };
    match metric.kind() {
        MetricKind::Time => scaled(v, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns")]),
        MetricKind::Energy => scaled(v, &[(1.0, "J"), (1e-3, "mJ"), (1e-6, "µJ"), (1e-9, "nJ")]),
        MetricKind::Count if v.fract() == 0.0 => format!("{v:.0}"),
        MetricKind::Count => format!("{v:.1}"),
    }
}

fn signed(v: f64, metric: Metric, normalized: bool) -> String {
    let s = format_value(v, metric, normalized);
    if v > 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// A relative change as `+10.2%`, `−∞` style ends as `-inf`/`+inf`.
pub fn percent(c: f64) -> String {
    if c.is_infinite() {
        return if c > 0.0 { "+inf".into() } else { "-inf".into() };
    }
    format!("{:+.1}%", c * 100.0)
}

/// A p-value in eight characters: `0.031`, `2.1e-5`.
pub fn short_p(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// A key for people: frames joined by ` → `, long call paths shortened in
/// the middle (the JSON and folded outputs keep every frame).
pub fn key_label(key: &[String]) -> String {
    if key.len() > 5 {
        format!("{} → … → {}", key[0], key[key.len() - 3..].join(" → "))
    } else {
        key.join(" → ")
    }
}

/// The report as text: a summary, then per metric the rows sorted by size
/// of change (the first `limit`, plus every regressed or improved row; 0
/// shows all), then the keys found on one side only.
pub fn render_table(r: &DiffReport, limit: usize) -> String {
    let mut out = String::new();
    let norm = r.settings.normalized;
    let _ = writeln!(
        out,
        "{} run(s) of A vs {} of B, rows by {}{}; {:.0}% intervals from {} whole-run resamples, Mann–Whitney p adjusted by Benjamini–Hochberg; noise floor at least {:.1}%",
        r.runs_a.len(),
        r.runs_b.len(),
        r.by.name(),
        if norm { ", each run normalised by its total" } else { "" },
        r.settings.confidence * 100.0,
        r.settings.resamples,
        r.settings.min_noise_floor * 100.0,
    );
    let s = &r.summary;
    let _ = writeln!(
        out,
        "{} regressed, {} improved, {} unchanged, {} inconclusive; {} only in A, {} only in B",
        s.regressed, s.improved, s.unchanged, s.inconclusive, s.only_in_a, s.only_in_b
    );
    for &metric in &r.metrics {
        let rows: Vec<&DiffRow> = r.rows.iter().filter(|x| x.metric == metric).collect();
        let unit = if norm {
            "share of the run's total".to_string()
        } else {
            match metric.unit() {
                "" => "count".into(),
                u => u.into(),
            }
        };
        let _ = writeln!(out, "\n{metric} ({unit}):");
        let _ = writeln!(
            out,
            "{:<12} {:>8} {:>19} {:>12} {:>12} {:>12} {:>8} {:>6}  name",
            "verdict",
            "change",
            format!("{:.0}% CI", r.settings.confidence * 100.0),
            "median A",
            "median B",
            "delta",
            "q",
            "δ"
        );
        let mut hidden = 0;
        for (i, x) in rows.iter().enumerate() {
            let flagged = matches!(x.verdict, Verdict::Regressed | Verdict::Improved);
            if limit != 0 && i >= limit && !flagged {
                hidden += 1;
                continue;
            }
            let ci = if x.exact {
                "exact".to_string()
            } else {
                format!("[{}, {}]", percent(x.ci_low), percent(x.ci_high))
            };
            let q = x.q_value.map_or("-".to_string(), short_p);
            let _ = writeln!(
                out,
                "{:<12} {:>8} {:>19} {:>12} {:>12} {:>12} {:>8} {:>+6.2}  {}",
                x.verdict.name(),
                percent(x.change),
                ci,
                format_value(x.median_a, metric, norm),
                format_value(x.median_b, metric, norm),
                signed(x.delta, metric, norm),
                q,
                x.cliffs_delta,
                key_label(&x.key)
            );
        }
        if hidden > 0 {
            let _ = writeln!(out, "… {hidden} more rows (--limit 0 shows all)");
        }
        for (title, list) in [("Only in A", &r.only_in_a), ("Only in B", &r.only_in_b)] {
            let only: Vec<&OnlyRow> = list.iter().filter(|x| x.metric == metric).collect();
            if only.is_empty() {
                continue;
            }
            let _ = writeln!(out, "{title} ({}):", only.len());
            let n = if limit == 0 { only.len() } else { limit.min(only.len()) };
            for x in &only[..n] {
                let _ = writeln!(
                    out,
                    "  {:>12}  in {} run(s)  {}",
                    format_value(x.median, metric, norm),
                    x.present,
                    key_label(&x.key)
                );
            }
            if n < only.len() {
                let _ = writeln!(out, "  … {} more", only.len() - n);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_units() {
        assert_eq!(format_value(1_234_567.0, Metric::ExclWall, false), "1.2346 ms");
        assert_eq!(format_value(2e9, Metric::InclCpu, false), "2 s");
        assert_eq!(format_value(12.0, Metric::ExclWall, false), "12 ns");
        assert_eq!(format_value(0.0025, Metric::ExclEnergy, false), "2.5 mJ");
        assert_eq!(format_value(7.0, Metric::Calls, false), "7");
        assert_eq!(format_value(7.5, Metric::Instructions, false), "7.5");
        assert_eq!(format_value(0.125, Metric::ExclWall, true), "12.500%");
        assert_eq!(signed(-3000.0, Metric::ExclWall, false), "-3 µs");
        assert_eq!(percent(0.1049), "+10.5%");
        assert_eq!(percent(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn long_paths_are_shortened() {
        let k: Vec<String> = (0..8).map(|i| format!("f{i}")).collect();
        assert_eq!(key_label(&k), "f0 → … → f5 → f6 → f7");
        assert_eq!(key_label(&k[..2]), "f0 → f1");
    }
}
