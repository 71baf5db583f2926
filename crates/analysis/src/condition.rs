//! Context conditions (seed 000 §5.8) and the intervals where they hold.
//!
//! A comparison is `<label> <op> <value>`: float and double items allow `<`
//! and `>`; int and long items `==` `!=` `<` `>` `<=` `>=`; strings `==` and
//! `!=`. Beyond the seed, comparisons combine with `and` / `or` (`and` binds
//! tighter) and parentheses. Labels and values may be quoted with `"` when
//! they contain operator characters or the words `and`/`or`.
//!
//! ```
//! use tracekit_analysis::Condition;
//! let c = Condition::parse("Screen orientation == 1 and CPU > 0.5").unwrap();
//! assert_eq!(c.to_string(), "(Screen orientation == 1 and CPU > 0.5)");
//! ```

use crate::context::value_at;
use crate::intervals::{Interval, IntervalSet};
use crate::Error;
use std::borrow::Cow;
use std::fmt;
use tracekit_model::{ContextTrack, ContextType, ContextValue, Session};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "==" | "=" => Op::Eq,
            "!=" => Op::Ne,
            "<" => Op::Lt,
            ">" => Op::Gt,
            "<=" => Op::Le,
            ">=" => Op::Ge,
            _ => return None,
        })
    }

    fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Gt => ">",
            Op::Le => "<=",
            Op::Ge => ">=",
        }
    }

    fn allowed_for(self, kind: ContextType) -> bool {
        match kind {
            ContextType::Float | ContextType::Double => matches!(self, Op::Lt | Op::Gt),
            ContextType::Int | ContextType::Long => true,
            ContextType::String => matches!(self, Op::Eq | Op::Ne),
        }
    }

    fn holds<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Lt => a < b,
            Op::Gt => a > b,
            Op::Le => a <= b,
            Op::Ge => a >= b,
        }
    }
}

/// A condition on context items.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `<label> <op> <value>`.
    Compare {
        /// Context item label.
        label: String,
        /// Operator.
        op: Op,
        /// Value as written (parsed against the item's type when evaluated).
        value: String,
    },
    /// Both hold.
    And(Box<Condition>, Box<Condition>),
    /// Either holds.
    Or(Box<Condition>, Box<Condition>),
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Compare { label, op, value } => write!(f, "{label} {} {value}", op.symbol()),
            Condition::And(a, b) => write!(f, "({a} and {b})"),
            Condition::Or(a, b) => write!(f, "({a} or {b})"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Quoted(String),
    Op(String),
    And,
    Or,
    Open,
    Close,
}

/// The tokens of a condition and the column (1-based, in characters) each
/// starts at, so errors can point into the text.
fn tokenize(s: &str) -> Result<(Vec<Tok>, Vec<usize>), Error> {
    let mut out = Vec::new();
    let mut cols = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !c.is_whitespace() {
            cols.push(i + 1);
        }
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            out.push(Tok::Open);
            i += 1;
        } else if c == ')' {
            out.push(Tok::Close);
            i += 1;
        } else if c == '"' {
            let end = chars[i + 1..]
                .iter()
                .position(|&x| x == '"')
                .ok_or_else(|| Error::Condition(format!("unclosed quote at column {}", i + 1)))?;
            out.push(Tok::Quoted(chars[i + 1..i + 1 + end].iter().collect()));
            i += end + 2;
        } else if "<>=!".contains(c) {
            let mut j = i;
            while j < chars.len() && "<>=!".contains(chars[j]) {
                j += 1;
            }
            out.push(Tok::Op(chars[i..j].iter().collect()));
            i = j;
        } else {
            let mut j = i;
            while j < chars.len() && !chars[j].is_whitespace() && !"()\"<>=!".contains(chars[j]) {
                j += 1;
            }
            let w: String = chars[i..j].iter().collect();
            out.push(match w.to_ascii_lowercase().as_str() {
                "and" | "&&" => Tok::And,
                "or" | "||" => Tok::Or,
                _ => Tok::Word(w),
            });
            i = j;
        }
    }
    Ok((out, cols))
}

/// Deepest nesting of parentheses a condition may have. The parser and
/// every evaluation recurse once per level, so an unbounded depth (a
/// condition ~11,000 parentheses deep, or ~2,800 on a UI worker thread)
/// overflowed the stack and aborted the process.
pub const MAX_NESTING: usize = 64;

/// Most comparisons one condition may combine. `and`/`or` chains make a
/// tree as deep as they are long, which evaluation walks recursively.
pub const MAX_COMPARISONS: usize = 256;

struct Parser {
    toks: Vec<Tok>,
    /// Where each token starts (1-based column).
    cols: Vec<usize>,
    /// The column just past the text.
    end_col: usize,
    pos: usize,
    /// Parentheses open at the current position.
    depth: usize,
    /// Comparisons parsed so far.
    comparisons: usize,
}

impl Parser {
    /// The column of the token at `pos` (the end of the text past the last).
    fn col(&self, pos: usize) -> usize {
        self.cols.get(pos).copied().unwrap_or(self.end_col)
    }

    fn expr(&mut self) -> Result<Condition, Error> {
        let mut left = self.term()?;
        while self.toks.get(self.pos) == Some(&Tok::Or) {
            self.pos += 1;
            left = Condition::Or(Box::new(left), Box::new(self.term()?));
        }
        Ok(left)
    }

    fn term(&mut self) -> Result<Condition, Error> {
        let mut left = self.factor()?;
        while self.toks.get(self.pos) == Some(&Tok::And) {
            self.pos += 1;
            left = Condition::And(Box::new(left), Box::new(self.factor()?));
        }
        Ok(left)
    }

    fn factor(&mut self) -> Result<Condition, Error> {
        if self.toks.get(self.pos) == Some(&Tok::Open) {
            if self.depth == MAX_NESTING {
                return Err(Error::Condition(format!(
                    "nested more than {MAX_NESTING} parentheses deep; write it with fewer"
                )));
            }
            let open = self.col(self.pos);
            self.pos += 1;
            self.depth += 1;
            let c = self.expr()?;
            if self.toks.get(self.pos) != Some(&Tok::Close) {
                return Err(Error::Condition(format!(
                    "missing `)` at column {} for the `(` at column {open}",
                    self.col(self.pos)
                )));
            }
            self.pos += 1;
            self.depth -= 1;
            return Ok(c);
        }
        self.comparisons += 1;
        if self.comparisons > MAX_COMPARISONS {
            return Err(Error::Condition(format!(
                "more than {MAX_COMPARISONS} comparisons in one condition; write it with fewer"
            )));
        }
        let label = self.words("a context label")?;
        let op = match self.toks.get(self.pos) {
            Some(Tok::Op(o)) => Op::parse(o).ok_or_else(|| {
                Error::Condition(format!(
                    "unknown operator `{o}` at column {} (use == != < > <= >=)",
                    self.col(self.pos)
                ))
            })?,
            _ => {
                return Err(Error::Condition(format!(
                    "expected an operator after `{label}` at column {} (use == != < > <= >=)",
                    self.col(self.pos)
                )))
            }
        };
        self.pos += 1;
        let value = self.words("a value")?;
        Ok(Condition::Compare { label, op, value })
    }

    fn words(&mut self, what: &str) -> Result<String, Error> {
        let mut parts = Vec::new();
        while let Some(t) = self.toks.get(self.pos) {
            match t {
                Tok::Word(w) | Tok::Quoted(w) => parts.push(w.clone()),
                _ => break,
            }
            self.pos += 1;
        }
        if parts.is_empty() {
            return Err(Error::Condition(format!(
                "expected {what} at column {}",
                self.col(self.pos)
            )));
        }
        Ok(parts.join(" "))
    }
}

impl Condition {
    /// Parses a condition such as `Screen orientation == 1 and CPU > 0.5`.
    pub fn parse(s: &str) -> Result<Condition, Error> {
        let (toks, cols) = tokenize(s)?;
        let mut p = Parser {
            toks,
            cols,
            end_col: s.chars().count() + 1,
            pos: 0,
            depth: 0,
            comparisons: 0,
        };
        let c = p.expr()?;
        if p.pos != p.toks.len() {
            return Err(Error::Condition(format!(
                "unexpected text at column {} after the condition in {s:?} (join comparisons with `and` or `or`)",
                p.col(p.pos)
            )));
        }
        Ok(c)
    }

    /// Labels the condition refers to.
    pub fn labels(&self) -> Vec<&str> {
        match self {
            Condition::Compare { label, .. } => vec![label.as_str()],
            Condition::And(a, b) | Condition::Or(a, b) => {
                let mut v = a.labels();
                v.extend(b.labels());
                v
            }
        }
    }

    /// The intervals of `session`'s timeline where the condition holds, up
    /// to `horizon` (ns; step-valued items hold their last value until then).
    pub fn intervals(&self, session: &Session, horizon: i64) -> Result<IntervalSet, Error> {
        match self {
            Condition::And(a, b) => Ok(a
                .intervals(session, horizon)?
                .intersect(&b.intervals(session, horizon)?)),
            Condition::Or(a, b) => Ok(a.intervals(session, horizon)?.union(&b.intervals(session, horizon)?)),
            Condition::Compare { label, op, value } => {
                let track = find_track(session, label)?;
                compare_intervals(&track, *op, value, horizon)
            }
        }
    }

    /// Whether the condition holds at one instant.
    pub fn holds_at(&self, session: &Session, t: i64) -> Result<bool, Error> {
        Ok(match self {
            Condition::And(a, b) => a.holds_at(session, t)? && b.holds_at(session, t)?,
            Condition::Or(a, b) => a.holds_at(session, t)? || b.holds_at(session, t)?,
            Condition::Compare { label, op, value } => {
                let track = find_track(session, label)?;
                let want = parse_value(&track, *op, value)?;
                match value_at(&track, t) {
                    None => false,
                    Some(v) => compare(&v, *op, &want),
                }
            }
        })
    }
}

/// The context item with this label (exact, else the one equal ignoring
/// case): a context track, or a counter track seen as one
/// ([`Session::context_items`]).
pub fn find_track<'a>(session: &'a Session, label: &str) -> Result<Cow<'a, ContextTrack>, Error> {
    if let Some(t) = session.context.iter().find(|t| t.label == label) {
        return Ok(Cow::Borrowed(t));
    }
    if let Some(c) = session.counters.iter().find(|c| c.name == label && !c.is_empty()) {
        return Ok(Cow::Owned(c.to_context()));
    }
    let lower = label.to_lowercase();
    let mut items = session.context_items();
    let mut matching = items.iter().filter(|t| t.label.to_lowercase() == lower);
    match (matching.next(), matching.next()) {
        (Some(t), None) => {
            let label = t.label.clone();
            let i = items.iter().position(|t| t.label == label).unwrap_or(0);
            Ok(items.swap_remove(i))
        }
        _ => Err(Error::UnknownContext {
            label: label.to_owned(),
            known: items.iter().map(|t| t.label.clone()).collect(),
        }),
    }
}

/// Levenshtein distance in characters (for "did you mean" suggestions).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn parse_value(track: &ContextTrack, op: Op, value: &str) -> Result<ContextValue, Error> {
    let kind = track.kind();
    if !op.allowed_for(kind) {
        let allowed = match kind {
            ContextType::Float | ContextType::Double => "< >",
            ContextType::Int | ContextType::Long => "== != < > <= >=",
            ContextType::String => "== !=",
        };
        return Err(Error::Condition(format!(
            "`{}` is a {} item: its operators are {allowed}, not {}",
            track.label,
            kind.name(),
            op.symbol()
        )));
    }
    let bad = || {
        Error::Condition(format!(
            "`{value}` is not a {} value (for `{}`)",
            kind.name(),
            track.label
        ))
    };
    let finite = |x: f64| {
        if x.is_finite() {
            Ok(x)
        } else {
            Err(Error::Condition(format!(
                "`{value}` is not a finite number (for `{}`): no value compares with it",
                track.label
            )))
        }
    };
    Ok(match kind {
        ContextType::Int => ContextValue::Int(value.parse().map_err(|_| bad())?),
        ContextType::Long => ContextValue::Long(value.parse().map_err(|_| bad())?),
        ContextType::Float => ContextValue::Float(finite(value.parse::<f32>().map_err(|_| bad())?.into())? as f32),
        ContextType::Double => ContextValue::Double(finite(value.parse().map_err(|_| bad())?)?),
        ContextType::String => ContextValue::Str(value.to_owned()),
    })
}

fn compare(v: &ContextValue, op: Op, want: &ContextValue) -> bool {
    match (v, want) {
        (ContextValue::Str(a), ContextValue::Str(b)) => op.holds(a, b),
        (ContextValue::Int(a), ContextValue::Int(b)) => op.holds(a, b),
        (ContextValue::Long(a), ContextValue::Long(b)) => op.holds(a, b),
        (a, b) => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => op.holds(x, y),
            _ => false,
        },
    }
}

fn compare_intervals(track: &ContextTrack, op: Op, value: &str, horizon: i64) -> Result<IntervalSet, Error> {
    let want = parse_value(track, op, value)?;
    let n = track.len();
    let mut out = Vec::new();
    if !track.kind().is_continuous() {
        for i in 0..n {
            let start = track.times[i];
            let end = if i + 1 < n {
                track.times[i + 1]
            } else {
                horizon.max(start + 1)
            };
            if compare(&track.samples.get(i), op, &want) {
                out.push(Interval { start, end });
            }
        }
        return Ok(IntervalSet::from_intervals(out));
    }
    let c = want.as_f64().unwrap_or(f64::NAN);
    for i in 0..n.saturating_sub(1) {
        let (t0, t1) = (track.times[i], track.times[i + 1]);
        let (Some(v0), Some(v1)) = (track.samples.get_f64(i), track.samples.get_f64(i + 1)) else {
            continue;
        };
        if t1 <= t0 {
            continue;
        }
        let above = |v: f64| if op == Op::Gt { v > c } else { v < c };
        match (above(v0), above(v1)) {
            (true, true) => out.push(Interval { start: t0, end: t1 }),
            (false, false) => {}
            (a, _) => {
                let frac = (c - v0) / (v1 - v0);
                let tc = t0 + ((t1 - t0) as f64 * frac).round() as i64;
                if a {
                    out.push(Interval { start: t0, end: tc });
                } else {
                    out.push(Interval { start: tc, end: t1 });
                }
            }
        }
    }
    Ok(IntervalSet::from_intervals(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parse error says where in the condition text it is.
    #[test]
    fn parse_errors_give_the_column() {
        for (text, expected) in [
            ("Screen orientation == ", "expected a value at column 23"),
            ("(CPU > 0.5", "missing `)` at column 11 for the `(` at column 1"),
            ("CPU 0.5", "expected an operator after `CPU 0.5` at column 8"),
            ("CPU =< 0.5", "unknown operator `=<` at column 5"),
            ("CPU > 0.5 )", "unexpected text at column 11"),
            ("\"CPU > 1", "unclosed quote at column 1"),
            ("a > 1 and", "expected a context label at column 10"),
        ] {
            let e = Condition::parse(text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text:?}: {e}");
        }
    }

    #[test]
    fn an_unknown_label_suggests_the_nearest_one_or_says_there_is_no_context() {
        let known = vec!["Screen orientation".to_owned(), "CPU".to_owned()];
        let typo = Error::UnknownContext {
            label: "Screen orientatoin".into(),
            known: known.clone(),
        }
        .to_string();
        assert!(typo.contains("did you mean \"Screen orientation\"?"), "{typo}");
        let far = Error::UnknownContext {
            label: "Battery".into(),
            known,
        }
        .to_string();
        assert!(
            !far.contains("did you mean") && far.contains("The items are: Screen orientation, CPU"),
            "{far}"
        );
        let none = Error::UnknownContext {
            label: "CPU".into(),
            known: vec![],
        }
        .to_string();
        assert!(none.contains("NAME.clog beside NAME.trace"), "{none}");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
    use tracekit_model::Clocks;

    fn session() -> Session {
        let mut s = Session::new("t", Clocks::WALL);
        let mut o = ContextTrack::new("Screen orientation", ContextType::Int);
        o.push(0, ContextValue::Int(0));
        o.push(100, ContextValue::Int(1));
        o.push(300, ContextValue::Int(0));
        let mut c = ContextTrack::new("CPU", ContextType::Float);
        c.push(0, ContextValue::Float(0.0));
        c.push(400, ContextValue::Float(1.0));
        let mut w = ContextTrack::new("Wifi connection state", ContextType::String);
        w.push(50, ContextValue::Str("CONNECTED".into()));
        s.context = vec![o, c, w];
        s
    }

    #[test]
    fn parses_and_evaluates() {
        let s = session();
        let c = Condition::parse("Screen orientation == 1").unwrap();
        assert_eq!(c.intervals(&s, 1000).unwrap(), IntervalSet::single(100, 300));
        let c = Condition::parse("screen orientation != 1").unwrap();
        assert_eq!(c.intervals(&s, 1000).unwrap().total(), 100 + 700);
        let c = Condition::parse("CPU > 0.5").unwrap();
        assert_eq!(c.intervals(&s, 1000).unwrap(), IntervalSet::single(200, 400));
        let c = Condition::parse("Screen orientation == 1 and CPU > 0.5").unwrap();
        assert_eq!(c.intervals(&s, 1000).unwrap(), IntervalSet::single(200, 300));
        let c = Condition::parse("(Screen orientation == 1 or CPU < 0.25) and \"Wifi connection state\" == CONNECTED")
            .unwrap();
        assert_eq!(c.intervals(&s, 1000).unwrap(), IntervalSet::single(50, 300));
        assert!(c.holds_at(&s, 150).unwrap());
        assert!(!c.holds_at(&s, 10).unwrap());
    }

    proptest::proptest! {
        #[test]
        fn parsing_any_text_never_panics(text in ".{0,40}") {
            let s = session();
            if let Ok(c) = Condition::parse(&text) {
                let _ = c.intervals(&s, 1000);
                let _ = c.holds_at(&s, 5);
            }
        }
    }

    #[test]
    fn rejects_what_the_seed_forbids() {
        let s = session();
        let e = Condition::parse("CPU == 0.5").unwrap().intervals(&s, 10).unwrap_err();
        assert!(e.to_string().contains("operators are < >"), "{e}");
        let e = Condition::parse("Wifi connection state < A")
            .unwrap()
            .intervals(&s, 10)
            .unwrap_err();
        assert!(e.to_string().contains("== !="), "{e}");
        let e = Condition::parse("Battery == 1").unwrap().intervals(&s, 10).unwrap_err();
        assert!(e.to_string().contains("Screen orientation"), "{e}");
        assert!(Condition::parse("CPU >").is_err());
        assert!(Condition::parse("CPU => 1").is_err());
        assert!(Condition::parse("(CPU > 1").is_err());
        assert!(Condition::parse("Screen orientation == x")
            .unwrap()
            .intervals(&s, 10)
            .is_err());
    }

    #[test]
    fn not_a_number_and_infinity_are_refused() {
        let s = session();
        for v in ["NaN", "nan", "inf", "-inf", "infinity", "1e99"] {
            let e = Condition::parse(&format!("CPU > {v}"))
                .unwrap()
                .intervals(&s, 10)
                .unwrap_err();
            assert!(e.to_string().contains("not a finite number"), "{v}: {e}");
            assert!(Condition::parse(&format!("CPU > {v}"))
                .unwrap()
                .holds_at(&s, 5)
                .is_err());
        }
        assert!(
            Condition::parse("CPU > 1e30").unwrap().intervals(&s, 10).is_ok(),
            "finite double"
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let s = session();
        let nest = |n: usize| format!("{}CPU > 0.5{}", "(".repeat(n), ")".repeat(n));
        let ok = Condition::parse(&nest(MAX_NESTING)).unwrap();
        assert_eq!(ok.intervals(&s, 1000).unwrap(), IntervalSet::single(200, 400));
        for n in [MAX_NESTING + 1, 11_000, 1_000_000] {
            let e = Condition::parse(&nest(n)).unwrap_err();
            assert!(e.to_string().contains("parentheses deep"), "{e}");
        }
        // Unclosed parentheses are bounded too.
        assert!(Condition::parse(&"(".repeat(100_000)).is_err());
        let chain = |n: usize| vec!["CPU > 0.5"; n].join(" and ");
        assert!(Condition::parse(&chain(MAX_COMPARISONS))
            .unwrap()
            .intervals(&s, 1000)
            .is_ok());
        let e = Condition::parse(&chain(100_000)).unwrap_err();
        assert!(e.to_string().contains("comparisons"), "{e}");
    }
}
