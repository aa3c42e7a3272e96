//! `resources: [..]`: each entry's kind markers, the `local` kind's limits,
//! and the graph-wide slot statics the entries name (take-kind slots are
//! unique; `shared` slots may repeat with the same shape).

use std::collections::HashMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Ident, Type};

use super::clauses::Clauses;
use super::declare::Declared;
use super::{Errors, GraphWide, Site, cfg_of};
use crate::model::{Cfg, Kind, Res, SharedSlot, TakeSlot, Unit};
use crate::parse::Resource;

/// The clause, then entry by entry: kind, `local`, name.
///
/// Pinned by: `resources_without_task`, `pool_resources_without_task`,
/// `empty_resources`, and the entry checks below.
pub(super) fn check(
    site: &Site,
    c: &Clauses,
    route: Option<(&Ident, bool)>,
    declared: &Declared,
    wide: &mut GraphWide,
    errors: &mut Errors,
) -> Vec<Res> {
    let mut res_models = Vec::new();
    let Some((sp, bracket, list)) = c.resources else {
        return res_models;
    };
    if !c.has_task() {
        let msg = if site.is_pool {
            "pool `resources:` without `task:`: the generated shell receives the values \
             (and restores lend entries); a `spawn:` task fn manages its own arguments"
        } else {
            "`resources:` without `task:`: resources are taken and restored by the \
             generated shell; a hand-written `spawn:` fn manages its own arguments"
        };
        site.err(errors, sp, msg);
    }
    if list.is_empty() {
        site.err(
            errors,
            bracket,
            "empty `resources:` list: name at least one `NAME: Type`, or drop the clause",
        );
    }
    let mut local_names = HashMap::new();
    for r in list {
        let rcfg = cfg_of(&r.attrs, errors, site.origin);
        let (kind, local) = entry_kind(site, r, errors);
        if let Some(l) = local {
            check_local(site, route, r, kind, l, errors);
        }
        if wide.any_local.is_none() {
            wide.any_local = local;
        }
        let key = r.name.to_string();
        if local_names.insert(key.clone(), r.name.span()).is_some() {
            site.err(
                errors,
                r.name.span(),
                format!(
                    "duplicate resource name `{key}` on `{}`: list it once",
                    site.decl.name
                ),
            );
            continue;
        }
        let full_cfg = site.cfg.and(&rcfg);
        if declared.names.contains_key(&key) {
            site.err(
                errors,
                r.name.span(),
                format!(
                    "resource `{key}` has the name of a node, pool or executor: slot \
                     names are statics, rename it"
                ),
            );
        } else if kind == Kind::Shared {
            register_shared(site, r, local.is_some(), full_cfg, wide, errors);
        } else {
            register_take(site, r, local.is_some(), full_cfg, wide, errors);
        }
        res_models.push(Res {
            name: r.name.clone(),
            kind,
            ty: r.ty.clone(),
            cfg: rcfg,
        });
    }
    res_models
}

/// The entry's kind from its markers, and the `local` marker's span.
///
/// Pinned by: `repeated_kind_marker`, `shared_with_consume`.
fn entry_kind(site: &Site, r: &Resource, errors: &mut Errors) -> (Kind, Option<Span>) {
    let mut local = None;
    let mut consume = None;
    let mut shared_m = None;
    for m in &r.markers {
        let slot = match m.to_string().as_str() {
            "local" => &mut local,
            "consume" => &mut consume,
            _ => &mut shared_m,
        };
        if slot.is_some() {
            site.err(
                errors,
                m.span(),
                format!("repeated kind marker `{m}` on `{}`: give it once", r.name),
            );
        }
        *slot = Some(m.span());
    }
    if let (Some(_), Some(c)) = (shared_m, consume) {
        site.err(
            errors,
            c,
            format!(
                "`shared` with `consume` on `{}`: contradictory (one exclusive owner \
                 vs any number of copies); keep one of them",
                r.name
            ),
        );
    }
    let kind = if shared_m.is_some() {
        Kind::Shared
    } else if consume.is_some() {
        Kind::Consume
    } else {
        Kind::Lend
    };
    (kind, local)
}

/// Where a `local` entry may not go (first rule that applies).
///
/// Pinned by: `take_local_on_pool`, `local_with_executor`,
/// `local_with_default_executor`,
/// `no_local_resources/local_not_available` (and, in the emitted code,
/// `local_resources/local_in_forbid_unsafe_crate`).
fn check_local(
    site: &Site,
    route: Option<(&Ident, bool)>,
    r: &Resource,
    kind: Kind,
    l: Span,
    errors: &mut Errors,
) {
    if site.is_pool && kind != Kind::Shared {
        site.err(
            errors,
            l,
            format!(
                "take-kind `local` on pool `{}`: per-member local slots are not \
                 supported; use `shared local` or a non-local entry",
                site.decl.name
            ),
        );
    } else if let Some((e, default)) = route {
        let (with, fix) = if default {
            (
                format!("routed to the graph's `default executor {e}`"),
                "use a Send kind, or drop the graph's default executor",
            )
        } else {
            (format!("with `executor: {e}`"), "drop one of them")
        };
        site.err(
            errors,
            l,
            format!(
                "`local` resource `{}` {with}: a local slot carries !Send values, a \
                 SpawnerSlot-routed spawn needs a Send future; {fix}",
                r.name
            ),
        );
    } else if !crate::local_resources() {
        site.err(
            errors,
            l,
            "`local` needs the `local-resources` feature of embassy-supervisor \
             (the kind emits a documented `unsafe impl Sync` into your crate, so \
             it is opt-in): enable the feature, or use a Send type with the \
             default, `consume` or `shared` kind",
        );
    }
}

/// A `shared` entry: a new slot, or one more declaring site of an existing
/// one with the same shape.
///
/// Pinned by: `shared_shape_mismatch`, `local_resources/local_shape_mismatch`.
fn register_shared(
    site: &Site,
    r: &Resource,
    local: bool,
    full_cfg: Cfg,
    wide: &mut GraphWide,
    errors: &mut Errors,
) {
    let key = r.name.to_string();
    let shape = shape_of(&r.markers, &r.ty);
    if wide.take_names.contains_key(&key) {
        site.err(
            errors,
            r.name.span(),
            format!(
                "duplicate resource name `{key}`: it is already a take-kind slot \
                 elsewhere in the graph; only `shared` entries may repeat a name"
            ),
        );
    } else if let Some((s, sh, _)) = wide.shared.iter_mut().find(|(s, _, _)| s.name == key) {
        if *sh != shape {
            site.err(
                errors,
                r.name.span(),
                format!(
                    "shared slot `{key}` re-declared with a different shape: \
                     every declaration is the same static and must repeat \
                     `{sh}` verbatim"
                ),
            );
        } else {
            s.sites.push(full_cfg);
        }
    } else {
        let slot = SharedSlot {
            name: r.name.clone(),
            ty: r.ty.clone(),
            sites: vec![full_cfg],
            local,
        };
        wide.shared.push((slot, shape, r.name.span()));
    }
}

/// A take-kind entry (lend or consume): its own static, unique in the graph.
///
/// Pinned by: `duplicate_resource`.
fn register_take(
    site: &Site,
    r: &Resource,
    local: bool,
    full_cfg: Cfg,
    wide: &mut GraphWide,
    errors: &mut Errors,
) {
    let key = r.name.to_string();
    if wide.take_names.contains_key(&key) || wide.shared.iter().any(|(s, _, _)| s.name == key) {
        site.err(
            errors,
            r.name.span(),
            format!(
                "duplicate resource name `{key}`: take-kind slot names are statics, \
                 unique across the whole graph (only `shared` entries repeat); \
                 rename one"
            ),
        );
        return;
    }
    wide.take_names.insert(key, r.name.span());
    wide.take_slots.push(TakeSlot {
        name: r.name.clone(),
        ty: r.ty.clone(),
        cfg: full_cfg,
        members: site.is_pool.then_some(site.decl.modes.len()),
        local,
    });
}

/// What every declaration of one shared slot must repeat: markers (sorted)
/// and type.
fn shape_of(markers: &[Ident], ty: &Type) -> String {
    let mut m: Vec<String> = markers.iter().map(|m| m.to_string()).collect();
    m.sort();
    m.push(ty.to_token_stream().to_string());
    m.join(" ")
}

/// `provides: [..]`: each entry names a `shared` slot of the graph (declared
/// in some node's or pool's `resources:`), not a `local` one, once. Run after
/// every declaration, so a provider may come before its consumers.
///
/// Pinned by: `provides_not_shared`, `provides_take_slot`.
pub(super) fn check_provides(
    sites: &[Site],
    units: &[Unit],
    wide: &GraphWide,
    errors: &mut Errors,
) {
    for (site, u) in sites.iter().zip(units) {
        let mut seen = HashMap::new();
        for name in &u.provides {
            let key = name.to_string();
            if seen.insert(key.clone(), name.span()).is_some() {
                site.err(
                    errors,
                    name.span(),
                    format!("`{key}` is listed twice in `provides:`: list it once"),
                );
                continue;
            }
            let shared = wide.shared.iter().find(|(s, _, _)| s.name == *name);
            let msg = match shared {
                Some((s, _, _)) if s.local => format!(
                    "`provides: [{key}]`: `{key}` is a `shared local` slot, which a stopping \
                     provider cannot clear from another context; drop `local` or the entry"
                ),
                Some(_) => continue,
                None if wide.take_names.contains_key(&key) => format!(
                    "`provides: [{key}]`: `{key}` is a lend/consume resource, owned by the node \
                     that takes it; only a `shared` slot is provided (`{key}: shared Type`)"
                ),
                None => format!(
                    "`provides: [{key}]`: `{key}` is not a `shared` resource of this graph; \
                     declare it in a consumer's `resources:` as `{key}: shared Type`, or \
                     remove the entry"
                ),
            };
            site.err(errors, name.span(), msg);
        }
    }
}
