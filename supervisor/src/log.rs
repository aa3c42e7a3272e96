//! Internal log macros: routed to `defmt` under the `defmt` feature, no-ops otherwise
//! (the arguments are still type-checked so a log line cannot rot).

#[cfg(feature = "defmt")]
macro_rules! log_warn {
    ($($arg:tt)*) => { defmt::warn!($($arg)*) };
}

#[cfg(not(feature = "defmt"))]
macro_rules! log_warn {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{ $( let _ = &$arg; )* }};
}

#[cfg(feature = "defmt")]
macro_rules! log_debug {
    ($($arg:tt)*) => { defmt::debug!($($arg)*) };
}

#[cfg(not(feature = "defmt"))]
macro_rules! log_debug {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{ $( let _ = &$arg; )* }};
}

pub(crate) use {log_debug, log_warn};
