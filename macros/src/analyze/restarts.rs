//! Automatic restarts: `restart:`, `backoff:`, `restart_budget:` on a node
//! or pool, and the graph's `restart_budget R in T;` default (feature
//! `restart`). Every rule about them lives here.

use proc_macro2::Span;
use syn::{Ident, LitInt};

use super::clauses::Clauses;
use super::declare::Declared;
use super::{Errors, Site};
use crate::model::{Cfg, RestartModel};

/// The graph's `restart_budget R in T;`: once, at the graph site, with no
/// `#[cfg]` (a budget must not depend on which features are in).
///
/// Pinned by: `restart_budget_twice`, `restart_budget_under_cfg`,
/// `restart_budget_in_fragment`, `no_restart/restart_budget_item_without_feature`.
pub(super) fn graph_budget(
    d: &mut Declared,
    kw: &Ident,
    (r, t): (&LitInt, &LitInt),
    cfg: &Cfg,
    origin: &Option<String>,
    errors: &mut Errors,
) {
    let problem = if !crate::restart_feature() {
        Some(feature_message("restart_budget"))
    } else if d.default_budget.is_some() {
        Some(
            "a second `restart_budget` item: a graph has one default; set a node's own \
              with its `restart_budget:` clause"
                .to_string(),
        )
    } else if origin.is_some() || !cfg.is_always() {
        Some(
            "`restart_budget` item in a fragment or under `#[cfg]`: the default budget \
              belongs to the whole graph; declare it once, unconditionally, at the graph \
              site"
                .to_string(),
        )
    } else {
        None
    };
    if let Some(msg) = problem {
        errors.push(kw.span(), origin, msg);
        return;
    }
    let mut local = Errors::default();
    if let Some(b) = budget_value(r, t, |sp, msg| local.push(sp, origin, msg)) {
        d.default_budget = Some(b);
    }
    errors.list.extend(local.list);
}

fn feature_message(kw: &str) -> String {
    format!(
        "`{kw}` needs the `restart` feature of embassy-supervisor (automatic restarts): \
         enable it, or drop it"
    )
}

/// `R in T` checked: `R` in 1..=255, `T` at least 1 ms.
///
/// Pinned by: `restart_budget_zero`, `restart_budget_zero_window`,
/// `restart_budget_over_255`, `restart_budget_window_over_u32`.
fn budget_value(r: &LitInt, t: &LitInt, mut err: impl FnMut(Span, &str)) -> Option<(u16, u32)> {
    let restarts = match r.base10_parse::<u16>() {
        Ok(0) => {
            err(
                r.span(),
                "a budget of 0 restarts refuses every restart: use `restart: never` to \
                 keep the node down, or allow at least 1",
            );
            None
        }
        Ok(n) if n <= 255 => Some(n),
        _ => {
            err(
                r.span(),
                "a restart budget counts at most 255 restarts per window",
            );
            None
        }
    };
    let window = match t.base10_parse::<u32>() {
        Ok(0) => {
            err(
                t.span(),
                "a zero window counts no restart: give the window in milliseconds \
                 (`restart_budget: 3 in 10000`)",
            );
            None
        }
        Ok(ms) => Some(ms),
        Err(_) => {
            err(
                t.span(),
                "the budget window is in milliseconds and must fit a u32",
            );
            None
        }
    };
    Some((restarts?, window?))
}

/// A node's or pool's restart configuration, if it has one: its policy,
/// backoff and budget (its own, else the graph default for a node with a
/// policy). `restart: never` without a budget needs nothing.
///
/// Pinned by: `restart_without_feature`, `backoff_without_feature`,
/// `restart_unknown_policy`, `restart_on_pause`, `restart_on_pause_pool`,
/// `restart_without_task`, `backoff_without_restart`, `backoff_min_over_max`,
/// `backoff_zero`, `backoff_over_u32`, `on_failure_cannot_fail` (and, in the
/// shell, `exit_without_exit_status`).
pub(super) fn check(
    site: &Site,
    c: &Clauses,
    declared: &Declared,
    errors: &mut Errors,
) -> Option<RestartModel> {
    let first = [
        c.restart.map(|r| (r.0, "restart:")),
        c.backoff.map(|b| (b.0, "backoff:")),
        c.budget.map(|b| (b.0, "restart_budget:")),
    ];
    let (kw, name) = first.into_iter().flatten().next()?;
    if !crate::restart_feature() {
        site.err(errors, kw, feature_message(name));
        return None;
    }
    let policy = c.restart.and_then(|(_, v)| policy(site, v, errors));
    let active = policy.as_ref().is_some_and(|p| p != "Never");
    if let (Some((sp, _)), true) = (c.restart, active) {
        check_policy_site(site, c, sp, errors);
    }
    let backoff = c.backoff.and_then(|(sp, min, max)| {
        if !active {
            site.err(
                errors,
                sp,
                "`backoff:` without a `restart:` policy has no restart to delay: add \
                 `restart: on_failure` (or `always`), or drop it",
            );
            return None;
        }
        backoff(site, min, max, errors)
    });
    let own = c
        .budget
        .and_then(|(_, r, t)| budget_value(r, t, |sp, msg| site.err(errors, sp, msg)));
    let budget = own.or(if active {
        declared.default_budget
    } else {
        None
    });
    if !active && budget.is_none() {
        return None;
    }
    let classify = policy.as_ref().is_some_and(|p| p == "OnFailure") && c.exit.is_some();
    Some(RestartModel {
        policy: Ident::new(policy.as_deref().unwrap_or("Never"), kw),
        backoff,
        budget,
        classify,
    })
}

/// The policy's runtime name, or an error naming the three.
fn policy(site: &Site, v: &Ident, errors: &mut Errors) -> Option<String> {
    let name = match v.to_string().as_str() {
        "never" => "Never",
        "on_failure" => "OnFailure",
        "always" => "Always",
        other => {
            site.err(
                errors,
                v.span(),
                format!(
                    "unknown restart policy `{other}`: expected `never`, `on_failure` or `always`"
                ),
            );
            return None;
        }
    };
    Some(name.to_string())
}

/// A policy needs an instance that can end on its own, a shell that reports
/// how it ended, and (for `on_failure`) a way to fail.
fn check_policy_site(site: &Site, c: &Clauses, sp: Span, errors: &mut Errors) {
    let d = site.decl;
    if d.modes.iter().any(|m| m == "Pause") {
        site.err(
            errors,
            sp,
            format!(
                "`restart:` on {} `{}` with a `Pause` mode: a `Pause` instance parks \
                 instead of exiting, so there is nothing to restart; make it `Terminate` \
                 (or `OnDemand`), or drop the clause",
                site.what(),
                d.name
            ),
        );
    }
    if !c.has_task() {
        site.err(
            errors,
            sp,
            format!(
                "`restart:` on `{}` needs `task:`: the generated shell reports how the \
                 worker ended; a `spawn:` or parked task can be cycled with \
                 `Supervisor::restart` instead",
                d.name
            ),
        );
        return;
    }
    let on_failure = c.restart.is_some_and(|(_, v)| v == "on_failure");
    if on_failure && c.exit.is_none() && c.beat_timeout.is_none() {
        site.err(
            errors,
            sp,
            format!(
                "`restart: on_failure` on `{}` can never fire: without `exit:` every return \
                 is a normal exit, and without `beat_timeout:` there is no stall; add \
                 `exit: Result<..>` or `beat_timeout: MS`, or use `restart: always`",
                d.name
            ),
        );
    }
}

/// `MIN..MAX` checked: `MIN` at least 1 ms and not above `MAX`.
fn backoff(site: &Site, min: &LitInt, max: &LitInt, errors: &mut Errors) -> Option<(u32, u32)> {
    let (lo, hi) = (min.base10_parse::<u32>(), max.base10_parse::<u32>());
    let (Ok(lo), Ok(hi)) = (lo, hi.as_ref().copied()) else {
        // Point at the bound that does not fit.
        let wide = if hi.is_err() { max } else { min };
        site.err(
            errors,
            wide.span(),
            "`backoff:` bounds are milliseconds and must fit a u32",
        );
        return None;
    };
    if lo == 0 {
        site.err(
            errors,
            min.span(),
            "a backoff starting at 0 ms never grows (it doubles): start at 1 ms or more",
        );
        return None;
    }
    if lo > hi {
        site.err(
            errors,
            max.span(),
            format!("backoff `{lo}..{hi}`: MIN is above MAX; write `{hi}..{lo}`"),
        );
        return None;
    }
    Some((lo, hi))
}
