//! The spawn glue: the fn a `NodeSpec` calls to spawn its node (route, take
//! the resources, build the token, spawn), and the names of generated fns.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Expr, ExprClosure, Ident, ReturnType};

use super::shell::{args_type_name, handoff_name, has_local};
use super::statics::heap_module_name;
use super::{exec, rt};
use crate::analyze::first_span;
use crate::model::{Form, Kind, Model, Spawn, Unit};

/// The worker's `(path, extras)` for a `task:`/`spawn:` form.
pub(super) fn callee(f: &Form) -> (TokenStream, Vec<TokenStream>) {
    match f {
        Form::Path(p) => (quote!(#p), Vec::new()),
        Form::Call(p, args) => (quote!(#p), args.iter().map(|a| quote!(#a)).collect()),
        Form::Closure(c) => (quote!(#c), Vec::new()),
    }
}

/// The spawn glue body: route, gather resources, build the token, spawn.
/// Everything fallible happens before the token exists (a dropped
/// `SpawnToken` panics), and resources travel as `Lent` guards, so a failed
/// spawn puts every one of them back.
fn glue_body(m: &Model, u: &Unit, node_ref: TokenStream, member: TokenStream) -> TokenStream {
    let rt = rt();
    let ex = exec();
    let route = match &u.executor {
        Some(e) => quote!(let spawner = #e.get().ok_or(#ex::SpawnError::Busy)?;),
        None => TokenStream::new(),
    };
    let mut takes = Vec::new();
    let mut args = Vec::new();
    // Boxed first: an allocation failure leaves every slot untouched.
    if let Some((_, ty, init)) = &u.state {
        let heap = heap_module_name(m);
        // Typed binding first: a wrong init reads "expected `Type`" at the
        // user's expression, not inside the helper.
        takes.push(quote! {
            let __es_state: #ty = #init;
            let __es_state = #heap::try_box(__es_state).ok_or(#ex::SpawnError::Busy)?;
        });
    }
    for (i, r) in u.resources.iter().enumerate() {
        let cfg = r.cfg.attr();
        let v = format_ident!("__es_r{}", i);
        let name = &r.name;
        let slot = if u.pool.is_some() && r.kind != Kind::Shared {
            quote!(#name[#member])
        } else {
            quote!(#name)
        };
        takes.push(match r.kind {
            Kind::Shared => quote!(#cfg let #v = #slot.get().ok_or(#ex::SpawnError::Busy)?;),
            _ => quote!(#cfg let #v = #slot.lend().ok_or(#ex::SpawnError::Busy)?;),
        });
        args.push(quote!(#cfg #v,));
    }
    if u.state.is_some() {
        args.push(quote!(__es_state,));
    }
    let token = match &u.spawn {
        Spawn::Task(_) => {
            let wake = resident_glue(m, u, &node_ref, &member, &args);
            return quote! {
                #route
                #(#takes)*
                #wake
            };
        }
        Spawn::Spawn(Form::Closure(c)) => {
            let c = closure_with_result(c);
            return quote! {
                let __es_spawn: fn(#ex::Spawner) -> ::core::result::Result<(), #ex::SpawnError> = #c;
                __es_spawn(spawner)
            };
        }
        Spawn::Spawn(f) => {
            let (p, extras) = callee(f);
            quote!(#p(#node_ref, #(#extras),*)?)
        }
        Spawn::Parked => return quote!(::core::result::Result::Ok(())),
    };
    // `bind` attributes the task to its node (trace, metadata-names); it
    // compiles to nothing without those features.
    quote! {
        #route
        #(#takes)*
        let __es_token = #token;
        #rt::TaskNode::bind(#node_ref, &__es_token);
        spawner.spawn(__es_token);
        ::core::result::Result::Ok(())
    }
}

/// A `task:` node's glue after the takes: hand the arguments over, then
/// wake the resident shell in place, or (first activation) spawn it. A shell
/// that cannot be spawned puts the arguments back where they came from.
fn resident_glue(
    m: &Model,
    u: &Unit,
    node_ref: &TokenStream,
    member: &TokenStream,
    args: &[TokenStream],
) -> TokenStream {
    let rt = rt();
    let shell = shell_name(m, u);
    let (hand_over, handoff_arg, give_back) = if args.is_empty() {
        (TokenStream::new(), TokenStream::new(), TokenStream::new())
    } else {
        let args_ty = args_type_name(m, u);
        let name = handoff_name(u);
        let slot = match &u.pool {
            None => quote!(#name),
            Some(_) => quote!(#name[#member]),
        };
        // The graph's local slot type derefs to a `ResourceSlot`.
        let slot = if has_local(m, u) {
            quote!(&*#slot)
        } else {
            quote!(&#slot)
        };
        (
            quote! {
                let __es_handoff: &'static #rt::ResourceSlot<#args_ty> = #slot;
                __es_handoff.hand_over(#args_ty { #(#args)* });
            },
            quote!(__es_handoff),
            // Dropped at once: a `Lent` puts its value back.
            quote!(let _ = __es_handoff.take();),
        )
    };
    // A node the supervisor hands over to itself reaches its glue only
    // before its shell is resident (the first activation).
    let wake = (!u.hands_over_directly()).then(|| {
        quote! {
            if #rt::TaskNode::wake_resident(#node_ref) {
                return ::core::result::Result::Ok(());
            }
        }
    });
    quote! {
        #hand_over
        #wake
        let __es_token = match #shell(#node_ref, #handoff_arg) {
            ::core::result::Result::Ok(t) => t,
            ::core::result::Result::Err(e) => {
                #give_back
                return ::core::result::Result::Err(e);
            }
        };
        #rt::TaskNode::bind(#node_ref, &__es_token);
        spawner.spawn(__es_token);
        ::core::result::Result::Ok(())
    }
}

/// A closure without a return type gets `-> Result<(), SpawnError>` so `?`
/// works in its body, whose value (`()` from `Spawner::spawn`, or a
/// `Result`) is converted through `__private::spawn_result`. An explicit
/// return type is the user's choice and is kept verbatim.
fn closure_with_result(c: &ExprClosure) -> TokenStream {
    if !matches!(c.output, ReturnType::Default) {
        return quote!(#c);
    }
    let rt = rt();
    let ex = exec();
    let mut c = c.clone();
    let body = &c.body;
    let span = first_span(body);
    let wrapped: Expr = syn::parse_quote_spanned! {span=>
        { #rt::__private::spawn_result(#body) }
    };
    c.output = syn::parse_quote!(-> ::core::result::Result<(), #ex::SpawnError>);
    *c.body = wrapped;
    quote!(#c)
}

pub(super) fn spawn_name(m: &Model, u: &Unit) -> Ident {
    format_ident!(
        "__es_spawn_{}_{}{}",
        u.name.unraw().to_string().to_lowercase(),
        u.first_slot,
        m.suffix.to_lowercase()
    )
}

pub(super) fn shell_name(m: &Model, u: &Unit) -> Ident {
    format_ident!(
        "__es_task_{}_{}{}",
        u.name.unraw().to_string().to_lowercase(),
        u.first_slot,
        m.suffix.to_lowercase()
    )
}

/// A node's spawn fn: the glue for its one `TaskNode`.
pub(super) fn node_spawn_fn(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    let ex = exec();
    let cfg = u.cfg.attr();
    let name = &u.name;
    let spawn_fn_name = spawn_name(m, u);
    let body = glue_body(m, u, quote!(&#name), TokenStream::new());
    quote! {
        #cfg
        #[allow(non_snake_case)]
        fn #spawn_fn_name(_: &'static #rt::TaskNode, spawner: #ex::Spawner) -> ::core::result::Result<(), #ex::SpawnError> {
            #body
        }
    }
}

/// A pool's spawn fn: one for every member; it finds the member's index
/// (for its per-member resource slots) from the node it is given.
pub(super) fn pool_spawn_fn(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    let ex = exec();
    let cfg = u.cfg.attr();
    let spawn_fn_name = spawn_name(m, u);
    let pool_name = format_ident!("{}_POOL", u.name);
    let body = glue_body(m, u, quote!(__es_node), quote!(__es_member));
    quote! {
        #cfg
        #[allow(non_snake_case)]
        fn #spawn_fn_name(__es_node: &'static #rt::TaskNode, spawner: #ex::Spawner) -> ::core::result::Result<(), #ex::SpawnError> {
            let __es_member = #pool_name.member_index(__es_node).ok_or(#ex::SpawnError::Busy)?;
            let _ = __es_member;
            #body
        }
    }
}
