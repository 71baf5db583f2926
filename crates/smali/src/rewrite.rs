//! Writes one method back with its probes.
//!
//! Registers: the method gets [`PROBE_REGISTERS`] more. Dalvik passes the
//! parameters in the last registers, so they arrive higher than before; the
//! prologue moves each one (`move*/16`, by its kind) down to the register it
//! had, and `pN` operands are written as those absolute registers. The
//! method's own instructions thus keep every register number (a 4-bit
//! operand stays 4-bit, wide pairs and live objects are untouched), and the
//! probes use the registers above them.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use crate::cfg::Analysis;
use crate::opcodes::OpKind;
use crate::parse::{Insn, Method, Reg, Registers, Stmt, ValueKind};
use crate::probes::{EdgeOp, Regs, PROBE_REGISTERS};

/// What the method needs to know about the plan.
pub struct MethodPlan<'a> {
    /// Method id in the program.
    pub id: u32,
    /// Work of each edge `(from, to)` that has any.
    pub work: &'a HashMap<(u32, u32), EdgeOp>,
    /// Record every block for the `--verify` sidecar.
    pub verify: bool,
}

/// Registers of the method before instrumentation: (locals, ins), or why
/// the method is left alone.
pub fn register_layout(m: &Method) -> Result<(u32, u32), String> {
    let ins = m.ins();
    let locals = match m.registers {
        Some((Registers::Locals(l), _)) => l,
        Some((Registers::Total(t), _)) if t >= ins => t - ins,
        Some((Registers::Total(t), _)) => {
            return Err(format!(".registers {t} is fewer than the {ins} parameter registers"))
        }
        None => return Err("no .registers or .locals".into()),
    };
    if locals + ins + PROBE_REGISTERS > 256 {
        return Err(format!(
            "{} registers plus the probes' {PROBE_REGISTERS} exceed the 256 that 8-bit operands reach",
            locals + ins
        ));
    }
    Ok((locals, ins))
}

fn rewrite_regs(text: &str, locals: u32) -> String {
    // Rewrites every `pN` word (outside strings) as `v(locals + N)`.
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' || c == b'\'' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push_str(&text[s..i]);
            continue;
        }
        let word_start = i == 0
            || !(b[i - 1].is_ascii_alphanumeric()
                || b[i - 1] == b'_'
                || b[i - 1] == b'/'
                || b[i - 1] == b'$'
                || b[i - 1] == b'-'
                || b[i - 1] == b'>'
                || b[i - 1] == b':');
        if c == b'p' && word_start {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let ends = j == b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b';' || b[j] == b'$');
            if j > i + 1 && ends {
                if let Some(Reg::P(n)) = Reg::parse(&text[i..j]) {
                    let _ = write!(out, "v{}", locals + n);
                    i = j;
                    continue;
                }
            }
        }
        if c == b'#' {
            break; // comments dropped
        }
        out.push(c as char);
        i += 1;
    }
    out.trim_end().to_string()
}

fn insn_text(x: &Insn, locals: u32, relabel: &HashMap<usize, String>) -> String {
    let ops: Vec<String> = x
        .operands
        .iter()
        .enumerate()
        .map(|(k, t)| {
            relabel
                .get(&k)
                .cloned()
                .unwrap_or_else(|| rewrite_regs(&t.text, locals))
        })
        .collect();
    if ops.is_empty() {
        x.op.clone()
    } else {
        format!("{} {}", x.op, ops.join(", "))
    }
}

/// Writes the instrumented method (from `.method` to `.end method`) to `out`.
pub fn write_method(
    m: &Method,
    lines: &[String],
    a: &Analysis,
    plan: &MethodPlan,
    out: &mut Vec<String>,
) -> Result<(), String> {
    let (locals, ins) = register_layout(m)?;
    let regs = Regs::new(locals + ins);
    let exit = a.cfg.exit();
    let n_blocks = a.starts.len();
    let work = |u: u32, w: u32| plan.work.get(&(u, w)).copied();
    // The block whose switch owns each payload.
    let mut payload_owner: HashMap<&str, u32> = HashMap::new();
    for i in 0..a.insns.len() {
        let x = a.insn(m, i);
        if x.kind == OpKind::Switch {
            let l = x.labels().last().unwrap_or_default();
            if payload_owner.insert(l, a.node_of(i)).is_some() {
                return Err(format!("payload :{l} is shared by two switches"));
            }
        }
    }
    // `this` for finding a constructor's super() call.
    let this_reg = if m.is_static() { None } else { Some(locals) };
    let mut init_done: Option<usize> = None;
    if m.name == "<init>" {
        init_done = (0..a.insns.len()).find(|&i| {
            let x = a.insn(m, i);
            x.op.starts_with("invoke-direct")
                && x.operands.last().is_some_and(|t| t.text.contains("-><init>("))
                && x.operands.first().and_then(|t| first_reg(&t.text, locals)) == this_reg
        });
    }
    // Handler blocks that start with move-exception: (register text).
    let mut mx_reg: HashMap<u32, String> = HashMap::new();
    for c in &a.catches {
        let x = a.insn(m, c.handler_insn);
        if x.kind == OpKind::MoveException {
            mx_reg.insert(a.node_of(c.handler_insn), rewrite_regs(&x.operands[0].text, locals));
        }
    }
    let mut tramps: Vec<String> = Vec::new();
    let mut made: HashSet<String> = HashSet::new();
    let mut trampoline = |key: String,
                          u: u32,
                          w: u32,
                          op: EdgeOp,
                          exception: bool,
                          target: String,
                          tramps: &mut Vec<String>|
     -> String {
        let name = format!("tk_t{key}_{u}_{w}");
        if made.insert(name.clone()) {
            tramps.push(format!(":{name}"));
            if exception {
                tramps.push(format!("move-exception {}", regs.exc()));
            }
            regs.edge(u, op, &name, tramps);
            if exception {
                if let Some(r) = mx_reg.get(&w) {
                    tramps.push(format!("move-object/16 {r}, {}", regs.exc()));
                    tramps.push(format!("goto/32 :tk_mx{w}"));
                    return name;
                }
            }
            tramps.push(format!("goto/32 {target}"));
        }
        name
    };
    out.push(lines[m.start].clone());
    out.push(format!("    .registers {}", locals + ins + PROBE_REGISTERS));
    let mut catch_no = 0usize;
    let first_code = m
        .body
        .iter()
        .position(|l| matches!(l.stmt, Stmt::Label(_) | Stmt::Insn(_)))
        .unwrap_or(m.body.len());
    let mut insn_no = 0usize;
    let mut abort_ranges: Vec<(String, String)> = Vec::new();
    let covered_by_catchall = |b: usize| {
        let s = a.starts[b];
        a.catches.iter().any(|c| c.ty.is_none() && s >= c.start && s < c.end)
    };
    for (k, l) in m.body.iter().enumerate() {
        if k == first_code {
            let kinds = m.param_kinds();
            let mut reg = 0;
            for kind in kinds {
                let op = match kind {
                    ValueKind::Single => "move/16",
                    ValueKind::Wide => "move-wide/16",
                    ValueKind::Object => "move-object/16",
                };
                out.push(format!("{op} v{}, v{}", locals + reg, locals + PROBE_REGISTERS + reg));
                reg += kind.width();
            }
            regs.prologue(out);
        }
        let text = &lines[l.line];
        match &l.stmt {
            Stmt::Label(_) | Stmt::Line(_) => out.push(text.clone()),
            Stmt::Other { lines: n } => {
                let t = text.trim_start();
                if t.starts_with(".local ") || t.starts_with(".end local") || t.starts_with(".restart local") {
                    out.push(rewrite_regs(text, locals));
                } else {
                    out.extend(lines[l.line..l.line + n].iter().cloned());
                }
            }
            Stmt::SwitchPayload { lines: n, .. } => {
                // The payload's label is the line before; find its owner from the labels seen.
                let owner = m.body[..k].iter().rev().find_map(|p| match &p.stmt {
                    Stmt::Label(name) => payload_owner.get(name.as_str()).copied(),
                    _ => None,
                });
                out.push(text.clone());
                for line in &lines[l.line + 1..l.line + n - 1] {
                    let body = line.split('#').next().unwrap_or("").trim();
                    let Some(pos) = body.rfind(':') else {
                        out.push(line.clone());
                        continue;
                    };
                    let label = &body[pos + 1..];
                    let target = a.label_insn.get(label).copied();
                    match (owner, target) {
                        (Some(u), Some(ti)) if ti < a.insns.len() => {
                            let w = a.node_of(ti);
                            match work(u, w) {
                                Some(op) => {
                                    let name =
                                        trampoline("s".into(), u, w, op, false, format!(":{label}"), &mut tramps);
                                    out.push(format!("{}:{name}", &body[..pos]));
                                }
                                None => out.push(line.clone()),
                            }
                        }
                        _ => out.push(line.clone()),
                    }
                }
                out.push(lines[l.line + n - 1].clone());
            }
            Stmt::Catch { ty, handler, .. } => {
                let c = a.catches.get(catch_no).ok_or("catch range lost")?;
                catch_no += 1;
                let h = a.node_of(c.handler_insn);
                let blocks: Vec<usize> = (0..n_blocks)
                    .filter(|&b| a.starts[b] >= c.start && a.starts[b] < c.end)
                    .collect();
                let any_work = blocks.iter().any(|&b| work(b as u32 + 1, h).is_some());
                if !any_work {
                    out.push(text.clone());
                    continue;
                }
                let head = match ty {
                    Some(t) => format!(".catch {t}"),
                    None => ".catchall".into(),
                };
                for b in blocks {
                    let u = b as u32 + 1;
                    let target = match work(u, h) {
                        Some(op) => trampoline("x".into(), u, h, op, true, format!(":{handler}"), &mut tramps),
                        None => handler.clone(),
                    };
                    out.push(format!("{head} {{:tk_b{b} .. :tk_b{}}} :{target}", b + 1));
                }
            }
            Stmt::Insn(_) if a.insns.get(insn_no) != Some(&k) => out.push(text.clone()),
            Stmt::Insn(x) => {
                let i = insn_no;
                insn_no += 1;
                let b = a.block_of[i] as usize;
                let u = b as u32 + 1;
                let starts_block = a.starts[b] == i;
                if starts_block && x.kind == OpKind::MoveException {
                    out.push(format!(":tk_b{b}"));
                    out.push(insn_text(x, locals, &HashMap::new()));
                    out.push(format!(":tk_mx{u}"));
                    regs.block_start(u, plan.verify, out);
                    continue;
                }
                if starts_block {
                    out.push(format!(":tk_b{b}"));
                    regs.block_start(u, plan.verify, out);
                }
                let last = a.block_end(b) == i + 1;
                let mut relabel = HashMap::new();
                match x.kind {
                    OpKind::Return => {
                        if let Some(op) = work(u, exit) {
                            regs.edge(u, op, &format!("r{i}"), out);
                        }
                        regs.exit(plan.id, plan.verify, out);
                    }
                    OpKind::Goto if last => {
                        let t = a.label_insn[x.labels().last().unwrap_or_default()];
                        if let Some(op) = work(u, a.node_of(t)) {
                            regs.edge(u, op, &format!("g{i}"), out);
                        }
                    }
                    OpKind::If if last => {
                        let k = x.operands.len() - 1;
                        let label = x.labels().last().unwrap_or_default().to_string();
                        let w = a.node_of(a.label_insn[&label]);
                        if let Some(op) = work(u, w) {
                            let name = trampoline("b".into(), u, w, op, false, format!(":{label}"), &mut tramps);
                            relabel.insert(k, format!(":{name}"));
                        }
                    }
                    _ => {}
                }
                out.push(insn_text(x, locals, &relabel));
                if let Some(j) = init_done {
                    if j == i {
                        out.push(":tk_init".into());
                    }
                }
                if last && !x.kind.ends_flow() && x.kind != OpKind::Throw {
                    if let Some(op) = work(u, u + 1) {
                        regs.edge(u, op, &format!("f{i}"), out);
                    }
                }
                if i + 1 == a.insns.len() {
                    out.push(format!(":tk_b{n_blocks}"));
                }
            }
        }
    }
    // The catch-all that records aborted invocations: every block not under
    // an original catch-all, and in a constructor only after super().
    if m.name != "<init>" || init_done.is_some() {
        // After super(): from the label behind the call, or from the next
        // block when the call ends its block (an empty range breaks dexlib2).
        let (first_block, use_init_label) = match init_done {
            Some(j) if a.block_end(a.block_of[j] as usize) == j + 1 => (a.block_of[j] as usize + 1, false),
            Some(j) => (a.block_of[j] as usize, true),
            None => (0, false),
        };
        let mut run: Option<String> = None;
        for b in first_block..=n_blocks {
            let inside = b < n_blocks && !covered_by_catchall(b);
            let start_label = if b == first_block && use_init_label {
                "tk_init".to_string()
            } else {
                format!("tk_b{b}")
            };
            match (&run, inside) {
                (None, true) => run = Some(start_label),
                (Some(s), false) => {
                    abort_ranges.push((s.clone(), format!("tk_b{b}")));
                    run = None;
                }
                _ => {}
            }
        }
    }
    for (s, e) in &abort_ranges {
        out.push(format!(".catchall {{:{s} .. :{e}}} :tk_abort"));
    }
    out.extend(tramps);
    if !abort_ranges.is_empty() {
        out.push(":tk_abort".into());
        regs.abort_handler(plan.id, plan.verify, out);
    }
    out.push(lines[m.end].clone());
    Ok(())
}

fn first_reg(text: &str, locals: u32) -> Option<u32> {
    let inner = text.trim_start_matches('{');
    let r = inner.split([',', ' ', '}']).next()?;
    match Reg::parse(r)? {
        Reg::V(n) => Some(n),
        Reg::P(n) => Some(locals + n),
    }
}

/// An upper estimate of the code units of the instructions among smali
/// `lines` (payloads counted by their entries): whether every `if-*` of the
/// method still reaches the trampolines at its end (16-bit offsets).
pub fn code_units(lines: &[String]) -> usize {
    let mut units = 0;
    for l in lines {
        let t = l.trim_start();
        let op = t.split_whitespace().next().unwrap_or("");
        units += match op {
            "" => 0,
            _ if op.starts_with('.') || op.starts_with(':') || op.starts_with('#') => 0,
            "const-wide" => 5,
            _ if op.starts_with("const")
                || op.starts_with("invoke")
                || op.contains("/16")
                || op.contains("/32")
                || op.contains("/jumbo") =>
            {
                3
            }
            _ if op.starts_with("filled-new-array") || op.starts_with("fill-array") || op.ends_with("-switch") => 3,
            _ if op.starts_with("0x") || op.starts_with('-') => 4, // sparse/array payload entries
            _ => 2,
        };
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_units_count_instructions_not_directives() {
        let lines: Vec<String> = [
            "    .line 3",
            ":l",
            "const-wide v1, 0x5L",
            "add-long v1, v1, v3",
            "goto/32 :l",
            "# c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(code_units(&lines), 5 + 2 + 3);
    }

    #[test]
    fn parameter_registers_become_their_old_numbers() {
        assert_eq!(rewrite_regs("{p0 .. p2}", 4), "{v4 .. v6}");
        assert_eq!(rewrite_regs("p1, Lcom/p1;->p1:I", 3), "v4, Lcom/p1;->p1:I");
        assert_eq!(rewrite_regs("p0, \"p1 # x\" # p2", 2), "v2, \"p1 # x\"");
    }
}
