//! Reading smali files (the text form of dex classes that apktool and
//! baksmali write) into classes, methods and statements.
//!
//! The reader keeps every original line, so the instrumenter can write the
//! file back unchanged outside the methods it touches. Errors name the
//! file, the 1-based line and the 1-based column.

use std::collections::HashMap;

use std::path::Path;

use crate::opcodes::op_kind;

pub use crate::ast::{
    descriptor_params, internal_name, Insn, Located, Method, ParseError, Reg, Registers, SmaliFile, Stmt, Token,
    ValueKind,
};

/// Reads and parses one smali file (regular files only).
pub fn read_file(path: &Path) -> Result<SmaliFile, anyhow::Error> {
    let text = tracekit_safeio::read_text(path)?;
    Ok(parse(path, &text)?)
}

struct Cx<'a> {
    path: &'a Path,
}

impl Cx<'_> {
    fn err(&self, line: usize, col: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.path.to_path_buf(),
            line: line + 1,
            column: col + 1,
            message: message.into(),
        }
    }
}

/// Parses the text of a smali file; `path` names it in errors.
pub fn parse(path: &Path, text: &str) -> Result<SmaliFile, ParseError> {
    let cx = Cx { path };
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let mut class = None;
    let mut source = None;
    let mut methods = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (word, col, rest) = head(&lines[i]);
        match word {
            "" => {}
            ".class" => {
                let toks = operands(&cx, i, &lines[i], rest)?;
                let last = toks
                    .last()
                    .ok_or_else(|| cx.err(i, col, ".class without a class name"))?;
                check_class_desc(&cx, i, last)?;
                class = Some(last.text.clone());
            }
            ".source" => source = Some(unquote(rest.trim()).to_string()),
            ".super" | ".implements" | ".debug" => {}
            ".field" => {
                i = skip_block(&cx, &lines, i, ".end field", true)?;
            }
            ".annotation" => i = skip_block(&cx, &lines, i, ".end annotation", false)?,
            ".method" => {
                let (m, end) = parse_method(&cx, &lines, i, rest)?;
                methods.push(m);
                i = end;
            }
            w if w.starts_with('.') => return Err(cx.err(i, col, format!("unknown directive {w} outside a method"))),
            w => return Err(cx.err(i, col, format!("unexpected `{w}` outside a method"))),
        }
        i += 1;
    }
    let class = class.ok_or_else(|| cx.err(0, 0, "no .class directive"))?;
    Ok(SmaliFile {
        path: path.to_path_buf(),
        lines,
        class,
        source,
        methods,
    })
}

/// The first word of a line (comments and leading blanks removed), its
/// byte column and the rest of the line.
fn head(line: &str) -> (&str, usize, &str) {
    let t = line.trim_start();
    let col = line.len() - t.len();
    if t.starts_with('#') {
        return ("", col, "");
    }
    let end = t.find(|c: char| c.is_whitespace()).unwrap_or(t.len());
    (&t[..end], col, &t[end..])
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s)
}

fn check_class_desc(cx: &Cx, line: usize, t: &Token) -> Result<(), ParseError> {
    if t.text.len() < 3 || !t.text.starts_with('L') || !t.text.ends_with(';') {
        return Err(cx.err(line, t.col, format!("`{}` is not a class descriptor", t.text)));
    }
    Ok(())
}

/// Skips to the line holding `end` (returns its index). A `.field` without
/// a body ends on its own line (`optional`).
fn skip_block(cx: &Cx, lines: &[String], start: usize, end: &str, optional: bool) -> Result<usize, ParseError> {
    if optional {
        // A field has a body only when the next significant line is an annotation.
        let mut j = start + 1;
        while j < lines.len() && head(&lines[j]).0.is_empty() {
            j += 1;
        }
        if j >= lines.len() || head(&lines[j]).0 != ".annotation" {
            return Ok(start);
        }
    }
    for (j, l) in lines.iter().enumerate().skip(start + 1) {
        if l.trim() == end {
            return Ok(j);
        }
    }
    let (_, col, _) = head(&lines[start]);
    Err(cx.err(start, col, format!("no `{end}` for this block")))
}

/// Splits operands at top-level commas; keeps string literals and register
/// lists whole; stops at a comment.
fn operands(cx: &Cx, line_no: usize, line: &str, rest: &str) -> Result<Vec<Token>, ParseError> {
    let base = line.len() - rest.len();
    let b = rest.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b',') {
            i += 1;
        }
        if i >= b.len() || b[i] == b'#' {
            break;
        }
        let start = i;
        let mut depth = 0usize;
        while i < b.len() {
            match b[i] {
                b'"' | b'\'' => {
                    let q = b[i];
                    let open = i;
                    i += 1;
                    while i < b.len() && b[i] != q {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if i >= b.len() {
                        return Err(cx.err(line_no, base + open, "unterminated string literal"));
                    }
                    i += 1;
                }
                b'{' => {
                    depth += 1;
                    i += 1;
                }
                b'}' => {
                    if depth == 0 {
                        return Err(cx.err(line_no, base + i, "`}` without `{`"));
                    }
                    depth -= 1;
                    i += 1;
                }
                b',' | b' ' | b'\t' if depth == 0 => break,
                b'#' if depth == 0 => break,
                _ => i += 1,
            }
        }
        if depth > 0 {
            return Err(cx.err(line_no, base + start, "`{` without `}`"));
        }
        out.push(Token {
            text: rest[start..i].to_string(),
            col: base + start,
        });
    }
    // `.catch T {:a .. :b}` and register ranges `{v0 .. v3}` keep `..` inside braces; a bare `->` stays in its token.
    Ok(out)
}

fn parse_number(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}

fn label_of(cx: &Cx, line: usize, t: &Token) -> Result<String, ParseError> {
    match t.text.strip_prefix(':') {
        Some(l) if !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$') => {
            Ok(l.to_string())
        }
        _ => Err(cx.err(line, t.col, format!("`{}` is not a label", t.text))),
    }
}

fn parse_method(cx: &Cx, lines: &[String], start: usize, rest: &str) -> Result<(Method, usize), ParseError> {
    let toks = operands(cx, start, &lines[start], rest)?;
    let (_, col, _) = head(&lines[start]);
    let sig = toks
        .last()
        .ok_or_else(|| cx.err(start, col, ".method without a name"))?;
    let Some(paren) = sig.text.find('(') else {
        return Err(cx.err(
            start,
            sig.col,
            format!("`{}` is not a method name and descriptor", sig.text),
        ));
    };
    if !sig.text[paren..].contains(')') || paren == 0 {
        return Err(cx.err(
            start,
            sig.col,
            format!("`{}` is not a method name and descriptor", sig.text),
        ));
    }
    let mut m = Method {
        name: sig.text[..paren].to_string(),
        descriptor: sig.text[paren..].to_string(),
        flags: toks[..toks.len() - 1].iter().map(|t| t.text.clone()).collect(),
        start,
        end: start,
        registers: None,
        body: Vec::new(),
    };
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut uses: Vec<(String, usize, usize)> = Vec::new();
    let mut i = start + 1;
    while i < lines.len() {
        let line = &lines[i];
        let (word, col, rest) = head(line);
        let at = i;
        let mut push = |stmt| m.body.push(Located { line: at, stmt });
        match word {
            "" => {}
            ".end" => {
                if rest.trim_start().starts_with("method") {
                    m.end = i;
                    for (l, li, lc) in uses {
                        if !labels.contains_key(&l) {
                            return Err(cx.err(li, lc, format!("label :{l} is not defined in this method")));
                        }
                    }
                    return Ok((m, i));
                }
                push(Stmt::Other { lines: 1 });
            }
            ".method" => return Err(cx.err(i, col, "`.method` inside a method (missing `.end method`?)")),
            ".registers" | ".locals" => {
                let n = parse_number(rest.split('#').next().unwrap_or(""))
                    .filter(|&n| n <= 65535)
                    .ok_or_else(|| {
                        cx.err(
                            i,
                            col + word.len() + 1,
                            format!("bad register count in `{}`", line.trim()),
                        )
                    })?;
                if m.registers.is_some() {
                    return Err(cx.err(i, col, "second register declaration"));
                }
                m.registers = Some((
                    if word == ".locals" {
                        Registers::Locals(n)
                    } else {
                        Registers::Total(n)
                    },
                    i,
                ));
            }
            ".line" => {
                let n = parse_number(rest.split('#').next().unwrap_or(""))
                    .ok_or_else(|| cx.err(i, col + 6, "bad line number"))?;
                push(Stmt::Line(n));
            }
            ".catch" | ".catchall" => {
                let toks = operands(cx, i, line, rest)?;
                let (ty, range, handler) = match (word, toks.as_slice()) {
                    (".catch", [t, r, h]) => (Some(t.text.clone()), r, h),
                    (".catchall", [r, h]) => (None, r, h),
                    _ => {
                        return Err(cx.err(
                            i,
                            col,
                            format!("malformed {word}: expected type, {{:start .. :end}} and :handler"),
                        ))
                    }
                };
                let inner = range.text.trim_start_matches('{').trim_end_matches('}');
                let parts: Vec<&str> = inner.split("..").map(str::trim).collect();
                if parts.len() != 2 || !range.text.starts_with('{') {
                    return Err(cx.err(i, range.col, "expected {:start .. :end}"));
                }
                let s = label_of(
                    cx,
                    i,
                    &Token {
                        text: parts[0].into(),
                        col: range.col + 1,
                    },
                )?;
                let e = label_of(
                    cx,
                    i,
                    &Token {
                        text: parts[1].into(),
                        col: range.col + 1,
                    },
                )?;
                let h = label_of(cx, i, handler)?;
                for l in [&s, &e] {
                    uses.push((l.clone(), i, range.col));
                }
                uses.push((h.clone(), i, handler.col));
                push(Stmt::Catch {
                    ty,
                    start: s,
                    end: e,
                    handler: h,
                });
            }
            ".packed-switch" | ".sparse-switch" => {
                let end = if word == ".packed-switch" {
                    ".end packed-switch"
                } else {
                    ".end sparse-switch"
                };
                let mut targets = Vec::new();
                let mut j = i + 1;
                loop {
                    let Some(l) = lines.get(j) else {
                        return Err(cx.err(i, col, format!("no `{end}` for this payload")));
                    };
                    let t = l.split('#').next().unwrap_or("").trim();
                    if t == end {
                        break;
                    }
                    if !t.is_empty() {
                        let target = t.rsplit("->").next().unwrap_or(t).trim();
                        let c = l.find(target).unwrap_or(0);
                        let lt = Token {
                            text: target.into(),
                            col: c,
                        };
                        let lab = label_of(cx, j, &lt)?;
                        uses.push((lab.clone(), j, c));
                        targets.push(lab);
                    }
                    j += 1;
                }
                m.body.push(Located {
                    line: i,
                    stmt: Stmt::SwitchPayload {
                        targets,
                        lines: j - i + 1,
                    },
                });
                i = j;
            }
            ".array-data" | ".annotation" | ".param" | ".parameter" => {
                let end = match word {
                    ".array-data" => Some(".end array-data"),
                    ".annotation" => Some(".end annotation"),
                    _ => {
                        // `.param` has a body only when `.end param` closes it before the next
                        // parameter or code (annotations after a bodiless `.param` are the method's).
                        let closing = if word == ".param" {
                            ".end param"
                        } else {
                            ".end parameter"
                        };
                        let mut j = i + 1;
                        let mut found = None;
                        while j < lines.len() {
                            let t = lines[j].trim();
                            let (w, _, _) = head(&lines[j]);
                            if t == closing {
                                found = Some(closing);
                                break;
                            }
                            if w == ".annotation" {
                                while j < lines.len() && lines[j].trim() != ".end annotation" {
                                    j += 1;
                                }
                            } else if !w.is_empty() {
                                break;
                            }
                            j += 1;
                        }
                        found
                    }
                };
                let last = match end {
                    Some(e) => {
                        let mut j = i + 1;
                        while j < lines.len() && lines[j].trim() != e {
                            if head(&lines[j]).0 == ".end" && lines[j].trim() == ".end method" {
                                return Err(cx.err(i, col, format!("no `{e}` before `.end method`")));
                            }
                            j += 1;
                        }
                        if j >= lines.len() {
                            return Err(cx.err(i, col, format!("no `{e}` for this block")));
                        }
                        j
                    }
                    None => i,
                };
                m.body.push(Located {
                    line: i,
                    stmt: Stmt::Other { lines: last - i + 1 },
                });
                i = last;
            }
            ".local" | ".restart" | ".prologue" | ".epilogue" | ".source" => push(Stmt::Other { lines: 1 }),
            w if w.starts_with(':') => {
                let l = label_of(cx, i, &Token { text: w.into(), col })?;
                if labels.insert(l.clone(), i).is_some() {
                    return Err(cx.err(i, col, format!("label :{l} defined twice")));
                }
                if !rest.split('#').next().unwrap_or("").trim().is_empty() {
                    return Err(cx.err(i, col + w.len(), "text after a label"));
                }
                push(Stmt::Label(l));
            }
            w if w.starts_with('.') => return Err(cx.err(i, col, format!("unknown directive {w} in a method"))),
            w => {
                let kind = op_kind(w).ok_or_else(|| cx.err(i, col, format!("unknown instruction `{w}`")))?;
                let ops = operands(cx, i, line, rest)?;
                for t in &ops {
                    if t.text.starts_with(':') {
                        let l = label_of(cx, i, t)?;
                        uses.push((l, i, t.col));
                    } else if let Some(inner) = t.text.strip_prefix('{') {
                        for r in inner
                            .trim_end_matches('}')
                            .split([',', ' '])
                            .filter(|s| !s.is_empty() && *s != "..")
                        {
                            if Reg::parse(r).is_none() {
                                return Err(cx.err(i, t.col, format!("`{r}` is not a register")));
                            }
                        }
                    }
                }
                if kind.reads_first_register() && !matches!(w, "return-void" | "nop") {
                    match ops.first() {
                        Some(t) if Reg::parse(&t.text).is_some() || t.text.starts_with('{') => {}
                        Some(t) => return Err(cx.err(i, t.col, format!("`{}` is not a register", t.text))),
                        None => return Err(cx.err(i, col + w.len(), format!("`{w}` needs operands"))),
                    }
                }
                push(Stmt::Insn(Insn {
                    op: w.to_string(),
                    kind,
                    operands: ops,
                }));
            }
        }
        i += 1;
    }
    Err(cx.err(start, col, "no `.end method` for this method"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = ".class public LA;\n.super Ljava/lang/Object;\n.source \"A.java\"\n\n.method public static f(IJ)I\n    .locals 2\n    .line 3\n    if-eqz p0, :l1\n    const/4 v0, 0x1\n    return v0\n    :l1\n    packed-switch p0, :sw\n    const-string v0, \"a, b # c\"\n    return p0\n    :sw\n    .packed-switch 0x0\n        :l1\n    .end packed-switch\n.end method\n";

    #[test]
    fn reads_a_method() {
        let f = parse(Path::new("A.smali"), SMALL).unwrap();
        assert_eq!(f.class, "LA;");
        assert_eq!(f.source.as_deref(), Some("A.java"));
        let m = &f.methods[0];
        assert_eq!((m.name.as_str(), m.descriptor.as_str()), ("f", "(IJ)I"));
        assert_eq!(m.ins(), 3);
        assert_eq!(m.registers, Some((Registers::Locals(2), 5)));
        let insns: Vec<&str> = m
            .body
            .iter()
            .filter_map(|l| match &l.stmt {
                Stmt::Insn(i) => Some(i.op.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            insns,
            ["if-eqz", "const/4", "return", "packed-switch", "const-string", "return"]
        );
        let s = m.body.iter().find_map(|l| match &l.stmt {
            Stmt::Insn(i) if i.op == "const-string" => Some(i.operands[1].text.clone()),
            _ => None,
        });
        assert_eq!(s.as_deref(), Some("\"a, b # c\""));
    }

    #[test]
    fn errors_name_line_and_column() {
        let bad = SMALL.replace("const/4 v0", "const/5 v0");
        let e = parse(Path::new("A.smali"), &bad).unwrap_err();
        assert_eq!((e.line, e.column), (9, 5), "{e}");
        assert!(
            e.to_string().starts_with("A.smali:9:5: unknown instruction `const/5`"),
            "{e}"
        );
        let bad = SMALL.replace("if-eqz p0, :l1", "if-eqz p0, :nowhere");
        let e = parse(Path::new("A.smali"), &bad).unwrap_err();
        assert_eq!((e.line, e.column), (8, 16), "{e}");
        let cut = &SMALL[..SMALL.find(".end method").unwrap()];
        let e = parse(Path::new("A.smali"), cut).unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        let bad = SMALL.replace("\"a, b # c\"", "\"a, b");
        let e = parse(Path::new("A.smali"), &bad).unwrap_err();
        assert!(e.message.contains("unterminated"), "{e}");
    }

    #[test]
    fn descriptor_kinds() {
        use ValueKind::*;
        assert_eq!(
            descriptor_params("([J[[Ljava/lang/String;DZLa;)V"),
            [Object, Object, Wide, Single, Object]
        );
    }
}
