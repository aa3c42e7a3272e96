//! The task shell of a `task:` worker: an `#[embassy_executor::task]` that
//! receives the resources, calls the worker, restores or records what it
//! must, and acks the exit.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::spawn::{callee, shell_name};
use super::statics::heap_module_name;
use super::{exec, rt};
use crate::analyze::first_span;
use crate::model::{Form, Kind, Model, Res, Unit};

/// The shell's pieces that depend on its resources and state.
#[derive(Default)]
struct ShellArgs {
    /// Shell parameters, after the node.
    params: Vec<TokenStream>,
    /// Statements before the call (unwrap a consumed value, ...).
    prep: Vec<TokenStream>,
    /// The worker's arguments, after the node.
    worker_args: Vec<TokenStream>,
    /// Lend entries put back after the call (by dropping their guard).
    restores: Vec<TokenStream>,
    /// Frees the `state:` box.
    drop_state: TokenStream,
}

/// An `exit:` slot (if any), then the shell task.
pub(super) fn emit_shell(m: &Model, u: &Unit, f: &Form, pool_size: TokenStream) -> TokenStream {
    let rt = rt();
    let ex = exec();
    let cfg = u.cfg.attr();
    let shell = shell_name(m, u);
    let a = shell_args(m, u);
    let params = &a.params;
    let prep = &a.prep;
    let body = shell_body(u, f, &a);
    // `restart: on_failure` with `exit:`: the value says whether it failed.
    let classify = u.restart.as_ref().is_some_and(|r| r.classify);
    // Under `fault-inject` a crash is a failure too.
    let mark = if classify || crate::fault_inject() {
        quote!(if __es_failed {
            __es_node.mark_failed()
        } else {
            __es_node.mark_exited()
        })
    } else {
        quote!(__es_node.mark_exited())
    };
    let run = with_faults(quote!(#(#prep)* #body), classify);
    let exit_static = u.exit.as_ref().map(|(_, ty)| {
        let exit_name = format_ident!("{}_EXIT", u.name);
        quote! {
            #cfg
            pub static #exit_name: #rt::ResourceSlot<#ty> = #rt::ResourceSlot::new();
        }
    });
    quote! {
        #exit_static
        #cfg
        #[#ex::task(pool_size = #pool_size, embassy_executor = #ex)]
        #[allow(non_snake_case, unreachable_code, unused_mut, clippy::unit_arg, clippy::let_unit_value)]
        async fn #shell(__es_node: &'static #rt::TaskNode, #(#params)*) {
            #run
            #mark;
        }
    }
}

/// The one activation of the worker (`run`: unwrap the resources, call,
/// restore, record the exit value), under feature `fault-inject` run through
/// `TaskNode::with_faults` so injected faults are acted out around it. A
/// crash drops it whole (resources restored by their guards' drops, no exit
/// value); the shell then records the exit either way. With `classify` (a
/// `restart: on_failure` node's `exit:` value) the block yields its
/// `__es_failed`; either way a crash counts as a failure (a node with
/// `restart: on_failure` is restarted after it).
fn with_faults(run: TokenStream, classify: bool) -> TokenStream {
    if !crate::fault_inject() {
        return run;
    }
    if classify {
        return quote! {
            let __es_failed = __es_node
                .with_faults(async move { #run __es_failed })
                .await
                .unwrap_or(true);
        };
    }
    quote! {
        let __es_failed = __es_node.with_faults(async move { #run }).await.is_err();
    }
}

/// Per resource kind: how the shell receives, passes and restores it.
fn shell_args(m: &Model, u: &Unit) -> ShellArgs {
    let rt = rt();
    let mut a = ShellArgs::default();
    for (i, r) in u.resources.iter().enumerate() {
        let Res { ty, cfg: rcfg, .. } = r;
        let rcfg = rcfg.attr();
        let v = format_ident!("__es_r{}", i);
        match r.kind {
            Kind::Lend => {
                a.params.push(quote!(#rcfg #v: #rt::Lent<#ty>,));
                a.prep.push(quote!(#rcfg let mut #v = #v;));
                a.worker_args.push(quote!(#rcfg (&mut *#v),));
                a.restores.push(quote!(#rcfg ::core::mem::drop(#v);));
            }
            Kind::Consume => {
                a.params.push(quote!(#rcfg #v: #rt::Lent<#ty>,));
                a.prep.push(quote!(#rcfg let #v = #v.into_inner();));
                a.worker_args.push(quote!(#rcfg #v,));
            }
            Kind::Shared => {
                a.params.push(quote!(#rcfg #v: #ty,));
                a.worker_args.push(quote!(#rcfg #v,));
            }
        }
    }
    // State after resources, before extras; freed before the restores and
    // the exit record, so `has_exited()` implies the heap is back.
    if let Some((_, ty, _)) = &u.state {
        let heap = heap_module_name(m);
        a.params.push(quote!(__es_state: #heap::Box<#ty>,));
        a.prep.push(quote!(let mut __es_state = __es_state;));
        a.worker_args.push(quote!((&mut *__es_state),));
        a.drop_state = quote!(::core::mem::drop(__es_state););
    }
    a
}

/// The call, then the restores and the exit record, by `exit:` × `cancel`.
fn shell_body(u: &Unit, f: &Form, a: &ShellArgs) -> TokenStream {
    let (worker, extras) = callee(f);
    let (worker_args, restores, drop_state) = (&a.worker_args, &a.restores, &a.drop_state);
    let node_arg = (!u.cancel).then(|| quote!(__es_node,));
    let call = quote!(#worker(#node_arg #(#worker_args)* #(#extras),*));
    let exit_name = format_ident!("{}_EXIT", u.name);
    let classify = u.restart.as_ref().is_some_and(|r| r.classify);
    let rt = rt();
    // Spanned on the `exit:` type, so a type without `ExitStatus` is
    // reported where it is declared.
    let failed = |sp: proc_macro2::Span, cancel: bool| {
        classify.then(|| match cancel {
            false => quote_spanned!(sp=> let __es_failed = #rt::ExitStatus::is_failure(&__es_out);),
            // A stop that aborted the worker is no failure.
            true => quote_spanned! {sp=>
                let __es_failed = match &__es_out {
                    ::core::result::Result::Ok(__es_v) => #rt::ExitStatus::is_failure(__es_v),
                    ::core::result::Result::Err(_) => false,
                };
            },
        })
    };
    match (&u.exit, u.cancel) {
        (None, false) => quote! {
            let __es_out = #call.await;
            #drop_state
            #(#restores)*
            let _ = __es_out;
        },
        (None, true) => quote! {
            let __es_out = __es_node.run_cancellable(#call).await;
            #drop_state
            #(#restores)*
            let _ = __es_out;
        },
        // A worker that can never return makes this statement unreachable:
        // the lint is denied here and spanned on `exit:` so the user sees the
        // clause that can never be honoured.
        (Some((sp, ty)), false) => {
            let check = quote_spanned!(*sp=> #[deny(unreachable_code)] let __es_out = __es_out;);
            let failed = failed(first_span(ty), false);
            quote! {
                let __es_out = #call.await;
                #check
                #failed
                #drop_state
                #(#restores)*
                #exit_name.provide(__es_out);
            }
        }
        (Some((sp, ty)), true) => {
            let provide =
                quote_spanned!(*sp=> #[deny(unreachable_code)] #exit_name.provide(__es_out););
            let failed = failed(first_span(ty), true);
            quote! {
                let __es_out = __es_node.run_cancellable(#call).await;
                #failed
                #drop_state
                #(#restores)*
                // An aborted worker leaves the slot empty: that is how a
                // waiter tells "stopped" from "finished".
                if let ::core::result::Result::Ok(__es_out) = __es_out {
                    #provide
                }
            }
        }
    }
}
