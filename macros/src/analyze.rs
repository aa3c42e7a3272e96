//! Every validation rule of the DSL, each in one place, producing the checked
//! model `codegen` emits from. Errors are spanned at the offending user token
//! and say how to fix it; all of them are collected, not just the first.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, ExprClosure, ExprPath, Ident, LitInt, Type};

use crate::parse::{ClauseValue, Decl, Input, ItemKind};

/// The most slots a graph can hold: indices are `u8`.
pub const MAX_SLOTS: usize = 256;

pub struct Model {
    pub graph: Ident,
    pub suffix: String,
    pub executors: Vec<Executor>,
    pub units: Vec<Unit>,
    pub slots: usize,
    pub take_slots: Vec<TakeSlot>,
    pub shared_slots: Vec<SharedSlot>,
    pub any_ready: bool,
    /// The first `local` marker, if any entry is `local`: the graph emits
    /// its local slot type once, its `unsafe` spanned on this user token so
    /// the user's `unsafe_code` lints judge it as their own code.
    pub any_local: Option<Span>,
    /// The first `state:` keyword, if any node or pool has one: the graph
    /// emits its fallible-boxing helper once, its `unsafe` spanned here.
    pub any_state: Option<Span>,
}

pub struct Executor {
    pub name: Ident,
    pub cfg: Cfg,
}

/// The cfg predicates guarding something (all must hold); empty = always.
#[derive(Clone, Default)]
pub struct Cfg(pub Vec<TokenStream>);

impl Cfg {
    pub fn is_always(&self) -> bool {
        self.0.is_empty()
    }
    pub fn and(&self, other: &Cfg) -> Cfg {
        let mut v = self.0.clone();
        v.extend(other.0.iter().cloned());
        Cfg(v)
    }
    /// The single predicate `all(..)`.
    pub fn predicate(&self) -> TokenStream {
        let p = &self.0;
        quote!(all(#(#p),*))
    }
    /// `#[cfg(..)]`, or nothing when unconditional.
    pub fn attr(&self) -> TokenStream {
        if self.is_always() {
            TokenStream::new()
        } else {
            let p = self.predicate();
            quote!(#[cfg(#p)])
        }
    }
}

pub struct Unit {
    pub name: Ident,
    pub cfg: Cfg,
    pub modes: Vec<Ident>,
    pub first_slot: usize,
    pub pool: Option<PoolInfo>,
    pub spawn: Spawn,
    pub pool_size: Option<Expr>,
    pub resources: Vec<Res>,
    pub exit: Option<(Span, Type)>,
    /// `state: Type = init` (`heap-state`), with the clause keyword's span.
    pub state: Option<(Span, Type, Expr)>,
    pub cancel: bool,
    pub slot_timeout: Option<LitInt>,
    pub executor: Option<Ident>,
    pub disabled: bool,
    pub deps: Vec<DepRef>,
}

pub struct PoolInfo {
    pub index_among_pools: usize,
    pub policy_ty: Type,
    pub policy: Expr,
    pub min: Expr,
    pub max: Expr,
}

#[allow(clippy::enum_variant_names)] // `Spawn::Spawn` mirrors the `spawn:` clause
pub enum Spawn {
    Parked,
    Spawn(Form),
    Task(Form),
}

pub enum Form {
    Path(ExprPath),
    Call(ExprPath, Vec<Expr>),
    Closure(ExprClosure),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Lend,
    Consume,
    Shared,
}

pub struct Res {
    pub name: Ident,
    pub kind: Kind,
    pub ty: Type,
    pub cfg: Cfg,
}

pub struct DepRef {
    pub slot: usize,
    pub cfg: Cfg,
    pub ready: bool,
}

/// One static per take-kind entry (an array of K for a pool).
pub struct TakeSlot {
    pub name: Ident,
    pub ty: Type,
    pub cfg: Cfg,
    pub members: Option<usize>,
    /// A `local` entry: the graph's local slot type, not `ResourceSlot`.
    pub local: bool,
}

/// One static per shared name; present if any declaring site is.
pub struct SharedSlot {
    pub name: Ident,
    pub ty: Type,
    pub sites: Vec<Cfg>,
    /// `shared local` (the shape check keeps every declaration alike).
    pub local: bool,
}

impl SharedSlot {
    pub fn attr(&self) -> TokenStream {
        if self.sites.iter().any(Cfg::is_always) {
            return TokenStream::new();
        }
        let preds = self.sites.iter().map(Cfg::predicate);
        quote!(#[cfg(any(#(#preds),*))])
    }
}

struct Errors {
    list: Vec<syn::Error>,
}

impl Errors {
    fn push(&mut self, span: Span, origin: &Option<String>, msg: impl Into<String>) {
        let mut msg = msg.into();
        if let Some(frag) = origin {
            msg.push_str(&format!(" (in fragment `{frag}`)"));
        }
        self.list.push(syn::Error::new(span, msg));
    }
}

fn cfg_of(attrs: &[Attribute], errors: &mut Errors, origin: &Option<String>) -> Cfg {
    let mut preds = Vec::new();
    for a in attrs {
        if !a.path().is_ident("cfg") {
            errors.push(
                a.path().span_start(),
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

trait SpanStart {
    fn span_start(&self) -> Span;
}
impl SpanStart for syn::Path {
    fn span_start(&self) -> Span {
        self.segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span())
    }
}

/// First span of any token tree, for errors on multi-token syntax.
pub fn first_span(t: &impl ToTokens) -> Span {
    t.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |tt| tt.span())
}

enum Target {
    Unit(usize),
    Executor,
}

pub fn analyze(input: Input, readiness: bool) -> syn::Result<Model> {
    let mut errors = Errors { list: Vec::new() };
    let graph = input
        .name
        .clone()
        .unwrap_or_else(|| Ident::new("GRAPH", Span::call_site()));
    let suffix = input.name.as_ref().map_or_else(String::new, |n| {
        format!("_{}", syn::ext::IdentExt::unraw(n))
    });

    // ---- pass 1: names, slots ------------------------------------------
    let mut names: HashMap<String, (Target, Span)> = HashMap::new();
    let mut first_origins: HashMap<String, Option<String>> = HashMap::new();
    let mut executors = Vec::new();
    let mut slot = 0usize;
    let mut pools = 0usize;
    let mut first_pool_keyword = None;
    let mut slot_cap_reported = false;
    let mut decls: Vec<(&Decl, Cfg, &Option<String>, bool, usize)> = Vec::new();
    for item in &input.items {
        let origin = &item.origin;
        let cfg = cfg_of(&item.attrs, &mut errors, origin);
        let (name, target) = match &item.kind {
            ItemKind::Executor(n) => {
                executors.push(Executor {
                    name: n.clone(),
                    cfg: cfg.clone(),
                });
                (n, Target::Executor)
            }
            ItemKind::Node(d) | ItemKind::Pool(d) => {
                let is_pool = matches!(item.kind, ItemKind::Pool(_));
                if is_pool && first_pool_keyword.is_none() {
                    first_pool_keyword = Some(d.keyword.span());
                    if !crate::pool_feature() {
                        errors.push(
                            d.keyword.span(),
                            origin,
                            "a `pool` item needs the `pool` feature of embassy-supervisor (on by \
                             default): enable it, or declare the members as `node`s",
                        );
                    }
                }
                slot += if is_pool { d.modes.len().max(1) } else { 1 };
                if slot > MAX_SLOTS && !slot_cap_reported {
                    slot_cap_reported = true;
                    errors.push(
                        d.name.span(),
                        origin,
                        format!(
                            "`{}` takes the graph past {MAX_SLOTS} slots (graph indices are \
                             u8; pool members count one slot each): split the graph with \
                             `name:` or shrink a pool",
                            d.name
                        ),
                    );
                }
                let pool_index = if is_pool {
                    pools += 1;
                    pools - 1
                } else {
                    0
                };
                decls.push((d, cfg.clone(), origin, is_pool, pool_index));
                (&d.name, Target::Unit(decls.len() - 1))
            }
        };
        let key = name.to_string();
        if let std::collections::hash_map::Entry::Vacant(v) = names.entry(key.clone()) {
            first_origins.insert(key, origin.clone());
            v.insert((target, name.span()));
        } else {
            let first_origin = first_origins.get(&key).cloned().flatten();
            let where_first = match first_origin {
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
    }
    let first_slots: Vec<usize> = {
        let mut s = 0;
        decls
            .iter()
            .map(|(d, _, _, is_pool, _)| {
                let f = s;
                s += if *is_pool { d.modes.len().max(1) } else { 1 };
                f
            })
            .collect()
    };

    // ---- pass 2: each declaration ---------------------------------------
    let mut units = Vec::new();
    let mut any_ready = false;
    let mut any_local = None;
    let mut any_state = None;
    let mut take_names: HashMap<String, Span> = HashMap::new();
    let mut shared: Vec<(SharedSlot, String, Span)> = Vec::new();
    let mut take_slots = Vec::new();
    for (ui, (d, cfg, origin, is_pool, pool_index)) in decls.iter().enumerate() {
        let origin = *origin;
        let what = if *is_pool { "pool" } else { "node" };
        // modes
        if *is_pool && d.modes.is_empty() {
            errors.push(
                d.mode_list.unwrap_or(d.name.span()),
                origin,
                "a pool needs at least one member: list one Mode per member, floor first \
                 (`[Terminate, OnDemand]`)",
            );
        }
        for m in &d.modes {
            if !matches!(m.to_string().as_str(), "Terminate" | "Pause" | "OnDemand") {
                errors.push(
                    m.span(),
                    origin,
                    format!("unknown mode `{m}`: expected `Terminate`, `Pause` or `OnDemand`"),
                );
            }
        }

        // clauses: duplicates, placement
        let mut seen: HashMap<String, Span> = HashMap::new();
        let mut deps_clause = None;
        let mut spawn_c = None;
        let mut task_c = None;
        let mut pool_size = None;
        let mut resources = None;
        let mut exit = None;
        let mut state = None;
        let mut cancel = None;
        let mut slot_timeout = None;
        let mut executor = None;
        let mut disabled = false;
        let mut policy = None;
        let mut min = None;
        let mut max = None;
        let mut order = Vec::new();
        for c in &d.clauses {
            let kw = c.keyword.to_string();
            if seen.insert(kw.clone(), c.keyword.span()).is_some() {
                errors.push(
                    c.keyword.span(),
                    origin,
                    format!(
                        "duplicate `{kw}` clause on `{}`: give each clause once",
                        d.name
                    ),
                );
                continue;
            }
            let node_only = matches!(kw.as_str(), "pool_size" | "exit" | "disabled");
            let pool_only = matches!(kw.as_str(), "policy" | "min" | "max");
            if *is_pool && node_only {
                let why = match kw.as_str() {
                    "pool_size" => "a pool's shell is sized to its member count",
                    "exit" => "members share one shell, so per-member exit values have no slot",
                    _ => "a pool's floor always starts; disable it with a control `Deactivate`",
                };
                errors.push(
                    c.keyword.span(),
                    origin,
                    format!("`{kw}:` is not a pool clause ({why}); remove it"),
                );
                continue;
            }
            if !*is_pool && pool_only {
                errors.push(
                    c.keyword.span(),
                    origin,
                    format!(
                        "`{kw}:` belongs on a `pool`, not on node `{}`; remove it",
                        d.name
                    ),
                );
                continue;
            }
            order.push((kw.clone(), c.keyword.span()));
            match &c.value {
                ClauseValue::Deps(v) => deps_clause = Some(v),
                ClauseValue::Spawn(e) => spawn_c = Some((c.keyword.span(), e)),
                ClauseValue::Task(e) => task_c = Some((c.keyword.span(), e)),
                ClauseValue::PoolSize(e) => pool_size = Some((c.keyword.span(), e)),
                ClauseValue::Resources(sp, v) => resources = Some((c.keyword.span(), *sp, v)),
                ClauseValue::Exit(t) => exit = Some((c.keyword.span(), t)),
                ClauseValue::State(t, e) => state = Some((c.keyword.span(), t, e)),
                ClauseValue::Cancel => cancel = Some(c.keyword.span()),
                ClauseValue::SlotTimeout(l) => slot_timeout = Some(l),
                ClauseValue::Executor(e) => executor = Some(e),
                ClauseValue::Disabled => disabled = true,
                ClauseValue::Policy(t, e) => policy = Some((c.keyword.span(), t, e)),
                ClauseValue::Min(e) => min = Some((c.keyword.span(), e)),
                ClauseValue::Max(e) => max = Some((c.keyword.span(), e)),
            }
        }

        if *is_pool {
            check_pool_order(&order, d, origin, &mut errors);
        } else if order.first().is_none_or(|(k, _)| k != "deps") {
            errors.push(
                order.first().map_or(d.name.span(), |(_, s)| *s),
                origin,
                format!(
                    "`{what} {}` must start its clauses with `deps: [..]` (use `deps: []` for none)",
                    d.name
                ),
            );
        }

        // spawn forms
        let spawn = match (spawn_c, task_c) {
            (Some(_), Some((tsp, _))) => {
                errors.push(
                    tsp,
                    origin,
                    format!(
                        "`task:` and `spawn:` on the same {what}: they are mutually exclusive; \
                         keep `task:` for a plain worker fn or `spawn:` for an \
                         `#[embassy_executor::task]` fn"
                    ),
                );
                Spawn::Parked
            }
            (Some((_, e)), None) => match classify(e) {
                Some(Form::Closure(c)) if *is_pool => {
                    errors.push(
                        first_span(&c),
                        origin,
                        "a closure spawn is for nodes only: a pool spawns each member through \
                         the same fn; name a task fn (`spawn: my_task`)",
                    );
                    Spawn::Parked
                }
                Some(f) => Spawn::Spawn(f),
                None => {
                    errors.push(
                        first_span(e),
                        origin,
                        "malformed `spawn:`: expected a task fn path (`my_task`), a partial call \
                         (`my_task(arg)`, the node is passed first) or a closure \
                         (`|s: Spawner| { .. }`)",
                    );
                    Spawn::Parked
                }
            },
            (None, Some((_, e))) => match classify(e) {
                Some(Form::Closure(c)) => {
                    errors.push(
                        first_span(&c),
                        origin,
                        "a closure in `task:`: the generated shell needs a worker fn it can \
                         name; write `task: my_worker` or use `spawn:` for a closure",
                    );
                    Spawn::Parked
                }
                Some(f) => Spawn::Task(f),
                None => {
                    errors.push(
                        first_span(e),
                        origin,
                        "malformed `task:`: expected a worker fn path (`my_worker`, \
                         `my_worker::<T>`) or a partial call (`my_worker(arg)`)",
                    );
                    Spawn::Parked
                }
            },
            (None, None) => Spawn::Parked,
        };
        let is_task = matches!(spawn, Spawn::Task(_));
        let has_task_clause = task_c.is_some();

        if let Some((sp, e)) = pool_size {
            if !has_task_clause {
                errors.push(
                    sp,
                    origin,
                    "`pool_size:` without `task:`: it sizes the generated shell's TaskPool; a \
                     hand-written task fn declares its own `pool_size` in its attribute",
                );
            } else if lit_value(e) == Some(0) {
                errors.push(
                    first_span(e),
                    origin,
                    "`pool_size: 0` would leave no task storage at all: use 1 or more",
                );
            }
        }

        // executor
        if let Some(e) = executor {
            match names.get(&e.to_string()) {
                Some((Target::Executor, _)) => {}
                _ => errors.push(
                    e.span(),
                    origin,
                    format!(
                        "unknown executor `{e}`: declare it with `executor {e};` in this graph"
                    ),
                ),
            }
            match &spawn {
                Spawn::Spawn(Form::Closure(c)) => errors.push(
                    first_span(c),
                    origin,
                    "`executor:` with a closure spawn: the closure owns the spawn, so route it \
                     through the slot inside the closure, or name a task fn with `spawn:`",
                ),
                Spawn::Parked if spawn_c.is_none() && task_c.is_none() => errors.push(
                    e.span(),
                    origin,
                    format!(
                        "`executor:` on parked `{}`: the application spawns a parked node itself; \
                         add `task:` or `spawn:`, or drop `executor:`",
                        d.name
                    ),
                ),
                _ => {}
            }
        }

        // slot_timeout
        if let Some(l) = slot_timeout {
            match l.base10_parse::<u16>() {
                Ok(0) => errors.push(
                    l.span(),
                    origin,
                    "`slot_timeout: 0` would fail every gated spawn instantly: give the wait in \
                     milliseconds (default 100)",
                ),
                Ok(_) => {}
                Err(_) => errors.push(
                    l.span(),
                    origin,
                    "`slot_timeout:` is in milliseconds and must fit a u16 (1..=65535)",
                ),
            }
        }

        // cancel
        if let Some(sp) = cancel {
            if !has_task_clause {
                errors.push(
                    sp,
                    origin,
                    "`cancel` without `task:`: the flag changes how the generated shell calls \
                     the worker; a `spawn:` task fn can call `node.run_cancellable(..)` itself",
                );
            }
            if let Some(m) = d.modes.iter().find(|m| *m == "Pause") {
                errors.push(
                    m.span(),
                    origin,
                    "`cancel` with `Pause`: a Pause worker must survive the stop and park on \
                     `wait_resume()`, but `cancel` drops it and records an exit; use \
                     `Terminate`/`OnDemand`, or drive the pause by hand",
                );
            }
        }

        // exit
        if let Some((sp, _)) = exit.filter(|_| !has_task_clause) {
            errors.push(
                sp,
                origin,
                "`exit:` without `task:`: the generated shell captures the worker's return \
                 value; a `spawn:` task fn can `provide()` into its own slot",
            );
        }

        // state
        if let Some((sp, _, _)) = state {
            if !crate::heap_state() {
                errors.push(
                    sp,
                    origin,
                    "`state:` needs the `heap-state` feature of embassy-supervisor (it emits a \
                     fallible-boxing `unsafe` helper into your crate and needs a global \
                     allocator): enable the feature, or provide a `consume Box<T>` resource",
                );
            } else if !has_task_clause {
                errors.push(
                    sp,
                    origin,
                    "`state:` without `task:`: the generated shell lends the boxed state to the \
                     worker and frees it on exit; a `spawn:` task fn keeps its own state",
                );
            } else if any_state.is_none() {
                any_state = Some(sp);
            }
        }

        // resources
        let mut res_models = Vec::new();
        if let Some((sp, bracket, list)) = resources {
            if !has_task_clause {
                let msg = if *is_pool {
                    "pool `resources:` without `task:`: the generated shell receives the values \
                     (and restores lend entries); a `spawn:` task fn manages its own arguments"
                } else {
                    "`resources:` without `task:`: resources are taken and restored by the \
                     generated shell; a hand-written `spawn:` fn manages its own arguments"
                };
                errors.push(sp, origin, msg);
            }
            if list.is_empty() {
                errors.push(
                    bracket,
                    origin,
                    "empty `resources:` list: name at least one `NAME: Type`, or drop the clause",
                );
            }
            let mut local_names = HashMap::new();
            for r in list {
                let rcfg = cfg_of(&r.attrs, &mut errors, origin);
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
                        errors.push(
                            m.span(),
                            origin,
                            format!("repeated kind marker `{m}` on `{}`: give it once", r.name),
                        );
                    }
                    *slot = Some(m.span());
                }
                if let (Some(_), Some(c)) = (shared_m, consume) {
                    errors.push(
                        c,
                        origin,
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
                if let Some(l) = local {
                    if *is_pool && kind != Kind::Shared {
                        errors.push(
                            l,
                            origin,
                            format!(
                                "take-kind `local` on pool `{}`: per-member local slots are not \
                                 supported; use `shared local` or a non-local entry",
                                d.name
                            ),
                        );
                    } else if let Some(e) = executor {
                        errors.push(
                            l,
                            origin,
                            format!(
                                "`local` resource `{}` with `executor: {e}`: a local slot \
                                 carries !Send values, a SpawnerSlot-routed spawn needs a Send \
                                 future; drop one of them",
                                r.name
                            ),
                        );
                    } else if !crate::local_resources() {
                        errors.push(
                            l,
                            origin,
                            "`local` needs the `local-resources` feature of embassy-supervisor \
                             (the kind emits a documented `unsafe impl Sync` into your crate, so \
                             it is opt-in): enable the feature, or use a Send type with the \
                             default, `consume` or `shared` kind",
                        );
                    }
                }
                let is_local = local.is_some();
                if any_local.is_none() {
                    any_local = local;
                }
                let key = r.name.to_string();
                if local_names.insert(key.clone(), r.name.span()).is_some() {
                    errors.push(
                        r.name.span(),
                        origin,
                        format!(
                            "duplicate resource name `{key}` on `{}`: list it once",
                            d.name
                        ),
                    );
                    continue;
                }
                let full_cfg = cfg.and(&rcfg);
                if let Some((_, Target::Unit(_) | Target::Executor)) =
                    names.get(&key).map(|(t, s)| (s, t))
                {
                    errors.push(
                        r.name.span(),
                        origin,
                        format!(
                            "resource `{key}` has the name of a node, pool or executor: slot \
                             names are statics, rename it"
                        ),
                    );
                } else if kind == Kind::Shared {
                    let shape = shape_of(&r.markers, &r.ty);
                    if take_names.contains_key(&key) {
                        errors.push(
                            r.name.span(),
                            origin,
                            format!(
                                "duplicate resource name `{key}`: it is already a take-kind slot \
                                 elsewhere in the graph; only `shared` entries may repeat a name"
                            ),
                        );
                    } else if let Some((s, sh, _)) =
                        shared.iter_mut().find(|(s, _, _)| s.name == key)
                    {
                        if *sh != shape {
                            errors.push(
                                r.name.span(),
                                origin,
                                format!(
                                    "shared slot `{key}` re-declared with a different shape: \
                                     every declaration is the same static and must repeat \
                                     `{sh}` verbatim"
                                ),
                            );
                        } else {
                            s.sites.push(full_cfg.clone());
                        }
                    } else {
                        shared.push((
                            SharedSlot {
                                name: r.name.clone(),
                                ty: r.ty.clone(),
                                sites: vec![full_cfg.clone()],
                                local: is_local,
                            },
                            shape,
                            r.name.span(),
                        ));
                    }
                } else if take_names.contains_key(&key)
                    || shared.iter().any(|(s, _, _)| s.name == key)
                {
                    errors.push(
                        r.name.span(),
                        origin,
                        format!(
                            "duplicate resource name `{key}`: take-kind slot names are statics, \
                             unique across the whole graph (only `shared` entries repeat); \
                             rename one"
                        ),
                    );
                } else {
                    take_names.insert(key, r.name.span());
                    take_slots.push(TakeSlot {
                        name: r.name.clone(),
                        ty: r.ty.clone(),
                        cfg: full_cfg,
                        members: is_pool.then_some(d.modes.len()),
                        local: is_local,
                    });
                }
                res_models.push(Res {
                    name: r.name.clone(),
                    kind,
                    ty: r.ty.clone(),
                    cfg: rcfg,
                });
            }
        }

        // pool fields
        let pool = if *is_pool {
            let k = d.modes.len();
            let mut bad = false;
            for (f, v) in [
                ("policy", policy.is_some()),
                ("min", min.is_some()),
                ("max", max.is_some()),
            ] {
                if !v {
                    bad = true;
                    errors.push(
                        d.name.span(),
                        origin,
                        format!(
                            "pool `{}` is missing `{f}:` (a pool always names its `policy:`, \
                             `min:` and `max:`)",
                            d.name
                        ),
                    );
                }
            }
            let policy_ty = policy.and_then(|(sp, t, e)| match t {
                Some(t) => Some(t.clone()),
                None => match policy_type(e) {
                    Some(t) => Some(t),
                    None => {
                        errors.push(
                            sp,
                            origin,
                            "cannot read the policy type off this expression: annotate it, \
                             `policy: MyPolicy = make_policy()`",
                        );
                        None
                    }
                },
            });
            let (minv, maxv) = (
                min.and_then(|m| lit_value(m.1)),
                max.and_then(|m| lit_value(m.1)),
            );
            for (which, v) in [(min, minv), (max, maxv)] {
                if let (Some((_, e)), Some(256..)) = (which, v) {
                    errors.push(first_span(e), origin, "pool bounds must fit u8 (0..=255)");
                }
            }
            let inverted = maxv.filter(|&mx| minv.is_some_and(|mn| mn > mx));
            if let (Some(mn), Some(mx), Some((_, me))) = (minv, inverted, min) {
                errors.push(
                    first_span(me),
                    origin,
                    format!("pool bounds: `min: {mn}` is above `max: {mx}`; need min <= max"),
                );
            }
            if let (Some(mx), Some((_, xe))) = (maxv.filter(|&mx| mx as usize > k), max) {
                errors.push(
                    first_span(xe),
                    origin,
                    format!(
                        "pool bounds: `max: {mx}` exceeds the {k} member(s) declared; list one \
                         Mode per member or lower `max:`"
                    ),
                );
            }
            if bad {
                None
            } else {
                match (policy_ty, policy, min, max) {
                    (Some(pt), Some((_, _, pe)), Some((_, mn)), Some((_, mx))) => Some(PoolInfo {
                        index_among_pools: *pool_index,
                        policy_ty: pt,
                        policy: pe.clone(),
                        min: mn.clone(),
                        max: mx.clone(),
                    }),
                    _ => None,
                }
            }
        } else {
            None
        };

        // deps
        let mut deps = Vec::new();
        if let Some(list) = deps_clause {
            let mut seen_slots: HashMap<usize, ()> = HashMap::new();
            for dep in list {
                let dcfg = cfg_of(&dep.attrs, &mut errors, origin);
                if let Some(r) = &dep.ready {
                    if !readiness {
                        errors.push(
                            r.span(),
                            origin,
                            "the `ready` dep marker needs the `readiness` feature of \
                             embassy-supervisor; enable it or drop the marker",
                        );
                    }
                    any_ready = true;
                }
                match names.get(&dep.name.to_string()) {
                    Some((Target::Unit(j), _)) => {
                        let target_slot = first_slots[*j];
                        if seen_slots.insert(target_slot, ()).is_some() {
                            errors.push(
                                dep.name.span(),
                                origin,
                                format!(
                                    "duplicate dependency `{}` (same slot as an earlier dep of \
                                     `{}`): list each dependency once",
                                    dep.name, d.name
                                ),
                            );
                            continue;
                        }
                        // A dep on a cfg'd-out node must vanish with it, or the
                        // dependent would wait forever on a missing slot.
                        let target_cfg = &decls[*j].1;
                        deps.push(DepRef {
                            slot: target_slot,
                            cfg: dcfg.and(target_cfg),
                            ready: dep.ready.is_some(),
                        });
                    }
                    _ => errors.push(
                        dep.name.span(),
                        origin,
                        format!(
                            "unknown dependency `{}`: not a node or pool of this graph; declare \
                             it or fix the name",
                            dep.name
                        ),
                    ),
                }
            }
        }

        units.push(Unit {
            name: d.name.clone(),
            cfg: cfg.clone(),
            modes: d.modes.clone(),
            first_slot: first_slots[ui],
            pool,
            spawn,
            pool_size: pool_size.map(|p| p.1.clone()),
            resources: res_models,
            exit: exit.map(|(s, t)| (s, t.clone())),
            state: state.map(|(s, t, e)| (s, t.clone(), e.clone())),
            cancel: cancel.is_some(),
            slot_timeout: slot_timeout.cloned(),
            executor: executor.cloned(),
            disabled,
            deps,
        });
        let _ = is_task;
    }

    // ---- cycles ---------------------------------------------------------
    if errors.list.is_empty() {
        check_cycles(&decls, &units, &first_slots, &mut errors);
    }

    if let Some(first) = errors.list.first().cloned() {
        let mut all = first;
        for e in errors.list.into_iter().skip(1) {
            all.combine(e);
        }
        return Err(all);
    }
    Ok(Model {
        graph,
        suffix,
        executors,
        units,
        slots: slot,
        take_slots,
        shared_slots: shared.into_iter().map(|(s, _, _)| s).collect(),
        any_ready,
        any_local,
        any_state,
    })
}

fn shape_of(markers: &[Ident], ty: &Type) -> String {
    let mut m: Vec<String> = markers.iter().map(|m| m.to_string()).collect();
    m.sort();
    m.push(ty.to_token_stream().to_string());
    m.join(" ")
}

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

fn check_pool_order(
    order: &[(String, Span)],
    d: &Decl,
    origin: &Option<String>,
    errors: &mut Errors,
) {
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
            errors.push(
                *sp,
                origin,
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
        errors.push(
            order.first().map_or(d.name.span(), |(_, s)| *s),
            origin,
            format!("pool `{}` must start its fields with `deps: [..]`", d.name),
        );
    }
}

fn check_cycles(
    decls: &[(&Decl, Cfg, &Option<String>, bool, usize)],
    units: &[Unit],
    first_slots: &[usize],
    errors: &mut Errors,
) {
    // Unit-level graph: a pool's members share their deps, so a cycle through
    // any member is a cycle through the pool.
    let unit_of_slot = |s: usize| first_slots.iter().position(|&f| f == s);
    let n = units.len();
    let edges: Vec<Vec<(usize, Span)>> = decls
        .iter()
        .zip(units)
        .map(|((d, ..), u)| {
            let spans: Vec<Span> = d
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
        .collect();
    // 0 = unvisited, 1 = on stack, 2 = done. Iterative DFS: a 256-deep chain
    // must not recurse in the compiler's stack.
    let mut state = vec![0u8; n];
    for root in 0..n {
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
                        decls[u].2,
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
