"""What the benchmarks share: how to start the `robustqa` command beside this Python, and how a script's
printed results become its section of docs/benchmarks.md (so the figures there are never edited by hand)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROBUSTQA_SHARED", REPO.parent / "shared"))
DOC = REPO / "docs" / "benchmarks.md"
# every benchmark runs from a checkout beside shared/: its packages and the NLTK data there, nothing installed
sys.path.insert(0, str(REPO))
os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))


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
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
        # this document itself does not count: the scripts run before this one rewrote it
        exclude = [f":!{DOC.relative_to(REPO)}"] if DOC.is_relative_to(REPO) else []
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", *exclude], cwd=REPO, capture_output=True, text=True, check=True
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
            f"`{portable(command)}` on {time.strftime('%Y-%m-%d')} ({version}); {os.cpu_count()} CPUs, 1-minute load average "
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
    write_section(script, tee.copy.getvalue(), argv=sys.argv[1:], load_before=load_before, seconds=time.perf_counter() - started)


def spread(values: list[float]) -> str:
    """Median seconds of repeated runs, with their range: the figure every speed section quotes."""
    return f"median {statistics.median(values):6.1f} s  (min {min(values):.1f}, max {max(values):.1f}, n={len(values)})"


def padded_batches(windows, batch_size: int) -> list[dict]:
    """Pre-padded, length-sorted tensors of tokenized windows (`robustqa.inference.build_windows`): the bare
    forward pass the speed benchmarks compare robustqa with times nothing but the model on these."""
    import torch

    from robustqa.inference import length_sorted_batches

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
