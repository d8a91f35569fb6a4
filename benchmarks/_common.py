"""What the benchmarks share: how to start the `robustqa` command beside this Python."""

from __future__ import annotations

import sys
from pathlib import Path


def robustqa_command(script_only: bool = False) -> list[str]:
    """The console script next to this interpreter, else the same CLI through `python -c` (uninstalled
    checkouts). `script_only`: launchers such as torchrun need a script path, so exit when there is none."""
    script = Path(sys.executable).with_name("robustqa")
    if script.exists():
        return [str(script)]
    if script_only:
        sys.exit("the robustqa console script is not installed: pip install -e . --no-deps")
    return [sys.executable, "-c", "from robustqa.cli import main; main()"]
