#!/usr/bin/env bash
# The controller against taskvisor 0.7 (tokio current_thread), one run, the
# same way for both: every case runs under valgrind's callgrind at two job
# counts, and a job's cost is the difference in instructions (all threads)
# divided by the difference in jobs, so setup and shutdown cancel out.
# Prints a markdown section for ../../BENCHMARKS.md. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")"
J1=${J1:-1024}
J2=${J2:-3072}
cargo build --locked --quiet --release
bin=target/release/bench-host
count() { # side scenario mode jobs -> instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 >/dev/null |
    awk '/Collected :/ { print $NF }'
}
per_job() { # side scenario mode
  local a b
  a=$(count "$1" "$2" "$3" "$J1") || return 1
  b=$(count "$1" "$2" "$3" "$J2") || return 1
  [[ -n $a && -n $b ]] || return 1
  echo $(((b - a) / (J2 - J1)))
}
cat <<MD
### The controller against taskvisor 0.7 (host, instructions per job)

\`bench/host/\` (\`bench/host/run.sh\`, run by \`bench/run.sh\`): this repository's
\`Controller\` on embassy's std executor against taskvisor 0.7 on tokio's
current_thread runtime, the same scenarios and checks on both (each run exits
non-zero unless every outcome is the expected one). Instructions counted by
valgrind's callgrind (every thread), each case at $J1 and $J2 jobs; the figure is
the difference divided by $((J2 - J1)), so process setup and shutdown cancel.
Release builds, the host's rustc.

- **unwatched**: fire-and-forget \`submit\`, then wait until the last job ran
  (rejections: one watched submission at the end, FIFO after the others);
- **watched in turn**: \`submit_and_watch\` and await each outcome before the
  next submission;
- **window of 64**: every submission watched, 64 watchers in flight at once
  (one task per watcher on both sides).
  Ours holds at most 256 watches at once (\`WATCH\` is a const parameter), so
  "every one of 10,000 submissions watched at once", which taskvisor can do,
  is not a case ours can run; the window is the nearest both run.

| scenario | mode | ours | taskvisor 0.7 | taskvisor ÷ ours |
| --- | --- | ---: | ---: | ---: |
MD
for sc in one many reject; do
  case $sc in
    one) name="instant jobs, one slot (Queue)" ;;
    many) name="instant jobs over 64 slots (Queue)" ;;
    reject) name="DropIfRunning on a busy slot (all rejected)" ;;
  esac
  for mode in unwatched turn window; do
    case $mode in
      unwatched) m="unwatched" ;;
      turn) m="watched in turn" ;;
      window) m="window of 64" ;;
    esac
    o=$(per_job ours $sc $mode) || o=FAILED
    t=$(per_job taskvisor $sc $mode) || t=FAILED
    r=$(awk -v o="$o" -v t="$t" 'BEGIN { if (o + 0 > 0 && t + 0 > 0) printf "%.1f", t / o; else print "–" }')
    echo "| $name | $m | $o | $t | $r |"
  done
done
