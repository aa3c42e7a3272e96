//! Puts the selected board's memory.x on the linker path, and generates the
//! benchmark's node table (250 nodes, all sharing one spawn fn, which receives
//! its node: not written by hand).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let boards: Vec<&str> = ["an505", "an385", "microbit"]
        .into_iter()
        .filter(|b| env::var_os(format!("CARGO_FEATURE_{}", b.to_uppercase())).is_some())
        .collect();
    let board = match boards.as_slice() {
        [b] => *b,
        _ => panic!("enable exactly one board feature: an505, an385 or microbit"),
    };
    fs::copy(format!("boards/{board}/memory.x"), out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=boards/{board}/memory.x");
    println!("cargo:rerun-if-changed=build.rs");

    // The micro:bit has 16 KiB of RAM: 64 workers fit, 250 do not.
    let max_n = if board == "microbit" { 64 } else { 250 };
    let mut s = String::new();
    writeln!(s, "/// Largest N this board's benchmark graphs use.").unwrap();
    writeln!(s, "pub const MAX_N: usize = {max_n};").unwrap();
    writeln!(
        s,
        "/// The benchmark's workers; node `i` sits in slot `i` of every bench graph."
    )
    .unwrap();
    writeln!(s, "pub static W: [TaskNode; MAX_N] = [").unwrap();
    for i in 0..max_n {
        writeln!(
            s,
            "    TaskNode::new(\"w{i}\", Mode::Terminate).with_spawn(spawn_worker).at({i}),"
        )
        .unwrap();
    }
    writeln!(s, "];").unwrap();
    fs::write(out.join("bench_nodes.rs"), s).expect("write bench_nodes.rs");
}
