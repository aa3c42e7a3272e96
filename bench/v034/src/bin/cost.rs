//! Cost run against embassy-supervisor 0.3.4 (crates.io): see ../../../common/cost.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/cost.rs");
