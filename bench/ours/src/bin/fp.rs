//! Footprint run against this repository's crate: see ../../../common/fp.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/fp.rs");
