//! Decoding JVM bytecode into instructions with their control-flow effect.

use crate::classfile::ClassError;

/// How an instruction passes control on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    /// Continues with the next instruction.
    Next,
    /// Conditional branch: the next instruction or the target offset.
    Branch(u32),
    /// Unconditional jump (`goto`, `goto_w`).
    Jump(u32),
    /// `tableswitch`/`lookupswitch`: default target, then case targets in key order.
    Switch(Vec<u32>),
    /// `ireturn` … `return`.
    Return,
    /// `athrow`.
    Throw,
    /// `jsr`, `jsr_w` or `ret` (subroutines; not supported, pre-Java-7 only).
    Subroutine,
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insn {
    /// Bytecode offset.
    pub offset: u32,
    /// Opcode byte.
    pub opcode: u8,
    /// Control-flow effect.
    pub flow: Flow,
}

fn fixed_length(op: u8) -> Option<usize> {
    Some(match op {
        0x00..=0x0f => 1, // nop, aconst_null, iconst, lconst, fconst, dconst
        0x10 => 2,        // bipush
        0x11 => 3,        // sipush
        0x12 => 2,        // ldc
        0x13 | 0x14 => 3, // ldc_w, ldc2_w
        0x15..=0x19 => 2, // iload..aload
        0x1a..=0x35 => 1, // xload_n, xaload
        0x36..=0x3a => 2, // istore..astore
        0x3b..=0x83 => 1, // xstore_n, xastore, stack ops, arithmetic
        0x84 => 3,        // iinc
        0x85..=0x98 => 1, // conversions, comparisons
        0x99..=0xa8 => 3, // if*, goto, jsr
        0xa9 => 2,        // ret
        0xac..=0xb1 => 1, // returns
        0xb2..=0xb8 => 3, // field access, invokevirtual/special/static
        0xb9 | 0xba => 5, // invokeinterface, invokedynamic
        0xbb => 3,        // new
        0xbc => 2,        // newarray
        0xbd => 3,        // anewarray
        0xbe | 0xbf => 1, // arraylength, athrow
        0xc0 | 0xc1 => 3, // checkcast, instanceof
        0xc2 | 0xc3 => 1, // monitorenter/exit
        0xc5 => 4,        // multianewarray
        0xc6 | 0xc7 => 3, // ifnull, ifnonnull
        0xc8 | 0xc9 => 5, // goto_w, jsr_w
        _ => return None,
    })
}

fn be_i32(code: &[u8], at: usize) -> Option<i32> {
    code.get(at..at + 4)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decodes a method's bytecode; `base` is the code's offset in the class file
/// (for error messages).
pub fn decode(code: &[u8], base: usize) -> Result<Vec<Insn>, ClassError> {
    let err = |at: usize, m: String| ClassError {
        offset: base + at,
        message: m,
    };
    let mut out = Vec::new();
    let mut pc = 0usize;
    let target = |pc: usize, rel: i64| -> Result<u32, ClassError> {
        let t = pc as i64 + rel;
        if t < 0 || t as usize >= code.len() {
            return Err(err(
                pc,
                format!("branch target {t} outside code of {} bytes", code.len()),
            ));
        }
        Ok(t as u32)
    };
    while pc < code.len() {
        let op = code[pc];
        let (len, flow) = match op {
            0xaa | 0xab => {
                let pad = (4 - (pc + 1) % 4) % 4;
                let at = pc + 1 + pad;
                let trunc = || err(pc, "truncated switch".into());
                let default = be_i32(code, at).ok_or_else(trunc)?;
                let mut targets = vec![target(pc, default as i64)?];
                let len = if op == 0xaa {
                    let low = be_i32(code, at + 4).ok_or_else(trunc)? as i64;
                    let high = be_i32(code, at + 8).ok_or_else(trunc)? as i64;
                    if high < low || high - low > 65535 {
                        return Err(err(pc, format!("bad tableswitch range {low}..{high}")));
                    }
                    let n = (high - low + 1) as usize;
                    for k in 0..n {
                        targets.push(target(pc, be_i32(code, at + 12 + 4 * k).ok_or_else(trunc)? as i64)?);
                    }
                    1 + pad + 12 + 4 * n
                } else {
                    let n = be_i32(code, at + 4).ok_or_else(trunc)?;
                    if !(0..=65535).contains(&n) {
                        return Err(err(pc, format!("bad lookupswitch pair count {n}")));
                    }
                    for k in 0..n as usize {
                        targets.push(target(pc, be_i32(code, at + 12 + 8 * k).ok_or_else(trunc)? as i64)?);
                    }
                    1 + pad + 8 + 8 * n as usize
                };
                (len, Flow::Switch(targets))
            }
            0xc4 => {
                let inner = *code.get(pc + 1).ok_or_else(|| err(pc, "truncated wide".into()))?;
                (
                    if inner == 0x84 { 6 } else { 4 },
                    if inner == 0xa9 { Flow::Subroutine } else { Flow::Next },
                )
            }
            _ => {
                let len = fixed_length(op).ok_or_else(|| err(pc, format!("unknown opcode 0x{op:02x}")))?;
                if pc + len > code.len() {
                    return Err(err(pc, format!("instruction 0x{op:02x} runs past the end of code")));
                }
                let rel16 = || i16::from_be_bytes([code[pc + 1], code[pc + 2]]) as i64;
                let flow = match op {
                    0x99..=0xa6 | 0xc6 | 0xc7 => Flow::Branch(target(pc, rel16())?),
                    0xa7 => Flow::Jump(target(pc, rel16())?),
                    0xc8 => Flow::Jump(target(pc, be_i32(code, pc + 1).unwrap() as i64)?),
                    0xa8 | 0xa9 | 0xc9 => Flow::Subroutine,
                    0xac..=0xb1 => Flow::Return,
                    0xbf => Flow::Throw,
                    _ => Flow::Next,
                };
                (len, flow)
            }
        };
        if pc + len > code.len() {
            return Err(err(pc, format!("instruction 0x{op:02x} runs past the end of code")));
        }
        out.push(Insn {
            offset: pc as u32,
            opcode: op,
            flow,
        });
        pc += len;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_branches_and_switch_padding() {
        // 0: iload_0; 1: ifeq +7 (-> 8); 4: iconst_1; 5: ireturn; 6: nop; 7: nop; 8: iconst_0; 9: ireturn
        let code = [0x1a, 0x99, 0x00, 0x07, 0x04, 0xac, 0x00, 0x00, 0x03, 0xac];
        let insns = decode(&code, 0).unwrap();
        assert_eq!(insns[1].flow, Flow::Branch(8));
        assert_eq!(insns[3].flow, Flow::Return);
        assert_eq!(insns.len(), 8);
        // 0: iload_0; 1: tableswitch pad 2, default +19 -> 20, low 0, high 0, [+20 -> 21]; 20: return; 21: return
        let mut sw = vec![0x1a, 0xaa, 0, 0];
        sw.extend_from_slice(&19i32.to_be_bytes());
        sw.extend_from_slice(&0i32.to_be_bytes());
        sw.extend_from_slice(&0i32.to_be_bytes());
        sw.extend_from_slice(&20i32.to_be_bytes());
        sw.extend_from_slice(&[0xb1, 0xb1]);
        let insns = decode(&sw, 0).unwrap();
        assert_eq!(insns[1].flow, Flow::Switch(vec![20, 21]));
        assert_eq!(insns[2].offset, 20);
    }

    #[test]
    fn rejects_targets_outside_code() {
        let code = [0xa7, 0x00, 0x10];
        assert!(decode(&code, 100).unwrap_err().message.contains("outside"));
    }
}
