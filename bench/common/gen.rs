// Shared build-script code of every side (`include!`d by each `build.rs`):
// writes the workload's declarations to `$OUT_DIR/workload.rs`, so every side
// builds the same graph from the same text. (The board's memory.x comes from
// the firmware crate's build script: every side links its board support.)
//
// The workload comes from the environment (`bench/run.sh` sets it):
// `BENCH_SHAPE` = CHAIN (node i depends on node i-1) or WIDE (one root, N-1
// dependents), `BENCH_N` = chain/fan nodes, `BENCH_POOL` = members of an
// elastic pool hanging off node 0 (0: no pool; min 1, `DeferredShrink` with
// a `BENCH_COOLDOWN_MS` cooldown). Every node and the pool get
// their own `task: work` worker, so the macro stamps one embassy task per
// declaration (pool_size 1; the pool's shell is sized to its members), as an
// application with one task per node type is written.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

struct Workload {
    shape: String,
    n: usize,
    pool: usize,
    /// The pool policy's shrink cooldown (`BENCH_COOLDOWN_MS`, default 10).
    cooldown_ms: usize,
}

fn workload() -> Workload {
    for v in ["BENCH_SHAPE", "BENCH_N", "BENCH_POOL", "BENCH_COOLDOWN_MS"] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    let shape = env::var("BENCH_SHAPE").unwrap_or_else(|_| "CHAIN".into());
    assert!(shape == "CHAIN" || shape == "WIDE", "BENCH_SHAPE is CHAIN or WIDE");
    let num = |k: &str, d: usize| env::var(k).ok().map_or(d, |v| v.parse().expect(k));
    let w = Workload {
        shape,
        n: num("BENCH_N", 8),
        pool: num("BENCH_POOL", 0),
        cooldown_ms: num("BENCH_COOLDOWN_MS", 10),
    };
    assert!(w.n >= 1 && w.n + w.pool <= 256, "1 <= BENCH_N, BENCH_N + BENCH_POOL <= 256");
    w
}

fn dep_of(w: &Workload, i: usize) -> Option<usize> {
    match (i, w.shape.as_str()) {
        (0, _) => None,
        (_, "CHAIN") => Some(i - 1),
        _ => Some(0),
    }
}

/// The graph in the `supervisor_graph!` DSL every side accepts, plus `N`
/// (all slots), `K` (pool members), `SHAPE` and `BENCH_NODES` (chain/fan nodes in
/// slot order, then the pool members).
fn supervised(w: &Workload) -> String {
    let mut s = String::from("embassy_supervisor::supervisor_graph! {\n");
    for i in 0..w.n {
        let deps = dep_of(w, i).map(|d| format!("N{d}")).unwrap_or_default();
        writeln!(s, "    node N{i} = Terminate, deps: [{deps}], task: work;").unwrap();
    }
    if w.pool > 0 {
        let modes = vec!["OnDemand"; w.pool].join(", ");
        writeln!(
            s,
            "    pool P = [{modes}], deps: [N0], task: work, \
             policy: DeferredShrink::new(Duration::from_millis({})), min: 1, max: {};",
            w.cooldown_ms, w.pool
        )
        .unwrap();
    }
    s.push_str("}\n");
    let mut nodes: Vec<String> = (0..w.n).map(|i| format!("&N{i}")).collect();
    nodes.extend((0..w.pool).map(|j| format!("&P[{j}]")));
    common_consts(w, &mut s);
    writeln!(s, "pub static BENCH_NODES: [&TaskNode; N] = [{}];", nodes.join(", ")).unwrap();
    s
}

/// The embassy-only floor: one task `t{i}` per node (pool_size 1), parked on
/// its own stop `Signal` until stopped, raising its done `Signal` as its last
/// act; `SPAWN[i]` spawns task `i`.
fn floor(w: &Workload) -> String {
    let mut s = String::new();
    let total = w.n + w.pool;
    for i in 0..total {
        // The slot is an argument, as a side's shell takes its node: identical
        // task bodies, which the optimizer may fold like the sides' shells.
        writeln!(s, "#[embassy_executor::task] async fn t{i}(i: usize) {{ direct(i).await }}")
            .unwrap();
        writeln!(
            s,
            "fn spawn_t{i}(s: Spawner) -> Result<(), SpawnError> {{ s.spawn(t{i}({i})?); Ok(()) }}"
        )
        .unwrap();
    }
    common_consts(w, &mut s);
    let spawns: Vec<String> = (0..total).map(|i| format!("spawn_t{i}")).collect();
    writeln!(
        s,
        "static SPAWN: [fn(Spawner) -> Result<(), SpawnError>; N] = [{}];",
        spawns.join(", ")
    )
    .unwrap();
    s
}

fn common_consts(w: &Workload, s: &mut String) {
    writeln!(s, "/// Slots in the graph: chain/fan nodes, then pool members.").unwrap();
    writeln!(s, "pub const N: usize = {};", w.n + w.pool).unwrap();
    writeln!(s, "/// Pool members (the last `K` slots).").unwrap();
    writeln!(s, "pub const K: usize = {};", w.pool).unwrap();
    writeln!(s, "/// The workload's shape.").unwrap();
    writeln!(s, "pub const SHAPE: &str = \"{}\";", w.shape).unwrap();
}

/// Entry point of every side's build script: `floor_side` picks the
/// embassy-only declarations instead of the graph.
fn generate(floor_side: bool) {
    println!("cargo:rerun-if-changed=../common/gen.rs");
    let w = workload();
    let text = if floor_side { floor(&w) } else { supervised(&w) };
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::write(out.join("workload.rs"), text).expect("write workload.rs");
}
