"""A small synthetic run folder written exactly per docs/FORMATS.md, for fast analysis and report tests.

Every number is known by hand, so tests of the analysis can assert exact values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _sub(text: str, word: str, replacement: str, pos: str, confidence: float, shift: int = 0) -> dict[str, Any]:
    start = text.index(word)
    return {
        "start": start,
        "end": start + len(word),
        "new_start": start + shift,
        "new_end": start + shift + len(replacement),
        "original": word,
        "replacement": replacement,
        "pos": pos,
        "synset": f"{replacement}.n.01",
        "confidence": confidence,
    }


# (id, clean question, perturbed question, substitutions, answerable, gold answers)
_QUESTIONS: list[tuple[str, str, str, list[dict[str, Any]], bool, list[str]]] = []


def _question(
    qid: str, question: str, pairs: list[tuple[str, str, str, float]], answerable: bool, gold: list[str]
) -> None:
    """Apply (word, replacement, tag, confidence) pairs in text order, recording offsets in both texts."""
    perturbed, subs, shift = question, [], 0
    for word, replacement, pos, confidence in pairs:
        sub = _sub(question, word, replacement, pos, confidence, shift)
        perturbed = perturbed[: sub["new_start"]] + replacement + perturbed[sub["new_start"] + len(word) :]
        shift += len(replacement) - len(word)
        subs.append(sub)
    _QUESTIONS.append((qid, question, perturbed, subs, answerable, gold))


_question("q1", "In what country is Normandy located?", [("country", "state", "NN", 0.9)], True, ["France"])
_question("q2", "When were the Normans in Normandy?", [], True, ["10th and 11th centuries"])
_question(
    "q3",
    "Who ruled the duchy of Normandy?",
    [("ruled", "governed", "VBD", 0.4), ("duchy", "dukedom", "NN", 0.6)],
    True,
    ["Richard I"],
)
_question(
    "q4",
    "Why did the <b>steam</b> engine fail quickly?",
    [("fail", "neglect", "VB", 0.1), ("quickly", "rapidly", "RB", 0.8)],
    True,
    ["pressure"],
)
_question("q5", "What large area was settled?", [("large", "big", "JJ", 0.3)], False, [])
_question(
    "q6",
    "Which engines were used?",
    [("engines", "locomotives", "NNS", 0.7), ("used", "employed", "VBN", 0.55)],
    True,
    ["steam engines"],
)

# model -> id -> (clean prediction, clean exact, clean f1, perturbed prediction, perturbed exact, perturbed f1)
_PREDICTIONS = {
    "tiny-a": {
        "q1": ("France", 1, 1.0, "Normandy", 0, 0.0),
        "q2": ("10th and 11th centuries", 1, 1.0, "10th and 11th centuries", 1, 1.0),
        "q3": ("Richard I", 1, 1.0, "Richard", 0, 0.67),
        "q4": ("pressure", 1, 1.0, "", 0, 0.0),
        "q5": ("", 1, 1.0, "", 1, 1.0),
        "q6": ("engines", 0, 0.5, "steam engines", 1, 1.0),
    },
    "tiny-b": {
        "q1": ("France", 1, 1.0, "Normandy", 0, 0.0),
        "q2": ("Normans", 0, 0.0, "Normans", 0, 0.0),
        "q3": ("Richard I", 1, 1.0, "Richard I", 1, 1.0),
        "q4": ("pressure", 1, 1.0, "", 0, 0.0),
        "q5": ("", 1, 1.0, "area", 0, 0.0),
        "q6": ("steam engines", 1, 1.0, "steam engines", 1, 1.0),
    },
}


def _metrics(values: list[tuple[int, float, bool]]) -> dict[str, Any]:
    def mean(xs: list[float]) -> float:
        return round(100.0 * sum(xs) / len(xs), 4) if xs else 0.0

    has = [v for v in values if v[2]]
    no = [v for v in values if not v[2]]
    return {
        "exact": mean([v[0] for v in values]),
        "f1": mean([v[1] for v in values]),
        "total": len(values),
        "HasAns_exact": mean([v[0] for v in has]),
        "HasAns_f1": mean([v[1] for v in has]),
        "HasAns_total": len(has),
        "NoAns_exact": mean([v[0] for v in no]),
        "NoAns_f1": mean([v[1] for v in no]),
        "NoAns_total": len(no),
        "best_exact": mean([v[0] for v in values]),
        "best_exact_thresh": 0.0,
        "best_f1": mean([v[1] for v in values]),
        "best_f1_thresh": 0.0,
    }


def write_run(folder: Path, models: list[str] | None = None) -> Path:
    """Write report.json, examples.jsonl and prediction files for the given synthetic models."""
    folder.mkdir(parents=True, exist_ok=True)
    models = models or list(_PREDICTIONS)
    entries, lines = [], []
    for model in models:
        preds = _PREDICTIONS[model]
        clean, pert = [], []
        slug_dir = folder / model
        slug_dir.mkdir(exist_ok=True)
        files: dict[str, dict[str, Any]] = {
            "clean_predictions": {},
            "perturbed_predictions": {},
            "clean_null_odds": {},
            "perturbed_null_odds": {},
        }
        flips = {"right_to_wrong": 0, "wrong_to_right": 0, "changed_right_to_wrong": 0, "changed_wrong_to_right": 0}
        for qid, question, perturbed, subs, answerable, gold in _QUESTIONS:
            cp, ce, cf, pp, pe, pf = preds[qid]
            changed = perturbed != question
            clean.append((ce, cf, answerable))
            pert.append((pe, pf, answerable))
            if ce == 1 and pe == 0:
                flips["right_to_wrong"] += 1
                flips["changed_right_to_wrong"] += int(changed)
            if ce == 0 and pe == 1:
                flips["wrong_to_right"] += 1
                flips["changed_wrong_to_right"] += int(changed)
            files["clean_predictions"][qid] = cp
            files["perturbed_predictions"][qid] = pp
            files["clean_null_odds"][qid] = -1.0 if cp else 1.0
            files["perturbed_null_odds"][qid] = -1.0 if pp else 1.0
            lines.append(
                {
                    "model": model,
                    "id": qid,
                    "source_id": qid,
                    "title": "Synthetic",
                    "question": question,
                    "perturbed_question": perturbed,
                    "changed": changed,
                    "context_changed": False,
                    "answerable": answerable,
                    "gold_answers": gold,
                    "clean_prediction": cp,
                    "perturbed_prediction": pp,
                    "clean_exact": ce,
                    "clean_f1": cf,
                    "perturbed_exact": pe,
                    "perturbed_f1": pf,
                    "clean_null_odds": -1.0,
                    "perturbed_null_odds": 1.0,
                    "substitutions": subs,
                }
            )
        for name, content in files.items():
            (slug_dir / f"{name}.json").write_text(json.dumps(content), encoding="utf-8")
        c, p = _metrics(clean), _metrics(pert)
        drop_keys = ("exact", "f1", "HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1")
        drop: dict[str, Any] = {k: round(p[k] - c[k], 4) for k in drop_keys}
        drop["exact_ci"] = [drop["exact"] - 10.0, min(drop["exact"] + 10.0, 100.0)]
        drop["f1_ci"] = [drop["f1"] - 9.0, drop["f1"] + 9.0]
        drop["changed"] = {
            "questions": 5,
            "exact": drop["exact"],
            "f1": drop["f1"],
            "exact_ci": drop["exact_ci"],
            "f1_ci": drop["f1_ci"],
        }
        entries.append(
            {
                "model": model,
                "model_id": f"synthetic/{model}",
                "slug": model,
                "clean": c,
                "perturbed": p,
                "drop": drop,
                "flips": flips,
                "coverage": {
                    "clean_questions": 6,
                    "perturbed_questions": 6,
                    "matched": 6,
                    "changed": 5,
                    "changed_share": 0.8333,
                    "reused_predictions": 1,
                },
                "files": {name: f"{model}/{name}.json" for name in files},
            }
        )
    report = {
        "signature": (
            "clean:000000000000|perturbed:111111111111|recipe:qads@1.0|max_seq_length:384|doc_stride:128|n_best:20|"
            "max_answer_length:30|null_threshold:0|bootstrap:1000|seed:13|robustqa:0.1.0"
        ),
        "clean_file": "clean.json",
        "perturbed_file": "perturbed.json",
        "perturbed_signature": "recipe:qads@1.0|seed:13|robustqa:0.1.0",
        "settings": {"max_seq_length": 384, "doc_stride": 128},
        "models": entries,
    }
    (folder / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    (folder / "examples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder
