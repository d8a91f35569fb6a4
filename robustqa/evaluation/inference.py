"""Batched, windowed extractive-QA inference: questions in, answers and null odds out.

Long contexts are cut into overlapping windows (`max_seq_length` tokens, `doc_stride` overlap) by one
batched call of the fast tokenizer, which also yields the character offsets that map a token span back
to the exact context text. Windows are sorted by length and batched with dynamic padding, so little
compute goes to pad tokens; the forward pass runs under `torch.inference_mode`, with bf16/fp16 autocast
on GPUs and plain fp32 on CPUs (or, opt-in, int8 dynamically quantised Linear layers on CPU).

Under `torchrun`/`accelerate launch` the length-sorted batches are dealt round-robin to the processes,
each computes its share, the main process gathers the (unpadded) logits and decodes once. Because
every batch is exactly the batch a single process would form, the logits — and so the answers — are
the same as a one-process run.

The runner also measures what it costs (`Timing`): the questions and windows that reached the model and the
seconds spent in forward passes and in whole `predict` calls, so a run reports speed on the device it used
without a separate benchmark; questions served from a cache never reach the runner and are not counted.
"""

from __future__ import annotations

import contextlib
import inspect
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from robustqa.errors import InputError
from robustqa.evaluation import distributed
from robustqa.evaluation.decode import best_spans, decode_question
from robustqa.evaluation.models import ModelSpec, load_model_and_tokenizer
from robustqa.squad import QAExample

DEVICES = ("auto", "cpu", "cuda", "mps")
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
# Models whose position table reserves slots before the first token (padding_idx + 1).
_POSITION_OFFSET = {"roberta": 2, "xlm-roberta": 2, "camembert": 2, "longformer": 2, "xlm-roberta-xl": 2}
_DECODE_CHUNK = 2048  # windows decoded at once: bounds the (windows × n_best × n_best) score block


def window_problems(max_seq_length: int, doc_stride: int) -> list[str]:
    """What is wrong with a window length and stride (inference and training cut contexts the same way)."""
    problems = []
    if max_seq_length < 16:
        problems.append(f"max_seq_length {max_seq_length} is below 16")
    if not 0 < doc_stride < max_seq_length:
        problems.append(f"doc_stride {doc_stride} must be positive and below max_seq_length")
    return problems


@dataclass(frozen=True)
class InferenceSettings:
    """How windows are cut, run and decoded. Only `signature_fields` change the answers."""

    max_seq_length: int = 384
    doc_stride: int = 128
    batch_size: int = 32
    device: str = "auto"
    precision: str = "auto"
    n_best: int = 20
    max_answer_length: int = 30
    null_threshold: float = 0.0
    int8: bool = False

    def __post_init__(self) -> None:
        problems = window_problems(self.max_seq_length, self.doc_stride)
        if self.batch_size < 1:
            problems.append(f"batch_size {self.batch_size} must be at least 1")
        if self.n_best < 1 or self.max_answer_length < 1:
            problems.append("n_best and max_answer_length must be at least 1")
        base_device = self.device.split(":")[0]
        if base_device not in DEVICES:
            problems.append(f"device '{self.device}' is not one of {', '.join(DEVICES)}")
        if self.precision not in PRECISIONS:
            problems.append(f"precision '{self.precision}' is not one of {', '.join(PRECISIONS)}")
        if self.int8 and self.precision in ("bf16", "fp16"):
            problems.append(
                f"int8 kernels take fp32 activations, so int8 cannot run under {self.precision} autocast (use one or "
                "the other)"
            )
        if problems:
            raise InputError("; ".join(problems), hint="fix the inference settings")

    def signature_fields(self) -> dict[str, object]:
        """The settings that change predictions, for the run signature and cache keys."""
        fields: dict[str, object] = {
            "max_seq_length": self.max_seq_length,
            "doc_stride": self.doc_stride,
            "n_best": self.n_best,
            "max_answer_length": self.max_answer_length,
            "null_threshold": self.null_threshold,
        }
        if self.int8:
            fields["int8"] = True
        if self.precision in ("bf16", "fp16"):
            # autocast changes logits (and so some answers): a bf16 run must never reuse fp32 predictions
            fields["precision"] = self.precision
        return fields

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Prediction:
    """One question's answer: text "" means "no answer"; null_odds = null score − best span score.

    `best_span` is the best non-null span whatever the null odds (what SQuAD v1.1 rules answer); None
    when the runner that made the prediction does not report it."""

    id: str
    text: str
    null_odds: float
    best_span: str | None = None


@dataclass
class Timing:
    """What one runner measured over all its `predict` calls (only questions that reached the model).

    `forward_seconds`: the forward passes (padding each batch, copying it to the device, the model, the
    logits back to the host; under a launcher, the main process's share and the gather). `predict_seconds`:
    whole `predict` calls (tokenizing into windows, the forward passes, decoding the answers)."""

    questions: int = 0
    windows: int = 0
    forward_seconds: float = 0.0
    predict_seconds: float = 0.0


@dataclass
class Windows:
    """The tokenized windows of a list of questions, as flat per-window lists."""

    input_ids: list[list[int]]
    token_type_ids: list[list[int]] | None
    example_index: np.ndarray  # (W,) index into the examples
    offsets: list[np.ndarray]  # (L, 2) char offsets per token; -1 for tokens outside the context
    cls_index: np.ndarray  # (W,) position of the CLS token (the null answer)

    @property
    def lengths(self) -> np.ndarray:
        return np.fromiter((len(ids) for ids in self.input_ids), dtype=np.int64, count=len(self.input_ids))

    def __len__(self) -> int:
        return len(self.input_ids)


def _fit_questions(tokenizer: Any, questions: list[str], max_tokens: int) -> list[str]:
    """Cut questions longer than `max_tokens` tokens (at a token boundary) so every window keeps more
    context room than the stride (the tokenizer aborts otherwise). Real SQuAD questions never come close
    to the limit at 384 tokens; tiny test models with 64 positions do."""
    lengths = [len(ids) for ids in tokenizer(questions, add_special_tokens=False)["input_ids"]]
    long = [i for i, n in enumerate(lengths) if n > max_tokens]
    fitted = list(questions)
    while long:
        # A unigram (SentencePiece) tokenizer may split the cut text into more tokens than it had as a
        # prefix, so cut again until it fits; every round shortens the text, so this ends.
        offsets = tokenizer([fitted[i] for i in long], add_special_tokens=False, return_offsets_mapping=True)[
            "offset_mapping"
        ]
        for i, spans in zip(long, offsets):
            fitted[i] = fitted[i][: min(spans[max_tokens - 1][1], len(fitted[i]) - 1)]
        lengths = [len(ids) for ids in tokenizer([fitted[i] for i in long], add_special_tokens=False)["input_ids"]]
        long = [i for i, n in zip(long, lengths) if n > max_tokens]
    return fitted


def build_windows(tokenizer: Any, examples: Sequence[QAExample], max_seq_length: int, doc_stride: int) -> Windows:
    """Tokenize every (question, context) pair into overlapping windows with one batched tokenizer call.

    The question comes first for right-padding tokenizers (BERT, ELECTRA, RoBERTa) and the context is
    truncated ("only_second"); for left-padding ones (XLNet-style) the order is swapped.
    """
    pad_right = getattr(tokenizer, "padding_side", "right") == "right"
    questions = [example.question.lstrip() for example in examples]
    contexts = [example.context for example in examples]

    def encode(qs: list[str]) -> Any:
        first, second = (qs, contexts) if pad_right else (contexts, qs)
        return tokenizer(
            first,
            second,
            truncation="only_second" if pad_right else "only_first",
            max_length=max_seq_length,
            stride=doc_stride,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            padding=False,
        )

    special = tokenizer.num_special_tokens_to_add(pair=True)
    encoded = encode(_fit_questions(tokenizer, questions, max(1, max_seq_length - doc_stride - special - 1)))
    context_id = 1 if pad_right else 0
    cls_id = tokenizer.cls_token_id
    input_ids: list[list[int]] = encoded["input_ids"]
    offsets_out: list[np.ndarray] = []
    cls_index = np.zeros(len(input_ids), dtype=np.int64)
    for w, ids in enumerate(input_ids):
        seq = encoded.sequence_ids(w)
        offsets = np.asarray(encoded["offset_mapping"][w], dtype=np.int64).reshape(-1, 2)
        # the context's tokens are one contiguous run: find it with C-speed list methods
        first = seq.index(context_id) if context_id in seq else len(seq)
        last = first + seq.count(context_id)
        offsets[:first] = -1
        offsets[last:] = -1
        offsets_out.append(offsets)
        if cls_id is not None and cls_id in ids:
            cls_index[w] = ids.index(cls_id)
    token_type_ids = encoded.get("token_type_ids")
    return Windows(
        input_ids=input_ids,
        token_type_ids=token_type_ids,
        example_index=np.asarray(encoded["overflow_to_sample_mapping"], dtype=np.int64),
        offsets=offsets_out,
        cls_index=cls_index,
    )


def length_sorted_batches(lengths: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """Window indices, longest first, cut into batches: little padding, and OOM shows up at once."""
    order = np.argsort(-lengths, kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def _resolve_device(requested: str) -> str:
    import torch

    base = requested.split(":")[0]
    if base == "auto":
        if torch.cuda.is_available():
            base = "cuda"
        elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            base = "mps"
        else:
            base = "cpu"
        requested = base
    if base == "cuda":
        if not torch.cuda.is_available():
            raise InputError(
                "device 'cuda' requested but no CUDA GPU is visible", hint="use device cpu or auto", setting="device"
            )
        if requested == "cuda" and distributed.is_distributed():
            return distributed.cuda_device_for_rank()
    if base == "mps" and not (getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()):
        raise InputError(
            "device 'mps' requested but Metal is not available", hint="use device cpu or auto", setting="device"
        )
    return requested


def _autocast_dtype(device: str, precision: str) -> Any:
    """None for fp32; bf16 on GPUs that support it, else fp16, when precision is 'auto'."""
    import torch

    base = device.split(":")[0]
    if precision == "fp32" or (precision == "auto" and base != "cuda"):
        return None
    if precision == "auto":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.bfloat16 if precision == "bf16" else torch.float16


def max_positions(model: Any, tokenizer: Any) -> int:
    config = model.config
    limit = getattr(config, "max_position_embeddings", None)
    limit = int(limit) - _POSITION_OFFSET.get(getattr(config, "model_type", ""), 0) if limit else 10**9
    tok_limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(tok_limit, int) and 0 < tok_limit < 10**6:
        limit = min(limit, tok_limit)
    return limit


class QAModelRunner:
    """Loads one QA model and answers lists of SQuAD questions with it."""

    def __init__(
        self, spec: ModelSpec, settings: InferenceSettings, *, loaded: tuple[Any, Any, str] | None = None
    ) -> None:
        """`loaded`: (model, tokenizer, fingerprint) already in memory (a model being trained, which
        `robustqa train --adversarial` attacks with its current weights) instead of loading `spec`."""
        import torch

        self.spec = spec
        self.requested_settings = settings
        # int8 kernels are CPU kernels: with device auto, int8 means CPU even where a GPU is present
        self.device = _resolve_device("cpu" if settings.int8 and settings.device == "auto" else settings.device)
        if settings.int8 and not self.device.startswith("cpu"):
            raise InputError(
                "int8 dynamic quantization runs on CPU only", hint="turn int8 off or use device cpu", setting="int8"
            )
        model, tokenizer, fingerprint = loaded if loaded is not None else load_model_and_tokenizer(spec)
        self.model_fingerprint: str = fingerprint
        # counted before int8 quantization, which turns Linear weights into packed buffers
        self.parameters: int = sum(p.numel() for p in model.parameters())
        self.timing = Timing()
        self.tokenizer = tokenizer
        max_len = min(settings.max_seq_length, max_positions(model, tokenizer))
        stride = min(settings.doc_stride, max_len // 2)
        # What actually runs (capped by the model): use these fields in signatures.
        self.settings = replace(settings, max_seq_length=max_len, doc_stride=stride)
        if settings.int8:
            model = self._quantize(model)
        self.model = model.to(self.device)
        self.model.eval()
        self._autocast = _autocast_dtype(self.device, settings.precision)
        resolved = {None: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[self._autocast]
        # What actually runs: "auto" resolved for this device, so signatures and cache keys name it.
        self.settings = replace(self.settings, precision=resolved)
        accepted = set(inspect.signature(self.model.forward).parameters)
        self._pass_token_types = "token_type_ids" in accepted
        pad = tokenizer.pad_token_id
        self._pad_id = int(pad) if pad is not None else 0
        self._pad_left = getattr(tokenizer, "padding_side", "right") == "left"
        self._torch = torch
        self.device_name = describe_device(self.device)

    @property
    def precision(self) -> str:
        """What the forward passes compute in: int8 (dynamic, fp32 activations), fp32, bf16 or fp16."""
        return "int8" if self.settings.int8 else self.settings.precision

    @staticmethod
    def _quantize(model: Any) -> Any:
        """int8 weights (per output channel) with activations quantized on the fly, for the Linear layers
        that widen or keep the width; the narrowing ones (the feed-forward down-projection, fed by GELU
        outputs with large outliers, and the QA head) stay fp32.

        Dynamic quantization scales activations per tensor over the whole batch, so outliers cost
        precision: quantizing every Linear layer costs F1 points, this selection stays close to fp32
        (benchmarks/eval_speed.py measures the int8 F1 against fp32)."""
        import torch
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        chosen = {
            name: per_channel_dynamic_qconfig
            for name, module in model.named_modules()
            if isinstance(module, torch.nn.Linear) and module.in_features <= module.out_features
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return quantize_dynamic(model, chosen, dtype=torch.qint8)

    # ------------------------------------------------------------------ forward

    def _forward(self, windows: Windows, batch: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Start/end logits (float32, unpadded) of one batch of windows."""
        torch = self._torch
        lengths = [len(windows.input_ids[w]) for w in batch]
        width = max(lengths)
        ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        token_types = windows.token_type_ids if self._pass_token_types else None
        types = np.zeros((len(batch), width), dtype=np.int64) if token_types is not None else None
        for row, (w, n) in enumerate(zip(batch, lengths)):
            cols = slice(width - n, width) if self._pad_left else slice(0, n)
            ids[row, cols] = windows.input_ids[w]
            mask[row, cols] = 1
            if types is not None and token_types is not None:
                types[row, cols] = token_types[w]
        inputs = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask)}
        if types is not None:
            inputs["token_type_ids"] = torch.from_numpy(types)
        inputs = {key: value.to(self.device) for key, value in inputs.items()}
        autocast = (
            torch.autocast(device_type=self.device.split(":")[0], dtype=self._autocast)
            if self._autocast is not None
            else contextlib.nullcontext()
        )
        with torch.inference_mode(), autocast:
            output = self.model(**inputs)
        start = output.start_logits.float().cpu().numpy()
        end = output.end_logits.float().cpu().numpy()
        starts, ends = [], []
        for row, n in enumerate(lengths):
            cols = slice(width - n, width) if self._pad_left else slice(0, n)
            starts.append(np.ascontiguousarray(start[row, cols]))
            ends.append(np.ascontiguousarray(end[row, cols]))
        return starts, ends

    def _run_batches(
        self, windows: Windows, batches: list[np.ndarray], on_progress: Callable[[int], None] | None
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Run the given batches; report questions as their last window is done (questions whose windows
        are split across processes are reported by the main process after the gather)."""
        remaining = np.bincount(windows.example_index).tolist()
        logits: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for batch in batches:
            starts, ends = self._forward(windows, batch)
            done = 0
            for w, s, e in zip(batch, starts, ends):
                logits[int(w)] = (s, e)
                example = int(windows.example_index[w])
                remaining[example] -= 1
                done += remaining[example] == 0
            if on_progress is not None and done:
                on_progress(done)
        return logits

    # ------------------------------------------------------------------ decoding

    def _decode(
        self, examples: Sequence[QAExample], windows: Windows, logits: dict[int, tuple[np.ndarray, np.ndarray]]
    ) -> dict[str, Prediction]:
        settings = self.settings
        by_example: dict[int, list[int]] = {}
        for w in range(len(windows)):
            by_example.setdefault(int(windows.example_index[w]), []).append(w)
        choices: dict[int, Any] = {}
        for chunk in _chunks(list(range(len(windows))), _DECODE_CHUNK):
            width = max(len(logits[w][0]) for w in chunk)
            start = np.full((len(chunk), width), -np.inf, dtype=np.float32)
            end = np.full((len(chunk), width), -np.inf, dtype=np.float32)
            mask = np.zeros((len(chunk), width), dtype=bool)
            for row, w in enumerate(chunk):
                s, e = logits[w]
                start[row, : len(s)] = s
                end[row, : len(e)] = e
                mask[row, : len(s)] = windows.offsets[w][:, 0] >= 0
            spans = best_spans(
                start,
                end,
                mask,
                windows.cls_index[chunk],
                n_best=settings.n_best,
                max_answer_length=settings.max_answer_length,
            )
            choices.update(zip(chunk, spans))
        predictions: dict[str, Prediction] = {}
        for index, example in enumerate(examples):
            ws = by_example.get(index, [])
            decoded = decode_question(
                [choices[w] for w in ws],
                [windows.offsets[w] for w in ws],
                example.context,
                null_threshold=settings.null_threshold,
            )
            predictions[example.id] = Prediction(example.id, decoded.text, decoded.null_odds, decoded.best_span)
        return predictions

    # ------------------------------------------------------------------ public

    def predict(
        self, examples: Sequence[QAExample], *, on_progress: Callable[[int], None] | None = None
    ) -> dict[str, Prediction]:
        """Answer every question. Under a launcher every process must call this with the same examples;
        the main process gets all predictions, the others an empty dict."""
        examples = list(examples)
        if not examples:
            return {}
        started = time.perf_counter()
        predictions = self._predict(examples, on_progress)
        self.timing.questions += len(examples)
        self.timing.predict_seconds += time.perf_counter() - started
        return predictions

    def _forward_all(
        self, windows: Windows, batches: list[np.ndarray], on_progress: Callable[[int], None] | None
    ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        started = time.perf_counter()
        logits = self._run_batches(windows, batches, on_progress)
        self.timing.forward_seconds += time.perf_counter() - started
        return logits

    def _predict(self, examples: list[QAExample], on_progress: Callable[[int], None] | None) -> dict[str, Prediction]:
        windows, logits = self.forward(examples, on_progress=on_progress)
        if logits is None:
            return {}
        return self._decode(examples, windows, logits)

    def forward(
        self, examples: Sequence[QAExample], *, on_progress: Callable[[int], None] | None = None
    ) -> tuple[Windows, dict[int, tuple[np.ndarray, np.ndarray]] | None]:
        """The windows of `examples` and their start/end logits (window index -> unpadded arrays), for
        callers that read more than the answer (the attack scores the clean answer's margin from them).

        Runs exactly as `predict` does (length-sorted batches, dealt to the processes under a launcher), so
        `decode` of the result gives `predict`'s answers. Under a launcher every process must call this with
        the same examples; the logits come back on the main process only (None on the others). Counts the
        windows, not the questions: `predict` counts those."""
        windows = build_windows(self.tokenizer, list(examples), self.settings.max_seq_length, self.settings.doc_stride)
        batches = length_sorted_batches(windows.lengths, self.settings.batch_size)
        world = distributed.world_size()
        if world <= 1:
            logits = self._forward_all(windows, batches, on_progress)
            self.timing.windows += len(windows)
            return windows, logits
        distributed.init_process_group(self.device)
        mine = batches[distributed.rank() :: world]
        started = time.perf_counter()
        local = self._run_batches(windows, mine, on_progress if distributed.is_main_process() else None)
        gathered = distributed.gather_objects(local)
        self.timing.forward_seconds += time.perf_counter() - started
        self.timing.windows += len(windows)
        if gathered is None:
            return windows, None
        merged: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for part in gathered:
            for w, pair in part.items():
                merged.setdefault(w, pair)  # a window computed twice counts once
        missing = len(windows) - len(merged)
        if missing:
            raise RuntimeError(f"{missing} windows were not computed by any process")
        if on_progress is not None:
            reported = _questions_complete_within(windows, mine)
            on_progress(len(examples) - reported)
        return windows, merged

    def decode(
        self, examples: Sequence[QAExample], windows: Windows, logits: dict[int, tuple[np.ndarray, np.ndarray]]
    ) -> dict[str, Prediction]:
        """The answers of `forward`'s result, decoded as `predict` decodes them."""
        return self._decode(examples, windows, logits)


def describe_device(device: str) -> str:
    """The hardware behind a torch device name, for cost figures: the GPU's name, or the CPU's model and the
    number of threads torch computes with (CPU speed depends on both)."""
    import torch

    base = device.split(":")[0]
    if base == "cuda":
        index = int(device.split(":")[1]) if ":" in device else torch.cuda.current_device()
        return torch.cuda.get_device_name(index)
    if base == "mps":
        return "Apple GPU (Metal)"
    return f"{_cpu_model()}, {torch.get_num_threads()} threads"


def _cpu_model() -> str:
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return " ".join(line.partition(":")[2].split())
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def _questions_complete_within(windows: Windows, batches: list[np.ndarray]) -> int:
    """How many questions have all their windows inside `batches` (what the main process already reported)."""
    total = np.bincount(windows.example_index)
    local = np.zeros_like(total)
    for batch in batches:
        np.add.at(local, windows.example_index[batch], 1)
    return int(np.sum((local == total) & (total > 0)))


def _chunks(items: list[int], size: int) -> Iterator[list[int]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
