"""cdp.py - headless Chromium driven through the DevTools protocol over a
pipe (--remote-debugging-pipe: no port, no network, no Python package
beyond the standard library), for the end-to-end tests of kiln's HTML
pages: load a page, see every console message, uncaught exception and
browser-side error (a blocked script, a resource that failed to load, a
Content-Security-Policy violation), evaluate JavaScript, click at an
element's place with the mouse, take screenshots, and load pages with
JavaScript switched off.

    from cdp import Browser
    with Browser(profile_dir) as b:
        b.open("file:///.../index.html")
        b.eval("document.title")
        b.click("td.cell a")            # a real mouse click at its centre
        b.wait_for("location.pathname.endsWith('x.html')")
        b.screenshot("shot.png")
        b.errors                         # what went wrong, as strings
"""
import base64
import json
import os
import select
import shutil
import subprocess
import time


def chromium():
    for name in ("/usr/lib/chromium/chromium", "chromium", "chromium-browser"):
        p = shutil.which(name) if not name.startswith("/") else (name if os.access(name, os.X_OK) else None)
        if p:
            return p
    return None


class Browser:
    def __init__(self, profile, width=1280, height=900, timeout=60):
        self.profile, self.width, self.height, self.timeout = profile, width, height, timeout
        self.buf, self.mid, self.events, self.errors = b"", 0, [], []

    def __enter__(self):
        r1, w1 = os.pipe()  # we write, chromium reads on fd 3
        r2, w2 = os.pipe()  # chromium writes on fd 4, we read

        def fds():
            a, b = os.dup(r1), os.dup(w2)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-quic", "--hide-scrollbars",
             "--window-size=%d,%d" % (self.width, self.height), "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.w, self.r = w1, r2
        t = self.send("Target.createTarget", {"url": "about:blank"})
        self.session = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
        for m in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.cmd(m)
        self.cmd("Emulation.setDeviceMetricsOverride",
                 {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False})
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)

    # ---- the protocol ----
    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                d = os.read(self.r, 1 << 20)
                if not d:
                    raise EOFError("chromium closed the pipe")
                self.buf += d
        m, self.buf = self.buf.split(b"\0", 1)
        m = json.loads(m)
        if "method" in m:
            self._event(m)
        return m

    def _event(self, m):
        self.events.append(m)
        meth, p = m["method"], m.get("params", {})
        if meth == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.errors.append("exception: %s %s at %s:%s" % (d.get("text"), d.get("exception", {}).get(
                "description", ""), d.get("url", ""), d.get("lineNumber")))
        elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            self.errors.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                                       for a in p.get("args", []))))
        elif meth == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            e = p["entry"]
            self.errors.append("%s %s: %s %s" % (e.get("source"), e.get("level"), e.get("text"), e.get("url", "")))

    def send(self, method, params=None, session=None):
        self.mid += 1
        msg = {"id": self.mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.mid:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def cmd(self, method, params=None):
        return self.send(method, params, self.session)

    def pump(self, seconds):
        """handle the events of the next seconds"""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self._read(deadline)
        except TimeoutError:
            pass

    # ---- pages ----
    def _loaded_since(self, n):
        return any(e.get("method") == "Page.loadEventFired" for e in self.events[n:])

    def open(self, url, scripts=True):
        """load url (scripts=False: with JavaScript switched off) and wait for its load event"""
        self.cmd("Emulation.setScriptExecutionDisabled", {"value": not scripts})
        n = len(self.events)
        self.cmd("Page.navigate", {"url": url})
        self.wait_loaded(n)

    def wait_loaded(self, n):
        deadline = time.monotonic() + self.timeout
        while not self._loaded_since(n):
            self._read(deadline)
        self.pump(0.3)  # what the scripts do on load

    def eval(self, expr):
        r = self.cmd("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait_for(self, expr, seconds=10):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.eval(expr):
                return True
            self.pump(0.1)
        raise TimeoutError("never true: " + expr)

    def centre(self, selector):
        """the centre of the first element matching selector, scrolled into view"""
        r = self.eval("(() => { const e = document.querySelector(%s); if (!e) return null;"
                      " e.scrollIntoView({block: 'center'}); const b = e.getBoundingClientRect();"
                      " return [b.left + b.width / 2, b.top + b.height / 2]; })()" % json.dumps(selector))
        if not r:
            raise LookupError("no element " + selector)
        return r

    def mouse(self, kind, x, y, button="none", clicks=0):
        self.cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": button, "clickCount": clicks})

    def click_at(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)
        self.pump(0.2)

    def click(self, selector, navigates=False):
        """a real mouse click at the centre of selector; navigates: wait for the next page's load"""
        x, y = self.centre(selector)
        n = len(self.events)
        self.click_at(x, y)
        if navigates:
            self.wait_loaded(n)

    def key(self, key, code=None):
        for kind in ("keyDown", "keyUp"):
            self.cmd("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code or key,
                                                "windowsVirtualKeyCode": {"ArrowLeft": 37, "ArrowRight": 39,
                                                                          "Enter": 13}.get(key, 0)})
        self.pump(0.1)

    def screenshot(self, path, full=True):
        p = {"format": "png"}
        if full:
            m = self.cmd("Page.getLayoutMetrics")["cssContentSize"]
            p.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": self.width,
                                                       "height": min(m["height"], 6000), "scale": 1})
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.cmd("Page.captureScreenshot", p)["data"]))
