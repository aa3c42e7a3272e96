//! Footprint run against embassy-supervisor 0.3.4 (crates.io): see ../../../common/fp.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/fp.rs");
