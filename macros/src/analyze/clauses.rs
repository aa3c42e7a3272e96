//! The shape of one declaration: its modes, each clause given once and only
//! where it belongs, and which clauses carry a `#[cfg]` gate. Clauses may come
//! in any order after the item's head, and every one is optional.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Expr, Ident, LitInt, Type};

use super::{Errors, Site, cfg_of};
use crate::model::Cfg;
use crate::parse::{ClauseValue, Dep, FlowEntry, Resource};

/// The clauses of one declaration, each at most once and only the ones its
/// kind (node or pool) accepts: the intermediate model every later check of
/// the declaration reads. Spans are the clause keywords'.
#[derive(Default)]
pub(super) struct Clauses<'a> {
    pub deps: Option<&'a [Dep]>,
    pub spawn: Option<(Span, &'a Expr)>,
    pub task: Option<(Span, &'a Expr)>,
    pub pool_size: Option<(Span, &'a Expr)>,
    /// Keyword span, bracket span, entries.
    pub resources: Option<(Span, Span, &'a [Resource])>,
    /// `provides:` entries.
    pub provides: Option<&'a [Ident]>,
    pub exit: Option<(Span, &'a Type)>,
    pub state: Option<(Span, &'a Type, &'a Expr)>,
    pub cancel: Option<Span>,
    /// The value and its `#[cfg]` gate (always, if none).
    pub slot_timeout: Option<(&'a LitInt, Cfg)>,
    /// `beat_timeout:` (keyword span, value, `#[cfg]` gate).
    pub beat_timeout: Option<(Span, &'a LitInt, Cfg)>,
    /// `ack_timeout:` (value, `#[cfg]` gate).
    pub ack_timeout: Option<(&'a LitInt, Cfg)>,
    pub executor: Option<&'a Ident>,
    /// Declared `disabled`, under this `#[cfg]` gate.
    pub disabled: Option<Cfg>,
    /// `enabled_if:` (keyword span, predicate, `#[cfg]` gate).
    pub enabled_if: Option<(Span, &'a Expr, Cfg)>,
    pub policy: Option<(Span, &'a Option<Type>, &'a Expr)>,
    pub min: Option<(Span, &'a Expr)>,
    pub max: Option<(Span, &'a Expr)>,
    /// `restart:` (keyword span, policy word).
    pub restart: Option<(Span, &'a Ident)>,
    /// `backoff:` (keyword span, MIN, MAX).
    pub backoff: Option<(Span, &'a LitInt, &'a LitInt)>,
    /// `restart_budget:` (keyword span, R, T).
    pub budget: Option<(Span, &'a LitInt, &'a LitInt)>,
    /// `reads:` (keyword span, entries).
    pub reads: Option<(Span, &'a [FlowEntry])>,
    /// `writes:` (keyword span, entries).
    pub writes: Option<(Span, &'a [FlowEntry])>,
    /// `ready_on_write` (keyword span).
    pub ready_on_write: Option<Span>,
    /// `derived` (keyword span).
    pub derived: Option<Span>,
}

impl Clauses<'_> {
    /// A `task:` clause: the macro generates the task shell.
    pub fn has_task(&self) -> bool {
        self.task.is_some()
    }
}

/// Pinned by: `unknown_mode` (and a pool's empty member list).
pub(super) fn check_modes(site: &Site, errors: &mut Errors) {
    let d = site.decl;
    if site.is_pool && d.modes.is_empty() {
        site.err(
            errors,
            d.mode_list.unwrap_or(d.name.span()),
            "a pool needs at least one member: list one Mode per member, floor first \
             (`[Terminate, OnDemand]`)",
        );
    }
    for m in &d.modes {
        if !matches!(m.to_string().as_str(), "Terminate" | "Pause" | "OnDemand") {
            site.err(
                errors,
                m.span(),
                format!("unknown mode `{m}`: expected `Terminate`, `Pause` or `OnDemand`"),
            );
        }
    }
}

/// The clauses that only set a value on the node's spec, so a `#[cfg]` can
/// gate them without changing the item's shape (its statics and shell).
const GATEABLE: [&str; 5] = [
    "slot_timeout",
    "beat_timeout",
    "ack_timeout",
    "disabled",
    "enabled_if",
];

/// Each clause once, and only on the kind it belongs to; the rest is left
/// out of the model (already reported).
///
/// Pinned by: `duplicate_clause`, `exit_on_pool`, `policy_on_node`,
/// `cfg_on_structural_clause`.
pub(super) fn collect<'a>(site: &Site<'a>, errors: &mut Errors) -> Clauses<'a> {
    let mut c = Clauses::default();
    let mut seen: HashMap<String, Span> = HashMap::new();
    for clause in &site.decl.clauses {
        let kw = clause.keyword.to_string();
        let sp = clause.keyword.span();
        if seen.insert(kw.clone(), sp).is_some() {
            site.err(
                errors,
                sp,
                format!(
                    "duplicate `{kw}` clause on `{}`: give each clause once",
                    site.decl.name
                ),
            );
            continue;
        }
        if let Some(msg) = misplaced(site, &kw) {
            site.err(errors, sp, msg);
            continue;
        }
        let cfg = cfg_of(&clause.attrs, errors, site.origin);
        if !cfg.is_always() && !GATEABLE.contains(&kw.as_str()) {
            site.err(
                errors,
                clause.attrs[0].pound_token.span,
                format!(
                    "`#[cfg]` on `{kw}`: only the value clauses ({}) take a cfg gate; \
                     gate the whole item, or the entries of `deps:` / `resources:`",
                    GATEABLE.join(", ")
                ),
            );
            continue;
        }
        match &clause.value {
            ClauseValue::Deps(v) => c.deps = Some(v.as_slice()),
            ClauseValue::Spawn(e) => c.spawn = Some((sp, e)),
            ClauseValue::Task(e) => c.task = Some((sp, e)),
            ClauseValue::PoolSize(e) => c.pool_size = Some((sp, e)),
            ClauseValue::Resources(b, v) => c.resources = Some((sp, *b, v.as_slice())),
            ClauseValue::Provides(v) => c.provides = Some(v.as_slice()),
            ClauseValue::Exit(t) => c.exit = Some((sp, t)),
            ClauseValue::State(t, e) => c.state = Some((sp, t, e)),
            ClauseValue::Cancel => c.cancel = Some(sp),
            ClauseValue::SlotTimeout(l) => c.slot_timeout = Some((l, cfg)),
            ClauseValue::BeatTimeout(l) => c.beat_timeout = Some((sp, l, cfg)),
            ClauseValue::AckTimeout(l) => c.ack_timeout = Some((l, cfg)),
            ClauseValue::Executor(e) => c.executor = Some(e),
            ClauseValue::Disabled => c.disabled = Some(cfg),
            ClauseValue::EnabledIf(e) => c.enabled_if = Some((sp, e, cfg)),
            ClauseValue::Policy(t, e) => c.policy = Some((sp, t, e)),
            ClauseValue::Min(e) => c.min = Some((sp, e)),
            ClauseValue::Max(e) => c.max = Some((sp, e)),
            ClauseValue::Restart(v) => c.restart = Some((sp, v)),
            ClauseValue::Backoff(lo, hi) => c.backoff = Some((sp, lo, hi)),
            ClauseValue::RestartBudget(r, t) => c.budget = Some((sp, r, t)),
            ClauseValue::Reads(v) => c.reads = Some((sp, v.as_slice())),
            ClauseValue::Writes(v) => c.writes = Some((sp, v.as_slice())),
            ClauseValue::ReadyOnWrite => c.ready_on_write = Some(sp),
            ClauseValue::Derived => c.derived = Some(sp),
        }
    }
    c
}

/// Why clause `kw` does not belong on this kind of declaration, if it does not.
fn misplaced(site: &Site, kw: &str) -> Option<String> {
    let node_only = matches!(kw, "pool_size" | "exit" | "disabled" | "enabled_if");
    let pool_only = matches!(kw, "policy" | "min" | "max");
    if site.is_pool && node_only {
        let why = match kw {
            "pool_size" => "a pool's shell is sized to its member count",
            "exit" => "members share one shell, so per-member exit values have no slot",
            _ => "a pool's floor always starts; disable it with a control `Deactivate`",
        };
        return Some(format!("`{kw}:` is not a pool clause ({why}); remove it"));
    }
    if !site.is_pool && pool_only {
        return Some(format!(
            "`{kw}:` belongs on a `pool`, not on node `{}`; remove it",
            site.decl.name
        ));
    }
    None
}
