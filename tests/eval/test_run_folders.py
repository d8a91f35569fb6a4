"""Where a run goes when no folder is given, and what a folder holding another run says.

The default folder names the article selection (`--articles`, `--exclude-articles`), so that runs on other
articles never meet in one folder, while the spelling of the model's path and of the list of titles does not
matter. A folder that holds another run is refused with every setting that differs named, not only the first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.evaluation.run import default_run_folder
from robustqa.runs.layout import selection_part

from rqa_evalfakes import FakeRunner, clean_document, perturbed_document, write_json


def test_the_selection_part_names_the_titles_not_their_spelling() -> None:
    assert selection_part(None, None) == ""
    steam = selection_part(["Steam"], None)
    assert steam.startswith("-1-article-") and len(steam) == len("-1-article-") + 6
    both = selection_part(["Steam", "Normans"], None)
    assert both.startswith("-2-articles-")
    assert selection_part(["Normans", "Steam", "Normans"], None) == both  # order and repeats do not matter
    assert selection_part(None, ["Steam"]).startswith("-without-1-article-")
    assert len({steam, both, selection_part(None, ["Steam"]), selection_part(["Steam"], ["Normans"])}) == 4
    assert selection_part(["Steam"], ["Normans"]) == steam + selection_part(None, ["Normans"])


def test_the_default_folder_reflects_the_articles_but_not_the_model_path_spelling(tmp_path: Path) -> None:
    model = tmp_path / "models" / "my-model"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}", encoding="utf-8")
    plain = default_run_folder([str(model)], "set")
    assert plain.name.startswith("my-model-") and plain.name.endswith("-set")  # no selection: as before
    chosen = default_run_folder([str(model)], "set", articles=["Steam", "Normans"])
    respelled = default_run_folder([f"{model.parent}/../models/my-model/"], "set", articles=["Normans", "Steam"])
    assert chosen == respelled and chosen.name.startswith(plain.name + "-2-articles-")
    excluded = default_run_folder([str(model)], "set", exclude_articles=["Steam", "Normans"])
    assert excluded.name.startswith(plain.name + "-without-2-articles-")
    assert len({plain, chosen, excluded, default_run_folder([str(model)], "set", articles=["Steam"])}) == 4


@pytest.fixture
def cli_setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A local model folder, the two files, the fake runner behind the CLI, and the folder as the working one."""
    from robustqa.evaluation import run as run_module

    model = tmp_path / "models" / "my-model"
    model.mkdir(parents=True)
    (model / "config.json").write_text("{}", encoding="utf-8")
    clean = write_json(tmp_path / "clean.json", clean_document())
    perturbed = write_json(tmp_path / "perturbed.json", perturbed_document())
    monkeypatch.setattr(run_module, "_default_runner_factory", lambda spec, settings: FakeRunner())
    monkeypatch.chdir(tmp_path)
    args = ["--clean", str(clean), "--perturbed", str(perturbed), "--quiet", "--bootstrap", "50", "--kinds", "all"]
    return model, args


def test_runs_on_other_articles_go_to_other_folders(cli_setup: tuple[Path, list[str]]) -> None:
    model, args = cli_setup
    runner = CliRunner()
    first = runner.invoke(cli, ["eval", "models/my-model", *args, "--articles", "Steam"])
    assert first.exit_code == 0, first.output
    # the same run, the model's path spelled otherwise: the same folder, resumed from its caches
    again = runner.invoke(cli, ["eval", f"{os.getcwd()}/models/../models/my-model/", *args, "--articles", "Steam"])
    assert again.exit_code == 0 and "0 predicted" in again.output, again.output
    everything = runner.invoke(cli, ["eval", "models/my-model", *args])  # every article: no collision, no refusal
    assert everything.exit_code == 0, everything.output
    without = runner.invoke(cli, ["eval", "models/my-model", *args, "--exclude-articles", "Normans"])
    assert without.exit_code == 0, without.output
    names = sorted(folder.name for folder in Path("runs").iterdir())
    assert len(names) == 3, names
    tails = [name.split("-perturbed")[1] for name in names]
    assert tails[0] == "" and tails[1].startswith("-1-article-") and tails[2].startswith("-without-1-article-")
    for name in names:
        assert f"wrote runs/{name}/report.json" in "".join((first.output, everything.output, without.output))


def test_a_refusal_names_every_setting_that_differs(cli_setup: tuple[Path, list[str]]) -> None:
    _, args = cli_setup
    runner = CliRunner()
    folder = ["--output-dir", "runs/mine"]
    first = runner.invoke(cli, ["eval", "models/my-model", *args, *folder, "--articles", "Steam"])
    assert first.exit_code == 0, first.output
    changed = [a if a != "50" else "60" for a in args]  # bootstrap 50 -> 60
    other = runner.invoke(cli, ["eval", "models/my-model", *changed, *folder, "--limit", "3", "--seed", "14"])
    assert other.exit_code == 5, other.output
    message = " ".join(other.output.split())
    for difference in ("articles Steam -> -", "limit - -> 3", "bootstrap 50 -> 60", "seed 13 -> 14"):
        assert difference in message, message  # four settings: every one is named (none left as "and 1 more")
    assert "more)" not in message and "--overwrite" in message and "Traceback" not in message
    # a selection of articles alone differs too (it was left out when the new run named none)
    alone = runner.invoke(cli, ["eval", "models/my-model", *args, *folder])
    assert alone.exit_code == 5 and "holds a different run (articles Steam -> -)" in " ".join(alone.output.split())
