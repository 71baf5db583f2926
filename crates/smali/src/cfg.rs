//! Control-flow graphs of smali methods, in the JVM frontend's numbering.
//!
//! Node `0` is the virtual ENTRY, block `b` (in code order) is node `b + 1`,
//! the last node is the virtual EXIT. Out-edges: fall-through first (an
//! `if-*`'s or a switch's "not taken"), then branch or switch-payload
//! targets, then the handlers of every `.catch`/`.catchall` range the block
//! lies in (range ends are block boundaries), then EXIT for returns; a block
//! that cannot reach EXIT gets an edge to it, as on the JVM
//! (`tracekit_jvm::cfg`). A `move-result*` always stays in the block of the
//! invoke before it, so no probe ever separates the two.

use std::collections::HashMap;

use tracekit_jvm::cfg::{Block, MethodCfg};

use crate::opcodes::OpKind;
use crate::parse::{Insn, Method, Stmt};

/// A `.catch`/`.catchall` range in instruction indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatchRange {
    /// Exception type; `None` for catch-all.
    pub ty: Option<String>,
    /// First covered instruction.
    pub start: usize,
    /// First instruction after the range.
    pub end: usize,
    /// The handler's label.
    pub handler: String,
    /// The handler's first instruction.
    pub handler_insn: usize,
}

/// A method's instructions, blocks and CFG.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Index into `Method::body` of each instruction (trailing alignment
    /// `nop`s are not instructions).
    pub insns: Vec<usize>,
    /// Instruction index where each block starts.
    pub starts: Vec<usize>,
    /// Block of each instruction.
    pub block_of: Vec<u32>,
    /// Label → instruction it marks (`insns.len()` for the end of the code).
    pub label_insn: HashMap<String, usize>,
    /// Switch-payload label → target labels.
    pub payloads: HashMap<String, Vec<String>>,
    /// Exception ranges in declaration order.
    pub catches: Vec<CatchRange>,
    /// The CFG.
    pub cfg: MethodCfg,
}

impl Analysis {
    /// The instruction at index `i`.
    pub fn insn<'m>(&self, m: &'m Method, i: usize) -> &'m Insn {
        match &m.body[self.insns[i]].stmt {
            Stmt::Insn(x) => x,
            _ => unreachable!("insns index instructions only"),
        }
    }
    /// Node of the block starting at or containing instruction `i`.
    pub fn node_of(&self, i: usize) -> u32 {
        self.block_of[i] + 1
    }
    /// Instruction index one past block `b`'s last.
    pub fn block_end(&self, b: usize) -> usize {
        self.starts.get(b + 1).copied().unwrap_or(self.insns.len())
    }
}

/// Builds the CFG of `m`; `Err` says why the method is left alone (no
/// code, or code the instrumenter cannot handle safely).
pub fn analyze(m: &Method, lines: &[String]) -> Result<Analysis, String> {
    let mut insns = Vec::new();
    let mut label_insn = HashMap::new();
    let mut payloads = HashMap::new();
    let mut pending: Vec<&str> = Vec::new();
    let mut line_of = Vec::new();
    let mut line = 0u32;
    for (k, l) in m.body.iter().enumerate() {
        match &l.stmt {
            Stmt::Label(name) => pending.push(name),
            Stmt::Insn(x) => {
                if x.kind == OpKind::Unsafe {
                    return Err(format!("uses the optimized or verifier-error instruction `{}`", x.op));
                }
                for p in pending.drain(..) {
                    label_insn.insert(p.to_string(), insns.len());
                }
                insns.push(k);
                line_of.push(line);
            }
            Stmt::SwitchPayload { targets, .. } => {
                for p in pending.drain(..) {
                    payloads.insert(p.to_string(), targets.clone());
                }
            }
            Stmt::Other { .. } if lines[l.line].trim_start().starts_with(".array-data") => pending.clear(),
            Stmt::Line(n) => line = *n,
            _ => {}
        }
    }
    // Alignment `nop`s baksmali prints before the payloads at the end are padding, not code.
    while insns.len() > 1 {
        let last = match &m.body[*insns.last().expect("non-empty")].stmt {
            Stmt::Insn(x) => x.op == "nop",
            _ => false,
        };
        if !last {
            break;
        }
        insns.pop();
        line_of.pop();
        let n = insns.len();
        for v in label_insn.values_mut() {
            *v = (*v).min(n);
        }
    }
    for p in pending {
        label_insn.insert(p.to_string(), insns.len());
    }
    if insns.is_empty() {
        return Err("no code".into());
    }
    let n_insns = insns.len();
    let at = |label: &str| -> Result<usize, String> {
        label_insn
            .get(label)
            .copied()
            .ok_or_else(|| format!(":{label} does not mark an instruction"))
    };
    let insn = |i: usize| match &m.body[insns[i]].stmt {
        Stmt::Insn(x) => x,
        _ => unreachable!(),
    };
    let mut catches = Vec::new();
    for l in &m.body {
        if let Stmt::Catch {
            ty,
            start,
            end,
            handler,
        } = &l.stmt
        {
            let (s, e, h) = (at(start)?, at(end)?, at(handler)?);
            if s >= e || h >= n_insns {
                return Err(format!("empty or malformed exception range :{start} .. :{end}"));
            }
            catches.push(CatchRange {
                ty: ty.clone(),
                start: s,
                end: e,
                handler: handler.clone(),
                handler_insn: h,
            });
        }
    }
    // Targets of every instruction (branch or payload).
    let mut targets: Vec<Vec<usize>> = vec![Vec::new(); n_insns];
    for (i, t) in targets.iter_mut().enumerate() {
        let x = insn(i);
        match x.kind {
            OpKind::If | OpKind::Goto => {
                let l = x
                    .labels()
                    .last()
                    .ok_or_else(|| format!("`{}` without a target", x.op))?;
                t.push(at(l)?);
            }
            OpKind::Switch => {
                let l = x
                    .labels()
                    .last()
                    .ok_or_else(|| format!("`{}` without a payload", x.op))?;
                let p = payloads.get(l).ok_or_else(|| format!(":{l} is not a switch payload"))?;
                for tl in p {
                    t.push(at(tl)?);
                }
            }
            _ => {}
        }
        if t.iter().any(|&w| w >= n_insns) {
            return Err(format!("`{}` jumps past the end of the code", x.op));
        }
    }
    let mut leader = vec![false; n_insns + 1];
    leader[0] = true;
    for i in 0..n_insns {
        let k = insn(i).kind;
        if matches!(
            k,
            OpKind::If | OpKind::Goto | OpKind::Switch | OpKind::Return | OpKind::Throw
        ) {
            leader[i + 1] = true;
        }
        for &w in &targets[i] {
            if insn(w).kind == OpKind::MoveResult {
                return Err("a branch targets a move-result".into());
            }
            leader[w] = true;
        }
    }
    for c in &catches {
        leader[c.start] = true;
        leader[c.end] = true;
        leader[c.handler_insn] = true;
    }
    for i in 0..n_insns {
        if leader[i] && insn(i).kind == OpKind::MoveResult {
            if i == 0 || insn(i - 1).kind != OpKind::Invoke {
                return Err("a move-result does not follow an invoke".into());
            }
            // Keep the pair together; the block boundary moves past the move-result.
            leader[i] = false;
            leader[i + 1] = true;
        }
    }
    let starts: Vec<usize> = (0..n_insns).filter(|&i| leader[i]).collect();
    let mut block_of = vec![0u32; n_insns];
    for (b, &s) in starts.iter().enumerate() {
        let e = starts.get(b + 1).copied().unwrap_or(n_insns);
        block_of[s..e].fill(b as u32);
    }
    let n = starts.len();
    let exit = n as u32 + 1;
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n + 2];
    succs[0].push(1);
    let mut blocks = Vec::with_capacity(n);
    for (b, &s) in starts.iter().enumerate() {
        let e = starts.get(b + 1).copied().unwrap_or(n_insns);
        let last = insn(e - 1);
        let out = &mut succs[b + 1];
        let mut add = |w: u32| {
            if !out.contains(&w) {
                out.push(w)
            }
        };
        let node = |i: usize| block_of[i] + 1;
        match last.kind {
            OpKind::Goto => add(node(targets[e - 1][0])),
            OpKind::Return => add(exit),
            OpKind::Throw => {}
            k => {
                if e >= n_insns {
                    return Err("the code falls off its end".into());
                }
                add(b as u32 + 2);
                if matches!(k, OpKind::If | OpKind::Switch) {
                    for &w in &targets[e - 1] {
                        add(node(w));
                    }
                }
            }
        }
        for c in &catches {
            if s >= c.start && s < c.end {
                add(node(c.handler_insn));
            }
        }
        let (a, z) = (line_of[s], line_of[e - 1]);
        blocks.push(Block {
            first_insn: s as u32,
            offset: s as u32,
            lines: (a.min(z), a.max(z)),
        });
    }
    let mut reaches = vec![false; n + 2];
    reaches[exit as usize] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for v in (0..=n).rev() {
            if !reaches[v] && succs[v].iter().any(|&w| reaches[w as usize]) {
                reaches[v] = true;
                changed = true;
            }
        }
    }
    for (v, r) in reaches.iter().enumerate().take(n + 1).skip(1) {
        if !r {
            succs[v].push(exit);
        }
    }
    Ok(Analysis {
        insns,
        starts,
        block_of,
        label_insn,
        payloads,
        catches,
        cfg: MethodCfg {
            blocks,
            insn_count: n_insns as u32,
            succs,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use std::path::Path;

    fn cfg_of(body: &str) -> Result<Analysis, String> {
        let text =
            format!(".class LA;\n.super Ljava/lang/Object;\n.method static f(I)I\n.locals 2\n{body}\n.end method\n");
        let f = parse(Path::new("A.smali"), &text).unwrap();
        analyze(&f.methods[0], &f.lines)
    }

    #[test]
    fn branches_switches_and_handlers() {
        let a = cfg_of(
            ":try_start\ninvoke-static {p0}, LA;->g(I)I\nmove-result v0\n:try_end\n.catch Ljava/lang/Exception; {:try_start .. :try_end} :h\nif-eqz v0, :z\nsparse-switch v0, :sw\nreturn v0\n:z\nconst/4 v0, 0x0\nreturn v0\n:h\nmove-exception v1\nthrow v1\n:sw\n.sparse-switch\n0x3 -> :z\n0x7 -> :h\n.end sparse-switch",
        )
        .unwrap();
        // Blocks: [invoke, move-result] [if] [switch] [return] [const, return] [move-exception, throw].
        assert_eq!(a.starts, vec![0, 2, 3, 4, 5, 7]);
        let s = &a.cfg.succs;
        assert_eq!(s[1], vec![2, 6]);
        assert_eq!(s[2], vec![3, 5]);
        assert_eq!(s[3], vec![4, 5, 6]);
        assert_eq!(s[4], vec![7]);
        // The handler rethrows: no way to EXIT, so an edge to it.
        assert_eq!(s[6], vec![7]);
    }

    #[test]
    fn unsafe_code_is_refused_with_a_reason() {
        assert!(
            cfg_of("goto :m\n:x\ninvoke-static {}, LA;->h()I\n:m\nmove-result v0\nreturn v0")
                .unwrap_err()
                .contains("move-result")
        );
        assert!(cfg_of("const/4 v0, 0x0").unwrap_err().contains("falls off"));
        assert!(cfg_of("iget-quick v0, p0, field@0x8\nreturn v0")
            .unwrap_err()
            .contains("optimized"));
    }

    #[test]
    fn endless_loop_gets_an_exit_edge() {
        let a = cfg_of(":l\ngoto :l").unwrap();
        assert_eq!(a.cfg.succs[1], vec![1, 2]);
    }
}
