//! `#[derive_dataflow]` on a task fn: find the signals its body reads and
//! writes through its `TaskNode` parameter (`node.publish(&SIG, v)`,
//! `node.writer(&SIG)`, `node.reader(&SIG)`), and emit them beside the fn as
//! a `Derived` const that a graph's `derived` clause checks the node's
//! `reads:` / `writes:` against. The fn itself is left as written.
//!
//! The scan is over tokens (so it sees into `select!` and other macro
//! calls), keyed on the node parameter's name: a call on another receiver
//! is not an access, and an access through an alias of the node is not
//! seen. A signal must be named by its path (`&SIG`): one chosen at run
//! time cannot be derived, and is an error.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};
use syn::punctuated::Punctuated;
use syn::{Expr, FnArg, Ident, ItemFn, LitStr, Pat, Token};

/// The verbs that read or write through the node, and which way each points.
const VERBS: [(&str, bool); 3] = [("publish", true), ("writer", true), ("reader", false)];

/// One signal the body reaches through the node.
struct Found {
    write: bool,
    /// The path without spaces and without a leading `crate::` / `self::` /
    /// `super::` (what the graph's check compares), and its last segment.
    key: String,
    name: String,
    span: Span,
}

/// A path as the derived check compares it: no spaces, no leading `::`,
/// `crate::`, `$crate::`, `self::` or `super::` (the check matches one
/// spelling against another's tail, so the anchor carries nothing).
pub fn relative_key(path: &syn::Path) -> String {
    let mut key = path.to_token_stream().to_string().replace(' ', "");
    key = key.trim_start_matches("::").to_string();
    loop {
        let rest = ["crate::", "$crate::", "self::", "super::"]
            .iter()
            .find_map(|p| key.strip_prefix(p));
        match rest {
            Some(r) => key = r.to_string(),
            None => return key,
        }
    }
}

/// The name of the const the attribute emits beside `task`.
pub fn table_name(task: &Ident) -> Ident {
    format_ident!("__DATAFLOW_OF_{}", syn::ext::IdentExt::unraw(task))
}

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            "`#[derive_dataflow]` takes no arguments",
        ));
    }
    let f: ItemFn = syn::parse2(item)?;
    let node = node_param(&f)?;
    let mut found = Vec::new();
    let mut errors = Vec::new();
    scan(f.block.to_token_stream(), &node, &mut found, &mut errors);
    if let Some(mut all) = errors.pop() {
        for e in errors {
            all.combine(e);
        }
        return Err(all);
    }
    let (reads, writes) = tables(&f.sig.ident, &found)?;
    let (vis, task) = (&f.vis, &f.sig.ident);
    let table = table_name(task);
    let task_lit = LitStr::new(&task.to_string(), task.span());
    let doc = format!("The dataflow `#[derive_dataflow]` found in `{task}` (for `derived`).");
    Ok(quote! {
        #f
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #vis const #table: ::embassy_supervisor::dataflow::Derived =
            ::embassy_supervisor::dataflow::Derived {
                task: #task_lit,
                reads: &[#(#reads),*],
                writes: &[#(#writes),*],
            };
    })
}

/// The fn's `TaskNode` parameter (the first whose type names `TaskNode`).
///
/// Pinned by: `dataflow/derive_dataflow_without_node`.
fn node_param(f: &ItemFn) -> syn::Result<Ident> {
    for input in &f.sig.inputs {
        let FnArg::Typed(pt) = input else { continue };
        let names_node = pt
            .ty
            .to_token_stream()
            .into_iter()
            .any(|t| matches!(&t, TokenTree::Ident(i) if i == "TaskNode"));
        if let (true, Pat::Ident(p)) = (names_node, &*pt.pat) {
            return Ok(p.ident.clone());
        }
    }
    Err(syn::Error::new(
        f.sig.ident.span(),
        "`#[derive_dataflow]` finds the accesses made through the fn's node parameter \
         (`node: &'static TaskNode`); this fn has none",
    ))
}

/// Every `node.verb(&PATH ..)` in `tokens`, at any depth.
///
/// Pinned by: `dataflow/derive_dataflow_runtime_signal`.
fn scan(tokens: TokenStream, node: &Ident, found: &mut Vec<Found>, errors: &mut Vec<syn::Error>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        if let TokenTree::Group(g) = tt {
            scan(g.stream(), node, found, errors);
        }
        let (Some(TokenTree::Ident(recv)), Some(TokenTree::Punct(dot))) =
            (Some(tt), tts.get(i + 1))
        else {
            continue;
        };
        let (Some(TokenTree::Ident(verb)), Some(TokenTree::Group(args))) =
            (tts.get(i + 2), tts.get(i + 3))
        else {
            continue;
        };
        if recv != node || dot.as_char() != '.' {
            continue;
        }
        let Some(&(_, write)) = VERBS.iter().find(|(v, _)| verb == v) else {
            continue;
        };
        match signal_path(args.stream()) {
            Some(path) => {
                let key = relative_key(&path);
                let name = key.rsplit("::").next().unwrap_or(&key).to_string();
                found.push(Found {
                    write,
                    key,
                    name,
                    span: verb.span(),
                });
            }
            None => errors.push(syn::Error::new(
                verb.span(),
                format!(
                    "`{node}.{verb}(..)` with a signal that is not `&PATH`: the derived table \
                     names each signal by its static's path, so write `{node}.{verb}(&SIGNAL, \
                     ..)`; a signal chosen at run time cannot be derived (declare it in the \
                     lists of a node without `derived`)"
                ),
            )),
        }
    }
}

/// The `PATH` of a call's first argument `&PATH`, if it is one.
fn signal_path(args: TokenStream) -> Option<syn::Path> {
    let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
    let args = syn::parse::Parser::parse2(parser, args).ok()?;
    match args.into_iter().next()? {
        Expr::Reference(r) if r.mutability.is_none() => match *r.expr {
            Expr::Path(p) if p.qself.is_none() => Some(p.path),
            _ => None,
        },
        _ => None,
    }
}

/// The `DerivedAccess` entries per direction, each signal once; two paths
/// with the same last segment are refused here, first: a graph refuses two
/// spellings ending alike, so no node's lists could hold both.
///
/// Pinned by: `dataflow/derive_dataflow_two_spellings`.
fn tables(task: &Ident, found: &[Found]) -> syn::Result<(Vec<TokenStream>, Vec<TokenStream>)> {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    let mut seen: Vec<&Found> = Vec::new();
    for f in found {
        if let Some(other) = seen.iter().find(|s| s.name == f.name && s.key != f.key) {
            return Err(syn::Error::new(
                f.span,
                format!(
                    "`{}` and `{}` end in the same name: spell one signal one way in \
                     `{task}` (the graph's check compares spellings, not addresses), and \
                     give two statics two names",
                    f.key, other.key
                ),
            ));
        }
        if seen.iter().any(|s| s.key == f.key && s.write == f.write) {
            continue;
        }
        seen.push(f);
        let (list, clause) = if f.write {
            (&mut writes, "writes")
        } else {
            (&mut reads, "reads")
        };
        let verb = if f.write { "writes" } else { "reads" };
        let name = LitStr::new(&f.key, f.span);
        let unlisted = LitStr::new(
            &format!(
                "`{task}` {verb} `{}` through its node, but the `{clause}:` of the `derived` \
                 node running it does not list it: add `{}` to `{clause}:`, or stop the access",
                f.key, f.key
            ),
            f.span,
        );
        list.push(quote! {
            ::embassy_supervisor::dataflow::DerivedAccess { name: #name, unlisted: #unlisted }
        });
    }
    Ok((reads, writes))
}
