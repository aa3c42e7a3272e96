#!/usr/bin/env bash
# The loom models of the lifecycle protocol (supervisor/tests/loom_protocol.rs,
# docs/runtime.md "The protocol under loom"): every interleaving of each
# model's parties up to its preemption bound (each model names its own).
#
#   scripts/loom.sh              all models
#   scripts/loom.sh NAME         the models whose test name contains NAME
#
# Its own target dir (target/loom): `--cfg loom` rebuilds every crate.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_INCREMENTAL=0 CARGO_PROFILE_RELEASE_DEBUG=0
export CARGO_TARGET_DIR="${LOOM_TARGET_DIR:-target/loom}"
export RUSTFLAGS="--cfg loom"
export RUSTC_WRAPPER="$PWD/scripts/loom-rustc.sh"
# LOOM_MAX_PREEMPTIONS, if set, overrides every model's own bound.
cargo test -p embassy-supervisor --release --test loom_protocol -- --test-threads="${LOOM_THREADS:-2}" "$@"
