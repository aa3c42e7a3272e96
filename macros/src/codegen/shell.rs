//! The task shell of a `task:` worker: an `#[embassy_executor::task]`
//! spawned once, at its node's first activation, that stays resident. Per
//! activation it takes the resources the spawn glue handed over, calls the
//! worker, restores or records what it must, ends the activation, and parks
//! until the glue wakes it for the next one (see the runtime's
//! `node/resident.rs`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use super::spawn::{callee, shell_name};
use super::statics::{heap_module_name, local_type_name};
use super::{exec, rt};
use crate::analyze::first_span;
use crate::model::{Form, Kind, Model, Res, Unit};

/// The shell's pieces that depend on its resources and state.
#[derive(Default)]
struct ShellArgs {
    /// Fields of the hand-over struct (one per resource, then the state).
    fields: Vec<TokenStream>,
    /// Moves each field out of the hand-over into its local.
    unpack: Vec<TokenStream>,
    /// Statements before the call (unwrap a consumed value, ...).
    prep: Vec<TokenStream>,
    /// The worker's arguments, after the node.
    worker_args: Vec<TokenStream>,
    /// Lend entries put back after the call (by dropping their guard).
    restores: Vec<TokenStream>,
    /// Frees the `state:` box.
    drop_state: TokenStream,
}

/// An `exit:` slot (if any), the hand-over (if the node takes anything),
/// then the resident shell task.
pub(super) fn emit_shell(m: &Model, u: &Unit, f: &Form, pool_size: TokenStream) -> TokenStream {
    let rt = rt();
    let ex = exec();
    let cfg = u.cfg.attr();
    let shell = shell_name(m, u);
    let a = shell_args(m, u);
    let body = shell_body(u, f, &a);
    // `restart: on_failure` with `exit:`: the value says whether it failed;
    // under `fault-inject` a crash is a failure too.
    let classify = u.restart.as_ref().is_some_and(|r| r.classify);
    let end = if classify || crate::fault_inject() {
        quote!(if __es_failed {
            __es_node.end_failed_activation(__es_turn)
        } else {
            __es_node.end_activation(__es_turn)
        })
    } else {
        quote!(__es_node.end_activation(__es_turn))
    };
    let exit_static = u.exit.as_ref().map(|(_, ty)| {
        let exit_name = format_ident!("{}_EXIT", u.name);
        quote! {
            #cfg
            pub static #exit_name: #rt::ResourceSlot<#ty> = #rt::ResourceSlot::new();
        }
    });
    let (handoff_items, param, activation) = if a.fields.is_empty() {
        let work = with_faults(body, classify);
        (TokenStream::new(), TokenStream::new(), quote!(#work #end;))
    } else {
        let args_ty = args_type_name(m, u);
        let (fields, unpack, prep) = (&a.fields, &a.unpack, &a.prep);
        let items = handoff_statics(m, u, &args_ty, fields);
        let work = with_faults(quote!(#(#unpack)* #(#prep)* #body), classify);
        let activation = quote! {
            match __es_handoff.take() {
                ::core::option::Option::Some(__es_args) => {
                    #work
                    #end;
                }
                // Unreachable by construction: the glue fills the hand-over
                // before it wakes or spawns the shell. Read as exited rather
                // than hang.
                ::core::option::Option::None => __es_node.mark_exited(),
            }
        };
        (
            items,
            quote!(__es_handoff: &'static #rt::ResourceSlot<#args_ty>,),
            activation,
        )
    };
    quote! {
        #exit_static
        #handoff_items
        #cfg
        #[#ex::task(pool_size = #pool_size, embassy_executor = #ex)]
        #[allow(non_snake_case, unreachable_code, unused_mut, clippy::unit_arg, clippy::let_unit_value)]
        async fn #shell(__es_node: &'static #rt::TaskNode, #param) {
            // Resident: pinned once (stops and hand-overs wake this task
            // lock-free), then one activation per turn, parked until the
            // spawn glue hands over the next one.
            let mut __es_turn = __es_node.pin_shell().await;
            loop {
                #activation
                __es_turn = __es_node.wait_activation(__es_turn).await;
            }
        }
    }
}

/// One activation's work (unpack the hand-over, unwrap the resources,
/// call, restore, record the exit value), under feature `fault-inject` run
/// through `TaskNode::with_faults` so injected faults are acted out around
/// it. A crash drops it whole (resources restored by their guards' drops, no
/// exit value); the shell then ends the activation either way. With
/// `classify` (a `restart: on_failure` node's `exit:` value) the block
/// yields its `__es_failed`; either way a crash counts as a failure (a node
/// with `restart: on_failure` is restarted after it).
fn with_faults(work: TokenStream, classify: bool) -> TokenStream {
    if !crate::fault_inject() {
        return work;
    }
    if classify {
        return quote! {
            let __es_failed = __es_node
                .with_faults(async move { #work __es_failed })
                .await
                .unwrap_or(true);
        };
    }
    quote! {
        let __es_failed = __es_node.with_faults(async move { #work }).await.is_err();
    }
}

pub(super) fn args_type_name(m: &Model, u: &Unit) -> Ident {
    format_ident!("__EsArgs_{}", shell_name(m, u))
}

pub(super) fn handoff_name(u: &Unit) -> Ident {
    format_ident!("__ES_HANDOFF_{}", u.name)
}

/// A shell's resources travel from the glue to the resident shell through
/// this slot: the glue takes them (fallibly, before anything is committed)
/// and the shell takes them per activation. A pool has one per member. A
/// node with a `local` resource uses the graph's local slot type (its
/// values may be `!Send`; the `local` contract keeps them on one core).
fn handoff_statics(m: &Model, u: &Unit, args_ty: &Ident, fields: &[TokenStream]) -> TokenStream {
    let rt = rt();
    let cfg = u.cfg.attr();
    let name = handoff_name(u);
    let slot_ty = if has_local(m, u) {
        let t = local_type_name(m);
        quote!(#t)
    } else {
        quote!(#rt::ResourceSlot)
    };
    let stat = match &u.pool {
        None => quote! {
            static #name: #slot_ty<#args_ty> = #slot_ty::new();
        },
        Some(_) => {
            let k = u.modes.len();
            quote! {
                static #name: [#slot_ty<#args_ty>; #k] = [const { #slot_ty::new() }; #k];
            }
        }
    };
    quote! {
        #cfg
        #[allow(non_camel_case_types)]
        struct #args_ty { #(#fields)* }
        #cfg
        #[allow(non_upper_case_globals)]
        #stat
    }
}

/// Any of the unit's resources is `local`.
pub(super) fn has_local(m: &Model, u: &Unit) -> bool {
    u.resources.iter().any(|r| {
        m.take_slots.iter().any(|s| s.local && s.name == r.name)
            || m.shared_slots.iter().any(|s| s.local && s.name == r.name)
    })
}

/// Per resource kind: how the shell receives, passes and restores it.
fn shell_args(m: &Model, u: &Unit) -> ShellArgs {
    let rt = rt();
    let mut a = ShellArgs::default();
    for (i, r) in u.resources.iter().enumerate() {
        let Res { ty, cfg: rcfg, .. } = r;
        let rcfg = rcfg.attr();
        let v = format_ident!("__es_r{}", i);
        a.unpack.push(quote!(#rcfg let #v = __es_args.#v;));
        match r.kind {
            Kind::Lend => {
                a.fields.push(quote!(#rcfg #v: #rt::Lent<#ty>,));
                a.prep.push(quote!(#rcfg let mut #v = #v;));
                a.worker_args.push(quote!(#rcfg (&mut *#v),));
                a.restores.push(quote!(#rcfg ::core::mem::drop(#v);));
            }
            Kind::Consume => {
                a.fields.push(quote!(#rcfg #v: #rt::Lent<#ty>,));
                a.prep.push(quote!(#rcfg let #v = #v.into_inner();));
                a.worker_args.push(quote!(#rcfg #v,));
            }
            Kind::Shared => {
                a.fields.push(quote!(#rcfg #v: #ty,));
                a.worker_args.push(quote!(#rcfg #v,));
            }
        }
    }
    // State after resources, before extras; freed before the restores and
    // the exit record, so `has_exited()` implies the heap is back.
    if let Some((_, ty, _)) = &u.state {
        let heap = heap_module_name(m);
        a.fields.push(quote!(__es_state: #heap::Box<#ty>,));
        a.unpack
            .push(quote!(let mut __es_state = __es_args.__es_state;));
        a.worker_args.push(quote!((&mut *__es_state),));
        a.drop_state = quote!(::core::mem::drop(__es_state););
    }
    a
}

/// The future the shell runs for one activation: the worker's call. Kept one
/// expression so a wrapper (fault injection, instrumentation) wraps exactly
/// one activation's work.
fn activation_run(u: &Unit, f: &Form, a: &ShellArgs) -> TokenStream {
    let (worker, extras) = callee(f);
    let worker_args = &a.worker_args;
    let node_arg = (!u.cancel).then(|| quote!(__es_node,));
    quote!(#worker(#node_arg #(#worker_args)* #(#extras),*))
}

/// The call, then the restores and the exit record (and, for a
/// `restart: on_failure` node's `exit:` value, whether it failed), by
/// `exit:` × `cancel`. The shell ends the activation after it.
fn shell_body(u: &Unit, f: &Form, a: &ShellArgs) -> TokenStream {
    let (restores, drop_state) = (&a.restores, &a.drop_state);
    let run = activation_run(u, f, a);
    let exit_name = format_ident!("{}_EXIT", u.name);
    let failed = failed(u);
    let call = if u.cancel {
        quote!(__es_node.run_cancellable(__es_run).await)
    } else {
        quote!(__es_run.await)
    };
    // A worker that can never return makes the statement after its call
    // unreachable: the lint is denied there and spanned on `exit:` so the
    // user sees the clause that can never be honoured.
    let check = match &u.exit {
        Some((sp, _)) if !u.cancel => {
            quote_spanned!(*sp=> #[deny(unreachable_code)] let __es_out = __es_out;)
        }
        _ => TokenStream::new(),
    };
    let record = match &u.exit {
        None => quote!(let _ = __es_out;),
        Some(_) if !u.cancel => quote!(#exit_name.provide(__es_out);),
        Some((sp, _)) => {
            let provide =
                quote_spanned!(*sp=> #[deny(unreachable_code)] #exit_name.provide(__es_out););
            quote! {
                // An aborted worker leaves the slot empty: that is how a
                // waiter tells "stopped" from "finished".
                if let ::core::result::Result::Ok(__es_out) = __es_out {
                    #provide
                }
            }
        }
    };
    quote! {
        // The activation's run: one expression.
        let __es_run = #run;
        let __es_out = #call;
        #check
        #failed
        #drop_state
        #(#restores)*
        #record
    }
}

/// `restart: on_failure` with `exit:`: `let __es_failed` from the exit value
/// through `ExitStatus`, spanned on the `exit:` type so a type without it is
/// reported where it is declared. A stop that aborted a `cancel` worker is
/// no failure.
fn failed(u: &Unit) -> TokenStream {
    let classify = u.restart.as_ref().is_some_and(|r| r.classify);
    let rt = rt();
    match &u.exit {
        Some((_, ty)) if classify => {
            let sp = first_span(ty);
            if u.cancel {
                quote_spanned! {sp=>
                    let __es_failed = match &__es_out {
                        ::core::result::Result::Ok(__es_v) => #rt::ExitStatus::is_failure(__es_v),
                        ::core::result::Result::Err(_) => false,
                    };
                }
            } else {
                quote_spanned!(sp=> let __es_failed = #rt::ExitStatus::is_failure(&__es_out);)
            }
        }
        _ => TokenStream::new(),
    }
}
