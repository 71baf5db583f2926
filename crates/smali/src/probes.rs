//! Dalvik code of the probes, as smali lines.
//!
//! The probe registers are added above the method's own registers and its
//! parameters' original positions (see `rewrite`): the path state (wide),
//! a wide temporary, the digit shift, the spill array and its length, the
//! current block, the verification array and its length, an exception
//! register and seven consecutive argument registers for
//! `invoke-static/range` calls into `tracekit.rt.Rt`. Every probe
//! instruction has 8- or 16-bit register fields (`const*`, `*-long`,
//! `add-int/lit8`, `if-*z`, `move*/16`, `/range` invokes), so probes work in
//! methods of any size up to 256 registers; the method's own instructions
//! keep their register numbers. The protocol is the JVM probes' own
//! (`tracekit.instr.Probes`): edge ops `D`, `A`, `X`, `P`, `Rt.exit` before
//! every return, `Rt.abort` in a catch-all handler, `Rt.spill` when a word
//! is full, `Rt.node`/`Rt.verify` for the sidecar.

/// Number of registers the probes add.
pub const PROBE_REGISTERS: u32 = 18;

const RT: &str = "Ltracekit/rt/Rt;";

/// Register numbers of the probes in one method.
#[derive(Debug, Clone, Copy)]
pub struct Regs {
    base: u32,
}

/// One edge's work, as the plan gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeOp {
    /// AdapTracer/raw digit: symbol, bits, and whether the word may be too
    /// full for it (plan op `D`; `d` where no path arrives that full).
    Digit(u64, u32, bool),
    /// BLPP add.
    Add(i64),
    /// BLPP emit (spill state + v, reset).
    Emit(i64),
    /// PAP: radix, in-edge index, limit.
    Pap(u64, u64, u64),
}

impl EdgeOp {
    /// Parses the `op args…` fields of a plan line `E from to op args…`.
    pub fn parse(fields: &[&str]) -> Option<EdgeOp> {
        let n = |i: usize| fields.get(i).and_then(|s| s.parse::<i128>().ok());
        Some(match *fields.first()? {
            "D" => EdgeOp::Digit(n(1)? as u64, n(2)? as u32, true),
            "d" => EdgeOp::Digit(n(1)? as u64, n(2)? as u32, false),
            "A" => EdgeOp::Add(n(1)? as i64),
            "X" => EdgeOp::Emit(n(1)? as i64),
            // `p` (no register can pass the limit there) keeps the test here.
            "P" | "p" => EdgeOp::Pap(n(1)? as u64, n(2)? as u64, n(3)? as u64),
            _ => return None,
        })
    }
}

fn wide_literal(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}L", (v as i128).unsigned_abs())
    } else {
        format!("0x{v:x}L")
    }
}

impl Regs {
    /// Probe registers starting at `base` (the method's own register count).
    pub fn new(base: u32) -> Regs {
        Regs { base }
    }
    fn r(&self, k: u32) -> String {
        format!("v{}", self.base + k)
    }
    fn state(&self) -> String {
        self.r(0)
    }
    fn tmp(&self) -> String {
        self.r(2)
    }
    fn sh(&self) -> String {
        self.r(4)
    }
    fn spill(&self) -> String {
        self.r(5)
    }
    fn n(&self) -> String {
        self.r(6)
    }
    fn cur(&self) -> String {
        self.r(7)
    }
    fn vnodes(&self) -> String {
        self.r(8)
    }
    fn vlen(&self) -> String {
        self.r(9)
    }
    /// The register a trampoline's `move-exception` uses.
    pub fn exc(&self) -> String {
        self.r(10)
    }
    fn arg(&self, k: u32) -> String {
        self.r(11 + k)
    }
    fn invoke(&self, out: &mut Vec<String>, args: u32, method: &str) {
        out.push(format!(
            "invoke-static/range {{{} .. {}}}, {RT}->{method}",
            self.arg(0),
            self.arg(args - 1)
        ));
    }

    /// Initial values, at the method's start.
    pub fn prologue(&self, out: &mut Vec<String>) {
        out.push(format!("const-wide/16 {}, 0x0", self.state()));
        for r in [
            self.sh(),
            self.spill(),
            self.n(),
            self.cur(),
            self.vnodes(),
            self.vlen(),
        ] {
            out.push(format!("const/16 {r}, 0x0"));
        }
    }

    /// At the start of block `node`: the current block, and with `verify`
    /// the block appended to the sidecar array.
    pub fn block_start(&self, node: u32, verify: bool, out: &mut Vec<String>) {
        out.push(format!("const {}, 0x{node:x}", self.cur()));
        if verify {
            out.push(format!("move-object/16 {}, {}", self.arg(0), self.vnodes()));
            out.push(format!("move/16 {}, {}", self.arg(1), self.vlen()));
            out.push(format!("const {}, 0x{node:x}", self.arg(2)));
            self.invoke(out, 3, "node([III)[I");
            out.push(format!("move-result-object {}", self.vnodes()));
            out.push(format!("add-int/lit8 {0}, {0}, 0x1", self.vlen()));
        }
    }

    fn verify_call(&self, method: u32, out: &mut Vec<String>) {
        out.push(format!("const {}, 0x{method:x}", self.arg(0)));
        out.push(format!("move-object/16 {}, {}", self.arg(1), self.vnodes()));
        out.push(format!("move/16 {}, {}", self.arg(2), self.vlen()));
        self.invoke(out, 3, "verify(I[II)V");
    }

    /// Before a return: the invocation's record.
    pub fn exit(&self, method: u32, verify: bool, out: &mut Vec<String>) {
        if verify {
            self.verify_call(method, out);
        }
        out.push(format!("const {}, 0x{method:x}", self.arg(0)));
        out.push(format!("move-wide/16 {}, {}", self.arg(1), self.state()));
        out.push(format!("move-object/16 {}, {}", self.arg(3), self.spill()));
        out.push(format!("move/16 {}, {}", self.arg(4), self.n()));
        self.invoke(out, 5, "exit(IJ[JI)V");
    }

    /// The catch-all handler body (after its label): records the abort and rethrows.
    pub fn abort_handler(&self, method: u32, verify: bool, out: &mut Vec<String>) {
        out.push(format!("move-exception {}", self.exc()));
        if verify {
            self.verify_call(method, out);
        }
        out.push(format!("const {}, 0x{method:x}", self.arg(0)));
        out.push(format!("move-wide/16 {}, {}", self.arg(1), self.state()));
        out.push(format!("move/16 {}, {}", self.arg(3), self.sh()));
        out.push(format!("move-object/16 {}, {}", self.arg(4), self.spill()));
        out.push(format!("move/16 {}, {}", self.arg(5), self.n()));
        out.push(format!("move/16 {}, {}", self.arg(6), self.cur()));
        self.invoke(out, 7, "abort(IJI[JII)V");
        out.push(format!("throw {}", self.exc()));
    }

    /// spill = Rt.spill(spill, n, wide register `src`); n++.
    fn spill_reg(&self, src: &str, out: &mut Vec<String>) {
        out.push(format!("move-object/16 {}, {}", self.arg(0), self.spill()));
        out.push(format!("move/16 {}, {}", self.arg(1), self.n()));
        out.push(format!("move-wide/16 {}, {src}", self.arg(2)));
        self.invoke(out, 4, "spill([JIJ)[J");
        out.push(format!("move-result-object {}", self.spill()));
        out.push(format!("add-int/lit8 {0}, {0}, 0x1", self.n()));
    }

    /// The code of one edge's work from block `from`; `label` makes the
    /// local labels unique.
    pub fn edge(&self, from: u32, op: EdgeOp, label: &str, out: &mut Vec<String>) {
        let (s, t) = (self.state(), self.tmp());
        match op {
            EdgeOp::Digit(sym, bits, checked) => {
                if checked {
                    let skip = format!(":tk_{label}_d");
                    out.push(format!(
                        "add-int/lit8 {}, {}, -0x{:x}",
                        self.arg(6),
                        self.sh(),
                        64 - bits
                    ));
                    out.push(format!("if-lez {}, {skip}", self.arg(6)));
                    self.spill_reg(&s, out);
                    out.push(format!("const-wide/16 {s}, 0x0"));
                    out.push(format!("const/16 {}, 0x0", self.sh()));
                    out.push(skip);
                }
                if sym != 0 {
                    out.push(format!("const-wide {t}, {}", wide_literal(sym as i64)));
                    out.push(format!("shl-long {t}, {t}, {}", self.sh()));
                    out.push(format!("or-long {s}, {s}, {t}"));
                }
                out.push(format!("add-int/lit8 {0}, {0}, 0x{bits:x}", self.sh()));
            }
            EdgeOp::Add(v) => {
                out.push(format!("const-wide {t}, {}", wide_literal(v)));
                out.push(format!("add-long {s}, {s}, {t}"));
            }
            EdgeOp::Emit(v) => {
                if v != 0 {
                    out.push(format!("const-wide {t}, {}", wide_literal(v)));
                    out.push(format!("add-long {s}, {s}, {t}"));
                }
                self.spill_reg(&s, out);
                out.push(format!("const-wide/16 {s}, 0x0"));
            }
            EdgeOp::Pap(k, idx, lim) => {
                let (fits, done) = (format!(":tk_{label}_f"), format!(":tk_{label}_e"));
                // Unsigned state ≤ lim, compared as signed after flipping the sign bits.
                let w2 = self.arg(4);
                let c = self.arg(6);
                out.push(format!("const-wide {t}, {}", wide_literal(i64::MIN)));
                out.push(format!("add-long {t}, {s}, {t}"));
                out.push(format!(
                    "const-wide {w2}, {}",
                    wide_literal(lim.wrapping_add(1 << 63) as i64)
                ));
                out.push(format!("cmp-long {c}, {t}, {w2}"));
                out.push(format!("if-lez {c}, {fits}"));
                self.spill_reg(&s, out);
                out.push(format!("const-wide {t}, {}", wide_literal(i64::from(from))));
                self.spill_reg(&t, out);
                out.push(format!("const-wide {s}, {}", wide_literal(idx as i64)));
                out.push(format!("goto/32 {done}"));
                out.push(fits);
                out.push(format!("const-wide {t}, {}", wide_literal(k as i64)));
                out.push(format!("mul-long {s}, {s}, {t}"));
                if idx != 0 {
                    out.push(format!("const-wide {t}, {}", wide_literal(idx as i64)));
                    out.push(format!("add-long {s}, {s}, {t}"));
                }
                out.push(done);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_ops() {
        assert_eq!(wide_literal(i64::MIN), "-0x8000000000000000L");
        assert_eq!(wide_literal(255), "0xffL");
        assert_eq!(EdgeOp::parse(&["P", "3", "1", "99"]), Some(EdgeOp::Pap(3, 1, 99)));
        let mut out = Vec::new();
        Regs::new(20).edge(1, EdgeOp::Digit(1, 2, true), "x", &mut out);
        assert!(out.iter().all(|l| !l.contains("v19 ")), "{out:?}");
        assert!(out.contains(&"add-int/lit8 v24, v24, 0x2".to_string()), "{out:?}");
    }
}
