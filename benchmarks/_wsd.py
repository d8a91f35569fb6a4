"""What the WSD benchmarks share (wsd_eval.py, threshold_sweep.py): the SemEval-2007 set in the unified
format, the recipes' substitutions on its sentences, and their sense precision."""

from __future__ import annotations

import json
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import robustqa_command

UPOS_TO_WN = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


@dataclass(frozen=True)
class Instance:
    id: str
    lemma: str
    pos: str  # WordNet POS
    start: int  # character span in the sentence text (tokens joined by spaces)
    end: int
    gold: frozenset[str]  # gold synset names


@dataclass(frozen=True)
class Sentence:
    id: str
    text: str
    words: tuple[str, ...]
    instances: tuple[Instance, ...]


def load(wsd_dir: Path) -> list[Sentence]:
    """Sentences with their annotated instances and gold synsets."""
    from perturbations.lexicon import wordnet

    wn = wordnet()
    gold: dict[str, frozenset[str]] = {}
    for line in (wsd_dir / "semeval2007.gold.key.txt").read_text().splitlines():
        parts = line.split()
        if parts:
            gold[parts[0]] = frozenset(wn.lemma_from_key(k).synset().name() for k in parts[1:])
    out = []
    root = ET.parse(wsd_dir / "semeval2007.data.xml").getroot()
    for sent in root.iter("sentence"):
        words: list[str] = []
        insts: list[Instance] = []
        pos = 0
        for el in sent:
            word = el.text or ""
            start = pos + (1 if words else 0)
            if el.tag == "instance" and el.get("pos") in UPOS_TO_WN:
                insts.append(
                    Instance(
                        el.get("id", ""),
                        el.get("lemma", ""),
                        UPOS_TO_WN[el.get("pos", "")],
                        start,
                        start + len(word),
                        gold[el.get("id", "")],
                    )
                )
            words.append(word)
            pos = start + len(word)
        out.append(Sentence(sent.get("id", ""), " ".join(words), tuple(words), tuple(insts)))
    return out


def perturb_records(
    sentences: list[Sentence], recipe: str, via: str, seed: int, overrides: dict[str, Any]
) -> list[dict[str, Any]]:
    """One `robustqa perturb --json` record per sentence, from the CLI or the engine."""
    if via == "cli":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "sentences.txt"
            path.write_text("".join(s.text + "\n" for s in sentences), encoding="utf-8")
            cmd = [
                *robustqa_command(),
                "perturb",
                "--json",
                "--input",
                str(path),
                "--recipe",
                recipe,
                "--seed",
                str(seed),
            ]
            for key, value in overrides.items():
                if key != "rate":
                    raise SystemExit(f"`robustqa perturb` has no --{key}: use --via engine for that override")
                cmd += [f"--{key}", str(value)]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"robustqa perturb failed ({done.returncode}): {done.stderr.strip()}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    from perturbations import get_recipe

    r = get_recipe(recipe, **overrides)
    # keyed by the line itself, as `robustqa perturb` does, so both paths give the same records
    return [r.perturb(s.text, seed=seed, key=s.text).to_dict() for s in sentences]


def _word_of(phrase: str) -> str:
    head, _, rest = phrase.partition(" ")
    return rest if rest and head.lower() in ("a", "an") else phrase


def sense_precision(sentences: list[Sentence], records: list[dict[str, Any]]) -> dict[str, float]:
    """Share of substitutions on annotated instances whose replacement is a lemma of the gold synset."""
    from perturbations.inflect import inflect
    from perturbations.lexicon import synset

    on_instances = correct = synset_right = all_subs = 0
    wrong: list[str] = []
    for s, rec in zip(sentences, records):
        assert rec["text"] == s.text, "records out of order"
        for sub in rec["substitutions"]:
            all_subs += 1
            inst = next((i for i in s.instances if sub["start"] < i.end and i.start < sub["end"]), None)
            if inst is None:
                continue
            on_instances += 1
            rep = _word_of(sub["replacement"]).lower()
            names = {n for g in inst.gold for n in synset(g).lemma_names()}
            ok = any(inflect(n, sub["pos"]) == rep or n.replace("_", " ").lower() == rep for n in names)
            correct += int(ok)
            synset_right += int(sub["synset"] in inst.gold)
            if not ok:
                wrong.append(f"{sub['original']} -> {sub['replacement']} ({sub['synset']}; gold {sorted(inst.gold)})")
    n = len(sentences)
    return {
        "sentences": n,
        "substitutions": all_subs,
        "substitutions_on_instances": on_instances,
        "sense_precision": correct / on_instances if on_instances else 0.0,
        "synset_precision": synset_right / on_instances if on_instances else 0.0,
        "subs_per_sentence_on_instances": on_instances / n,
        "wrong_examples": wrong[:15],
    }
