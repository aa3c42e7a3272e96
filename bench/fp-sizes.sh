#!/usr/bin/env bash
# The footprint rows alone, for a quick look while working on flash/RAM
# (bench/run.sh measures them too, with everything else):
#
#   bench/fp-sizes.sh            # an505: ours and the floor
#   SIDES="ours v034 floor" bench/fp-sizes.sh
#
# Builds `src/bin/fp.rs` of each side for FP, FP16 and CORE12 (and
# `src/bin/fprun.rs`, FP under its driver with control: FPRUN) exactly as
# run.sh does (same features, same profile, the run's exit status checked)
# and prints text, data, bss and flash/RAM over the floor.
set -euo pipefail
cd "$(dirname "$0")"
t=${TARGET:-thumbv8m.main-none-eabihf}
board=${BOARD:-an505}
SIDES=${SIDES:-ours floor}
printf '| side | workload | text | data | bss | flash over floor | RAM over floor |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: | ---: |\n'
declare -A fl ram
for side in floor $SIDES; do
  [[ $side == floor && -n ${fl[FP]:-} ]] && continue
  for w in "FP CHAIN 8 4 fp" "FP16 CHAIN 16 4 fp" "CORE12 CHAIN 12 0 fp" "FPRUN CHAIN 8 4 fprun"; do
    read -r name shape n pool bin <<<"$w"
    # FPRUN: FP under the side's driver with control, set against the
    # floor's FP (the floor has no driver).
    [[ $bin == fprun && $side == floor ]] && continue
    base=$name
    [[ $bin == fprun ]] && base=FP
    (cd "$side" && BENCH_SHAPE=$shape BENCH_N=$n BENCH_POOL=$pool BENCH_COOLDOWN_MS=10 \
      cargo run --locked --quiet --release --target "$t" --features "$board" --bin "$bin") \
      >/dev/null 2>&1 || { echo "| $side | $name | FAILED (the run exited non-zero) |"; continue; }
    read -r text data bss < <(arm-none-eabi-size "${CARGO_TARGET_DIR:-target}/$t/release/$bin" | awk 'NR == 2 { print $1, $2, $3 }')
    if [[ $side == floor ]]; then
      fl[$name]=$((text + data)); ram[$name]=$((data + bss))
    fi
    printf '| %s | %s | %d | %d | %d | %+d | %+d |\n' "$side" "$name" "$text" "$data" "$bss" \
      $((text + data - fl[$base])) $((data + bss - ram[$base]))
  done
done
