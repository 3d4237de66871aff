#!/usr/bin/env python3
"""Loads HTML pages from disk in headless Chromium and reports what a reader sees.

Usage: check_pages.py SCREENSHOT_DIR PAGE.html...

Starts Chromium itself (a fresh profile in a temporary folder), drives it over
the DevTools protocol, and prints one JSON object: for each page, the named
results that hold a table, the size each figure renders at, console errors and
uncaught exceptions, resources that failed to load, the local links, and a
full-page screenshot (saved to SCREENSHOT_DIR) with how much of it is not
background. The Rust test (cli/tests/testsuite/book_in_browser.rs) decides what passes.
"""

import base64
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket  # websocket-client
from PIL import Image

BROWSERS = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

# What the page reports about itself once loaded.
PROBE = r"""
(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  const named = (el) => { const r = el.closest('[data-name]'); return r ? r.dataset.name : null; };
  return JSON.stringify({
    title: document.title,
    tables: [...document.querySelectorAll('.results[data-name]')]
      .filter((r) => r.querySelector('table'))
      .map((r) => ({name: r.dataset.name, rows: r.querySelectorAll('tbody tr').length})),
    figures: [...document.querySelectorAll('figure svg, img')]
      .map((f) => ({name: named(f), tag: f.tagName.toLowerCase(), size: box(f),
                    complete: f.tagName === 'IMG' ? f.complete && f.naturalWidth > 0 : true})),
    links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
    scripts: document.scripts.length,
  });
})()
"""


def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no Chromium found (tried %s); install Debian's `chromium` package" % ", ".join(BROWSERS))


class Cdp:
    """A DevTools connection: commands by id, events collected as they come."""

    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        me = self.next_id
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == me:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_for(self, method, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError("no %s within %s s" % (method, seconds))


def start(profile):
    args = [
        browser(), "--headless=new", "--no-sandbox", "--disable-gpu",
        "--no-first-run", "--no-default-browser-check", "--disable-extensions",
        "--remote-debugging-port=0", "--user-data-dir=" + profile,
        "--window-size=1200,900", "about:blank",
    ]
    # Its own process group, so that ending it ends its renderer and helper
    # processes too, which otherwise go on writing into the profile.
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    port_file = Path(profile) / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while not port_file.exists() or not port_file.read_text().strip():
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            sys.exit("Chromium did not start (%s)" % " ".join(args))
        time.sleep(0.1)
    port = port_file.read_text().split()[0]
    with urllib.request.urlopen("http://127.0.0.1:%s/json/list" % port) as r:
        targets = json.load(r)
    page = next(t for t in targets if t["type"] == "page")
    return proc, Cdp(page["webSocketDebuggerUrl"])


def stop(proc):
    """Ends Chromium and every process of its group, and waits for them."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    # The group's other processes are not our children; wait until they are gone.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def problems(events):
    out = {"console_errors": [], "exceptions": [], "failed_loads": []}
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out["console_errors"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            out["exceptions"].append(p["exceptionDetails"].get("text", ""))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            out["console_errors"].append(p["entry"].get("text", ""))
        elif m == "Network.loadingFailed":
            out["failed_loads"].append(p.get("errorText", "") + " " + p.get("requestId", ""))
        elif m == "Network.responseReceived" and p["response"].get("status", 200) >= 400:
            out["failed_loads"].append("%s %s" % (p["response"]["status"], p["response"]["url"]))
    return out


def ink(png):
    """The share of pixels that differ from the top-left (background) pixel,
    and the number of distinct colours."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    small = img.resize((max(1, img.width // 4), max(1, img.height // 4)))
    pixels = list(small.getdata())
    background = pixels[0]
    differ = sum(1 for p in pixels if p != background)
    return differ / len(pixels), len(set(pixels))


def check(cdp, page, shots):
    cdp.events.clear()
    url = Path(page).resolve().as_uri()
    cdp.call("Page.navigate", url=url)
    cdp.wait_for("Page.loadEventFired")
    # Let late console messages and failed loads arrive.
    time.sleep(0.3)
    cdp.call("Runtime.evaluate", expression="0")
    result = json.loads(cdp.call("Runtime.evaluate", expression=PROBE, returnByValue=True)["result"]["value"])
    metrics = cdp.call("Page.getLayoutMetrics")["cssContentSize"]
    width, height = int(metrics["width"]), min(int(metrics["height"]), 30000)
    shot = cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                    clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
    png = base64.b64decode(shot["data"])
    path = Path(shots) / (Path(page).stem + ".png")
    path.write_bytes(png)
    share, colours = ink(png)
    result.update(problems(cdp.events))
    result["screenshot"] = {"path": str(path), "width": width, "height": height,
                            "ink": share, "colours": colours}
    return result


def main():
    shots, pages = sys.argv[1], sys.argv[2:]
    os.makedirs(shots, exist_ok=True)
    # A helper process that outlives the group's end by a moment may still
    # have written into the profile; that is no failure of the pages.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        proc, cdp = start(profile)
        try:
            for domain in ("Page", "Runtime", "Log", "Network"):
                cdp.call(domain + ".enable")
            report = {Path(p).name: check(cdp, p, shots) for p in pages}
        finally:
            stop(proc)
    json.dump(report, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
