//! Pool grow and shrink against this repository's crate: see ../../../common/pool.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/pool.rs");
