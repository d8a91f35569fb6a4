"""Reading an attack folder for people: the attacked questions with their edits, and success by part of
speech. The notebook calls these (and `robustqa.reporting.charts.budget_figure`); nothing here runs a model.

An attack folder is found from an eval run on its adversarial set (attack.json lies beside the run's
perturbed file), or named by the environment variable ROBUSTQA_ATTACK.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robustqa.edits import COARSE_POS, coarse_pos, highlight_html, highlight_text
from robustqa.errors import InputError
from robustqa.render import html_table
from robustqa.stats import wilson_interval

ATTACK_ENV = "ROBUSTQA_ATTACK"
_ATTACK_JSON = "attack.json"


def load_attack(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """attack.json of an attack folder (`robustqa attack --output-dir`), with `folder` added."""
    path = Path(folder) / _ATTACK_JSON
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            f"no {_ATTACK_JSON} here (not a finished attack folder)",
            path=str(folder),
            hint="give a folder written by `robustqa attack`",
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"cannot read {_ATTACK_JSON} ({error})", path=str(path)) from None
    if not isinstance(record, dict) or not isinstance(record.get("questions_detail"), list):
        raise InputError(
            f"{_ATTACK_JSON} has no 'questions_detail' list",
            path=str(path),
            hint="attack again with this version of robustqa",
        )
    return {**record, "folder": str(Path(folder))}


def find_attack(run: Any = None) -> dict[str, Any] | None:
    """The attack behind `run` (an eval run on an adversarial set), else the folder ROBUSTQA_ATTACK names, else
    an `attack/` folder inside the run (where `robustqa demo` writes its attack), else None."""
    named = os.environ.get(ATTACK_ENV)
    if named:
        return load_attack(named)
    perturbed = run.report.get("perturbed_file") if run is not None else None
    if perturbed and (Path(perturbed).parent / _ATTACK_JSON).is_file():
        return load_attack(Path(perturbed).parent)
    inside = Path(run.path) / "attack" if run is not None and getattr(run, "path", None) is not None else None
    if inside is not None and (inside / _ATTACK_JSON).is_file():
        return load_attack(inside)
    return None


def summary_line(attack: Mapping[str, Any]) -> str:
    low, high = attack["success_rate_ci"]
    rate = "–" if attack["success_rate"] is None else f"{attack['success_rate']:.1f}% [95% CI {low:.1f}, {high:.1f}]"
    return (
        f"{attack['model']} attacked with {attack['recipe']['name']}@{attack['recipe']['version']} "
        f"(budget {attack['settings']['budget']}): "
        f"{attack['succeeded']} of {attack['attempted']} questions right on clean flipped, {rate}; "
        f"{len(attack['not_attacked']['wrong-on-clean'])} wrong on clean not attacked"
    )


def _shown(text: str | None) -> str:
    return text if text else "(no answer)"


def attacked_rows(
    attack: Mapping[str, Any], *, html_marks: bool = False, limit: int | None = None
) -> list[dict[str, Any]]:
    """The flipped questions, in file order: both questions with the edits marked, gold, both answers, cost."""
    mark = highlight_html if html_marks else highlight_text
    rows = []
    for q in attack["questions_detail"]:
        if q["status"] != "succeeded":
            continue
        subs = q.get("substitutions") or []
        rows.append(
            {
                "id": q["id"],
                "question": mark(q["question"], subs, side="original"),
                "attacked question": mark(q["variant"], subs, side="perturbed"),
                "gold": " | ".join(q.get("gold_answers") or []) or "(unanswerable)",
                "clean prediction": _shown(q["clean_prediction"]),
                "attacked prediction": _shown(q["prediction"]),
                "edits": q["edits"],
                "queries": q["queries_to_flip"],
            }
        )
    return rows[:limit] if limit is not None else rows


def attacked_html(attack: Mapping[str, Any], limit: int | None = None) -> str:
    rows = attacked_rows(attack, html_marks=True, limit=limit)
    return html_table(
        rows, escape_columns={"id", "gold", "clean prediction", "attacked prediction", "edits", "queries"}
    )


def success_by_pos(attack: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per coarse part of speech: the attempted questions with a word of it the recipe may change, how many
    of them flipped (with a 95% Wilson interval), and how many edits of it the flips used. A question with a
    noun and a verb counts in both rows."""
    attempted = [q for q in attack["questions_detail"] if q["status"] in ("succeeded", "failed")]
    rows = []
    groups: Sequence[str] = [*COARSE_POS, "none"]
    for group in groups:
        if group == "none":
            members = [q for q in attempted if not q.get("word_pos")]
        else:
            members = [q for q in attempted if group in {coarse_pos(t) for t in q.get("word_pos") or ()}]
        if not members:
            continue
        won = sum(1 for q in members if q["status"] == "succeeded")
        edits = sum(
            1
            for q in attempted
            if q["status"] == "succeeded"
            for s in q.get("substitutions") or []
            if coarse_pos(s["pos"]) == group
        )
        low, high = wilson_interval(won, len(members))
        rows.append(
            {
                "group": group if group != "none" else "no word to change",
                "questions": len(members),
                "succeeded": won,
                "rate": round(100.0 * won / len(members), 1),
                "rate_ci": (round(100.0 * low, 1), round(100.0 * high, 1)),
                "edits_in_flips": edits,
            }
        )
    return rows


def curve_of(attack: Mapping[str, Any]) -> dict[str, Any]:
    """The attack's curve as `robustqa.reporting.charts.budget_figure` draws it."""
    from robustqa.reporting.charts import short_model

    label = f"{short_model(str(attack['model']))}, {attack['recipe']['name']}@{attack['recipe']['version']}"
    return {"label": label, "attempted": attack["attempted"], "curve": attack["curve"]}
