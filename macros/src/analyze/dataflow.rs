//! `reads:` / `writes:` / `ready_on_write` / `derived` (feature `dataflow`): each entry
//! names a signal static; across the graph, a signal has one writer unless
//! every writer's entry says `shared`, and it has both a writer and a reader
//! unless the missing side is marked `extern` (outside the graph). A cycle
//! of data (A feeds B, B feeds A) is allowed: it orders nothing.
//!
//! Signals are compared by the path the graph spells (a macro sees tokens,
//! not addresses), so two spellings of one name are refused rather than
//! guessed at.

use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use quote::ToTokens;
use syn::Ident;

use super::clauses::Clauses;
use super::{Errors, Site, first_span};
use crate::model::{Cfg, DerivedCheck, Flow};
use crate::parse::FlowEntry;

/// One checked `reads:` / `writes:` entry of one declaration.
pub(super) struct Access {
    /// The declaring unit and its slots (a pool: one per member).
    unit: Ident,
    first_slot: usize,
    members: usize,
    cfg: Cfg,
    origin: Option<String>,
    /// The path as written, without spaces: the signal's identity here.
    key: String,
    path: syn::Path,
    write: bool,
    shared: Option<Span>,
    ext: Option<Span>,
    span: Span,
}

/// What one declaration's dataflow clauses leave for the graph.
pub(super) struct UnitFlows {
    pub accesses: Vec<Access>,
    pub ready_on_write: bool,
    pub derived: Option<DerivedCheck>,
}

/// The dataflow clauses of one declaration: the feature, each entry's
/// markers, no signal twice in one list, `ready_on_write`'s needs, and
/// `derived`'s task fn.
///
/// Pinned by: `no_dataflow/reads_without_feature`,
/// `dataflow/unknown_flow_marker`, `dataflow/repeated_flow_marker`, `dataflow/shared_on_read`,
/// `dataflow/flow_listed_twice`, `dataflow/cfg_on_flow_entry`,
/// `dataflow/ready_on_write_without_writes`,
/// `dataflow_no_readiness/ready_on_write_without_readiness`.
pub(super) fn check(site: &Site, c: &Clauses, readiness: bool, errors: &mut Errors) -> UnitFlows {
    let clauses = [(c.reads, false), (c.writes, true)];
    if !crate::dataflow_feature() {
        let first = clauses
            .iter()
            .filter_map(|(cl, _)| cl.map(|(sp, _)| sp))
            .chain(c.ready_on_write)
            .chain(c.derived)
            .next();
        if let Some(sp) = first {
            site.err(
                errors,
                sp,
                "`reads:`, `writes:`, `ready_on_write` and `derived` need the `dataflow` \
                 feature of embassy-supervisor: enable it, or drop the clause",
            );
        }
        return UnitFlows {
            accesses: Vec::new(),
            ready_on_write: false,
            derived: None,
        };
    }
    let mut out = Vec::new();
    for (clause, write) in clauses {
        let Some((_, entries)) = clause else { continue };
        let mut listed: HashSet<String> = HashSet::new();
        for e in entries {
            let access = entry(site, e, write, errors);
            if !listed.insert(access.key.clone()) {
                site.err(
                    errors,
                    access.span,
                    format!(
                        "`{}` is listed twice in `{}:` of `{}`: list each signal once",
                        access.key,
                        if write { "writes" } else { "reads" },
                        site.decl.name
                    ),
                );
                continue;
            }
            out.push(access);
        }
    }
    let ready_on_write = check_ready_on_write(site, c, readiness, errors);
    let derived = check_derived(site, c, &out, errors);
    UnitFlows {
        accesses: out,
        ready_on_write,
        derived,
    }
}

/// `derived` names the table `#[derive_dataflow]` emitted beside the
/// `task:` fn, so it needs a `task:` path.
///
/// Pinned by: `dataflow/derived_without_task`.
fn check_derived(
    site: &Site,
    c: &Clauses,
    accesses: &[Access],
    errors: &mut Errors,
) -> Option<DerivedCheck> {
    let sp = c.derived?;
    let task_path = c.task.and_then(|(_, e)| match e {
        syn::Expr::Path(p) => Some(p.path.clone()),
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(p) => Some(p.path.clone()),
            _ => None,
        },
        _ => None,
    });
    let Some(mut table) = task_path else {
        site.err(
            errors,
            sp,
            format!(
                "`derived` on `{}` checks its `reads:` / `writes:` against the table \
                 `#[derive_dataflow]` emits beside its task fn: give it `task: path::to::fn` \
                 (and the attribute on that fn), or drop `derived`",
                site.decl.name
            ),
        );
        return None;
    };
    let last = table.segments.last_mut()?;
    let task = last.ident.to_string();
    last.ident = crate::derive_dataflow::table_name(&last.ident);
    last.arguments = syn::PathArguments::None;
    Some(DerivedCheck {
        span: sp,
        table,
        task,
        listed: accesses
            .iter()
            .map(|a| {
                (
                    crate::derive_dataflow::relative_key(&a.path),
                    a.span,
                    a.write,
                )
            })
            .collect(),
    })
}

/// One entry: no attribute, known markers, each once, `shared` on writes only.
fn entry(site: &Site, e: &FlowEntry, write: bool, errors: &mut Errors) -> Access {
    let span = first_span(&e.path);
    let key = key_of(&e.path);
    if let Some(a) = e.attrs.first() {
        site.err(
            errors,
            a.pound_token.span,
            "an attribute on a `reads:` / `writes:` entry: gate the whole item instead \
             (the dataflow checks see every entry of the graph)",
        );
    }
    let (mut shared, mut ext) = (None, None);
    for m in &e.markers {
        let slot = match m.to_string().as_str() {
            "shared" if write => &mut shared,
            "shared" => {
                site.err(
                    errors,
                    m.span(),
                    format!(
                        "`shared` marks a write (several nodes write the signal); any number \
                         of nodes may read `{key}` without it: drop the marker"
                    ),
                );
                continue;
            }
            "extern" => &mut ext,
            other => {
                site.err(
                    errors,
                    m.span(),
                    format!(
                        "unknown marker `{other}` after `{key}`: expected `shared` (on a \
                         write: other nodes write it too) or `extern` (the other side is \
                         outside the graph)"
                    ),
                );
                continue;
            }
        };
        if slot.is_some() {
            site.err(
                errors,
                m.span(),
                format!("`{m}` given twice on `{key}`: give each marker once"),
            );
        }
        *slot = Some(m.span());
    }
    Access {
        unit: site.decl.name.clone(),
        first_slot: site.first_slot,
        members: if site.is_pool {
            site.decl.modes.len().max(1)
        } else {
            1
        },
        cfg: site.cfg.clone(),
        origin: site.origin.clone(),
        key,
        path: e.path.clone(),
        write,
        shared,
        ext,
        span,
    }
}

/// A signal's identity in the macro: its path without spaces, a fragment's
/// `$crate::` read as `crate::` (a fragment composed in its own crate names
/// the same static as the compose site's `crate::` path).
fn key_of(path: &syn::Path) -> String {
    let key = path.to_token_stream().to_string().replace(' ', "");
    match key.strip_prefix("$crate::") {
        Some(rest) => format!("crate::{rest}"),
        None => key,
    }
}

/// `ready_on_write` needs `readiness` and something the node writes.
fn check_ready_on_write(site: &Site, c: &Clauses, readiness: bool, errors: &mut Errors) -> bool {
    let Some(sp) = c.ready_on_write else {
        return false;
    };
    if c.writes.is_none_or(|(_, w)| w.is_empty()) {
        site.err(
            errors,
            sp,
            format!(
                "`ready_on_write` on `{}` without a `writes:` entry: it marks the node ready \
                 at its first write through it (`node.publish(&SIGNAL, value)`); declare what \
                 it writes, or drop the clause",
                site.decl.name
            ),
        );
        return false;
    }
    if !readiness {
        site.err(
            errors,
            sp,
            "`ready_on_write` needs the `readiness` feature of embassy-supervisor (it sets \
             the node's ready flag): enable it, or drop the clause",
        );
        return false;
    }
    true
}

/// The graph-wide rules over every entry, and the flow table they leave.
///
/// Pinned by: `dataflow/two_writers`, `dataflow_pool/pool_writer_not_shared`,
/// `dataflow/shared_single_writer`,
/// `dataflow/read_without_writer`, `dataflow/written_without_reader`,
/// `dataflow/extern_with_writer`, `dataflow/extern_with_reader`,
/// `dataflow/two_spellings`.
pub(super) fn check_graph(accesses: &[Access], errors: &mut Errors) -> Vec<Flow> {
    let mut signals: Vec<(&str, Vec<&Access>)> = Vec::new();
    for a in accesses {
        match signals.iter_mut().find(|(k, _)| *k == a.key) {
            Some((_, list)) => list.push(a),
            None => signals.push((&a.key, vec![a])),
        }
    }
    let misspelt = check_spellings(&signals, errors);
    signals
        .iter()
        .map(|(key, list)| {
            let (writers, readers): (Vec<&Access>, Vec<&Access>) =
                list.iter().partition(|a| a.write);
            check_writers(key, &writers, errors);
            // Two spellings split one signal's sides: said once, above.
            if !misspelt.contains(&short(key)) {
                check_sides(key, &writers, &readers, errors);
            }
            flow(key, &list[0].path, &writers, &readers)
        })
        .collect()
}

/// Two paths ending in the same name are one signal spelled two ways, or
/// two signals the pictures could not tell apart: either way, refused.
/// Returns the names spelt more than one way.
fn check_spellings<'k>(signals: &[(&'k str, Vec<&Access>)], errors: &mut Errors) -> Vec<&'k str> {
    let mut by_name: HashMap<&str, &str> = HashMap::new();
    let mut misspelt = Vec::new();
    for (key, list) in signals {
        let name = short(key);
        match by_name.get(name) {
            None => {
                by_name.insert(name, key);
            }
            Some(first) => {
                misspelt.push(name);
                errors.push(
                    list[0].span,
                    &list[0].origin,
                    format!(
                        "`{key}` and `{first}` end in the same name: spell a signal the same \
                         way everywhere in the graph (the macro compares paths, not \
                         addresses); if they are two statics, rename one"
                    ),
                );
            }
        }
    }
    misspelt
}

/// A path's last segment.
fn short(key: &str) -> &str {
    key.rsplit("::").next().unwrap_or(key)
}

/// One writing node, or every writer's entry `shared`; `shared` on a sole
/// writer says something the graph does not have. A pool of K members is K
/// writers (its members run at once), so a pool's write needs `shared`
/// unless the pool has one member.
fn check_writers(key: &str, writers: &[&Access], errors: &mut Errors) {
    let nodes: usize = writers.iter().map(|w| w.members).sum();
    if nodes == 1 {
        let only = writers[0];
        if let Some(sp) = only.shared {
            errors.push(
                sp,
                &only.origin,
                format!(
                    "`shared` on `{key}`, but `{}` is its only writer in the graph: drop the \
                     marker",
                    only.unit
                ),
            );
        }
        return;
    }
    let all: Vec<String> = writers
        .iter()
        .map(|w| match w.members {
            1 => format!("`{}`", w.unit),
            k => format!("pool `{}` ({k} members)", w.unit),
        })
        .collect();
    for w in writers.iter().filter(|w| w.shared.is_none()) {
        errors.push(
            w.span,
            &w.origin,
            format!(
                "`{key}` has several writers ({}): if that is meant, mark each writer's \
                 entry `shared` (`writes: [{key} shared]`); otherwise remove the extra write",
                all.join(", ")
            ),
        );
    }
}

/// Both sides in the graph, or the missing one marked `extern` on some
/// entry (one `extern` says it for the signal); `extern` where the graph
/// has that side is a contradiction.
fn check_sides(key: &str, writers: &[&Access], readers: &[&Access], errors: &mut Errors) {
    let outside = |side: &[&Access]| side.iter().any(|a| a.ext.is_some());
    if writers.is_empty() && !outside(readers) {
        for r in readers {
            errors.push(
                r.span,
                &r.origin,
                format!(
                    "`{key}` is read by `{}` but written by no node of the graph: add it to \
                     its writer's `writes:`, or mark the read `extern` if code outside the \
                     graph writes it (an interrupt handler, a driver callback)",
                    r.unit
                ),
            );
        }
    }
    if readers.is_empty() && !outside(writers) {
        for w in writers {
            errors.push(
                w.span,
                &w.origin,
                format!(
                    "`{key}` is written by `{}` but read by no node of the graph: add it to \
                     its reader's `reads:`, or mark the write `extern` if code outside the \
                     graph reads it (a logger, a host link)",
                    w.unit
                ),
            );
        }
    }
    contradicting_extern(key, readers, writers.first(), "writes", errors);
    contradicting_extern(key, writers, readers.first(), "reads", errors);
}

/// `extern` on an entry whose other side (`other`'s verb) is in the graph.
fn contradicting_extern(
    key: &str,
    entries: &[&Access],
    other: Option<&&Access>,
    verb: &str,
    errors: &mut Errors,
) {
    let Some(other) = other else { return };
    for a in entries {
        if let Some(sp) = a.ext {
            errors.push(
                sp,
                &a.origin,
                format!(
                    "`extern` on `{key}`, but `{}` {verb} it in the graph: drop the marker",
                    other.unit
                ),
            );
        }
    }
}

fn flow(key: &str, path: &syn::Path, writers: &[&Access], readers: &[&Access]) -> Flow {
    let slots = |side: &[&Access]| -> Vec<usize> {
        side.iter()
            .flat_map(|a| a.first_slot..a.first_slot + a.members)
            .collect()
    };
    Flow {
        name: key.to_string(),
        path: path.clone(),
        writers: slots(writers),
        readers: slots(readers),
        written_outside: readers.iter().any(|r| r.ext.is_some()),
        read_outside: writers.iter().any(|w| w.ext.is_some()),
        sites: writers
            .iter()
            .chain(readers)
            .map(|a| a.cfg.clone())
            .collect(),
    }
}
