//! `deps: [..]`: names to slots (a dep on a cfg'd-out item vanishes with
//! it), the `ready` marker, and the graph's dependency order (no cycles).

use std::collections::HashSet;

use proc_macro2::Span;

use super::clauses::Clauses;
use super::declare::Declared;
use super::{Errors, GraphWide, Site, cfg_of};
use crate::model::{DepRef, Unit};
use crate::parse::ClauseValue;

/// Each dep resolved to its target's (first) slot.
///
/// Pinned by: `unknown_dependency`, `fragment_unknown_dependency`,
/// `duplicate_dependency`, `duplicate_pool_dependency`,
/// `no_readiness/ready_without_feature`.
pub(super) fn resolve(
    site: &Site,
    c: &Clauses,
    declared: &Declared,
    readiness: bool,
    wide: &mut GraphWide,
    errors: &mut Errors,
) -> Vec<DepRef> {
    let mut deps = Vec::new();
    let mut seen_slots = HashSet::new();
    for dep in c.deps.unwrap_or_default() {
        let dcfg = cfg_of(&dep.attrs, errors, site.origin);
        if let Some(r) = &dep.ready {
            if !readiness {
                site.err(
                    errors,
                    r.span(),
                    "the `ready` dep marker needs the `readiness` feature of \
                     embassy-supervisor; enable it or drop the marker",
                );
            }
            wide.any_ready = true;
        }
        let Some(target) = declared.unit(&dep.name) else {
            site.err(
                errors,
                dep.name.span(),
                format!(
                    "unknown dependency `{}`: not a node or pool of this graph; declare \
                     it or fix the name",
                    dep.name
                ),
            );
            continue;
        };
        if !seen_slots.insert(target.first_slot) {
            site.err(
                errors,
                dep.name.span(),
                format!(
                    "duplicate dependency `{}` (same slot as an earlier dep of \
                     `{}`): list each dependency once",
                    dep.name, site.decl.name
                ),
            );
            continue;
        }
        // A dep on a cfg'd-out node must vanish with it, or the dependent
        // would wait forever on a missing slot.
        deps.push(DepRef {
            slot: target.first_slot,
            cfg: dcfg.and(&target.cfg),
            ready: dep.ready.is_some(),
        });
    }
    deps
}

/// The unit-level graph is acyclic; the first cycle found is reported with
/// its path. A pool's members share their deps, so a cycle through any
/// member is a cycle through the pool. Runs only on an otherwise valid
/// graph (every dep resolved), so deps and their spans line up.
///
/// Pinned by: `dependency_cycle`, `self_dependency`.
pub(super) fn check_cycles(sites: &[Site], units: &[Unit], errors: &mut Errors) {
    let edges = unit_edges(sites, units);
    // 0 = unvisited, 1 = on stack, 2 = done. Iterative DFS: a 256-deep chain
    // must not recurse in the compiler's stack.
    let mut state = vec![0u8; units.len()];
    for root in 0..units.len() {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if *next < edges[u].len() {
                let (v, sp) = edges[u][*next];
                *next += 1;
                if state[v] == 1 {
                    let pos = stack.iter().position(|(x, _)| *x == v).unwrap_or(0);
                    let mut names: Vec<String> = stack[pos..]
                        .iter()
                        .map(|(x, _)| units[*x].name.to_string())
                        .collect();
                    names.push(units[v].name.to_string());
                    errors.push(
                        sp,
                        sites[u].origin,
                        format!(
                            "dependency cycle: {} (each depends on the next); remove one of \
                             these deps",
                            names.join(" -> ")
                        ),
                    );
                    return;
                }
                if state[v] == 0 {
                    state[v] = 1;
                    stack.push((v, 0));
                }
            } else {
                state[u] = 2;
                stack.pop();
            }
        }
    }
}

/// Per unit: the units it depends on, with each dep's span in the source.
fn unit_edges(sites: &[Site], units: &[Unit]) -> Vec<Vec<(usize, Span)>> {
    let unit_of_slot = |s: usize| sites.iter().position(|site| site.first_slot == s);
    sites
        .iter()
        .zip(units)
        .map(|(site, u)| {
            let spans: Vec<Span> = site
                .decl
                .clauses
                .iter()
                .find_map(|c| match &c.value {
                    ClauseValue::Deps(v) => Some(v.iter().map(|d| d.name.span()).collect()),
                    _ => None,
                })
                .unwrap_or_default();
            u.deps
                .iter()
                .zip(spans)
                .filter_map(|(dr, sp)| unit_of_slot(dr.slot).map(|j| (j, sp)))
                .collect()
        })
        .collect()
}
