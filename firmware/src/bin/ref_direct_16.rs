//! Footprint reference (direct, CHAIN(16) plus a 4-member pool): see
//! `src/reference/direct.rs`.
#![no_std]
#![no_main]

/// Chain length of this build.
const CHAIN: usize = 16;

include!("../reference/direct.rs");
