#!/usr/bin/env bash
# The firmware's own benchmarks: the cost benchmark under QEMU with
# `-icount shift=0,sleep=off` (1 virtual ns = 1 guest instruction), pool
# grow/shrink, the trace recorders and the footprint of the reference firmware
# with and without the supervisor. Writes a markdown section to $BENCH_OUT;
# ../bench/run.sh runs it and puts that section into ../BENCHMARKS.md (run
# that to regenerate the page).
# Needs qemu-system-arm, arm-none-eabi-size and the rustup targets.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target/firmware}"
out=${BENCH_OUT:-$CARGO_TARGET_DIR/bench-firmware.md}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_bench() { # target board -> $tmp/bench-<board>.txt
  cargo run --locked --quiet --release --target "$1" --features "$2,panic-message,bench" \
    --bin bench >"$tmp/bench-$2.txt"
}
run_bench thumbv8m.main-none-eabihf an505
run_bench thumbv6m-none-eabi microbit
# Pool grow and shrink, in a 4-slot graph and as the last slots of a big one
# (bench_pool.rs; it fails if the big graph costs more: pitfall 14).
run_pool() { # target board -> $tmp/pool-<board>.txt
  cargo run --locked --quiet --release --target "$1" --features "$2,panic-message,bench" \
    --bin bench_pool >"$tmp/pool-$2.txt"
}
run_pool thumbv8m.main-none-eabihf an505
run_pool thumbv6m-none-eabi microbit

# The trace recorders: cost per hook call at N = 8 and 64 (bench_trace.rs),
# and the RAM of their tables (every static of embassy_supervisor::trace).
run_trace() { # target board -> $tmp/trace-<board>.txt
  cargo run --locked --quiet --release --target "$1" --features "$2,panic-message,bench-trace" \
    --bin bench_trace >"$tmp/trace-$2.txt"
}
run_trace thumbv8m.main-none-eabihf an505
run_trace thumbv6m-none-eabi microbit
trace_table() {
  echo "| recorder work | M33, N=8 | M33, N=64 | M0, N=8 | M0, N=64 |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  awk -F'|' '
    FNR == 1 { f++ }
    /^ROW\|TRACE/ { if (!($4 in seen)) { seen[$4] = 1; ops[++k] = $4 } v[f, $3, $4] = $5 }
    END { for (i = 1; i <= k; i++) printf "| %s | %s | %s | %s | %s |\n", ops[i], v[1, 8, ops[i]], v[1, 64, ops[i]], v[2, 8, ops[i]], v[2, 64, ops[i]] }
  ' "$tmp/trace-an505.txt" "$tmp/trace-microbit.txt"
}
# Cross-core spawn and stop on the two-core an521 (bench_mc.rs): the same
# worker on core 0 and on core 1, five cycles each.
cargo run --locked --quiet --release --target thumbv8m.main-none-eabi \
  --features an521,panic-message,suite --bin bench_mc >"$tmp/mc-an521.txt"
mc_table() {
  echo "| operation | same core (LOCAL on core 0) | cross-core (REMOTE on core 1) | cross-core extra |"
  echo "| --- | ---: | ---: | ---: |"
  awk -F'|' '
    function median(a, b, c, d, e,   v, i, j, t) {
      v[1] = a; v[2] = b; v[3] = c; v[4] = d; v[5] = e
      for (i = 1; i <= 5; i++) for (j = i + 1; j <= 5; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
      return v[3]
    }
    /^ROW\|MC\|/ { m[$3, $4] = median($5, $6, $7, $8, $9) }
    END {
      split("spawn stop", ops, " ")
      label["spawn"] = "spawn: `start_node` call → the instance'"'"'s first poll"
      label["stop"] = "stop: `stop_node` call → it returns the ack"
      for (k = 1; k <= 2; k++) {
        o = ops[k]; l = m["LOCAL (core 0)", o]; r = m["REMOTE (core 1)", o]
        printf "| %s | %s | %s | +%d |\n", label[o], l, r, r - l
      }
    }' "$tmp/mc-an521.txt"
}
trace_ram=$(arm-none-eabi-nm -S -C -t d "$CARGO_TARGET_DIR/thumbv8m.main-none-eabihf/release/bench_trace" |
  awk '$3 ~ /^[bBdD]$/ && $4 ~ /^embassy_supervisor::trace::/ { s += $2 } END { print s + 0 }')

# Cost table: per op and N, total and per-node instructions; the marginal
# per-node cost between the two largest N shows whether cost is linear.
cost_table() { # file
  awk -F'|' '
    /^ROW\|POOL/ { next }
    /^ROW/ && $3 != "" {
      key = $2 "|" $4; if (!($3 in seen)) { seen[$3] = 1; sorted[++nn] = $3 }
      order[key] = order[key] ? order[key] : ++k
      total[key, $3] = $6; per[key, $3] = $7; nodes[key, $3] = $5
    }
    END {
      printf "| workload | operation |"
      for (i = 1; i <= nn; i++) printf " N=%s total (per node) |", sorted[i]
      printf " marginal per node, N=%s→%s |\n", sorted[nn-1], sorted[nn]
      printf "| --- | --- |"; for (i = 1; i <= nn + 1; i++) printf " ---: |"; printf "\n"
      n = 0; for (key in order) idx[order[key]] = key
      for (j = 1; j <= k; j++) {
        key = idx[j]; split(key, p, "|"); if (p[1] == "POOL") continue
        printf "| %s | %s |", p[1], p[2]
        for (i = 1; i <= nn; i++) {
          t = total[key, sorted[i]]
          if (t == "") printf " – |"; else printf " %s (%s) |", t, per[key, sorted[i]]
        }
        a = total[key, sorted[nn-1]]; b = total[key, sorted[nn]]
        if (a != "" && b != "" && a != "FAILED" && b != "FAILED" && nodes[key, sorted[nn]] != nodes[key, sorted[nn-1]])
          printf " %d |\n", (b - a) / (nodes[key, sorted[nn]] - nodes[key, sorted[nn-1]])
        else printf " – |\n"
      }
    }' "$1"
}
pool_table() {
  echo "| operation | graph slots | instructions (3 runs) |"
  echo "| --- | ---: | ---: |"
  awk -F'|' '/^ROW\|POOL/ { k = $4 "|" $3; v[k] = v[k] (v[k] ? ", " : "") $6 }
    END { for (k in v) { split(k, p, "|"); printf "| %s | %s | %s |\n", p[1], p[2], v[k] } }' "$1" |
    sort -t'|' -k2,2 -k3,3n
}
# The supervisor's own share: a verb's total minus the embassy-only baseline
# for the same N (spawning verbs minus the direct spawn, stopping verbs minus
# the direct stop). Prints "workload|op|N|total|baseline|share|per node"
# lines, in workload, verb and N order.
shares() { # file
  awk -F'|' '
    /^ROW\|embassy only\|/ { base[$3, $4] = $6; next }
    /^ROW\|(CHAIN|WIDE)\|/ {
      if (!($3 in seenn)) { seenn[$3] = 1; ns[++nn] = $3 }
      tot[$2, $3, $4] = $6
    }
    END {
      nops = split("start|respawn_terminate|teardown|deactivate(root)|activate(last)", ops, "|")
      for (w = 1; w <= 2; w++) {
        wl = w == 1 ? "CHAIN" : "WIDE"
        for (o = 1; o <= nops; o++) {
          op = ops[o]
          # WIDE activate(last) brings up 2 nodes, not N: no baseline for it.
          if (op == "activate(last)" && wl != "CHAIN") continue
          b = (op == "teardown" || op == "deactivate(root)") ? "direct stop, dependents first" : "direct spawn + first poll"
          for (i = 1; i <= nn; i++) {
            n = ns[i]; t = tot[wl, n, op]; d = base[n, b]
            if (t ~ /^[0-9]+$/ && d ~ /^[0-9]+$/)
              printf "%s|%s|%s|%s|%s|%d|%d\n", wl, op, n, t, d, t - d, int((t - d) / n)
            else
              printf "%s|%s|%s|%s|%s|FAILED|FAILED\n", wl, op, n, t, d
          }
        }
      }
    }' "$1"
}
share_table() { # file
  echo "| workload | operation − baseline | N | total | baseline | supervisor share | share per node |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
  shares "$1" | awk -F'|' '{
    b = ($2 == "teardown" || $2 == "deactivate(root)") ? "direct stop" : "direct spawn"
    printf "| %s | %s − %s | %s | %s | %s | %s | %s |\n", $1, $2, b, $3, $4, $5, $6, $7 }'
}
info() { awk -F'|' -v k="$2" '$1 == "INFO" && $2 == k { print $3 }' "$1"; }

# Footprint: release builds (opt-level "s", LTO, 1 CGU, panic=abort).
size_row() { # target board
  local b dir="$CARGO_TARGET_DIR/$1/release"
  for b in ref_supervised ref_direct ref_supervised_16 ref_direct_16 ref_core; do
    # Each reference checks its own behaviour and exits non-zero on failure.
    cargo run --locked --quiet --release --target "$1" --features "$2" --bin "$b" >&2 ||
      { echo "$b failed on $2" >&2; exit 1; }
  done
  read -r st sd sb _ < <(arm-none-eabi-size "$dir/ref_supervised" | tail -1)
  read -r dt dd db _ < <(arm-none-eabi-size "$dir/ref_direct" | tail -1)
  read -r st2 sd2 sb2 _ < <(arm-none-eabi-size "$dir/ref_supervised_16" | tail -1)
  read -r dt2 dd2 db2 _ < <(arm-none-eabi-size "$dir/ref_direct_16" | tail -1)
  read -r ct cd cb _ < <(arm-none-eabi-size "$dir/ref_core" | tail -1)
  local flash=$(( (st + sd) - (dt + dd) )) ram=$(( (sd + sb) - (dd + db) ))
  local cflash=$(( (ct + cd) - (dt + dd) )) cram=$(( (cd + cb) - (dd + db) ))
  local flash2=$(( (st2 + sd2) - (dt2 + dd2) )) ram2=$(( (sd2 + sb2) - (dd2 + db2) ))
  # Per extra node: how the difference grows from CHAIN(8) to CHAIN(16).
  echo "| $2 | $dt / $dd / $db | $st / $sd / $sb | +$flash | +$ram | $(( (flash2 - flash) / 8 )) | $(( (ram2 - ram) / 8 )) | +$cflash | +$cram |"
}
sizes=$(size_row thumbv8m.main-none-eabihf an505; size_row thumbv7m-none-eabi an385; size_row thumbv6m-none-eabi microbit)

an505="$tmp/bench-an505.txt"
mb="$tmp/bench-microbit.txt"
{
cat <<'MD'
# Per operation, pool scan, trace recorders (firmware/)

These tables come from `firmware/bench.sh` (run by `bench/run.sh`); they
measure our crate alone, for its per-operation costs, its linearity and its
pool lookups; the comparisons with other crates are in the side-by-side
tables above.

It builds `firmware/` (release: opt-level "s", LTO, one codegen unit,
panic=abort) and runs the cost benchmark (`firmware/src/bin/bench.rs`) under
`qemu-system-arm -icount shift=0,sleep=off`: virtual time advances one
nanosecond per guest instruction and idle time is skipped, so an
`embassy_time::Instant` difference is an instruction count on the real ISA,
identical on every run and host. The firmware's SysTick driver reads the
SysTick counter inside the millisecond, so one embassy tick is one core cycle
(50 instructions on mps2-an505 at 20 MHz; 62.5 on the micro:bit at 16 MHz):
every figure is a multiple of that.

**What a figure includes.** The instructions from the call until the executor
next runs out of work, minus the same probe around an empty body: the
supervisor's own code, the workers' part (first poll, ack, exit), the
executor's scheduling, critical sections and timer-queue updates. Every
worker is the canonical
`node.run_cancellable_acked(pending()).await; node.mark_exited()`, and node i
runs its own task `w{i}` (pool_size 1, generated by `firmware/build.rs`): one
task per node type, as applications are written. (Before, all workers shared
one `pool_size = N + 4` task, and embassy's `TaskPool` searches its slots
linearly for a free one, so every spawn cost O(N) of embassy's time and the
figures could not show whether our own cost is linear.) The 4 elastic-pool
members share one `pool_size = 4` task. CHAIN(N): node i depends on node i-1.
WIDE(N): one root, N-1 dependents. Per node = total / nodes touched.

MD
echo "## Toolchain"
echo
echo "- $(rustc -V)"
echo "- $(qemu-system-arm --version | head -1)"
echo "- embassy-executor $(awk '/^name = "embassy-executor"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock), embassy-time $(awk '/^name = "embassy-time"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)"
echo "- runtime features: \`pool\` + \`control\` (bench), \`pool\` (footprint references)"
echo
echo "## Cost on mps2-an505 (Cortex-M33), guest instructions"
echo
echo "Probe overhead subtracted: $(info "$an505" "probe overhead (instr)") instructions. \`size_of::<TaskNode>()\` on target: $(info "$an505" "size_of::<TaskNode>()") bytes."
echo
cost_table "$an505"
echo
cat <<'MD'
"embassy only" rows are the same work done without the supervisor:

- **direct spawn + first poll**: each worker's own spawn fn `spawn_w{i}`
  (the one its node holds: token, spawn) called directly in slot order, and
  the task's first poll; no supervisor code runs inside the probe. Before it,
  untimed, the workers are `adopt`ed (marked running) so the supervisor can
  stop them afterwards.
- **direct stop, dependents first**: N baseline tasks `d{i}` (one task each,
  pool_size 1), already spawned and parked on their own embassy-sync
  `Signal`; the probe signals them in reverse slot order (dependents before
  their dependencies, as teardown orders them) and awaits each task's own
  "done" `Signal`, raised as its last act, before stopping the next. Per
  node: a signal, a wake, a poll to completion, the task's release and the
  probe's wake. (`Signal` measured cheaper than an `AtomicBool` +
  `AtomicWaker` pair.)

### Supervisor share (mps2-an505)

A verb's total minus the baseline for the same N: what the supervisor adds
over spawning or stopping the same tasks by hand. `start`,
`respawn_terminate` and the CHAIN `activate(last)` (which brings up all N
nodes) are measured against the direct spawn; `teardown` and
`deactivate(root)` against the direct stop. Share per node = share / N.

MD
share_table "$an505"
echo
echo "Elastic pool (\`firmware/src/bin/bench_pool.rs\`; 4 members, \`DeferredShrink\` with a"
echo "zero cooldown): one grow is \`mark_busy()\` → driver wake → policy → spawn → first poll;"
echo "one shrink is \`mark_idle()\` → driver wake → policy → stop → ack → exit. The same pool"
echo "alone in a 4-slot graph and as the last 4 slots of a 250-slot one (64 on the micro:bit):"
echo "no pool lookup scans the graph (pitfall 14), and the binary fails if the big graph's"
echo "mean is more than two ticks (250 instructions at least) above the small one's."
echo
pool_table "$tmp/pool-an505.txt"
echo
echo "## Trace recorders (feature \`trace\`), guest instructions per call"
echo
echo "\`firmware/src/bin/bench_trace.rs\`: CHAIN(8) and CHAIN(64) run at once, each node in its"
echo "own task storage and bound to its node (72 tasks in the attribution table); each figure is"
echo "the mean of 200 back-to-back calls, less an empty loop, for the middle node's task and for"
echo "an id no task has. Flat from N=8 to N=64: attribution does not scan the graph. Tables:"
echo "$trace_ram B of RAM (attribution table, executor and graph registries); each node"
echo "$(( $(info "$tmp/trace-an505.txt" "size_of::<TaskNode>() with trace") - $(info "$an505" "size_of::<TaskNode>()") )) B more (\`size_of::<TaskNode>()\` $(info "$tmp/trace-an505.txt" "size_of::<TaskNode>() with trace") B)."
echo
trace_table
echo
echo "## Cross-core spawn and stop on mps2-an521 (2x Cortex-M33), guest instructions of both cores"
echo
echo "\`firmware/src/bin/bench_mc.rs\`: one OnDemand node on core 0 and one routed to core 1"
echo "(\`executor: CORE1\`, core 1 running its own executor), the same worker, five"
echo "start/stop cycles each, median shown. Under \`-icount\` QEMU runs the two cores"
echo "round-robin on one virtual clock, so a figure is the instructions *both* cores"
echo "executed: the supervisor on core 0, the executor and worker on core 1, the"
echo "doorbell (MHU) interrupts and the two-core critical sections. The runs are"
echo "deterministic: every cycle after the first gives the same figure, on every run."
echo "They count work, not latency: on silicon the two cores overlap, so the wall time of a"
echo "cross-core spawn can be shorter than the sum."
echo "Built with the suite's features (\`control\`, \`readiness\`, \`controller\`, \`pool\`)."
echo
mc_table
echo
echo "## Cost on the micro:bit (Cortex-M0, 16 KiB RAM: N ≤ 64), guest instructions"
echo
cost_table "$mb"
echo
echo "Supervisor share on the micro:bit (same baselines):"
echo
share_table "$mb"
echo
pool_table "$tmp/pool-microbit.txt"
echo
cat <<'MD'
## Footprint: CHAIN(8) + a 4-member pool, start → teardown → respawn

`firmware/src/reference/supervised.rs` against `firmware/src/reference/direct.rs`
(the same 12 tasks spawned directly with embassy, stopped by one `Signal` each,
spawned again), each built with CHAIN(8) (`ref_supervised`, `ref_direct`) and
CHAIN(16) (`ref_supervised_16`, `ref_direct_16`); every build runs under QEMU
and checks its own behaviour first. Both carry the same board support (SysTick
driver, executor, semihosting exit, fault handlers). Flash = text + data,
RAM = data + bss. "Per extra node" = how much the supervised-minus-direct
difference grows per node from CHAIN(8) to CHAIN(16): the cost of one more
node, with the fixed cost of the runtime code taken out. "Core only" is
`ref_core`: the same template with the pool left out (CHAIN(12), no pool
driver linked) against the same `ref_direct`: what the lifecycle core alone
(start, teardown, respawn, the ack wait) costs for 12 nodes.

| board | direct text / data / bss | supervised text / data / bss | flash | RAM | flash per extra node | RAM per extra node | core only: flash | core only: RAM |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
MD
echo "$sizes"
echo
cat bench-notes.md
} >"$out"
echo "wrote $out"
