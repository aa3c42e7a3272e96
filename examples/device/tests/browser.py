#!/usr/bin/env python3
"""A real browser against the device: Debian's headless Chromium, driven by
Selenium through Debian's chromedriver (no browser or driver download).

Opens the dashboard, checks it drew the graph; clicks like a human (press,
hold 150 ms, release) 24 times and checks every click sent its request;
clicks Deactivate on NET and checks the page then shows NET disabled and its
dependents (the HTTP workers, REPORT) down, with no false "unreachable"
banner, and saves a screenshot; makes the page read the log as if the device
had rebooted and checks it says so; clicks Deactivate on ETH, accepts the
two confirmations (the page asks first, the device answers 409 and the page
offers to force), and checks the page shows it lost contact and recovers by
itself when the forced cut reverts.

usage: browser.py PORT TOKEN SCREENSHOT.png
"""
import json
import os
import sys
import threading
import urllib.error
import urllib.request
import tempfile
import time

os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium fetch anything

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PORT, TOKEN, SHOT = sys.argv[1], sys.argv[2], sys.argv[3]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000"]


def state(d, name):
    """The state word the node table shows for `name` ('' if absent)."""
    try:
        cells = d.find_elements(By.CSS_SELECTOR, f'tr[id="row-{name}"] td.st')
        return cells[0].text.split()[0] if cells and cells[0].text else ""
    except StaleElementReferenceException:
        return ""


def graph_state(d, name):
    """The `data-state` of `name`'s node in the graph drawing (None if
    absent), read in the page in one step: the drawing is redrawn on every
    poll, so an element located first could be replaced before it is read."""
    return d.execute_script(
        "const g = document.querySelector(`g[id=\"g-${arguments[0]}\"]`);"
        " return g ? g.getAttribute('data-state') : null;", name)


def cut_diagnosis(drv):
    """What to look at when a forced cut did not cut: the page's own
    message and texts, and the device's view of the cut (its nodes, the
    revert armed, the last events), if it still answers."""
    lines = []
    try:
        lines.append("page msg: " + drv.find_element(By.ID, "msg").text)
        lines.append("page texts: " + repr(drv.execute_script("return window.__texts.slice(-8)")))
        g = api("/api/graph")
        lines.append("device nodes: " + repr({n["name"]: n.get("state") for n in g.get("nodes", [])}))
        lines.append("device guard: " + repr(g.get("guard")))
        lines.append("device events: " + repr(events_since(max(0, g["events_next"] - 12))))
    except Exception as e:  # the device went quiet after all, or the page is gone
        lines.append(f"diagnosis stopped: {e!r}")
    return "\n".join(lines)


def api(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}{path}", timeout=5) as r:
        return json.loads(r.read())


HOOKS = """
window.__posts = 0; window.__texts = [];
const f = window.fetch;
window.fetch = (u, o) => { if (o && o.method == 'POST') window.__posts++; return f(u, o); };
for (const id of ['msg', 'conn']) {
  const el = document.getElementById(id);
  if (el) new MutationObserver(() => window.__texts.push(id + ': ' + el.textContent))
    .observe(el, {childList: true, characterData: true, subtree: true});
}
"""


# Hold the page's /api/events fetches until `window.__hold` is cleared, and
# record the first "entries missed" note the event list shows.
HOLD_EVENTS = """
window.__hold = true; window.__missed = null;
const f0 = window.fetch;
window.fetch = (u, o) => String(u).includes('/api/events') && window.__hold
  ? new Promise(r => { const t = setInterval(() => { if (!window.__hold) { clearInterval(t); r(f0(u, o)); } }, 50); })
  : f0(u, o);
const ev = document.getElementById('events');
new MutationObserver(() => { const m = ev.textContent.match(/——— \\d+ entries missed[^\\n]*/);
  if (m && !window.__missed) window.__missed = m[0]; })
  .observe(ev, {childList: true, characterData: true, subtree: true});
"""


def events_since(since):
    out, last = [], since
    while True:
        e = api(f"/api/events?since={last}")
        out += e["events"]
        if e["last"] == last:
            return out
        last = e["last"]


def post(path):
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", method="POST", data=b"",
                                 headers={"Authorization": f"Bearer {TOKEN}", "Connection": "close"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def human_click(d, selector):
    """Press the pointer on the element's centre, hold 150 ms, release: a
    click as a person makes it, at a place on the screen (not on an element
    reference), so a redraw under the pointer loses it as it would lose a
    person's."""
    r = d.execute_script(
        "const b = document.querySelector(arguments[0]); if (!b) return null;"
        " const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];", selector)
    if r is None:
        raise AssertionError(f"no element {selector}")
    a = ActionBuilder(d)
    a.pointer_action.move_to_location(int(r[0]), int(r[1]))
    a.pointer_action.pointer_down()
    a.pointer_action.pause(0.15)
    a.pointer_action.pointer_up()
    a.perform()


def accept_alert(d, what):
    try:
        WebDriverWait(d, 5).until(EC.alert_is_present())
    except TimeoutException:
        raise AssertionError(f"no confirmation dialog: {what}")
    al = d.switch_to.alert
    text = al.text
    al.accept()
    return text


def check_missed_note(d):
    """The log overflows between two of the page's polls (a tab that fell
    behind): the page must say how many entries it missed. Hold the page's
    /api/events fetches, push 300 entries (the log keeps 256), let go, and
    watch the event list for the note. Run last: it leaves the log full of
    control entries, and the checks before look for the boot's spawns."""
    d.execute_script(HOLD_EVENTS)
    sent = 0
    t_end = time.monotonic() + 60
    while sent < 300 and time.monotonic() < t_end:
        sent += post("/api/nodes/SENSOR/activate") == 202
    d.execute_script("window.__hold = false;")
    try:
        WebDriverWait(d, 10, poll_frequency=0.2).until(lambda d: d.execute_script("return window.__missed;"))
    except TimeoutException:
        raise AssertionError("no 'entries missed' note after the log overflowed between two polls: "
                             + d.find_element(By.ID, "events").text[:300])
    note = d.execute_script("return window.__missed;")
    n = int(note.split("———")[1].split()[0])
    if not (0 < n <= sent) or "the log keeps 256" not in note:
        raise AssertionError(f"missed note {note!r} after {sent} entries")
    print(f"  ok  {sent} entries between two polls: the page says {note.strip()!r}")


def main():
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for f in FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(f)
    drv = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    drv.set_page_load_timeout(30)
    drv.set_script_timeout(10)
    try:
        drv.get(f"http://127.0.0.1:{PORT}/#token={TOKEN}")
        wait = WebDriverWait(drv, 25, poll_frequency=0.2,
                             ignored_exceptions=[StaleElementReferenceException])
        wait.until(lambda d: state(d, "NET") == "running" and d.find_elements(By.CSS_SELECTOR, "svg line"))
        print("  ok  dashboard drew the graph (edges) and NET running")
        workers = drv.execute_script(
            'return [...document.querySelectorAll(\'tr[id^="row-HTTP"]\')].map(r => r.id.slice(4));')
        drv.execute_script(HOOKS)
        # 24 human-speed clicks on a verb that always applies to a running
        # node (restart REPORT): each must send its request.
        n_clicks = 24
        for k in range(n_clicks):
            wait.until(lambda d: d.execute_script(
                "const b = document.querySelector('tr[id=\"row-REPORT\"] button[data-verb=\"restart\"]');"
                " return b && !b.disabled;"))
            human_click(drv, 'tr[id="row-REPORT"] button[data-verb="restart"]')
            time.sleep(0.25 + 0.3 * ((k * 7) % 5) / 5)
        time.sleep(0.5)
        posts = drv.execute_script("return window.__posts;")
        if posts != n_clicks:
            raise AssertionError(f"{n_clicks} clicks sent {posts} requests")
        print(f"  ok  {n_clicks} human-speed clicks sent {posts} requests (none lost to a redraw)")
        # What the page shows besides the graph: the legend, the thresholds,
        # the history plots, and a job found by its id.
        extras = drv.execute_script(
            "return [document.querySelectorAll('#legend span').length,"
            " document.getElementById('thr').textContent,"
            " [...document.querySelectorAll('#hist polyline')].map(p => p.getAttribute('points').split(' ').length)];")
        if extras[0] < 7 or "200 ms" not in extras[1] or "5 s" not in extras[1] or len(extras[2]) != 5 \
                or min(extras[2]) < 5:
            raise AssertionError(f"legend, thresholds or history missing: {extras}")
        print(f"  ok  legend ({extras[0]} states), thresholds ({extras[1]!r}), 5 history plots of {min(extras[2])}+ points")
        req = urllib.request.Request(f"http://127.0.0.1:{PORT}/api/jobs", method="POST",
                                     data=json.dumps({"lane": "calibrate", "ms": 100}).encode(),
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        jid = json.loads(urllib.request.urlopen(req, timeout=5).read())["id"]
        time.sleep(1)
        box = drv.find_element(By.CSS_SELECTOR, '#lookup input[name="id"]')
        box.clear()
        box.send_keys(str(jid))
        drv.find_element(By.CSS_SELECTOR, "#lookup button").click()
        try:
            wait.until(lambda d: f"#{jid} calibrate completed" in d.find_element(By.ID, "found").text)
        except TimeoutException:
            raise AssertionError("job lookup: " + drv.find_element(By.ID, "found").text)
        print(f"  ok  job lookup by id: {drv.find_element(By.ID, 'found').text!r}")
        # The page idling 30 s: its own polling must not make the pool grow
        # and shrink (each pair is four event-log entries; the issue saw 24
        # entries a minute). Bound: one pair. Never seen to fail: 0 events
        # in every minute measured on this firmware and on main's; on the
        # firmware before issue 28 (min 1) one pair in one of three minutes.
        since = api("/api/graph")["events_next"] - 1
        time.sleep(30)
        churn = [e for e in events_since(since) if e["kind"] in ("pool_grew", "pool_shrank")]
        if len(churn) > 2:
            raise AssertionError(f"the idle page's polling churned the pool: {[(e['kind'], e['name']) for e in churn]}")
        print(f"  ok  30 s of the page polling: {len(churn)} pool grow/shrink events (at most 2)")
        drv.execute_script("window.__texts = [];")
        human_click(drv, 'tr[id="row-NET"] button[data-verb="deactivate"]')
        print("  ok  clicked Deactivate on NET")
        wait.until(lambda d: state(d, "NET") == "disabled")
        wait.until(lambda d: all(state(d, w) in ("disabled", "down", "exited") for w in workers)
                   and state(d, "REPORT") in ("disabled", "down", "exited"))
        try:
            wait.until(lambda d: graph_state(d, "NET") == "disabled")
        except TimeoutException:
            raise AssertionError(f"graph node NET is {graph_state(drv, 'NET')}")
        print("  ok  the page shows NET disabled and its dependents (HTTP workers, REPORT) down")
        # The event list polls /api/events on its own timer, apart from the
        # state table: wait for its next fetch rather than read it at once.
        try:
            wait.until(lambda d: "control NET deactivate" in d.find_element(By.ID, "events").text)
        except TimeoutException:
            raise AssertionError(drv.find_element(By.ID, "events").text)
        print("  ok  the event list shows the control command")
        # A second client (another tab, a script) shares ADMIN with the
        # page for 5 s: some of the page's requests meet the shedder's 503.
        stop = time.monotonic() + 5

        def other_client():
            while time.monotonic() < stop:
                try:
                    api("/api/graph")
                except (OSError, ValueError):
                    pass
                time.sleep(0.05)
        th = threading.Thread(target=other_client)
        th.start()
        th.join(15)
        time.sleep(2)
        texts = drv.execute_script("return window.__texts;")
        false = [t for t in texts if "TypeError" in t or "unreachable" in t or "no contact" in t]
        print(f"  info the page's banner texts meanwhile: {sorted(set(texts))[:6]}")
        if false:
            raise AssertionError(f"a false banner while ADMIN served: {false[:5]}")
        conn = drv.find_element(By.ID, "conn").text
        if not conn.startswith("updated"):
            raise AssertionError(f"the page does not say it is up to date: {conn!r}")
        print(f"  ok  no false 'unreachable' banner while NET was down; the page says {conn!r}")
        drv.save_screenshot(SHOT)
        print(f"  ok  screenshot saved: {SHOT}")
        # A reboot, as the page sees one: its log cursor and boot id are
        # from another boot.
        drv.execute_script("boot = 1; since = 999999;")
        try:
            wait.until(lambda d: "rebooted" in d.find_element(By.ID, "events").text
                       or "restarted" in d.find_element(By.ID, "events").text)
            wait.until(lambda d: "spawned" in d.find_element(By.ID, "events").text)
        except TimeoutException:
            raise AssertionError("the page did not notice the reboot: " + drv.find_element(By.ID, "events").text[:300])
        print("  ok  a reboot is noticed: the event list restarts from the new boot's log")
        # Cutting ETH: the page asks, the device refuses (409), the page
        # offers to force; forced, the page loses contact, says so, and
        # recovers when the cut reverts by itself (30 s).
        human_click(drv, 'tr[id="row-ETH"] button[data-verb="deactivate"]')
        t1 = accept_alert(drv, "before deactivating ETH")
        t2 = accept_alert(drv, "offer to force after the 409")
        if "revert" not in t2:
            raise AssertionError(f"the force offer does not say it reverts: {t2!r}")
        print(f"  ok  two confirmations: {t1.splitlines()[0]!r}, then {t2.splitlines()[0]!r}")
        lw = WebDriverWait(drv, 20, poll_frequency=0.3)
        try:
            lw.until(lambda d: "no contact" in d.find_element(By.ID, "conn").text)
        except TimeoutException:
            raise AssertionError("the page did not show it lost contact: " + drv.find_element(By.ID, "conn").text
                                 + "\n" + cut_diagnosis(drv))
        print(f"  ok  the page shows {drv.find_element(By.ID, 'conn').text!r}")
        try:
            WebDriverWait(drv, 60, poll_frequency=0.5).until(
                lambda d: d.find_element(By.ID, "conn").text.startswith("updated") and state(d, "ETH") == "running")
        except TimeoutException:
            raise AssertionError("the page did not recover: " + drv.find_element(By.ID, "conn").text)
        print("  ok  the cut reverted by itself and the page recovered (ETH running, banner cleared)")
        # A real reboot: the page must drop the old boot's log and say so.
        up0 = api("/api/graph")["uptime_ms"]
        drv.execute_script("evs.length = 0; showEvents();")  # forget the simulated reboot's note
        req = urllib.request.Request(f"http://127.0.0.1:{PORT}/api/reboot", method="POST",
                                     headers={"Authorization": f"Bearer {TOKEN}"})
        urllib.request.urlopen(req, timeout=5).read()

        def fresh(d):
            m = d.execute_script("const m = document.getElementById('up').textContent.match(/up (\\d+) s/);"
                                 " return m ? +m[1] : null;")
            ev = d.find_element(By.ID, "events").text
            return m is not None and m < min(30, up0 / 2000) and "rebooted" in ev and "spawned ETH" in ev \
                and "reboot requested" not in ev and d.find_element(By.ID, "conn").text.startswith("updated")
        try:
            WebDriverWait(drv, 60, poll_frequency=0.5).until(fresh)
        except TimeoutException:
            raise AssertionError("the page did not follow the reboot: " + drv.find_element(By.ID, "up").text + " / "
                                 + drv.find_element(By.ID, "events").text[:300])
        print(f"  ok  after a real reboot the page shows {drv.find_element(By.ID, 'up').text!r}, the new boot's log, and says it rebooted")
        check_missed_note(drv)
        return 0
    except (TimeoutException, AssertionError) as e:
        drv.save_screenshot(SHOT)
        print(f"FAIL: {type(e).__name__}: {e}; screenshot {SHOT}")
        print("page states:", {w: state(drv, w) for w in ["NET", "REPORT", "HTTP[0]"]})
        return 1
    finally:
        drv.quit()


if __name__ == "__main__":
    sys.exit(main())
