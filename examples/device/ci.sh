#!/usr/bin/env bash
# CI for the full example, self-contained and bounded in time, loopback only:
#  0. rustfmt and clippy for both boards; the dashboard's byte budget;
#  1. build the QEMU device (mps2-an505) with a fresh token;
#  2. boot it (real time, user-mode networking forwarded to 127.0.0.1) and run
#     the HTTP scenario tests (tests/scenarios.py), then the load figures
#     (tests/load.py, reported in out/load.jsonl, not asserted);
#  3. boot it again and run the headless-Chromium dashboard test
#     (tests/browser.py), saving a screenshot;
#  4. build the same application for the Pico 2 W (RP2350), build only;
#  5. report the footprint (arm-none-eabi-size).
# Outputs go to $CI_OUT (default examples/device/out). Exits non-zero on any
# failure. Needs what PREREQS lists.
set -euo pipefail
cd "$(dirname "$0")"
source ./boot.sh
start=$(date +%s)
OUT="${CI_OUT:-$PWD/out}"
mkdir -p "$OUT"

for tool in qemu-system-arm curl python3 arm-none-eabi-size chromium chromedriver; do
  command -v "$tool" >/dev/null || { echo "ci.sh: missing $tool (see PREREQS)" >&2; exit 2; }
done
python3 -c 'import selenium' 2>/dev/null || { echo "ci.sh: missing python selenium (see PREREQS)" >&2; exit 2; }

export DEVICE_TOKEN="ci-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "== lint: rustfmt, clippy -D warnings (both boards)"
timeout 120 cargo fmt --check
timeout 900 cargo clippy --locked --release --target "$TARGET" --features an505 --bin device-qemu -- -D warnings
timeout 900 cargo clippy --locked --release --target "$TARGET" --features rp2350 --bin device-pico2w -- -D warnings

# The dashboard is served from flash: it has a byte budget.
PAGE_BUDGET=16384
page_bytes=$(wc -c <web/index.html)
echo "== page: web/index.html is $page_bytes B (budget $PAGE_BUDGET B)"
if ((page_bytes > PAGE_BUDGET)); then
  echo "ci.sh: web/index.html is $page_bytes B, over its $PAGE_BUDGET B budget" >&2
  exit 1
fi
if grep -Eiq '(src|href)="(https?:)?//' web/index.html; then
  echo "ci.sh: web/index.html loads something from elsewhere; the device serves everything itself" >&2
  exit 1
fi

echo "== build: QEMU mps2-an505 device"
build_device

QEMU_PID=
cleanup() { [[ -n "$QEMU_PID" ]] && kill "$QEMU_PID" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# run_against NAME CMD...: boot a fresh device, wait for its HTTP port, run
# CMD (which reads the port from $PORT), stop the device.
run_against() {
  local name=$1; shift
  PORT=$(free_port)
  LIFETIME=600 boot_device "$PORT" "$OUT/qemu-$name.log"
  if ! wait_http "$PORT" 40; then
    echo "ci.sh: the device did not answer on port $PORT" >&2
    cat "$OUT/qemu-$name.log" >&2
    return 1
  fi
  local rc=0
  timeout 500 "$@" || rc=$?
  kill "$QEMU_PID" 2>/dev/null || true
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=
  return $rc
}

failed=()
export PORT=0
echo "== scenarios: HTTP control plane under QEMU"
# After the scenarios, the same device gives the load figures (reported,
# not asserted): GET /api/graph at 1 and 8 clients for 10 s each.
if ! run_against scenarios bash -c 'python3 tests/scenarios.py "$PORT" "$DEVICE_TOKEN" "$0" &&
    { python3 tests/load.py "$PORT" 1 10 && python3 tests/load.py "$PORT" 8 10; } | tee "$1"' \
    "$OUT/figures.json" "$OUT/load.jsonl"; then
  failed+=(scenarios)
fi
echo "== browser: headless Chromium clicks Deactivate"
if ! run_against browser bash -c 'python3 tests/browser.py "$PORT" "$DEVICE_TOKEN" "$0"' "$OUT/dashboard.png"; then
  failed+=(browser)
fi

echo "== build: Pico 2 W (RP2350, cyw43), build only"
if ! timeout 900 cargo build --locked --release --target "$TARGET" --features rp2350 --bin device-pico2w; then
  failed+=(rp2350-build)
fi

echo "== footprint"
{
  echo "arm-none-eabi-size (text+data = flash, data+bss = static RAM):"
  arm-none-eabi-size "$DEVICE_ELF" "$PWD/target/$TARGET/release/device-pico2w" 2>/dev/null || arm-none-eabi-size "$DEVICE_ELF"
} | tee "$OUT/footprint.txt"

echo "ci.sh wall time: $(( $(date +%s) - start )) s"
if ((${#failed[@]})); then
  echo "examples/device FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "examples/device: all checks passed"
