//! Footprint reference (supervised, CHAIN(8) plus a 4-member pool): see
//! `src/reference/supervised.rs`.
#![no_std]
#![no_main]

/// Chain length of this build.
const CHAIN: usize = 8;
/// Pool members.
const K: usize = 4;

include!("../reference/supervised.rs");
