//! A node's restart configuration (feature `restart`): per node, or per
//! pool member, a `RestartSpec` static (flash) over its own `RestartState`
//! and budget log (RAM), referenced from its spec; nothing for the nodes
//! without one.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::rt;
use crate::model::Unit;

/// The spec, state and log statics of the node (or pool member) in its
/// slot. Named `<name>_<slot>` (the slot has no `_` and is unique), behind
/// prefixes none of which starts another, so no two can collide.
fn names(u: &Unit, member: Option<usize>) -> (Ident, Ident, Ident) {
    let tail = format!("{}_{}", u.name, u.first_slot + member.unwrap_or(0));
    (
        format_ident!("__ES_RESTART_SPEC_{}", tail),
        format_ident!("__ES_RESTART_STATE_{}", tail),
        format_ident!("__ES_RESTART_LOG_{}", tail),
    )
}

/// `.with_restart(..)` on the spec chain of the node (or `member`).
pub(super) fn with_restart(u: &Unit, member: Option<usize>) -> Option<TokenStream> {
    u.restart.as_ref()?;
    let (spec, _, _) = names(u, member);
    Some(quote!(.with_restart(&#spec)))
}

/// The statics of each restart configuration of `u` (one per pool member).
pub(super) fn restart_statics(u: &Unit) -> TokenStream {
    let Some(r) = &u.restart else {
        return TokenStream::new();
    };
    let rt = rt();
    let cfg = u.cfg.attr();
    let policy = &r.policy;
    let members: Vec<Option<usize>> = match &u.pool {
        None => vec![None],
        Some(_) => (0..u.modes.len()).map(Some).collect(),
    };
    let mut out = TokenStream::new();
    for member in members {
        let (spec, state, log) = names(u, member);
        let backoff = r.backoff.map(|(lo, hi)| quote!(.with_backoff(#lo, #hi)));
        let (budget, log_static) = match r.budget {
            None => (None, None),
            Some((n, window)) => {
                let n = n as usize;
                (
                    Some(quote!(.with_budget(#window, &#log))),
                    Some(quote! {
                        #cfg
                        static #log: #rt::RestartLog<#n> = #rt::__private::restart_log::<#n>();
                    }),
                )
            }
        };
        out.extend(quote! {
            #cfg
            static #state: #rt::RestartState = #rt::RestartState::new();
            #log_static
            #cfg
            static #spec: #rt::RestartSpec =
                #rt::RestartSpec::new(#rt::RestartPolicy::#policy, &#state) #backoff #budget;
        });
    }
    out
}

/// `.with_restarts(&[..])` on the graph: every slot with a configuration.
pub(super) fn graph_restarts(units: &[Unit]) -> Option<TokenStream> {
    let slots: Vec<u8> = units
        .iter()
        .filter(|u| u.restart.is_some())
        .flat_map(|u| {
            let k = if u.pool.is_some() { u.modes.len() } else { 1 };
            (u.first_slot..u.first_slot + k).map(|s| s as u8)
        })
        .collect();
    (!slots.is_empty()).then(|| quote!(.with_restarts(&[#(#slots),*])))
}
