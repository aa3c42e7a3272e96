//! Syntax only: tokens to a tree. Nothing here knows whether a graph is valid;
//! every semantic rule lives in `analyze`.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitInt, Token, Type, bracketed};

/// A whole `supervisor_graph!` (or a composed graph, items from several origins).
pub struct Input {
    pub name: Option<Ident>,
    pub items: Vec<Item>,
}

pub struct Item {
    pub attrs: Vec<Attribute>,
    pub kind: ItemKind,
    /// The fragment that declared this item (`None`: the graph site itself).
    pub origin: Option<String>,
}

pub enum ItemKind {
    Executor(Ident),
    /// `default executor NAME;`: declares NAME and routes every spawn the
    /// macro emits without `executor:` through it (the `default` keyword).
    DefaultExecutor(Ident, Ident),
    Node(Decl),
    Pool(Decl),
    /// `restart_budget R in T;`: the budget of every node with a `restart:`
    /// policy that sets none of its own (the keyword, then R and T).
    RestartBudget(Ident, LitInt, LitInt),
}

/// A `node` or `pool` line. A pool's `modes` are its members; a node has one.
pub struct Decl {
    pub keyword: Ident,
    pub name: Ident,
    pub modes: Vec<Ident>,
    /// The bracketed mode list of a pool (`None` for a node).
    pub mode_list: Option<Span>,
    pub clauses: Vec<Clause>,
}

pub struct Clause {
    /// `#[cfg(..)]` gates (only value clauses accept one; `analyze` checks).
    pub attrs: Vec<Attribute>,
    pub keyword: Ident,
    pub value: ClauseValue,
}

pub enum ClauseValue {
    Deps(Vec<Dep>),
    Spawn(Expr),
    Task(Expr),
    PoolSize(Expr),
    Resources(Span, Vec<Resource>),
    /// `provides: [SLOT, ..]`: the `shared` slots this node fills.
    Provides(Vec<Ident>),
    Exit(Type),
    State(Type, Expr),
    Cancel,
    SlotTimeout(LitInt),
    BeatTimeout(LitInt),
    AckTimeout(LitInt),
    Executor(Ident),
    Disabled,
    EnabledIf(Expr),
    Policy(Option<Type>, Expr),
    Min(Expr),
    Max(Expr),
    /// `restart: never | on_failure | always`.
    Restart(Ident),
    /// `backoff: MIN..MAX` (milliseconds).
    Backoff(LitInt, LitInt),
    /// `restart_budget: R in T` (restarts, milliseconds).
    RestartBudget(LitInt, LitInt),
    /// `reads: [PATH marker*, ..]` (feature `dataflow`).
    Reads(Vec<FlowEntry>),
    /// `writes: [PATH marker*, ..]` (feature `dataflow`).
    Writes(Vec<FlowEntry>),
    /// `ready_on_write` (features `dataflow` + `readiness`).
    ReadyOnWrite,
    /// `derived` (feature `dataflow`): check the lists against the task
    /// fn's `#[derive_dataflow]` table.
    Derived,
}

/// One entry of `reads:` / `writes:`: a signal static's path and the
/// words after it (`shared`, `extern`; `analyze` judges them).
pub struct FlowEntry {
    pub attrs: Vec<Attribute>,
    pub path: syn::Path,
    pub markers: Vec<Ident>,
}

pub struct Dep {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub ready: Option<Ident>,
}

pub struct Resource {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub markers: Vec<Ident>,
    pub ty: Type,
}

const MARKERS: [&str; 3] = ["local", "consume", "shared"];

/// The clauses that are one word, with no `:` and value.
const FLAG_CLAUSES: [&str; 4] = ["cancel", "disabled", "ready_on_write", "derived"];

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = parse_name_header(input)?;
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(Input { name, items })
    }
}

/// The optional leading `name: IDENT;`.
pub fn parse_name_header(input: ParseStream) -> syn::Result<Option<Ident>> {
    if input.peek(Ident::peek_any) && input.peek2(Token![:]) && !input.peek2(Token![::]) {
        let kw = input.call(Ident::parse_any)?;
        if kw != "name" {
            return Err(syn::Error::new(
                kw.span(),
                "expected `node`, `pool`, `executor`, or a leading `name: IDENT;`",
            ));
        }
        input.parse::<Token![:]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![;]>()?;
        return Ok(Some(name));
    }
    Ok(None)
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let keyword = input.call(Ident::parse_any).map_err(|e| {
            syn::Error::new(e.span(), "expected an item: `node`, `pool` or `executor`")
        })?;
        let kind = match keyword.to_string().as_str() {
            "executor" => {
                let name: Ident = input.parse()?;
                input.parse::<Token![;]>()?;
                ItemKind::Executor(name)
            }
            "default" => {
                let ex = input.call(Ident::parse_any)?;
                if ex != "executor" {
                    return Err(syn::Error::new(
                        ex.span(),
                        "expected `executor` after `default`: `default executor NAME;`",
                    ));
                }
                let name: Ident = input.parse()?;
                input.parse::<Token![;]>()?;
                ItemKind::DefaultExecutor(keyword, name)
            }
            "restart_budget" => {
                let (r, t) = budget(input)?;
                input.parse::<Token![;]>()?;
                ItemKind::RestartBudget(keyword, r, t)
            }
            "node" => ItemKind::Node(parse_decl(input, keyword, false)?),
            "pool" => ItemKind::Pool(parse_decl(input, keyword, true)?),
            "name" => {
                return Err(syn::Error::new(
                    keyword.span(),
                    "`name: IDENT;` must be the first item of the graph",
                ));
            }
            _ => {
                return Err(syn::Error::new(
                    keyword.span(),
                    format!(
                        "unknown item `{keyword}`: expected `node`, `pool`, `executor`, \
                         `default executor` or `restart_budget`"
                    ),
                ));
            }
        };
        Ok(Item {
            attrs,
            kind,
            origin: None,
        })
    }
}

fn parse_decl(input: ParseStream, keyword: Ident, pool: bool) -> syn::Result<Decl> {
    let name: Ident = input.parse()?;
    input.parse::<Token![=]>()?;
    let (modes, mode_list) = if pool {
        let content;
        let bracket = bracketed!(content in input);
        let modes = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        (modes.into_iter().collect(), Some(bracket.span.join()))
    } else {
        let mode: Ident = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the node's mode after `=`: `Terminate`, `Pause` or `OnDemand`",
            )
        })?;
        (vec![mode], None)
    };
    let mut clauses = Vec::new();
    while !input.peek(Token![;]) {
        input.parse::<Token![,]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected `,` before the next clause or `;` to end the item",
            )
        })?;
        if input.peek(Token![;]) {
            break;
        }
        clauses.push(input.parse()?);
    }
    input.parse::<Token![;]>()?;
    Ok(Decl {
        keyword,
        name,
        modes,
        mode_list,
        clauses,
    })
}

impl Parse for Clause {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let keyword = input.call(Ident::parse_any)?;
        let kw = keyword.to_string();
        let flag = FLAG_CLAUSES.contains(&kw.as_str());
        if !flag {
            input
                .parse::<Token![:]>()
                .map_err(|e| syn::Error::new(e.span(), format!("expected `:` after `{kw}`")))?;
        }
        let value = match kw.as_str() {
            "deps" => {
                let content;
                bracketed!(content in input);
                let deps = Punctuated::<Dep, Token![,]>::parse_terminated(&content)?;
                ClauseValue::Deps(deps.into_iter().collect())
            }
            "spawn" => ClauseValue::Spawn(input.parse()?),
            "task" => ClauseValue::Task(input.parse()?),
            "pool_size" => ClauseValue::PoolSize(input.parse()?),
            "resources" => {
                let content;
                let bracket = bracketed!(content in input);
                let res = Punctuated::<Resource, Token![,]>::parse_terminated(&content)?;
                ClauseValue::Resources(bracket.span.join(), res.into_iter().collect())
            }
            "provides" => {
                let content;
                bracketed!(content in input);
                let slots = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
                ClauseValue::Provides(slots.into_iter().collect())
            }
            "exit" => ClauseValue::Exit(input.parse()?),
            "state" => {
                let ty: Type = input.parse()?;
                input.parse::<Token![=]>()?;
                ClauseValue::State(ty, input.parse()?)
            }
            "cancel" => ClauseValue::Cancel,
            "disabled" => ClauseValue::Disabled,
            "enabled_if" => ClauseValue::EnabledIf(input.parse()?),
            "slot_timeout" => ClauseValue::SlotTimeout(millis(input, "slot_timeout")?),
            "beat_timeout" => ClauseValue::BeatTimeout(millis(input, "beat_timeout")?),
            "ack_timeout" => ClauseValue::AckTimeout(millis(input, "ack_timeout")?),
            "executor" => ClauseValue::Executor(input.parse()?),
            "policy" => {
                // `Type = expr` when the type cannot be read off a `Type::new(..)` call.
                let fork = input.fork();
                let typed =
                    fork.parse::<Type>().is_ok() && fork.peek(Token![=]) && !fork.peek(Token![==]);
                if typed {
                    let ty: Type = input.parse()?;
                    input.parse::<Token![=]>()?;
                    ClauseValue::Policy(Some(ty), input.parse()?)
                } else {
                    ClauseValue::Policy(None, input.parse()?)
                }
            }
            "restart" | "backoff" | "restart_budget" => restart_clause(input, &kw)?,
            "reads" | "writes" | "ready_on_write" | "derived" => flow_clause(input, &kw)?,
            "min" => ClauseValue::Min(input.parse()?),
            "max" => ClauseValue::Max(input.parse()?),
            _ => {
                return Err(syn::Error::new(
                    keyword.span(),
                    format!(
                        "unknown clause `{kw}`: expected one of deps, spawn, task, pool_size, \
                         resources, provides, exit, state, cancel, slot_timeout, beat_timeout, \
                         ack_timeout, executor, disabled, enabled_if, restart, backoff, \
                         restart_budget, reads, writes, ready_on_write, derived (pools: policy, min, max)"
                    ),
                ));
            }
        };
        Ok(Clause {
            attrs,
            keyword,
            value,
        })
    }
}

impl Parse for Dep {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name: Ident = input.parse()?;
        let ready = if input.peek(Ident) {
            let m: Ident = input.parse()?;
            if m != "ready" {
                return Err(syn::Error::new(
                    m.span(),
                    format!("unexpected `{m}` after a dependency: the only dep marker is `ready`"),
                ));
            }
            Some(m)
        } else {
            None
        };
        Ok(Dep { attrs, name, ready })
    }
}

impl Parse for Resource {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let mut markers = Vec::new();
        // A marker is a bare word among MARKERS that is followed by more type
        // tokens; `consume::Thing` or a lone `shared` is a type, not a marker.
        while input.peek(Ident)
            && !input.peek2(Token![::])
            && !input.peek2(Token![<])
            && !input.peek2(Token![,])
            && {
                let fork = input.fork();
                let id: Ident = fork.parse()?;
                MARKERS.contains(&id.to_string().as_str()) && !fork.is_empty()
            }
        {
            markers.push(input.parse()?);
        }
        let ty: Type = input.parse()?;
        Ok(Resource {
            attrs,
            name,
            markers,
            ty,
        })
    }
}

/// Fragment bodies travel through a `macro_rules!` relay, where `$` starts a
/// metavariable: only `$crate` keeps its meaning there.
pub fn check_dollars(tokens: TokenStream) -> syn::Result<()> {
    let mut iter = tokens.into_iter().peekable();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '$' => match iter.peek() {
                Some(TokenTree::Ident(id)) if id == "crate" => {}
                _ => {
                    return Err(syn::Error::new(
                        p.span(),
                        "a fragment may use `$` only as `$crate` (it names the fragment's own \
                         crate at any compose site)",
                    ));
                }
            },
            TokenTree::Group(g) => check_dollars(g.stream())?,
            _ => {}
        }
    }
    Ok(())
}

/// A value clause's milliseconds: an integer literal, or an error naming the clause.
fn millis(input: ParseStream, clause: &str) -> syn::Result<LitInt> {
    input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("`{clause}:` takes milliseconds as an integer literal"),
        )
    })
}

/// `R in T`: a restart budget (restarts, then milliseconds).
fn budget(input: ParseStream) -> syn::Result<(LitInt, LitInt)> {
    let shape = |e: syn::Error| {
        syn::Error::new(
            e.span(),
            "`restart_budget` takes `R in T`: at most R restarts within any T milliseconds",
        )
    };
    let r: LitInt = input.parse().map_err(shape)?;
    input.parse::<Token![in]>().map_err(shape)?;
    let t: LitInt = input.parse().map_err(shape)?;
    Ok((r, t))
}

/// The value of a `restart:`, `backoff:` or `restart_budget:` clause.
fn restart_clause(input: ParseStream, kw: &str) -> syn::Result<ClauseValue> {
    Ok(match kw {
        "restart" => ClauseValue::Restart(input.call(Ident::parse_any).map_err(|e| {
            syn::Error::new(
                e.span(),
                "`restart:` takes `never`, `on_failure` or `always`",
            )
        })?),
        "backoff" => {
            let min = millis(input, "backoff")?;
            input.parse::<Token![..]>().map_err(|e| {
                syn::Error::new(e.span(), "`backoff:` takes `MIN..MAX` in milliseconds")
            })?;
            ClauseValue::Backoff(min, millis(input, "backoff")?)
        }
        _ => {
            let (r, t) = budget(input)?;
            ClauseValue::RestartBudget(r, t)
        }
    })
}

/// The value of a `reads:`, `writes:` or `ready_on_write` clause.
fn flow_clause(input: ParseStream, kw: &str) -> syn::Result<ClauseValue> {
    Ok(match kw {
        "reads" => ClauseValue::Reads(flow_entries(input)?),
        "writes" => ClauseValue::Writes(flow_entries(input)?),
        "derived" => ClauseValue::Derived,
        _ => ClauseValue::ReadyOnWrite,
    })
}

/// `[PATH marker*, ..]`: the entries of `reads:` / `writes:`.
fn flow_entries(input: ParseStream) -> syn::Result<Vec<FlowEntry>> {
    let content;
    bracketed!(content in input);
    let entries = Punctuated::<FlowEntry, Token![,]>::parse_terminated(&content)?;
    Ok(entries.into_iter().collect())
}

impl Parse for FlowEntry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let path = input.call(syn::Path::parse_mod_style).map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the path of a signal static (`crate::signals::SAMPLE`)",
            )
        })?;
        let mut markers = Vec::new();
        while !input.is_empty() && !input.peek(Token![,]) {
            markers.push(input.call(Ident::parse_any).map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected `,`, or a marker after the signal: `shared` or `extern`",
                )
            })?);
        }
        Ok(FlowEntry {
            attrs,
            path,
            markers,
        })
    }
}
