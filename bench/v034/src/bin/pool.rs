//! Pool grow and shrink against embassy-supervisor 0.3.4 (crates.io): see ../../../common/pool.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/pool.rs");
