#!/usr/bin/env bash
# The whole test suite: formatting, lints, a build with the declared MSRV
# toolchain, host tests under each feature set, library builds for three
# Cortex-M targets, rustdoc, and the on-target suite under QEMU.
#
# It first checks every prerequisite (rustup targets, the MSRV toolchain,
# rustfmt/clippy, qemu-system-arm, arm binutils) and installs what is missing
# (`scripts/setup.sh`; apt-get with sudo when not root), so a fresh machine
# fails or is fixed in seconds, not after minutes of building.
# `SETUP=check bash scripts/test.sh` only checks and stops if one is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh
if [ "${SETUP:-install}" = check ]; then
    setup_prerequisites --check
else
    setup_prerequisites
fi

# Every feature that links on the host (`defmt` needs a target logger; the
# `trace` family needs hook symbols, so its test runs on its own below).
HOST_FEATURES="control,pool,macros,readiness,liveness,local-resources,heap-state"
for f in controller events metadata-names enabled-if breadcrumb lifecycle-sink log restart fault-inject dataflow; do
    grep -q "^$f = " supervisor/Cargo.toml && HOST_FEATURES="$HOST_FEATURES,$f"
done

# The trace family: with `trace` on, every binary that links the executor
# needs the hook symbols, which only `tests/trace.rs` defines, so its tests
# run on their own.
TRACE_FEATURES="macros,trace-hooks,trace-names"

step() { printf '\n==> %s\n' "$*"; }

# Disk. A cold run with cargo's defaults wrote ~10 GB of build output (debug
# info and incremental caches are most of it) and a CI machine ran out of
# disk mid-run. Host test binaries need neither; firmware keeps its own
# profiles (`--release`, unaffected). Build output of finished stages is
# removed when the disk runs short (`free_disk_if_short`).
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=0
avail_mb() { df -Pm . | awk 'NR == 2 { print $4 }'; }
free_disk_if_short() { # $@: directories whose stage is over
    if [ "$(avail_mb)" -lt "${MIN_FREE_MB:-6000}" ]; then
        echo "only $(avail_mb) MB free: removing finished stages' build output: $*"
        rm -rf "$@"
    fi
}
step "disk: $(avail_mb) MB free at the start"

step "rustfmt"
cargo fmt --all --check
(cd firmware && cargo fmt --all --check)

step "structure: no fn over 80 lines (macro, runtime), no import circle, no two runtime files calling each other"
scripts/fn-lengths.sh 80 $(find macros/src supervisor/src -name '*.rs')
scripts/module-deps.sh

step "clippy"
cargo clippy --workspace --all-targets --features "embassy-supervisor/$HOST_FEATURES" -- -D warnings
cargo clippy -p embassy-supervisor --all-features -- -D warnings
cargo clippy -p embassy-supervisor --no-default-features -- -D warnings
cargo clippy -p embassy-supervisor --features "$TRACE_FEATURES,trace-nested" --tests -- -D warnings

msrv=$(setup_msrv_toolchain)
step "MSRV $msrv (the library crates build with the declared rust-version)"
CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check -p embassy-supervisor -p embassy-supervisor-macros \
    --features "embassy-supervisor/$HOST_FEATURES"
CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check -p embassy-supervisor \
    --features "$TRACE_FEATURES,trace-nested"
CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check -p embassy-supervisor-testkit
# The declared rust-version is the floor of our dependencies (heapless 0.9,
# via embassy-sync 0.8, needs 1.87); our own code stays within 1.85, the
# spec's MSRV: no std API newer than that (let-chains fail the build above).
CLIPPY_CONF_DIR=.ci/msrv-1.85 cargo clippy -q -p embassy-supervisor -p embassy-supervisor-macros \
    --features "embassy-supervisor/$HOST_FEATURES,embassy-supervisor/trace-hooks,embassy-supervisor/trace-names,embassy-supervisor/trace-nested" \
    -- -D clippy::incompatible_msrv

free_disk_if_short target/msrv

step "each feature on its own"
for f in control pool macros readiness liveness restart controller events enabled-if \
    trace trace-hooks trace-nested metadata-names trace-names breadcrumb lifecycle-sink log \
    fault-inject dataflow; do
    cargo check -q -p embassy-supervisor --no-default-features --features "$f"
done

step "host tests (default features)"
cargo test --workspace
step "host tests (no default features)"
cargo test -p embassy-supervisor --no-default-features --lib --tests
step "compile-fail rules of features that are off (pool, readiness, ...)"
cargo test -p embassy-supervisor --no-default-features --features macros --test compile_fail
# `dataflow` without `readiness`: `ready_on_write` is refused (tests/ui/dataflow_no_readiness).
cargo test -p embassy-supervisor --no-default-features --features macros,dataflow --test compile_fail
step "host tests (all host features)"
cargo test -p embassy-supervisor --features "$HOST_FEATURES"
step "fault injection: the test kit acting it out, the shells' expansion under the feature"
cargo test -p embassy-supervisor-testkit --features fault-inject
cargo test -p embassy-supervisor-macros --features fault-inject snapshot_fault_inject
step "dataflow: the macro's expansion and fuzzing with the feature on"
cargo test -p embassy-supervisor-macros --features dataflow
step "host tests (trace, then trace-nested)"
cargo test -p embassy-supervisor --features "$TRACE_FEATURES" --test trace
cargo test -p embassy-supervisor --features "$TRACE_FEATURES,trace-nested" --test trace
step "the lifecycle protocol under loom (tests/loom_protocol.rs; each model's own preemption bound)"
# Its own target dir; removed after, when the disk runs short. About 2 min
# of models on this 2-core machine (docs/runtime.md, "The protocol under
# loom"), plus a first build of the dependencies under --cfg loom.
bash scripts/loom.sh
free_disk_if_short target/loom
step "the demo (README's first command), then with its trace table and the wedge injected"
cargo run -q -p embassy-supervisor --example demo --features control,pool,controller,dataflow >/dev/null
cargo run -q -p embassy-supervisor --example demo --features control,pool,controller,dataflow,trace,fault-inject >/dev/null

for target in thumbv6m-none-eabi thumbv7em-none-eabihf thumbv8m.main-none-eabihf; do
    step "library for $target"
    cargo build -p embassy-supervisor --target "$target"
    cargo build -p embassy-supervisor --target "$target" --no-default-features
    cargo build -p embassy-supervisor --target "$target" --all-features
done

step "rustdoc"
RUSTDOCFLAGS="-D warnings" cargo doc -p embassy-supervisor --no-deps --features "$HOST_FEATURES"
# The default features too: a link to an item of a feature that is off is broken there.
RUSTDOCFLAGS="-D warnings" cargo doc -p embassy-supervisor --no-deps
RUSTDOCFLAGS="-D warnings" cargo doc -p embassy-supervisor-testkit --no-deps

free_disk_if_short target/debug target/msrv target/thumbv6m-none-eabi target/thumbv7em-none-eabihf \
    target/thumbv8m.main-none-eabihf target/doc

if [ -x firmware/ci.sh ]; then
    step "on-target suite under QEMU"
    firmware/ci.sh
fi

step "cost budgets (bench/budgets.txt): flash of FP, CORE12 and FPRUN, CHAIN(64) verbs on the an505"
bash bench/budget.sh

free_disk_if_short target/firmware target/bench

step "the full example: the networked device on QEMU, its HTTP scenarios, the dashboard in Chromium, the Pico 2 W build"
bash examples/device/ci.sh

step "all green"
