"""One `robustqa train` run: Hugging Face `Trainer` on doc-stride windows, checkpoints, resume, a model folder.

The output folder is an ordinary `save_pretrained` folder (model and tokenizer), so `robustqa eval` and
`robustqa attack` load it like any other; beside the weights it holds the run's signature
(`robustqa-train-signature.txt`, written before the first step, so a re-run can tell its own checkpoints
from another run's), the training log (`training-log.jsonl`, one line per logging step) and the
training-data record (`robustqa-training.json`, `robustqa.provenance`: eval reads it to warn of overlap).
Checkpoints (`checkpoint-N/`) are written every `save_steps` steps; running the same command again resumes
from the newest one, and because `Trainer` restores the optimizer, scheduler, data order and random states,
the result is the weights an uninterrupted run gives. `torchrun` / `accelerate launch` work as `Trainer`
supports them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, OutputError
from robustqa.evaluation.inference import DEVICES, PRECISIONS, max_positions, window_problems
from robustqa.evaluation.models import ModelSpec, load_model_and_tokenizer
from robustqa.outputs import write_text_atomic
from robustqa.provenance import training_record, write_training_record
from robustqa.signature import TRAIN, Signature
from robustqa.squad import SquadDataset
from robustqa.training.adversarial import (
    AdversarialCollator,
    AdversarialSettings,
    EpochAdditions,
    adversarial_callback,
    attack_sample,
    epoch_additions,
    read_additions,
)
from robustqa.training.features import training_features

SIGNATURE_NAME = "robustqa-train-signature.txt"
LOG_NAME = "training-log.jsonl"


@dataclass(frozen=True)
class TrainSettings:
    """What shapes the weights (all in the signature) and how the run is carried out (not in it)."""

    max_seq_length: int = 384
    doc_stride: int = 128
    steps: int = 0  # optimisation steps; 0: `epochs` passes over the data
    epochs: float = 2.0
    batch_size: int = 16
    learning_rate: float = 3e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    precision: str = "auto"
    seed: int = 13
    device: str = "auto"
    save_steps: int = 500
    logging_steps: int = 10
    save_total_limit: int | None = 2
    progress: bool = True
    threads: int | None = None
    adversarial: AdversarialSettings | None = None  # attack a sample every epoch and add what flips

    def __post_init__(self) -> None:
        problems = window_problems(self.max_seq_length, self.doc_stride)
        if self.steps < 0 or (self.steps == 0 and self.epochs <= 0):
            problems.append("give a positive number of steps or epochs")
        if self.batch_size < 1 or self.save_steps < 1 or self.logging_steps < 1:
            problems.append("batch_size, save_steps and logging_steps must be at least 1")
        if not 0 <= self.warmup_ratio < 1:
            problems.append(f"warmup_ratio {self.warmup_ratio} must be in [0, 1)")
        if self.learning_rate <= 0:
            problems.append(f"learning_rate {self.learning_rate} must be positive")
        if self.device.split(":")[0] not in DEVICES:
            problems.append(f"device '{self.device}' is not one of {', '.join(DEVICES)}")
        if self.precision not in PRECISIONS:
            problems.append(f"precision '{self.precision}' is not one of {', '.join(PRECISIONS)}")
        if problems:
            raise InputError("; ".join(problems), hint="fix the training settings")

    def signature_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"max_seq_length": self.max_seq_length, "doc_stride": self.doc_stride}
        fields.update({"steps": self.steps} if self.steps else {"epochs": self.epochs})
        fields.update(
            batch_size=self.batch_size,
            learning_rate=self.learning_rate,
            weight_decay=self.weight_decay,
            warmup_ratio=self.warmup_ratio,
            precision=self.precision,
            seed=self.seed,
        )
        return fields


@dataclass(frozen=True)
class TrainData:
    """The training questions and where they came from (for the signature)."""

    dataset: SquadDataset
    data_hash: str  # of the training file as given
    augment: str | None = None  # recipe ident or "certified"
    variants: int | None = None


@dataclass(frozen=True)
class TrainResult:
    output_dir: Path
    signature: Signature
    steps: int
    features: int
    resumed_from: str | None
    log: list[dict[str, Any]] = field(default_factory=list)
    adversarial: tuple[EpochAdditions, ...] = ()  # every epoch's additions (`--adversarial`), those before a resume too
    main_process: bool = True  # False in the other processes of a torchrun: they write nothing and report nothing


def check_training_data(dataset: SquadDataset) -> None:
    """Refuse data a SQuAD 2.0 model cannot be trained on, naming the file and what to give instead."""
    examples = dataset.examples()
    if not examples:
        raise InputError("no questions to train on", path=dataset.path, hint="give a SQuAD 2.0 training file")
    if not any(e.is_impossible for e in examples):
        raise InputError(
            "has no unanswerable questions: a SQuAD v1.1 file, and training on it would unlearn abstaining",
            path=dataset.path,
            hint="train on SQuAD 2.0 data (with is_impossible questions)",
        )
    missing = next((e for e in examples if not e.is_impossible and not e.answers), None)
    if missing is not None:
        raise InputError(
            f"question {missing.id} is answerable but has no answer span",
            path=dataset.path,
            where=f"article '{missing.title}'",
            hint="give every answerable question its answers (text and answer_start), or mark it is_impossible",
        )
    if not any(e.answers for e in examples):
        raise InputError(
            "has no answer spans: every question is unanswerable, so there are no spans to learn",
            path=dataset.path,
            hint="give a SQuAD 2.0 training file with answered questions",
        )


def train_signature(
    base: str, data: TrainData, settings: TrainSettings, adversarial_recipe: str | None = None
) -> Signature:
    fields: dict[str, Any] = {"base": base, "train": data.data_hash}
    if data.augment:
        fields.update(augment=data.augment, variants=data.variants if data.variants is not None else "all")
    if settings.adversarial is not None:
        fields.update(settings.adversarial.signature_fields(adversarial_recipe or settings.adversarial.recipe))
    return TRAIN.create({**fields, **settings.signature_fields()})


def _checkpoints(folder: Path) -> list[Path]:
    found = [p for p in folder.glob("checkpoint-*") if p.is_dir() and p.name.split("-")[-1].isdigit()]
    return sorted(found, key=lambda p: int(p.name.split("-")[-1]))


def _prepare_folder(folder: Path, signature: Signature) -> Path | None:
    """Create the folder or find the checkpoint to resume from; refuse a folder another run owns."""
    marker = folder / SIGNATURE_NAME
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: is a file; give a folder for the trained model")
    if folder.is_dir() and any(folder.iterdir()):
        if not marker.is_file():
            raise OutputError(f"{folder}: is not empty and holds no robustqa training run; give a new or empty folder")
        theirs = marker.read_text(encoding="utf-8").strip()
        if theirs != signature.format():
            raise OutputError(
                f"{folder}: holds another training run ({theirs}); give a new folder, or the settings of that run "
                "to resume it"
            )
        checkpoints = _checkpoints(folder)
        return checkpoints[-1] if checkpoints else None
    if not folder.parent.is_dir():
        raise OutputError(f"{folder}: folder '{folder.parent}' does not exist; create it first")
    folder.mkdir(exist_ok=True)
    write_text_atomic(marker, signature.format() + "\n")
    return None


def _check_processes(checkpoint: Path, processes: int) -> None:
    """Refuse to resume a checkpoint under another number of processes: each process trains on batches of its
    own, so the weights would not be those of the uninterrupted run (`Trainer` saves one random state per process:
    `rng_state.pth` alone, or `rng_state_<rank>.pth`)."""
    if (checkpoint / "rng_state.pth").is_file():
        written_by = 1
    else:
        written_by = len(list(checkpoint.glob("rng_state_*.pth")))
    if written_by and written_by != processes:
        raise OutputError(
            f"{checkpoint}: was written by {written_by} training process(es) and this run has {processes}; "
            f"resume it with {written_by} process(es), or give a new folder"
        )


class _FeatureSet:
    """The features as the map-style dataset `Trainer` samples from."""

    def __init__(self, features: list[dict[str, Any]]) -> None:
        self.features = features

    def __len__(self) -> int:
        return len(self.features)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.features[index]


def _resolved_precision(device: str, precision: str) -> str:
    """'auto': bf16 (else fp16) mixed precision on a GPU, fp32 elsewhere."""
    import torch

    on_gpu = device.split(":")[0] == "cuda" or (device == "auto" and torch.cuda.is_available())
    if precision == "auto":
        return ("bf16" if torch.cuda.is_bf16_supported() else "fp16") if on_gpu else "fp32"
    return precision


def train(
    spec: ModelSpec,
    data: TrainData,
    output_dir: str | Path,
    settings: TrainSettings,
    *,
    callbacks: Sequence[Any] = (),
    attack_scorer: Callable[[Any], Any] | None = None,
) -> TrainResult:
    """Fine-tune `spec` on `data` into `output_dir` (resuming from its newest checkpoint when it has one).
    `attack_scorer(model)`: what answers `--adversarial`'s queries instead of the model (a test double)."""
    import torch
    from transformers import DataCollatorWithPadding, Trainer, TrainingArguments

    check_training_data(data.dataset)
    adversarial_recipe = _adversarial_recipe(settings.adversarial)
    if settings.threads:
        torch.set_num_threads(settings.threads)
    model, tokenizer, fingerprint = load_model_and_tokenizer(spec)
    max_len = min(settings.max_seq_length, max_positions(model, tokenizer))
    if max_len < settings.max_seq_length:
        raise InputError(
            f"max_seq_length {settings.max_seq_length} is longer than the model's {max_len} positions",
            hint=f"use at most {max_len}",
            setting="max_seq_length",
        )
    precision = _resolved_precision(settings.device, settings.precision)
    # the precision that runs ("auto" resolved for this machine) is what the signature names
    signature = train_signature(
        spec.identity(fingerprint), data, replace(settings, precision=precision), adversarial_recipe
    )
    folder = Path(output_dir)
    features = training_features(tokenizer, data.dataset.examples(), settings.max_seq_length, settings.doc_stride)
    model.train()
    args = TrainingArguments(
        output_dir=str(folder),
        max_steps=settings.steps or -1,
        num_train_epochs=settings.epochs,
        per_device_train_batch_size=settings.batch_size,
        learning_rate=settings.learning_rate,
        weight_decay=settings.weight_decay,
        warmup_steps=settings.warmup_ratio,
        logging_steps=settings.logging_steps,
        save_strategy="steps",
        save_steps=settings.save_steps,
        save_total_limit=settings.save_total_limit,
        seed=settings.seed,
        data_seed=settings.seed,
        use_cpu=settings.device == "cpu",
        report_to=[],
        disable_tqdm=not settings.progress,
        dataloader_num_workers=0,
        remove_unused_columns=False,
        bf16=precision == "bf16",
        fp16=precision == "fp16",
    )
    # under torchrun the main process creates the folder and its signature first; the others then find them
    with args.main_process_first(local=False, desc="preparing the output folder"):
        resume = _prepare_folder(folder, signature)
    if resume is not None:
        _check_processes(resume, args.world_size)
    collator: Any = DataCollatorWithPadding(tokenizer)
    own_callbacks: list[Any] = []
    if settings.adversarial is not None:
        collator = AdversarialCollator(collator)
        loaded = (model, tokenizer, fingerprint)
        own_callbacks.append(
            _adversarial_epochs(collator, spec, loaded, data, folder, settings, adversarial_recipe, attack_scorer)
        )
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=_FeatureSet(features),  # type: ignore[arg-type]
        data_collator=collator,
        processing_class=tokenizer,
        callbacks=[*own_callbacks, *callbacks],
    )
    trainer.train(resume_from_checkpoint=str(resume) if resume is not None else None)
    additions = tuple(read_additions(folder)) if settings.adversarial is not None else ()
    log: list[dict[str, Any]] = []
    trainer.save_model(str(folder))  # every process calls it (sharded setups gather the weights); the main one writes
    main_process = trainer.is_world_process_zero()
    if main_process:
        tokenizer.save_pretrained(str(folder))
        log = list(trainer.state.log_history)
        write_text_atomic(folder / LOG_NAME, "".join(json.dumps(entry) + "\n" for entry in log))
        record = training_record(data.dataset, signature.format())
        if settings.adversarial is not None:
            record = replace(
                record,
                questions=record.questions + sum(a.flipped for a in additions),
                adversarial={
                    "recipe": adversarial_recipe,
                    "sample": settings.adversarial.sample,
                    "budget": settings.adversarial.budget,
                    "epochs": [a.summary() for a in additions],
                },
            )
        write_training_record(folder, record)
        run_settings = {**asdict(settings), "processes": args.world_size}
        (folder / "robustqa-train-settings.json").write_text(json.dumps(run_settings, indent=2) + "\n")
    return TrainResult(
        folder,
        signature,
        trainer.state.global_step,
        len(features),
        resume.name if resume else None,
        log,
        additions,
        main_process,
    )


def _adversarial_recipe(adversarial: AdversarialSettings | None) -> str | None:
    """The recipe's name@version, checked (it must edit questions only, its resources present) before a model
    loads."""
    if adversarial is None:
        return None
    import perturbations
    from robustqa.attack.driver import load_recipe

    recipe = load_recipe(adversarial.recipe)
    perturbations.check_resources()
    return recipe.ident


def _adversarial_epochs(
    collator: AdversarialCollator,
    spec: ModelSpec,
    loaded: tuple[Any, Any, str],
    data: TrainData,
    folder: Path,
    settings: TrainSettings,
    recipe_ident: str | None,
    attack_scorer: Callable[[Any], Any] | None,
) -> Any:
    """The callback that attacks a sample at every epoch start and deals the flips to that epoch's batches."""
    adversarial = settings.adversarial
    assert adversarial is not None
    _, tokenizer, fingerprint = loaded
    window = (settings.max_seq_length, settings.doc_stride)

    def make_additions(epoch: int, step: int, current: Any, mid_epoch: bool) -> EpochAdditions:
        def attack(examples: list[Any], cache: Path) -> list[Any]:
            weights = f"{fingerprint}-step{step}"
            return attack_sample(
                current, tokenizer, spec, weights, examples, adversarial, window=window, cache=cache,
                progress=settings.progress, scorer=attack_scorer(current) if attack_scorer else None,
            )  # fmt: skip

        return epoch_additions(
            folder, epoch, step, dataset=data.dataset, settings=adversarial, seed=settings.seed, attack=attack,
            mid_epoch=mid_epoch, recipe_ident=recipe_ident or adversarial.recipe,
        )  # fmt: skip

    def featurize(examples: list[Any]) -> list[dict[str, Any]]:
        return training_features(tokenizer, examples, settings.max_seq_length, settings.doc_stride)

    return adversarial_callback(collator, make_additions, featurize, seed=settings.seed)
