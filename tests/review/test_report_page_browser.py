"""`robustqa report --format html` in a real browser (headless Chromium): the page fits a 1280 px window.

Two runs side by side with a long model name make the widest table the command writes; the page must not
scroll sideways (a wide table scrolls inside its own box) and the chart must shrink to the page. The test
writes a screenshot (report-1280.png) beside the page, for a person to look at.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.evaluation.inference import InferenceSettings, Prediction
from robustqa.evaluation.run import EvalConfig, run_evaluation

MODEL = "an-organisation-with-a-long-name/electra-large-discriminator-finetuned-squad2-long-checkpoint-name"
CONTEXT = "Normandy is a region in France. The Normans gave their name to it in the 10th century."
QUESTIONS = {
    "q1": ("In what country is Normandy located?", "France", "In what nation is Normandy located?"),
    "q2": (
        "When did the Normans give their name to Normandy?",
        "10th century",
        "When did the Normans lend their name to Normandy?",
    ),
    "q3": ("Who gave their name to Belgium?", None, "Who lent their name to Belgium?"),
}


class FakeRunner:
    """Right on every question except those holding "nation" (no model, milliseconds)."""

    model_fingerprint = "fake:1"

    def predict(
        self, examples: Sequence[Any], *, on_progress: Callable[[int], None] | None = None
    ) -> dict[str, Prediction]:
        out = {}
        for ex in examples:
            text = ex.answers[0].text if ex.answers and "nation" not in ex.question else ""
            out[ex.id] = Prediction(ex.id, text, -1.0 if text else 1.0, text or "Normandy")
        return out


def _document(perturbed: bool, variants: int = 1) -> dict[str, Any]:
    qas = []
    for qid, (question, answer, changed) in QUESTIONS.items():
        answers = [{"text": answer, "answer_start": CONTEXT.index(answer)}] if answer else []
        for k in range(1, variants + 1):
            qa = {"id": qid, "question": question, "answers": answers, "is_impossible": answer is None}
            if perturbed:
                qa.update(
                    id=f"{qid}-v{k}",
                    source_id=qid,
                    question=changed if k == 1 else changed.replace("?", " then?"),
                    original_question=question,
                )
            qas.append(qa)
    document: dict[str, Any] = {
        "version": "v2.0",
        "data": [{"title": "Normans", "paragraphs": [{"context": CONTEXT, "qas": qas}]}],
    }
    if perturbed:
        document["signature"] = f"recipe:qads@1.1|variants:{variants}|seed:13|robustqa:0.1.0"
    return document


def _runs(tmp_path: Path) -> list[Path]:
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(_document(False)), encoding="utf-8")
    folders = []
    for variants in (1, 2):
        perturbed = tmp_path / f"perturbed-{variants}.json"
        perturbed.write_text(json.dumps(_document(True, variants)), encoding="utf-8")
        folder = tmp_path / f"run-with-a-long-folder-name-{variants}"
        config = EvalConfig(clean, perturbed, folder, InferenceSettings(), bootstrap=100, progress=False)
        run_evaluation([MODEL], config, runner_factory=lambda spec, settings: FakeRunner())
        folders.append(folder)
    return folders


def test_the_report_page_fits_a_1280_pixel_window(tmp_path: Path, chromium: tuple[Any, Path]) -> None:
    driver, _ = chromium
    runs = _runs(tmp_path)
    page = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["report", *map(str, runs), "--format", "html", "--output", str(page)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    driver.set_window_size(1280, 900)
    driver.get(page.as_uri())
    viewport = driver.execute_script("return document.documentElement.clientWidth")
    assert 1100 <= viewport <= 1280
    assert driver.execute_script("return document.documentElement.scrollWidth") <= viewport
    chart_right = driver.execute_script(
        "const r = document.querySelector('img').getBoundingClientRect(); return r.right"
    )
    assert chart_right <= viewport
    box = driver.execute_script("const b = document.querySelector('.table-box'); return [b.scrollWidth, b.clientWidth]")
    assert box[1] <= viewport  # the table's own box scrolls, not the page
    screenshot = tmp_path / "report-1280.png"
    assert driver.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 10_000


def _open_report_at_1280(driver: Any, tmp_path: Path) -> None:
    """`robustqa report --format html` of two runs, opened in a 1280-pixel-wide window."""
    page = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["report", *map(str, _runs(tmp_path)), "--format", "html", "--output", str(page)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    driver.set_window_size(1280, 900)
    driver.get(page.as_uri())


def _two_tables_after(driver: Any, heading: str) -> list[list[Any]]:
    """The first two table boxes after the h2 that starts with `heading`: each box's [scroll width, client width,
    its header cells' texts]."""
    return driver.execute_script(
        """
        const heading = [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith(arguments[0]));
        const boxes = [...document.querySelectorAll('.table-box')].filter(
            b => heading.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
        return boxes.slice(0, 2).map(b => [b.scrollWidth, b.clientWidth,
            [...b.querySelectorAll('th')].map(th => th.textContent)]);
        """,
        heading,
    )


def test_the_official_tables_fit_a_1280_pixel_window(tmp_path: Path, chromium: tuple[Any, Path]) -> None:
    """The official all-question table (scores, then what each row compares and its cost) fits the page whole:
    its cells wrap (a figure above its interval, a long model name anywhere) rather than scroll out of sight."""
    driver, _ = chromium
    _open_report_at_1280(driver, tmp_path)
    boxes = _two_tables_after(driver, "Official SQuAD")
    assert len(boxes) == 2 and all(len(headers) >= 7 for _, _, headers in boxes), boxes
    assert all(scroll <= client for scroll, client, _ in boxes), boxes  # nothing hidden to the right
    viewport = driver.execute_script("return document.documentElement.clientWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= viewport
    driver.execute_script(
        "[...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Official')).scrollIntoView()"
    )
    screenshot = tmp_path / "official-1280.png"
    assert driver.save_screenshot(str(screenshot)) and screenshot.stat().st_size > 10_000


def test_the_headline_details_tables_fit_a_1280_pixel_window(tmp_path: Path, chromium: tuple[Any, Path]) -> None:
    """The per-model details of the three answers (14 columns, 1564 px wide in a newcomer's browser, its abstention
    columns out of sight) come in two tables, answerable figures then abstention, each whole in the page."""
    driver, _ = chromium
    _open_report_at_1280(driver, tmp_path)
    boxes = _two_tables_after(driver, "Does the model")
    assert len(boxes) == 2, boxes
    assert "ΔF1 worst of K [95% CI]" in boxes[0][2] and "Abstention Δ unanswerable [95% CI]" in boxes[1][2]
    assert len(boxes[0][2]) + len(boxes[1][2]) == 15  # every column of the details, the model named in each part
    assert all(scroll <= client for scroll, client, _ in boxes), boxes  # nothing hidden to the right
    viewport = driver.execute_script("return document.documentElement.clientWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= viewport
