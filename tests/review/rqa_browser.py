"""Starting Debian's Chromium under selenium for the review-page tests, offline.

A missing browser fails the test with the install command: the page is a feature, and a skipped browser
test would hide that it was never exercised.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

INSTALL = "apt-get update && apt-get install -y --no-install-recommends chromium chromium-driver (as .ci/run does)"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def start_chromium(profile: Path, downloads: Path) -> Any:
    browser = shutil.which("chromium")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        missing = " and ".join(name for name, path in (("chromium", browser), ("chromedriver", driver)) if path is None)
        pytest.fail(
            f"{missing} not found: the review page is tested in a real browser; install it with: {INSTALL}",
            pytrace=False,
        )
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: pip install -e '.[dev]'", pytrace=False)
    os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager look for drivers online
    options = Options()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    )
    chrome = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    chrome.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return chrome


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """Poll until `condition()` is truthy; fail saying what did not happen."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
