"""`robustqa attack` against the static recipe on the same questions, and eval's confirmation of its flips.

With the shared MiniLM QA model on the first N held-out SQuAD 2.0 questions (default 200), each step the
command a user would run, in a fresh process:

1. static: `robustqa build-dataset` with the recipe, then `robustqa eval --limit N`: the questions the
   model gets right on clean and wrong on the recipe's one variant (right-to-wrong flips);
2. attack: `robustqa attack --limit N` with the same recipe and the default budget: the questions it flips,
   with the success-versus-budget curve (drawn with the static flips to docs/figures/);
3. confirmation: `robustqa eval --clean FILE --perturbed adversarial.json --limit N`: eval's right-to-wrong
   flips must be exactly the questions attack.json claims (and no wrong-to-right flip);
4. the ceiling: how many of the questions right on clean have any word the recipe may change at all (no
   search can flip a question the recipe cannot edit), and how the attack's flips split between the static
   variant's and others;
5. all held-out questions: the attack (the query cache of step 2 reused) and the static flips on them;
6. the blind-review pool: 50 flipped questions in studies/validity/attack-pool.jsonl (id, original and
   attacked question, the answer and the context sentence holding it; nothing about the model), the sheet
   for judging them as ../shared/validity/README.md describes: every flip of the default attack on all
   6,078 shared questions (the held-out ones, then the other 12 articles of squad2-dev-half.json, which the
   model was trained on: validity is a property of the edits, which the model only chose among), and when
   those are fewer than 50, the rest drawn at random (seed 13) from the further flips of the same attack
   allowed up to 3 words, then of the attack with the edits the recipe's soft rules penalise; each item's
   `search` says which (keep that column from the judges).

Steps 1-4 run for the default recipe and, for comparison, for the recipes given by `--compare` (default
qads@1.1, whose larger space has more to search, and qads-lm@2.2, whose space the blind reviews found
valid), each with three wider attacks beside it (edits the recipe's soft rules penalise included, up to
3 words, both); steps 5-6 for the default recipe only.

    python benchmarks/attack_strength.py [--limit 200] [--recipe NAME] [--compare RECIPE ...] [--pool 50]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

from _common import REPO, SHARED, recorded, right_to_wrong, run_robustqa

MODEL = SHARED / "models" / "minilm-squad2-mini"
DATA = SHARED / "squad" / "squad2-dev-heldout.json"
HALF = SHARED / "squad" / "squad2-dev-half.json"
POOL = REPO / "studies" / "validity" / "attack-pool.jsonl"
FIGURE = REPO / "docs" / "figures" / "attack_success_vs_budget.png"
CURVE_POINTS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200)
# the wider attacks beside each recipe's default one (extra arguments, what they allow)
WIDER = (
    (("--include-penalised",), "edits a soft rule penalises included"),
    (("--max-edits=3",), "up to 3 words"),
    (("--include-penalised", "--max-edits=3"), "both"),
)


def times(attack: int, static: int) -> str:
    """The attack's flips as a multiple of the static flips; no multiple when the static recipe flips none."""
    if static:
        return f"{attack / static:.2f}x"
    return "no ratio (the static recipe flips none)" if attack == 0 else f"{attack} against none"


def sentence_with(context: str, start: int, end: int) -> str:
    """The sentence(s) of `context` that hold characters [start, end)."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^.!?]+(?:[.!?]+[\"')\]]*|$)", context)]
    chosen = [(s, e) for s, e in spans if s < end and start < e] or spans[:1]
    return context[chosen[0][0] : chosen[-1][1]].strip()


def flipped_items(attack_dir: Path, data: Path) -> list[dict]:
    """The flipped questions of an attack folder, as a blind reviewer needs them: nothing about the model."""
    from robustqa.squad import load_squad

    record = json.loads((attack_dir / "attack.json").read_text())
    questions = {q.id: (q, p.context) for a in load_squad(data).articles for p in a.paragraphs for q in p.qas}
    items = []
    for q in record["questions_detail"]:
        if q["status"] != "succeeded":
            continue
        question, context = questions[q["id"]]
        answers = question.answers or question.plausible_answers or ()
        first = answers[0] if answers else None
        sentence = sentence_with(context, first.answer_start, first.answer_start + len(first.text)) if first else ""
        items.append(
            {
                "id": q["id"],
                "original": q["question"],
                "perturbed": q["variant"],
                "answerable": bool(question.answers),
                "answer": question.answers[0].text if question.answers else "",
                "plausible_answer": "" if question.answers or first is None else first.text,
                "sentence": sentence,
            }
        )
    return items


def trained_on_file(work: Path) -> Path:
    """The articles of squad2-dev-half.json that are not held out (the model's training questions)."""
    document = json.loads(HALF.read_text())
    held = {a["title"] for a in json.loads(DATA.read_text())["data"]}
    document["data"] = [a for a in document["data"] if a["title"] not in held]
    path = work / "trained-on.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def compare(recipe: str, n: str, work: Path) -> dict:
    """Steps 1-4 for one recipe on the first `n` questions, with the attacks of `WIDER` beside its default
    one (penalised edits included, up to 3 words, both); prints them and returns what the figure needs."""
    static_file = work / "static.json"
    run_robustqa("build-dataset", "--input", str(DATA), "--output", str(static_file), "--recipe", recipe)
    run_robustqa(
        "eval",
        str(MODEL),
        "--clean",
        str(DATA),
        "--perturbed",
        str(static_file),
        "--limit",
        n,
        "--output-dir",
        str(work / "static"),
        "--quiet",
    )
    static_flips, static_back = right_to_wrong(work / "static")
    attack_dir = work / "attack"
    run_robustqa(
        "attack",
        str(MODEL),
        "--input",
        str(DATA),
        "--output-dir",
        str(attack_dir),
        "--limit",
        n,
        "--recipe",
        recipe,
        "--quiet",
    )
    record = json.loads((attack_dir / "attack.json").read_text())
    claimed = {q["id"] for q in record["questions_detail"] if q["status"] == "succeeded"}
    run_robustqa(
        "eval",
        str(MODEL),
        "--clean",
        str(DATA),
        "--perturbed",
        str(attack_dir / "adversarial.json"),
        "--limit",
        n,
        "--output-dir",
        str(work / "confirm"),
        "--quiet",
    )
    confirmed, confirmed_back = right_to_wrong(work / "confirm")

    attempted, no_edit = record["attempted"], record["no_valid_edit"]
    low, high = record["success_rate_ci"]
    print()
    print(f"recipe {recipe}, first {n} held-out questions:")
    print(f"  static variant (eval, right -> wrong):      {len(static_flips)} questions ({static_back} wrong -> right)")
    print(
        f"  attack, budget {record['settings']['budget']} (attack.json, succeeded): {len(claimed)} questions "
        f"of {attempted} right on clean: {record['success_rate']:.1f}% [95% Wilson CI {low:.1f}, {high:.1f}]"
    )
    print(f"  attack / static: {times(len(claimed), len(static_flips))} (target >= 3x)")
    same = confirmed == claimed and confirmed_back == 0
    print(
        f"  eval on adversarial.json, right -> wrong:   {len(confirmed)} questions ({confirmed_back} wrong -> right); "
        f"the same questions attack.json claims: {'yes' if same else 'NO'}"
    )
    if not same:
        print(f"    claimed only: {sorted(claimed - confirmed)}; confirmed only: {sorted(confirmed - claimed)}")
    print(
        f"  per success: {record['edits_per_success']} edits (histogram {record['edits_histogram']}), "
        f"{record['queries_per_success']} queries "
        f"to the flip (median {record['queries_per_success_median']}), {record['queries_spent_per_success']} spent"
    )
    print(
        f"  not attacked: {len(record['not_attacked']['wrong-on-clean'])} wrong on clean, "
        f"{len(record['not_attacked']['right-by-a-hair'])} right by "
        f"less than the flip margin"
    )
    print(
        f"  ceiling: of the {attempted} questions right on clean, {no_edit} have no word {recipe} may change "
        "(unpenalised), so at most "
        f"{attempted - no_edit} can flip under any search "
        f"(ceiling / static: {times(attempted - no_edit, len(static_flips))}); "
        f"searches without a flip ended: {record['stops']}"
    )
    print(
        f"  of the attack's flips, {len(claimed & static_flips)} are also static flips, "
        f"{len(claimed - static_flips)} are new; "
        f"static flips the attack does not claim: {len(static_flips - claimed)}"
    )
    curve = {p["budget"]: p["succeeded"] for p in record["curve"]}
    points = [b for b in CURVE_POINTS if b in curve]
    print("  success within a budget of b queries (b: flipped): " + ", ".join(f"{b}: {curve[b]}" for b in points))
    wider_flips: dict[str, int] = {}
    for extra, label in WIDER:
        other = work / f"attack{''.join(extra)}"
        shutil.copytree(attack_dir / "cache", other / "cache")  # answers already paid for are reused
        run_robustqa(
            "attack",
            str(MODEL),
            "--input",
            str(DATA),
            "--output-dir",
            str(other),
            "--limit",
            n,
            "--recipe",
            recipe,
            *extra,
            "--quiet",
        )
        wide = json.loads((other / "attack.json").read_text())
        flips = {q["id"] for q in wide["questions_detail"] if q["status"] == "succeeded"}
        ratio = times(len(flips), len(static_flips))
        wider_flips[" ".join(extra)] = len(flips)
        print(
            f"  attack with {' '.join(extra)} ({label}): {len(flips)} flipped of {wide['attempted']} "
            f"({wide['no_valid_edit']} with no valid edit); "
            f"attack / static: {ratio}; {len(static_flips - flips)} static flips not among them"
        )
    return {
        "recipe": recipe,
        "record": record,
        "static": len(static_flips),
        "static_file": static_file,
        "attack_dir": attack_dir,
        "wider": wider_flips,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--recipe", default=None, help="recipe (default: robustqa's default recipe)")
    parser.add_argument("--compare", nargs="*", default=["qads@1.1", "qads-lm@2.2"], help="other recipes for steps 1-4")
    parser.add_argument("--pool", type=int, default=50, help="flipped questions for the blind review")
    args = parser.parse_args()

    import perturbations
    from robustqa.build import DEFAULT_RECIPE
    from robustqa.reporting.charts import budget_figure, png_bytes

    recipe = perturbations.get_recipe(args.recipe or DEFAULT_RECIPE).ident
    work = Path(tempfile.mkdtemp(prefix="robustqa-attack-strength-"))
    try:
        n = str(args.limit)
        print(
            f"{MODEL.name}, first {args.limit} held-out questions ({DATA.name}); "
            f"recipes {', '.join([recipe, *args.compare])}",
            flush=True,
        )
        results = []
        for index, name in enumerate([recipe, *args.compare]):
            (work / str(index)).mkdir()
            results.append(compare(name, n, work / str(index)))
        default = results[0]
        print()
        print(
            f"each attack against the static flips of {default['recipe']} (the default recipe) "
            f"on the same questions ({default['static']}):"
        )
        for r in results:
            searches = {"default": r["record"]["succeeded"], **r["wider"]}
            print(
                f"  {r['recipe']}: "
                + "; ".join(f"{name} {flips} ({times(flips, default['static'])})" for name, flips in searches.items())
            )
        curves = [
            {"label": f"attack, {r['recipe']}", "attempted": r["record"]["attempted"], "curve": r["record"]["curve"]}
            for r in results
        ]
        references = [
            {
                "label": f"static {r['recipe']} variant ({r['static']}/{r['record']['attempted']})",
                "rate": 100.0 * r["static"] / max(1, r["record"]["attempted"]),
                "curve": i,
            }
            for i, r in enumerate(results)
        ]
        FIGURE.parent.mkdir(parents=True, exist_ok=True)
        FIGURE.write_bytes(png_bytes(budget_figure(curves, references=references)))
        print(f"curve (each attack, and its recipe's static flips as a dashed line): {FIGURE.relative_to(REPO)}")

        main_run = results[0]
        full_dir = work / "attack-all"
        shutil.copytree(main_run["attack_dir"] / "cache", full_dir / "cache")  # the queries of the first run, reused
        run_robustqa(
            "attack", str(MODEL), "--input", str(DATA), "--output-dir", str(full_dir), "--recipe", recipe, "--quiet"
        )
        full = json.loads((full_dir / "attack.json").read_text())
        run_robustqa(
            "eval",
            str(MODEL),
            "--clean",
            str(DATA),
            "--perturbed",
            str(main_run["static_file"]),
            "--output-dir",
            str(work / "static-all"),
            "--quiet",
        )
        static_all, _ = right_to_wrong(work / "static-all")
        low, high = full["success_rate_ci"]
        ratio = times(full["succeeded"], len(static_all))
        print()
        print(
            f"all {full['questions']} held-out questions, {recipe}: "
            f"attack {full['succeeded']} flipped of {full['attempted']} right on clean "
            f"({full['success_rate']:.1f}% [{low:.1f}, {high:.1f}]; {full['no_valid_edit']} with no valid edit); "
            f"static {len(static_all)}; "
            f"attack / static {ratio}"
        )

        # the pool: the default attack's flips on every shared question, then wider searches of the same recipe
        other_file = trained_on_file(work)
        sources = [(DATA, full_dir), (other_file, work / "attack-trained-on")]
        run_robustqa(
            "attack",
            str(MODEL),
            "--input",
            str(other_file),
            "--output-dir",
            str(sources[1][1]),
            "--recipe",
            recipe,
            "--quiet",
        )
        items = [dict(item, search="default") for data, folder in sources for item in flipped_items(folder, data)]
        parts = [f"{len(items)} of the default attack ({len(flipped_items(full_dir, DATA))} held-out)"]
        wider_searches = (("--max-edits=3", "up to 3 words"), ("--include-penalised", "penalised edits included"))
        for extra, label in wider_searches:
            found: list[dict] = []
            for data, folder in sources:
                other = folder.parent / f"{folder.name}{extra}"
                shutil.copytree(folder / "cache", other / "cache")  # every clean answer is paid for already
                run_robustqa(
                    "attack",
                    str(MODEL),
                    "--input",
                    str(data),
                    "--output-dir",
                    str(other),
                    "--recipe",
                    recipe,
                    extra,
                    "--quiet",
                )
                taken = {item["id"] for item in items + found}
                found += [dict(item, search=label) for item in flipped_items(other, data) if item["id"] not in taken]
            drawn = random.Random(13).sample(found, min(len(found), max(0, args.pool - len(items))))
            parts.append(f"{len(drawn)} drawn at random from the {len(found)} further flips with {label}")
            items += drawn
        note = "; ".join(parts)
        held_wide = json.loads((full_dir.parent / "attack-all--include-penalised" / "attack.json").read_text())
        print(
            f"all held-out questions, {recipe} with penalised edits included: attack {held_wide['succeeded']} flipped "
            f"({held_wide['no_valid_edit']} with no valid edit); static {len(static_all)}"
        )
        random.Random(13).shuffle(items)
        POOL.parent.mkdir(parents=True, exist_ok=True)
        POOL.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), encoding="utf-8")
        print(
            f"blind-review pool ({recipe}): {len(items)} flipped questions ({note}), "
            f"shuffled -> {POOL.relative_to(REPO)}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    with recorded(__file__):
        main()
