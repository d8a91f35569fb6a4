"""A learned judge of one-word synonym edits: the probability that two reviewers would both say an edited
question keeps its meaning and neither would call it ungrammatical.

Why learned: hand-written gates either keep few edits (the vetted table) or let many wrong senses through
(the wide recipes); the certification review (`studies/certified-1/`) judged 32,337 candidate edits of
5,823 questions twice, which is enough to learn which edits keep a question's meaning. The judge reads
what an edit record and the question give, nothing from a model: how often reviewers accepted the
same pair elsewhere (smoothed counts, shipped with the weights), WordNet facts (which senses the two words
share, how common each sense is for each word, the sense's lexicographer file), word frequencies, the
word's tag and where it stands. A small gradient-boosted tree ensemble scores those features and an
isotonic map turns the score into a probability measured on articles the trees were not fitted on, so a
threshold on it is a precision. Inference is numpy alone; `tools/train_judge.py` makes the weights file.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from perturbations.errors import PerturbationError
from perturbations.frequency import zipf
from perturbations.lexicon import lemma_of, sense_names, synset, synset_lemmas, wn_pos
from perturbations.records import Token
from perturbations.synonyms import synset_forms

JUDGE_FILE = Path(__file__).with_name("data") / "judge-1.json"

# the lexicographer files WordNet 3.0 sorts synsets into (one feature each for the shared sense's file)
LEXNAMES = (
    "adj.all adj.pert adj.ppl adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive "
    "noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity "
    "noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change verb.cognition "
    "verb.communication verb.competition verb.consumption verb.contact verb.creation verb.emotion "
    "verb.motion verb.perception verb.possession verb.social verb.stative verb.weather"
).split()

PAIR_PRIOR = 4.0  # pseudo-judgments pulling a pair's acceptance rate towards the overall rate


class JudgeError(PerturbationError):
    """The judge's weights file is missing or not a judge this code can read."""


@dataclass(frozen=True)
class Edit:
    """One one-word edit of a text, as the judge sees it: the tagged original text, the edited word's index
    and what is written in its place."""

    tokens: tuple[Token, ...]
    index: int
    replacement: str
    senses: tuple[tuple[str, float], ...] = ()  # the engine's word-sense distribution of the word in context


def pair_keys(word: str, tag: str, replacement: str) -> tuple[str, str, str, str]:
    """(the pair of lemmas, the written pair, the replacement's lemma, the word's lemma) as the pair tables
    key them: lower case, a lemma where WordNet has one for the word's part of speech."""
    pos = wn_pos(tag) or "n"
    low, new = word.lower(), replacement.lower()
    lemma = lemma_of(low, pos) or low
    name = lemma_of(new.replace(" ", "_"), pos) or new.replace(" ", "_")
    return f"{lemma}>{name}", f"{low}>{new}", name, lemma


@lru_cache(maxsize=100_000)
def _wordnet_facts(lemma: str, name: str, pos: str) -> tuple[float, ...]:
    """What WordNet says of the two lemmas in one part of speech (see FEATURES for the order)."""
    mine = sense_names(lemma, pos)
    theirs = sense_names(name, pos)
    their_synsets = {s: (rank, count) for rank, (s, count) in enumerate(theirs)}
    shared = [(rank, s, count) for rank, (s, count) in enumerate(mine) if s in their_synsets]
    my_total = sum(c for _, c in mine)
    their_total = sum(c for _, c in theirs)
    lexname = [0.0] * len(LEXNAMES)
    if not shared:
        return (
            1.0,
            math.log1p(len(mine)),
            math.log1p(len(theirs)),
            0.0,
            10.0,
            10.0,
            0.0,
            0.0,
            0.0,
            0.0,
            math.log1p(my_total),
            math.log1p(their_total),
            0.0,
            0.0,
            0.0,
            0.0,
            *lexname,
        )
    rank, best, my_count = shared[0]
    their_rank, their_count = their_synsets[best]
    members = synset_lemmas(best)
    members_total = sum(c for _, c in members)
    my_shared = sum(c for _, _, c in shared)
    their_shared = sum(their_synsets[s][1] for _, s, _ in shared)
    name_of = synset(best).lexname()
    if name_of in LEXNAMES:
        lexname[LEXNAMES.index(name_of)] = 1.0
    return (
        0.0,
        math.log1p(len(mine)),
        math.log1p(len(theirs)),
        float(len(shared)),
        float(min(rank, 10)),
        float(min(their_rank, 10)),
        math.log1p(my_count),
        math.log1p(their_count),
        (my_shared + 0.5) / (my_total + 1.0),
        (their_shared + 0.5) / (their_total + 1.0),
        math.log1p(my_total),
        math.log1p(their_total),
        float(len(members)),
        (their_count + 0.5) / (members_total + 1.0),
        float(members[0][0].lower() == name),
        float(members[0][0].lower() == lemma),
        *lexname,
    )


_WORDNET_NAMES = (
    "no_shared_sense",
    "log_senses_word",
    "log_senses_replacement",
    "shared_senses",
    "shared_rank_word",
    "shared_rank_replacement",
    "log_count_word_in_sense",
    "log_count_replacement_in_sense",
    "share_word_count_shared",
    "share_replacement_count_shared",
    "log_count_word",
    "log_count_replacement",
    "sense_lemmas",
    "replacement_share_of_sense",
    "replacement_heads_sense",
    "word_heads_sense",
    *(f"lexname_{n}" for n in LEXNAMES),
)

_WSD_NAMES = (
    "wsd_synonym_mass",
    "wsd_top_probability",
    "wsd_best_sense_with_replacement",
    "wsd_top_sense_has_replacement",
    "wsd_entropy",
    "wsd_missing",
)

_TAG_NAMES = ("pos_n", "pos_v", "pos_a", "pos_r", "tag_NNS", "tag_NNP", "tag_VBD_VBN", "tag_VBG", "tag_VBZ_VBP")
_PAIR_NAMES = tuple(
    f"{table}_{what}" for table in ("pair", "form", "to", "from") for what in ("log_n", "rate", "unseen")
)
_TEXT_NAMES = (
    "zipf_word",
    "zipf_replacement",
    "zipf_drop",
    "replacement_words",
    "replacement_hyphen",
    "length_ratio",
    "spelling_similarity",
    "same_start",
    "relative_position",
    "first_word",
    "question_words",
    "word_repeats",
    "after_determiner",
    "after_preposition",
    "before_noun",
    "capitalised",
)
FEATURES = (*_TAG_NAMES, *_TEXT_NAMES, *_WORDNET_NAMES, *_WSD_NAMES, *_PAIR_NAMES)

PairCounts = dict[str, tuple[int, int]]  # key -> (judged, accepted)


def features(edit: Edit, tables: Sequence[PairCounts], base_rate: float) -> list[float]:
    """The judge's features of one edit, in the order of FEATURES. `tables` are the pair, written-pair,
    replacement and word tables (counts of judged and accepted edits), `base_rate` the overall acceptance."""
    token = edit.tokens[edit.index]
    return edit_features(edit) + pair_features(pair_keys(token.text, token.tag, edit.replacement), tables, base_rate)


def edit_features(edit: Edit) -> list[float]:
    """The features that do not depend on the pair tables (tag, text, frequency, WordNet)."""
    token = edit.tokens[edit.index]
    tag = token.tag
    pos = wn_pos(tag) or "n"
    word, new = token.text, edit.replacement
    _, _, name, lemma = pair_keys(word, tag, new)
    out: list[float] = [float(pos == p) for p in "nvar"]
    out += [
        float(tag == "NNS"),
        float(tag.startswith("NNP")),
        float(tag in ("VBD", "VBN")),
        float(tag == "VBG"),
        float(tag in ("VBZ", "VBP")),
    ]
    z_word, z_new = zipf(word.lower()), zipf(new.lower())
    words = [t.text.lower() for t in edit.tokens]
    before = edit.tokens[edit.index - 1].tag if edit.index > 0 else ""
    after = edit.tokens[edit.index + 1].tag if edit.index + 1 < len(edit.tokens) else ""
    out += [
        z_word,
        z_new,
        z_word - z_new,
        float(len(new.split())),
        float("-" in new),
        len(new) / max(len(word), 1),
        difflib.SequenceMatcher(None, word.lower(), new.lower()).ratio(),
        float(word[:4].lower() == new[:4].lower()),
        edit.index / max(len(edit.tokens) - 1, 1),
        float(edit.index == 0),
        float(sum(any(c.isalnum() for c in w) for w in words)),
        float(words.count(word.lower()) > 1),
        float(before in ("DT", "PRP$", "WDT", "POS")),
        float(before in ("IN", "TO")),
        float(after.startswith("NN")),
        float(word[:1].isupper() and edit.index > 0),
    ]
    out += _wordnet_facts(lemma, name, pos)
    out += _sense_fit(edit.senses, new.lower(), tag)
    return out


def _sense_fit(senses: Sequence[tuple[str, float]], form: str, tag: str) -> list[float]:
    """How well the word's senses in context fit the replacement (see FEATURES: `wsd_*`)."""
    if not senses:
        return [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    having = [p for name, p in senses if form in synset_forms(name, tag)]
    top = max(p for _, p in senses)
    entropy = -sum(p * math.log(p) for _, p in senses if p > 0)
    best_has = max(senses, key=lambda s: s[1])[0]
    return [
        min(1.0, sum(having)),
        top,
        max(having, default=0.0),
        float(form in synset_forms(best_has, tag)),
        entropy,
        0.0,
    ]


def pair_features(keys: Sequence[str], tables: Sequence[PairCounts], base_rate: float) -> list[float]:
    """How often reviewers accepted the same pair, written pair, replacement and word (see `pair_keys`)."""
    out: list[float] = []
    for table, key in zip(tables, keys):
        judged, accepted = table.get(key, (0, 0))
        out += [
            math.log1p(judged),
            (accepted + PAIR_PRIOR * base_rate) / (judged + PAIR_PRIOR),
            float(judged == 0),
        ]
    return out


def predict_trees(trees: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The summed leaf values of the tree ensemble for each row of `x` (trees as flat arrays: per node its
    feature, threshold, left and right child; a leaf has feature -1 and its value in `value`). Every tree
    descends one level per step, all rows and trees at once: as many numpy steps as the trees are deep."""
    feature, threshold, left, right, value = (
        trees["feature"],
        trees["threshold"],
        trees["left"],
        trees["right"],
        trees["value"],
    )
    node = np.broadcast_to(trees["roots"], (len(x), len(trees["roots"]))).copy()
    rows = np.arange(len(x))[:, None]
    while True:
        f = feature[node]
        inner = f >= 0
        if not inner.any():
            break
        go_left = x[rows, np.where(inner, f, 0)] <= threshold[node]
        node = np.where(inner, np.where(go_left, left[node], right[node]), node)
    return float(trees["base"][0]) + value[node].sum(axis=1)


@dataclass(frozen=True)
class Judge:
    """A trained judge: the tree ensemble, the isotonic calibration and the pair tables it was trained with.

    `identity` is the weights file's hash (and the training data's hash, inside it): the signature of a
    recipe that uses the judge names it, so two builds agree on a score exactly when they name one judge."""

    trees: dict[str, np.ndarray]
    calibration_x: np.ndarray
    calibration_y: np.ndarray
    tables: tuple[PairCounts, PairCounts, PairCounts, PairCounts]
    base_rate: float
    identity: str
    data_hash: str

    def probability(self, edits: Sequence[Edit]) -> np.ndarray:
        """The calibrated probability that each edit keeps the meaning and reads acceptably."""
        if not edits:
            return np.zeros(0)
        x = np.array([features(e, self.tables, self.base_rate) for e in edits], dtype=np.float64)
        return np.interp(predict_trees(self.trees, x), self.calibration_x, self.calibration_y)


def judge_from_dict(data: dict[str, Any], identity: str) -> Judge:
    """A Judge from the weights file's parsed JSON."""
    if data.get("format") != "robustqa-judge-1" or tuple(data.get("features", ())) != FEATURES:
        raise JudgeError("the judge's weights file is not a judge-1 file with this code's features")
    trees = _tree_arrays(data["trees"])
    tables = tuple({k: (int(v[0]), int(v[1])) for k, v in data["tables"][name].items()} for name in TABLE_NAMES)
    return Judge(
        trees=trees,
        calibration_x=np.array(data["calibration"]["x"], dtype=np.float64),
        calibration_y=np.array(data["calibration"]["y"], dtype=np.float64),
        tables=tables,  # type: ignore[arg-type]
        base_rate=float(data["base_rate"]),
        identity=identity,
        data_hash=str(data["training_data"]),
    )


TABLE_NAMES = ("pair", "form", "to", "from")


def _tree_arrays(t: dict[str, Any]) -> dict[str, np.ndarray]:
    """A weights file's tree ensemble as the flat arrays `predict_trees` reads."""
    return {
        "base": np.array([t["base"]], dtype=np.float64),
        "feature": np.array(t["feature"], dtype=np.int64),
        "threshold": np.array(t["threshold"], dtype=np.float64),
        "left": np.array(t["left"], dtype=np.int64),
        "right": np.array(t["right"], dtype=np.int64),
        "value": np.array(t["value"], dtype=np.float64),
        "roots": np.array(t["roots"], dtype=np.int64),
    }


def _weights(path: Path, name: str) -> tuple[dict[str, Any], str]:
    """A weights file's parsed JSON and its identity (`name`, "#" and the first 12 hex digits of its sha256)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise JudgeError(f"{path}: cannot read the judge's weights ({exc.strerror})") from exc
    return json.loads(raw), f"{name}#" + hashlib.sha256(raw).hexdigest()[:12]


@lru_cache(maxsize=2)
def load_judge(path: Path = JUDGE_FILE) -> Judge:
    """The judge packaged with the engine (or the one at `path`), read once."""
    return judge_from_dict(*_weights(path, "judge-1"))


# -------------------- Judge 2: judge 1, then a second look through a sentence encoder.

JUDGE_2_FILE = Path(__file__).with_name("data") / "judge-2.json"
# the second stage's features beyond judge 1's: the vetted table's word and pair, and the encoder's two cosines
SECOND_FEATURES = (*FEATURES, "vetted_word", "vetted_pair", "encoder_question_cosine", "encoder_word_cosine")


def vetted_facts(edit: Edit, table: Any) -> list[float]:
    """Whether the vetted table (`perturbations.vetted`) lists synonyms for the edited word, and whether the
    replacement is one of them."""
    token = edit.tokens[edit.index]
    _, _, name, lemma = pair_keys(token.text, token.tag, edit.replacement)
    allowed = table.allowed(lemma, wn_pos(token.tag) or "n")
    return [float(bool(allowed)), float(name in allowed)]


@dataclass(frozen=True)
class Cascade:
    """Judge 2: judge 1 scores every edit; an edit it gives at least `gate` is scored again by trees that also
    read the vetted table and two sentence-encoder cosines of the question before and after the edit
    (`perturbations.edit_similarity`), calibrated on out-of-fold scores of the training edits that cleared
    the gate. Below the gate judge 1's probability stands, so only the edits that could be kept cost an
    encoder pass.

    Why a cascade: on the certification judgments the encoder's cosines lifted precision at every coverage
    (docs/engine.md), but encoding every candidate does not fit a build; most candidates judge 1 already
    finds unlikely, and cross-validation found rescoring only those at or above 0.5 as good as rescoring all."""

    first: Judge
    gate: float
    trees: dict[str, np.ndarray]
    calibration_x: np.ndarray
    calibration_y: np.ndarray
    vetted: str
    encoder: str
    encoder_identity: str
    identity: str
    data_hash: str

    def probability(
        self, edits: Sequence[Edit], first: Sequence[float], cosines: Sequence[tuple[float, float]]
    ) -> np.ndarray:
        """The second stage's calibrated probability of each edit, given judge 1's probability (`first`) and
        the encoder's two cosines; judge 1's own where it is below the gate."""
        from perturbations.vetted import vetted_table

        if not edits:
            return np.zeros(0)
        table = vetted_table(self.vetted)
        x = np.array(
            [
                features(e, self.first.tables, self.first.base_rate) + vetted_facts(e, table) + list(c)
                for e, c in zip(edits, cosines)
            ],
            dtype=np.float64,
        )
        second = np.interp(predict_trees(self.trees, x), self.calibration_x, self.calibration_y)
        p1 = np.asarray(first, dtype=np.float64)
        return np.where(p1 >= self.gate, second, p1)


def cascade_from_dict(data: dict[str, Any], identity: str, first: Judge) -> Cascade:
    """A Cascade from judge 2's parsed JSON, checked against the judge 1 it was trained to follow."""
    if data.get("format") != "robustqa-judge-2" or tuple(data.get("features", ())) != SECOND_FEATURES:
        raise JudgeError("the judge's weights file is not a judge-2 file with this code's features")
    if data.get("first_stage") != first.identity:
        raise JudgeError(
            f"judge 2 was trained after {data.get('first_stage')}, but the packaged judge 1 is {first.identity}"
        )
    return Cascade(
        first=first,
        gate=float(data["gate"]),
        trees=_tree_arrays(data["trees"]),
        calibration_x=np.array(data["calibration"]["x"], dtype=np.float64),
        calibration_y=np.array(data["calibration"]["y"], dtype=np.float64),
        vetted=str(data["vetted"]),
        encoder=str(data["encoder"]),
        encoder_identity=str(data["encoder_identity"]),
        identity=identity,
        data_hash=str(data["training_data"]),
    )


@lru_cache(maxsize=2)
def load_cascade(path: Path = JUDGE_2_FILE) -> Cascade:
    """Judge 2 packaged with the engine (or the one at `path`), read once."""
    return cascade_from_dict(*_weights(path, "judge-2"), load_judge())
