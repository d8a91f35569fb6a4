"""The transformations on their own: what the WordNet family proposes for one word, with no engine or
constraint.

`candidates` reads a sense's synonyms through the recipe's lexical constraints; `from_senses` takes them as an
argument, here every other lemma of the sense, so the tests see the transformation's own ranking, confidence
and reasons.
"""

from __future__ import annotations

from perturbations.lexicon import sense_names, synset_lemmas
from perturbations.synonyms import AnySynonyms, Senses, SenseSynonyms, VettedSynonyms, WordNetSynonyms
from perturbations.transformation import Word
from perturbations.wsd import bag


def _every_other_lemma(lemma: str) -> SenseSynonyms:
    def synonyms(sense: str) -> tuple[tuple[str, str, bool], ...]:
        return tuple((name, name.replace("_", " ").lower(), False) for name, _ in synset_lemmas(sense) if name != lemma)

    return synonyms


def _word(low: str, tag: str, lemma: str, pos: str, question: str) -> Word:
    return Word(low, tag, lemma, pos, bag(question.split()), None)


def _senses(word: Word) -> Senses:
    return sense_names(word.lemma, word.pos)


def test_wordnet_synonyms_come_from_the_one_sense_wsd_picks_ranked_by_count() -> None:
    word = _word("largest", "JJS", "large", "a", "What is the largest city of the region ?")
    proposed = WordNetSynonyms(threshold=0.0).from_senses(word, _senses(word), _every_other_lemma("large"))
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

    assert WordNetSynonyms().from_senses(word, _senses(word), nothing) == "no-candidate"
    assert asked == [name for name, _ in _senses(word)]  # every sense was asked before WSD could run
    # no candidate is a sure synonym of an ambiguous word at threshold 1
    assert (
        WordNetSynonyms(threshold=1.0).from_senses(word, _senses(word), _every_other_lemma("large")) == "low-confidence"
    )


def test_vetted_synonyms_offer_only_the_table_s_pairs_from_any_sense() -> None:
    word = _word("achieve", "VB", "achieve", "v", "How did they achieve the result ?")
    proposed = VettedSynonyms().from_senses(word, _senses(word), _every_other_lemma("achieve"))
    assert isinstance(proposed, list)
    assert [c.name for c in proposed] == ["attain"]  # vetted-1 lists achieve.v -> attain
    unlisted = _word("city", "NN", "city", "n", "What is the largest city ?")  # "metropolis" is not vetted
    assert VettedSynonyms().from_senses(unlisted, _senses(unlisted), _every_other_lemma("city")) == "not-vetted"


def test_any_synonyms_proposes_every_sense_where_the_vetted_table_proposes_its_pairs() -> None:
    """The issue's example (the tagger reads "build" there as a noun): the wide space offers company ->
    fellowship, build -> physique, factory -> mill; the vetted table none of them (it lists no such word)."""
    question = "What kind of vehicle did the company build in the large factory ?"
    cases = [("company", "NN", "company", "n", "fellowship"), ("build", "NN", "build", "n", "physique")]
    cases.append(("factory", "NN", "factory", "n", "mill"))
    for low, tag, lemma, pos, expected in cases:
        word = _word(low, tag, lemma, pos, question)
        wide = AnySynonyms().from_senses(word, _senses(word), _every_other_lemma(lemma))
        assert isinstance(wide, list) and expected in {c.form for c in wide}, (low, wide)
        assert VettedSynonyms().from_senses(word, _senses(word), _every_other_lemma(lemma)) == "not-vetted"


def test_the_wordnet_family_says_what_a_word_is_and_reads_it_back_from_a_record() -> None:
    """The four things the engine asks a transformation beyond `from_senses`: `lexeme`, `candidates` (with the
    recipe's lexical rules), `name_in` (an earlier record read back) and `carry`, and `reading` (WSD's words)."""
    from perturbations import get_recipe
    from perturbations.records import Token

    synonyms = WordNetSynonyms()
    assert synonyms.lexeme("cities", "NNS") == ("city", "n")
    assert synonyms.lexeme("the", "DT") == "no-sense"  # no WordNet part of speech
    assert synonyms.lexeme("qwzx", "NN") == "no-sense"  # no WordNet lemma
    recipe = get_recipe("qads@1.1")
    recipe.plan.register()  # as the engine does before it asks
    word = _word("cities", "NNS", "city", "n", "What are the largest cities ?")
    proposed = synonyms.candidates(word, recipe.plan.lexical_key)
    assert isinstance(proposed, list) and all(c.form and c.synset.startswith("city.n.") for c in proposed)
    assert synonyms.name_in("city.n.01", "NNS", "metropolises") == "metropolis"
    assert synonyms.name_in("city.n.01", "NNS", "towns") is None
    carried = synonyms.carry(word, "metropolis", "city.n.01", 0.9)
    assert (carried.form, carried.inflected, carried.confidence, carried.senses) == ("metropolises", True, 0.9, ())
    tokens = (Token("Which", 0, 5, "WDT"), Token("cities", 6, 12, "NNS"))
    assert synonyms.reading(tokens, "A paragraph about towns.") == {"city", "paragraph", "town"}
    assert WordNetSynonyms(use_context=False).reading(tokens, "A paragraph about towns.") == synonyms.reading(
        tokens, None
    )
