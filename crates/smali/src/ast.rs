//! What the smali reader produces: classes, methods, statements, registers
//! and the value kinds of a method's parameters, with their source lines.

use std::fmt;
use std::path::PathBuf;

use crate::opcodes::OpKind;

/// A parse error at a file position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// The smali file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

/// One operand of an instruction or directive, with its 0-based byte column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The operand text (a register list keeps its braces).
    pub text: String,
    /// Byte offset of the operand in its line.
    pub col: usize,
}

/// A register operand: `vN` or `pN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    /// A register by its absolute number.
    V(u32),
    /// A parameter register, counted from the first parameter.
    P(u32),
}

impl Reg {
    /// Parses `v12` or `p0`.
    pub fn parse(s: &str) -> Option<Reg> {
        let (kind, num) = s.split_at(s.len().min(1));
        let n: u32 = if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) && num.len() <= 5 {
            num.parse().ok()?
        } else {
            return None;
        };
        match kind {
            "v" => Some(Reg::V(n)),
            "p" => Some(Reg::P(n)),
            _ => None,
        }
    }
}

/// A statement of a method body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// `:name`.
    Label(String),
    /// A Dalvik instruction.
    Insn(Insn),
    /// `.catch Type {:a .. :b} :h` (`ty` is `None` for `.catchall`).
    Catch {
        /// Exception type, `None` for catch-all.
        ty: Option<String>,
        /// Range start label.
        start: String,
        /// Range end label (exclusive).
        end: String,
        /// Handler label.
        handler: String,
    },
    /// `.line N`.
    Line(u32),
    /// A switch payload (`.packed-switch`/`.sparse-switch` … `.end …`): its
    /// target labels in order. Spans `lines` source lines.
    SwitchPayload {
        /// Target labels.
        targets: Vec<String>,
        /// Number of source lines the payload spans.
        lines: usize,
    },
    /// Any other directive or payload (`.array-data`, `.local`, `.param`,
    /// annotations …), kept as text; spans `lines` source lines.
    Other {
        /// Number of source lines.
        lines: usize,
    },
}

/// An instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insn {
    /// Opcode name, e.g. `if-eqz`.
    pub op: String,
    /// What it does to control flow.
    pub kind: OpKind,
    /// Operands after the opcode.
    pub operands: Vec<Token>,
}

impl Insn {
    /// Label operands (branch targets, payload references).
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.operands.iter().filter_map(|t| t.text.strip_prefix(':'))
    }
}

/// A statement and the 0-based index of its (first) line in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// 0-based line index.
    pub line: usize,
    /// The statement.
    pub stmt: Stmt,
}

/// How a method declares its registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registers {
    /// `.locals N`: parameters come after these.
    Locals(u32),
    /// `.registers N`: all registers, parameters included.
    Total(u32),
}

/// One method of a class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// Method name (`<init>` for constructors).
    pub name: String,
    /// Descriptor, e.g. `(IJ)V`.
    pub descriptor: String,
    /// Access flags as written (`public`, `static`, …).
    pub flags: Vec<String>,
    /// 0-based line of `.method`.
    pub start: usize,
    /// 0-based line of `.end method`.
    pub end: usize,
    /// The register declaration and its 0-based line.
    pub registers: Option<(Registers, usize)>,
    /// The body.
    pub body: Vec<Located>,
}

impl Method {
    /// True for `static` methods (no `this` register).
    pub fn is_static(&self) -> bool {
        self.flags.iter().any(|f| f == "static")
    }
    /// Kinds of the incoming registers: `this` (unless static), then each
    /// parameter; `Wide` takes two registers.
    pub fn param_kinds(&self) -> Vec<ValueKind> {
        let mut out = Vec::new();
        if !self.is_static() {
            out.push(ValueKind::Object);
        }
        out.extend(descriptor_params(&self.descriptor));
        out
    }
    /// Number of incoming registers.
    pub fn ins(&self) -> u32 {
        self.param_kinds().iter().map(|k| k.width()).sum()
    }
}

/// What a register holds, as far as moving it needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// int, float, boolean, byte, char, short.
    Single,
    /// long or double: two registers.
    Wide,
    /// A reference.
    Object,
}

impl ValueKind {
    /// Registers taken.
    pub fn width(self) -> u32 {
        if self == ValueKind::Wide {
            2
        } else {
            1
        }
    }
}

/// Parameter kinds of a method descriptor `(…)R` (malformed parts end the list).
pub fn descriptor_params(desc: &str) -> Vec<ValueKind> {
    let inner = desc
        .strip_prefix('(')
        .and_then(|d| d.split_once(')'))
        .map(|(p, _)| p)
        .unwrap_or("");
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let mut array = false;
        while i < b.len() && b[i] == b'[' {
            array = true;
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        if c == b'L' {
            match inner[i..].find(';') {
                Some(e) => i += e + 1,
                None => break,
            }
            out.push(ValueKind::Object);
            continue;
        }
        i += 1;
        out.push(if array {
            ValueKind::Object
        } else if c == b'J' || c == b'D' {
            ValueKind::Wide
        } else {
            ValueKind::Single
        });
    }
    out
}

/// A parsed smali file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmaliFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// The original lines (without line ends).
    pub lines: Vec<String>,
    /// Class descriptor, e.g. `Lcom/example/Main;`.
    pub class: String,
    /// `.source` file name, when present.
    pub source: Option<String>,
    /// Methods in file order.
    pub methods: Vec<Method>,
}

impl SmaliFile {
    /// Internal class name (`com/example/Main`).
    pub fn internal_name(&self) -> String {
        internal_name(&self.class)
    }
}

/// `Lcom/a/B;` → `com/a/B`.
pub fn internal_name(desc: &str) -> String {
    desc.strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
        .unwrap_or(desc)
        .to_string()
}
