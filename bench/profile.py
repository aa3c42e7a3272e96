#!/usr/bin/env python3
"""Where a verb's instructions go: one cost run traced instruction by
instruction under QEMU, counted per function and per verb.

    bench/profile.py [--side ours] [--shape CHAIN] [--n 64] [--verb start] [--pcs SYMBOL]
    bench/profile.py --bin pool --verb {grow,shrink} [--side ours] [--pcs SYMBOL]
    bench/profile.py --board microbit ...   (or an385; default an505)

Builds `<side>/src/bin/cost.rs` for the board (the workload from the
options, as `run.sh` sets it), runs it with `-singlestep -d exec,nochain` (one
trace line per guest instruction executed) and splits the trace at each call
of `cost::row`, so segment k is verb k of `common/cost.rs` (start, teardown,
respawn_terminate, deactivate(root), activate(last), and on WIDE the two
2-running deactivates) with the row printing of
the verb before it (for `--side floor`: start = its spawn, teardown = its
stop). Per function: instructions, and per node (÷ N). The
first segment also holds the boot. `--pcs SYMBOL` prints the disassembly of
the functions whose name contains SYMBOL with each instruction's count in
that verb. Needs qemu-system-arm and arm-none-eabi-{nm,objdump}. A tool for
finding what to optimize; the tables come from run.sh.
"""

import argparse
import bisect
import collections
import os
import subprocess
import tempfile

VERBS = ["start", "teardown", "respawn", "deactivate", "activate", "deactivate_leaf2", "deactivate2"]
# `--bin pool` (common/pool.rs, one root and a 4-member pool): segment 2 is
# the second grow, segment 3 the second shrink (the first ones share their
# segments with the boot and the start).
POOL_VERBS = {"grow": 2, "shrink": 3}
# Board -> (target triple, QEMU machine and CPU), as bench/.cargo/config.toml runs them.
BOARDS = {
    "an505": ("thumbv8m.main-none-eabihf", "-machine mps2-an505 -cpu cortex-m33"),
    "an385": ("thumbv7m-none-eabi", "-machine mps2-an385 -cpu cortex-m3"),
    "microbit": ("thumbv6m-none-eabi", "-machine microbit"),
}
QEMU_REST = (
    "-nographic -monitor none -serial none -icount shift=0,sleep=off "
    "-semihosting-config enable=on,target=native -singlestep -d exec,nochain"
)


def symbols(elf):
    out = subprocess.run(
        ["arm-none-eabi-nm", "-C", "-S", "--defined-only", elf],
        capture_output=True, text=True, check=True,
    ).stdout
    syms = []
    for line in out.splitlines():
        p = line.split(" ", 3)
        if len(p) == 4 and p[2].lower() in "tw":
            syms.append((int(p[0], 16) & ~1, int(p[1], 16), p[3]))
    syms.sort()
    return syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", default="ours")
    ap.add_argument("--shape", default="CHAIN")
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--verb", default="start", choices=VERBS + list(POOL_VERBS))
    ap.add_argument("--bin", default="cost", choices=["cost", "pool"])
    ap.add_argument("--pcs", default=None)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--board", default="an505", choices=list(BOARDS))
    a = ap.parse_args()
    target_triple, machine = BOARDS[a.board]
    qemu = ["qemu-system-arm"] + machine.split() + QEMU_REST.split()
    here = os.path.dirname(os.path.abspath(__file__))
    if a.bin == "pool":
        # The workload run.sh gives the pool bin: one root, 4 members, no cooldown.
        a.shape, a.n = "CHAIN", 1
    env = dict(os.environ, BENCH_SHAPE=a.shape, BENCH_N=str(a.n),
               BENCH_POOL="4" if a.bin == "pool" else "0", BENCH_COOLDOWN_MS="0")
    subprocess.run(
        ["cargo", "build", "--locked", "--quiet", "--release", "--target", target_triple,
         "--features", f"{a.board},panic-message", "--bin", a.bin],
        cwd=os.path.join(here, a.side), env=env, check=True,
    )
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(here, "target"))
    elf = os.path.join(target, target_triple, "release", a.bin)
    syms = symbols(elf)
    starts = [s[0] for s in syms]
    row = next(s[0] for s in syms if s[2] == f"{a.bin}::row")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "trace.log")
        subprocess.run(qemu + ["-D", log, "-kernel", elf], check=True, stdout=subprocess.DEVNULL)
        seg = 0
        want = POOL_VERBS[a.verb] if a.bin == "pool" else VERBS.index(a.verb)
        per_pc = collections.Counter()
        for line in open(log):
            if not line.startswith("Trace"):
                continue
            pc = int(line.split("[")[1].split("/")[1], 16)
            if pc == row:
                seg += 1
            if seg == want:
                per_pc[pc] += 1
    per_fn = collections.Counter()
    for pc, k in per_pc.items():
        i = bisect.bisect_right(starts, pc) - 1
        name = syms[i][2] if i >= 0 and pc < syms[i][0] + max(syms[i][1], 2) else hex(pc)
        per_fn[name] += k
    print(f"{a.side} {a.shape}({a.n}) {a.verb}: {sum(per_fn.values())} instructions traced")
    for name, k in per_fn.most_common(a.top):
        print(f"{k:8d} {k / a.n:7.1f}  {name[:120]}")
    if a.pcs:
        for start, size, name in syms:
            if a.pcs not in name or not any(start <= pc < start + size for pc in per_pc):
                continue
            print(f"== {name}")
            dis = subprocess.run(
                ["arm-none-eabi-objdump", "-d", "--no-show-raw-insn", elf,
                 f"--start-address={start:#x}", f"--stop-address={start + size:#x}"],
                capture_output=True, text=True, check=True,
            ).stdout
            for line in dis.splitlines():
                head = line.strip().split(":")[0]
                try:
                    pc = int(head, 16)
                except ValueError:
                    continue
                print(f"{per_pc.get(pc, 0):6d} {line.strip()[:110]}")


main()
