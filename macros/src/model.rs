//! The checked model: what `analyze` proves about a graph and the only input
//! `codegen` reads. Every field is already valid; codegen decides no rule.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, ExprClosure, ExprPath, Ident, LitInt, Type};

/// The most slots a graph can hold: indices are `u8`.
pub const MAX_SLOTS: usize = 256;

pub struct Model {
    pub graph: Ident,
    pub suffix: String,
    pub executors: Vec<Executor>,
    pub units: Vec<Unit>,
    pub slots: usize,
    pub take_slots: Vec<TakeSlot>,
    pub shared_slots: Vec<SharedSlot>,
    pub any_ready: bool,
    /// The first `local` marker, if any entry is `local`: the graph emits
    /// its local slot type once, its `unsafe` spanned on this user token so
    /// the user's `unsafe_code` lints judge it as their own code.
    pub any_local: Option<Span>,
    /// The first `state:` keyword, if any node or pool has one: the graph
    /// emits its fallible-boxing helper once, its `unsafe` spanned here.
    pub any_state: Option<Span>,
    /// The graph's dataflow (feature `dataflow`): one entry per signal, in
    /// first-mention order; empty when the graph declares none.
    pub flows: Vec<Flow>,
}

/// A `derived` node's lists, to check against its task fn's
/// `#[derive_dataflow]` table at compile time.
pub struct DerivedCheck {
    /// The `derived` keyword.
    pub span: Span,
    /// The path of the table the attribute emitted beside the task fn.
    pub table: syn::Path,
    pub task: String,
    /// Each listed signal's path (as `derive_dataflow::relative_key` spells
    /// it), the entry's span, and whether it is a write.
    pub listed: Vec<(String, Span, bool)>,
}

/// One signal of the dataflow, checked: its writer and reader slots (a
/// pool's entry covers every member), and whether a side is outside.
pub struct Flow {
    /// The path as the graph spells it (without spaces).
    pub name: String,
    pub path: syn::Path,
    pub writers: Vec<usize>,
    pub readers: Vec<usize>,
    /// A read is marked `extern`: written outside the graph.
    pub written_outside: bool,
    /// A write is marked `extern`: read outside the graph.
    pub read_outside: bool,
    /// The `#[cfg]` of each declaring item: the entry is compiled if any is.
    pub sites: Vec<Cfg>,
}

pub struct Executor {
    pub name: Ident,
    pub cfg: Cfg,
}

/// The cfg predicates guarding something (all must hold); empty = always.
#[derive(Clone, Default)]
pub struct Cfg(pub Vec<TokenStream>);

impl Cfg {
    pub fn is_always(&self) -> bool {
        self.0.is_empty()
    }
    pub fn and(&self, other: &Cfg) -> Cfg {
        let mut v = self.0.clone();
        v.extend(other.0.iter().cloned());
        Cfg(v)
    }
    /// The single predicate `all(..)`.
    pub fn predicate(&self) -> TokenStream {
        let p = &self.0;
        quote!(all(#(#p),*))
    }
    /// `#[cfg(..)]`, or nothing when unconditional.
    pub fn attr(&self) -> TokenStream {
        if self.is_always() {
            TokenStream::new()
        } else {
            let p = self.predicate();
            quote!(#[cfg(#p)])
        }
    }
}

pub struct Unit {
    pub name: Ident,
    pub cfg: Cfg,
    pub modes: Vec<Ident>,
    pub first_slot: usize,
    pub pool: Option<PoolInfo>,
    pub spawn: Spawn,
    pub pool_size: Option<Expr>,
    pub resources: Vec<Res>,
    /// `provides:`: shared slots of the graph this unit fills (checked).
    pub provides: Vec<Ident>,
    pub exit: Option<(Span, Type)>,
    /// `state: Type = init` (`heap-state`), with the clause keyword's span.
    pub state: Option<(Span, Type, Expr)>,
    pub cancel: bool,
    /// `slot_timeout:` and its `#[cfg]` gate.
    pub slot_timeout: Option<(LitInt, Cfg)>,
    /// `beat_timeout:` (feature `liveness`) and its `#[cfg]` gate.
    pub beat_timeout: Option<(LitInt, Cfg)>,
    /// `ack_timeout:` and its `#[cfg]` gate.
    pub ack_timeout: Option<(LitInt, Cfg)>,
    pub executor: Option<Ident>,
    /// `disabled`, under this `#[cfg]` gate.
    pub disabled: Option<Cfg>,
    /// `enabled_if:` predicate, under this `#[cfg]` gate.
    pub enabled_if: Option<(Expr, Cfg)>,
    /// `restart:` / `backoff:` / `restart_budget:` (feature `restart`).
    pub restart: Option<RestartModel>,
    /// `ready_on_write` (features `dataflow` + `readiness`).
    pub ready_on_write: bool,
    /// `derived`: the lists are checked against the task fn's table.
    pub derived: Option<DerivedCheck>,
    pub deps: Vec<DepRef>,
}

impl Unit {
    /// A `task:` node whose spawn glue takes and routes nothing before it
    /// hands an activation to its resident shell: the supervisor hands
    /// later activations over itself (`NodeSpec::with_direct_hand_over`),
    /// so the glue only spawns the shell (the first activation).
    pub fn hands_over_directly(&self) -> bool {
        matches!(self.spawn, Spawn::Task(_))
            && self.resources.is_empty()
            && self.state.is_none()
            && self.executor.is_none()
    }
}

/// A node's (or each pool member's) restart configuration.
pub struct RestartModel {
    /// The `RestartPolicy` variant (`Never`, `OnFailure`, `Always`).
    pub policy: Ident,
    /// `backoff: MIN..MAX`, if given.
    pub backoff: Option<(u32, u32)>,
    /// `(R, T)`: its own `restart_budget:`, else the graph's default.
    pub budget: Option<(u16, u32)>,
    /// The shell reports a failing `exit:` value (`on_failure` with `exit:`).
    pub classify: bool,
}

pub struct PoolInfo {
    pub index_among_pools: usize,
    pub policy_ty: Type,
    pub policy: Expr,
    pub min: Expr,
    pub max: Expr,
}

#[allow(clippy::enum_variant_names)] // `Spawn::Spawn` mirrors the `spawn:` clause
pub enum Spawn {
    Parked,
    Spawn(Form),
    Task(Form),
}

pub enum Form {
    Path(ExprPath),
    Call(ExprPath, Vec<Expr>),
    Closure(ExprClosure),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Lend,
    Consume,
    Shared,
}

pub struct Res {
    pub name: Ident,
    pub kind: Kind,
    pub ty: Type,
    pub cfg: Cfg,
}

pub struct DepRef {
    pub slot: usize,
    pub cfg: Cfg,
    pub ready: bool,
}

/// One static per take-kind entry (an array of K for a pool).
pub struct TakeSlot {
    pub name: Ident,
    pub ty: Type,
    pub cfg: Cfg,
    pub members: Option<usize>,
    /// A `local` entry: the graph's local slot type, not `ResourceSlot`.
    pub local: bool,
}

/// One static per shared name; present if any declaring site is.
pub struct SharedSlot {
    pub name: Ident,
    pub ty: Type,
    pub sites: Vec<Cfg>,
    /// `shared local` (the shape check keeps every declaration alike).
    pub local: bool,
}

impl SharedSlot {
    pub fn attr(&self) -> TokenStream {
        if self.sites.iter().any(Cfg::is_always) {
            return TokenStream::new();
        }
        let preds = self.sites.iter().map(Cfg::predicate);
        quote!(#[cfg(any(#(#preds),*))])
    }
}
