"""Running under `torchrun` / `accelerate launch`: who am I, and how do processes talk.

The launcher's environment (WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR/PORT) is the only signal: with
no launcher, or WORLD_SIZE=1, everything here is a no-op and torch.distributed is never initialised, so
a plain `robustqa eval` behaves exactly as before. `torchrun` and `accelerate launch --multi_gpu` (which
runs torchrun, and starts N gloo processes even on a machine without GPUs) set those variables;
`accelerate launch --cpu` with several processes starts them through `mpirun` instead, which names them
differently (PMI_*, OMPI_COMM_WORLD_*, MV2_COMM_WORLD_*), so those are read as fallbacks, in the same
order as accelerate reads them. Under a launcher the process group is formed lazily,
the first time processes need to talk, with NCCL when the process drives a CUDA device and gloo
otherwise (on CPU a plain `accelerate.PartialState()` would see a single process; forming the group from
the launcher's variables ourselves works for both launchers).

Only the main process (rank 0) writes files; decisions such as "resume from this cache" are taken on
the main process and broadcast, so every rank runs the same work.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from typing import Any, TypeVar

T = TypeVar("T")


_WORLD_SIZE_VARS = ("WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE")
_RANK_VARS = ("RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK")
_LOCAL_RANK_VARS = ("LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK")


def _env_int(names: tuple[str, ...], default: int) -> int:
    """The first of `names` that is set to an integer (torchrun's name first, then MPI's)."""
    for name in names:
        try:
            return int(os.environ[name])
        except (KeyError, ValueError):
            continue
    return default


def _initialized() -> bool:
    dist = sys.modules.get("torch.distributed")
    return bool(dist is not None and dist.is_available() and dist.is_initialized())


def world_size() -> int:
    """Number of processes in this run (1 without a launcher)."""
    if _initialized():
        import torch.distributed as dist

        return int(dist.get_world_size())
    return max(1, _env_int(_WORLD_SIZE_VARS, 1))


def rank() -> int:
    """Global rank of this process (0 without a launcher)."""
    if _initialized():
        import torch.distributed as dist

        return int(dist.get_rank())
    return _env_int(_RANK_VARS, 0)


def local_rank() -> int:
    return _env_int(_LOCAL_RANK_VARS, 0)


def is_distributed() -> bool:
    return world_size() > 1


def is_main_process() -> bool:
    """True on the one process that writes files and prints reports."""
    return rank() == 0


def cuda_device_for_rank() -> str:
    """The CUDA device this process should drive: one GPU per local rank."""
    return f"cuda:{local_rank()}"


def init_process_group(device: str | None = None) -> None:
    """Form the process group from the launcher's environment; idempotent; no-op for one process.

    `device` is the torch device this process computes on ("cpu", "cuda", "cuda:1"); CUDA devices use
    NCCL, everything else gloo. Without it, CUDA is used when available.
    """
    if world_size() <= 1 or _initialized():
        return
    import torch
    import torch.distributed as dist

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    use_cuda = device.startswith("cuda") and torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(local_rank() if device == "cuda" else torch.device(device))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    dist.init_process_group(
        backend="nccl" if use_cuda else "gloo",
        init_method="env://",
        world_size=world_size(),
        rank=rank(),
        timeout=timedelta(minutes=30),
    )


def broadcast_object(obj: T) -> T:
    """The main process's value of `obj`, on every process (picklable objects)."""
    if world_size() <= 1:
        return obj
    init_process_group()
    import torch.distributed as dist

    holder = [obj]
    dist.broadcast_object_list(holder, src=0)
    return holder[0]


def gather_objects(obj: Any) -> list[Any] | None:
    """Every process's `obj`, in rank order, on the main process; None on the others."""
    if world_size() <= 1:
        return [obj]
    init_process_group()
    import torch.distributed as dist

    gathered: list[Any] = [None] * world_size()
    dist.all_gather_object(gathered, obj)
    return gathered if is_main_process() else None


def barrier() -> None:
    """Wait for every process (no-op for one process)."""
    if world_size() <= 1:
        return
    init_process_group()
    import torch.distributed as dist

    dist.barrier()


def destroy_process_group() -> None:
    """Tear the group down at the end of a run, so launchers exit cleanly."""
    if _initialized():
        import torch.distributed as dist

        dist.destroy_process_group()
