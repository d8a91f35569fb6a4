"""One `--adversarial` training run under `torchrun` whose attack asks the attack tests' fake model: the
tiny random models answer nothing right, so nothing they are asked could flip.

Usage: `torchrun ... rqa_torchrun_adversarial.py MODEL DATA OUT` (every process runs it; the trained folder is
written by the main one, which also prints the epochs' additions as one JSON line)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "attack"))

from rqa_attackfakes import FakeQA


def main(model: str, data: str, out: str) -> None:
    import torch

    from robustqa.evaluation import distributed
    from robustqa.evaluation.models import resolve_model
    from robustqa.squad import load_squad
    from robustqa.training.adversarial import AdversarialSettings
    from robustqa.training.run import TrainData, TrainSettings, train

    torch.set_num_threads(1)
    settings = TrainSettings(
        max_seq_length=64, doc_stride=16, epochs=2, batch_size=4, save_steps=1, device="cpu", progress=False,
        adversarial=AdversarialSettings(sample=4, budget=20, recipe="qads@1.1"),
    )  # fmt: skip
    try:
        done = train(
            resolve_model(model), TrainData(load_squad(data), "fake"), out, settings, attack_scorer=lambda m: FakeQA()
        )
    finally:
        distributed.destroy_process_group()
    if done.main_process:
        epochs = [a.summary() for a in done.adversarial]
        print(json.dumps({"steps": done.steps, "resumed_from": done.resumed_from, "epochs": epochs}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # as the robustqa command ends: no interpreter teardown, where gloo's threads can abort it
