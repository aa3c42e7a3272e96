#!/usr/bin/env bash
# Regenerate ../BENCHMARKS.md, every table, every side, in one run:
#
#   bench/run.sh            # all three boards (about 30 minutes on two cores)
#   BOARDS=an505 bench/run.sh   # one board, for a quick look (still writes the file)
#
# 1. Side by side under QEMU (`-icount shift=0,sleep=off`: 1 virtual ns = 1
#    guest instruction): the same workloads built against this repository's
#    crate (`ours/`), embassy-supervisor 0.3.4 and 0.12.0 from crates.io
#    (`v034/`, `v012/`) and embassy alone (`floor/`); cost (`src/bin/cost.rs`)
#    footprint (`src/bin/fp.rs`, measured with arm-none-eabi-size) and pool
#    grow/shrink (`src/bin/pool.rs`).
# 2. The controller on the host against taskvisor 0.9 and 0.7 (`host/`), instruction
#    counts under valgrind's callgrind.
# 3. The per-operation, pool-scan and trace benchmarks of ../firmware/bench.sh.
# 4. One restart and the bytes of a restart policy on the M33
#    (../firmware/src/bin/bench_restart.rs), when an505 is among BOARDS.
#
# Needs qemu-system-arm, arm-none-eabi-size, valgrind, python3 and the rustup
# targets thumbv8m.main-none-eabihf, thumbv7m-none-eabi, thumbv6m-none-eabi.
# Not run by CI.
set -euo pipefail
cd "$(dirname "$0")"
BOARDS=${BOARDS:-an505 an385 microbit}
raw=${BENCH_RAW:-$(mktemp -d)}
mkdir -p "$raw"
raw=$(realpath "$raw")
echo "raw results in $raw" >&2
locked() { # lockfile crate -> version(s)
  awk -v c="$2" '$0 == "name = \"" c "\"" { getline; gsub(/"/, "", $3); v = v (v ? ", " : "") $3 } END { print v }' "$1"
}
{
  # The commit measured (a `git archive` copy has no .git: it may carry the
  # hash in ../COMMIT), and the date.
  echo "- commit $(git rev-parse --short HEAD 2>/dev/null || cat ../COMMIT 2>/dev/null || echo unknown), $(date -u +%F)"
  echo "- $(rustc -V)"
  echo "- $(qemu-system-arm --version | head -1)"
  echo "- $(valgrind --version)"
  echo "- embassy-executor $(locked Cargo.lock embassy-executor), embassy-time $(locked Cargo.lock embassy-time), embassy-sync $(locked Cargo.lock embassy-sync)"
  echo "- embassy-supervisor in the lockfile: $(locked Cargo.lock embassy-supervisor) (the 0.4 one is ours, by path); embassy-supervisor-macros in the lockfile: $(locked Cargo.lock embassy-supervisor-macros)"
  echo "- taskvisor $(locked host/Cargo.lock taskvisor), tokio $(locked host/Cargo.lock tokio)"
} >"$raw/toolchain.txt"

triple() {
  case $1 in
    an505) echo thumbv8m.main-none-eabihf ;;
    an385) echo thumbv7m-none-eabi ;;
    microbit) echo thumbv6m-none-eabi ;;
  esac
}
# Workloads: name shape N pool-members. The micro:bit has 16 KiB of RAM: N <= 64.
cost_workloads() {
  local ns="8 64 250"
  [[ $1 == microbit ]] && ns="8 64"
  for shape in CHAIN WIDE; do for n in $ns; do echo "$shape$n $shape $n 0"; done; done
}
fp_workloads() {
  echo "FP CHAIN 8 4"    # CHAIN(8) + a 4-member pool: the footprint reference
  echo "FP16 CHAIN 16 4" # the same with 8 more chain nodes: cost per extra node
  echo "CORE12 CHAIN 12 0" # 12 Terminate nodes, no pool: the lifecycle core alone
}

# run side board bin name shape n pool [cooldown-ms]
#   -> $raw/<board>/<side>.<bin>.<name>.txt
#   side "ours-every" is ours/ built with feature every-use (`Supervisor<N>`).
run_one() {
  local side=$1 board=$2 bin=$3 name=$4 shape=$5 n=$6 pool=$7 cooldown=${8:-10} t feats dir=$1
  t=$(triple "$board")
  feats=$board
  [[ $bin != fp && $bin != fprun ]] && feats="$board,panic-message"
  [[ $side == ours-every ]] && dir=ours feats="$feats,every-use"
  local log="$raw/$board/$side.$bin.$name.txt"
  if ! (cd "$dir" && BENCH_SHAPE=$shape BENCH_N=$n BENCH_POOL=$pool BENCH_COOLDOWN_MS=$cooldown \
    cargo run --locked --quiet --release --target "$t" --features "$feats" --bin "$bin" \
    >"$log" 2>"$log.err"); then
    echo "FAILED|$side|$board|$bin|$name (see $log.err)" | tee -a "$raw/failures.txt" >&2
    return 0
  fi
  if [[ $bin == fp || $bin == fprun ]]; then
    # Flash = text + data, RAM = data + bss, of the build that just ran.
    arm-none-eabi-size "${CARGO_TARGET_DIR:-target}/$t/release/$bin" | awk -v s="$side" -v w="$name" \
      'NR == 2 { printf "SIZE|%s|%s|%d|%d|%d\n", s, w, $1, $2, $3 }' >>"$log"
  fi
}

for board in $BOARDS; do
  mkdir -p "$raw/$board"
  # ours-every: ours typed `Supervisor<N>` (the specification's
  # `Supervisor::new(&GRAPH)`, which picks the graph's code in const
  # evaluation), measured as a side of its own.
  for side in ours ours-every v034 v012 floor; do
    echo "== $board $side" >&2
    while read -r name shape n pool; do
      run_one "$side" "$board" cost "$name" "$shape" "$n" "$pool"
    done < <(cost_workloads "$board")
    while read -r name shape n pool; do
      run_one "$side" "$board" fp "$name" "$shape" "$n" "$pool"
    done < <(fp_workloads)
    # FPRUN: the FP graph under the side's driver loop with control (the
    # shape an application ships; the floor has no driver).
    [[ $side != floor ]] && run_one "$side" "$board" fprun FPRUN CHAIN 8 4
    # POOL: one root and a 4-member pool (min 1, zero cooldown).
    run_one "$side" "$board" pool POOL CHAIN 1 4 0
  done
done

# The controller against taskvisor, on the host.
if [[ -z ${SKIP_HOST:-} ]]; then
  echo "== host controller" >&2
  host/run.sh >"$raw/host.txt"
fi

# The firmware's own benchmarks (per operation, pool scan, trace), written to
# a file of their own and appended below.
if [[ -z ${SKIP_FIRMWARE:-} ]]; then
  echo "== firmware/bench.sh" >&2
  # A failure there (a board's binary that faults) must not cost the
  # side-by-side tables already measured: it is listed on the page instead.
  if ! BENCH_OUT="$raw/firmware.md" ../firmware/bench.sh >&2; then
    echo "FAILED|firmware|all boards|bench.sh|per-operation (see the run's log)" >>"$raw/failures.txt"
    rm -f "$raw/firmware.md"
  fi
fi

# What one restart costs and the bytes of a restart policy, on the M33
# (firmware/src/bin/bench_restart.rs): tables.py's "Restarts" section.
if [[ -z ${SKIP_FIRMWARE:-} && " $BOARDS " == *" an505 "* ]]; then
  echo "== firmware bench_restart (an505)" >&2
  if ! (cd ../firmware && CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target/firmware}" \
    cargo run --locked --quiet --release --target thumbv8m.main-none-eabihf \
    --features an505,panic-message,bench-restart --bin bench_restart \
    >"$raw/restart-an505.txt" 2>"$raw/restart-an505.txt.err"); then
    echo "FAILED|ours|an505|bench_restart|RESTART (see $raw/restart-an505.txt.err)" |
      tee -a "$raw/failures.txt" >&2
  fi
fi

python3 tables.py "$raw" >../BENCHMARKS.md
echo "wrote BENCHMARKS.md" >&2
