//! The full example: a networked device whose tasks are driven by
//! embassy-supervisor. `app` is shared by every board; `board` is the only
//! part that differs (QEMU mps2-an505 with a LAN9118, or a Pico 2 W).
#![no_std]

pub mod app;
pub mod board;
