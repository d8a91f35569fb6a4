"""The review page in a real browser (headless Chromium under selenium): served, resumed, and as one HTML file.

The reviewed file is built by the real engine (`built_file`), so the page shows real substitution records.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rqa_browser import start_chromium, wait_for

from robustqa.cli import cli
from robustqa.review.decisions import read_decisions

REPO = Path(__file__).resolve().parents[2]


def built_questions(path: Path) -> dict[str, dict[str, Any]]:
    """Every changed question of a built file, by id, with its paragraph's context."""
    document = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if "original_question" in qa:
                    out[qa["id"]] = {**qa, "context": paragraph["context"]}
    return out


class Page:
    """The review page as a reviewer uses it: what is shown, and keys pressed on it."""

    def __init__(self, driver: Any) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.driver, self.by, self.keys = driver, By, Keys

    def open(self, url: str) -> None:
        self.driver.get(url)
        wait_for(lambda: self.driver.execute_script("return document.readyState") == "complete", "the page to load")
        wait_for(lambda: "/" in self.progress, "the progress counter")

    def element(self, element_id: str) -> Any:
        return self.driver.find_element(self.by.ID, element_id)

    @property
    def progress(self) -> str:
        return self.element("progress").text

    @property
    def item_id(self) -> str | None:
        return (
            None
            if self.element("item").get_attribute("hidden") is not None
            else self.element("item").get_attribute("data-id")
        )

    @property
    def status(self) -> str:
        return self.element("status").text

    def press(self, key: str) -> None:
        named = {"left": self.keys.ARROW_LEFT, "right": self.keys.ARROW_RIGHT, "backspace": self.keys.BACKSPACE}
        self.driver.find_element(self.by.TAG_NAME, "body").send_keys(named.get(key, key))

    def decide(self, key: str, *, expect_done: int, total: int) -> None:
        shown = self.item_id
        self.press(key)
        wait_for(
            lambda: self.progress == f"{expect_done} / {total}" and self.item_id != shown,
            f"decision {key!r} on {shown} to be recorded",
        )

    def marks(self, element_id: str) -> list[str]:
        return [m.text for m in self.element(element_id).find_elements(self.by.TAG_NAME, "mark")]


def check_shown(page: Page, questions: dict[str, dict[str, Any]]) -> None:
    """The item on screen shows its question pair with the edits highlighted, its answer and the answer's sentence."""
    qa = questions[page.item_id]
    assert page.element("original").text == qa["original_question"]
    assert page.element("perturbed").text == qa["question"]
    assert page.marks("perturbed") == [
        s["replacement"] for s in sorted(qa["substitutions"], key=lambda s: s["new_start"])
    ]
    assert page.marks("original") == [s["original"] for s in sorted(qa["substitutions"], key=lambda s: s["start"])]
    answer = page.element("answer").text
    if qa["is_impossible"]:
        assert answer.startswith("no answer")
    else:
        shown = [span.text for span in page.element("answer").find_elements(page.by.CLASS_NAME, "answer-text")]
        assert shown == list(dict.fromkeys(a["text"] for a in qa["answers"]))
        sentence = page.element("sentence")
        assert page.marks("sentence") == [qa["answers"][0]["text"]]
        assert sentence.text in qa["context"]


@contextmanager
def serving(
    console_script: str, built: Path, decisions: Path, reviewer: str = "ann"
) -> Iterator[tuple[subprocess.Popen[str], str, list[str]]]:
    """`robustqa review` as a user runs it, on a free port; yields the process, the URL and its output so far."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [
            console_script,
            "review",
            str(built),
            "--reviewer",
            reviewer,
            "--decisions",
            str(decisions),
            "--port",
            "0",
            "--no-browser",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("open "):
                ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(60), "robustqa review printed no address"
        match = re.search(r"open (http://127\.0\.0\.1:\d+/)", "".join(lines))
        assert match, f"no address in {lines!r}; stderr: {process.stderr.read() if process.poll() is not None else ''}"
        yield process, match.group(1), lines
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(5)


def stop(process: subprocess.Popen[str]) -> int:
    """Ctrl-C, as a reviewer stops the server."""
    process.send_signal(signal.SIGINT)
    return process.wait(timeout=20)


def port_is_closed(url: str) -> bool:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_served_review_with_the_keyboard_then_resumed(
    built_file: Path, console_script: str, chromium: tuple[Any, Path], tmp_path: Path
) -> None:
    driver, _ = chromium
    page = Page(driver)
    questions = built_questions(built_file)
    total = len(questions)
    decisions_path = tmp_path / "ann.json"
    with serving(console_script, built_file, decisions_path) as (process, url, lines):
        assert (
            f"reviewing {total} changed questions of {built_file.name} (shuffled order) as ann; 0 decided so far"
            in lines[0]
        )
        page.open(url)
        assert page.progress == f"0 / {total}"
        seen = []
        for key, done in (("a", 1), ("m", 2), ("g", 3), ("s", 4)):
            seen.append(page.item_id)
            check_shown(page, questions)
            page.decide(key, expect_done=done, total=total)
        # back: the skipped item again, shown as decided; then accept it instead
        page.press("left")
        wait_for(lambda: page.item_id == seen[3], "back to the skipped question")
        assert page.element("current").text == "decided: skipped"
        page.decide("a", expect_done=4, total=total)
        page.press("b")
        page.press("backspace")
        wait_for(lambda: page.item_id == seen[2], "two steps back")
        assert page.element("current").text == "decided: rejected (ungrammatical)"
        assert stop(process) == 0
        assert wait_for(
            lambda: any(line == f"stopped: 4 / {total} decided, saved in {decisions_path}\n" for line in lines),
            "the closing line",
        )
        assert port_is_closed(url)

    saved = json.loads(decisions_path.read_text(encoding="utf-8"))
    assert saved["reviewer"] == "ann"
    assert saved["dataset"]["sha256"] == hashlib.sha256(built_file.read_bytes()).hexdigest()
    assert saved["dataset"]["items"] == total and saved["order"] == "shuffled"
    got = [(d["id"], d["decision"], d["reason"]) for d in saved["decisions"]]
    assert got == [
        (seen[0], "accepted", None),
        (seen[1], "rejected", "meaning_changed"),
        (seen[2], "rejected", "ungrammatical"),
        (seen[3], "accepted", None),
    ]
    for d in saved["decisions"]:
        qa = questions[d["id"]]
        assert (d["original"], d["perturbed"]) == (qa["original_question"], qa["question"])
        assert [s["pos"] for s in d["substitutions"]] == [s["pos"] for s in qa["substitutions"]]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d["at"])
    assert read_decisions(decisions_path).dataset_sha256 == saved["dataset"]["sha256"]

    # reopening with the same decisions file continues at the first undecided question
    with serving(console_script, built_file, decisions_path) as (process, url, lines):
        assert "; 4 decided so far" in lines[0]
        page.open(url)
        assert page.progress == f"4 / {total}"
        fifth = page.item_id
        assert fifth not in seen
        page.decide("a", expect_done=5, total=total)
        assert stop(process) == 0
    resumed = read_decisions(decisions_path)
    assert sorted(d.id for d in resumed.decisions) == sorted([*seen, fifth])
    assert resumed.by_id()[fifth].decision == "accepted" and resumed.by_id()[seen[1]].reason == "meaning_changed"

    # the same file under another reviewer's name is refused, in one line
    refused = subprocess.run(
        [
            console_script,
            "review",
            str(built_file),
            "--reviewer",
            "bob",
            "--decisions",
            str(decisions_path),
            "--port",
            "0",
            "--no-browser",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert refused.stderr == (
        f"robustqa: error: {decisions_path}: these decisions are ann's, not bob's; "
        "give another decisions file for bob, or the reviewer name ann\n"
    )


def test_every_item_of_the_page_shows_its_record(built_file: Path, chromium: tuple[Any, Path], tmp_path: Path) -> None:
    """Walk the whole self-contained page with → and compare each screen with the built file."""
    driver, _ = chromium
    html_path = tmp_path / "review.html"
    result = CliRunner().invoke(cli, ["review", str(built_file), "--html", str(html_path), "--reviewer", "ann"])
    assert result.exit_code == 0, result.output
    questions = built_questions(built_file)
    page = Page(driver)
    page.open(html_path.as_uri())
    shown = []
    while page.item_id is not None:
        shown.append(page.item_id)
        check_shown(page, questions)
        page.press("right")
        wait_for(lambda: page.item_id != shown[-1], "the next question")
    assert sorted(shown) == sorted(questions)
    assert any(questions[i]["is_impossible"] for i in shown), (
        "the sample should include an unanswerable changed question"
    )
    assert page.element("finished").is_displayed()


def test_self_contained_page_keeps_decisions_and_downloads_them(
    built_file: Path, chromium: tuple[Any, Path], tmp_path: Path
) -> None:
    driver, downloads = chromium
    html_path = tmp_path / "review.html"
    result = CliRunner().invoke(cli, ["review", str(built_file), "--html", str(html_path)])
    assert result.exit_code == 0, result.output
    text = html_path.read_text(encoding="utf-8")
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", text), "the page must load nothing from anywhere"
    total = len(built_questions(built_file))
    page = Page(driver)
    page.open(html_path.as_uri())
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0

    # no reviewer name yet: a decision is refused until one is typed
    first = page.item_id
    page.press("a")
    wait_for(lambda: "type your name" in page.status, "the request for a reviewer name")
    assert page.progress == f"0 / {total}" and page.item_id == first
    reviewer = page.element("reviewer")
    reviewer.send_keys("carol")
    reviewer.send_keys(page.keys.ENTER)
    seen = []
    for key, done in (("a", 1), ("m", 2), ("g", 3), ("s", 4)):
        seen.append(page.item_id)
        page.decide(key, expect_done=done, total=total)
    page.press("left")
    wait_for(lambda: page.item_id == seen[3], "back to the skipped question")
    page.decide("m", expect_done=4, total=total)

    # reopening the file in the same browser resumes at the first undecided question
    page.open(html_path.as_uri())
    assert page.progress == f"4 / {total}"
    assert page.item_id not in seen
    assert page.element("reviewer").get_attribute("value") == "carol"

    page.press("d")
    saved = wait_for(lambda: [p for p in downloads.glob("decisions-carol-*.json")], "the decisions download")
    decisions = read_decisions(saved[0])
    assert decisions.reviewer == "carol"
    assert decisions.dataset_sha256 == hashlib.sha256(built_file.read_bytes()).hexdigest()
    assert [(d.id, d.decision, d.reason) for d in decisions.decisions] == [
        (seen[0], "accepted", None),
        (seen[1], "rejected", "meaning_changed"),
        (seen[2], "rejected", "ungrammatical"),
        (seen[3], "rejected", "meaning_changed"),
    ]
    # the download is read like the server's file: --stats and filter --validated take it
    stats = CliRunner().invoke(cli, ["review", "--stats", str(saved[0])])
    assert stats.exit_code == 0, stats.output
    assert re.search(r"^carol\s+4\s+0\s+4\s+1\s+25\.0%", stats.stdout, re.MULTILINE)
    filtered = CliRunner().invoke(
        cli, ["filter", str(built_file), "--validated", str(saved[0]), "--output", str(tmp_path / "validated.json")]
    )
    assert filtered.exit_code == 0, filtered.output
    assert "accepted           1 (kept perturbed)" in filtered.stdout

    # another browser (fresh profile) resumes from the downloaded file through "Load decisions…"
    other = start_chromium(tmp_path / "profile-2", tmp_path / "downloads-2")
    try:
        second = Page(other)
        second.open(html_path.as_uri())
        assert second.progress == f"0 / {total}"
        second.element("load").send_keys(str(saved[0]))
        wait_for(lambda: second.progress == f"4 / {total}", "the loaded decisions")
        assert second.element("reviewer").get_attribute("value") == "carol"
        assert second.item_id not in seen
    finally:
        other.quit()


def test_missing_chromium_fails_with_the_install_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import rqa_browser

    monkeypatch.setattr(rqa_browser.shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(pytest.fail.Exception) as failure:
        start_chromium(tmp_path / "profile", tmp_path)
    assert "apt-get install -y --no-install-recommends chromium chromium-driver" in str(failure.value)
