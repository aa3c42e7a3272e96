#!/usr/bin/env python3
"""HTTP scenario tests against the running device (QEMU, loopback only).

Each scenario drives the control plane the way a user would and checks the
supervisor's behaviour through the JSON it serves (/api/graph, /api/events,
/api/jobs). Every network call has a timeout; the script exits non-zero on
the first failed check, printing what it saw.

usage: scenarios.py PORT TOKEN [REPORT_FILE]
"""
import http.client
import json
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
TOKEN = sys.argv[2]
REPORT = sys.argv[3] if len(sys.argv) > 3 else None
HOST = "127.0.0.1"
FIGURES = {}


class Fail(Exception):
    pass


def check(cond, what, seen=None):
    if not cond:
        raise Fail(f"{what}; saw: {seen!r}"[:2000])
    print(f"  ok  {what}")


def request(method, path, body=None, token=None, timeout=15, raw=None):
    """One request on a fresh connection: (status, parsed JSON or text)."""
    c = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    headers = {"Connection": "close"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if data is not None:
        headers["Content-Type"] = "application/json"
    try:
        c.request(method, path, body=data, headers=headers)
        r = c.getresponse()
        text = r.read().decode(errors="replace")
        try:
            return r.status, json.loads(text)
        except ValueError:
            return r.status, text
    finally:
        c.close()


def call(method, path, body=None, token=None, deadline=20.0, timeout=15, raw=None):
    """`request`, retried while the device sheds load (503 busy) or resets
    the connection because no worker listens; a hang is a timeout error."""
    end = time.monotonic() + deadline
    while True:
        try:
            status, js = request(method, path, body, token, timeout, raw)
            if not (status == 503 and isinstance(js, dict) and js.get("error") == "busy"):
                return status, js
        except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
            pass
        if time.monotonic() > end:
            raise Fail(f"{method} {path}: no answer within {deadline} s")
        time.sleep(0.1)


def graph():
    s, g = call("GET", "/api/graph")
    check_quiet(s == 200, "GET /api/graph", (s, g))
    return g


def passed(what):
    """Report a step whose condition the call just before it asserted:
    `wait_graph`, `events_until` and the loops with a raising `else` fail
    the scenario themselves when it is not reached."""
    print(f"  ok  {what}")


def check_quiet(cond, what, seen=None):
    if not cond:
        raise Fail(f"{what}; saw: {seen!r}"[:2000])


def node(g, name):
    return next(n for n in g["nodes"] if n["name"] == name)


def members(g):
    return [n for n in g["nodes"] if n["pool"] == "HTTP"]


def verb(name, v, token=TOKEN):
    return call("POST", f"/api/nodes/{name}/{v}", token=token)


def events_until(since, pred, timeout=15.0):
    """Long-poll the event log from `since` until `pred(all events so far)`."""
    seen = []
    end = time.monotonic() + timeout
    last = since
    while time.monotonic() < end:
        s, e = call("GET", f"/api/events?since={last}&wait=2000")
        check_quiet(s == 200, "GET /api/events", e)
        seen += e["events"]
        last = e["last"]
        if pred(seen):
            return seen
    raise Fail(f"events: condition not met in {timeout} s; saw {[(x['kind'], x['name'], x['info']) for x in seen]}")


def wait_graph(pred, timeout=15.0, what="graph condition"):
    end = time.monotonic() + timeout
    g = None
    while time.monotonic() < end:
        g = graph()
        if pred(g):
            return g
        time.sleep(0.2)
    raise Fail(f"{what}: not reached in {timeout} s; last graph states: "
               f"{[(n['name'], n['state']) for n in g['nodes']]}")


def idx(evs, kind, name):
    for i, e in enumerate(evs):
        if e["name"] == name and e["kind"] in kind:
            return i
    return None


DOWN = ("down", "exited")

# ---------------------------------------------------------------------------


def s_token():
    print("no token -> refused, nothing changes")
    s, js = request("POST", "/api/nodes/SENSOR/deactivate")
    check(s == 401 and js.get("error") == "unauthorized", "no token: 401 JSON", (s, js))
    s, js = request("POST", "/api/nodes/SENSOR/deactivate", token="wrong")
    check(s == 401, "wrong token: 401", (s, js))
    s, js = request("POST", "/api/jobs", body={"lane": "calibrate", "ms": 10})
    check(s == 401, "job without token: 401", (s, js))
    time.sleep(0.5)
    g = graph()
    check(node(g, "SENSOR")["state"] == "running", "SENSOR still running", node(g, "SENSOR"))
    check(not any(j for j in call("GET", "/api/jobs")[1]["jobs"]), "no job was created")


def s_bad_inputs():
    print("bad inputs -> JSON errors, device keeps answering")
    cases = [
        ("POST", "/api/nodes/NOPE/activate", None, None, 404, "unknown_node"),
        ("POST", "/api/nodes/NET/explode", None, None, 400, "unknown_verb"),
        ("POST", "/api/nodes/NET/resume", None, None, 409, "wrong_mode"),
        ("POST", "/api/jobs", None, b"{not json", 400, "malformed_json"),
        ("POST", "/api/jobs", None, json.dumps({"lane": "mars", "ms": 5}).encode(), 400, "unknown_lane"),
        ("POST", "/api/jobs", None, json.dumps({"lane": "update", "policy": "maybe", "ms": 5}).encode(), 400, "unknown_policy"),
        ("POST", "/api/jobs", None, json.dumps({"lane": "update", "ms": 0}).encode(), 400, "bad_duration"),
        ("POST", "/api/jobs", None, b"{\"lane\":\"update\",\"ms\":5,\"pad\":\"" + b"x" * 2000 + b"\"}", 413, "body_too_large"),
        ("GET", "/api/nothing", None, None, 404, "not_found"),
        ("DELETE", "/api/graph", None, None, 405, "method_not_allowed"),
    ]
    for method, path, body, raw, want, err in cases:
        s, js = call(method, path, body=body, raw=raw, token=TOKEN)
        check(s == want and isinstance(js, dict) and js.get("error") == err,
              f"{method} {path[:30]} -> {want} {err}", (s, js))
    check(graph()["uptime_ms"] > 0, "device still answers")


def s_deactivate_net():
    print("deactivate NET -> HTTP workers and NET go down, dependents first")
    g = graph()
    up = [m["name"] for m in members(g) if m["running"]]
    check(node(g, "NET")["running"] and up, "NET and some workers up", up)
    since = g["events_next"] - 1
    s, js = verb("NET", "deactivate")
    check(s == 202 and js.get("queued"), "POST NET/deactivate queued (202)", (s, js))
    evs = events_until(since, lambda ev: idx(ev, DOWN, "NET") is not None)
    i_net = idx(evs, DOWN, "NET")
    for w in up + ["REPORT"]:
        i = idx(evs, DOWN, w)
        check(i is not None and i < i_net, f"{w} down before NET", [(e["kind"], e["name"]) for e in evs])
    g = wait_graph(lambda g: not any(m["running"] for m in members(g)), what="pool down")
    check(node(g, "NET")["state"] == "disabled", "NET disabled", node(g, "NET"))
    check(node(g, "ADMIN")["running"], "ADMIN (deps: ETH only) still serving")


def s_activate_leaf():
    print("activate a leaf (REPORT) -> its deps come up first")
    g = graph()
    check(node(g, "REPORT")["state"] in ("disabled", "down", "exited"), "REPORT down", node(g, "REPORT"))
    since = g["events_next"] - 1
    s, js = verb("REPORT", "activate")
    check(s == 202, "POST REPORT/activate (202)", (s, js))
    evs = events_until(since, lambda ev: idx(ev, ("spawned",), "REPORT") is not None)
    i_net, i_rep = idx(evs, ("spawned",), "NET"), idx(evs, ("spawned",), "REPORT")
    check(i_net is not None and i_net < i_rep, "NET spawned before REPORT",
          [(e["kind"], e["name"]) for e in evs])
    g = wait_graph(lambda g: node(g, "NET")["ready"] and node(g, "REPORT")["running"], what="NET ready, REPORT up")
    print("re-enable the pool through one member")
    s, js = verb("HTTP[0]", "activate")
    check(s == 202, "POST HTTP[0]/activate (202)", (s, js))
    wait_graph(lambda g: any(m["running"] for m in members(g)), what="pool back")
    passed("pool back up")


def s_pause_resume():
    print("SENSOR (Pause): stop parks it with its peripheral, resume carries on")
    g = graph()
    check(node(g, "SENSOR")["running"], "SENSOR running", node(g, "SENSOR"))
    s, js = verb("SENSOR", "stop")
    check(s == 200 and js.get("ok"), "POST SENSOR/stop -> 200 (acked)", (s, js))
    g1 = graph()
    check(node(g1, "SENSOR")["state"] == "parked", "SENSOR parked", node(g1, "SENSOR"))
    time.sleep(1.0)
    g2 = graph()
    check(g2["sensor"]["samples"] == g1["sensor"]["samples"], "no samples while parked",
          (g1["sensor"], g2["sensor"]))
    s, js = verb("SENSOR", "resume")
    check(s == 200, "POST SENSOR/resume -> 200", (s, js))
    time.sleep(1.0)
    g3 = graph()
    check(node(g3, "SENSOR")["state"] == "running" and g3["sensor"]["samples"] > g2["sensor"]["samples"],
          "SENSOR running again and sampling (same peripheral, resumed in place)", g3["sensor"])


def s_jobs():
    print("controller: three Queue jobs run FIFO; a Replace cancels the running one")
    ids = []
    for _ in range(3):
        s, js = call("POST", "/api/jobs", body={"lane": "calibrate", "policy": "queue", "ms": 700}, token=TOKEN)
        check_quiet(s == 202, "job accepted", (s, js))
        ids.append(js["id"])
    check(len(set(ids)) == 3, f"3 queue jobs accepted, each with its own id: {ids}", ids)

    def rows():
        return {j["id"]: j for j in call("GET", "/api/jobs")[1]["jobs"]}

    end = time.monotonic() + 15
    while time.monotonic() < end and not all(rows()[i]["state"] == "completed" for i in ids):
        time.sleep(0.3)
    r = rows()
    check(all(r[i]["state"] == "completed" for i in ids), "all three completed", [r[i] for i in ids])
    starts = [r[i]["started_seq"] for i in ids]
    check(starts == sorted(starts) and len(set(starts)) == 3, "started in submission order (FIFO)", starts)

    s, js = call("POST", "/api/jobs", body={"lane": "calibrate", "policy": "queue", "ms": 8000}, token=TOKEN)
    long_id = js["id"]
    end = time.monotonic() + 5
    while time.monotonic() < end and rows()[long_id]["state"] != "running":
        time.sleep(0.1)
    check(rows()[long_id]["state"] == "running", "long job running")
    s, js = call("POST", "/api/jobs", body={"lane": "calibrate", "policy": "replace", "ms": 300}, token=TOKEN)
    check(s == 202, "Replace accepted", (s, js))
    rep_id = js["id"]
    end = time.monotonic() + 10
    while time.monotonic() < end and rows()[rep_id]["state"] != "completed":
        time.sleep(0.2)
    r = rows()
    check(r[long_id]["state"] == "canceled", "the running job was canceled by the Replace", r[long_id])
    check(r[rep_id]["state"] == "completed", "the Replace job ran to completion", r[rep_id])


def s_load():
    print("32 concurrent slow requests -> pool grows to max, shrinks after the cooldown")
    g0 = graph()
    pmax, pmin = g0["pools"][0]["max"], g0["pools"][0]["min"]
    since = g0["events_next"] - 1
    results = []
    lock = threading.Lock()

    def client():
        try:
            s, js = call("GET", "/api/slow?ms=2000", token=TOKEN, deadline=60, timeout=20)
            r = (s, js.get("worker") if isinstance(js, dict) else None)
        except Exception as e:  # noqa: BLE001 - recorded and checked below
            r = ("error", repr(e))
        with lock:
            results.append(r)

    t0 = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    took = time.monotonic() - t0
    g1 = graph()
    check(len(results) == 32 and all(r[0] == 200 for r in results),
          f"all 32 answered 200 (retrying on 503) in {took:.1f} s", results)
    # Replay the pool's history to find the most members up at once.
    running, peak = set(m["name"] for m in members(g0) if m["running"]), 0
    peak = len(running)
    s, e = call("GET", f"/api/events?since={since}")
    evs = e["events"]
    for x in evs:
        if x["name"].startswith("HTTP["):
            if x["kind"] == "spawned":
                running.add(x["name"])
            elif x["kind"] in DOWN:
                running.discard(x["name"])
            peak = max(peak, len(running))
    check(peak == pmax, f"pool peaked at its max ({pmax})", peak)
    missed, last, total = 0, since, 0
    while True:
        s, e = call("GET", f"/api/events?since={last}")
        missed += e["missed"]
        total += len(e["events"])
        if e["last"] == last:
            break
        last = e["last"]
    check(missed == 0, f"the event log kept the whole burst ({total} entries, none missed)", missed)
    workers = {r[1] for r in results}
    print(f"  info served by {len(workers)} distinct workers: {sorted(workers)}")
    dt = g1["now_us"] - g0["now_us"]
    sup = (g1["supervisor"]["cpu_us"] - g0["supervisor"]["cpu_us"]) / dt * 100
    ex0 = lambda g: next(x for x in g["executors"] if x["id"] == 0)  # noqa: E731
    busy = (ex0(g1)["in_poll_us"] - ex0(g0)["in_poll_us"]) / dt * 100
    FIGURES["load_seconds"] = round(took, 1)
    FIGURES["supervisor_cpu_percent_under_load"] = round(sup, 3)
    FIGURES["thread_executor_busy_percent_under_load"] = round(busy, 1)
    FIGURES["shed_503"] = g1["http"]["shed"] - g0["http"]["shed"]
    check(FIGURES["shed_503"] > 0, f"clients beyond the pool got 503 busy ({FIGURES['shed_503']} times), none hung")
    print(f"  fig supervisor's own CPU during the load: {sup:.3f} % (thread executor busy {busy:.1f} %)")
    wait_graph(lambda g: g["pools"][0]["running"] <= max(pmin, 1) + 1, timeout=40,
               what="pool shrunk back after the cooldown")
    # Our own request occupies one worker: min, plus possibly the one serving us.
    passed("pool shrank back to its floor (+ the worker serving this request)")


def crowd(n, gap, path, wait, linger=0.0):
    """`n` clients, the i-th connecting `i * gap` s after a common start,
    each sending one GET and reading to close (no retry), then waiting
    `linger` s before it closes its own side. Returns
    [(outcome, seconds)]: outcome is the status ("503:<error>" for a JSON
    503), "reset", "empty" (closed with no answer) or "timeout"."""
    res = [None] * n
    start = threading.Barrier(n)

    def one(i):
        start.wait()
        time.sleep(gap * i)
        t0 = time.monotonic()
        s = socket.socket()
        s.settimeout(wait)
        kind = "timeout"
        try:
            s.connect((HOST, PORT))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: d\r\nConnection: close\r\n"
                      f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())
            buf = b""
            while True:
                b = s.recv(8192)
                if not b:
                    break
                buf += b
            time.sleep(linger)
            head, _, body = buf.partition(b"\r\n\r\n")
            line = head.split(b"\r\n", 1)[0].decode(errors="replace").split(" ")
            if not buf:
                kind = "empty"
            elif len(line) > 1 and line[1] == "503":
                try:
                    kind = "503:" + json.loads(body.decode()).get("error", "?")
                except ValueError:
                    kind = "503:not-json"
            else:
                kind = line[1] if len(line) > 1 else "junk"
        except socket.timeout:
            kind = "timeout"
        except ConnectionResetError:
            kind = "reset"
        except OSError as e:
            kind = f"oserror:{e.errno}"
        finally:
            s.close()
        res[i] = (kind, round(time.monotonic() - t0, 3))
    ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(wait + n * gap + 10)
    return [r if r is not None else ("unjoined", wait) for r in res]


def s_crowd():
    print("issue 28 (8): 50 concurrent clients beyond the 7 listeners all get an answer")
    # 50 clients connect 1 ms apart and each asks for a 1.5 s hold: the 7
    # listeners (6 pool members, ADMIN) take the first ones, every other one
    # must get a JSON 503 from the shedder at once: no reset, no empty reply,
    # no hang. Each client closes 0.3 s after the answer (a slow client, or a
    # loaded machine, as in one CI run): a shed socket is busy until then,
    # so this holds only if the shedder has a socket for each of them. (All 50 at the very same instant would also test the host:
    # QEMU's user-network port forward listens with a backlog of 1, so the
    # host kernel drops the SYNs beyond it and the clients' own TCP retries
    # them after 1, 3, 7 ... s, before the device ever sees them; that is
    # s_crowd_at_once, a figure, run by name.)
    g0 = graph()
    res = crowd(50, 0.001, "/api/slow?ms=1500", 20, linger=0.3)
    kinds = {}
    for k, _ in res:
        kinds[k] = kinds.get(k, 0) + 1
    worst = max(t for _, t in res)
    FIGURES["crowd_50_outcomes"] = kinds
    FIGURES["crowd_50_slowest_s"] = worst
    bad = [r for r in res if r[0] not in ("200", "503:busy")]
    check(not bad, f"every one of 50 clients got 200 or a JSON 503 busy ({kinds})", res)
    check(kinds.get("200", 0) >= 1, "some were served", kinds)
    # 1.5 s of hold, plus one retransmission by the host if QEMU's one-deep
    # accept queue overflowed (it did in some runs at 0.5 ms spacing).
    check(worst <= 6.0, f"every answer within 6 s (slowest {worst} s)", res)
    sheds = [t for k, t in res if k == "503:busy"]
    print(f"  fig 503s: {len(sheds)}, slowest {max(sheds, default=0)} s")
    g1 = graph()
    check(g1["http"]["shed"] - g0["http"]["shed"] == len(sheds),
          f"the shedder counted each 503 ({g1['http']['shed'] - g0['http']['shed']})", g1["http"])


def s_crowd_at_once():
    print("figure: 50 clients connecting at the same instant (host-bound, see s_crowd)")
    res = crowd(50, 0.0, "/api/graph", 60)
    kinds = {}
    for k, _ in res:
        kinds[k] = kinds.get(k, 0) + 1
    FIGURES["crowd_50_at_once_outcomes"] = kinds
    FIGURES["crowd_50_at_once_seconds"] = sorted(t for _, t in res)[-10:]
    print(f"  fig {kinds}; the 10 slowest: {FIGURES['crowd_50_at_once_seconds']}")


def s_wedge():
    print("a wedged worker -> stop returns ShutdownTimeout naming it")
    g = wait_graph(lambda g: sum(m["running"] for m in members(g)) >= 1, what="a worker up")
    target = next(m["name"] for m in members(g) if m["running"])
    since = g["events_next"] - 1
    s, js = call("POST", f"/api/test/wedge/{target}", token=TOKEN)
    check(s == 200 and js.get("wedged") == target, f"wedged {target}", (s, js))
    s, js = verb(target, "stop")
    if s == 504:
        check(js.get("error") == "ShutdownTimeout" and js.get("node") == target,
              f"stop {target}: 504 ShutdownTimeout naming it", js)
    else:
        check(s == 202, "stop of the serving worker queued (202)", (s, js))
    evs = events_until(since, lambda ev: idx(ev, ("shutdown_timeout",), target) is not None, timeout=10)
    check(idx(evs, ("shutdown_timeout",), target) is not None,
          f"event log: shutdown_timeout {target}", [(e["kind"], e["name"]) for e in evs])
    # After its hold the wedged instance ends (the pool may regrow the
    # member to its floor of 2 right after).
    def gone(ev):
        i = idx(ev, ("shutdown_timeout",), target)
        return i is not None and any(e["kind"] in DOWN and e["name"] == target for e in ev[i:])
    events_until(since, gone, timeout=12)
    passed("the wedged instance ended after its hold")
    check(graph()["uptime_ms"] > 0, "device still answers")


def s_mailbox_full():
    print("full control mailbox -> 503 mailbox_full, device keeps running")
    g = wait_graph(lambda g: sum(m["running"] for m in members(g)) >= 1, what="a worker up")
    # Every member that is up is wedged: the pool may shrink one between
    # this read and the deactivate (it did, once: the deactivate then had
    # nothing to wait for and the mailbox never filled). A wedged member
    # shrunk meanwhile holds that stop instead, so the deactivate still
    # waits on it. The device wedges only a member that is up (409 else).
    wedged = []
    for m in members(g):
        if m["running"]:
            s, js = call("POST", f"/api/test/wedge/{m['name']}", token=TOKEN)
            check_quiet(s in (200, 409), f"POST /api/test/wedge/{m['name']}", (s, js))
            if s == 200:
                wedged.append(m["name"])
    check(wedged, f"wedged the members that are up ({', '.join(wedged)})", wedged)
    target = wedged[0]
    # Deactivating the pool makes the driver wait on the wedged members'
    # acks (2 s); commands sent meanwhile fill the 4-deep mailbox.
    s, js = verb(target, "deactivate")
    check(s == 202, f"POST {target}/deactivate queued", (s, js))
    codes = []
    for _ in range(8):
        s, js = verb("SENSOR", "activate")
        codes.append((s, js.get("error") if isinstance(js, dict) else js))
        if s == 503:
            break
    check(any(c == (503, "mailbox_full") for c in codes), "503 mailbox_full once the mailbox is full", codes)
    time.sleep(5)
    s, js = verb("HTTP[0]", "activate")
    check(s in (202, 503), "pool re-activation queued", (s, js))
    if s == 503:
        time.sleep(1)
        verb("HTTP[0]", "activate")
    wait_graph(lambda g: any(m["running"] for m in members(g)), timeout=15, what="pool back")
    passed("device recovered: pool back up")


def s_slow_client():
    print("a silent client is cut by the read timeout")
    s = socket.create_connection((HOST, PORT), timeout=10)
    t0 = time.monotonic()
    try:
        data = s.recv(100)
    except (ConnectionResetError, socket.timeout) as e:
        data = repr(e).encode()
    took = time.monotonic() - t0
    s.close()
    check(took < 8, f"connection closed by the device after {took:.1f} s", data)


def s_silent_crowd():
    print("200 silent clients do not stop a well-behaved client")
    socks = []
    for _ in range(200):
        try:
            socks.append(socket.create_connection((HOST, PORT), timeout=2))
        except OSError:
            pass
    check(len(socks) > 0, f"{len(socks)} silent connections opened")
    t0 = time.monotonic()
    s, g = call("GET", "/api/graph", deadline=20)
    took = time.monotonic() - t0
    check(s == 200 and g["uptime_ms"] > 0, f"good client served in {took:.1f} s", s)
    # How many workers the crowd still held when the answer was built: a
    # figure, not a check. Since issue 28 the shedder cuts a silent client
    # within about a second, so by the time this request is served the
    # crowd may hold none (seen: 0 busy of 6 running in one CI run).
    busy = g["pools"][0]["busy"] + (1 if node(g, "ADMIN")["busy"] else 0)
    print(f"  fig workers busy when the good client was served: {busy} ({g['pools'][0]})")
    for _ in range(5):
        s, g = call("GET", "/api/graph", deadline=20)
        check_quiet(s == 200, "repeat request", s)
    took = time.monotonic() - t0
    passed(f"five more requests served, all within {took:.1f} s of the crowd")
    for x in socks:
        x.close()
    FIGURES["good_client_with_200_silent_seconds"] = round(took, 1)



# --- issue 28: a clumsy or hostile user --------------------------------------


def raw_http(data, timeout=10):
    """Send raw bytes, read to close: (status line, headers dict, body bytes)."""
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    try:
        s.sendall(data)
        buf = b""
        while True:
            try:
                chunk = s.recv(4096)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            buf += chunk
    finally:
        s.close()
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    hdrs = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return lines[0], hdrs, body


def raw_json(data):
    line, hdrs, body = raw_http(data)
    try:
        js = json.loads(body.decode())
    except ValueError:
        js = body[:200]
    code = int(line.split()[1]) if len(line.split()) > 1 and line.split()[1].isdigit() else line
    return code, hdrs, js


def s_cut_guard():
    print("issue 28 (1, 2): no accepted command sequence locks the control plane out")
    # 1. ADMIN stopped, then NET deactivated: nothing would listen.
    s, js = verb("ADMIN", "stop")
    # 202 if ADMIN itself served the request (a helper stops it).
    check(s in (200, 202), "POST ADMIN/stop -> accepted (the pool still serves)", (s, js))
    s, js = verb("NET", "deactivate")
    check(s == 409 and js.get("error") == "would_cut_control_plane",
          "then POST NET/deactivate -> 409 would_cut_control_plane", (s, js))
    s, js = verb("ADMIN", "activate")
    check(s == 202, "POST ADMIN/activate -> 202", (s, js))
    wait_graph(lambda g: node(g, "ADMIN")["running"], what="ADMIN back")
    # The same pair in the other order.
    s, js = verb("NET", "deactivate")
    check(s == 202, "POST NET/deactivate -> 202 (ADMIN still serves)", (s, js))
    s, js = verb("ADMIN", "deactivate")
    check(s == 409 and js.get("error") == "would_cut_control_plane",
          "then POST ADMIN/deactivate -> 409", (s, js))
    s, js = verb("ADMIN", "stop")
    check(s == 409, "and POST ADMIN/stop -> 409", (s, js))
    s, js = verb("HTTP[0]", "activate")
    check(s == 202, "pool re-activated", (s, js))
    wait_graph(lambda g: node(g, "NET")["ready"] and any(m["running"] for m in members(g)), what="NET and pool back")
    # 2. ETH: refused; forced, it reverts by itself.
    s, js = verb("ETH", "deactivate")
    check(s == 409 and js.get("error") == "would_cut_control_plane", "POST ETH/deactivate -> 409", (s, js))
    s, js = call("POST", "/api/confirm", token=TOKEN)
    check(s == 409 and js.get("error") == "nothing_to_confirm", "POST /api/confirm with nothing pending -> 409", (s, js))
    since = graph()["events_next"] - 1
    s, js = call("POST", "/api/nodes/ETH/deactivate?force=1&confirm_ms=4000", token=TOKEN)
    check(s == 202 and js.get("forced") and js.get("reverts_in_ms") == 4000,
          "forced ETH/deactivate -> 202, reverts in 4000 ms unless confirmed", (s, js))
    t0 = time.monotonic()
    # First the cut itself: the device stops answering.
    while time.monotonic() - t0 < 5:
        try:
            request("GET", "/api/graph", timeout=1)
            time.sleep(0.1)
        except (OSError, http.client.HTTPException):
            break
    else:
        raise Fail("the forced ETH cut did not cut: the device kept answering for 5 s")
    passed(f"the device stopped answering {time.monotonic() - t0:.1f} s after the forced cut")
    g = None
    while time.monotonic() - t0 < 45:
        try:
            st, g = request("GET", "/api/graph", timeout=2)
            if st == 200 and isinstance(g, dict) and node(g, "ETH")["running"] and node(g, "ADMIN")["running"] \
                    and node(g, "NET")["ready"] and any(m["running"] for m in members(g)):
                break
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.3)
    else:
        raise Fail(f"the device did not come back within 45 s of the forced cut; last {g!r}"[:800])
    passed(f"the cut reverted by itself: ETH, ADMIN, NET and the pool back after {time.monotonic() - t0:.1f} s")
    evs = events_until(since, lambda ev: any(e["kind"] == "guard" and e["info"] == "revert_done" for e in ev), timeout=10)
    check(any(e["kind"] == "guard" and e["info"] == "reverting" for e in evs), "event log: guard reverting",
          [(e["kind"], e["name"], e["info"]) for e in evs])
    check(g["guard"]["reverts_in_ms"] is None and g["guard"]["reverts"] >= 1, "no revert pending now", g["guard"])


def s_guard_forgets():
    print("issue 28 (1): once a command is applied the guard judges by the nodes, not by old commands")
    s, js = verb("NET", "deactivate")
    check(s == 202, "POST NET/deactivate -> 202", (s, js))
    wait_graph(lambda g: node(g, "NET")["state"] == "disabled", what="NET disabled")
    s, js = verb("NET", "activate")
    check(s == 202, "POST NET/activate -> 202", (s, js))
    wait_graph(lambda g: node(g, "NET")["ready"] and any(m["running"] for m in members(g)), what="NET and pool back")
    s, js = call("POST", "/api/jobs", body={"lane": "update", "ms": 50}, token=TOKEN)
    check(s == 202, "an update job is accepted again (UPDATE's dep NET is back)", (s, js))
    s, js = verb("ADMIN", "deactivate")
    check(s == 202, "POST ADMIN/deactivate -> 202 (the pool serves)", (s, js))
    s, js = verb("ADMIN", "activate")
    check(s == 202, "POST ADMIN/activate -> 202", (s, js))
    wait_graph(lambda g: node(g, "ADMIN")["running"], what="ADMIN back")


def s_reboot():
    print("issue 28 (4): POST /api/reboot reboots; a reader from the old boot is told")
    g0 = graph()
    s, js = call("POST", "/api/reboot")
    check(s == 401, "without the token -> 401", (s, js))
    s, js = call("POST", "/api/reboot", token=TOKEN)
    check(s == 202 and js.get("rebooting"), "POST /api/reboot -> 202", (s, js))
    t0 = time.monotonic()
    g = None
    while time.monotonic() - t0 < 40:
        try:
            st, g = request("GET", "/api/graph", timeout=2)
            if st == 200 and isinstance(g, dict) and g["uptime_ms"] < g0["uptime_ms"]:
                break
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.3)
    else:
        raise Fail("no new boot seen within 40 s")
    check(g["boot"] != g0["boot"], f"a new boot ({g['uptime_ms']} ms up), with a new boot id", (g0["boot"], g["boot"]))
    s, e = call("GET", f"/api/events?since={g0['events_next'] + 50}")
    check(e.get("reset") is True and e["events"][0]["seq"] == 1, "the old boot's cursor -> reset: true, the new log from 1", e.get("reset"))
    wait_graph(lambda g: node(g, "NET")["ready"] and any(m["running"] for m in members(g)), what="the new boot serving")


def s_restart():
    print("issue 28: restart, and per-node start count and last end")
    g = wait_graph(lambda g: node(g, "REPORT")["running"], what="REPORT running")
    before = node(g, "REPORT")["starts"]
    since = g["events_next"] - 1
    s, js = verb("REPORT", "restart")
    check(s == 202 and js.get("queued"), "POST REPORT/restart -> 202", (s, js))
    evs = events_until(since, lambda ev: idx(ev, ("spawned",), "REPORT") is not None)
    i_down = idx(evs, DOWN, "REPORT")
    check(i_down is not None and i_down < idx(evs, ("spawned",), "REPORT"), "REPORT went down, then was spawned",
          [(e["kind"], e["name"]) for e in evs])
    g = wait_graph(lambda g: node(g, "REPORT")["running"], what="REPORT running again")
    r = node(g, "REPORT")
    check(r["starts"] == before + 1 and r["last_end"] in ("exited", "down"), "REPORT: starts +1, last end recorded", r)


def s_long_holds():
    print("issue 28 (6, 9): the documented 10 s maximum holds, and a long hold is not a stale worker")
    s, js = call("GET", "/api/slow?ms=10000", token=TOKEN, timeout=20)
    check(s == 200 and js.get("slept_ms") == 10000, "GET /api/slow?ms=10000 -> 200 after 10 s", (s, js))
    g = graph()
    since = g["events_next"] - 1
    t0 = time.monotonic()
    # A cursor past the log: nothing new can arrive, so it waits the full 10 s.
    s, e = request("GET", "/api/events?since=1000000000&wait=10000", timeout=20)
    took = time.monotonic() - t0
    check(s == 200 and isinstance(e, dict) and took >= 9.5,
          f"GET /api/events?wait=10000 -> 200 after the full wait ({took:.1f} s)", (s, e))
    s, e = call("GET", f"/api/events?since={since}")
    stale = [x for x in e["events"] if x["kind"] == "stale"]
    check(not stale, "no worker was marked stale by those holds", stale)
    s, js = call("GET", "/api/slow?ms=10001", token=TOKEN)
    check(s == 400 and js.get("error") == "bad_duration", "GET /api/slow?ms=10001 -> 400 bad_duration", (s, js))


def s_reboot_reader():
    print("issue 28 (4): a reader from an earlier boot is told the log restarted")
    g = graph()
    s, e = call("GET", f"/api/events?since={g['events_next'] + 1000}")
    check(s == 200 and e.get("reset") is True and e["events"] and e["events"][0]["seq"] == 1,
          "since past the log -> reset: true and the log from its first entry", (s, {k: e.get(k) for k in ("reset", "last", "boot")}))
    check(e.get("boot") == g.get("boot") and g.get("boot"), "the answer names this boot (the id /api/graph shows)",
          (e.get("boot"), g.get("boot")))


def s_jobs_truth():
    print("issue 28 (7): every accepted job keeps a findable outcome; a refused one is never shown")
    # One lane holds 5 (1 running, 4 queued): the rest are refused at once.
    codes, ids = [], []
    for _ in range(12):
        s, js = call("POST", "/api/jobs", body={"lane": "calibrate", "policy": "queue", "ms": 400}, token=TOKEN)
        codes.append((s, js.get("error")))
        if s == 202:
            ids.append(js["id"])
    check(len(ids) == 5 and all(c == (503, "queue_full") for c in codes[5:]),
          "12 Queue jobs to one lane: 5 accepted, 7 refused 503 queue_full", codes)
    end = time.monotonic() + 15
    while time.monotonic() < end:
        outs = [call("GET", f"/api/jobs/{i}")[1] for i in ids]
        if all(o.get("state") not in ("submitted", "running") for o in outs):
            break
        time.sleep(0.3)
    check(all(o.get("state") == "completed" for o in outs), "each accepted job completed (GET /api/jobs/{id})",
          [(o.get("id"), o.get("state")) for o in outs])
    check(all(o["submitted_ms"] <= o["started_ms"] <= o["ended_ms"] and o["ended_ms"] > 0 for o in outs),
          "with submitted/started/ended times", outs[0])
    jobs_now = call("GET", "/api/jobs")[1]["jobs"]
    check(not any(j["state"] == "queue_full" for j in jobs_now), "no refused job shown in /api/jobs",
          [(j["id"], j["state"]) for j in jobs_now])
    # Jobs in flight are bounded by the watchers (8): the 9th is refused
    # with 503 jobs_busy and leaves no row.
    accepted, refused = [], []
    for k in range(10):
        lane = "calibrate" if k % 2 == 0 else "update"
        s, js = call("POST", "/api/jobs", body={"lane": lane, "policy": "queue", "ms": 2000}, token=TOKEN)
        if s == 202:
            accepted.append(js["id"])
        else:
            refused.append((s, js.get("error")))
    check(len(accepted) == 8 and refused and all(r == (503, "jobs_busy") for r in refused),
          "10 long jobs over two lanes: 8 accepted, the rest 503 jobs_busy", (accepted, refused))
    rows = call("GET", "/api/jobs")[1]["jobs"]
    ids_shown = {j["id"] for j in rows}
    check(set(accepted) <= ids_shown and not any(j["state"] in ("queue_full", "jobs_busy") for j in rows),
          "accepted ones all shown, no refused one", [(j["id"], j["state"]) for j in rows])
    end = time.monotonic() + 20
    while time.monotonic() < end and any(call("GET", f"/api/jobs/{i}")[1]["state"] in ("submitted", "running") for i in accepted):
        time.sleep(0.5)
    outs = [call("GET", f"/api/jobs/{i}")[1]["state"] for i in accepted]
    check(all(o == "completed" for o in outs), "all 8 completed", outs)
    # Past the table's capacity rows are evicted (finished ones only),
    # counted, and an evicted id answers 410.
    cap = call("GET", "/api/jobs")[1]["capacity"]
    n = 0
    while n < cap + 4:
        for lane in ("calibrate", "update"):
            for _ in range(3):
                s, js = call("POST", "/api/jobs", body={"lane": lane, "policy": "queue", "ms": 1}, token=TOKEN)
                n += s == 202
        time.sleep(0.3)
    time.sleep(1)
    j = call("GET", "/api/jobs")[1]
    check(j["evicted"] > 0 and len(j["jobs"]) == cap, f"table full at {cap} rows, {j['evicted']} evicted (counted)",
          {k: j[k] for k in ("capacity", "evicted")})
    s, js = call("GET", "/api/jobs/1")
    check(s == 410 and js.get("error") == "evicted", "GET /api/jobs/1 -> 410 evicted", (s, js))
    s, js = call("GET", "/api/jobs/999999")
    check(s == 404 and js.get("error") == "unknown_job", "GET /api/jobs/999999 -> 404 unknown_job", (s, js))


def s_http_details():
    print("issue 28 (10): HTTP details")
    line, hdrs, body = raw_http(b"HEAD /api/graph HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n")
    check(" 200 " in line + " " and body == b"" and int(hdrs.get("content-length", "0")) > 0,
          "HEAD /api/graph: 200, Content-Length, no body", (line, hdrs.get("content-length"), body[:60]))
    for method, path, tok in [("GET", "/api/nodes/NET/activate", None), ("POST", "/api/graph", TOKEN),
                              ("GET", "/api/confirm", None), ("DELETE", "/api/jobs", TOKEN)]:
        s, js = call(method, path, token=tok)
        check(s == 405 and isinstance(js, dict) and js.get("error") == "method_not_allowed",
              f"{method} {path} -> 405 method_not_allowed", (s, js))
    c, h, js = raw_json(b"GET /api/nodes/NET/activate HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n")
    check(c == 405 and h.get("allow") == "POST", "405 names the allowed method (Allow: POST)", (c, h.get("allow")))
    c, h, js = raw_json(b"GET /api/graph HTTP/1.1\r\nHost: d\r\nX-Pad: " + b"a" * 3000 + b"\r\nConnection: close\r\n\r\n")
    check(c == 431 and isinstance(js, dict) and js.get("error") == "headers_too_large", "3 KB of headers -> 431 JSON", (c, js))
    c, h, js = raw_json(b"GET /api/graph?x=" + b"a" * 3000 + b" HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n")
    check(c == 414 and isinstance(js, dict) and js.get("error") == "uri_too_long", "3 KB URL -> 414 JSON", (c, js))
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
    body = b'{"lane":"update","ms":5}'
    c, h, js = raw_json(b"POST /api/jobs HTTP/1.1\r\nHost: d\r\n" + auth + b"Content-Length: 24\r\nContent-Length: 5\r\n"
                        b"Connection: close\r\n\r\n" + body)
    check(c == 400 and isinstance(js, dict) and js.get("error") == "duplicate_content_length",
          "two Content-Length headers -> 400 duplicate_content_length", (c, js))
    c, h, js = raw_json(b"POST /api/jobs HTTP/1.1\r\nHost: d\r\n" + auth + b"Transfer-Encoding: chunked\r\n"
                        b"Connection: close\r\n\r\n18\r\n" + body + b"\r\n0\r\n\r\n")
    check(c == 411 and isinstance(js, dict) and js.get("error") == "length_required",
          "a chunked body -> 411 length_required", (c, js))
    for ms in (99999999999, -5, 2.5, 1e30):
        s, js = call("POST", "/api/jobs", body={"lane": "update", "ms": ms}, token=TOKEN)
        check(s == 400 and js.get("error") == "bad_duration", f"job ms {ms} -> 400 bad_duration", (s, js))
    check(graph()["uptime_ms"] > 0, "device still answers")


def s_jobs_disabled():
    print("issue 28 (7): a job the controller would reject (its lane's node deactivated) is refused up front")
    s, js = verb("CALIBRATE", "deactivate")
    check(s == 202, "POST CALIBRATE/deactivate -> 202", (s, js))
    time.sleep(0.5)
    before = {j["id"] for j in call("GET", "/api/jobs")[1]["jobs"]}
    s, js = call("POST", "/api/jobs", body={"lane": "calibrate", "ms": 100}, token=TOKEN)
    check(s == 409 and js.get("error") == "target_disabled", "calibrate job -> 409 target_disabled", (s, js))
    after = {j["id"] for j in call("GET", "/api/jobs")[1]["jobs"]}
    check(after == before, "and no row for it", sorted(after - before))
    s, js = verb("CALIBRATE", "activate")
    check(s == 202, "POST CALIBRATE/activate -> 202", (s, js))
    time.sleep(0.5)
    s, js = call("POST", "/api/jobs", body={"lane": "calibrate", "ms": 100}, token=TOKEN)
    check(s == 202, "then a calibrate job is accepted", (s, js))
    jid = js["id"]
    end = time.monotonic() + 10
    while time.monotonic() < end and call("GET", f"/api/jobs/{jid}")[1]["state"] != "completed":
        time.sleep(0.2)
    check(call("GET", f"/api/jobs/{jid}")[1]["state"] == "completed", "and completes")


def s_log_burst():
    print("issue 28 (7): a burst of 120 control commands stays in the event log")
    since = graph()["events_next"] - 1
    sent = 0
    while sent < 120:
        s, js = verb("SENSOR", "activate")
        sent += s == 202
    time.sleep(0.5)
    missed, last, kinds = 0, since, []
    while True:
        s, e = call("GET", f"/api/events?since={last}")
        missed += e["missed"]
        kinds += [x["kind"] for x in e["events"]]
        if e["last"] == last:
            break
        last = e["last"]
    check(missed == 0 and kinds.count("control") >= 120,
          f"all {len(kinds)} entries readable ({kinds.count('control')} control), none missed", missed)


def count_pool_events(since):
    n, last = 0, since
    while True:
        s, e = call("GET", f"/api/events?since={last}")
        n += sum(1 for x in e["events"] if x["kind"] in ("pool_grew", "pool_shrank"))
        if e["last"] == last:
            return n, e
        last = e["last"]


def s_quiet_polling():
    print("issue 28 (9): a dashboard's polling does not churn the pool")
    wait_graph(lambda g: g["pools"][0]["busy"] <= 1, timeout=20, what="pool idle (but for this request)")
    time.sleep(4)  # past the cooldown: the pool at its floor
    since = graph()["events_next"] - 1
    t_end = time.monotonic() + 24
    while time.monotonic() < t_end:  # the page's pattern: three GETs a second, one after another
        t0 = time.monotonic()
        call("GET", "/api/graph")
        call("GET", "/api/jobs")
        call("GET", f"/api/events?since={since}")
        time.sleep(max(0, 1 - (time.monotonic() - t0)))
    n, _ = count_pool_events(since)
    FIGURES["pool_events_in_24s_of_dashboard_polling"] = n
    # Bound: two grow/shrink pairs in 24 s. The churn was 24 log
    # entries a minute: 9 or 10 in this window. A sequential poller's next
    # connection reaches the other worker while the previous one still
    # waits for its client's close, so for a moment no worker is idle; the
    # pool's policy (`app::scaling::GrowOnShed`) grows on that only if a
    # client was refused meanwhile, which a sequential poller never is while
    # two workers run. Before that policy the overlap grew the pool now and
    # then: 0-2 pairs here, and once 3 on a slower CI machine. The browser
    # test holds the real page to at most one pair in 30 s.
    check(n <= 4, f"24 s of dashboard-style polling: {n} pool grow/shrink events (at most 4)", n)


def attack(kind, n_attackers, seconds=8.0):
    """Run `n_attackers` hostile clients for `seconds`, while a normal
    client makes one try at a time at GET /api/graph (2 s timeout, no retry,
    0.1 s apart). Returns (successes, tries)."""
    stop = time.monotonic() + seconds

    def dribbler():
        while time.monotonic() < stop:
            try:
                s = socket.create_connection((HOST, PORT), timeout=3)
                s.sendall(b"GET /api/graph HTTP/1.1\r\n")
                while time.monotonic() < stop:
                    time.sleep(0.5)
                    s.sendall(b"X-A: b\r\n")
            except OSError:
                pass
            finally:
                try:
                    s.close()
                except Exception:  # noqa: BLE001
                    pass

    def sleeper():
        while time.monotonic() < stop:
            try:
                request("GET", "/api/slow?ms=9000", timeout=12)
            except (OSError, http.client.HTTPException):
                pass

    def poller():
        while time.monotonic() < stop:
            try:
                request("GET", "/api/events?since=1000000000&wait=9000", timeout=12)
            except (OSError, http.client.HTTPException):
                pass

    target = {"dribble": dribbler, "slow": sleeper, "longpoll": poller}[kind]
    ts = [threading.Thread(target=target, daemon=True) for _ in range(n_attackers)]
    for t in ts:
        t.start()
    time.sleep(1.0)
    ok = tries = 0
    why = {}
    pool_seen = []
    while time.monotonic() < stop:
        tries += 1
        try:
            s, g = request("GET", "/api/graph", timeout=2)
            ok += s == 200
            k = str(s)
            if s == 200:
                pool_seen.append(g["pools"][0]["running"])
        except socket.timeout:
            k = "timeout"
        except ConnectionResetError:
            k = "reset"
        except (OSError, http.client.HTTPException) as e:
            k = type(e).__name__
        why[k] = why.get(k, 0) + 1
        time.sleep(0.1)
    for t in ts:
        t.join(15)
    FIGURES[f"normal_client_outcomes_under_{kind}"] = why
    # The pool's running members in each answer the normal client got: a
    # pool that did not grow under the attack shows here.
    FIGURES[f"pool_running_seen_under_{kind}"] = pool_seen
    return ok, tries


def s_attacks():
    print("issue 28 (8): cheap denial of service without a token")
    # The success floors sit well under what the fixed device measures
    # (README: 85-98 % since refused clients wait 250 ms for their 503; 13-95 %
    # before that) and above what it measured before issue 28 (0 % and 31 %).
    seen = {}
    for kind, n in (("slow", 7), ("longpoll", 7), ("dribble", 8)):
        peak = [0]

        def watch():
            end = time.monotonic() + 8
            while time.monotonic() < end:
                try:
                    s, g = request("GET", "/api/graph", timeout=2)
                    if s == 200:
                        peak[0] = max(peak[0], g["http"]["anonymous_waits"])
                except (OSError, http.client.HTTPException, KeyError, TypeError):
                    pass
                time.sleep(0.3)
        w = threading.Thread(target=watch)
        if kind == "longpoll":
            w.start()
        ok, tries = attack(kind, n)
        if kind == "longpoll":
            w.join(15)
        FIGURES[f"normal_client_success_under_{kind}_x{n}"] = f"{ok}/{tries}"
        seen[kind] = (ok, tries, peak[0])
        wait_graph(lambda g: True, what="device answers after the attack")
    ok, tries, _ = seen["slow"]
    s, js = request("GET", "/api/slow?ms=9000", timeout=5)
    check(s == 401, "GET /api/slow without the token -> 401 at once (it is a load-test hook)", (s, js))
    check(ok / max(tries, 1) >= 0.1, f"7 clients looping on /api/slow: a normal client got {ok}/{tries}", seen)
    ok, tries, peak = seen["longpoll"]
    check(peak == 3, f"7 clients long-polling without a token held at most 3 workers (peak {peak}); "
          f"a normal client got {ok}/{tries}", seen)
    ok, tries, _ = seen["dribble"]
    check(ok / max(tries, 1) >= 0.5, f"8 clients dribbling their headers: a normal client got {ok}/{tries} (floor 50%)", seen)
    g = graph()
    check(g["http"]["evicted_slow_heads"] > 0, f"slow heads cut while others waited: {g['http']['evicted_slow_heads']}", g["http"])


def main():
    scenarios = [s_token, s_bad_inputs, s_http_details, s_pause_resume, s_deactivate_net, s_activate_leaf,
                 s_cut_guard, s_guard_forgets, s_restart, s_reboot_reader, s_jobs, s_jobs_truth, s_jobs_disabled, s_log_burst, s_long_holds, s_quiet_polling,
                 s_load, s_crowd, s_wedge, s_mailbox_full, s_attacks, s_slow_client, s_silent_crowd, s_reboot]
    by_name_only = [s_crowd_at_once]
    only = [a for a in sys.argv[4:]]
    if only:
        scenarios = [sc for sc in scenarios + by_name_only if sc.__name__ in only]
    t0 = time.monotonic()
    try:
        for sc in scenarios:
            sc()
    except Fail as e:
        print(f"FAIL: {e}")
        return 1
    finally:
        FIGURES["scenarios_seconds"] = round(time.monotonic() - t0, 1)
        if REPORT:
            with open(REPORT, "w") as f:
                json.dump(FIGURES, f, indent=1)
    g = graph()
    print(f"all scenarios passed in {FIGURES['scenarios_seconds']} s; device up {g['uptime_ms'] / 1000:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
