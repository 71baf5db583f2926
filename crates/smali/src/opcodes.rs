//! Dalvik opcode names and what each does to control flow.

/// Control-flow class of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Falls through to the next instruction.
    Next,
    /// `if-*`: branch to a label or fall through.
    If,
    /// `goto`, `goto/16`, `goto/32`.
    Goto,
    /// `packed-switch`/`sparse-switch`: payload targets or fall through.
    Switch,
    /// `return*`.
    Return,
    /// `throw`.
    Throw,
    /// `move-result*`: must directly follow an invoke or `filled-new-array`.
    MoveResult,
    /// `move-exception`: must be a handler's first instruction.
    MoveException,
    /// An invoke or `filled-new-array` (may be followed by `move-result`).
    Invoke,
    /// Optimized (odex) or verifier-error instructions the instrumenter refuses.
    Unsafe,
}

impl OpKind {
    /// True when the first operand must be a register (or register list).
    pub fn reads_first_register(self) -> bool {
        !matches!(self, OpKind::Goto | OpKind::Unsafe)
    }
    /// True when control never reaches the next instruction.
    pub fn ends_flow(self) -> bool {
        matches!(self, OpKind::Goto | OpKind::Return | OpKind::Throw)
    }
}

const PLAIN: &[&str] = &[
    "nop",
    "move",
    "move/from16",
    "move/16",
    "move-wide",
    "move-wide/from16",
    "move-wide/16",
    "move-object",
    "move-object/from16",
    "move-object/16",
    "const/4",
    "const/16",
    "const",
    "const/high16",
    "const-wide/16",
    "const-wide/32",
    "const-wide",
    "const-wide/high16",
    "const-string",
    "const-string/jumbo",
    "const-class",
    "monitor-enter",
    "monitor-exit",
    "check-cast",
    "instance-of",
    "array-length",
    "new-instance",
    "new-array",
    "fill-array-data",
    "cmpl-float",
    "cmpg-float",
    "cmpl-double",
    "cmpg-double",
    "cmp-long",
    "const-method-handle",
    "const-method-type",
    "neg-int",
    "not-int",
    "neg-long",
    "not-long",
    "neg-float",
    "neg-double",
    "int-to-long",
    "int-to-float",
    "int-to-double",
    "long-to-int",
    "long-to-float",
    "long-to-double",
    "float-to-int",
    "float-to-long",
    "float-to-double",
    "double-to-int",
    "double-to-long",
    "double-to-float",
    "int-to-byte",
    "int-to-char",
    "int-to-short",
    "rsub-int",
    "rsub-int/lit8",
];

const ARRAY_FIELD: &[&str] = &["aget", "aput", "iget", "iput", "sget", "sput"];
const SUFFIXES: &[&str] = &["", "-wide", "-object", "-boolean", "-byte", "-char", "-short"];
const BINOPS_INT: &[&str] = &[
    "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "ushr",
];
const BINOPS_FLOAT: &[&str] = &["add", "sub", "mul", "div", "rem"];

/// The control-flow class of a Dalvik opcode name; `None` when unknown.
pub fn op_kind(op: &str) -> Option<OpKind> {
    Some(match op {
        "goto" | "goto/16" | "goto/32" => OpKind::Goto,
        "if-eq" | "if-ne" | "if-lt" | "if-ge" | "if-gt" | "if-le" | "if-eqz" | "if-nez" | "if-ltz" | "if-gez"
        | "if-gtz" | "if-lez" => OpKind::If,
        "packed-switch" | "sparse-switch" => OpKind::Switch,
        "return-void" | "return" | "return-wide" | "return-object" => OpKind::Return,
        "throw" => OpKind::Throw,
        "move-result" | "move-result-wide" | "move-result-object" => OpKind::MoveResult,
        "move-exception" => OpKind::MoveException,
        "filled-new-array" | "filled-new-array/range" => OpKind::Invoke,
        _ if op.starts_with("invoke-") => {
            let base = op.strip_suffix("/range").unwrap_or(op);
            match base {
                "invoke-virtual" | "invoke-super" | "invoke-direct" | "invoke-static" | "invoke-interface"
                | "invoke-polymorphic" | "invoke-custom" => OpKind::Invoke,
                _ if base.contains("quick") || base.starts_with("invoke-object-init") => OpKind::Unsafe,
                _ => return None,
            }
        }
        "return-void-no-barrier"
        | "return-void-barrier"
        | "throw-verification-error"
        | "execute-inline"
        | "execute-inline/range" => OpKind::Unsafe,
        _ if PLAIN.contains(&op) => OpKind::Next,
        _ => {
            if let Some((base, suffix)) = ARRAY_FIELD.iter().find_map(|b| op.strip_prefix(b).map(|s| (*b, s))) {
                let _ = base;
                if SUFFIXES.contains(&suffix) {
                    return Some(OpKind::Next);
                }
                if suffix.ends_with("-quick") || suffix.ends_with("-volatile") {
                    return Some(OpKind::Unsafe);
                }
                return None;
            }
            return binop(op).then_some(OpKind::Next);
        }
    })
}

fn binop(op: &str) -> bool {
    let Some((name, rest)) = op.split_once('-') else {
        return false;
    };
    let (ty, form) = rest.split_once('/').map_or((rest, ""), |(t, f)| (t, f));
    let ok_name = match ty {
        "int" => BINOPS_INT.contains(&name),
        "long" => BINOPS_INT.contains(&name),
        "float" | "double" => BINOPS_FLOAT.contains(&name),
        _ => false,
    };
    ok_name
        && match form {
            "" | "2addr" => true,
            "lit16" => ty == "int" && !name.starts_with("sh") && name != "ushr" && name != "sub",
            "lit8" => ty == "int" && name != "sub",
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies() {
        assert_eq!(op_kind("if-lez"), Some(OpKind::If));
        assert_eq!(op_kind("goto/32"), Some(OpKind::Goto));
        assert_eq!(op_kind("invoke-static/range"), Some(OpKind::Invoke));
        assert_eq!(op_kind("iget-object"), Some(OpKind::Next));
        assert_eq!(op_kind("add-int/lit8"), Some(OpKind::Next));
        assert_eq!(op_kind("shl-long/2addr"), Some(OpKind::Next));
        assert_eq!(op_kind("rem-double/2addr"), Some(OpKind::Next));
        assert_eq!(op_kind("iget-quick"), Some(OpKind::Unsafe));
        assert_eq!(op_kind("and-float"), None);
        assert_eq!(op_kind("sub-int/lit8"), None);
        assert_eq!(op_kind("frobnicate"), None);
    }
}
