//! The board layer: the only part that differs between the emulated device
//! and the real one. Exactly one board feature is enabled.

#[cfg(feature = "an505")]
mod an505;
#[cfg(feature = "an505")]
pub use an505::*;

#[cfg(feature = "rp2350")]
mod rp2350;
#[cfg(feature = "rp2350")]
pub use rp2350::*;

mod thread_mode;
pub use thread_mode::ThreadMode;
