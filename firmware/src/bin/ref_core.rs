//! Footprint reference (supervised, CHAIN(12) and no pool: the lifecycle core
//! alone, no pool driver linked): see `src/reference/supervised.rs`. Compare
//! with `ref_direct`, which runs as many tasks.
#![no_std]
#![no_main]

/// Chain length of this build: as many nodes as `ref_supervised` has.
const CHAIN: usize = 12;
/// Pool members: none.
const K: usize = 0;

include!("../reference/supervised.rs");
