//! A node: its `TaskNode` static (the `NodeSpec` builder chain, with its
//! gates) and, if the supervisor spawns it, its spawn fn and task shell.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
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

/// `provides:`: the shared slots the node's stop clears, each under its
/// slot's own `#[cfg]`.
fn provides(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    if u.provides.is_empty() {
        return TokenStream::new();
    }
    let entries = u.provides.iter().map(|name| {
        let cfg = m
            .shared_slots
            .iter()
            .find(|s| s.name == *name)
            .map(|s| s.attr());
        quote!(#cfg (&#name as &dyn #rt::Provided),)
    });
    quote!(.with_provides(&[#(#entries)*]))
}

pub(super) fn member_gates_name(u: &Unit, i: usize) -> Ident {
    format_ident!("__ES_GATES_{}_{}", u.name, i)
}

/// One `TaskNode` (`member`: its index in a pool): the `NodeSpec` builder
/// chain, in flash.
pub(super) fn node_expr(
    m: &Model,
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
    let slot = slot as u8;
    let pool = u.pool.as_ref().map(|_| {
        // Pools removed by cfg leave no entry in `GRAPH.pools`, so a pool's
        // index counts only the earlier pools that are compiled in.
        let idx = format_ident!("__ES_POOL_INDEX_{}", u.name);
        quote!(.in_pool(#idx))
    });
    let restart = super::restart::with_restart(u, member);
    let provides = provides(m, u);
    let ready_on_write = super::dataflow::spec_ready_on_write(u);
    // Under `fault-inject` a `task:` shell acts out injected faults.
    let task = matches!(u.spawn, Spawn::Task(_));
    let shell = (crate::fault_inject() && task).then(|| quote!(.with_fault_shell()));
    // A `task:` node is run by a resident shell (`node/waiter.rs`); with
    // nothing to take or route before the hand-over, the supervisor hands
    // its activations over itself.
    let resident = task.then(|| {
        if u.hands_over_directly() {
            quote!(.with_direct_hand_over())
        } else {
            quote!(.with_resident_shell())
        }
    });
    let spec = spec_values(
        m,
        u,
        quote!(#rt::NodeSpec::new(#name_lit, #md) #spawn #gates #provides #restart #resident #shell #ready_on_write),
    );
    quote! {
        #rt::TaskNode::new(&#spec .at(#slot) #pool)
    }
}

/// The value clauses on the spec chain: `slot_timeout:`, `beat_timeout:`, `disabled`,
/// `enabled_if:`. A `#[cfg]`-gated value goes through a const fn (the spec
/// must stay a constant expression, promoted to `'static`, which an `if`
/// would not be) or, for a predicate, through a wrapper fn.
fn spec_values(m: &Model, u: &Unit, mut spec: TokenStream) -> TokenStream {
    let rt = rt();
    // Re-emitted unsuffixed: `100u32` in the DSL still means milliseconds.
    // No let-chains: the macro crate builds with the 1.87 toolchain.
    let slot_ms = u
        .slot_timeout
        .as_ref()
        .map(|(l, cfg)| (l, cfg, l.base10_parse::<u16>()));
    if let Some((l, cfg, Ok(ms))) = slot_ms {
        let lit = LitInt::new(&ms.to_string(), l.span());
        spec.extend(if cfg.is_always() {
            quote!(.with_slot_timeout(#lit))
        } else {
            let p = cfg.predicate();
            quote!(.with_slot_timeout(#rt::__private::gated_ms(#lit, ::core::cfg!(#p))))
        });
    }
    let ack_ms = u
        .ack_timeout
        .as_ref()
        .map(|(l, cfg)| (l, cfg, l.base10_parse::<u32>()));
    if let Some((l, cfg, Ok(ms))) = ack_ms {
        let lit = LitInt::new(&ms.to_string(), l.span());
        spec.extend(if cfg.is_always() {
            quote!(.with_ack_timeout(#lit))
        } else {
            let p = cfg.predicate();
            quote!(.with_ack_timeout(#rt::__private::gated_ack_ms(#lit, ::core::cfg!(#p))))
        });
    }
    let beat_ms = u
        .beat_timeout
        .as_ref()
        .map(|(l, cfg)| (l, cfg, l.base10_parse::<u32>()));
    if let Some((l, cfg, Ok(ms))) = beat_ms {
        let lit = LitInt::new(&ms.to_string(), l.span());
        spec.extend(if cfg.is_always() {
            quote!(.with_beat_timeout(#lit))
        } else {
            let p = cfg.predicate();
            quote!(.with_beat_timeout(#rt::__private::gated_beat_ms(#lit, ::core::cfg!(#p))))
        });
    }
    match &u.disabled {
        None => {}
        Some(cfg) if cfg.is_always() => spec.extend(quote!(.disabled())),
        Some(cfg) => {
            let p = cfg.predicate();
            spec = quote!(#rt::__private::disabled_if(#spec, ::core::cfg!(#p)));
        }
    }
    if let Some((e, cfg)) = &u.enabled_if {
        let f = if cfg.is_always() {
            quote!(#e)
        } else {
            let w = enabled_if_name(m, u);
            quote!(#w)
        };
        spec.extend(quote!(.with_enabled_if(#f)));
    }
    spec
}

fn enabled_if_name(m: &Model, u: &Unit) -> Ident {
    format_ident!(
        "__es_enabled_{}_{}{}",
        u.name.unraw().to_string().to_lowercase(),
        u.first_slot,
        m.suffix.to_lowercase()
    )
}

/// A `#[cfg]`-gated `enabled_if:`: the predicate when the gate holds, else
/// "enabled" (as if the clause were absent). The user's expression is
/// compiled only under its gate.
fn enabled_if_wrapper(m: &Model, u: &Unit) -> TokenStream {
    let Some((e, cfg)) = &u.enabled_if else {
        return TokenStream::new();
    };
    if cfg.is_always() {
        return TokenStream::new();
    }
    let (item_cfg, p) = (u.cfg.attr(), cfg.predicate());
    let w = enabled_if_name(m, u);
    quote! {
        #item_cfg
        fn #w() -> bool {
            #[cfg(#p)]
            let enabled: fn() -> bool = #e;
            #[cfg(not(#p))]
            let enabled: fn() -> bool = || true;
            enabled()
        }
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
        m,
        u,
        u.first_slot,
        None,
        has_spawn.then(|| quote!(#spawn_fn_name)),
    );
    let mut out = quote! {
        #cfg
        pub static #name: #rt::TaskNode = #node;
    };
    out.extend(enabled_if_wrapper(m, u));
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
