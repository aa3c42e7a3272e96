//! Cost run against this repository's crate: see ../../../common/cost.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/cost.rs");
