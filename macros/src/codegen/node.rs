//! A node: its `TaskNode` static (the `NodeSpec` builder chain, with its
//! gates) and, if the supervisor spawns it, its spawn fn and task shell.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, LitInt, LitStr};

use super::rt;
use super::shell::emit_shell;
use super::spawn::{node_spawn_fn, spawn_name};
use crate::model::{Kind, Model, Spawn, Unit};

fn mode(id: &Ident) -> TokenStream {
    let rt = rt();
    quote_spanned!(id.span()=> #rt::Mode::#id)
}

/// Gates awaited before each spawn of one node (`member`: pool index).
fn gates(u: &Unit, member: Option<usize>) -> TokenStream {
    let rt = rt();
    let mut g = Vec::new();
    for r in &u.resources {
        let cfg = r.cfg.attr();
        let name = &r.name;
        g.push(match (r.kind, member) {
            (Kind::Shared, _) | (_, None) => quote!(#cfg (&#name as &dyn #rt::Gate),),
            (_, Some(i)) => quote!(#cfg (&#name[#i] as &dyn #rt::Gate),),
        });
    }
    if let Some(e) = &u.executor {
        g.push(quote!(&#e as &dyn #rt::Gate,));
    }
    if g.is_empty() {
        TokenStream::new()
    } else if let Some(i) = member {
        // `&ARRAY[i]` is not promotable inside a builder call, so a member's
        // gate list lives in its own (private) static.
        let list = member_gates_name(u, i);
        quote!(.with_resources(#list))
    } else {
        quote!(.with_resources(&[#(#g)*]))
    }
}

pub(super) fn member_gates_name(u: &Unit, i: usize) -> Ident {
    format_ident!("__ES_GATES_{}_{}", u.name, i)
}

pub(super) fn node_expr(
    u: &Unit,
    slot: usize,
    member: Option<usize>,
    spawn_fn: Option<TokenStream>,
) -> TokenStream {
    let rt = rt();
    let (name_str, md) = match member {
        None => (u.name.to_string(), mode(&u.modes[0])),
        Some(i) => (format!("{}[{i}]", u.name), mode(&u.modes[i])),
    };
    let name_lit = LitStr::new(&name_str, u.name.span());
    let spawn = spawn_fn.map(|f| quote!(.with_spawn(#f)));
    let gates = gates(u, member);
    // Re-emitted unsuffixed: `100u32` in the DSL still means milliseconds.
    let timeout = u.slot_timeout.as_ref().and_then(|(l, cfg)| {
        let ms = l.base10_parse::<u16>().ok()?;
        let lit = LitInt::new(&ms.to_string(), l.span());
        if cfg.is_always() {
            return Some(quote!(.with_slot_timeout(#lit)));
        }
        // Gated values go through const fns: the spec must stay a constant
        // expression (promoted to `'static`), which an `if` would not be.
        let p = cfg.predicate();
        Some(quote!(.with_slot_timeout(#rt::__private::gated_ms(#lit, ::core::cfg!(#p)))))
    });
    let slot = slot as u8;
    let pool = u.pool.as_ref().map(|p| {
        // Pools removed by cfg leave no entry in `GRAPH.pools`, so a pool's
        // index counts only the earlier pools that are compiled in.
        let _ = p;
        let idx = format_ident!("__ES_POOL_INDEX_{}", u.name);
        quote!(.in_pool(#idx))
    });
    let mut spec = quote!(#rt::NodeSpec::new(#name_lit, #md) #spawn #gates #timeout);
    match &u.disabled {
        None => {}
        Some(cfg) if cfg.is_always() => spec.extend(quote!(.disabled())),
        Some(cfg) => {
            let p = cfg.predicate();
            spec = quote!(#rt::__private::disabled_if(#spec, ::core::cfg!(#p)));
        }
    }
    quote! {
        #rt::TaskNode::new(&#spec .at(#slot) #pool)
    }
}

/// A node's `TaskNode` static, its spawn fn, and its task shell.
pub(super) fn emit_node(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    let cfg = u.cfg.attr();
    let name = &u.name;
    let spawn_fn_name = spawn_name(m, u);
    let has_spawn = !matches!(u.spawn, Spawn::Parked);
    let node = node_expr(
        u,
        u.first_slot,
        None,
        has_spawn.then(|| quote!(#spawn_fn_name)),
    );
    let mut out = quote! {
        #cfg
        pub static #name: #rt::TaskNode = #node;
    };
    if has_spawn {
        out.extend(node_spawn_fn(m, u));
    }
    if let Spawn::Task(f) = &u.spawn {
        let size = u
            .pool_size
            .as_ref()
            .map_or_else(|| quote!(1usize), |e| quote!(#e));
        out.extend(emit_shell(m, u, f, size));
    }
    out
}
