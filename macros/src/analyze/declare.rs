//! Pass 1, declare: every item gets its cfg, its name and (for nodes and
//! pools) its slots, before any clause is read, so a clause may name an item
//! declared after it.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use proc_macro2::Span;
use syn::Ident;

use super::{Errors, Site, cfg_of};
use crate::model::{Cfg, Executor, MAX_SLOTS};
use crate::parse::{Decl, Input, ItemKind};

/// What a graph-level name refers to.
pub(super) enum Target {
    /// A node or pool: its index in [`Declared::sites`].
    Unit(usize),
    Executor,
}

/// The graph's items, named and placed.
pub(super) struct Declared<'a> {
    pub names: HashMap<String, (Target, Span)>,
    pub executors: Vec<Executor>,
    pub sites: Vec<Site<'a>>,
    /// Slots in the whole graph (a pool takes one per member).
    pub slots: usize,
    /// `default executor NAME;`, if the graph has one.
    pub default_executor: Option<Ident>,
    /// `restart_budget R in T;`, if the graph has one (checked).
    pub default_budget: Option<(u16, u32)>,
}

impl Declared<'_> {
    /// The node or pool `name` refers to.
    pub fn unit(&self, name: &Ident) -> Option<&Site<'_>> {
        match self.names.get(&name.to_string()) {
            Some((Target::Unit(i), _)) => Some(&self.sites[*i]),
            _ => None,
        }
    }
}

/// Names, slots and the item-level preconditions, item by item.
///
/// Pinned by: `duplicate_name`, `fragment_duplicate_name`, `too_many_slots`,
/// `non_cfg_attribute`, `no_pool/pool_without_feature`.
pub(super) fn declare<'a>(input: &'a Input, errors: &mut Errors) -> Declared<'a> {
    let mut d = Declared {
        names: HashMap::new(),
        executors: Vec::new(),
        sites: Vec::new(),
        slots: 0,
        default_executor: None,
        default_budget: None,
    };
    let mut first_origins: HashMap<String, Option<String>> = HashMap::new();
    let mut seen_pool = false;
    let mut slot_cap_reported = false;
    let mut pools = 0usize;
    for item in &input.items {
        let origin = &item.origin;
        let cfg = cfg_of(&item.attrs, errors, origin);
        let (name, target) = match &item.kind {
            ItemKind::Executor(n) => {
                d.executors.push(Executor {
                    name: n.clone(),
                    cfg,
                });
                (n, Target::Executor)
            }
            ItemKind::DefaultExecutor(kw, n) => {
                set_default_executor(&mut d, kw, n, &cfg, origin, errors);
                d.executors.push(Executor {
                    name: n.clone(),
                    cfg,
                });
                (n, Target::Executor)
            }
            ItemKind::RestartBudget(kw, r, t) => {
                super::restarts::graph_budget(&mut d, kw, (r, t), &cfg, origin, errors);
                continue;
            }
            ItemKind::Node(decl) | ItemKind::Pool(decl) => {
                let is_pool = matches!(item.kind, ItemKind::Pool(_));
                if is_pool && !seen_pool {
                    seen_pool = true;
                    check_pool_feature(decl, origin, errors);
                }
                let first_slot = d.slots;
                d.slots += if is_pool { decl.modes.len().max(1) } else { 1 };
                if d.slots > MAX_SLOTS && !slot_cap_reported {
                    slot_cap_reported = true;
                    report_slot_cap(decl, origin, errors);
                }
                let pool_index = if is_pool {
                    pools += 1;
                    pools - 1
                } else {
                    0
                };
                d.sites.push(Site {
                    decl,
                    cfg,
                    origin,
                    is_pool,
                    pool_index,
                    first_slot,
                });
                (&decl.name, Target::Unit(d.sites.len() - 1))
            }
        };
        register_name(
            &mut d.names,
            &mut first_origins,
            name,
            target,
            origin,
            errors,
        );
    }
    d
}

/// One per graph, at the graph site, unconditional: which executor a node
/// runs on must not depend on which fragments or features are in.
///
/// Pinned by: `default_executor_twice`, `default_executor_in_fragment`,
/// `default_executor_under_cfg`.
fn set_default_executor(
    d: &mut Declared,
    kw: &Ident,
    name: &Ident,
    cfg: &Cfg,
    origin: &Option<String>,
    errors: &mut Errors,
) {
    let problem = if let Some(first) = &d.default_executor {
        format!(
            "a second `default executor` (the first is `{first}`): a graph has one; route \
             other nodes with `executor: {name}`"
        )
    } else if origin.is_some() {
        "`default executor` in a fragment: the composed graph chooses its default; declare \
         it in the `compose_graph!` `graph:` block"
            .to_string()
    } else if !cfg.is_always() {
        format!(
            "`default executor` under `#[cfg]`: the default must not depend on features; \
             declare `executor {name};` under the cfg and route nodes with `executor: {name}`"
        )
    } else {
        d.default_executor = Some(name.clone());
        return;
    };
    errors.push(kw.span(), origin, problem);
}

/// Pinned by: `no_pool/pool_without_feature`.
fn check_pool_feature(decl: &Decl, origin: &Option<String>, errors: &mut Errors) {
    if !crate::pool_feature() {
        errors.push(
            decl.keyword.span(),
            origin,
            "a `pool` item needs the `pool` feature of embassy-supervisor (on by \
             default): enable it, or declare the members as `node`s",
        );
    }
}

/// Pinned by: `too_many_slots`.
fn report_slot_cap(decl: &Decl, origin: &Option<String>, errors: &mut Errors) {
    errors.push(
        decl.name.span(),
        origin,
        format!(
            "`{}` takes the graph past {MAX_SLOTS} slots (graph indices are \
             u8; pool members count one slot each): split the graph with \
             `name:` or shrink a pool",
            decl.name
        ),
    );
}

/// Node, pool and executor names share one namespace (they are statics).
///
/// Pinned by: `duplicate_name`, `fragment_duplicate_name`.
fn register_name(
    names: &mut HashMap<String, (Target, Span)>,
    first_origins: &mut HashMap<String, Option<String>>,
    name: &Ident,
    target: Target,
    origin: &Option<String>,
    errors: &mut Errors,
) {
    let key = name.to_string();
    if let Entry::Vacant(v) = names.entry(key.clone()) {
        first_origins.insert(key, origin.clone());
        v.insert((target, name.span()));
        return;
    }
    let where_first = match first_origins.get(&key).cloned().flatten() {
        Some(f) => format!(" (first declared in fragment `{f}`)"),
        None => String::new(),
    };
    errors.push(
        name.span(),
        origin,
        format!(
            "duplicate name `{key}`{where_first}: node, pool and executor names are \
             statics and must be unique in the graph; rename one of them"
        ),
    );
}
