//! Every validation rule of the DSL, as a pipeline of named passes producing
//! the checked [`Model`] `codegen` emits from. Errors are spanned at the
//! offending user token and say how to fix it; all of them are collected, not
//! just the first, in the order the passes run (the compile-fail `.stderr`
//! files pin that order).
//!
//! ```text
//! declare            names, slots, executors           (declare.rs)
//! per node / pool:
//!   check_modes      the mode list                      (clauses.rs)
//!   collect          each clause once, in its place     (clauses.rs)
//!   spawn_form ..    task/spawn, the shell's clauses, route (worker.rs)
//!   resources        entries, kinds, graph-wide slots   (resources.rs)
//!   pool             policy, min, max                   (pools.rs)
//!   restarts         restart:, backoff:, restart_budget: (restarts.rs)
//!   deps             names to slots, `ready`            (deps.rs)
//!   dataflow         reads:, writes:, ready_on_write, derived (dataflow.rs)
//! check_provides     `provides:` names shared slots     (resources.rs)
//! check_graph        one writer, both sides             (dataflow.rs)
//! check_cycles       only on an otherwise valid graph   (deps.rs)
//! ```
//!
//! A new clause: parse it in `parse.rs`, give it a field in
//! [`clauses::Clauses`] (and its placement in [`clauses::collect`]), check it
//! in one function of the family it belongs to, and carry it to
//! [`crate::model::Unit`] in [`check_declaration`].

mod clauses;
mod dataflow;
mod declare;
mod deps;
mod pools;
mod resources;
mod restarts;
mod worker;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Attribute, Expr, Ident};

use crate::model::{Cfg, Model, SharedSlot, TakeSlot, Unit};
use crate::parse::{Decl, Input};
use declare::Declared;

/// The errors found so far, in the order they are reported.
#[derive(Default)]
pub(crate) struct Errors {
    pub(super) list: Vec<syn::Error>,
}

impl Errors {
    /// A spanned error; inside a fragment, the message names the fragment.
    fn push(&mut self, span: Span, origin: &Option<String>, msg: impl Into<String>) {
        let mut msg = msg.into();
        if let Some(frag) = origin {
            msg.push_str(&format!(" (in fragment `{frag}`)"));
        }
        self.list.push(syn::Error::new(span, msg));
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// All errors as one (each keeps its span), or `Ok` if there are none.
    fn into_result(self) -> syn::Result<()> {
        let mut iter = self.list.into_iter();
        let Some(mut all) = iter.next() else {
            return Ok(());
        };
        for e in iter {
            all.combine(e);
        }
        Err(all)
    }
}

/// One `node` or `pool` under check, as `declare` placed it.
pub(super) struct Site<'a> {
    pub decl: &'a Decl,
    /// The item's own `#[cfg]`s.
    pub cfg: Cfg,
    /// The fragment that declared it (`None`: the graph site).
    pub origin: &'a Option<String>,
    pub is_pool: bool,
    /// Its index among the graph's pools (0 for a node).
    pub pool_index: usize,
    /// Its (first) slot in the graph.
    pub first_slot: usize,
}

impl Site<'_> {
    fn what(&self) -> &'static str {
        if self.is_pool { "pool" } else { "node" }
    }

    fn err(&self, errors: &mut Errors, span: Span, msg: impl Into<String>) {
        errors.push(span, self.origin, msg);
    }
}

/// What the per-declaration passes gather across the whole graph.
#[derive(Default)]
pub(super) struct GraphWide {
    pub take_slots: Vec<TakeSlot>,
    /// Shared slots with the shape each repeat must match, and the span of
    /// their first declaration.
    pub shared: Vec<(SharedSlot, String, Span)>,
    pub take_names: std::collections::HashMap<String, Span>,
    pub any_ready: bool,
    pub any_local: Option<Span>,
    pub any_state: Option<Span>,
    /// Every `reads:` / `writes:` entry, for the graph-wide dataflow rules.
    accesses: Vec<dataflow::Access>,
}

/// The pipeline: declare, check each declaration, then the cycles.
pub fn analyze(input: Input, readiness: bool) -> syn::Result<Model> {
    let mut errors = Errors::default();
    let graph = input
        .name
        .clone()
        .unwrap_or_else(|| Ident::new("GRAPH", Span::call_site()));
    let suffix = input.name.as_ref().map_or_else(String::new, |n| {
        format!("_{}", syn::ext::IdentExt::unraw(n))
    });
    let declared = declare::declare(&input, &mut errors);
    let mut wide = GraphWide::default();
    let units: Vec<Unit> = declared
        .sites
        .iter()
        .map(|site| check_declaration(site, &declared, readiness, &mut wide, &mut errors))
        .collect();
    // After every declaration: a provider may come before its consumers.
    resources::check_provides(&declared.sites, &units, &wide, &mut errors);
    let flows = dataflow::check_graph(&wide.accesses, &mut errors);
    if errors.is_empty() {
        deps::check_cycles(&declared.sites, &units, &mut errors);
    }
    errors.into_result()?;
    Ok(Model {
        graph,
        suffix,
        executors: declared.executors,
        units,
        slots: declared.slots,
        take_slots: wide.take_slots,
        shared_slots: wide.shared.into_iter().map(|(s, _, _)| s).collect(),
        any_ready: wide.any_ready,
        any_local: wide.any_local,
        any_state: wide.any_state,
        flows,
    })
}

/// Every rule of one `node` or `pool`, in reporting order.
fn check_declaration(
    site: &Site,
    declared: &Declared,
    readiness: bool,
    wide: &mut GraphWide,
    errors: &mut Errors,
) -> Unit {
    clauses::check_modes(site, errors);
    let c = clauses::collect(site, errors);
    let spawn = worker::spawn_form(site, &c, errors);
    worker::check_pool_size(site, &c, errors);
    worker::check_executor(site, &c, &spawn, declared, errors);
    worker::check_slot_timeout(site, &c, errors);
    worker::check_beat_timeout(site, &c, errors);
    worker::check_ack_timeout(site, &c, errors);
    worker::check_cancel(site, &c, errors);
    worker::check_exit(site, &c, errors);
    worker::check_state(site, &c, wide, errors);
    worker::check_enabled_if(site, &c, errors);
    let executor = worker::route(&c, &spawn, declared);
    let resources = resources::check(site, &c, executor, declared, wide, errors);
    let pool = pools::check(site, &c, errors);
    let restart = restarts::check(site, &c, declared, errors);
    let deps = deps::resolve(site, &c, declared, readiness, wide, errors);
    let flows = dataflow::check(site, &c, readiness, errors);
    wide.accesses.extend(flows.accesses);
    let d = site.decl;
    Unit {
        name: d.name.clone(),
        cfg: site.cfg.clone(),
        modes: d.modes.clone(),
        first_slot: site.first_slot,
        pool,
        spawn,
        pool_size: c.pool_size.map(|p| p.1.clone()),
        resources,
        provides: c.provides.map_or_else(Vec::new, <[Ident]>::to_vec),
        exit: c.exit.map(|(s, t)| (s, t.clone())),
        state: c.state.map(|(s, t, e)| (s, t.clone(), e.clone())),
        cancel: c.cancel.is_some(),
        slot_timeout: c.slot_timeout.map(|(l, cfg)| (l.clone(), cfg)),
        beat_timeout: c.beat_timeout.map(|(_, l, cfg)| (l.clone(), cfg)),
        ack_timeout: c.ack_timeout.map(|(l, cfg)| (l.clone(), cfg)),
        executor: executor.map(|(e, _)| e.clone()),
        disabled: c.disabled,
        enabled_if: c.enabled_if.map(|(_, e, cfg)| (e.clone(), cfg)),
        restart,
        ready_on_write: flows.ready_on_write,
        derived: flows.derived,
        deps,
    }
}

/// The `#[cfg]` predicates of `attrs`; any other attribute is an error.
///
/// Pinned by: `non_cfg_attribute`.
fn cfg_of(attrs: &[Attribute], errors: &mut Errors, origin: &Option<String>) -> Cfg {
    let mut preds = Vec::new();
    for a in attrs {
        if !a.path().is_ident("cfg") {
            let span = a
                .path()
                .segments
                .first()
                .map_or_else(Span::call_site, |s| s.ident.span());
            errors.push(
                span,
                origin,
                "only `#[cfg(..)]` attributes are allowed in a supervisor graph",
            );
            continue;
        }
        match a.parse_args::<TokenStream>() {
            Ok(p) => preds.push(p),
            Err(e) => errors.list.push(e),
        }
    }
    Cfg(preds)
}

/// First span of any token tree, for errors on multi-token syntax.
pub fn first_span(t: &impl ToTokens) -> Span {
    t.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |tt| tt.span())
}

/// The value of an integer literal (through groups and parentheses).
fn lit_value(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        Expr::Group(g) => lit_value(&g.expr),
        Expr::Paren(p) => lit_value(&p.expr),
        _ => None,
    }
}
