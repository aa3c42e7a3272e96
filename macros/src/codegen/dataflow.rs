//! The graph's dataflow table (feature `dataflow`): one `Flow` per signal,
//! attached with `Graph::with_dataflow`, and a node's `ready_on_write`.
//! A graph that declares no dataflow emits nothing here.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::LitBool;
use syn::LitStr;

use super::rt;
use crate::model::{Cfg, Model, Unit};

/// `.with_dataflow(&[..])` on the graph, or nothing. Each signal is named
/// by the user's path, so a missing static is rustc's error on that path
/// (and a non-`Sync` one rustc's bound error there; a zero-sized one fails
/// `Flow::new`'s const assertion); an entry is compiled if any item that
/// mentions the signal is.
///
/// Pinned by: `dataflow/unknown_signal`, `dataflow/signal_not_sync`,
/// `dataflow/zero_sized_signal`.
pub(super) fn with_dataflow(m: &Model) -> TokenStream {
    if m.flows.is_empty() {
        return TokenStream::new();
    }
    let rt = rt();
    let flows = m.flows.iter().map(|f| {
        let cfg = if f.sites.iter().any(Cfg::is_always) {
            TokenStream::new()
        } else {
            let preds = f.sites.iter().map(Cfg::predicate);
            quote!(#[cfg(any(#(#preds),*))])
        };
        let path = &f.path;
        let span = crate::analyze::first_span(path);
        let signal = quote_spanned!(span=> &#path);
        let name = LitStr::new(&f.name, span);
        let writers = f.writers.iter().map(|&s| s as u8);
        let readers = f.readers.iter().map(|&s| s as u8);
        let outside_w = f.written_outside.then(|| quote!(.written_outside()));
        let outside_r = f.read_outside.then(|| quote!(.read_outside()));
        quote! {
            #cfg #rt::dataflow::Flow::new(#name, #signal, &[#(#writers),*], &[#(#readers),*])
                #outside_w #outside_r,
        }
    });
    quote!(.with_dataflow(&[#(#flows)*]))
}

/// `.with_ready_on_write()` on a `ready_on_write` node's spec.
pub(super) fn spec_ready_on_write(u: &Unit) -> TokenStream {
    if u.ready_on_write {
        quote!(.with_ready_on_write())
    } else {
        TokenStream::new()
    }
}

/// A `derived` unit's compile-time check: every signal its task fn's body
/// reads or writes through its node is in its lists (the attribute's
/// message names the one that is not), and every listed signal is one the
/// body reaches (this entry's message, spanned on the entry).
///
/// Pinned by: `dataflow/derived_unlisted_write`,
/// `dataflow/derived_listed_not_accessed`, `dataflow/derived_without_attribute`.
pub(super) fn derived_check(u: &Unit) -> TokenStream {
    let Some(d) = &u.derived else {
        return TokenStream::new();
    };
    let rt = rt();
    let (cfg, table) = (u.cfg.attr(), &d.table);
    let side = |write: bool| -> Vec<LitStr> {
        d.listed
            .iter()
            .filter(|(_, _, w)| *w == write)
            .map(|(name, sp, _)| LitStr::new(name, *sp))
            .collect()
    };
    let (reads, writes) = (side(false), side(true));
    let listed = d.listed.iter().map(|(name, sp, write)| {
        let (clause, how) = if *write {
            (
                "writes",
                format!("`node.publish(&{name}, ..)` or `node.writer(&{name})`"),
            )
        } else {
            ("reads", format!("`node.reader(&{name})`"))
        };
        let msg = format!(
            "`{}` lists `{name}` in `{clause}:`, but its task `{}` does not reach it through \
             its node ({how}): remove it from `{clause}:`, or make the access through the node",
            u.name, d.task
        );
        let (name, write) = (LitStr::new(name, *sp), LitBool::new(*write, *sp));
        quote_spanned!(*sp=> ::core::assert!(__es_table.has(#write, #name), #msg);)
    });
    let table_ref = quote_spanned!(d.span=> &#table);
    let check = quote_spanned!(d.span=> __es_table.check_listed(&[#(#reads),*], &[#(#writes),*]););
    quote! {
        #cfg
        const _: () = {
            let __es_table: &#rt::dataflow::Derived = #table_ref;
            #check
            #(#listed)*
        };
    }
}
