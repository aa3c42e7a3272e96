#!/usr/bin/env bash
# The controller against taskvisor 0.9 and 0.7 (tokio current_thread), one
# run, the same way for every side: every case runs under valgrind's callgrind at two job
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
ratio() { # theirs ours -> theirs / ours, one decimal
  awk -v t="$1" -v o="$2" 'BEGIN { if (o + 0 > 0 && t + 0 > 0) printf "%.1f", t / o; else print "–" }'
}
per_job() { # side scenario mode
  local a b
  a=$(count "$1" "$2" "$3" "$J1") || return 1
  b=$(count "$1" "$2" "$3" "$J2") || return 1
  [[ -n $a && -n $b ]] || return 1
  echo $(((b - a) / (J2 - J1)))
}
cat <<MD
### The controller against taskvisor 0.9 and 0.7 (host, instructions per job)

\`bench/host/\` (\`bench/host/run.sh\`, run by \`bench/run.sh\`): this repository's
\`Controller\` on embassy's std executor against taskvisor 0.9 (the current
release) and 0.7 (the one earlier runs measured) on tokio's current_thread
runtime, the same scenarios and checks on every side (each run exits non-zero
unless every outcome is the expected one). On 0.9 the bounds 0.8 added
(registered tasks, owned lifetimes, tracked slots, total pending) are lifted,
as 0.7 has none: their defaults of 1024 are below the jobs a case queues.
Instructions counted by
valgrind's callgrind (every thread), each case at $J1 and $J2 jobs; the figure is
the difference divided by $((J2 - J1)), so process setup and shutdown cancel.
Release builds, the host's rustc.

- **unwatched**: fire-and-forget \`submit\`, then wait until the last job ran
  (rejections: one watched submission at the end, FIFO after the others);
- **watched in turn**: \`submit_and_watch\` (\`submit(..).watch()\` on 0.9) and
  await each outcome before the next submission;
- **window of 64**: every submission watched, 64 watchers in flight at once
  (one task per watcher on every side).
  Ours holds at most 256 watches at once (\`WATCH\` is a const parameter), so
  "every one of 10,000 submissions watched at once", which taskvisor can do,
  is not a case ours can run; the window is the nearest both run.

| scenario | mode | ours | taskvisor 0.9 | 0.9 ÷ ours | taskvisor 0.7 | 0.7 ÷ ours |
| --- | --- | ---: | ---: | ---: | ---: | ---: |
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
    t7=$(per_job taskvisor07 $sc $mode) || t7=FAILED
    echo "| $name | $m | $o | $t | $(ratio "$t" "$o") | $t7 | $(ratio "$t7" "$o") |"
  done
done
