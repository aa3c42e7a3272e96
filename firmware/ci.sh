#!/usr/bin/env bash
# Build the on-target suite for the three boards and run it under QEMU.
# Fails if any board's run fails (a FAIL line, a panic, a HardFault or a hang
# all end QEMU with a non-zero status). Installs nothing: it expects
# qemu-system-arm and the thumbv6m/thumbv7m/thumbv8m.main rustup targets.
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
done
if ((${#failed[@]})); then
  echo "firmware suite FAILED on: ${failed[*]}" >&2
  exit 1
fi
echo "firmware suite passed on all three boards"
