"""The transformations on their own: what `candidates` proposes for one word, with no engine or constraint.

The engine supplies `synonyms` (a sense's synonyms that the recipe's lexical constraints accept); here it is
every other lemma of the sense, so the tests see the transformation's own ranking, confidence and reasons.
"""

from __future__ import annotations

from perturbations.lexicon import sense_names, synset_lemmas
from perturbations.transformation import SenseSynonyms, VettedSynonyms, Word, WordNetSynonyms
from perturbations.wsd import bag


def _every_other_lemma(lemma: str) -> SenseSynonyms:
    def synonyms(sense: str) -> tuple[tuple[str, str, bool], ...]:
        return tuple((name, name.replace("_", " ").lower(), False) for name, _ in synset_lemmas(sense) if name != lemma)

    return synonyms


def _word(low: str, tag: str, lemma: str, pos: str, question: str) -> Word:
    return Word(low, tag, lemma, pos, sense_names(lemma, pos), bag(question.split()), None)


def test_wordnet_synonyms_come_from_the_one_sense_wsd_picks_ranked_by_count() -> None:
    word = _word("largest", "JJS", "large", "a", "What is the largest city of the region ?")
    proposed = WordNetSynonyms(threshold=0.0).candidates(word, _every_other_lemma("large"))
    assert isinstance(proposed, list) and proposed
    assert len({c.synset for c in proposed}) == 1  # one sense
    sense = proposed[0].synset
    offered = [name for name, _ in synset_lemmas(sense) if name != "large"]
    assert [c.name for c in proposed] == offered  # the synset's cntlist order
    assert all(c.senses == proposed[0].senses and c.confidence is not None for c in proposed)
    assert {name for name, _ in proposed[0].senses} == {name for name, _ in sense_names("large", "a")}


def test_wordnet_synonyms_name_why_a_word_gets_none() -> None:
    word = _word("largest", "JJS", "large", "a", "What is the largest city of the region ?")
    asked: list[str] = []

    def nothing(sense: str) -> tuple[tuple[str, str, bool], ...]:
        asked.append(sense)
        return ()

    assert WordNetSynonyms().candidates(word, nothing) == "no-candidate"
    assert asked == [name for name, _ in word.senses]  # every sense was asked before WSD could run
    # no candidate is a sure synonym of an ambiguous word at threshold 1
    assert WordNetSynonyms(threshold=1.0).candidates(word, _every_other_lemma("large")) == "low-confidence"


def test_vetted_synonyms_offer_only_the_table_s_pairs_from_any_sense() -> None:
    word = _word("achieve", "VB", "achieve", "v", "How did they achieve the result ?")
    proposed = VettedSynonyms().candidates(word, _every_other_lemma("achieve"))
    assert isinstance(proposed, list)
    assert [c.name for c in proposed] == ["attain"]  # vetted-1 lists achieve.v -> attain
    unlisted = _word("city", "NN", "city", "n", "What is the largest city ?")  # "metropolis" is not vetted
    assert VettedSynonyms().candidates(unlisted, _every_other_lemma("city")) == "not-vetted"


def test_any_synonyms_proposes_every_sense_where_the_vetted_table_proposes_its_pairs() -> None:
    """The issue's example (the tagger reads "build" there as a noun): the wide space offers company ->
    fellowship, build -> physique, factory -> mill; the vetted table none of them (it lists no such word)."""
    from perturbations.transformation import AnySynonyms

    question = "What kind of vehicle did the company build in the large factory ?"
    cases = [("company", "NN", "company", "n", "fellowship"), ("build", "NN", "build", "n", "physique")]
    cases.append(("factory", "NN", "factory", "n", "mill"))
    for low, tag, lemma, pos, expected in cases:
        word = _word(low, tag, lemma, pos, question)
        wide = AnySynonyms().candidates(word, _every_other_lemma(lemma))
        assert isinstance(wide, list) and expected in {c.form for c in wide}, (low, wide)
        assert VettedSynonyms().candidates(word, _every_other_lemma(lemma)) == "not-vetted"
