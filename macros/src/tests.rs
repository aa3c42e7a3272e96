//! Unit tests of the expansion functions, and the parser fuzz test: a panic
//! in a proc macro reaches the user as an unreadable error, so no input may
//! make the expansion panic. Every input must come back as tokens (a
//! graph, or a spanned `compile_error!`).

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

use crate::{expand_compose, expand_fragment, expand_graph};

/// Valid inputs the mutator starts from (each expands without error).
const SEEDS: &[&str] = &[
    "node NET = Terminate, deps: [], task: net_task; node APP = Terminate, deps: [NET], task: app_task;",
    "name: SUB; executor HIGH; node A = Pause, deps: [], executor: HIGH, spawn: a_task(1, 2), slot_timeout: 500;",
    "node A = Terminate, deps: [], task: w::<T>(x()), resources: [#[cfg(feature = \"x\")] LED: Led, D: consume Drv, S: shared u8], exit: u8, cancel;",
    "node B = Terminate, deps: [], spawn: |s: Spawner| { s.spawn(t(&B)?); Ok(()) }, disabled;",
    "pool W = [Terminate, OnDemand, OnDemand], deps: [N], task: h, resources: [C: Conn], policy: DeferredShrink::new(Duration::from_secs(5)), min: 1, max: 3, slot_timeout: 100, cancel; node N = Terminate, deps: [];",
    "default executor T; executor O; node A = Terminate, task: w; node B = Pause, executor: O, spawn: b(1); node C = OnDemand, spawn: |s: Spawner| { s.spawn(c(&C)?); Ok(()) };",
    "node A = Terminate, task: w, #[cfg(x)] slot_timeout: 5, #[cfg(y)] disabled, deps: [B]; node B = Pause; pool P = [OnDemand], max: 1, task: t, min: 1, policy: X::new();",
    "pool P = [OnDemand], deps: [], spawn: t, policy: MyPolicy = make(), min: FLOOR, max: FLOOR + 1; #[cfg(x)] node Q = Terminate, deps: [P, #[cfg(y)] R]; node R = OnDemand, deps: [];",
];

const VOCAB: &[&str] = &[
    "node",
    "pool",
    "executor",
    "name",
    "deps",
    "task",
    "spawn",
    "resources",
    "exit",
    "state",
    "cancel",
    "slot_timeout",
    "beat_timeout",
    "ack_timeout",
    "executor",
    "default",
    "disabled",
    "enabled_if",
    "policy",
    "min",
    "max",
    "pool_size",
    "ready",
    "local",
    "consume",
    "shared",
    "reads",
    "writes",
    "ready_on_write",
    "derived",
    "extern",
    "Terminate",
    "Pause",
    "OnDemand",
    "A",
    "B",
    "r#A",
    "crate",
    "fn",
    "self",
    "_",
];
const PUNCT: &[char] = &[
    ',', ';', ':', '=', '#', '$', '|', '<', '>', '&', '!', '*', '+', '-', '.',
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic, dependency-free.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_leaf(r: &mut Rng) -> TokenTree {
    match r.below(4) {
        0 => TokenTree::Punct(Punct::new(
            PUNCT[r.below(PUNCT.len())],
            if r.below(2) == 0 {
                Spacing::Alone
            } else {
                Spacing::Joint
            },
        )),
        1 => TokenTree::Literal(match r.below(4) {
            0 => Literal::u64_unsuffixed(r.next() % 300),
            1 => Literal::u64_unsuffixed(r.next()),
            2 => Literal::string("s"),
            _ => Literal::u8_suffixed(0),
        }),
        _ => {
            let w = VOCAB[r.below(VOCAB.len())];
            TokenTree::Ident(match w.strip_prefix("r#") {
                Some(raw) => Ident::new_raw(raw, Span::call_site()),
                None => Ident::new(w, Span::call_site()),
            })
        }
    }
}

fn random_stream(r: &mut Rng, depth: usize) -> TokenStream {
    let len = r.below(24);
    (0..len)
        .map(|_| {
            if depth < 4 && r.below(6) == 0 {
                let delim =
                    [Delimiter::Bracket, Delimiter::Parenthesis, Delimiter::Brace][r.below(3)];
                TokenTree::Group(Group::new(delim, random_stream(r, depth + 1)))
            } else {
                random_leaf(r)
            }
        })
        .collect()
}

/// One random edit somewhere in the tree: delete, duplicate, swap with the
/// next, replace, insert.
fn mutate(r: &mut Rng, ts: TokenStream, depth: usize) -> TokenStream {
    let mut v: Vec<TokenTree> = ts.into_iter().collect();
    if v.is_empty() {
        v.push(random_leaf(r));
        return v.into_iter().collect();
    }
    let i = r.below(v.len());
    if let TokenTree::Group(g) = &v[i]
        && depth < 6
        && r.below(2) == 0
    {
        let inner = mutate(r, g.stream(), depth + 1);
        v[i] = TokenTree::Group(Group::new(g.delimiter(), inner));
        return v.into_iter().collect();
    }
    match r.below(5) {
        0 => {
            v.remove(i);
        }
        1 => {
            let t = v[i].clone();
            v.insert(i, t);
        }
        2 if i + 1 < v.len() => v.swap(i, i + 1),
        3 => v[i] = random_leaf(r),
        _ => v.insert(i, random_leaf(r)),
    }
    v.into_iter().collect()
}

fn must_not_panic(input: TokenStream) {
    for f in [expand_graph, expand_fragment, expand_compose] {
        let copy = input.clone();
        let out = std::panic::catch_unwind(move || f(copy));
        assert!(out.is_ok(), "expansion panicked on: {input}");
    }
}

#[test]
fn seeds_expand_without_errors() {
    for s in SEEDS {
        let out = expand_graph(s.parse().unwrap()).to_string();
        assert!(!out.contains("compile_error"), "{s}\n=> {out}");
    }
}

/// `enabled_if:`, valid only with the `enabled-if` feature (the fuzz test
/// mutates it either way).
const ENABLED_IF_SEED: &str = "node E = Terminate, task: w, enabled_if: crate::on, #[cfg(x)] disabled; node F = OnDemand, spawn: f, #[cfg(y)] enabled_if: g;";

/// `reads:` / `writes:` / `derived`, valid only with the `dataflow`
/// feature (the fuzz test mutates it either way).
const DATAFLOW_SEED: &str = "node S = Terminate, task: s, reads: [crate::IRQ extern], writes: [crate::S], derived; pool P = [Terminate], task: p, reads: [crate::S, crate::T], policy: X::new(), min: 1, max: 1; node R = Terminate, task: r, writes: [crate::T shared]; node Q = Terminate, writes: [crate::T shared];";

#[cfg(feature = "dataflow")]
#[test]
fn dataflow_expands_its_table_and_checks() {
    let out = expand_graph(DATAFLOW_SEED.parse().unwrap()).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("with_dataflow"), "{out}");
    assert!(out.contains("__DATAFLOW_OF_s"), "{out}");
}

#[cfg(feature = "enabled-if")]
#[test]
fn enabled_if_expands_gated_and_plain() {
    let out = expand_graph(ENABLED_IF_SEED.parse().unwrap()).to_string();
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("with_enabled_if (crate :: on)"), "{out}");
    // The gated predicate goes through a wrapper that compiles `g` only
    // under its gate.
    assert!(out.contains("fn __es_enabled_f_1"), "{out}");
}

#[test]
fn cycle_is_named() {
    let out = expand_graph(
        "node A = Terminate, deps: [B]; node B = Terminate, deps: [A];"
            .parse()
            .unwrap(),
    )
    .to_string();
    assert!(out.contains("dependency cycle: A -> B -> A"), "{out}");
}

/// Number of inputs the fuzz test feeds (each to all three macros).
const FUZZ_CASES: usize = 40_000;

#[test]
fn fuzz_random_and_mutated_streams_never_panic() {
    let mut r = Rng(0x5eed_5eed_5eed_5eed);
    let seeds: Vec<TokenStream> = SEEDS
        .iter()
        .chain([&ENABLED_IF_SEED, &DATAFLOW_SEED])
        .map(|s| s.parse().unwrap())
        .collect();
    for case in 0..FUZZ_CASES {
        let input = if case % 4 == 0 {
            random_stream(&mut r, 0)
        } else {
            let mut ts = seeds[r.below(seeds.len())].clone();
            for _ in 0..=r.below(4) {
                ts = mutate(&mut r, ts, 0);
            }
            ts
        };
        must_not_panic(input);
    }
}

#[test]
fn raw_identifier_names_expand() {
    let out = expand_graph(
        "name: r#G; node r#A = Terminate, deps: [], task: w, exit: u8; pool r#P = [Terminate], deps: [r#A], task: w, policy: X::new(), min: 1, max: 1;"
            .parse()
            .unwrap(),
    )
    .to_string();
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("A_EXIT") && out.contains("P_POOL"), "{out}");
}

#[test]
fn closure_return_type_is_added_only_when_missing() {
    let bare = expand_graph(
        "node S = Terminate, deps: [], spawn: |s: Spawner| { let t = f(&S)?; s.spawn(t) };"
            .parse()
            .unwrap(),
    )
    .to_string();
    assert!(bare.contains("spawn_result"), "{bare}");
    let typed = expand_graph(
        "node S = Terminate, deps: [], spawn: |s: Spawner| -> R { s.spawn(f(&S)?); Ok(()) };"
            .parse()
            .unwrap(),
    )
    .to_string();
    assert!(!typed.contains("spawn_result"), "{typed}");
}

/// Seeds for the opt-in kinds: valid only with their features on.
#[cfg(all(feature = "local-resources", feature = "heap-state"))]
const OPT_IN_SEEDS: &[&str] = &[
    "node R = Terminate, deps: [], task: radio, resources: [RUN: local consume Runner, H: shared local Handle], state: Buf = Buf::new();",
    "name: NET; pool W = [Terminate, OnDemand], deps: [], task: w(1), resources: [H: local shared Handle], state: S = S(0), policy: P::new(), min: 1, max: 2, cancel;",
];

#[cfg(all(feature = "local-resources", feature = "heap-state"))]
#[test]
fn opt_in_kinds_expand_and_survive_mutation() {
    let seeds: Vec<TokenStream> = OPT_IN_SEEDS.iter().map(|s| s.parse().unwrap()).collect();
    for (s, ts) in OPT_IN_SEEDS.iter().zip(&seeds) {
        let out = expand_graph(ts.clone()).to_string();
        assert!(!out.contains("compile_error"), "{s}\n=> {out}");
        // One local slot type and one boxing helper per graph.
        assert_eq!(out.matches("struct __EsLocalSlot").count(), 1, "{out}");
        assert_eq!(out.matches("fn try_box").count(), 1, "{out}");
    }
    let mut r = Rng(0x10ca_15a7_e000_0001);
    for _ in 0..FUZZ_CASES / 8 {
        let mut ts = seeds[r.below(seeds.len())].clone();
        for _ in 0..=r.below(4) {
            ts = mutate(&mut r, ts, 0);
        }
        must_not_panic(ts);
    }
}

/// Expansion snapshots: representative graphs whose expansion is pinned
/// token for token (spans aside; the compile-fail suite pins those), so a
/// refactor of `analyze`/`codegen` is provably behaviour-free. Regenerate
/// after an intended change with `SNAPSHOTS=overwrite cargo test -p
/// embassy-supervisor-macros snapshot` and review the diff.
mod snapshots {
    use super::*;

    /// One line per statement: reviewable diffs, same tokens.
    fn pretty(ts: TokenStream) -> String {
        let mut s = ts.to_string().replace("; ", ";\n");
        s = s.replace("{ ", "{\n").replace(" }", "\n}");
        s.push('\n');
        s
    }

    fn check(name: &str, out: TokenStream) {
        let got = pretty(out);
        assert!(!got.contains("compile_error"), "{name}: {got}");
        let path = format!("{}/src/snapshots/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        if std::env::var("SNAPSHOTS").as_deref() == Ok("overwrite") {
            std::fs::write(&path, &got).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e} (SNAPSHOTS=overwrite writes it)"));
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(g, w)| g != w)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            panic!(
                "{name}: the expansion changed at line {}:\n got: {:?}\nwant: {:?}",
                line + 1,
                got.lines().nth(line),
                want.lines().nth(line)
            );
        }
    }

    fn graph(name: &str, src: &str) {
        check(name, expand_graph(src.parse().unwrap()));
    }

    /// The recipes' dependency chain, unnamed: the default `GRAPH` (the
    /// unnamed graph also emits the trace hooks under `trace-hooks`).
    #[cfg(not(feature = "trace-hooks"))]
    #[test]
    fn snapshot_chain() {
        graph(
            "chain",
            "node SENSOR = Terminate, deps: [], task: sensor_worker;
             node REPORTER = Terminate, deps: [SENSOR], task: reporter_worker;",
        );
    }

    /// The resources, exit and cancel recipes in one graph: every resource
    /// kind, exit slots with and without `cancel`, call forms.
    #[test]
    fn snapshot_resources_exit_cancel() {
        graph(
            "resources_exit_cancel",
            "name: RES;
             node BLINK = Terminate, deps: [], task: blink,
                 resources: [LED: Led, DRV: consume Driver, STACK: shared u16];
             node OTHER = Terminate, deps: [BLINK], task: other, resources: [STACK: shared u16];
             node ONCE = Terminate, deps: [], task: once, exit: Outcome;
             node TELEM = Pause, deps: [OTHER], task: telemetry::<u8>, pool_size: 2;
             node DONE = Terminate, deps: [], task: finite(21), cancel, exit: u8;
             node STOPPED = OnDemand, deps: [DONE], task: never_done, cancel;",
        );
    }

    /// Pools (node deps on a pool, a pool on an executor, typed policy),
    /// per-member gates, cfg'd items, closure and partial-call spawns.
    #[cfg(feature = "pool")]
    #[test]
    fn snapshot_pools_executors_cfg() {
        graph(
            "pools_executors_cfg",
            "name: POOLS;
             executor CORE1;
             #[cfg(feature = \"x\")] executor CORE2;
             node BROKER = Terminate, deps: [], task: serve, slot_timeout: 300u32;
             pool WORKERS = [Terminate, OnDemand, OnDemand], deps: [BROKER], task: handler,
                 resources: [CONN: Conn, #[cfg(y)] CFG: shared u8],
                 policy: DeferredShrink::new(Duration::from_secs(5)),
                 min: FLOOR, max: FLOOR + 2, cancel;
             #[cfg(z)]
             pool CRUNCH = [OnDemand, OnDemand], deps: [], executor: CORE1, task: serve,
                 policy: P = make(), min: 0, max: 2;
             pool HANDLERS = [Terminate, OnDemand], deps: [], spawn: member(9),
                 policy: DeferredShrink::new(D), min: 1, max: 2, slot_timeout: 300;
             node DISPATCHER = Terminate, deps: [WORKERS, #[cfg(z)] CRUNCH], task: serve;
             node PARKED = Pause, deps: [DISPATCHER], disabled;
             node CL = Terminate, deps: [], spawn: |s: Spawner| { s.spawn(t(&CL)?); Ok(()) };
             node CL2 = Terminate, deps: [], spawn: |s: Spawner| -> R { s.spawn(t(&CL2)?); Ok(()) };
             node ROUTED = Terminate, deps: [], executor: CORE1, spawn: routed_task(1, 2);",
        );
    }

    /// `ready` deps (feature `readiness`) and the opt-in `local` and
    /// `state:` kinds.
    #[cfg(all(
        feature = "readiness",
        feature = "local-resources",
        feature = "heap-state"
    ))]
    #[test]
    fn snapshot_opt_in_kinds() {
        graph(
            "opt_in_kinds",
            "name: OPT;
             node R = Terminate, deps: [], task: radio,
                 resources: [RUN: local consume Runner, H: shared local Handle],
                 state: Buf = Buf::new();
             node S = Terminate, deps: [R ready], task: s, state: u32 = 0;",
        );
    }

    /// Issue-15 DSL: clauses in any order, no `deps:`, `#[cfg]`-gated
    /// values, the default executor (and what it leaves alone).
    #[test]
    fn snapshot_default_executor_and_gates() {
        graph(
            "default_executor_and_gates",
            "name: ERG;
             default executor THREAD;
             executor HIGH;
             node A = Terminate, task: a, #[cfg(feature = \"slow\")] slot_timeout: 500;
             node B = Pause, #[cfg(x)] disabled, spawn: b_task(1), deps: [A];
             node C = Terminate, executor: HIGH, task: c;
             node D = OnDemand, spawn: |s: Spawner| { s.spawn(d(&D)?); Ok(()) };
             node E = Terminate;",
        );
    }

    /// `enabled_if:` plain and gated (feature `enabled-if`).
    #[cfg(feature = "enabled-if")]
    #[test]
    fn snapshot_enabled_if() {
        graph(
            "enabled_if",
            "name: EN;
             node R = Terminate, task: r, enabled_if: crate::radio_on;
             node S = Terminate, #[cfg(feature = \"s\")] enabled_if: s_on, task: s;",
        );
    }

    /// Restart configurations (feature `restart`): a node with a policy, a
    /// classified `exit:` with and without `cancel`, the graph default
    /// budget, a budget-only node, a pool's per-member statics.
    #[cfg(all(feature = "restart", feature = "pool"))]
    #[test]
    fn snapshot_restarts() {
        graph(
            "restarts",
            "name: RS;
             restart_budget 3 in 1000;
             node LINK = Terminate, task: link, exit: Result<(), E>, restart: on_failure,
                 backoff: 10..400;
             node PUMP = Terminate, task: pump, exit: Status, cancel, restart: on_failure;
             node LOG = Terminate, task: log, restart: always, restart_budget: 1 in 50;
             node MAN = Terminate, task: man, restart_budget: 2 in 100;
             node PLAIN = Terminate, task: plain;
             pool W = [Terminate, OnDemand], task: w, policy: P::new(), min: 1, max: 2,
                 restart: always;",
        );
    }

    /// Task shells under `fault-inject`: the worker's activation (resource
    /// unwrap, call, restores, exit value) runs through `with_faults`.
    #[cfg(feature = "fault-inject")]
    #[test]
    fn snapshot_fault_inject() {
        graph(
            "fault_inject",
            "name: INJ;
             node A = Terminate, task: a, resources: [LED: Led];
             node B = Terminate, task: b, cancel, exit: u8;",
        );
    }

    /// A composed graph: a fragment's items and the compose site's own.
    #[test]
    fn snapshot_composed() {
        check(
            "composed",
            expand_compose(
                "@compose { (\"NET_FRAG\" { node NET = Terminate, deps: [], task: net; }) }
                 @rest [] @name [COMPOSED]
                 @graph { node APP = Terminate, deps: [NET], task: app; }"
                    .parse()
                    .unwrap(),
            ),
        );
        check(
            "fragment",
            expand_fragment(
                "name: NET_FRAG; node NET = Terminate, deps: [], task: $crate::net;"
                    .parse()
                    .unwrap(),
            ),
        );
    }
}

/// `#[derive_dataflow]`'s scan: the verbs on the node parameter at any
/// depth (a macro call's tokens too), each signal once per direction, and
/// nothing on another receiver.
#[test]
fn derive_dataflow_finds_the_accesses_through_the_node() {
    let item: TokenStream = r#"
        pub async fn sensor(node: &'static TaskNode, map: &Map) {
            let v = node.reader(&crate::IRQ).load(Relaxed);
            select(async { node.publish(&SAMPLE, v) }, debug_log!(node.writer(&SAMPLE)));
            let _ = map.publish(&OTHER, 1);
            let _ = node.name;
        }
    "#
    .parse()
    .unwrap();
    let out = crate::derive_dataflow::expand(TokenStream::new(), item)
        .unwrap()
        .to_string();
    let table = &out[out
        .find("__DATAFLOW_OF_sensor")
        .expect("the table is emitted")..];
    let reads = &table[table.find("reads").unwrap()..table.find("writes").unwrap()];
    assert_eq!(reads.matches("DerivedAccess").count(), 1);
    assert!(reads.contains("name : \"IRQ\""));
    let writes = &table[table.find("writes").unwrap()..];
    // `publish` and `writer` of SAMPLE: one entry; `map.publish` is no access.
    assert_eq!(writes.matches("DerivedAccess").count(), 1);
    assert!(writes.contains("name : \"SAMPLE\""));
    assert!(!table.contains("OTHER"));
    assert!(
        out.starts_with("pub async fn sensor"),
        "the fn is left as written"
    );
}
