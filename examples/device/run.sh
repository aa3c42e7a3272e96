#!/usr/bin/env bash
# One command to see the device: build it for QEMU mps2-an505, boot it with
# its LAN9118 on QEMU's user network, and print the dashboard's address and
# the bearer token. Ctrl-C stops it. PORT (default 8080) and DEVICE_TOKEN
# (default: a random one, kept in out/token) can be set.
set -euo pipefail
cd "$(dirname "$0")"
source ./boot.sh
PORT="${PORT:-8080}"
mkdir -p out
if [[ -z "${DEVICE_TOKEN:-}" ]]; then
  [[ -s out/token ]] || od -An -N12 -tx1 /dev/urandom | tr -d ' \n' >out/token
  DEVICE_TOKEN="$(cat out/token)"
fi
export DEVICE_TOKEN
build_device
boot_device "$PORT" out/qemu.log
trap 'kill "$QEMU_PID" 2>/dev/null || true' EXIT INT TERM
if ! wait_http "$PORT" 30; then
  echo "the device did not answer on port $PORT; QEMU said:" >&2
  cat out/qemu.log >&2
  exit 1
fi
echo
echo "open http://127.0.0.1:$PORT/#token=$DEVICE_TOKEN"
echo "token: $DEVICE_TOKEN"
echo "(state changes need 'Authorization: Bearer <token>'; Ctrl-C stops the device)"
wait "$QEMU_PID"
