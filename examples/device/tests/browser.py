#!/usr/bin/env python3
"""A real browser against the device: Debian's headless Chromium, driven by
Selenium through Debian's chromedriver (no browser or driver download).

Opens the dashboard, checks it drew the graph, clicks Deactivate on NET and
checks the page then shows NET disabled and its dependents (the HTTP workers,
REPORT) down, and saves a screenshot.

usage: browser.py PORT TOKEN SCREENSHOT.png
"""
import os
import sys
import tempfile
import time

os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium fetch anything

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
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
        time.sleep(2.5)  # let the page show CPU figures (two samples)
        for _ in range(20):
            try:
                drv.find_element(By.CSS_SELECTOR, 'tr[id="row-NET"] button[data-verb="deactivate"]').click()
                break
            except StaleElementReferenceException:
                time.sleep(0.1)
        else:
            raise AssertionError("the Deactivate button of NET was redrawn under every click")
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
        time.sleep(1.2)
        drv.save_screenshot(SHOT)
        print(f"  ok  screenshot saved: {SHOT}")
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
