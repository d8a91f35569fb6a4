"""One process, no launcher: nothing distributed happens."""

from __future__ import annotations

import pytest

from robustqa.evaluation import distributed


def test_single_process_is_main_and_never_initialises(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    assert distributed.world_size() == 1 and distributed.rank() == 0 and distributed.is_main_process()
    payload = {"todo": [1, 2]}
    assert distributed.broadcast_object(payload) is payload
    assert distributed.gather_objects(payload) == [payload]
    distributed.barrier()
    import torch.distributed as dist

    assert not dist.is_initialized()


def test_launcher_environment_is_read_before_the_group_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert distributed.world_size() == 4 and distributed.rank() == 3 and not distributed.is_main_process()
    assert distributed.cuda_device_for_rank() == "cuda:1"
