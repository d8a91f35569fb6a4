"""AdversarialQA (Bartolo et al. 2020): questions written by people against a model in the loop (BiDAF,
BERT, RoBERTa) on SQuAD-style Wikipedia paragraphs.

The questions are new, not copies of SQuAD questions, so the set is clean-only. It is read from the released
SQuAD-style JSON file (`combined/dev.json`, `droberta/dev.json`, ...) or, online, through `datasets`
(`UCLNLP/adversarial_qa`) by naming a config and split: `adversarialQA`, `dbidaf`, `dbert` or `droberta`,
optionally `:validation` (the default), `:train` or `:test`. The test split's answers are not public, so
it cannot be scored and is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from robustqa.errors import InputError
from robustqa.importers.base import (
    ImportedSet,
    Importer,
    load_json_input,
    parse_checked,
    require_answers,
    sha12,
)
from robustqa.importers.squad_shifts import answered, refuse_copies, summary_counts
from robustqa.squad import (
    SquadDataset,
    check_answer_offsets,
    check_unique_ids,
    dataset_to_dict,
    squad_from_rows,
)

HUB_DATASET = "UCLNLP/adversarial_qa"
CONFIGS = ("adversarialQA", "dbidaf", "dbert", "droberta")
SPLITS = ("validation", "train", "test")


def hub_name(source: str) -> tuple[str, str] | None:
    """(config, split) when `source` names a hub config (`dbert`, `dbert:validation`), else None."""
    config, _, split = source.partition(":")
    if config in CONFIGS and (split or "validation") in SPLITS:
        return config, split or "validation"
    return None


def load_hub(config: str, split: str) -> SquadDataset:
    label = f"{HUB_DATASET}:{config}:{split}"
    try:
        import datasets
    except ImportError:  # pragma: no cover - datasets is a dependency
        raise InputError(
            "the `datasets` package is not installed",
            path=label,
            hint="pip install datasets, or give the released JSON file",
        ) from None
    try:
        rows = datasets.load_dataset(HUB_DATASET, config, split=split)
    except Exception as error:
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0][:160]
        raise InputError(
            f"cannot load it through `datasets` ({first_line})",
            path=label,
            hint="you may be offline; give the released SQuAD-style JSON file instead",
        ) from None
    dataset = squad_from_rows(rows, path=label)
    check_unique_ids(dataset)
    return check_answer_offsets(dataset)


@dataclass(frozen=True)
class AdversarialQAImporter(Importer):
    def read(self, source: str) -> ImportedSet:
        hint = (
            f"give a released AdversarialQA JSON file (SQuAD form), or a config of {HUB_DATASET}: "
            f"{', '.join(CONFIGS)}[:split]"
        )
        hub = hub_name(source) if not Path(source).exists() else None
        if hub is not None:
            dataset = load_hub(*hub)
            label = f"{HUB_DATASET}:{hub[0]}:{hub[1]}"
            digest = sha12(json.dumps(dataset_to_dict(dataset), ensure_ascii=False, sort_keys=True).encode("utf-8"))
        else:
            raw, digest = load_json_input(source, hint=hint)
            dataset = parse_checked(raw, path=source, hint=hint)
            label = Path(source).name
        path = label if hub is not None else source  # errors name the file as given
        if len(dataset) == 0:
            raise InputError("no questions", path=path, hint=hint)
        require_answers(
            dataset,
            set_title=self.title,
            hint="the test split's answers are not public, so it cannot be scored; use the validation split (dev.json)",
        )
        refuse_copies(dataset, path=path, title=self.title)
        dataset = answered(dataset)
        return ImportedSet(dataset, None, label, digest, summary_counts(dataset))


ADVERSARIAL_QA = AdversarialQAImporter(
    name="adversarial-qa",
    title="AdversarialQA",
    citation=(
        'Bartolo, Roberts, Welbl, Riedel & Stenetorp, "Beat the AI: Investigating Adversarial Human Annotation for '
        'Reading Comprehension", TACL 2020'
    ),
    url="https://adversarialqa.github.io/",
    licence="CC BY-SA 4.0 (as the Hugging Face dataset card, UCLNLP/adversarial_qa, states)",
    paired=False,
    version="1",
    accepts=(
        f"a released AdversarialQA JSON file, or (online) a config of {HUB_DATASET}: {', '.join(CONFIGS)}, optionally "
        ":validation|:train|:test"
    ),
)
