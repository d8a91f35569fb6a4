"""What the build benchmarks share: how to start the `robustqa` command beside this Python."""

from __future__ import annotations

import sys
from pathlib import Path


def robustqa_command() -> list[str]:
    """The console script next to this interpreter, else the same CLI through `python -c` (uninstalled checkouts)."""
    script = Path(sys.executable).with_name("robustqa")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from robustqa.cli import main; main()"]
