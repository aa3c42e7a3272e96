//! Internal log macros. The backend is chosen by feature and target:
//!
//! - `defmt` on an embedded target (`target_os = "none"`), or `defmt`
//!   without `log`: through `defmt`;
//! - `log` otherwise (a hosted target, a simulator): through the `log`
//!   facade, target `embassy_supervisor`, so one feature list serves both
//!   halves of a software-in-the-loop build;
//! - neither: no-ops that generate no code (the arguments are still
//!   type-checked, so a log line cannot rot).

#[cfg(all(feature = "defmt", any(target_os = "none", not(feature = "log"))))]
macro_rules! log_warn {
    ($($arg:tt)*) => { defmt::warn!($($arg)*) };
}

#[cfg(all(feature = "log", not(all(feature = "defmt", target_os = "none"))))]
macro_rules! log_warn {
    ($($arg:tt)*) => { ::log::warn!(target: "embassy_supervisor", $($arg)*) };
}

#[cfg(not(any(feature = "defmt", feature = "log")))]
macro_rules! log_warn {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{ $( let _ = &$arg; )* }};
}

#[cfg(all(feature = "defmt", any(target_os = "none", not(feature = "log"))))]
macro_rules! log_debug {
    ($($arg:tt)*) => { defmt::debug!($($arg)*) };
}

#[cfg(all(feature = "log", not(all(feature = "defmt", target_os = "none"))))]
macro_rules! log_debug {
    ($($arg:tt)*) => { ::log::debug!(target: "embassy_supervisor", $($arg)*) };
}

#[cfg(not(any(feature = "defmt", feature = "log")))]
macro_rules! log_debug {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{ $( let _ = &$arg; )* }};
}

pub(crate) use {log_debug, log_warn};
