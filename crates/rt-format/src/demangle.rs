//! Symbol names shared by the runtime's name filters and the offline
//! symbolizer (ELF function symbols, demangling, globs), so a filter pattern
//! matches exactly the names a replay shows.

/// The readable name of a linker symbol: Rust symbols (legacy and v0) lose
/// their hash, C++ symbols lose their parameter list, other names are kept.
///
/// ```
/// use tracekit_rt_format::demangle::readable_name;
/// assert_eq!(readable_name("_ZN3foo3BarC2Ev"), "foo::Bar::Bar");
/// assert_eq!(readable_name("main"), "main");
/// ```
pub fn readable_name(symbol: &str) -> String {
    if let Ok(d) = rustc_demangle::try_demangle(symbol) {
        return format!("{d:#}");
    }
    if symbol.starts_with("_Z") {
        if let Ok(sym) = cpp_demangle::Symbol::new(symbol) {
            let opts = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
            if let Ok(s) = sym.demangle(&opts) {
                return s;
            }
        }
    }
    symbol.to_owned()
}

/// The functions an ELF file defines, as (link-time address, readable
/// name), sorted by address with one name per address (static and dynamic
/// symbol tables together). Used by the runtime's name filters and the
/// offline symbolizer alike.
pub fn function_symbols(file: &object::File<'_>) -> Vec<(u64, String)> {
    use object::{Object, ObjectSymbol};
    let mut out: Vec<(u64, String)> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == object::SymbolKind::Text && s.address() != 0)
        .filter_map(|s| Some((s.address(), readable_name(s.name().ok()?))))
        .collect();
    out.sort();
    out.dedup_by_key(|x| x.0);
    out
}

/// Matches `text` against a glob where `*` stands for any run of characters
/// and `?` for one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_rust_and_cpp() {
        assert_eq!(
            readable_name("_ZN4core3fmt5write17h0123456789abcdefE"),
            "core::fmt::write"
        );
        assert_eq!(readable_name("_Z3fooi"), "foo");
        assert_eq!(readable_name("_Z"), "_Z");
    }

    #[test]
    fn globs() {
        assert!(glob_match("foo*", "foobar"));
        assert!(glob_match("*::draw", "ui::View::draw"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(!glob_match("foo", "foobar"));
        assert!(glob_match("*", ""));
    }
}
