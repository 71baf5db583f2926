//! Control-flow graphs of JVM methods, built from bytecode.
//!
//! Node numbering: `0` is a virtual ENTRY, `1..=n` are the basic blocks in
//! bytecode order (block `b` of the method is node `b + 1`), and `n + 1` is a
//! virtual EXIT that every return reaches. Exception edges go from every block
//! inside a `try` range to its handler (ranges always start and end on block
//! boundaries). A block that cannot reach EXIT otherwise (an uncaught `athrow`,
//! an endless loop) gets an edge to EXIT, so abnormal ends stay decodable.

use serde::{Deserialize, Serialize};

use crate::bytecode::{decode, Flow, Insn};
use crate::classfile::{ClassError, MethodInfo};

/// A basic block of bytecode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Index of the block's first instruction among the method's instructions.
    pub first_insn: u32,
    /// Bytecode offset of the first instruction.
    pub offset: u32,
    /// First and last source line of the block's instructions (0 when unknown).
    pub lines: (u32, u32),
}

/// A method's control-flow graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodCfg {
    /// Basic blocks in bytecode order.
    pub blocks: Vec<Block>,
    /// Number of instructions in the method (checked by the instrumenter).
    pub insn_count: u32,
    /// Out-edges of each node (ENTRY, blocks, EXIT), in a fixed order:
    /// fall-through, branch/switch targets, exception handlers, EXIT.
    pub succs: Vec<Vec<u32>>,
}

impl MethodCfg {
    /// Number of nodes including the virtual ENTRY and EXIT.
    pub fn node_count(&self) -> usize {
        self.blocks.len() + 2
    }
    /// Node id of the virtual EXIT.
    pub fn exit(&self) -> u32 {
        self.blocks.len() as u32 + 1
    }
    /// Human-readable node name: `entry`, `exit` or `b<k>`.
    pub fn node_name(&self, node: u32) -> String {
        match node {
            0 => "entry".into(),
            n if n == self.exit() => "exit".into(),
            n => format!("b{}", n - 1),
        }
    }
    /// All edges `(from, to)` in node order, then out-edge order.
    pub fn edges(&self) -> Vec<(u32, u32)> {
        self.succs
            .iter()
            .enumerate()
            .flat_map(|(v, s)| s.iter().map(move |&w| (v as u32, w)))
            .collect()
    }
}

/// Why a method gets no CFG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Abstract or native: no code.
    NoCode,
    /// Uses `jsr`/`ret` subroutines (class files before Java 7).
    Subroutines,
}

/// Builds the CFG of a method, or says why it is skipped.
pub fn build_cfg(m: &MethodInfo) -> Result<Result<MethodCfg, Skip>, ClassError> {
    if m.code.is_empty() {
        return Ok(Err(Skip::NoCode));
    }
    let insns = decode(&m.code, 0)?;
    if insns.iter().any(|i| i.flow == Flow::Subroutine) {
        return Ok(Err(Skip::Subroutines));
    }
    let index_of = |off: u32| insns.binary_search_by_key(&off, |i| i.offset).ok();
    let code_len = m.code.len() as u32;
    let mut leader = vec![false; insns.len()];
    leader[0] = true;
    let mut mark = |off: u32, what: &str| -> Result<(), ClassError> {
        if off == code_len {
            return Ok(());
        }
        match index_of(off) {
            Some(i) => {
                leader[i] = true;
                Ok(())
            }
            None => Err(ClassError {
                offset: off as usize,
                message: format!("{what} at bytecode offset {off} is not an instruction start"),
            }),
        }
    };
    for (k, insn) in insns.iter().enumerate() {
        let next = insns.get(k + 1).map(|i| i.offset).unwrap_or(code_len);
        match &insn.flow {
            Flow::Next => {}
            Flow::Branch(t) | Flow::Jump(t) => {
                mark(*t, "branch target")?;
                mark(next, "fall-through")?;
            }
            Flow::Switch(ts) => {
                for t in ts {
                    mark(*t, "switch target")?;
                }
                mark(next, "fall-through")?;
            }
            Flow::Return | Flow::Throw | Flow::Subroutine => mark(next, "fall-through")?,
        }
    }
    for h in &m.handlers {
        if h.handler >= code_len || h.start >= h.end || h.end > code_len {
            return Err(ClassError {
                offset: h.handler as usize,
                message: format!("bad exception-table entry {h:?} for code of {code_len} bytes"),
            });
        }
        mark(h.start, "try start")?;
        mark(h.end, "try end")?;
        mark(h.handler, "handler")?;
    }
    let starts: Vec<usize> = (0..insns.len()).filter(|&i| leader[i]).collect();
    let mut block_of_insn = vec![0u32; insns.len()];
    for (b, &s) in starts.iter().enumerate() {
        let e = starts.get(b + 1).copied().unwrap_or(insns.len());
        block_of_insn[s..e].fill(b as u32);
    }
    let node_at = |off: u32| block_of_insn[index_of(off).expect("marked as leader")] + 1;
    let n = starts.len();
    let exit = n as u32 + 1;
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n + 2];
    succs[0].push(1);
    let mut blocks = Vec::with_capacity(n);
    for (b, &s) in starts.iter().enumerate() {
        let e = starts.get(b + 1).copied().unwrap_or(insns.len());
        let last: &Insn = &insns[e - 1];
        let out = &mut succs[b + 1];
        let mut add = |w: u32| {
            if !out.contains(&w) {
                out.push(w)
            }
        };
        let falls = || {
            if e < insns.len() {
                Some(b as u32 + 2)
            } else {
                None
            }
        };
        match &last.flow {
            Flow::Next => {
                if let Some(f) = falls() {
                    add(f)
                }
            }
            Flow::Branch(t) => {
                if let Some(f) = falls() {
                    add(f)
                }
                add(node_at(*t));
            }
            Flow::Jump(t) => add(node_at(*t)),
            Flow::Switch(ts) => ts.iter().for_each(|t| add(node_at(*t))),
            Flow::Return => add(exit),
            Flow::Throw | Flow::Subroutine => {}
        }
        for h in &m.handlers {
            if insns[s].offset >= h.start && insns[s].offset < h.end {
                add(node_at(h.handler));
            }
        }
        blocks.push(Block {
            first_insn: s as u32,
            offset: insns[s].offset,
            lines: line_range(m, insns[s].offset, last.offset),
        });
    }
    // Blocks that cannot reach EXIT get a direct edge to it (abnormal end).
    let mut reaches = vec![false; n + 2];
    reaches[exit as usize] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..n + 1 {
            if !reaches[v] && succs[v].iter().any(|&w| reaches[w as usize]) {
                reaches[v] = true;
                changed = true;
            }
        }
    }
    for v in 1..=n {
        if !reaches[v] {
            succs[v].push(exit);
        }
    }
    Ok(Ok(MethodCfg {
        blocks,
        insn_count: insns.len() as u32,
        succs,
    }))
}

fn line_at(m: &MethodInfo, pc: u32) -> u32 {
    m.lines
        .iter()
        .filter(|(start, _)| *start <= pc)
        .max_by_key(|(start, _)| *start)
        .map(|(_, l)| *l)
        .unwrap_or(0)
}

fn line_range(m: &MethodInfo, first: u32, last: u32) -> (u32, u32) {
    let a = line_at(m, first);
    let b = line_at(m, last);
    (a.min(b), a.max(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classfile::Handler;

    fn method(code: Vec<u8>, handlers: Vec<Handler>) -> MethodInfo {
        MethodInfo {
            name: "m".into(),
            descriptor: "()V".into(),
            code,
            handlers,
            lines: vec![(0, 10), (4, 11)],
        }
    }

    #[test]
    fn if_else_diamond() {
        // 0: iload_0; 1: ifeq ->8; 4: iconst_1; 5: ireturn; 6..7 nop; 8: iconst_0; 9: ireturn
        let m = method(vec![0x1a, 0x99, 0x00, 0x07, 0x04, 0xac, 0x00, 0x00, 0x03, 0xac], vec![]);
        let cfg = build_cfg(&m).unwrap().unwrap();
        // blocks: [0,1] [4,5] [6] [7] [8,9]; nops after return form their own unreachable blocks
        assert_eq!(
            cfg.blocks.iter().map(|b| b.offset).collect::<Vec<_>>(),
            vec![0, 4, 6, 8]
        );
        assert_eq!(cfg.succs[1], vec![2, 4]);
        assert_eq!(cfg.succs[2], vec![5]);
        assert_eq!(cfg.succs[3], vec![4]);
        assert_eq!(cfg.blocks[1].lines, (11, 11));
    }

    #[test]
    fn bad_handler_entries_are_errors() {
        let h = Handler {
            start: 0,
            end: 1,
            handler: 1,
        };
        assert!(build_cfg(&method(vec![0xb1], vec![h])).is_err());
        let h = Handler {
            start: 1,
            end: 1,
            handler: 0,
        };
        assert!(build_cfg(&method(vec![0xb1, 0xb1], vec![h])).is_err());
    }

    #[test]
    fn loop_and_uncaught_throw_reach_exit() {
        // 0: goto 0 (endless loop)
        let cfg = build_cfg(&method(vec![0xa7, 0x00, 0x00], vec![])).unwrap().unwrap();
        assert_eq!(cfg.succs[1], vec![1, 2]);
        // 0: aconst_null; 1: athrow, handler [0,2) -> 2: pop; 3: return
        let h = Handler {
            start: 0,
            end: 2,
            handler: 2,
        };
        let cfg = build_cfg(&method(vec![0x01, 0xbf, 0x57, 0xb1], vec![h]))
            .unwrap()
            .unwrap();
        assert_eq!(cfg.succs[1], vec![2]);
        assert_eq!(cfg.succs[2], vec![3]);
    }
}
