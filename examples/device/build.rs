//! Puts the selected board's memory.x on the linker path.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let boards: Vec<&str> = ["an505", "rp2350"]
        .into_iter()
        .filter(|b| env::var_os(format!("CARGO_FEATURE_{}", b.to_uppercase())).is_some())
        .collect();
    let board = match boards.as_slice() {
        [b] => *b,
        _ => panic!("enable exactly one board feature: an505 or rp2350"),
    };
    fs::copy(format!("boards/{board}/memory.x"), out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=boards/{board}/memory.x");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEVICE_TOKEN");
}
