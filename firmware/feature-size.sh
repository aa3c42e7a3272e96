#!/usr/bin/env bash
# What each opt-in feature costs in flash and RAM, and what lean defaults save,
# measured on the footprint references (release: opt-level "s", LTO, 1 CGU)
# with arm-none-eabi-size; every build first runs under QEMU and passes its
# own check. Prints markdown rows; the figures in BENCHMARKS.md come from it.
#
# - Diagnostics (`breadcrumb`, `lifecycle-sink`, `log`): `ref_supervised`
#   (CHAIN(8) + a 4-member pool) with the feature on, minus the same build
#   with it off. Used as an application would: the breadcrumb build reads the
#   word at the end, the sink build installs a callback that counts (its few
#   bytes are included); the log build installs no logger (log's no-op one).
# - Lean defaults: `ref_core` (CHAIN(12), no pool) brought up by
#   `Supervisor::run` (feature `ref-run`) with the former defaults
#   (`control` + `pool`) minus the same build with neither.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target/firmware}"

size() { # target bin -> "text data bss"
  arm-none-eabi-size "$CARGO_TARGET_DIR/$1/release/$2" | tail -1 | awk '{ print $1, $2, $3 }'
}
build() { # target bin cargo-args...
  local t=$1 b=$2; shift 2
  cargo run --locked --quiet --release --target "$t" "$@" --bin "$b" >/dev/null ||
    { echo "$b failed ($*)" >&2; exit 1; }
  size "$t" "$b"
}
delta() { # "text data bss" "text data bss" -> "+flash B / +ram B"
  read -r t1 d1 b1 <<<"$1"; read -r t2 d2 b2 <<<"$2"
  echo "$(( (t2 + d2) - (t1 + d1) )) B / $(( (d2 + b2) - (d1 + b1) )) B"
}

echo "| board | breadcrumb | lifecycle-sink | log | \`control\` + \`pool\` under \`run\` (what lean defaults save) |"
echo "| --- | ---: | ---: | ---: | ---: |"
for entry in "thumbv8m.main-none-eabihf an505" "thumbv7m-none-eabi an385" "thumbv6m-none-eabi microbit"; do
  read -r t b <<<"$entry"
  base=$(build "$t" ref_supervised --features "$b")
  row="| $b"
  for f in breadcrumb lifecycle-sink embassy-supervisor/log; do
    row="$row | $(delta "$base" "$(build "$t" ref_supervised --features "$b,$f")")"
  done
  lean=$(build "$t" ref_core --no-default-features --features "$b,ref-run")
  full=$(build "$t" ref_core --features "$b,ref-run,embassy-supervisor/control")
  echo "$row | $(delta "$lean" "$full") |"
done
