"""Writing an attack folder: adversarial.json, the success-versus-budget chart, and attack.json last.

Every file goes through the atomic writer and a stale attack.json is removed first, so a folder with an
attack.json is complete; the query cache (cache/) stays for the next run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from robustqa.attack.adversarial import adversarial_document
from robustqa.attack.driver import AttackRun
from robustqa.attack.summary import attack_record
from robustqa.outputs import preparing_folder, write_bytes_atomic, write_json_atomic
from robustqa.reporting.charts import budget_figure, png_bytes, short_model
from robustqa.squad import write_squad

ADVERSARIAL_JSON = "adversarial.json"
ATTACK_JSON = "attack.json"
CURVE_PNG = "success_vs_budget.png"


def write_attack(run: AttackRun) -> dict[str, Any]:
    """Write the folder; return attack.json as written."""
    output = Path(run.config.output_dir)
    with preparing_folder(output, "attack"):
        output.mkdir(parents=True, exist_ok=True)
        (output / ATTACK_JSON).unlink(missing_ok=True)
    record = attack_record(run)
    write_squad(adversarial_document(run), output / ADVERSARIAL_JSON)
    label = f"{short_model(run.spec.name)}, {run.spaces.ident}"
    write_bytes_atomic(
        output / CURVE_PNG,
        png_bytes(budget_figure([{"label": label, "attempted": record["attempted"], "curve": record["curve"]}])),
    )
    record["files"] = {"adversarial": ADVERSARIAL_JSON, "chart": CURVE_PNG}
    write_json_atomic(output / ATTACK_JSON, record)
    return record
