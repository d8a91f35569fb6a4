"""Whether a run may go into a folder: a folder that holds a different run is never overwritten silently.

A finished run folder records its signature in report.json. A new run into the same folder resumes from
its caches when it is the same run (same data, models, settings); anything else would replace the report
and predictions of another measurement, so it is refused unless overwriting is asked for.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

from robustqa.errors import OutputError
from robustqa.runs.layout import REPORT_JSON
from robustqa.signature import Signature

# Known only once a model has loaded (its fingerprint), or not about the measurement at all.
_LATE_KEYS = ("robustqa",)


def _comparable(signature: Signature, unknown: Collection[str] | None) -> dict[str, str]:
    """The signature's fields but those in `unknown` (before the models have run: the keys not known yet; then
    model fingerprints are left out too, `id@fingerprint` -> `id`, as they are known only once a model has loaded)."""
    fields = {key: value for key, value in signature.items if key not in _LATE_KEYS and key not in (unknown or ())}
    if unknown is not None and "models" in fields:
        fields["models"] = ",".join(item.rpartition("@")[0] or item for item in fields["models"].split(","))
    return fields


def _shown(value: str | None, width: int = 60) -> str:
    """A signature value in the refusal: "-" when the run has none, a long one (a list of titles) cut short."""
    if value is None:
        return "-"
    return value if len(value) <= width else value[: width - 1] + "…"


def recorded_signature(folder: Path) -> Signature | None:
    """The signature of the finished run in `folder`; None when there is none (new or unfinished folder)."""
    try:
        report = json.loads((Path(folder) / REPORT_JSON).read_text(encoding="utf-8"))
        return Signature.parse(str(report["signature"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_reuse(folder: Path, planned: Signature, *, overwrite: bool, unknown: Collection[str] | None = None) -> None:
    """Raise OutputError when `folder` holds a finished run whose signature differs from `planned`: before the
    models have run, in every field but the `unknown` ones; before the new run is written (`unknown` None), in
    every field. The error names every field that differs, with both values; a field that only one of the two
    runs records (`articles`, `limit`) differs too."""
    if overwrite:
        return
    recorded = recorded_signature(folder)
    if recorded is None:
        return
    old, new = _comparable(recorded, unknown), _comparable(planned, unknown)
    differ = [key for key in dict.fromkeys([*old, *new]) if old.get(key) != new.get(key)]
    if not differ:
        return
    shown = "; ".join(f"{key} {_shown(old.get(key))} -> {_shown(new.get(key))}" for key in differ)
    raise OutputError(
        f"holds a different run ({shown})",
        path=str(folder),
        hint="choose another folder, or overwrite it",
        setting="overwrite",
    )
