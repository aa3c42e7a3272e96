//! A pool: its bound consts, member nodes, `ElasticPool` static, per-member
//! gate lists, and the one spawn fn and shell all members share.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::node::{member_gates_name, node_expr};
use super::rt;
use super::shell::emit_shell;
use super::spawn::{pool_spawn_fn, spawn_name};
use crate::model::{Kind, Model, PoolInfo, Spawn, Unit};

/// The private gate-list statics of a pool's members.
fn member_gate_statics(u: &Unit) -> TokenStream {
    let rt = rt();
    let cfg = u.cfg.attr();
    let mut out = TokenStream::new();
    for i in 0..u.modes.len() {
        let mut g = Vec::new();
        for r in &u.resources {
            let rc = r.cfg.attr();
            let name = &r.name;
            g.push(match r.kind {
                Kind::Shared => quote!(#rc (&#name as &dyn #rt::Gate),),
                _ => quote!(#rc (&#name[#i] as &dyn #rt::Gate),),
            });
        }
        if let Some(e) = &u.executor {
            g.push(quote!(&#e as &dyn #rt::Gate,));
        }
        if g.is_empty() {
            continue;
        }
        let list = member_gates_name(u, i);
        out.extend(quote! {
            #cfg
            #[allow(non_upper_case_globals)]
            static #list: &[&dyn #rt::Gate] = &[#(#g)*];
        });
    }
    out
}

/// A pool's bound consts, member `TaskNode`s and `ElasticPool` static,
/// then its member gate lists, spawn fn and task shell.
pub(super) fn emit_pool(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    let Some(p) = &u.pool else {
        return TokenStream::new();
    };
    let cfg = u.cfg.attr();
    let name = &u.name;
    let k = u.modes.len();
    let has_spawn = !matches!(u.spawn, Spawn::Parked);
    let spawn_fn_name = spawn_name(m, u);
    let members = (0..k).map(|i| {
        let f = has_spawn.then(|| quote!(#spawn_fn_name));
        node_expr(m, u, u.first_slot + i, Some(i), f)
    });
    let pool_name = format_ident!("{}_POOL", name);
    let min_name = format_ident!("{}_MIN", name);
    let max_name = format_ident!("{}_MAX", name);
    let members_name = format_ident!("{}_MEMBERS", name);
    let idx_name = format_ident!("__ES_POOL_INDEX_{}", name);
    let (pty, pexpr, pmin, pmax) = (&p.policy_ty, &p.policy, &p.min, &p.max);
    let first = u.first_slot as u8;
    let earlier = earlier_pools(m, p);
    let mut out = quote! {
        #cfg
        pub const #min_name: usize = #pmin;
        #cfg
        pub const #max_name: usize = #pmax;
        #cfg
        pub const #members_name: usize = #k;
        #cfg
        const _: () = ::core::assert!(
            #min_name <= #max_name && #max_name <= #members_name && #members_name <= 255,
            "pool bounds: need min <= max <= members <= 255"
        );
        #cfg
        const #idx_name: u8 = 0u8 #(#earlier)*;
        #cfg
        pub static #name: [#rt::TaskNode; #k] = [#(#members),*];
        #cfg
        pub static #pool_name: #rt::ElasticPool<#pty> =
            #rt::ElasticPool::new(&#name, #first, #min_name as u8, #max_name as u8, #pexpr);
    };
    out.extend(member_gate_statics(u));
    if has_spawn {
        out.extend(pool_spawn_fn(m, u));
    }
    if let Spawn::Task(f) = &u.spawn {
        out.extend(emit_shell(m, u, f, quote!(#k)));
    }
    out
}

/// Pools removed by cfg leave no entry in `GRAPH.pools`, so a pool's index
/// counts only the earlier pools that are compiled in: `+ (cfg!(..) as u8)`
/// per earlier pool.
fn earlier_pools(m: &Model, p: &PoolInfo) -> Vec<TokenStream> {
    m.units
        .iter()
        .filter(|o| {
            o.pool
                .as_ref()
                .is_some_and(|op| op.index_among_pools < p.index_among_pools)
        })
        .map(|o| {
            let pred = o.cfg.predicate();
            quote!(+ (::core::cfg!(#pred) as u8))
        })
        .collect()
}
