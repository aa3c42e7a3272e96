//! Procedural macros for `embassy-supervisor`. Use them through the runtime crate's
//! re-exports (`embassy_supervisor::supervisor_graph!`).
//!
//! Three stages: [`parse`] (syntax only) → [`analyze`] (every rule, spanned
//! errors, a checked model) → [`codegen`] (emission from the model only).
//! The expansion functions work on `proc_macro2` streams so unit tests (and
//! the parser fuzz test) can call them without a compiler.
//!
//! Generated code names the runtime as `::embassy_supervisor` and embassy
//! through `::embassy_supervisor::__private`, so the invoking crate must
//! depend on `embassy-supervisor` under that name (the generated
//! `#[embassy_executor::task]` shells are pointed at the re-export with the
//! attribute's `embassy_executor = ..` argument, so no direct
//! `embassy-executor` dependency is needed for them).
//!
//! Two opt-in features emit `unsafe` into the invoking crate, once per graph
//! and only when used: `local-resources` (the `local` slot type's
//! `unsafe impl Sync`) and `heap-state` (the fallible-boxing helper, in a
//! private module that declares `extern crate alloc` itself, so `no_std`
//! crates need nothing at their root). Both are spanned on the user's
//! `local` marker / `state:` keyword: `unsafe_code` lints skip macro-made
//! spans, and a crate that forbids unsafe code must be told where it is.
use proc_macro::TokenStream;
use proc_macro2::{Group, Punct, Spacing, TokenStream as TokenStream2, TokenTree};
use quote::quote;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token, braced, bracketed};

mod analyze;
mod codegen;
mod derive_dataflow;
mod model;
mod parse;

#[cfg(test)]
mod tests;

/// Declare a supervised graph: node statics, slots, shells and `GRAPH`.
#[proc_macro]
pub fn supervisor_graph(input: TokenStream) -> TokenStream {
    expand_graph(input.into()).into()
}

/// Declare a fragment of a graph, composed elsewhere by `compose_graph!`.
#[proc_macro]
pub fn supervisor_fragment(input: TokenStream) -> TokenStream {
    expand_fragment(input.into()).into()
}

/// Derive a task fn's dataflow from the accesses its body makes through its
/// `TaskNode` parameter; a graph's `derived` clause checks the node's
/// `reads:` / `writes:` against it.
#[proc_macro_attribute]
pub fn derive_dataflow(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: TokenStream2 = item.into();
    match derive_dataflow::expand(attr.into(), item.clone()) {
        Ok(out) => out.into(),
        // The fn stays as written, so the error is the only one.
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#item #e).into()
        }
    }
}

/// Compose fragments (and local items) into one graph.
#[proc_macro]
pub fn compose_graph(input: TokenStream) -> TokenStream {
    expand_compose(input.into()).into()
}

fn trace_hooks_feature() -> bool {
    cfg!(feature = "trace-hooks")
}

fn pool_feature() -> bool {
    cfg!(feature = "pool")
}

fn readiness() -> bool {
    cfg!(feature = "readiness")
}

fn liveness() -> bool {
    cfg!(feature = "liveness")
}

fn dataflow_feature() -> bool {
    cfg!(feature = "dataflow")
}

fn restart_feature() -> bool {
    cfg!(feature = "restart")
}

fn fault_inject() -> bool {
    cfg!(feature = "fault-inject")
}

fn enabled_if_feature() -> bool {
    cfg!(feature = "enabled-if")
}

fn local_resources() -> bool {
    cfg!(feature = "local-resources")
}

fn heap_state() -> bool {
    cfg!(feature = "heap-state")
}

fn or_error(r: syn::Result<TokenStream2>) -> TokenStream2 {
    r.unwrap_or_else(|e| e.to_compile_error())
}

/// `supervisor_graph!`: never panics; every failure is a spanned `compile_error!`.
pub(crate) fn expand_graph(input: TokenStream2) -> TokenStream2 {
    or_error(try_expand_graph(input))
}

fn try_expand_graph(input: TokenStream2) -> syn::Result<TokenStream2> {
    let parsed: parse::Input = syn::parse2(input)?;
    let model = analyze::analyze(parsed, readiness())?;
    Ok(codegen::emit(&model))
}

/// `$crate` is not valid syntax outside a `macro_rules!` body; validate the
/// items with it read as `crate` (same shape, same spans).
fn dollar_crate_as_crate(tokens: TokenStream2) -> TokenStream2 {
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '$' => {
                if matches!(iter.peek(), Some(TokenTree::Ident(id)) if id == "crate") {
                    continue;
                }
                out.push(TokenTree::Punct(p));
            }
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), dollar_crate_as_crate(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

pub(crate) fn expand_fragment(input: TokenStream2) -> TokenStream2 {
    or_error(try_expand_fragment(input))
}

fn try_expand_fragment(input: TokenStream2) -> syn::Result<TokenStream2> {
    let (name, items) = (|stream: ParseStream| {
        let name = parse::parse_name_header(stream)?.ok_or_else(|| {
            stream.error("a fragment starts with `name: FRAGMENT_NAME;` (the relay macro's name)")
        })?;
        let items: TokenStream2 = stream.parse()?;
        Ok((name, items))
    })
    .parse2(input)?;
    parse::check_dollars(items.clone())?;
    // Syntax is checked here, with the fragment's own spans; only name
    // resolution waits for the compose site.
    syn::parse::Parser::parse2(
        |s: ParseStream| {
            while !s.is_empty() {
                s.parse::<parse::Item>()?;
            }
            Ok(())
        },
        dollar_crate_as_crate(items.clone()),
    )?;
    let name_lit = LitStr::new(&name.to_string(), name.span());
    let dollar = TokenTree::Punct(Punct::new('$', Spacing::Alone));
    Ok(quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #name {
            (@compose { #dollar (#dollar __es_c:tt)* } #dollar (#dollar __es_rest:tt)*) => {
                ::embassy_supervisor::compose_graph! {
                    @compose { #dollar (#dollar __es_c)* (#name_lit { #items }) }
                    #dollar (#dollar __es_rest)*
                }
            };
        }
    })
}

pub(crate) fn expand_compose(input: TokenStream2) -> TokenStream2 {
    or_error(try_expand_compose(input))
}

struct ComposeState {
    collected: Vec<(String, TokenStream2)>,
    rest: Vec<syn::Path>,
    name: Option<Ident>,
    graph: TokenStream2,
}

fn parse_compose(stream: ParseStream) -> syn::Result<ComposeState> {
    if stream.peek(Token![@]) {
        // The relay's internal form.
        stream.parse::<Token![@]>()?;
        stream.parse::<Ident>()?;
        let c;
        braced!(c in stream);
        let mut collected = Vec::new();
        while !c.is_empty() {
            let entry;
            syn::parenthesized!(entry in c);
            let n: LitStr = entry.parse()?;
            let items;
            braced!(items in entry);
            collected.push((n.value(), items.parse()?));
        }
        stream.parse::<Token![@]>()?;
        stream.parse::<Ident>()?;
        let r;
        bracketed!(r in stream);
        let rest = Punctuated::<syn::Path, Token![,]>::parse_terminated(&r)?;
        stream.parse::<Token![@]>()?;
        stream.parse::<Ident>()?;
        let n;
        bracketed!(n in stream);
        let name: Option<Ident> = if n.is_empty() { None } else { Some(n.parse()?) };
        stream.parse::<Token![@]>()?;
        stream.parse::<Ident>()?;
        let g;
        braced!(g in stream);
        return Ok(ComposeState {
            collected,
            rest: rest.into_iter().collect(),
            name,
            graph: g.parse()?,
        });
    }
    let mut name = None;
    let mut rest = Vec::new();
    let mut graph = TokenStream2::new();
    let mut seen_fragments = false;
    while !stream.is_empty() {
        let kw: Ident = stream.parse()?;
        stream.parse::<Token![:]>()?;
        match kw.to_string().as_str() {
            "name" => name = Some(stream.parse()?),
            "fragments" => {
                let f;
                bracketed!(f in stream);
                rest = Punctuated::<syn::Path, Token![,]>::parse_terminated(&f)?
                    .into_iter()
                    .collect();
                seen_fragments = true;
            }
            "graph" => {
                let g;
                braced!(g in stream);
                graph = g.parse()?;
            }
            _ => {
                return Err(syn::Error::new(
                    kw.span(),
                    "expected `name: IDENT`, `fragments: [..]` or `graph: { .. }`",
                ));
            }
        }
        if !stream.is_empty() {
            stream.parse::<Token![,]>()?;
        }
    }
    if !seen_fragments {
        return Err(stream.error("compose_graph! needs `fragments: [FRAG, ..]`"));
    }
    Ok(ComposeState {
        collected: Vec::new(),
        rest,
        name,
        graph,
    })
}

fn try_expand_compose(input: TokenStream2) -> syn::Result<TokenStream2> {
    let st = parse_compose.parse2(input)?;
    if let Some((next, remaining)) = st.rest.split_first() {
        let collected = st.collected.iter().map(|(n, items)| {
            let n = LitStr::new(n, proc_macro2::Span::call_site());
            quote!((#n { #items }))
        });
        let name = &st.name;
        let graph = &st.graph;
        return Ok(quote! {
            #next! {
                @compose { #(#collected)* }
                @rest [#(#remaining),*]
                @name [#name]
                @graph { #graph }
            }
        });
    }
    let mut items = Vec::new();
    for (origin, tokens) in st.collected {
        let parsed = syn::parse::Parser::parse2(
            |s: ParseStream| {
                let mut v = Vec::new();
                while !s.is_empty() {
                    v.push(s.parse::<parse::Item>()?);
                }
                Ok(v)
            },
            tokens,
        )
        .map_err(|e| syn::Error::new(e.span(), format!("{e} (in fragment `{origin}`)")))?;
        for mut it in parsed {
            it.origin = Some(origin.clone());
            items.push(it);
        }
    }
    let local: parse::Input = syn::parse2(st.graph)?;
    if let Some(n) = local.name {
        return Err(syn::Error::new(
            n.span(),
            "name a composed graph with `name: X,` before `fragments:`",
        ));
    }
    items.extend(local.items);
    let model = analyze::analyze(
        parse::Input {
            name: st.name,
            items,
        },
        readiness(),
    )?;
    Ok(codegen::emit(&model))
}
