//! Emission from the checked model only: no rule is decided here. Everything
//! reaches the runtime through `::embassy_supervisor` (and embassy through its
//! `__private` re-exports), so users need no direct embassy dependency for
//! the generated code.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Expr, ExprClosure, Ident, LitInt, LitStr, ReturnType};

use crate::analyze::first_span;
use crate::model::{Cfg, Form, Kind, Model, Res, Spawn, Unit};

fn rt() -> TokenStream {
    quote!(::embassy_supervisor)
}

fn exec() -> TokenStream {
    quote!(::embassy_supervisor::__private::embassy_executor)
}

pub fn emit(m: &Model) -> TokenStream {
    let rt = rt();
    let mut out = TokenStream::new();

    for e in &m.executors {
        let cfg = e.cfg.attr();
        let name = &e.name;
        out.extend(quote! {
            #cfg
            pub static #name: #rt::SpawnerSlot = #rt::SpawnerSlot::new();
        });
    }
    if let Some(sp) = m.any_local {
        out.extend(local_type(m, sp));
    }
    if let Some(sp) = m.any_state {
        out.extend(heap_module(m, sp));
    }
    for s in &m.take_slots {
        let cfg = s.cfg.attr();
        let (name, ty) = (&s.name, &s.ty);
        let slot_ty = slot_type(m, s.local);
        out.extend(match s.members {
            None => quote! {
                #cfg
                pub static #name: #slot_ty<#ty> = #slot_ty::new();
            },
            Some(k) => quote! {
                #cfg
                pub static #name: [#rt::ResourceSlot<#ty>; #k] =
                    [const { #rt::ResourceSlot::new() }; #k];
            },
        });
    }
    for s in &m.shared_slots {
        let cfg = s.attr();
        let (name, ty) = (&s.name, &s.ty);
        let slot_ty = slot_type(m, s.local);
        out.extend(quote! {
            #cfg
            pub static #name: #slot_ty<#ty> = #slot_ty::new();
        });
    }

    for u in &m.units {
        out.extend(match &u.pool {
            None => emit_node(m, u),
            Some(_) => emit_pool(m, u),
        });
    }
    out.extend(emit_graph(m));
    // Once per binary: only the unnamed graph defines the trace hooks.
    if m.suffix.is_empty() && crate::trace_hooks_feature() {
        out.extend(trace_hooks());
    }
    out
}

/// The executor's seven `_embassy_trace_*` hooks (runtime feature
/// `trace-hooks`), each forwarding to its `trace::on_*` recorder. Emitted in
/// the user's crate: `no_mangle` is an unsafe attribute, and the runtime
/// crate forbids `unsafe`.
fn trace_hooks() -> TokenStream {
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

/// The slot type of a resource static: the runtime's `ResourceSlot`, or for
/// a `local` entry the graph's own local slot type.
fn slot_type(m: &Model, local: bool) -> TokenStream {
    if local {
        let t = local_type_name(m);
        quote!(#t)
    } else {
        let rt = rt();
        quote!(#rt::ResourceSlot)
    }
}

fn local_type_name(m: &Model) -> Ident {
    format_ident!("__EsLocalSlot{}", m.suffix)
}

/// The graph's slot type for `local` entries. It must live in the user's
/// crate: only a local type can carry an `unsafe impl Sync`, and the runtime
/// crate forbids `unsafe`. This impl is the `local-resources` feature's whole
/// unsafe surface; its `unsafe` keyword carries the span of the user's
/// `local` marker, so a crate that forbids `unsafe_code` is told so there (a
/// call-site span would count as macro code, which the lint skips).
fn local_type(m: &Model, marker: Span) -> TokenStream {
    let rt = rt();
    let t = local_type_name(m);
    let sync_impl = quote_spanned!(marker=> unsafe impl<T> ::core::marker::Sync for #t<T> {});
    quote! {
        /// The resource slot of this graph's `local` entries: a
        /// `ResourceSlot` without the `T: Send` bound on sharing it.
        ///
        /// Contract (single core): every `provide`, `take`, `restore` and
        /// `lend` of one slot, and every task it hands the value to, runs
        /// on ONE core (and, for `!Send` values, one executor thread). The
        /// macro rejects `local` with `executor:` for that reason; the
        /// application must not touch the slot from another core.
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        pub struct #t<T>(#rt::ResourceSlot<T>);

        #[allow(non_camel_case_types)]
        impl<T> #t<T> {
            /// An empty slot.
            pub const fn new() -> Self {
                Self(#rt::ResourceSlot::new())
            }
        }

        // SAFETY: the slot's value is only ever moved between code running
        // on one core (the documented contract above), so sharing the slot
        // never sends a `!Send` value across threads; the inner slot's
        // critical-section mutex still serialises every access.
        #sync_impl

        impl<T> ::core::ops::Deref for #t<T> {
            type Target = #rt::ResourceSlot<T>;
            fn deref(&self) -> &#rt::ResourceSlot<T> {
                &self.0
            }
        }

        impl<T> #rt::Gate for #t<T> {
            fn is_filled(&self) -> bool {
                self.0.is_filled()
            }
        }
    }
}

fn heap_module_name(m: &Model) -> Ident {
    format_ident!("__es_heap{}", m.suffix.to_lowercase())
}

/// The `heap-state` helper, emitted once per graph into the user's crate
/// (the runtime forbids `unsafe` and has no allocator). A private module so
/// `extern crate alloc` works from a `no_std` crate without touching its
/// root. The `unsafe` blocks carry the span of the user's `state:` keyword,
/// so the user's `unsafe_code` lints see them as their own code.
fn heap_module(m: &Model, state_kw: Span) -> TokenStream {
    let name = heap_module_name(m);
    let alloc_call = quote_spanned!(state_kw=> unsafe { alloc::alloc::alloc(layout) });
    let write_and_own = quote_spanned!(state_kw=> unsafe { ptr.write(value); Box::from_raw(ptr) });
    quote! {
        #[doc(hidden)]
        mod #name {
            extern crate alloc;
            pub use alloc::boxed::Box;

            /// `Box::new` without the abort: `None` when the allocator has
            /// no room, so the spawn glue can fail with `SpawnError::Busy`
            /// (the value is dropped, nothing else was taken).
            pub fn try_box<T>(value: T) -> ::core::option::Option<Box<T>> {
                let layout = alloc::alloc::Layout::new::<T>();
                if layout.size() == 0 {
                    // A zero-sized Box never allocates (and `alloc` must
                    // not be called with a zero size).
                    return ::core::option::Option::Some(Box::new(value));
                }
                // SAFETY: `layout` has a non-zero size (checked above).
                let ptr = #alloc_call.cast::<T>();
                if ptr.is_null() {
                    return ::core::option::Option::None;
                }
                // SAFETY: `ptr` is a fresh non-null allocation of
                // `Layout::new::<T>()` from the global allocator, which is
                // what `Box::from_raw` requires; `write` moves `value` in
                // without reading the uninitialised memory.
                ::core::option::Option::Some(#write_and_own)
            }
        }
    }
}

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

fn member_gates_name(u: &Unit, i: usize) -> Ident {
    format_ident!("__ES_GATES_{}_{}", u.name, i)
}

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

fn node_expr(
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
    let timeout = u.slot_timeout.as_ref().and_then(|l| {
        let ms = l.base10_parse::<u16>().ok()?;
        let lit = LitInt::new(&ms.to_string(), l.span());
        Some(quote!(.with_slot_timeout(#lit)))
    });
    let disabled = u.disabled.then(|| quote!(.disabled()));
    let slot = slot as u8;
    let pool = u.pool.as_ref().map(|p| {
        // Pools removed by cfg leave no entry in `GRAPH.pools`, so a pool's
        // index counts only the earlier pools that are compiled in.
        let _ = p;
        let idx = format_ident!("__ES_POOL_INDEX_{}", u.name);
        quote!(.in_pool(#idx))
    });
    quote! {
        #rt::TaskNode::new(&#rt::NodeSpec::new(#name_lit, #md) #spawn #gates #timeout #disabled .at(#slot) #pool)
    }
}

/// The worker's `(path, extras)` for a `task:`/`spawn:` form.
fn callee(f: &Form) -> (TokenStream, Vec<TokenStream>) {
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
            let shell = shell_name(m, u);
            quote!(#shell(#node_ref, #(#args)*)?)
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

fn spawn_name(m: &Model, u: &Unit) -> Ident {
    format_ident!(
        "__es_spawn_{}_{}{}",
        u.name.unraw().to_string().to_lowercase(),
        u.first_slot,
        m.suffix.to_lowercase()
    )
}

fn shell_name(m: &Model, u: &Unit) -> Ident {
    format_ident!(
        "__es_task_{}_{}{}",
        u.name.unraw().to_string().to_lowercase(),
        u.first_slot,
        m.suffix.to_lowercase()
    )
}

fn emit_node(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    let ex = exec();
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
        let body = glue_body(m, u, quote!(&#name), TokenStream::new());
        out.extend(quote! {
            #cfg
            #[allow(non_snake_case)]
            fn #spawn_fn_name(_: &'static #rt::TaskNode, spawner: #ex::Spawner) -> ::core::result::Result<(), #ex::SpawnError> {
                #body
            }
        });
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

fn emit_shell(m: &Model, u: &Unit, f: &Form, pool_size: TokenStream) -> TokenStream {
    let rt = rt();
    let ex = exec();
    let cfg = u.cfg.attr();
    let shell = shell_name(m, u);
    let (worker, extras) = callee(f);
    let mut params = Vec::new();
    let mut prep = Vec::new();
    let mut worker_args = Vec::new();
    let mut restores = Vec::new();
    for (i, r) in u.resources.iter().enumerate() {
        let Res { ty, cfg: rcfg, .. } = r;
        let rcfg = rcfg.attr();
        let v = format_ident!("__es_r{}", i);
        match r.kind {
            Kind::Lend => {
                params.push(quote!(#rcfg #v: #rt::Lent<#ty>,));
                prep.push(quote!(#rcfg let mut #v = #v;));
                worker_args.push(quote!(#rcfg (&mut *#v),));
                restores.push(quote!(#rcfg ::core::mem::drop(#v);));
            }
            Kind::Consume => {
                params.push(quote!(#rcfg #v: #rt::Lent<#ty>,));
                prep.push(quote!(#rcfg let #v = #v.into_inner();));
                worker_args.push(quote!(#rcfg #v,));
            }
            Kind::Shared => {
                params.push(quote!(#rcfg #v: #ty,));
                worker_args.push(quote!(#rcfg #v,));
            }
        }
    }
    // State after resources, before extras; freed before the restores and
    // the exit record, so `has_exited()` implies the heap is back.
    let mut drop_state = TokenStream::new();
    if let Some((_, ty, _)) = &u.state {
        let heap = heap_module_name(m);
        params.push(quote!(__es_state: #heap::Box<#ty>,));
        prep.push(quote!(let mut __es_state = __es_state;));
        worker_args.push(quote!((&mut *__es_state),));
        drop_state = quote!(::core::mem::drop(__es_state););
    }
    let node_arg = (!u.cancel).then(|| quote!(__es_node,));
    let call = quote!(#worker(#node_arg #(#worker_args)* #(#extras),*));
    let exit_name = format_ident!("{}_EXIT", u.name);
    let body = match (&u.exit, u.cancel) {
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
        (Some((sp, _)), false) => {
            let check = quote_spanned!(*sp=> #[deny(unreachable_code)] let __es_out = __es_out;);
            quote! {
                let __es_out = #call.await;
                #check
                #drop_state
                #(#restores)*
                #exit_name.provide(__es_out);
            }
        }
        (Some((sp, _)), true) => {
            let provide =
                quote_spanned!(*sp=> #[deny(unreachable_code)] #exit_name.provide(__es_out););
            quote! {
                let __es_out = __es_node.run_cancellable(#call).await;
                #drop_state
                #(#restores)*
                // An aborted worker leaves the slot empty: that is how a
                // waiter tells "stopped" from "finished".
                if let ::core::result::Result::Ok(__es_out) = __es_out {
                    #provide
                }
            }
        }
    };
    let exit_static = u.exit.as_ref().map(|(_, ty)| {
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
            #(#prep)*
            #body
            __es_node.mark_exited();
        }
    }
}

fn emit_pool(m: &Model, u: &Unit) -> TokenStream {
    let rt = rt();
    let ex = exec();
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
        node_expr(u, u.first_slot + i, Some(i), f)
    });
    let pool_name = format_ident!("{}_POOL", name);
    let min_name = format_ident!("{}_MIN", name);
    let max_name = format_ident!("{}_MAX", name);
    let members_name = format_ident!("{}_MEMBERS", name);
    let idx_name = format_ident!("__ES_POOL_INDEX_{}", name);
    let (pty, pexpr, pmin, pmax) = (&p.policy_ty, &p.policy, &p.min, &p.max);
    let first = u.first_slot as u8;
    let earlier: Vec<TokenStream> = m
        .units
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
        .collect();
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
        let body = glue_body(m, u, quote!(__es_node), quote!(__es_member));
        out.extend(quote! {
            #cfg
            #[allow(non_snake_case)]
            // One spawn fn for every member: it finds the member's index
            // (for its per-member resource slots) from the node it is given.
            fn #spawn_fn_name(__es_node: &'static #rt::TaskNode, spawner: #ex::Spawner) -> ::core::result::Result<(), #ex::SpawnError> {
                let __es_member = #pool_name.member_index(__es_node).ok_or(#ex::SpawnError::Busy)?;
                let _ = __es_member;
                #body
            }
        });
    }
    if let Spawn::Task(f) = &u.spawn {
        out.extend(emit_shell(m, u, f, quote!(#k)));
    }
    out
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

fn emit_graph(m: &Model) -> TokenStream {
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
    let graph = &m.graph;
    let graph_span = Span::call_site();
    let ty = quote_spanned!(graph_span=> #rt::Graph<#n>);
    quote! {
        pub static #graph: #ty = #rt::Graph::new([#(#slots),*], [#(#deps),*]) #with_pools #with_ready;
    }
}
