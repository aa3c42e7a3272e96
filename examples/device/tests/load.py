#!/usr/bin/env python3
"""Load figures for GET /api/graph: C clients, each in a loop for S seconds,
one request per fresh connection (the device closes after each answer). A
request that is shed (503 busy) or reset is retried until answered; its
latency runs from the first try to the answer, retries included.

usage: load.py PORT CLIENTS SECONDS   -> one JSON line on stdout
"""
import http.client
import json
import sys
import threading
import time

PORT, CLIENTS, SECONDS = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
lat, retries, failed = [], [0], [0]
lock = threading.Lock()


def one():
    t0 = time.monotonic()
    tries = 0
    while time.monotonic() - t0 < 10:
        tries += 1
        c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=5)
        try:
            c.request("GET", "/api/graph", headers={"Connection": "close"})
            r = c.getresponse()
            r.read()
            if r.status == 200:
                return time.monotonic() - t0, tries - 1
        except (OSError, http.client.HTTPException):
            pass
        finally:
            c.close()
    return None, tries


def client(stop):
    while time.monotonic() < stop:
        dt, r = one()
        with lock:
            retries[0] += r
            if dt is None:
                failed[0] += 1
            else:
                lat.append(dt)


stop = time.monotonic() + SECONDS
t0 = time.monotonic()
ts = [threading.Thread(target=client, args=(stop,)) for _ in range(CLIENTS)]
for t in ts:
    t.start()
for t in ts:
    t.join()
took = time.monotonic() - t0
lat.sort()
q = lambda p: round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1) if lat else None  # noqa: E731
print(json.dumps({"clients": CLIENTS, "seconds": round(took, 1), "answered": len(lat),
                  "req_per_s": round(len(lat) / took, 1), "p50_ms": q(0.50), "p99_ms": q(0.99),
                  "retries": retries[0], "failed": failed[0]}))
