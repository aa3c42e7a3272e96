#!/usr/bin/env python3
"""Render BENCHMARKS.md from one bench/run.sh run (argument: its raw directory).

Every figure set side by side here comes from that run: the same workloads,
tasks, profile and QEMU line for every side. Nothing is typed in by hand.
"""

import os
import sys

RAW = sys.argv[1]
# "ours" is typed with what the graph uses (`Supervisor<N, { GRAPH_USES |
# GRAPH_WIDTH }>`), "ours-every" is the same build in the specification's
# form (`Supervisor<N>`, `Supervisor::new(&GRAPH)`; feature every-use).
SIDES = ["ours", "ours-every", "v034", "v012"]
LABEL = {
    "ours": "ours",
    "ours-every": "ours (`Supervisor<N>`)",
    "v034": "0.3.4",
    "v012": "0.12.0",
    "floor": "floor",
}
BOARDS = [
    ("an505", "mps2-an505 (Cortex-M33)"),
    ("an385", "mps2-an385 (Cortex-M3)"),
    ("microbit", "micro:bit (Cortex-M0)"),
]
OPS = [
    "start",
    "teardown",
    "respawn_terminate",
    "deactivate(root)",
    "activate(last)",
    "deactivate(leaf), 2 running",
    "deactivate(root), 2 running",
]
# The floor each verb is set against: spawning verbs against the direct spawn
# + first poll, stopping verbs against the signal-and-join stop.
FLOOR_OF = {
    "start": "spawn + first poll",
    "respawn_terminate": "spawn + first poll",
    "activate(last)": "spawn + first poll",
    "teardown": "stop, dependents first",
    "deactivate(root)": "stop, dependents first",
}
# WIDE rows that touch only some of the N nodes (activate(last) brings up 2,
# the 2-running deactivates stop 1 or 2): the floor has no row of that size.
NO_FLOOR = {"activate(last)", "deactivate(leaf), 2 running", "deactivate(root), 2 running"}


def read(path):
    rows, info, sizes = {}, {}, {}
    if not os.path.exists(path):
        return rows, info, sizes
    for line in open(path):
        p = line.rstrip("\n").split("|")
        if p[0] == "ROW" and p[1] != "POOL":
            # ROW|shape|N|op|nodes|total|per
            rows[(p[1], int(p[2]), p[3])] = (int(p[4]), int(p[5]) if p[5].isdigit() else None)
        elif p[0] == "INFO":
            info[p[1]] = p[2]
        elif p[0] == "SIZE":
            sizes[p[2]] = tuple(int(x) for x in p[3:6])
    return rows, info, sizes


def load(board):
    d = os.path.join(RAW, board)
    if not os.path.isdir(d):
        return None
    cost, info, size = {}, {}, {}
    for side in SIDES + ["floor"]:
        cost[side], info[side], size[side] = {}, {}, {}
        for f in sorted(os.listdir(d)):
            if f.startswith(side + ".") and f.endswith(".txt"):
                r, i, s = read(os.path.join(d, f))
                cost[side].update(r)
                info[side].update(i)
                size[side].update(s)
    return cost, info, size


def fmt(v):
    return "–" if v is None else str(v)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}"


def superlinear(points):
    """points: [(N, total)] ascending. True if the cost grows faster than
    linearly: with three sizes, the marginal cost per node between the two
    largest is over 1.5x the one between the two smallest and the excess over
    the linear extrapolation is over 4000 instructions (four ticks of the
    coarsest clock, the an385's: no flag from rounding); with two sizes, the
    total grows over 1.5x faster than N."""
    pts = [(n, t) for n, t in points if t is not None]
    if len(pts) >= 3:
        (n0, t0), (n1, t1), (n2, t2) = pts[-3:]
        m01, m12 = (t1 - t0) / (n1 - n0), (t2 - t1) / (n2 - n1)
        excess = (t2 - t1) - m01 * (n2 - n1)
        return m12 > 1.5 * max(m01, 1) and excess > 4000
    if len(pts) == 2:
        (n0, t0), (n1, t1) = pts
        return t0 > 0 and (t1 / t0) > 1.5 * (n1 / n0)
    return False


def cost_table(board, cost):
    out = []
    ns = sorted({k[1] for k in cost["ours"]} | {k[1] for k in cost["floor"]})
    out.append(
        "| workload | operation | N | ours | ours (`Supervisor<N>`) | 0.3.4 | 0.12.0 | floor "
        "| ours ÷ 0.3.4 | `Supervisor<N>` ÷ 0.3.4 | ours ÷ 0.12.0 "
        "| share per node: ours | `Supervisor<N>` | 0.3.4 | 0.12.0 |"
    )
    out.append("| --- | --- | ---: |" + " ---: |" * 12)
    flagged = []
    for shape in ["CHAIN", "WIDE"]:
        for op in OPS:
            for side in SIDES:
                pts = [(n, cost[side].get((shape, n, op), (0, None))[1]) for n in ns]
                if superlinear(pts):
                    flagged.append((shape, op, side))
            if not any((shape, n, op) in cost[s] for s in SIDES for n in ns):
                continue  # a row of the other shape only
            for n in ns:
                tot = {s: cost[s].get((shape, n, op), (0, None))[1] for s in SIDES}
                nodes = cost["ours"].get((shape, n, op), (n, None))[0]
                comparable = not (shape == "WIDE" and op in NO_FLOOR)
                fl = cost["floor"].get((shape, n, FLOOR_OF.get(op)), (0, None))[1]

                def cell(s):
                    t = tot[s]
                    if t is None:
                        return "–"
                    mark = " ⚠" if (shape, op, s) in flagged else ""
                    return f"{t} ({t // nodes}){mark}"

                def share(s):
                    if not comparable or tot[s] is None or fl is None:
                        return "–"
                    return str((tot[s] - fl) // n)

                out.append(
                    f"| {shape} | {op} | {n} | {cell('ours')} | {cell('ours-every')} "
                    f"| {cell('v034')} | {cell('v012')} "
                    f"| {fmt(fl) + ' (' + str(fl // n) + ')' if comparable and fl is not None else '–'} "
                    f"| {ratio(tot['ours'], tot['v034'])} | {ratio(tot['ours-every'], tot['v034'])} "
                    f"| {ratio(tot['ours'], tot['v012'])} "
                    f"| {share('ours')} | {share('ours-every')} | {share('v034')} | {share('v012')} |"
                )
    return out, flagged


def size_table(loaded):
    out = [
        "| board | workload | floor text / data / bss | ours | ours (`Supervisor<N>`) | 0.3.4 "
        "| 0.12.0 | flash over floor: ours | `Supervisor<N>` | 0.3.4 | 0.12.0 "
        "| RAM over floor: ours | `Supervisor<N>` | 0.3.4 | 0.12.0 |",
        "| --- | --- |" + " ---: |" * 13,
    ]
    per_node = []
    for board, _ in BOARDS:
        if loaded.get(board) is None:
            continue
        size = loaded[board][2]
        for w in ["FP", "FP16", "CORE12", "FPRUN"]:
            # FPRUN (the FP graph under each side's driver with control)
            # is set against the floor's FP: the floor has no driver.
            fl = size["floor"].get("FP" if w == "FPRUN" else w)

            def tdb(s):
                v = size[s].get(w)
                return "–" if v is None else f"{v[0]} / {v[1]} / {v[2]}"

            def flash(s):
                v = size[s].get(w)
                return None if v is None or fl is None else (v[0] + v[1]) - (fl[0] + fl[1])

            def ram(s):
                v = size[s].get(w)
                return None if v is None or fl is None else (v[1] + v[2]) - (fl[1] + fl[2])

            floor_cell = tdb("floor") if w != "FPRUN" else "(FP's)"
            out.append(
                f"| {board} | {w} | {floor_cell} "
                + "".join(f"| {tdb(s)} " for s in SIDES)
                + "".join(f"| {sign(flash(s))} " for s in SIDES)
                + "".join(f"| {sign(ram(s))} " for s in SIDES)
                + "|"
            )
        # Per extra node: raw growth of each build from FP to FP16 (8 nodes).
        row = [board]
        for s in SIDES + ["floor"]:
            a, b = size[s].get("FP"), size[s].get("FP16")
            if a is None or b is None:
                row.append("–")
            else:
                row.append(
                    f"{((b[0] + b[1]) - (a[0] + a[1])) / 8:g} / {((b[1] + b[2]) - (a[1] + a[2])) / 8:g}"
                )
        per_node.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append(
        "Per extra node (FP16 − FP, ÷ 8), raw growth of each build, flash / RAM in bytes:"
    )
    out.append("")
    out.append("| board | ours | ours (`Supervisor<N>`) | 0.3.4 | 0.12.0 | floor |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    out.extend(per_node)
    return out


def pool_table(board):
    """Pool grow/shrink, three runs each, every side."""
    vals = {}
    for side in SIDES + ["floor"]:
        path = os.path.join(RAW, board, f"{side}.pool.POOL.txt")
        if not os.path.exists(path):
            continue
        for line in open(path):
            p = line.rstrip("\n").split("|")
            if p[:2] == ["ROW", "POOL"]:
                v = {"LATE": "after the probe", "UP": "no shrink before"}.get(p[5], p[5])
                vals.setdefault((p[3], side), []).append(v)
    if not vals:
        return []
    out = [
        "| operation | ours | ours (`Supervisor<N>`) | 0.3.4 | 0.12.0 | floor (spawn one / stop one) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for op in ["grow (mark_busy -> spawn)", "shrink (mark_idle -> stop)"]:
        cells = [", ".join(vals.get((op, s), ["–"])) for s in SIDES + ["floor"]]
        out.append(f"| {op} | " + " | ".join(cells) + " |")
    return out


# bench_restart's rows, in its order, with what each one covers.
RESTART_OPS = {
    "restart(leaf), no policy": "`restart(leaf)`, no policy (stop, ack, spawn, first poll)",
    "restart(leaf), policy + budget": "`restart(leaf)`, policy + budget",
    "restart(MID): MID + 2 leaves": "`restart(MID)`: MID and its two leaves, rest-for-one",
    "exit -> restart scheduled": "exit → restart scheduled (`mark_failed`, the driver's wake-up and its pass)",
    "restart(PLEAF) after its exit": "`restart(PLEAF)` after its exit (what the driver runs when the backoff ends)",
}


def restart_section():
    """One restart (M33 instructions) and the bytes per node with and
    without a restart policy, from bench_restart's output on the an505."""
    path = os.path.join(RAW, "restart-an505.txt")
    if not os.path.exists(path):
        return []
    rows, info = [], {}
    for line in open(path):
        p = line.rstrip("\n").split("|")
        if p[0] == "ROW" and p[1] == "RESTART":
            rows.append((p[3], p[5], p[6]))
        elif p[0] == "INFO":
            info[p[1]] = p[2]
    node = info.get("size_of::<TaskNode>() (RAM, every node)", "–")
    spec = info.get("size_of::<NodeSpec>() (flash, every node)", "–")
    rspec = info.get("size_of::<RestartSpec>() (flash, per policy node)", "–")
    state = info.get("size_of::<RestartState>() (RAM, per policy node)", "–")
    stamp = info.get("RestartLog bytes per budget restart (RAM)", "–")
    out = [
        "### Restarts on mps2-an505 (Cortex-M33), guest instructions",
        "",
        "`firmware/src/bin/bench_restart.rs`, with `Supervisor::run` driving the graph the whole",
        "time. Graph ROOT ← MID ← {LEAF, PLEAF}; PLEAF has `restart: on_failure`, a 10 ms backoff",
        "and a budget; LEAF has no restart configuration. Each figure is the median of five, from",
        "the call until the executor is idle, less the empty probe (the an505 tick is 50 ns, so",
        "figures are multiples of 50).",
        "",
        "| operation (M33, guest instructions) | total | per node |",
        "| --- | ---: | ---: |",
    ]
    for op, total, per in rows:
        out.append(f"| {RESTART_OPS.get(op, op)} | {total} | {per} |")
    out += [
        "",
        "| bytes per node (32-bit, `restart` feature on) | without a policy | with `restart:` and `restart_budget: R in T` |",
        "| --- | ---: | ---: |",
        f"| RAM (`TaskNode`; `RestartState`, {stamp} B per budget stamp) | {node} | {node} + {state} + {stamp}·R |",
        f"| flash (`NodeSpec`; `RestartSpec`) | {spec} | {spec} + {rspec} |",
    ]
    return out


def uses_table():
    """Ours typed `Supervisor<N, GRAPH_USES>` (the side `ours`) against the
    same build typed `Supervisor<N>` (`ours-every`): flash and RAM of FP and
    CORE12, and CHAIN(64) per node. None if the run has no `ours-every`."""
    out = []
    for board, _ in BOARDS:
        d = os.path.join(RAW, board)
        if not os.path.isdir(d):
            continue
        every, typed = {}, {}
        for side, into in (("ours-every", every), ("ours", typed)):
            for w in ("FP", "CORE12", "FPRUN"):
                bin_ = "fprun" if w == "FPRUN" else "fp"
                into[w] = read(os.path.join(d, f"{side}.{bin_}.{w}.txt"))[2].get(w)
            into["cost"] = read(os.path.join(d, f"{side}.cost.CHAIN64.txt"))[0]
        if every["CORE12"] is None and not every["cost"]:
            continue
        for w in ("FP", "CORE12", "FPRUN"):
            a, b = every[w], typed[w]
            if a is None or b is None:
                out.append(f"| {board} | {w} flash / RAM (B) | – | – | – |")
                continue
            fa, fb, ra, rb = a[0] + a[1], b[0] + b[1], a[1] + a[2], b[1] + b[2]
            out.append(
                f"| {board} | {w} flash / RAM (B) | {fa} / {ra} | {fb} / {rb} | {sign(fb - fa)} / {sign(rb - ra)} |"
            )
        for op in ("start", "teardown", "respawn_terminate", "deactivate(root)", "activate(last)"):
            a = every["cost"].get(("CHAIN", 64, op))
            b = typed["cost"].get(("CHAIN", 64, op))
            if a is None or b is None or a[1] is None or b[1] is None:
                out.append(f"| {board} | CHAIN(64) {op} per node | – | – | – |")
                continue
            pa, pb = a[1] // a[0], b[1] // b[0]
            out.append(f"| {board} | CHAIN(64) {op} per node | {pa} | {pb} | {sign(pb - pa)} |")
    if not out:
        return None
    head = [
        "| board | figure | `Supervisor<N>` | `Supervisor<N, GRAPH_USES>` | difference |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    return head + out


def sign(v):
    return "–" if v is None else f"{v:+d}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = lambda *a: print(*a)
    loaded = {b: load(b) for b, _ in BOARDS}
    p(open(os.path.join(here, "header.md")).read().rstrip())
    p()
    tc = os.path.join(RAW, "toolchain.txt")
    if os.path.exists(tc):
        p("Toolchain of this run:")
        p()
        p(open(tc).read().rstrip())
        p()
    fails = os.path.join(RAW, "failures.txt")
    if os.path.exists(fails):
        p("**Builds or runs that failed in this run** (their cells read –):")
        p()
        for line in open(fails):
            _, side, board, binary, name = line.strip().split("|")[:5]
            p(f"- {LABEL.get(side, side)}, {board}, {binary} {name.split(' ')[0]}")
        p()
    for board, title in BOARDS:
        if loaded[board] is None:
            continue
        cost, info, _ = loaded[board]
        p(f"### Cost on {title}, guest instructions: total (per node)")
        p()
        sizes = ", ".join(
            f"{LABEL[s]} {info[s].get('size_of::<TaskNode>()', '–')} B" for s in SIDES
        )
        p(
            f"Probe overhead subtracted: {info['ours'].get('probe overhead (instr)', '–')} "
            f"instructions. `size_of::<TaskNode>()`: {sizes}."
        )
        p()
        lines, flagged = cost_table(board, cost)
        for line in lines:
            p(line)
        p()
        pt = pool_table(board)
        if pt:
            p(f"Pool grow and shrink on {board} (`src/bin/pool.rs`: one root and a 4-member pool, min 1, zero cooldown; three runs each):")
            p()
            for line in pt:
                p(line)
            p()
        if flagged:
            p(
                "⚠ grows faster than linearly in N: "
                + "; ".join(f"{LABEL[s]} {shape} {op}" for shape, op, s in flagged)
                + "."
            )
        else:
            p("No row grows faster than linearly in N.")
        p()
    p("### Footprint: FP = CHAIN(8) + a 4-member pool, FP16 = CHAIN(16) + the pool, CORE12 = 12 Terminate nodes, FPRUN = FP under its driver with control")
    p()
    p(
        "`src/bin/fp.rs` of each side: start → teardown → respawn_terminate (the pool's "
        "driver running when there is a pool), checked by the build itself; the floor "
        "spawns, stops (dependents first) and spawns the same tasks again. Flash = text + "
        "data, RAM = data + bss (`arm-none-eabi-size`). FPRUN (`src/bin/fprun.rs`, "
        "`common/fprun.rs`) is the shape an application ships: the FP graph started and "
        "driven by the side's own driver (ours and 0.12.0 `run()`; 0.3.4, which has no "
        "`run()`, the loop its README gives: `start`, then `run_pools` beside "
        "`wait_control` → `apply_control`), with a `Deactivate` and an `Activate` sent "
        "through the control mailbox; it is set against the floor's FP build."
    )
    p()
    for line in size_table(loaded):
        p(line)
    p()
    ut = uses_table()
    if ut:
        p("### Pay only for what the graph uses: ours typed with `GRAPH_USES` against `Supervisor<N>`")
        p()
        p(
            "The workloads declare no gates and no `Pause` node, so `GRAPH_USES` is 0; "
            "`GRAPH_WIDTH` is `CHAIN` for CHAIN and CORE12 and `WAVE` for WIDE and for FP (whose "
            "pool members have no order between them). The side `ours` above is typed "
            "`Supervisor<N, { GRAPH_USES | GRAPH_WIDTH }>`. Here the same builds typed "
            "`Supervisor<N>` (the specification's `static SUP: Supervisor<N> = "
            "Supervisor::new(&GRAPH)`, every `uses` bit and no width bit: it picks the code for "
            "its graph's bits and width in const evaluation, `supervisor/picked.rs`; `ours/` "
            "with feature `every-use`) are set against them, from this run. FPRUN is the shape "
            "an application ships: `run()` with control."
        )
        p()
        for line in ut:
            p(line)
        p()
    rs = restart_section()
    if rs:
        for line in rs:
            p(line)
        p()
    host = os.path.join(RAW, "host.txt")
    if os.path.exists(host):
        p(open(host).read().rstrip())
        p()
    p(open(os.path.join(here, "notes.md")).read().rstrip())
    p()
    fw = os.path.join(RAW, "firmware.md")
    if os.path.exists(fw):
        # One heading level down: a section of this page.
        fence = False
        for line in open(fw).read().rstrip().split("\n"):
            if line.startswith("```"):
                fence = not fence
            p("#" + line if line.startswith("#") and not fence else line)


main()
