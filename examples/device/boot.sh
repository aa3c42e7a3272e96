# Shared by run.sh and ci.sh (sourced): build the QEMU device, boot it.

TARGET=thumbv8m.main-none-eabihf
DEVICE_ELF="$PWD/target/$TARGET/release/device-qemu"

# build_device: DEVICE_TOKEN (in the environment) is compiled in.
build_device() {
  timeout 900 cargo build --locked --release --target "$TARGET" --features an505 --bin device-qemu
}

# boot_device PORT LOG: QEMU in real time (no -icount: the network's peers
# and timers need it), user-mode networking reachable on loopback only.
# Sets QEMU_PID. LIFETIME (seconds) bounds the run. With DEVICE_PCAP set,
# QEMU writes every frame between its user network and the NIC there (the
# guest's side of the port forward; tests/flows.py reads it).
boot_device() {
  local port=$1 log=$2 dump=()
  if [[ -n "${DEVICE_PCAP:-}" ]]; then
    dump=(-object "filter-dump,id=dump0,netdev=net0,file=$DEVICE_PCAP,maxlen=128")
  fi
  timeout "${LIFETIME:-86400}" qemu-system-arm -M mps2-an505 -cpu cortex-m33 -nographic \
    -monitor none -serial none -semihosting-config enable=on,target=native \
    -nic "user,id=net0,model=lan9118,hostfwd=tcp:127.0.0.1:${port}-:80" "${dump[@]}" \
    -kernel "$DEVICE_ELF" >"$log" 2>&1 &
  QEMU_PID=$!
}

# wait_http PORT SECONDS: until /api/graph answers (DHCP done, pool up).
wait_http() {
  local port=$1 secs=$2 i
  for ((i = 0; i < secs * 5; i++)); do
    if curl -sf -m 2 "http://127.0.0.1:$port/api/graph" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}
