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
        if let Some(s) = cpp_name(symbol) {
            return s;
        }
        if let Some(s) = cpp_name_without_signature(symbol) {
            return s;
        }
    }
    symbol.to_owned()
}

fn cpp_name(symbol: &str) -> Option<String> {
    let sym = cpp_demangle::Symbol::new(symbol).ok()?;
    let opts = cpp_demangle::DemangleOptions::new().no_params().no_return_type();
    sym.demangle(&opts).ok()
}

/// The readable name of a C++ function symbol whose signature
/// `cpp_demangle` cannot parse.
///
/// GCC's standard library mangles SFINAE return types such as
/// `enable_if<__is_scalar<T>::__value, void>::__type` with expressions
/// (`srSt11__is_scalarIT0_E7__value`) that cpp_demangle (0.4 and 0.5)
/// rejects, e.g. `std::__fill_a1<int*, int>` or `std::__relocate_a_1<int,
/// int>`. The name (with its template arguments) comes first in the
/// mangling and the signature is dropped anyway, so the longest prefix that
/// parses once given a `void ()` signature holds the whole name.
fn cpp_name_without_signature(symbol: &str) -> Option<String> {
    if symbol.len() > 4096 || !symbol.is_ascii() {
        return None;
    }
    (4..symbol.len()).rev().find_map(|cut| {
        let mut candidate = String::with_capacity(cut + 2);
        candidate.push_str(&symbol[..cut]);
        candidate.push_str("vv");
        cpp_name(&candidate).or_else(|| {
            candidate.truncate(cut);
            candidate.push('v');
            cpp_name(&candidate)
        })
    })
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
    fn demangles_libstdcxx_sfinae_templates() {
        // Symbols g++ 12 emits for std::vector<int>, std::fill, std::swap
        // and std::make_shared; cpp_demangle alone rejects all of them.
        let cases = [
            (
                "_ZSt14__relocate_a_1IiiENSt9enable_ifIXsrSt24__is_bitwise_relocatableIT_vE5valueEPS2_E4typeES4_S4_S4_RSaIT0_E",
                "std::__relocate_a_1<int, int>",
            ),
            (
                "_ZSt9__fill_a1IPiiEN9__gnu_cxx11__enable_ifIXsrSt11__is_scalarIT0_E7__valueEvE6__typeET_S8_RKS4_",
                "std::__fill_a1<int*, int>",
            ),
            (
                "_ZSt4swapIiENSt9enable_ifIXsrSt6__and_IJSt6__not_ISt15__is_tuple_likeIT_EESt21is_move_constructibleIS4_ESt18is_move_assignableIS4_EEE5valueEvE4typeERS4_SE_",
                "std::swap<int>",
            ),
            (
                "_ZSt11make_sharedISt6vectorIdSaIdEEJiEESt10shared_ptrINSt9enable_ifIXntsrSt8is_arrayIT_E5valueES6_E4typeEEDpOT0_",
                "std::make_shared<std::vector<double, std::allocator<double> >, int>",
            ),
        ];
        for (mangled, want) in cases {
            assert_eq!(readable_name(mangled), want, "{mangled}");
        }
        // Not C++ at all: kept as it is.
        assert_eq!(readable_name("_Zfoo"), "_Zfoo");
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
