//! `#[trace]`: records entry and exit of a Rust function with the tracekit
//! runtime (re-exported as `tracekit_rt::trace`), the way
//! `-finstrument-functions` does for C and C++. The exit is recorded by a
//! guard, so it is recorded on every return path and while a panic unwinds.
//! The recorded name is `module::path::function`.
//!
//! ```ignore
//! #[tracekit_rt::trace]
//! fn parse(input: &str) -> usize { input.len() }
//! ```

use proc_macro::{Delimiter, Group, TokenStream, TokenTree};

fn error(msg: &str) -> TokenStream {
    format!("compile_error!({msg:?});").parse().unwrap_or_default()
}

/// Wraps the function body so its entry and exit are traced.
#[proc_macro_attribute]
pub fn trace(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return error("#[trace] takes no arguments");
    }
    let mut tokens: Vec<TokenTree> = item.into_iter().collect();
    let name = tokens.windows(2).find_map(|w| match (&w[0], &w[1]) {
        (TokenTree::Ident(kw), TokenTree::Ident(n)) if kw.to_string() == "fn" => Some(n.to_string()),
        _ => None,
    });
    let Some(name) = name else {
        return error("#[trace] goes on a function");
    };
    let Some(TokenTree::Group(body)) = tokens.last().cloned() else {
        return error("#[trace] needs a function body");
    };
    if body.delimiter() != Delimiter::Brace {
        return error("#[trace] needs a function body");
    }
    let name = name.trim_start_matches("r#");
    let guard: TokenStream = match format!(
        "let __tracekit_call = ::tracekit_rt::NamedCall::enter(concat!(module_path!(), \"::\", {name:?}));"
    )
    .parse()
    {
        Ok(t) => t,
        Err(_) => return error("#[trace]: cannot build the guard"),
    };
    let mut inner = guard;
    inner.extend(body.stream());
    let mut new_body = Group::new(Delimiter::Brace, inner);
    new_body.set_span(body.span());
    if let Some(last) = tokens.last_mut() {
        *last = TokenTree::Group(new_body);
    }
    tokens.into_iter().collect()
}
