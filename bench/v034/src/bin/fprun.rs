//! The FP graph under its driver loop with control, against embassy-supervisor 0.3.4 (crates.io): see ../../../common/fprun.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/fprun.rs");
