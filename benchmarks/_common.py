"""What the benchmarks share: how to start the `robustqa` command beside this Python, and how a script's
printed results become its section of docs/benchmarks.md (so the figures there are never edited by hand)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROBUSTQA_SHARED", REPO.parent / "shared"))
DOC = REPO / "docs" / "benchmarks.md"
MODELS = (SHARED / "models" / "minilm-squad2-mini", SHARED / "models" / "minilm-squad2-wiki")
HELDOUT = SHARED / "squad" / "squad2-dev-heldout.json"  # the four articles the shared models never saw
# every benchmark runs from a checkout beside shared/: its packages and the NLTK data there, nothing installed
sys.path.insert(0, str(REPO))
os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))


def run_robustqa(*args: str | Path, cwd: Path | None = None) -> str:
    """Run a robustqa command as a user would and return what it printed; a failure stops the script with the
    command's own error."""
    done = subprocess.run([*robustqa_command(), *map(str, args)], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"robustqa {' '.join(map(str, args[:2]))} ... failed: {done.stderr[-2000:]}")
    return done.stdout


def right_to_wrong(run_dir: Path) -> tuple[set[str], int]:
    """(ids right on clean and wrong on perturbed, wrong-to-right count) of an eval run folder (exact match)."""
    lines = [json.loads(line) for line in (run_dir / "examples.jsonl").read_text().splitlines()]
    flips = {e["source_id"] for e in lines if e["clean_exact"] == 1 and e["perturbed_exact"] == 0}
    back = sum(1 for e in lines if e["clean_exact"] == 0 and e["perturbed_exact"] == 1)
    return flips, back


def reuse_clean_predictions(run_dir: Path, from_run: Path | None) -> None:
    """Copy another run's cached clean predictions into `run_dir`: they depend only on the clean file and the
    model, so an eval of another perturbed file of the same clean one need not predict them again."""
    if from_run is None:
        return
    for cached in from_run.glob("*/cache/clean-*.jsonl"):
        target = run_dir / cached.relative_to(from_run)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, target)


def robustqa_command(script_only: bool = False) -> list[str]:
    """The console script next to this interpreter, else the same CLI through `python -c` (uninstalled
    checkouts). `script_only`: launchers such as torchrun need a script path, so exit when there is none."""
    script = Path(sys.executable).with_name("robustqa")
    if script.exists():
        return [str(script)]
    if script_only:
        sys.exit("the robustqa console script is not installed: pip install -e . --no-deps")
    return [sys.executable, "-c", "from robustqa.cli import main; main()"]


def portable(text: str) -> str:
    """`text` with this machine's folders written as the repository sees them (`..`, `<tmp>`, `~`)."""
    for folder, shown in ((REPO, "."), (REPO.parent, ".."), (Path(tempfile.gettempdir()), "<tmp>"), (Path.home(), "~")):
        text = re.sub(re.escape(str(folder)) + r"(?=/|\b)", shown, text)
    return text


def _section(name: str, body: str) -> str:
    return f"<!-- benchmark:{name} -->\n{body.rstrip()}\n<!-- /benchmark:{name} -->"


def write_section(script: str, output: str, *, argv: list[str], load_before: float, seconds: float) -> None:
    """Rewrite the section of docs/benchmarks.md that belongs to `script` (between its markers) with the
    script's purpose (its docstring's first paragraph), how and when it ran, and `output` as printed."""
    path = Path(script).resolve()
    name = path.stem
    source = path.read_text(encoding="utf-8")
    purpose = source.split('"""')[1].strip().split("\n\n")[0] if source.lstrip().startswith('"""') else ""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        # this document itself does not count: the scripts run before this one rewrote it
        exclude = [f":!{DOC.relative_to(REPO)}"] if DOC.is_relative_to(REPO) else []
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", *exclude],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        version = f"commit {commit}{' + local changes' if dirty.strip() else ''}"
    except (OSError, subprocess.CalledProcessError):
        version = "outside a git checkout"
    command = " ".join(["python", f"benchmarks/{path.name}", *argv])
    body = "\n".join(
        [
            f"### `{path.name}`",
            "",
            purpose,
            "",
            f"`{portable(command)}` on {time.strftime('%Y-%m-%d')} ({version}); {os.cpu_count()} CPUs, "
            "1-minute load average "
            f"{load_before:.1f} when it started, {os.getloadavg()[0]:.1f} when it ended; {seconds:.0f} s.",
            "",
            "```text",
            portable(output).rstrip(),
            "```",
        ]
    )
    document = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"<!-- benchmark:{re.escape(name)} -->.*?<!-- /benchmark:{re.escape(name)} -->", re.S)
    if pattern.search(document):
        document = pattern.sub(lambda _: _section(name, body), document)
    else:
        document = document.rstrip() + "\n\n" + _section(name, body) + "\n"
    DOC.write_text(document, encoding="utf-8")


class _Tee(io.TextIOBase):
    def __init__(self, stream: io.TextIOBase) -> None:
        self.stream = stream
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def recorded(script: str) -> Iterator[None]:
    """Print as usual and, when the block finishes, write what was printed into docs/benchmarks.md."""
    tee = _Tee(sys.stdout)
    load_before, started = os.getloadavg()[0], time.perf_counter()
    sys.stdout = tee
    try:
        yield
    finally:
        sys.stdout = tee.stream
    write_section(
        script, tee.copy.getvalue(), argv=sys.argv[1:], load_before=load_before, seconds=time.perf_counter() - started
    )


def spread(values: list[float]) -> str:
    """Median seconds of repeated runs, with their range: the figure every speed section quotes."""
    return f"median {statistics.median(values):6.1f} s  (min {min(values):.1f}, max {max(values):.1f}, n={len(values)})"


def padded_batches(windows, batch_size: int) -> list[dict]:
    """Pre-padded, length-sorted tensors of tokenized windows (`robustqa.evaluation.inference.build_windows`): the bare
    forward pass the speed benchmarks compare robustqa with times nothing but the model on these."""
    import torch

    from robustqa.evaluation.inference import length_sorted_batches

    batches = []
    for batch in length_sorted_batches(windows.lengths, batch_size):
        width = max(len(windows.input_ids[w]) for w in batch)
        ids = torch.zeros((len(batch), width), dtype=torch.long)
        mask = torch.zeros_like(ids)
        types = torch.zeros_like(ids)
        for row, w in enumerate(batch):
            n = len(windows.input_ids[w])
            ids[row, :n] = torch.tensor(windows.input_ids[w])
            mask[row, :n] = 1
            types[row, :n] = torch.tensor(windows.token_type_ids[w])
        batches.append({"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
    return batches


def forward_seconds(model, batches: list[dict]) -> float:
    """Wall seconds of one pass of `model` over `batches` (inference mode, nothing else)."""
    import torch

    start = time.perf_counter()
    with torch.inference_mode():
        for batch in batches:
            model(**batch)
    return time.perf_counter() - start


# ---------------------------------------------------------------- what the validity scripts share
# (the half set's questions, the blind-review rules, JSONL, intervals), so that no script imports another

HALF = SHARED / "squad" / "squad2-dev-half.json"
SEED = 13  # the build seed (the documented default)

RULES = """# Rules for judging a perturbed question (blind review)

Each item shows an ORIGINAL question about a passage, a PERTURBED version of it (some words replaced),
the gold ANSWER (or "no answer": the passage does not answer the question), and the SENTENCE of the
passage that holds the answer (for a question without answer, the sentence holding a plausible but wrong
answer, when there is one). You do not know which tool made the perturbed version; judge each item alone.

Judge two things and write a note:

- `same_meaning` (true/false): a reader of the passage would give the same answer to the perturbed
  question as to the original (or still no answer, for the same reason). False for a wrong word sense
  ("refuse" -> "garbage"), a broken fixed term or compound ("particle physics" -> "natural philosophies",
  "combustion engine" -> "burning engine"), a question that now asks something else, or a question too
  garbled to recover. Mild stylistic oddity with the meaning intact is true.
- `fluency`: 3 = natural English a person could have written; 2 = understandable but awkward or slightly
  ungrammatical; 1 = ungrammatical or nonsensical.
- `note`: the problem words (empty when there is none).

Write one JSON object per line, in item order, to the judgments file you are given:
{"item": "<item>", "same_meaning": true, "fluency": 3, "note": ""}
"""


class Question(NamedTuple):
    id: str
    title: str
    question: str
    context: str
    answerable: bool
    answer: str | None
    answer_start: int | None


def reserved_for_review(question_id: str) -> bool:
    """The half of the ids kept away from development: only blind reviews look at these."""
    return int(hashlib.sha256(question_id.encode()).hexdigest(), 16) % 2 == 1


def load_questions(path: Path) -> dict[str, Question]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Question] = {}
    for article in raw["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                answers = qa.get("answers") or qa.get("plausible_answers") or []
                first = answers[0] if answers else None
                out[qa["id"]] = Question(
                    id=qa["id"],
                    title=article["title"],
                    question=qa["question"],
                    context=paragraph["context"],
                    answerable=not qa.get("is_impossible", False),
                    answer=first["text"] if first else None,
                    answer_start=first["answer_start"] if first else None,
                )
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”')\]]*\s+(?=[\"“(\[]?[A-Z0-9])")


def sentence_at(context: str, offset: int | None) -> str:
    """The passage sentence holding character `offset` (the whole passage when there is none)."""
    if offset is None:
        return ""
    start = 0
    for m in _SENTENCE_END.finditer(context):
        if m.end() > offset:
            return context[start : m.start()].strip()
        start = m.end()
    return context[start:].strip()


def half_set(only: set[str] | None = None) -> Any:
    """The half set, or only the questions `only` names (`robustqa.squad.only_questions`)."""
    from robustqa.squad import load_squad, only_questions, parse_squad

    if only is None:
        return load_squad(HALF)
    return parse_squad(only_questions(json.loads(HALF.read_text(encoding="utf-8")), only), path=str(HALF))


def build_changed(
    recipe_name: str, overrides: dict[str, Any], only: set[str] | None = None
) -> tuple[dict[str, str], dict[str, Any]]:
    """The perturbed text of every question a setting changes in the half set (or in `only`), and its recipe record."""
    import perturbations
    from robustqa.build import build_dataset

    recipe = perturbations.get_recipe(recipe_name, **overrides)
    result = build_dataset(half_set(only), recipe, seed=SEED)
    return changed_questions(result.document), {
        "recipe": recipe.ident,
        "overrides": overrides,
        "signature": result.signature.format(),
    }


def changed_questions(document: dict[str, Any]) -> dict[str, str]:
    """id -> perturbed text of every question a built document changed."""
    return {
        qa["id"]: qa["question"]
        for article in document["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
        if "original_question" in qa
    }


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def question_rows(path: Path) -> list[tuple[str, str, str]]:
    """(id, question, context) of every question of a SQuAD file, in file order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(qa["id"], qa["question"], p["context"]) for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]


def wilson(successes: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion: robustqa's one implementation ((0, 1) when n is 0)."""
    from robustqa.stats import wilson_interval

    return wilson_interval(successes, n)


# ---------------------------------------------------------------- what the speed scripts share

MODEL = SHARED / "models" / "minilm-squad2-mini"
DATA = SHARED / "squad" / "squad2-dev-heldout.json"


def timed_eval(out: Path, *extra: str, limit: int | None = None, launcher: Sequence[str] = ()) -> float:
    """Wall time of one whole `robustqa eval` of the held-out file into `out` (optionally under a launcher)."""
    command = [
        *launcher,
        *robustqa_command(script_only=True),
        "eval",
        str(MODEL),
        "--clean",
        str(DATA),
        "--output-dir",
        str(out),
        "--quiet",
        *extra,
    ]
    if limit:
        command += ["--limit", str(limit)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} ... failed: {done.stderr[-2000:]}")
    return wall


class BareForward:
    """The machine's limit: pre-tokenized, pre-padded, length-sorted batches; only the forward pass timed."""

    def __init__(self, batch_size: int, limit: int | None) -> None:
        from transformers import AutoModelForQuestionAnswering, AutoTokenizer

        from robustqa.evaluation.inference import build_windows
        from robustqa.squad import load_squad

        examples = load_squad(DATA).examples()[: limit or None]
        tokenizer = AutoTokenizer.from_pretrained(MODEL, use_fast=True)
        self.model = AutoModelForQuestionAnswering.from_pretrained(MODEL).eval()
        windows = build_windows(tokenizer, examples, 384, 128)
        self.windows = len(windows)
        self.batches = padded_batches(windows, batch_size)

    def run(self) -> float:
        return forward_seconds(self.model, self.batches)


def certified_heldout(work: Path) -> Path:
    """The certified variants of the held-out questions, as their own perturbed file: `certified@1`, the set the
    documented figures measure (its variants are `certified@2`'s; only the records' kinds differ)."""
    from robustqa.packaged import get_set

    heldout_ids = {
        qa["id"]
        for a in json.loads(HELDOUT.read_text(encoding="utf-8"))["data"]
        for p in a["paragraphs"]
        for qa in p["qas"]
    }
    document = json.loads(get_set("certified@1").perturbed_path.read_text(encoding="utf-8"))
    data = []
    for article in document["data"]:
        paragraphs = [
            dict(p, qas=[qa for qa in p["qas"] if qa["source_id"] in heldout_ids]) for p in article["paragraphs"]
        ]
        paragraphs = [p for p in paragraphs if p["qas"]]
        if paragraphs:
            data.append(dict(article, paragraphs=paragraphs))
    path = work / "certified-heldout.json"
    path.write_text(json.dumps(dict(document, data=data), ensure_ascii=False), encoding="utf-8")
    return path


def evaluate(model: Path, perturbed: Path, run_dir: Path, clean_cache_from: Path | None = None) -> dict[str, Any]:
    """report.json's entry of `robustqa eval` on the held-out file and `perturbed`; the clean predictions depend
    only on the clean file and the model, so they are taken from another run's cache when one is given."""
    reuse_clean_predictions(run_dir, clean_cache_from)
    run_robustqa(
        "eval", model, "--clean", HELDOUT, "--perturbed", perturbed, "--output-dir", run_dir, "--quiet", "--overwrite"
    )
    return json.loads((run_dir / "report.json").read_text(encoding="utf-8"))["models"][0]
