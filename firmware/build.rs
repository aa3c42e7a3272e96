//! Puts the selected board's memory.x on the linker path, and generates the
//! benchmark's per-node tasks and node table (not written by hand): node `i`
//! runs its own task `w{i}` (pool_size 1), as a real application runs one task
//! per node type, so no spawn pays embassy's linear task-pool search and the
//! figures grow with the graph, not with the pool. The direct baselines get
//! their own per-node tasks `d{i}` for the same reason.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let boards: Vec<&str> = ["an505", "an521", "an385", "microbit"]
        .into_iter()
        .filter(|b| env::var_os(format!("CARGO_FEATURE_{}", b.to_uppercase())).is_some())
        .collect();
    let board = match boards.as_slice() {
        [b] => *b,
        _ => panic!("enable exactly one board feature: an505, an521, an385 or microbit"),
    };
    fs::copy(format!("boards/{board}/memory.x"), out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=boards/{board}/memory.x");
    println!("cargo:rerun-if-changed=build.rs");

    // The micro:bit has 16 KiB of RAM: 64 nodes (each with its worker task
    // and its direct-stop baseline task) fit, 250 do not.
    let max_n = if board == "microbit" { 64 } else { 250 };
    let mut s = String::new();
    let mut w = |line: String| {
        s.push_str(&line);
        s.push('\n');
    };
    w("/// Largest N this board's benchmark graphs use.".into());
    w(format!("pub const MAX_N: usize = {max_n};"));
    for i in 0..max_n {
        w(format!(
            "#[embassy_executor::task] async fn w{i}(node: &'static TaskNode) {{ work(node).await }}"
        ));
        w(format!(
            "fn spawn_w{i}(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {{ s.spawn(w{i}(node)?); Ok(()) }}"
        ));
        w(format!(
            "#[embassy_executor::task] async fn d{i}() {{ direct({i}).await }}"
        ));
        w(format!(
            "fn spawn_d{i}(s: Spawner) -> Result<(), SpawnError> {{ s.spawn(d{i}()?); Ok(()) }}"
        ));
    }
    w("/// The benchmark's workers; node `i` sits in slot `i` of every bench graph.".into());
    w("pub static W: [TaskNode; MAX_N] = [".into());
    for i in 0..max_n {
        // One line per node: the constructor is rewritten in one place.
        w(format!(
            "    TaskNode::new(&NodeSpec::new(\"w{i}\", Mode::Terminate).with_spawn(spawn_w{i}).at({i})),"
        ));
    }
    w("];".into());
    w("/// Spawn fn of worker `i`, for the direct-spawn baseline.".into());
    w("static SPAWN_W: [SpawnFn; MAX_N] = [".into());
    for i in 0..max_n {
        w(format!("    spawn_w{i},"));
    }
    w("];".into());
    w("/// Spawn of direct-stop baseline task `i`.".into());
    w("static SPAWN_D: [fn(Spawner) -> Result<(), SpawnError>; MAX_N] = [".into());
    for i in 0..max_n {
        w(format!("    spawn_d{i},"));
    }
    w("];".into());
    fs::write(out.join("bench_nodes.rs"), s).expect("write bench_nodes.rs");
}
