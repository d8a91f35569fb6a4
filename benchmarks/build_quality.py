"""Quality of `robustqa build-dataset --recipe qads` against nlpaug's WordNet SynonymAug, same questions, same run.

Figures (issue 2's acceptance): share of questions changed; answer-span violations; substitutions with
underscores; proper nouns or numbers changed; wh-words or auxiliaries changed; function words changed;
share of one-word replacements that are a form lemminflect gives for the original word's Penn tag (the
original tagged in its original question); share whose re-tagged replacement keeps the original tag.

Both tools are scored by the same code: each question is tokenized with one regex and tagged with NLTK's
averaged perceptron, in its original and its new form. robustqa's edits come from its recorded
substitutions (exact offsets); nlpaug records none, so its edits are recovered by aligning the word
sequences (difflib): a one-word span replaced by one or more words is one substitution.

    NLTK_DATA=../shared/nltk_data python benchmarks/build_quality.py [--input FILE] [--seed 13]
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from _common import REPO, recorded, robustqa_command

WORD = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]")
WH = {
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "whether",
    "whatever",
    "whichever",
    "whoever",
}
AUX = {
    "be",
    "am",
    "is",
    "are",
    "was",
    "were",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "can",
    "could",
    "may",
    "might",
    "must",
    "shall",
    "should",
    "will",
    "would",
    "ought",
    "'s",
    "'re",
    "'ve",
    "'d",
    "'ll",
}
CLOSED_TAGS = {"DT", "PDT", "IN", "CC", "TO", "PRP", "PRP$", "WDT", "WP", "WP$", "WRB", "MD", "EX", "RP", "POS"}
LEMMINFLECT_TAGS = {
    "NN",
    "NNS",
    "NNP",
    "NNPS",
    "VB",
    "VBD",
    "VBG",
    "VBN",
    "VBP",
    "VBZ",
    "JJ",
    "JJR",
    "JJS",
    "RB",
    "RBR",
    "RBS",
}


@dataclass(frozen=True)
class Edit:
    """One replaced word: the original and its Penn tag in the original question, the replacement and its re-tag."""

    original: str
    tag: str
    replacement: str
    new_tag: str | None  # tag of the replacement in the new question (one-word replacements only)


@dataclass
class Tally:
    questions: int = 0
    changed: int = 0
    span_violations: int = 0
    edits: list[Edit] = field(default_factory=list)


def tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in WORD.finditer(text)]


def tag(text: str) -> list[tuple[str, int, int, str]]:
    import nltk

    toks = tokens(text)
    tags = nltk.pos_tag([t for t, _, _ in toks]) if toks else []
    return [(t, s, e, g) for (t, s, e), (_, g) in zip(toks, tags)]


def tag_at(tagged: list[tuple[str, int, int, str]], start: int) -> tuple[str, int, int, str] | None:
    for item in tagged:
        if item[1] <= start < item[2]:
            return item
    return None


def is_form(replacement: str, penn: str) -> bool:
    """Is `replacement` a form lemminflect gives, for the tag `penn`, of one of the replacement's lemmas?"""
    from lemminflect import getAllLemmas, getInflection

    if penn not in LEMMINFLECT_TAGS or " " in replacement:
        return False
    word = replacement.lower()
    lemmas = {word} | {lemma.lower() for forms in getAllLemmas(word).values() for lemma in forms}
    return any(word in {f.lower() for f in getInflection(lemma, tag=penn)} for lemma in lemmas)


def strip_article(original: str, replacement: str, start: int, new_start: int) -> tuple[str, str, int, int]:
    """The engine records "a person" -> "an individual" as one edit (article agreement); score the noun."""
    old = re.match(r"(an?) (?=\S)", original, re.IGNORECASE)
    new = re.match(r"(an?) (?=\S)", replacement, re.IGNORECASE)
    if old and new:
        return original[old.end() :], replacement[new.end() :], start + old.end(), new_start + new.end()
    return original, replacement, start, new_start


def robustqa_edits(dataset_path: Path) -> Tally:
    """Score a built file from its own records."""
    document = json.loads(dataset_path.read_text(encoding="utf-8"))
    tally = Tally()
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            for q in paragraph["qas"]:
                tally.questions += 1
                for answer in q["answers"] + q.get("plausible_answers", []):
                    start = answer["answer_start"]
                    tally.span_violations += context[start : start + len(answer["text"])] != answer["text"]
                if "original_question" not in q:
                    continue
                tally.changed += 1
                old, new = tag(q["original_question"]), tag(q["question"])
                for s in q["substitutions"]:
                    original, replacement, start, new_start = strip_article(
                        s["original"], s["replacement"], s["start"], s["new_start"]
                    )
                    found = tag_at(old, start)
                    penn = found[3] if found else s["pos"]
                    retag = tag_at(new, new_start) if " " not in replacement else None
                    tally.edits.append(
                        Edit(original, penn, replacement, retag[3] if retag and retag[0] == replacement else None)
                    )
    return tally


def aligned_edits(original: str, augmented: str) -> list[Edit]:
    """Word-level edits between two versions of a question (for tools that record none)."""
    old, new = tag(original), tag(augmented)
    a, b = [t[0] for t in old], [t[0] for t in new]
    edits = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "replace":
            continue
        replacement = " ".join(b[j1:j2])  # several words when a multiword synonym came in
        one = i2 - i1 == 1 and j2 - j1 == 1
        for i in range(i1, i2):
            edits.append(Edit(a[i], old[i][3], replacement, new[j1][3] if one else None))
    return edits


def nlpaug_edits(questions: list[str], seed: int) -> tuple[Tally, float]:
    import nlpaug.augmenter.word as naw
    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
    aug = naw.SynonymAug(aug_src="wordnet")
    started = time.perf_counter()
    outputs = [aug.augment(q)[0] for q in questions]
    seconds = time.perf_counter() - started
    tally = Tally(questions=len(questions))
    for q, out in zip(questions, outputs):
        edits = aligned_edits(q, out)
        tally.changed += bool(edits) or [t[0] for t in tokens(q)] != [t[0] for t in tokens(out)]
        tally.edits.extend(edits)
    return tally, seconds


def figures(tally: Tally) -> dict[str, float | int]:
    from nltk.corpus import stopwords

    stop = set(stopwords.words("english"))
    edits = tally.edits
    one_word = [e for e in edits if " " not in e.replacement]
    proper_or_number = sum(e.tag in {"NNP", "NNPS", "CD"} or any(c.isdigit() for c in e.original) for e in edits)
    wh_or_aux = sum(
        e.original.lower() in WH or e.original.lower() in AUX or e.tag in {"WDT", "WP", "WP$", "WRB", "MD"}
        for e in edits
    )
    function = sum(e.tag in CLOSED_TAGS or e.original.lower() in stop or e.original.lower() in AUX for e in edits)
    inflected = sum(is_form(e.replacement, e.tag) for e in one_word)
    retagged = [e for e in one_word if e.new_tag is not None]
    return {
        "questions": tally.questions,
        "changed": tally.changed,
        "changed_pct": 100.0 * tally.changed / max(1, tally.questions),
        "substitutions": len(edits),
        "span_violations": tally.span_violations,
        "underscores": sum("_" in e.replacement for e in edits),
        "proper_or_number": proper_or_number,
        "wh_or_aux": wh_or_aux,
        "function_words": function,
        "one_word": len(one_word),
        "inflection_pct": 100.0 * inflected / max(1, len(one_word)),
        "retag_pct": 100.0 * sum(e.new_tag == e.tag for e in retagged) / max(1, len(retagged)),
    }


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", default=str(REPO.parent / "shared" / "squad" / "squad2-dev-half.json"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--recipe", default="qads@1.1")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(list(argv) if argv is not None else None)

    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "built.json"
        command = robustqa_command() + [
            "build-dataset",
            "--input",
            args.input,
            "--output",
            str(output),
            "--recipe",
            args.recipe,
            "--seed",
            str(args.seed),
            "--workers",
            str(args.workers),
        ]
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        build_seconds = time.perf_counter() - started
        ours = figures(robustqa_edits(output))
        questions = [
            q["question"]
            for a in json.loads(Path(args.input).read_text(encoding="utf-8"))["data"]
            for p in a["paragraphs"]
            for q in p["qas"]
        ]

    theirs_tally, nlpaug_seconds = nlpaug_edits(questions, args.seed)
    theirs = figures(theirs_tally)
    theirs["span_violations"] = 0  # nlpaug edits questions only; contexts and answers are untouched

    rows = [
        ("questions", "questions", "{:,}"),
        ("questions changed", "changed", "{:,}"),
        ("questions changed (%)", "changed_pct", "{:.1f}"),
        ("substitutions", "substitutions", "{:,}"),
        ("answer-span violations", "span_violations", "{:,}"),
        ("replacements with underscores", "underscores", "{:,}"),
        ("proper nouns or numbers changed", "proper_or_number", "{:,}"),
        ("wh-words or auxiliaries changed", "wh_or_aux", "{:,}"),
        ("function words changed", "function_words", "{:,}"),
        ("one-word replacements", "one_word", "{:,}"),
        ("lemminflect form for original tag (%)", "inflection_pct", "{:.1f}"),
        ("re-tag keeps original tag (%, informative)", "retag_pct", "{:.1f}"),
    ]
    print(f"input: {args.input}   recipe: {args.recipe}   seed: {args.seed}")
    print(f"{'figure':<44}{'robustqa ' + args.recipe:>16}{'nlpaug SynonymAug':>20}")
    for label, key, fmt in rows:
        print(f"{label:<44}{fmt.format(ours[key]):>16}{fmt.format(theirs[key]):>20}")
    print(f"(robustqa build-dataset command: {build_seconds:.1f} s wall; nlpaug augment loop: {nlpaug_seconds:.1f} s)")
    targets = [
        ("changed >= 60%", ours["changed_pct"] >= 60.0),
        ("span violations == 0", ours["span_violations"] == 0),
        ("underscores == 0", ours["underscores"] == 0),
        ("proper nouns/numbers == 0", ours["proper_or_number"] == 0),
        ("wh-words/auxiliaries == 0", ours["wh_or_aux"] == 0),
        ("inflection >= 95%", ours["inflection_pct"] >= 95.0),
    ]
    print("targets: " + ", ".join(f"{name}: {'met' if ok else 'NOT met'}" for name, ok in targets))


if __name__ == "__main__":
    with recorded(__file__):
        main()
