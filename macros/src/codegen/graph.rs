//! The `Graph` static (slots, deps, pools, `ready` deps) and the executor's
//! trace hooks the unnamed graph defines.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::rt;
use crate::model::{Cfg, Model};

/// The executor's seven `_embassy_trace_*` hooks (runtime feature
/// `trace-hooks`), each forwarding to its `trace::on_*` recorder. Emitted in
/// the user's crate: `no_mangle` is an unsafe attribute, and the runtime
/// crate forbids `unsafe`.
pub(super) fn trace_hooks() -> TokenStream {
    let rt = rt();
    let hooks: [(&str, &[&str]); 7] = [
        ("poll_start", &["executor_id"]),
        ("task_new", &["executor_id", "task_id"]),
        ("task_end", &["executor_id", "task_id"]),
        ("task_exec_begin", &["executor_id", "task_id"]),
        ("task_exec_end", &["executor_id", "task_id"]),
        ("task_ready_begin", &["executor_id", "task_id"]),
        ("executor_idle", &["executor_id"]),
    ];
    hooks
        .iter()
        .map(|(event, args)| {
            let hook = format_ident!("_embassy_trace_{}", event);
            let recorder = format_ident!("on_{}", event);
            let args: Vec<Ident> = args.iter().map(|a| format_ident!("{}", a)).collect();
            quote! {
                #[unsafe(no_mangle)]
                fn #hook(#(#args: u32),*) {
                    #rt::trace::#recorder(#(#args),*)
                }
            }
        })
        .collect()
}

fn slot_expr(cfg: &Cfg, node: TokenStream) -> TokenStream {
    let rt = rt();
    if cfg.is_always() {
        return quote!(::core::option::Option::Some(#node));
    }
    let p = cfg.predicate();
    quote!({
        #[cfg(#p)]
        let __es_slot: ::core::option::Option<&'static #rt::TaskNode> = ::core::option::Option::Some(#node);
        #[cfg(not(#p))]
        let __es_slot: ::core::option::Option<&'static #rt::TaskNode> = ::core::option::Option::None;
        __es_slot
    })
}

pub(super) fn emit_graph(m: &Model) -> TokenStream {
    let rt = rt();
    let n = m.slots;
    let mut slots = Vec::with_capacity(n);
    let mut deps = Vec::with_capacity(n);
    let mut ready = Vec::with_capacity(n);
    for u in &m.units {
        let count = if u.pool.is_some() { u.modes.len() } else { 1 };
        let dep_list: Vec<TokenStream> = u
            .deps
            .iter()
            .map(|d| {
                let (cfg, s) = (d.cfg.attr(), d.slot as u8);
                quote!(#cfg #s)
            })
            .collect();
        let ready_list: Vec<TokenStream> = u
            .deps
            .iter()
            .filter(|d| d.ready)
            .map(|d| {
                let (cfg, s) = (d.cfg.attr(), d.slot as u8);
                quote!(#cfg #s)
            })
            .collect();
        let name = &u.name;
        for i in 0..count {
            let node = if u.pool.is_some() {
                quote!(&#name[#i])
            } else {
                quote!(&#name)
            };
            slots.push(slot_expr(&u.cfg, node));
            deps.push(quote!(&[#(#dep_list),*]));
            ready.push(quote!(&[#(#ready_list),*]));
        }
    }
    let pools: Vec<TokenStream> = m
        .units
        .iter()
        .filter(|u| u.pool.is_some())
        .map(|u| {
            let cfg = u.cfg.attr();
            let pn = format_ident!("{}_POOL", u.name);
            quote!(#cfg &#pn as &dyn #rt::Pool,)
        })
        .collect();
    let with_pools = (!pools.is_empty()).then(|| quote!(.with_pools(&[#(#pools)*])));
    let with_ready = m.any_ready.then(|| quote!(.with_ready_deps([#(#ready),*])));
    let with_restarts = super::restart::graph_restarts(&m.units);
    let with_dataflow = super::dataflow::with_dataflow(m);
    let graph = &m.graph;
    let graph_span = Span::call_site();
    let ty = quote_spanned!(graph_span=> #rt::Graph<#n>);
    let uses_name = format_ident!("{}_USES", graph);
    let uses = uses_expr(m);
    let width_name = format_ident!("{}_WIDTH", graph);
    // The width bit from the dependencies as the build's `#[cfg]`s leave
    // them (a const fn over the same list `Graph::new` gets).
    let width = quote!(#rt::Graph::<#n>::__width_of(&[#(#deps),*]));
    let width_doc = format!(
        "`{graph}`'s width (`uses::CHAIN` or `uses::WAVE`): `Supervisor<{n}, {{ {uses_name} | {width_name} }}>` also links only the whole-graph stop it needs."
    );
    let doc = format!(
        "What `{graph}` uses: `Supervisor<{n}, {uses_name}> = Supervisor::with_uses(&{graph})` links nothing for the rest."
    );
    quote! {
        pub static #graph: #ty = #rt::Graph::new([#(#slots),*], [#(#deps),*]) #with_pools #with_ready #with_restarts #with_dataflow .__declare_uses(#uses_name);
        #[doc = #doc]
        pub const #uses_name: u8 = #uses;
        #[doc = #width_doc]
        pub const #width_name: u8 = #width;
    }
}

/// The graph's `uses` bits: gates if any node waits before it spawns (a
/// resource or executor slot, a `ready` dep), `Pause` if any node or pool
/// member has that mode. A `#[cfg]`-removed node counts: its build may
/// keep it.
fn uses_expr(m: &Model) -> TokenStream {
    let rt = rt();
    let gated = m.any_ready
        || m.units
            .iter()
            .any(|u| !u.resources.is_empty() || u.executor.is_some());
    let pause = m
        .units
        .iter()
        .any(|u| u.modes.iter().any(|md| md == "Pause"));
    let mut bits = Vec::new();
    if gated {
        bits.push(quote!(#rt::uses::GATES));
    }
    if pause {
        bits.push(quote!(#rt::uses::PAUSE));
    }
    if bits.is_empty() {
        quote!(0)
    } else {
        quote!(#(#bits)|*)
    }
}
