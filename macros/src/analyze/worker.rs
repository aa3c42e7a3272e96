//! How a declaration is spawned (`task:` / `spawn:` / parked) and the clauses
//! that only make sense with the generated task shell or a routed spawn:
//! `pool_size:`, `executor:`, `slot_timeout:`, `cancel`, `exit:`, `state:`.

use syn::{Expr, Ident};

use super::clauses::Clauses;
use super::declare::{Declared, Target};
use super::{Errors, GraphWide, Site, first_span, lit_value};
use crate::model::{Form, Spawn};

/// The spawn form of `task:` / `spawn:`; `Parked` when there is none (or it
/// was rejected).
///
/// Pinned by: `task_and_spawn`, `closure_spawn_on_pool`, `malformed_spawn`,
/// `closure_in_task`.
pub(super) fn spawn_form(site: &Site, c: &Clauses, errors: &mut Errors) -> Spawn {
    match (c.spawn, c.task) {
        (Some(_), Some((tsp, _))) => {
            site.err(
                errors,
                tsp,
                format!(
                    "`task:` and `spawn:` on the same {}: they are mutually exclusive; \
                     keep `task:` for a plain worker fn or `spawn:` for an \
                     `#[embassy_executor::task]` fn",
                    site.what()
                ),
            );
            Spawn::Parked
        }
        (Some((_, e)), None) => match classify(e) {
            Some(Form::Closure(cl)) if site.is_pool => {
                site.err(
                    errors,
                    first_span(&cl),
                    "a closure spawn is for nodes only: a pool spawns each member through \
                     the same fn; name a task fn (`spawn: my_task`)",
                );
                Spawn::Parked
            }
            Some(f) => Spawn::Spawn(f),
            None => {
                site.err(
                    errors,
                    first_span(e),
                    "malformed `spawn:`: expected a task fn path (`my_task`), a partial call \
                     (`my_task(arg)`, the node is passed first) or a closure \
                     (`|s: Spawner| { .. }`)",
                );
                Spawn::Parked
            }
        },
        (None, Some((_, e))) => match classify(e) {
            Some(Form::Closure(cl)) => {
                site.err(
                    errors,
                    first_span(&cl),
                    "a closure in `task:`: the generated shell needs a worker fn it can \
                     name; write `task: my_worker` or use `spawn:` for a closure",
                );
                Spawn::Parked
            }
            Some(f) => Spawn::Task(f),
            None => {
                site.err(
                    errors,
                    first_span(e),
                    "malformed `task:`: expected a worker fn path (`my_worker`, \
                     `my_worker::<T>`) or a partial call (`my_worker(arg)`)",
                );
                Spawn::Parked
            }
        },
        (None, None) => Spawn::Parked,
    }
}

/// A path, a partial call or a closure; anything else is malformed.
fn classify(e: &Expr) -> Option<Form> {
    match e {
        Expr::Path(p) if p.qself.is_none() => Some(Form::Path(p.clone())),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.qself.is_none() => {
                Some(Form::Call(p.clone(), c.args.iter().cloned().collect()))
            }
            _ => None,
        },
        Expr::Closure(c) => Some(Form::Closure(c.clone())),
        Expr::Group(g) => classify(&g.expr),
        _ => None,
    }
}

/// Pinned by: `pool_size_without_task`, `pool_size_zero`.
pub(super) fn check_pool_size(site: &Site, c: &Clauses, errors: &mut Errors) {
    let Some((sp, e)) = c.pool_size else { return };
    if !c.has_task() {
        site.err(
            errors,
            sp,
            "`pool_size:` without `task:`: it sizes the generated shell's TaskPool; a \
             hand-written task fn declares its own `pool_size` in its attribute",
        );
    } else if lit_value(e) == Some(0) {
        site.err(
            errors,
            first_span(e),
            "`pool_size: 0` would leave no task storage at all: use 1 or more",
        );
    }
}

/// Pinned by: `unknown_executor`, `executor_with_closure`, `executor_on_parked`.
pub(super) fn check_executor(
    site: &Site,
    c: &Clauses,
    spawn: &Spawn,
    declared: &Declared,
    errors: &mut Errors,
) {
    let Some(e) = c.executor else { return };
    if !matches!(
        declared.names.get(&e.to_string()),
        Some((Target::Executor, _))
    ) {
        site.err(
            errors,
            e.span(),
            format!("unknown executor `{e}`: declare it with `executor {e};` in this graph"),
        );
    }
    match spawn {
        Spawn::Spawn(Form::Closure(cl)) => site.err(
            errors,
            first_span(cl),
            "`executor:` with a closure spawn: the closure owns the spawn, so route it \
             through the slot inside the closure, or name a task fn with `spawn:`",
        ),
        Spawn::Parked if c.spawn.is_none() && c.task.is_none() => site.err(
            errors,
            e.span(),
            format!(
                "`executor:` on parked `{}`: the application spawns a parked node itself; \
                 add `task:` or `spawn:`, or drop `executor:`",
                site.decl.name
            ),
        ),
        _ => {}
    }
}

/// Where the spawn is routed, if anywhere: the `executor:` clause, else the
/// graph's `default executor` for a spawn the macro emits (a `task:` shell or
/// a named `spawn:` fn). Parked nodes and closures stay on the supervisor's
/// executor. The flag says the route is the default.
pub(super) fn route<'a>(
    c: &Clauses<'a>,
    spawn: &Spawn,
    declared: &'a Declared,
) -> Option<(&'a Ident, bool)> {
    if let Some(e) = c.executor {
        return Some((e, false));
    }
    match spawn {
        Spawn::Task(_) | Spawn::Spawn(Form::Path(_) | Form::Call(..)) => {
            declared.default_executor.as_ref().map(|e| (e, true))
        }
        _ => None,
    }
}

/// Pinned by: `slot_timeout_zero`.
pub(super) fn check_slot_timeout(site: &Site, c: &Clauses, errors: &mut Errors) {
    let Some((l, _)) = &c.slot_timeout else {
        return;
    };
    match l.base10_parse::<u16>() {
        Ok(0) => site.err(
            errors,
            l.span(),
            "`slot_timeout: 0` would fail every gated spawn instantly: give the wait in \
             milliseconds (default 100)",
        ),
        Ok(_) => {}
        Err(_) => site.err(
            errors,
            l.span(),
            "`slot_timeout:` is in milliseconds and must fit a u16 (1..=65535)",
        ),
    }
}

/// Pinned by: `liveness/beat_timeout_zero`, `no_liveness/beat_timeout_without_feature`.
pub(super) fn check_beat_timeout(site: &Site, c: &Clauses, errors: &mut Errors) {
    let Some((sp, l, _)) = &c.beat_timeout else {
        return;
    };
    if !crate::liveness() {
        site.err(
            errors,
            *sp,
            "`beat_timeout:` needs the `liveness` feature of embassy-supervisor (it \
             adds the heartbeat word to every node): enable it, or drop the clause",
        );
        return;
    }
    match l.base10_parse::<u32>() {
        Ok(0) => site.err(
            errors,
            l.span(),
            "`beat_timeout: 0` would report the node stale at once: give the longest \
             gap between its beats in milliseconds, or drop the clause to not police it",
        ),
        Ok(_) => {}
        Err(_) => site.err(
            errors,
            l.span(),
            "`beat_timeout:` is in milliseconds and must fit a u32 (1..=4294967295)",
        ),
    }
}

/// Pinned by: `ack_timeout_zero`.
pub(super) fn check_ack_timeout(site: &Site, c: &Clauses, errors: &mut Errors) {
    let Some((l, _)) = &c.ack_timeout else {
        return;
    };
    match l.base10_parse::<u32>() {
        Ok(0) => site.err(
            errors,
            l.span(),
            "`ack_timeout: 0` gives the node no time to ack its stop: give the longest \
             stop it may take in milliseconds, or drop the clause for the 2 s default",
        ),
        Ok(_) => {}
        Err(_) => site.err(
            errors,
            l.span(),
            "`ack_timeout:` is in milliseconds and must fit a u32 (1..=4294967295)",
        ),
    }
}

/// Pinned by: `cancel_without_task`, `cancel_with_pause`,
/// `cancel_with_pause_pool_member`.
pub(super) fn check_cancel(site: &Site, c: &Clauses, errors: &mut Errors) {
    let Some(sp) = c.cancel else { return };
    if !c.has_task() {
        site.err(
            errors,
            sp,
            "`cancel` without `task:`: the flag changes how the generated shell calls \
             the worker; a `spawn:` task fn can call `node.run_cancellable(..)` itself",
        );
    }
    if let Some(m) = site.decl.modes.iter().find(|m| *m == "Pause") {
        site.err(
            errors,
            m.span(),
            "`cancel` with `Pause`: a Pause worker must survive the stop and park on \
             `wait_resume()`, but `cancel` drops it and records an exit; use \
             `Terminate`/`OnDemand`, or drive the pause by hand",
        );
    }
}

/// Pinned by: `exit_without_task` (and, in the emitted shell,
/// `exit_never_returns`, `exit_never_returns_cancel`).
pub(super) fn check_exit(site: &Site, c: &Clauses, errors: &mut Errors) {
    if let (Some((sp, _)), false) = (c.exit, c.has_task()) {
        site.err(
            errors,
            sp,
            "`exit:` without `task:`: the generated shell captures the worker's return \
             value; a `spawn:` task fn can `provide()` into its own slot",
        );
    }
}

/// Pinned by: `no_enabled_if/enabled_if_without_feature` (and, on a pool,
/// `enabled_if_on_pool` in `clauses::collect`).
pub(super) fn check_enabled_if(site: &Site, c: &Clauses, errors: &mut Errors) {
    if let (Some((sp, _, _)), false) = (&c.enabled_if, crate::enabled_if_feature()) {
        site.err(
            errors,
            *sp,
            "`enabled_if:` needs the `enabled-if` feature of embassy-supervisor (it adds \
             the predicate to every node's spec): enable it, or drop the clause",
        );
    }
}

/// Pinned by: `no_heap_state/state_not_available`, `heap_state/state_without_task`
/// (and, in the emitted code, `heap_state/state_wrong_type`,
/// `heap_state/state_in_forbid_unsafe_crate`).
pub(super) fn check_state(site: &Site, c: &Clauses, wide: &mut GraphWide, errors: &mut Errors) {
    let Some((sp, _, _)) = c.state else { return };
    if !crate::heap_state() {
        site.err(
            errors,
            sp,
            "`state:` needs the `heap-state` feature of embassy-supervisor (it emits a \
             fallible-boxing `unsafe` helper into your crate and needs a global \
             allocator): enable the feature, or provide a `consume Box<T>` resource",
        );
    } else if !c.has_task() {
        site.err(
            errors,
            sp,
            "`state:` without `task:`: the generated shell lends the boxed state to the \
             worker and frees it on exit; a `spawn:` task fn keeps its own state",
        );
    } else if wide.any_state.is_none() {
        wide.any_state = Some(sp);
    }
}
