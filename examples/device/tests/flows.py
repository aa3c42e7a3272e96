#!/usr/bin/env python3
"""One line per TCP connection to the device's port 80 from a pcap that QEMU
wrote (boot.sh's DEVICE_PCAP: the frames between QEMU's user network and the
NIC, so the guest's side of the port forward). Each event is the time since
the first connection shown, the direction (> to the device, < from it), the
TCP flags (S, A, F, R, P) and the payload length, e.g.
`41376 0.30>S 0.30<SA 0.30>A 0.30>AP55 0.30<AP181 ...`.

usage: flows.py FILE.pcap [FROM_SECONDS]   (FROM: skip connections opened
       earlier than that many seconds after the capture's first frame)
"""
import struct
import sys


def flows(path):
    out = {}
    with open(path, "rb") as f:
        if len(f.read(24)) < 24:
            return out
        while True:
            h = f.read(16)
            if len(h) < 16:
                return out
            sec, usec, incl, _ = struct.unpack("<IIII", h)
            p = f.read(incl)
            t = sec + usec / 1e6
            if len(p) < 34 or p[12:14] != b"\x08\x00" or p[23] != 6:
                continue
            ihl = (p[14] & 15) * 4
            tcp = p[14 + ihl:]
            if len(tcp) < 14:
                continue
            sport, dport = struct.unpack(">HH", tcp[:4])
            flags, doff = tcp[13], (tcp[12] >> 4) * 4
            payload = struct.unpack(">H", p[16:18])[0] - ihl - doff
            if dport == 80:
                key, way = sport, ">"
            elif sport == 80:
                key, way = dport, "<"
            else:
                continue
            name = "".join(c for b, c in ((2, "S"), (16, "A"), (1, "F"), (4, "R"), (8, "P")) if flags & b)
            out.setdefault(key, []).append((t, way + name + (str(payload) if payload > 0 else "")))


def main():
    fl = flows(sys.argv[1])
    if not fl:
        print("no TCP connections to port 80 in the capture")
        return 1
    t0 = min(ev[0][0] for ev in fl.values())
    start = t0 + (float(sys.argv[2]) if len(sys.argv) > 2 else 0.0)
    for port, ev in sorted(fl.items(), key=lambda kv: kv[1][0][0]):
        if ev[0][0] >= start:
            print(port, " ".join(f"{t - start:.2f}{e}" for t, e in ev))
    return 0


if __name__ == "__main__":
    sys.exit(main())
