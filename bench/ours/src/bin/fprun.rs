//! The FP graph under its driver loop with control, against this repository's crate: see ../../../common/fprun.rs.
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../common/fprun.rs");
