#!/usr/bin/env bash
# Build the on-target suite for the three single-core boards and run it under
# QEMU, with the pool-scaling check (bench_pool: pitfall 14); then the same
# suite and the multi-core one (suite_mc) on the dual-core mps2-an521.
# Fails if any board's run fails (a FAIL line, a panic, a HardFault or a hang
# all end QEMU with a non-zero status). Installs nothing: it expects
# qemu-system-arm and the thumbv6m/thumbv7m/thumbv8m.main(-eabihf) rustup targets.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target/firmware}"

boards=(
  "thumbv8m.main-none-eabihf an505"
  "thumbv7m-none-eabi an385"
  "thumbv6m-none-eabi microbit"
)
failed=()
for entry in "${boards[@]}"; do
  read -r target board <<<"$entry"
  for suite in suite suite-trace suite-trace-nested; do
    echo "== firmware $suite on $board ($target)"
    if ! cargo run --locked --quiet --release --target "$target" \
        --features "$board,panic-message,$suite" --bin suite; then
      failed+=("$board ($suite)")
    fi
  done
  # Pitfall 14: a pool's grow and shrink cost the same in a 4-slot graph and
  # at the end of a big one (bench_pool exits 1 if not).
  echo "== firmware bench_pool on $board ($target)"
  if ! out=$(cargo run --locked --quiet --release --target "$target" \
      --features "$board,panic-message,bench" --bin bench_pool); then
    printf '%s\n' "$out" | grep -v '^ROW' >&2 || true
    failed+=("$board (bench_pool)")
  fi
  cargo run --locked --quiet --release --target "$target" --features "$board,panic-message" --bin wave || failed+=("$board (wave)")
  # The breadcrumb survives two warm resets in a no-init section and names
  # the node and phase that hung bring-up, then teardown.
  echo "== firmware breadcrumb on $board ($target)"
  cargo run --locked --quiet --release --target "$target" \
      --features "$board,panic-message,breadcrumb" --bin breadcrumb || failed+=("$board (breadcrumb)")
  cargo run --locked --quiet --release --target "$target" --features "$board,panic-message,restart-suite" --bin restart || failed+=("$board (restart)")
  echo "== firmware inject on $board ($target)"; cargo run --locked --quiet --release --target "$target" --features "$board,panic-message,fault-inject" --bin inject || failed+=("$board (inject)")
  cargo run --locked --quiet --release --target "$target" --features "$board,panic-message,suite" --bin resident || failed+=("$board (resident)")
  # A supervisor typed with its graph's uses (no gate, no Pause code).
  cargo run --locked --quiet --release --target "$target" --features "$board,panic-message,suite" --bin uses || failed+=("$board (uses)")
  # Dataflow: writes through the node as beats and readiness, derived tables.
  cargo run --locked --quiet --release --target "$target" --features "$board,panic-message,dataflow" --bin dataflow || failed+=("$board (dataflow)")
done
# The dual-core an521 (both cores running): plain and with trace-nested (the
# plain trace build's checks are covered by the other boards), each running
# the common suite and the multi-core one, plus the critical-section stress
# test; two dependency builds in all.
for suite in suite suite-trace-nested; do
  bins=(suite suite_mc)
  [ "$suite" = suite ] && bins+=(cs_stress)
  for bin in "${bins[@]}"; do
    echo "== firmware $bin ($suite) on an521 (thumbv8m.main-none-eabi)"
    if ! cargo run --locked --quiet --release --target thumbv8m.main-none-eabi \
        --features "an521,panic-message,$suite" --bin "$bin"; then
      failed+=("an521 ($bin, $suite)")
    fi
  done
done
if ((${#failed[@]})); then
  echo "firmware suite FAILED on: ${failed[*]}" >&2
  exit 1
fi
echo "firmware suite passed on all four boards"
