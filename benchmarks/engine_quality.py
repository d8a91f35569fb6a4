"""Quality and speed of the engine alone on real SQuAD 2.0 questions, against nlpaug in the same run.

On the questions of a SQuAD 2.0 file (default ../shared/squad/squad2-dev-half.json, 6,078 questions),
recipe `qads` (paragraph given as wsd_context), it reports:
  - share of questions changed; substitutions;
  - substitutions whose replacement contains "_";
  - proper nouns / numbers changed (original tagged NNP/NNPS/CD in its question, or containing a digit);
  - wh-words / auxiliaries changed (WDT/WP/WP$/WRB/MD, or a form of be/have/do), and any function word;
  - inflection agreement: one-word replacements that are a form lemminflect gives for the original's
    Penn tag (lemmas of the replacement from lemminflect, then getInflection(lemma, tag));
  - re-tag agreement: re-tagging the new question gives the original tag at the replacement (informative);
  - speed: each tool runs in a fresh process (WordNet and the tagger loaded by that process), --repeats
    times, alternating; medians of questions/s for the whole process (start, imports, loading, all
    questions) and for the question loop alone (after each tool has loaded WordNet and its tagger by
    handling one unrelated sentence), in wall time and in CPU time of the process (less sensitive to
    other work on a shared machine). The engine runs twice per repetition: with its persistent lexicon
    cache (`$ROBUSTQA_CACHE`) cold (an empty folder: every table is derived from WordNet in the loop, as on
    a first run) and warm (a folder filled by one untimed run first: normal use from the second run on).
nlpaug's SynonymAug(aug_src="wordnet") runs on the same questions; its edits are recovered by aligning
tokens (difflib) and scored with the same functions.

    NLTK_DATA=../shared/nltk_data python benchmarks/engine_quality.py [--input FILE] [--repeats 3] [--no-nlpaug]
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _common import REPO, question_rows, recorded

WH_AUX_TAGS = frozenset({"WDT", "WP", "WP$", "WRB", "MD"})
FUNCTION_TAGS = WH_AUX_TAGS | frozenset({"DT", "PDT", "IN", "TO", "CC", "PRP", "PRP$", "EX", "RP", "POS"})
AUX_FORMS = frozenset("be am is are was were been being have has had having do does did done doing".split())
UPOS = {"N": "NOUN", "V": "VERB", "J": "ADJ", "R": "ADV"}


@dataclass(frozen=True)
class Edit:
    """One replaced word: the original token (with its tag in the original question) and its replacement."""

    question: str
    perturbed: str
    original: str
    tag: str
    replacement: str
    new_start: int  # where the replacement word starts in the perturbed question


def engine_edits(results: Iterable[Any]) -> list[Edit]:
    """Edits of the engine, from its records (a re-agreed article is split off the word)."""
    out = []
    for p in results:
        for s in p.substitutions:
            orig, rep, new_start = s.original, s.replacement, s.new_start
            head, _, rest = orig.partition(" ")
            if rest and head.lower() in ("a", "an"):
                orig = orig[orig.rindex(" ") + 1 :]
                cut = rep.index(" ") + 1
                rep, new_start = rep[cut:], new_start + cut
            out.append(Edit(p.original, p.perturbed, orig, s.pos, rep, new_start))
    return out


def aligned_edits(pairs: Iterable[tuple[str, str]]) -> list[Edit]:
    """Edits recovered from (question, augmented) pairs by aligning their tokens: one original token
    replaced by one or more new tokens counts as one substitution."""
    from perturbations.text import tag, tokenize

    out = []
    for q, new in pairs:
        if q == new:
            continue
        a = tag(q)
        b = tokenize(new)
        sm = difflib.SequenceMatcher(a=[t.text for t in a], b=[w for w, _, _ in b], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op == "replace":
                for k in range(i1, i2):  # unequal spans: pair the tokens left to right
                    j = j1 + (k - i1)
                    if j >= j2:
                        break
                    last = j2 if k == i2 - 1 else j + 1
                    out.append(Edit(q, new, a[k].text, a[k].tag, new[b[j][1] : b[last - 1][2]], b[j][1]))
    return out


def inflection_ok(e: Edit) -> bool:
    from lemminflect import getAllLemmas, getAllLemmasOOV, getInflection

    upos = UPOS.get(e.tag[:1])
    rep = e.replacement.lower()
    if upos is None or not rep.replace("-", "").isalpha():
        return False
    lemmas = getAllLemmas(rep, upos).get(upos) or getAllLemmasOOV(rep, upos).get(upos) or ()
    if e.tag in ("NNP", "NNPS"):  # lemminflect has no forms for proper-noun tags
        return rep in lemmas if e.tag == "NNP" else rep not in lemmas
    return any(rep in (f.lower() for f in getInflection(lem, e.tag)) for lem in lemmas if lem)


def retag_ok(e: Edit) -> bool:
    from perturbations.text import tag

    return any(t.start == e.new_start and t.tag == e.tag for t in tag(e.perturbed))


def score(edits: list[Edit], changed: int, total: int) -> dict[str, Any]:
    one_word = [e for e in edits if " " not in e.replacement]
    return {
        "questions": total,
        "changed": changed,
        "changed_share": changed / total,
        "substitutions": len(edits),
        "underscores": sum("_" in e.replacement for e in edits),
        "proper_or_number": sum(e.tag in ("NNP", "NNPS", "CD") or any(c.isdigit() for c in e.original) for e in edits),
        "wh_or_auxiliary": sum(e.tag in WH_AUX_TAGS or e.original.lower() in AUX_FORMS for e in edits),
        "function_words": sum(e.tag in FUNCTION_TAGS or e.original.lower() in AUX_FORMS for e in edits),
        "one_word": len(one_word),
        "inflection_agreement": sum(map(inflection_ok, one_word)) / max(1, len(one_word)),
        "retag_agreement": sum(map(retag_ok, edits)) / max(1, len(edits)),
    }


def run_engine(questions: list[tuple[str, str, str]], recipe_name: str, seed: int) -> tuple[list[Any], float, float]:
    """Results, wall seconds and CPU seconds of the question loop."""
    from perturbations import get_recipe

    recipe = get_recipe(recipe_name)
    t0, c0 = time.perf_counter(), time.process_time()
    results = [recipe.perturb(q, seed=seed, key=qid, wsd_context=ctx) for qid, q, ctx in questions]
    return results, time.perf_counter() - t0, time.process_time() - c0


def run_nlpaug(questions: list[tuple[str, str, str]], seed: int) -> tuple[list[tuple[str, str]], float, float]:
    """(question, augmented) pairs, wall seconds and CPU seconds of the question loop."""
    import nlpaug.augmenter.word as naw

    random.seed(seed)  # nlpaug only offers global random state
    aug = naw.SynonymAug(aug_src="wordnet")
    aug.augment("Where is the house?")  # loads WordNet and the tagger before the loop
    random.seed(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    pairs = []
    for _, q, _ in questions:
        out = aug.augment(q)
        pairs.append((q, out[0] if isinstance(out, list) else out))
    return pairs, time.perf_counter() - t0, time.process_time() - c0


def time_one(tool: str, path: Path, recipe: str, seed: int) -> None:
    """Run one tool on every question in this (fresh) process; print its loop time as JSON."""
    questions = question_rows(path)
    if tool == "engine":
        import perturbations

        perturbations.check_resources()
        # load the tagger and the lexicon cache before the loop, as nlpaug's set-up sentence does
        perturbations.get_recipe(recipe).perturb("Where is the house?", seed=seed, key="warm-up")
        _, loop, cpu = run_engine(questions, recipe, seed)
    else:
        _, loop, cpu = run_nlpaug(questions, seed)
    print(json.dumps({"loop_s": loop, "cpu_s": cpu, "questions": len(questions)}))


def fresh_runs(path: Path, recipe: str, seed: int, repeats: int, tools: list[str]) -> dict[str, dict[str, float]]:
    """Medians over fresh processes, alternating tools so that machine load hits both alike."""
    import subprocess

    walls: dict[str, list[float]] = {t: [] for t in tools}
    loops: dict[str, list[float]] = {t: [] for t in tools}
    cpus: dict[str, list[float]] = {t: [] for t in tools}
    n = 0
    import tempfile

    folder = tempfile.mkdtemp(prefix="engine-quality-")
    warm_cache = os.path.join(folder, "warm")
    for k in range(-1, repeats):
        for tool in tools:
            if k < 0 and tool != "engine warm cache":
                continue
            cache = warm_cache if tool == "engine warm cache" else os.path.join(folder, f"cold-{k}")
            cmd = [
                sys.executable,
                __file__,
                "--time-one",
                tool.split()[0],
                "--input",
                str(path),
                "--recipe",
                recipe,
                "--seed",
                str(seed),
            ]
            t0 = time.perf_counter()
            done = subprocess.run(
                cmd, capture_output=True, text=True, check=True, env=dict(os.environ, ROBUSTQA_CACHE=cache)
            )
            if k < 0:
                continue  # the run that fills the warm cache is not timed
            walls[tool].append(time.perf_counter() - t0)
            out = json.loads(done.stdout.strip().splitlines()[-1])
            loops[tool].append(out["loop_s"])
            cpus[tool].append(out["cpu_s"])
            n = out["questions"]
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    return {
        t: {
            "process_qps": n / statistics.median(walls[t]),
            "loop_qps": n / statistics.median(loops[t]),
            "process_s": statistics.median(walls[t]),
            "cpu_qps": n / statistics.median(cpus[t]),
        }
        for t in tools
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--input", type=Path, default=REPO.parent / "shared" / "squad" / "squad2-dev-half.json")
    ap.add_argument("--recipe", default="qads@1.1")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-nlpaug", action="store_true")
    ap.add_argument("--time-one", choices=("engine", "nlpaug"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.time_one:
        time_one(args.time_one, args.input, args.recipe, args.seed)
        return
    with recorded(__file__):
        report(args)


def report(args: argparse.Namespace) -> None:
    tools = ["engine cold cache", "engine warm cache"] + ([] if args.no_nlpaug else ["nlpaug"])
    speed = fresh_runs(args.input, args.recipe, args.seed, args.repeats, tools)
    questions = question_rows(args.input)
    n = len(questions)
    results, _, _ = run_engine(questions, args.recipe, args.seed)
    ours = score(engine_edits(results), sum(p.changed for p in results), n)
    rows = [
        (f"robustqa {args.recipe}, cold cache", ours, speed["engine cold cache"]),
        (f"robustqa {args.recipe}, warm cache", ours, speed["engine warm cache"]),
    ]
    if not args.no_nlpaug:
        pairs, _, _ = run_nlpaug(questions, args.seed)
        theirs = score(aligned_edits(pairs), sum(q != new for q, new in pairs), n)
        rows.append(("nlpaug SynonymAug(wordnet)", theirs, speed["nlpaug"]))

    print(f"{n} questions from {args.input.name}; speed: medians of {args.repeats} fresh processes per tool")
    header = f"{'':34s}" + "".join(f"{name:>30s}" for name, _, _ in rows)
    print(header)
    fmt = {
        "changed_share": lambda v: f"{100 * v:.1f}%",
        "inflection_agreement": lambda v: f"{100 * v:.1f}%",
        "retag_agreement": lambda v: f"{100 * v:.1f}%",
    }
    for key in ours:
        print(f"{key:34s}" + "".join(f"{fmt.get(key, lambda v: f'{v:,}')(r[key]):>30s}" for _, r, _ in rows))
    print(f"{'questions/s, question loop':34s}" + "".join(f"{sp['loop_qps']:>30,.0f}" for _, _, sp in rows))
    print(f"{'questions/s, loop CPU time':34s}" + "".join(f"{sp['cpu_qps']:>30,.0f}" for _, _, sp in rows))
    print(f"{'questions/s, whole process':34s}" + "".join(f"{sp['process_qps']:>30,.0f}" for _, _, sp in rows))
    print(f"{'seconds, whole process':34s}" + "".join(f"{sp['process_s']:>30.1f}" for _, _, sp in rows))
    if len(rows) == 3:
        b = rows[2][2]
        for name, _, a in rows[:2]:
            print(
                f"engine ({name.split(', ')[1]}) / nlpaug: {a['loop_qps'] / b['loop_qps']:.2f}x (question loop), "
                f"{a['cpu_qps'] / b['cpu_qps']:.2f}x (loop CPU time), "
                f"{a['process_qps'] / b['process_qps']:.2f}x (whole process)"
            )
    print(
        f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
        f"on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
