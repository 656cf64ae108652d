"""Headless Chromium from Debian (``chromium``, ``chromium-driver``; scripts/setup.sh installs
them), driven by Selenium, for the tests of the pages the server serves."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
LAPTOP = (1400, 1000)
PHONE = (390, 844)


def chromium_or_skip() -> None:
    """Skip (fail on CI) where Debian's Chromium and its driver are not installed."""
    if shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER):
        return
    message = "chromium and chromium-driver are not installed: run scripts/setup.sh"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@contextmanager
def chromium(size: tuple[int, int] = LAPTOP) -> Iterator[webdriver.Chrome]:
    """A headless Chromium whose console messages ``console_errors`` can read."""
    chromium_or_skip()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        # Tests run as root in CI, where Chromium's sandbox cannot start.
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={size[0]},{size[1]}",
        # Nothing but the server under test: no update checks, no sync, no field trials.
        "--disable-background-networking",
        "--no-first-run",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(CHROMEDRIVER, log_output=subprocess.DEVNULL)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: webdriver.Chrome, seconds: float = 30) -> WebDriverWait[webdriver.Chrome]:
    return WebDriverWait(driver, seconds, poll_frequency=0.05)


def console_errors(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """The page's errors since the last call: uncaught exceptions and console.error. (Chromium
    also logs each HTTP error status it fetched; those are the answers the tests ask for.)"""
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return [
        entry
        for entry in entries
        if entry["level"] == "SEVERE" and entry.get("source") in ("javascript", "console-api")
    ]


def screenshot(driver: webdriver.Chrome, path: Path) -> Path:
    """Save what the window shows, after checking it is more than a blank page: many colours,
    and a good share of the pixels differ from the most common one (the background)."""
    png = driver.get_screenshot_as_png()
    path.write_bytes(png)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=image.width * image.height) or []
    background = max(count for count, _ in colours)
    drawn = 1 - background / (image.width * image.height)
    assert len(colours) > 50 and drawn > 0.05, (
        f"{path.name} looks blank: {len(colours)} colours, {drawn:.1%} of the pixels drawn"
    )
    return path
