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
    if board == "rp2350" {
        cyw43_blobs(&out);
    }
}

/// The CYW43439 firmware, CLM and NVRAM blobs are not published on
/// crates.io. With `CYW43_FIRMWARE_DIR` set (a checkout of embassy's
/// `cyw43-firmware` directory) they are embedded; without it empty blobs are
/// embedded, the application still builds and links, and the board halts at
/// boot with `NetError::NoFirmware`.
fn cyw43_blobs(out: &std::path::Path) {
    println!("cargo:rerun-if-env-changed=CYW43_FIRMWARE_DIR");
    let dir = env::var_os("CYW43_FIRMWARE_DIR").map(PathBuf::from);
    for name in ["43439A0.bin", "43439A0_clm.bin", "nvram_rp2040.bin"] {
        let dst = out.join(name);
        match &dir {
            Some(d) => {
                let src = d.join(name);
                println!("cargo:rerun-if-changed={}", src.display());
                fs::copy(&src, &dst).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
            }
            None => {
                println!(
                    "cargo:warning=CYW43_FIRMWARE_DIR unset: {name} embedded empty (the board halts at boot)"
                );
                fs::write(&dst, []).expect("write empty blob");
            }
        }
    }
}
