#!/usr/bin/env bash
# Compile time of a 250-node `supervisor_graph!` (the macro, the generated
# task shells and the const topological sort): builds a throwaway crate in a
# temporary directory against this checkout, then times rebuilds of the graph
# crate alone (dependencies already built).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src"
cat >"$dir/Cargo.toml" <<TOML
[package]
name = "graph250"
version = "0.0.0"
edition = "2024"
[dependencies]
embassy-supervisor = { path = "$repo/supervisor" }
embassy-executor = "0.10"
[workspace]
TOML
{
    echo 'use embassy_supervisor::{supervisor_graph, TaskNode};'
    echo 'async fn w(node: &'"'"'static TaskNode) {'
    echo '    let _ = node.run_cancellable_acked(core::future::pending::<()>()).await;'
    echo '}'
    echo 'supervisor_graph! {'
    for i in $(seq 0 249); do
        deps=""
        [ "$i" -gt 0 ] && deps="N$((i - 1))"
        [ "$i" -gt 3 ] && [ $((i % 3)) -eq 0 ] && deps="$deps, N$((i / 2))"
        echo "    node N$i = Terminate, deps: [$deps], task: w;"
    done
    echo '}'
    echo 'pub fn graph() -> &'"'"'static embassy_supervisor::Graph<250> { &GRAPH }'
} >"$dir/src/lib.rs"
cd "$dir"
export CARGO_TARGET_DIR="$dir/target"
cargo check -q && cargo build -q && cargo build -q --release
for profile in check build "build --release"; do
    touch src/lib.rs
    start=$(date +%s.%N)
    cargo $profile -q
    printf '250-node graph, cargo %-15s %.2f s\n' "$profile:" "$(echo "$(date +%s.%N) - $start" | bc)"
done
