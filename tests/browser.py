"""One way to look at a page in a real browser: Playwright driving Debian's Chromium (installed by scripts/setup.sh).

Tests that use it carry ``@pytest.mark.browser`` (run with the slow tests: ``bash scripts/test.sh -m slow``). A test
collects the console errors and failed requests of the page it opened, saves screenshots under
``tests/screenshots/`` (git-ignored; the path is printed so a person can look at them) and checks the DOM.

    from browser import open_page, serve_http
    with open_page("file:///…/report.html") as page:
        ...
        assert not page.errors
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("EQ_EVALS_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"


@dataclass
class Page:
    """The Playwright page plus what went wrong on it: console errors, page errors and failed or blocked requests."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def screenshot(self, name: str, full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        print(f"screenshot: {path}")
        return path


def _require_browser() -> None:
    if not Path(CHROMIUM).exists():
        raise RuntimeError(
            f"no Chromium at {CHROMIUM}: run `bash scripts/setup.sh` (it installs Debian's chromium) or set EQ_EVALS_CHROMIUM"
        )
    try:
        import playwright  # noqa: F401
    except ImportError as e:  # pragma: no cover - setup.sh installs the test extra
        raise RuntimeError("playwright is not installed: run `bash scripts/setup.sh` (the [test] extra)") from e


@contextlib.contextmanager
def open_page(url: str, viewport: tuple[int, int] = (1400, 1000), offline: bool = False) -> Iterator[Page]:
    """Open ``url`` in headless Chromium. With ``offline=True`` every request that leaves ``file://`` is blocked and
    recorded in ``Page.requests`` (a self-contained file must make none)."""
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            seen = Page(page)
            page.on(
                "console", lambda m: seen.errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None
            )
            page.on("pageerror", lambda e: seen.errors.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: seen.requests.append(f"failed {r.url}"))
            if offline:

                def route(r: Any) -> None:
                    if r.request.url.startswith(("file:", "data:", "blob:", "about:")):
                        r.continue_()
                    else:
                        seen.requests.append(r.request.url)
                        r.abort()

                page.route("**/*", route)
            page.goto(url)
            yield seen
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def inspect_view(log_dir: str | Path, timeout: float = 60.0) -> Iterator[str]:
    """Run ``inspect view`` on ``log_dir`` in the background; yields its base URL (``http://127.0.0.1:PORT``)."""
    port = free_port()
    inspect = Path(sys.executable).with_name("inspect")
    proc = subprocess.Popen(
        [str(inspect), "view", "--log-dir", str(log_dir), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"inspect view exited: {proc.stderr.read().decode()[-2000:]}") from None
                if time.monotonic() > deadline:
                    raise RuntimeError(f"inspect view did not answer on {url} within {timeout:.0f} s") from None
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
