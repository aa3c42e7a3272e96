//! A pool's own fields: `policy:` (and its type), `min:`, `max:`.

use syn::{Expr, Type};

use super::clauses::Clauses;
use super::{Errors, Site, first_span, lit_value};
use crate::model::PoolInfo;

/// The pool's fields, checked; `None` for a node or a pool missing one.
///
/// Pinned by: `pool_missing_policy`, and the checks below.
pub(super) fn check(site: &Site, c: &Clauses, errors: &mut Errors) -> Option<PoolInfo> {
    if !site.is_pool {
        return None;
    }
    let mut missing = false;
    for (f, present) in [
        ("policy", c.policy.is_some()),
        ("min", c.min.is_some()),
        ("max", c.max.is_some()),
    ] {
        if !present {
            missing = true;
            site.err(
                errors,
                site.decl.name.span(),
                format!(
                    "pool `{}` is missing `{f}:` (a pool always names its `policy:`, \
                     `min:` and `max:`)",
                    site.decl.name
                ),
            );
        }
    }
    let policy_ty = c.policy.and_then(|(sp, t, e)| match t {
        Some(t) => Some(t.clone()),
        None => policy_type(e).or_else(|| {
            site.err(
                errors,
                sp,
                "cannot read the policy type off this expression: annotate it, \
                 `policy: MyPolicy = make_policy()`",
            );
            None
        }),
    });
    check_bounds(site, c, errors);
    if missing {
        return None;
    }
    match (policy_ty, c.policy, c.min, c.max) {
        (Some(pt), Some((_, _, pe)), Some((_, mn)), Some((_, mx))) => Some(PoolInfo {
            index_among_pools: site.pool_index,
            policy_ty: pt,
            policy: pe.clone(),
            min: mn.clone(),
            max: mx.clone(),
        }),
        _ => None,
    }
}

/// `Type::new(..)` / `Type::<G>::with(..)` reads as `Type`.
fn policy_type(e: &Expr) -> Option<Type> {
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    if p.qself.is_some() || p.path.segments.len() < 2 {
        return None;
    }
    let mut path = p.path.clone();
    path.segments.pop();
    path.segments.pop_punct();
    Some(Type::Path(syn::TypePath { qself: None, path }))
}

/// Literal bounds are checked here; others by the emitted const assert.
///
/// Pinned by: `pool_bound_not_u8`, `pool_min_above_max`, `pool_max_above_members`.
fn check_bounds(site: &Site, c: &Clauses, errors: &mut Errors) {
    let k = site.decl.modes.len();
    let (minv, maxv) = (
        c.min.and_then(|m| lit_value(m.1)),
        c.max.and_then(|m| lit_value(m.1)),
    );
    for (which, v) in [(c.min, minv), (c.max, maxv)] {
        if let (Some((_, e)), Some(true)) = (which, v.map(|x| x > 255)) {
            site.err(errors, first_span(e), "pool bounds must fit u8 (0..=255)");
        }
    }
    // Guards, not let-chains: the macro crate builds with the 1.87 toolchain.
    if let (Some(mn), Some(mx), Some((_, me))) = (minv, maxv, c.min) {
        if mn > mx {
            site.err(
                errors,
                first_span(me),
                format!("pool bounds: `min: {mn}` is above `max: {mx}`; need min <= max"),
            );
        }
    }
    if let (Some(mx), Some((_, xe))) = (maxv, c.max) {
        if mx as usize > k {
            site.err(
                errors,
                first_span(xe),
                format!(
                    "pool bounds: `max: {mx}` exceeds the {k} member(s) declared; list one \
                     Mode per member or lower `max:`"
                ),
            );
        }
    }
}
