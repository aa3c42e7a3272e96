//! The graph's statics that are not nodes: executor slots, resource slots,
//! and the once-per-graph helpers (the `local` slot type, the `heap-state`
//! boxing module).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::rt;
use crate::model::Model;

/// `executor NAME;`: the slot the application fills with that executor's
/// spawner.
pub(super) fn executor_statics(m: &Model) -> TokenStream {
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
    out
}

/// Lend and consume entries: one slot per entry (an array of one slot per
/// member for a pool).
pub(super) fn take_slot_statics(m: &Model) -> TokenStream {
    let rt = rt();
    let mut out = TokenStream::new();
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
    out
}

/// `shared` entries: one slot per name, present if any declaring site is.
pub(super) fn shared_slot_statics(m: &Model) -> TokenStream {
    let mut out = TokenStream::new();
    for s in &m.shared_slots {
        let cfg = s.attr();
        let (name, ty) = (&s.name, &s.ty);
        let slot_ty = slot_type(m, s.local);
        out.extend(quote! {
            #cfg
            pub static #name: #slot_ty<#ty> = #slot_ty::new();
        });
    }
    out
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

pub(super) fn local_type_name(m: &Model) -> Ident {
    format_ident!("__EsLocalSlot{}", m.suffix)
}

/// The graph's slot type for `local` entries. It must live in the user's
/// crate: only a local type can carry an `unsafe impl Sync`, and the runtime
/// crate forbids `unsafe`. This impl is the `local-resources` feature's whole
/// unsafe surface; its `unsafe` keyword carries the span of the user's
/// `local` marker, so a crate that forbids `unsafe_code` is told so there (a
/// call-site span would count as macro code, which the lint skips).
pub(super) fn local_type(m: &Model, marker: Span) -> TokenStream {
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

pub(super) fn heap_module_name(m: &Model) -> Ident {
    format_ident!("__es_heap{}", m.suffix.to_lowercase())
}

/// The `heap-state` helper, emitted once per graph into the user's crate
/// (the runtime forbids `unsafe` and has no allocator). A private module so
/// `extern crate alloc` works from a `no_std` crate without touching its
/// root. The `unsafe` blocks carry the span of the user's `state:` keyword,
/// so the user's `unsafe_code` lints see them as their own code.
pub(super) fn heap_module(m: &Model, state_kw: Span) -> TokenStream {
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
            /// (a `SpawnBusy` fault)
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
