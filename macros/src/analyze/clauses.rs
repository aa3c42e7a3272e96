//! The shape of one declaration: its modes, each clause given once and only
//! where it belongs, and the clause order.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{Expr, Ident, LitInt, Type};

use super::{Errors, Site};
use crate::parse::{ClauseValue, Dep, Resource};

/// The clauses of one declaration, each at most once and only the ones its
/// kind (node or pool) accepts: the intermediate model every later check of
/// the declaration reads. Spans are the clause keywords'.
#[derive(Default)]
pub(super) struct Clauses<'a> {
    /// Accepted clause keywords in source order.
    pub order: Vec<(String, Span)>,
    pub deps: Option<&'a [Dep]>,
    pub spawn: Option<(Span, &'a Expr)>,
    pub task: Option<(Span, &'a Expr)>,
    pub pool_size: Option<(Span, &'a Expr)>,
    /// Keyword span, bracket span, entries.
    pub resources: Option<(Span, Span, &'a [Resource])>,
    pub exit: Option<(Span, &'a Type)>,
    pub state: Option<(Span, &'a Type, &'a Expr)>,
    pub cancel: Option<Span>,
    pub slot_timeout: Option<&'a LitInt>,
    pub executor: Option<&'a Ident>,
    pub disabled: bool,
    pub policy: Option<(Span, &'a Option<Type>, &'a Expr)>,
    pub min: Option<(Span, &'a Expr)>,
    pub max: Option<(Span, &'a Expr)>,
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

/// Each clause once, and only on the kind it belongs to; the rest is left
/// out of the model (already reported).
///
/// Pinned by: `duplicate_clause`, `exit_on_pool`, `policy_on_node`.
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
        c.order.push((kw, sp));
        match &clause.value {
            ClauseValue::Deps(v) => c.deps = Some(v.as_slice()),
            ClauseValue::Spawn(e) => c.spawn = Some((sp, e)),
            ClauseValue::Task(e) => c.task = Some((sp, e)),
            ClauseValue::PoolSize(e) => c.pool_size = Some((sp, e)),
            ClauseValue::Resources(b, v) => c.resources = Some((sp, *b, v.as_slice())),
            ClauseValue::Exit(t) => c.exit = Some((sp, t)),
            ClauseValue::State(t, e) => c.state = Some((sp, t, e)),
            ClauseValue::Cancel => c.cancel = Some(sp),
            ClauseValue::SlotTimeout(l) => c.slot_timeout = Some(l),
            ClauseValue::Executor(e) => c.executor = Some(e),
            ClauseValue::Disabled => c.disabled = true,
            ClauseValue::Policy(t, e) => c.policy = Some((sp, t, e)),
            ClauseValue::Min(e) => c.min = Some((sp, e)),
            ClauseValue::Max(e) => c.max = Some((sp, e)),
        }
    }
    c
}

/// Why clause `kw` does not belong on this kind of declaration, if it does not.
fn misplaced(site: &Site, kw: &str) -> Option<String> {
    let node_only = matches!(kw, "pool_size" | "exit" | "disabled");
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

/// A node starts with `deps:`; a pool's fields are positional.
///
/// Pinned by: `deps_not_first`, `pool_out_of_order`.
pub(super) fn check_order(site: &Site, c: &Clauses, errors: &mut Errors) {
    let d = site.decl;
    if site.is_pool {
        check_pool_order(site, &c.order, errors);
    } else if c.order.first().is_none_or(|(k, _)| k != "deps") {
        site.err(
            errors,
            c.order.first().map_or(d.name.span(), |(_, s)| *s),
            format!(
                "`{} {}` must start its clauses with `deps: [..]` (use `deps: []` for none)",
                site.what(),
                d.name
            ),
        );
    }
}

/// Pinned by: `pool_out_of_order`.
fn check_pool_order(site: &Site, order: &[(String, Span)], errors: &mut Errors) {
    let d = site.decl;
    // deps → executor? → spawn|task → resources? → state? → policy → min → max →
    // slot_timeout? → cancel?
    let rank = |k: &str| match k {
        "deps" => 0,
        "executor" => 1,
        "spawn" | "task" => 2,
        "resources" => 3,
        "state" => 4,
        "policy" => 5,
        "min" => 6,
        "max" => 7,
        "slot_timeout" => 8,
        "cancel" => 9,
        _ => 10,
    };
    let mut last = -1i32;
    for (k, sp) in order {
        let r = rank(k);
        if r < last || r == 10 {
            site.err(
                errors,
                *sp,
                format!(
                    "pool `{}`: `{k}` is out of place; pool fields are positional: deps, \
                     [executor], spawn|task, [resources], [state], policy, min, max, \
                     [slot_timeout], [cancel]",
                    d.name
                ),
            );
            return;
        }
        last = r;
    }
    if order.first().is_none_or(|(k, _)| k != "deps") {
        site.err(
            errors,
            order.first().map_or(d.name.span(), |(_, s)| *s),
            format!("pool `{}` must start its fields with `deps: [..]`", d.name),
        );
    }
}
