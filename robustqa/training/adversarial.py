"""`robustqa train --adversarial`: at the start of every epoch, attack a sample of the training questions with
the weights the model has then, and train that epoch on the variants that flip it as well.

The attack is `robustqa attack`'s own (`attack_examples`: the recipe's space of valid question edits, searched
with the model in the loop, `budget` queries per question at most), so an added variant is one `attack` would
report: span-safe (only the question changes; the answers stand), with its edit records. Each epoch's sample
comes from a generator of (seed, epoch) and holds original training questions only (never variants
`--augment` added, never anything outside the training file), so held-out questions cannot enter.

The additions ride along with the epoch's ordinary batches: their windows are spread evenly over the steps the
epoch runs (in an order drawn from the same seed), each batch carrying its share beside its clean windows. An
epoch therefore keeps its length in steps, every clean window is still seen, and `--steps` means the same
number of optimisation steps with or without `--adversarial`.

Every epoch's additions are written to `adversarial/epoch-N.json` (a SQuAD 2.0 file: ids `<id>-advN`,
`source_id`, `original_question`, `substitutions`, the attack's record) before the first step that trains on
them, with the attack's query cache beside it. A resumed run reads them back instead of attacking weights it no
longer has, which is what lets it reach the weights of an uninterrupted run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturbations.engine import rng_for
from robustqa.build import DEFAULT_RECIPE
from robustqa.errors import InputError, OutputError
from robustqa.evaluation import distributed
from robustqa.outputs import write_text_atomic
from robustqa.squad import (
    Paragraph,
    QAExample,
    Question,
    SquadDataset,
    article_to_dict,
    document_to_dict,
    paragraph_to_dict,
    parse_squad,
)

ADVERSARIAL_DIR = "adversarial"
DEFAULT_SAMPLE = 200
DEFAULT_BUDGET = 20


@dataclass(frozen=True)
class AdversarialSettings:
    """How many training questions each epoch attacks, with how many queries each, over which recipe's space."""

    sample: int = DEFAULT_SAMPLE
    budget: int = DEFAULT_BUDGET
    recipe: str = DEFAULT_RECIPE

    def __post_init__(self) -> None:
        if self.sample < 1:
            raise InputError(
                f"an adversarial sample of {self.sample} questions attacks nothing",
                hint="give at least 1",
                setting="adversarial_sample",
            )
        if self.budget < 1:
            raise InputError(
                f"an adversarial budget of {self.budget} queries allows no variant",
                hint="give at least 1 query per question",
                setting="adversarial_budget",
            )

    def signature_fields(self, recipe_ident: str) -> dict[str, Any]:
        return {"adversarial": recipe_ident, "adversarial_sample": self.sample, "adversarial_budget": self.budget}


@dataclass(frozen=True)
class EpochAdditions:
    """What one epoch's attack added: counts for the training record, and the variants as a SQuAD document."""

    epoch: int  # 1 for the first epoch
    step: int  # the optimisation step whose weights were attacked (0: the base model)
    sampled: int
    attempted: int  # right on clean by a margin, so searched
    flipped: int
    queries: int
    document: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        return {
            "epoch": self.epoch,
            "step": self.step,
            "sampled": self.sampled,
            "attempted": self.attempted,
            "flipped": self.flipped,
            "queries": self.queries,
            "file": f"{ADVERSARIAL_DIR}/{epoch_file(self.epoch)}",
        }

    def examples(self) -> list[QAExample]:
        return parse_squad(self.document, path=self.summary()["file"]).examples()


def epoch_file(epoch: int) -> str:
    return f"epoch-{epoch}.json"


def original_questions(dataset: SquadDataset) -> list[QAExample]:
    """The training file's own questions (variants an augmentation added are not attacked again)."""
    return [e for e in dataset.examples() if e.source_id == e.id]


def sample_questions(pool: Sequence[QAExample], size: int, seed: int, epoch: int) -> list[QAExample]:
    """`size` questions of `pool` (all when it has fewer), drawn by the generator of (seed, epoch), in file order."""
    if size >= len(pool):
        return list(pool)
    chosen = set(rng_for(seed, "adversarial-sample", epoch).sample(range(len(pool)), size))
    return [e for i, e in enumerate(pool) if i in chosen]


def attack_sample(
    model: Any,
    tokenizer: Any,
    spec: Any,
    fingerprint: str,
    examples: list[QAExample],
    settings: AdversarialSettings,
    *,
    window: tuple[int, int],
    cache: Path,
    progress: bool,
    scorer: Any = None,
) -> list[Any]:
    """`robustqa attack`'s search over `examples` against the model as it is now (`spec`: what it was loaded
    from; `fingerprint`: names its current weights); the attack's QuestionResults, in order. The model is put
    back in training mode after. The query cache makes an interrupted attack resume. `scorer`: a stand-in for
    the model's answers (tests)."""
    from robustqa.attack.driver import AttackConfig, RecipeSpaces, attack_examples, load_recipe
    from robustqa.attack.oracle import Oracle
    from robustqa.attack.query_cache import QueryCache
    from robustqa.attack.scorer import ModelScorer
    from robustqa.evaluation.inference import InferenceSettings, QAModelRunner

    device = str(next(model.parameters()).device)
    inference = InferenceSettings(max_seq_length=window[0], doc_stride=window[1], device=device)
    config = AttackConfig(
        input_file=cache, output_dir=cache.parent, settings=inference, recipe=settings.recipe, budget=settings.budget
    )
    spaces = RecipeSpaces(load_recipe(settings.recipe), config)
    if scorer is None:
        scorer = ModelScorer(QAModelRunner(spec, inference, loaded=(model, tokenizer, fingerprint)))
    try:
        oracle = Oracle(scorer, QueryCache(cache), progress=progress)
        return attack_examples(examples, spaces, oracle)
    finally:
        model.train()


def additions_document(dataset: SquadDataset, results: Sequence[Any], epoch: int, meta: dict[str, Any]) -> dict:
    """The flipped variants as a SQuAD 2.0 document in the training file's order: for each, a question
    `<id>-adv<epoch>` with the variant's text, the original's answers, `source_id`, `original_question`,
    `substitutions` and the attack's record."""
    from robustqa.attack.adversarial import attack_fields
    from robustqa.attack.driver import SUCCEEDED

    flipped = {
        r.example.id: r
        for r in results
        if r.status == SUCCEEDED and r.outcome is not None and r.outcome.variant is not None
    }
    data = []
    for article in dataset.articles:
        paragraphs = []
        for paragraph in article.paragraphs:
            qas = []
            for q in paragraph.qas:
                result = flipped.get(q.id)
                if result is None:
                    continue
                pert = result.outcome.variant.perturbation
                extra = {
                    "source_id": q.id,
                    "original_question": q.question,
                    "substitutions": [s.to_dict() for s in pert.substitutions],
                    "attack": attack_fields(result),
                }
                qas.append(Question(f"{q.id}-adv{epoch}", pert.perturbed, q.answers, q.is_impossible, None, extra))
            if qas:
                paragraphs.append(paragraph_to_dict(Paragraph(paragraph.context, tuple(qas), {})))
        if paragraphs:
            data.append(article_to_dict(article, paragraphs))
    return document_to_dict(dataset.version, {"robustqa": {"adversarial": meta}}, data)


def epoch_additions(
    folder: Path,
    epoch: int,
    step: int,
    *,
    dataset: SquadDataset,
    settings: AdversarialSettings,
    seed: int,
    attack: Any,
    mid_epoch: bool,
    recipe_ident: str,
) -> EpochAdditions:
    """The additions of `epoch`: read back when an earlier (interrupted) run of this folder wrote them, else made
    now by `attack(examples, cache_path)` and written before any step trains on them."""
    directory = folder / ADVERSARIAL_DIR
    path = directory / epoch_file(epoch)
    if path.is_file():
        return _read(path)
    if mid_epoch:
        raise OutputError(
            f"{path}: is missing, so the resumed epoch cannot train on the variants it started with; "
            "give a new folder to train from the start"
        )
    sample = sample_questions(original_questions(dataset), settings.sample, seed, epoch)
    directory.mkdir(exist_ok=True)
    results = attack(sample, directory / f"epoch-{epoch}-queries.jsonl")
    attempted = [r for r in results if r.attempted]
    meta = {
        "epoch": epoch,
        "step": step,
        "recipe": recipe_ident,
        "budget": settings.budget,
        "seed": seed,
        "sampled": len(sample),
        "attempted": len(attempted),
        "flipped": sum(1 for r in attempted if r.outcome is not None and r.outcome.succeeded),
        "queries": sum(r.outcome.queries for r in attempted if r.outcome is not None),
    }
    document = additions_document(dataset, results, epoch, meta)
    if distributed.is_main_process():  # under torchrun every process ran the same attack; one writes it
        write_text_atomic(path, json.dumps(document, ensure_ascii=False) + "\n")
    return _from_document(document)


def _from_document(document: dict[str, Any]) -> EpochAdditions:
    meta = document["robustqa"]["adversarial"]
    return EpochAdditions(
        int(meta["epoch"]),
        int(meta["step"]),
        int(meta["sampled"]),
        int(meta["attempted"]),
        int(meta["flipped"]),
        int(meta["queries"]),
        document,
    )


def _read(path: Path) -> EpochAdditions:
    try:
        return _from_document(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError) as error:
        raise InputError(
            f"is not an adversarial-epoch file this version wrote ({error})",
            path=str(path),
            hint="give a new folder to train from the start",
        ) from None


def read_additions(folder: Path) -> list[EpochAdditions]:
    """Every epoch's additions a run of this folder wrote, by epoch (those of an interrupted run included)."""
    directory = Path(folder) / ADVERSARIAL_DIR
    found = [p for p in directory.glob("epoch-*.json") if p.stem.split("-")[-1].isdigit()]
    return [_read(p) for p in sorted(found, key=lambda p: int(p.stem.split("-")[-1]))]


def spread(count: int, steps: int, seed: int, epoch: int) -> list[list[int]]:
    """Indices 0..count-1 dealt over `steps` batches in an order drawn from (seed, epoch): batch k gets those
    whose place in that order p has p * steps // count == k, so every batch carries its even share."""
    order = list(range(count))
    rng_for(seed, "adversarial-order", epoch).shuffle(order)
    batches: list[list[int]] = [[] for _ in range(max(steps, 1))]
    for place, index in enumerate(order):
        batches[place * len(batches) // count].append(index)
    return batches


class AdversarialCollator:
    """The run's collator, plus the additions the current epoch deals to the batch it is collating.

    `cursor` is the batch's place in the epoch: set at every epoch start (from the global step, so a resumed
    epoch starts where it stopped: `Trainer` skips the batches already trained without collating them) and
    advanced by each collation."""

    def __init__(self, base: Any) -> None:
        self.base = base
        self.schedule: list[list[dict[str, Any]]] = []
        self.cursor = 0

    def start_epoch(self, schedule: list[list[dict[str, Any]]], cursor: int) -> None:
        self.schedule, self.cursor = schedule, cursor

    def __call__(self, features: list[dict[str, Any]]) -> Any:
        extra = self.schedule[self.cursor] if self.cursor < len(self.schedule) else []
        self.cursor += 1
        return self.base([*features, *extra])


def adversarial_callback(
    collator: AdversarialCollator,
    make_additions: Any,
    featurize: Any,
    *,
    seed: int,
) -> Any:
    """A `TrainerCallback` that, at every epoch start, gets the epoch's additions (`make_additions(epoch, step,
    model, mid_epoch)`), cuts them into windows (`featurize(examples)`) and deals them to the collator; it keeps
    each epoch's `EpochAdditions` in `.epochs`. Under several processes all run the same attack (it broadcasts
    the main process's answers), so they get the same additions, and each takes every `world`-th window."""
    from transformers import TrainerCallback

    class AdversarialEpochs(TrainerCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            self.epochs: dict[int, EpochAdditions] = {}

        def on_epoch_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            per_epoch = len(kwargs["train_dataloader"])
            index = state.global_step // per_epoch
            done = state.global_step - index * per_epoch
            additions = make_additions(index + 1, state.global_step, kwargs["model"], done > 0)
            self.epochs[index + 1] = additions
            examples = additions.examples()
            windows = featurize(examples) if examples else []
            mine = [w for i, w in enumerate(windows) if i % args.world_size == args.process_index]
            steps = min(per_epoch, state.max_steps - index * per_epoch)
            batches = spread(len(mine), steps, seed, index + 1) if mine else []
            collator.start_epoch([[mine[i] for i in batch] for batch in batches], done)

    return AdversarialEpochs()
