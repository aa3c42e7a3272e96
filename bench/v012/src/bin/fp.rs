//! Footprint run against embassy-supervisor 0.12.0 (crates.io): see ../../../common/fp.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/fp.rs");
