"""Headless Chromium driven over the Chrome DevTools Protocol, through a pipe: one browser, many pages, no package.

``--dump-dom`` (``browser.py``) runs one page per browser and returns its DOM; checking every page of the site at
two widths that way would start the browser dozens of times. ``Browser`` starts Chromium once with
``--remote-debugging-pipe`` (the protocol's JSON messages, each ended by a NUL byte, on file descriptors 3 and 4)
and gives each page a tab:

    with Browser() as browser:
        tab = browser.open(page_path, width=390)     # loaded, scripts run, fonts in
        tab.evaluate("document.title")
        tab.console_errors                           # what the page logged as an error, and uncaught exceptions
        tab.screenshot(png_path)                     # the whole page
        tab.close()

The network is off: a proxy that does not exist refuses every request that is not a file (see ``OFFLINE``).
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")  # None where it is not installed
OFFLINE = ("--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>")  # every fetch fails: the network is off
VIEW_HEIGHT = 900  # the window's height, in CSS pixels, at every width


class Browser:
    """A headless Chromium and the protocol pipe to it; a context manager that closes it."""

    def __init__(self, timeout: float = 60) -> None:
        if CHROMIUM is None:
            raise RuntimeError("Chromium is not installed")
        self.timeout = timeout
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the protocol reads its commands from descriptor 3 and writes replies and events to descriptor 4
        self._process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             "--remote-debugging-pipe", "--allow-file-access-from-files", *OFFLINE, "about:blank"],
            pass_fds=(3, 4), preexec_fn=_as_fds_3_and_4(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Ask the browser to quit; kill it if it does not within a few seconds."""
        try:
            self._send("Browser.close", wait=False)
            self._process.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            os.close(self._to_browser)
            os.close(self._from_browser)

    def open(self, page: Path | str, width: int, height: int = VIEW_HEIGHT) -> Tab:
        """A new tab ``width`` CSS pixels wide showing ``page`` (a path or a URL), once its load event has fired and
        its fonts are in."""
        # each tab in a context of its own: no storage left by another page (the theme remembers its mode there)
        context = self._send("Target.createBrowserContext")["browserContextId"]
        target = self._send("Target.createTarget", url="about:blank", browserContextId=context)["targetId"]
        session = self._send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tab = Tab(self, context, target, session)
        for domain in ("Page", "Runtime", "Log"):
            tab.send(f"{domain}.enable")
        tab.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                 mobile=width < 600)
        url = page.as_uri() if isinstance(page, Path) else page
        tab.send("Page.navigate", url=url)
        self._wait_event("Page.loadEventFired", session)
        tab.evaluate("document.fonts.ready.then(() => location.href)")
        return tab

    def send(self, method: str, **params) -> dict:
        """A command to the browser itself (``Browser.setDownloadBehavior``); its result."""
        return self._send(method, None, **params)

    def wait_event(self, method: str, where=lambda params: True) -> dict:
        """The next event ``method`` of the browser itself whose parameters ``where`` accepts."""
        return self._wait(lambda m: m.get("method") == method and "sessionId" not in m
                          and where(m.get("params", {})))

    # -- the protocol --------------------------------------------------------------------------------------------
    def _send(self, method: str, session: str | None = None, wait: bool = True, **params) -> dict:
        """Send one command; its result (raise RuntimeError on a protocol error) unless ``wait`` is False."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        if not wait:
            return {}
        reply = self._wait(lambda m: m.get("id") == self._next_id)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def _wait_event(self, method: str, session: str) -> dict:
        return self._wait(lambda m: m.get("method") == method and m.get("sessionId") == session)

    def _wait(self, wanted) -> dict:
        """The first message, queued or to come, for which ``wanted`` is true; events before it stay queued."""
        for i, message in enumerate(self._events):
            if wanted(message):
                return self._events.pop(i)
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                    raise TimeoutError(f"Chromium sent nothing it was waited for in {self.timeout} s")
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the protocol pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            message = json.loads(raw)
            if wanted(message):
                return message
            self._events.append(message)

    def _drain(self, session: str) -> list[dict]:
        """The queued events of ``session``, removed from the queue."""
        mine = [m for m in self._events if m.get("sessionId") == session]
        self._events = [m for m in self._events if m.get("sessionId") != session]
        return mine


class Tab:
    """One page in the browser: evaluate scripts in it, read what it logged, photograph it."""

    def __init__(self, browser: Browser, context: str, target: str, session: str) -> None:
        self.browser, self.context, self.target, self.session = browser, context, target, session
        self._logged: list[str] = []

    def send(self, method: str, **params) -> dict:
        return self.browser._send(method, self.session, **params)

    def evaluate(self, expression: str):
        """The value of a JavaScript ``expression`` in the page (a promise is awaited); raise on an exception."""
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(details.get("exception", {}).get("description") or details.get("text"))
        return result["result"].get("value")

    def add_script(self, path: Path) -> None:
        """Run the JavaScript file ``path`` in the page (a library a check needs, such as axe-core)."""
        self.evaluate(path.read_text(encoding="utf-8") + "\n;true")

    @property
    def console_errors(self) -> list[str]:
        """Everything the page logged as an error so far: console.error, uncaught exceptions, failed loads."""
        for event in self.browser._drain(self.session):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                self._logged.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                self._logged.append(details.get("exception", {}).get("description") or details.get("text", ""))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                entry = params["entry"]
                self._logged.append(f"{entry.get('text')} {entry.get('url', '')}".strip())
        return list(self._logged)

    def screenshot(self, path: Path, clip: dict | None = None) -> None:
        """Save the whole page, or the part ``clip`` gives (x, y, width, height in page pixels), as a PNG."""
        extra = {"clip": {**clip, "scale": 1}} if clip else {}
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=not clip, **extra)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.browser._send("Target.closeTarget", targetId=self.target)
        self.browser._send("Target.disposeBrowserContext", browserContextId=self.context)


def _as_fds_3_and_4(read_end: int, write_end: int):
    """A preexec function that puts the pipe's ends where ``--remote-debugging-pipe`` looks for them."""
    def move() -> None:
        r, w = os.dup(read_end), os.dup(write_end)  # first out of the way, in case either already is 3 or 4
        os.dup2(r, 3)
        os.dup2(w, 4)
    return move
