#!/usr/bin/env bash
# The cost budgets CI holds the runtime to (bench/budgets.txt): the flash of
# the FP, CORE12 and FPRUN (FP under `run()` with control) builds and the guest instructions of CHAIN(64) start,
# teardown, respawn_terminate, deactivate(root) and activate(last), all on
# the an505 (QEMU `-icount`: the same binary gives the same count on any
# machine). Exits 1 naming each figure over its budget; prints every figure
# beside its budget either way.
#
# Flash figures get FLASH_SLACK bytes of grace, and only for layout: cargo
# hashes the absolute path of a path dependency outside the bench workspace
# (`../supervisor`) into symbol names, the names set the order of functions
# in `.text`, and the order sets alignment padding. The same commit measured
# FPRUN 27972 B in one checkout and 27976 B in another (every function the
# same size in both). Instruction counts do not depend on the path.
#
#   bench/budget.sh            check
#   bench/budget.sh --write    rewrite budgets.txt with today's figures (do
#                              it when you win; say why in the commit)
#
# Called by scripts/test.sh. Needs qemu-system-arm, arm-none-eabi-size and
# the thumbv8m.main-none-eabihf target (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target/bench}"
t=thumbv8m.main-none-eabihf
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The same builds and workloads as run.sh's side "ours" (cost, fp).
(cd ours && BENCH_SHAPE=CHAIN BENCH_N=64 BENCH_POOL=0 BENCH_COOLDOWN_MS=10 \
  cargo run --locked --quiet --release --target "$t" --features an505,panic-message --bin cost \
  >"$out/cost.txt" 2>"$out/cost.err") || { cat "$out/cost.err" >&2; exit 1; }
for w in "FP 8 4 fp" "CORE12 12 0 fp" "FPRUN 8 4 fprun"; do
  read -r name n pool bin <<<"$w"
  (cd ours && BENCH_SHAPE=CHAIN BENCH_N=$n BENCH_POOL=$pool BENCH_COOLDOWN_MS=10 \
    cargo run --locked --quiet --release --target "$t" --features an505 --bin "$bin" \
    >/dev/null 2>"$out/fp.err") || { cat "$out/fp.err" >&2; exit 1; }
  arm-none-eabi-size "$CARGO_TARGET_DIR/$t/release/$bin" |
    awk -v w="$name" 'NR == 2 { printf "flash.%s %d\n", w, $1 + $2 }' >>"$out/figures.txt"
done
# ROW|CHAIN|64|<verb>|64|<total>|<per node>
awk -F'|' '$1 == "ROW" && $2 == "CHAIN" && $3 == 64 { printf "chain64.%s %d\n", $4, $6 }' \
  "$out/cost.txt" >>"$out/figures.txt"

if [[ ${1:-} == --write ]]; then
  {
    echo "# Budgets for bench/budget.sh (an505; flash = text + data in bytes, chain64.* = guest"
    echo "# instructions of the whole verb on CHAIN(64)). Written by \`bench/budget.sh --write\`"
    echo "# at $(git rev-parse --short HEAD 2>/dev/null || echo unknown) with $(rustc -V | cut -d' ' -f1-2)."
    cat "$out/figures.txt"
  } >budgets.txt
  cat budgets.txt
  exit 0
fi

FLASH_SLACK=8
awk -v slack="$FLASH_SLACK" '
  NR == FNR { if ($0 !~ /^#/ && NF == 2) budget[$1] = $2; next }
  {
    seen[$1] = 1
    if (!($1 in budget)) { printf "%-32s %8d  (no budget)\n", $1, $2; next }
    grace = $1 ~ /^flash\./ ? slack : 0
    over = $2 > budget[$1] + grace
    printf "%-32s %8d  budget %8d%s\n", $1, $2, budget[$1], over ? "  OVER BUDGET" : ($2 > budget[$1] ? "  (within the layout grace)" : "")
    if (over) bad = 1
  }
  END {
    for (k in budget) if (!(k in seen)) { printf "%-32s not measured (the bench printed no such row)\n", k; bad = 1 }
    exit bad
  }' budgets.txt "$out/figures.txt" || {
  echo "budget.sh: a figure is over its budget (bench/budgets.txt); find the cause, or raise the budget in a commit that says why" >&2
  exit 1
}
