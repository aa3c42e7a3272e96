//! A one-call stderr logger for hosted targets (feature `log`, any target
//! with an OS): `embassy_supervisor::log_to_stderr(LevelFilter::Debug)` and
//! every supervisor log line (and any other crate's) is printed as
//! `[seconds] LEVEL target: message`. For filtering by module, install a
//! full logger such as `env_logger` instead.

extern crate std;

use std::eprintln;
use std::sync::OnceLock;
use std::time::Instant;

use log::{LevelFilter, Log, Metadata, Record, SetLoggerError};

struct Stderr;

/// The moment the logger was installed: stamps are seconds since.
static START: OnceLock<Instant> = OnceLock::new();

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let t = START.get_or_init(Instant::now).elapsed();
            eprintln!(
                "[{:>4}.{:06}] {:<5} {}: {}",
                t.as_secs(),
                t.subsec_micros(),
                record.level(),
                record.target(),
                record.args()
            );
        }
    }

    fn flush(&self) {}
}

/// Install a logger that prints records up to `level` on stderr. Fails
/// (and changes nothing) if the process already has a logger.
pub fn log_to_stderr(level: LevelFilter) -> Result<(), SetLoggerError> {
    log::set_logger(&Stderr)?;
    START.get_or_init(Instant::now);
    log::set_max_level(level);
    Ok(())
}
