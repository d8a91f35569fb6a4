"""What a constraint is, and what it may look at (TextAttack's layout: each rule one object).

A recipe composes a tuple of constraint objects. Each object both acts and describes itself, so what
`repr(recipe)` prints is what runs. There are two kinds:

- a `PositionConstraint` says which words may change. It sees a `Position` (the token in its tagged
  text, the frozen spans) and, when it rejects, the word is counted under its `reason`, a stable name
  that is the key of `Perturbation.skipped`. The first constraint of the recipe that rejects gives the
  reason, so the order of a recipe's position constraints is part of its behaviour.
- a `CandidateConstraint` says which replacements are acceptable. It sees a `Candidate` (the word, the
  sense chosen for it, the proposed synonym and its inflected form, and from the `SENSE` stage on the
  position and the word-sense distribution). It judges at one `Stage`, which says both when the engine
  asks it and what of the candidate it may read.

Either kind may instead rank: wrapped in `Soft(rule, weight)`, a rule that would reject adds `weight` to
the candidate's penalty instead. The engine offers a word's candidates lowest penalty first, and the
budget spends on the words whose best candidate has the lowest penalty first (then the most confident).

A new rule is one new object (a subclass with `rejects`), added to a new recipe version; the engine
needs no edit for it. Two class flags let the engine ask a rule less often without changing any answer:
`WORD_ONLY` (a position rule whose verdict depends only on the word's text and tag: asked once per word)
and `FROZEN_ONLY` (a rule that can only reject because of frozen spans: not asked in texts without any).
"""

from __future__ import annotations

import dataclasses
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, NamedTuple

from perturbations.components import Component, jsonable
from perturbations.lexicon import lemma_of, wn_pos
from perturbations.records import Token
from perturbations.store import persistent

# Tokens after which a capital letter says nothing about the word (sentence or quote starts).
_SENTENCE_OPENERS = frozenset(". ! ? : ; \" “ ” ( [ - — – '".split())


def overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether [start, end) shares a character with any span (empty spans touch nothing)."""
    return any(s < e and start < e and s < end for s, e in spans)


class Position(NamedTuple):
    """A word of a tagged text (`tokens[index]`), with its neighbours and the text's frozen spans.

    An immutable record like the engine's frozen dataclasses, but a NamedTuple: one is built for most
    words of every text, and building a tuple skips the per-field checks of a frozen dataclass."""

    tokens: tuple[Token, ...]
    index: int  # type: ignore[assignment]  # a field named like tuple.index, as the engine names it
    frozen_spans: tuple[tuple[int, int], ...] = ()
    # the caller's `wsd_context` (a question's paragraph), "" when none: rules that compare the text with
    # its source read it
    context: str = ""

    @property
    def token(self) -> Token:
        return self.tokens[self.index]

    @property
    def word(self) -> str:
        return self.tokens[self.index].text

    @property
    def lower(self) -> str:
        return self.tokens[self.index].text.lower()

    @property
    def tag(self) -> str:
        """The word's Penn Treebank tag."""
        return self.tokens[self.index].tag

    def neighbour(self, offset: int) -> Token | None:
        """The token `offset` places away (-1: the previous one), or None past either end of the text."""
        at = self.index + offset
        return self.tokens[at] if 0 <= at < len(self.tokens) else None

    @property
    def sentence_initial(self) -> bool:
        """Whether the word starts a sentence or a quotation (so its capital letter is not evidence)."""
        return self.index == 0 or self.tokens[self.index - 1].text in _SENTENCE_OPENERS

    @property
    def pos(self) -> str | None:
        """WordNet part of speech of the word's Penn tag ("n", "v", "a", "r"), None for other tags."""
        return wn_pos(self.tag)

    @property
    def lemma(self) -> str | None:
        """The word's WordNet lemma for its part of speech, None when WordNet lacks it (memoised look-up)."""
        pos = wn_pos(self.tag)
        return lemma_of(self.lower, pos) if pos is not None else None


class Stage(Enum):
    """When the engine asks a candidate constraint, and so what of the `Candidate` it may read.

    - LEMMA: the replacement as the transformation names it before writing it (`name`: a WordNet lemma for
      the synonym transformations) against the word (`word`, `tag`, `lemma`, `pos`,
      `synset`); `form` is still empty (a synonym rejected here is never inflected). Verdicts are memoised
      across texts (and persisted), so they must depend on nothing else.
      A synonym that a consistent earlier text already chose is not judged again at this stage.
    - FORM: as LEMMA, plus the written form (`form`, `inflected`); memoised likewise.
    - SENSE: the word in its text and the sense WSD chose: `position`, `synset`, `senses` (the whole
      distribution), with `name`, `form` and `confidence` empty; asked once per occurrence, after the
      confidence threshold kept at least one synonym. A rejection leaves the word as it is: rules about
      the sense itself (how sure WSD is, what kind of sense it is) belong here.
    - CONTEXT: everything, including `position`, `senses` and `confidence`; asked for every occurrence,
      after the confidence threshold and before the budget chooses which words change (and for a synonym
      carried over from a consistent earlier text, whose `senses` are then empty).
    - EDIT: everything; asked when an edit is written, after the budget chose the word, for agreement with
      neighbouring words that the edit would also change.
    """

    LEMMA = "lemma"
    FORM = "form"
    SENSE = "sense"
    CONTEXT = "context"
    EDIT = "edit"


class Candidate(NamedTuple):
    """One proposed replacement for one word: what a candidate constraint may look at (see `Stage`).

    `word` is the original word lower-cased, `tag` its Penn tag, `lemma`/`pos` its lemma and part of speech
    as the transformation reads them (WordNet's for the synonym transformations), `synset` the sense the
    replacement comes from in the transformation's terms (a WordNet synset name; a table's name), `name` the
    replacement's name there (a WordNet lemma name, "soldier_of_fortune"), `form` what would be written
    (lower-case, words joined by spaces; inflected for `tag` when `inflected`, else the name's words as they
    are). From the SENSE stage on, `position` is where the word is, `senses` the word-sense distribution over
    every sense of the word (synset name, probability; in WordNet order; empty for a synonym carried over
    from a consistent earlier text, and for a transformation without senses) and `confidence` the
    probability that `form` is a synonym here. A NamedTuple for the reason `Position` is.
    """

    word: str
    tag: str
    lemma: str
    pos: str
    synset: str
    name: str
    form: str
    inflected: bool
    position: Position | None = None
    senses: tuple[tuple[str, float], ...] = ()
    confidence: float | None = None


class Constraint(Component, ABC):
    """A rule of a recipe (a frozen dataclass whose fields are its whole configuration).

    `reason` is the stable name a word is counted under in `Perturbation.skipped` when this rule leaves
    it alone; `describe()` is its line in the recipe's printed composition; `identity()` tells rules
    apart for memoised verdicts.
    """

    reason: ClassVar[str] = ""
    # True when the rule can only reject because of the text's frozen spans: the engine skips it for
    # texts that have none (most texts), instead of asking it for every word.
    FROZEN_ONLY: ClassVar[bool] = False
    # True for a validity gate (a rule that keeps an edited text asking the same thing, beyond what a
    # synonym swap needs to be well formed): builds report what each gate rejected on its own.
    GATE: ClassVar[bool] = False

    def identity(self) -> str:
        """A string that differs whenever two constraints could judge differently (class and every field)."""
        values = tuple(jsonable(getattr(self, f.name)) for f in dataclasses.fields(self))  # type: ignore[arg-type]
        return f"{type(self).__module__}.{type(self).__qualname__}{values!r}"


class PositionConstraint(Constraint):
    """Which words may change: `rejects` is True when the word at `position` must stay as it is.

    A subclass whose verdict depends on nothing but the word's text and tag sets `WORD_ONLY = True`; the
    engine then asks it once per distinct (word, tag) and recipe, and remembers the answer.
    """

    WORD_ONLY: ClassVar[bool] = False

    @abstractmethod
    def rejects(self, position: Position) -> bool: ...


class CandidateConstraint(Constraint):
    """Which replacements are acceptable: `rejects` is True when `candidate` must not be written.

    `stage` says when it is asked and what it may read (see `Stage`). A word rejected at the SENSE stage,
    or whose every candidate is rejected at the CONTEXT or EDIT stage, is counted under the `reason` of the
    rule that rejected it (its first-ranked candidate); one left without candidates at the LEMMA or FORM
    stage counts as "no-candidate".
    """

    stage: ClassVar[Stage] = Stage.CONTEXT
    reason: ClassVar[str] = "no-candidate"

    @abstractmethod
    def rejects(self, candidate: Candidate) -> bool: ...


@dataclass(frozen=True)
class Soft(Constraint):
    """A rule that ranks instead of rejecting: where `rule` would reject, the candidate's penalty grows by
    `weight` (a position rule penalises every candidate of the word, a SENSE rule every candidate of the
    sense, a CONTEXT rule the one candidate).

    Why: some evidence (a synonym mostly used in another sense, a rarer word, a weak WSD margin) is too
    often wrong to trust and too often right to forbid; as a penalty it makes the engine prefer the
    candidates and words without it, and write them only where nothing better is left.
    """

    rule: Constraint
    weight: float = 1.0
    GATE: ClassVar[bool] = True

    @property
    def reason(self) -> str:  # type: ignore[override]
        return self.rule.reason

    def validate(self) -> None:
        self.rule.validate()

    def penalises(self, subject: Position | Candidate) -> bool:
        """Whether the wrapped rule would reject `subject` (a Position for a position rule, else a Candidate)."""
        return self.rule.rejects(subject)  # type: ignore[attr-defined,arg-type]

    def describe(self) -> str:
        return f"Soft({self.rule.describe()}, penalty={self.weight:g})"

    def identity(self) -> str:
        return f"Soft({self.rule.identity()}, {self.weight!r})"


SOFT_STAGES = (Stage.SENSE, Stage.CONTEXT)


@dataclass(frozen=True)
class ConstraintPlan:
    """A recipe's constraints sorted by when the engine asks them (built once per recipe).

    `lexical_key` names the LEMMA and FORM constraints together, `position_key` the position constraints in
    their order: memoised (and persisted) verdicts are keyed by them, so two recipes share verdicts exactly
    when those constraints are the same. `soft_position`, `soft_sense` and `soft_context` are the `Soft`
    rules, by what they look at.
    """

    position: tuple[PositionConstraint, ...]
    lemma: tuple[CandidateConstraint, ...]
    form: tuple[CandidateConstraint, ...]
    sense: tuple[CandidateConstraint, ...]
    context: tuple[CandidateConstraint, ...]
    edit: tuple[CandidateConstraint, ...]
    soft_position: tuple[Soft, ...]
    soft_sense: tuple[Soft, ...]
    soft_context: tuple[Soft, ...]
    lexical_key: str
    position_key: str
    # For each i in 0..len(position): the non-WORD_ONLY position constraints before the i-th, to ask at
    # every occurrence (all of them in texts with frozen spans, those not FROZEN_ONLY in texts without).
    _ask_with_frozen: tuple[tuple[PositionConstraint, ...], ...] = field(repr=False, compare=False)
    _ask_without_frozen: tuple[tuple[PositionConstraint, ...], ...] = field(repr=False, compare=False)
    # the reason of each position constraint, then None (no WORD_ONLY constraint rejects)
    _word_only_reasons: tuple[str | None, ...] = field(repr=False, compare=False)
    # word + "\0" + tag -> index of the first WORD_ONLY position constraint that rejects it (len(position)
    # when none does), in front of the persisted table: strings and small ints, which the garbage
    # collector never walks.
    _first_word_only: dict[str, int] = field(default_factory=dict, repr=False, compare=False, hash=False)

    @classmethod
    def of(cls, constraints: Sequence[Constraint]) -> ConstraintPlan:
        soft = tuple(c for c in constraints if isinstance(c, Soft))
        hard = [c for c in constraints if not isinstance(c, Soft)]
        position = tuple(c for c in hard if isinstance(c, PositionConstraint))
        candidate = [c for c in hard if isinstance(c, CandidateConstraint)]
        for c in (*position, *candidate, *soft):
            if not c.reason:
                raise TypeError(f"constraint {c.describe()} needs a reason name (the key it is counted under)")
        for s in soft:
            inner = s.rule
            if isinstance(inner, Soft) or not (
                isinstance(inner, PositionConstraint)
                or (isinstance(inner, CandidateConstraint) and inner.stage in SOFT_STAGES)
            ):
                raise TypeError(f"{s.describe()}: only position rules and SENSE or CONTEXT candidate rules can rank")
        by_stage = {stage: tuple(c for c in candidate if c.stage is stage) for stage in Stage}
        lexical = by_stage[Stage.LEMMA] + by_stage[Stage.FORM]
        in_context = [tuple(c for c in position[:i] if not c.WORD_ONLY) for i in range(len(position) + 1)]
        return cls(
            position=position,
            lemma=by_stage[Stage.LEMMA],
            form=by_stage[Stage.FORM],
            sense=by_stage[Stage.SENSE],
            context=by_stage[Stage.CONTEXT],
            edit=by_stage[Stage.EDIT],
            soft_position=tuple(s for s in soft if isinstance(s.rule, PositionConstraint)),
            soft_sense=tuple(
                s for s in soft if isinstance(s.rule, CandidateConstraint) and s.rule.stage is Stage.SENSE
            ),
            soft_context=tuple(
                s for s in soft if isinstance(s.rule, CandidateConstraint) and s.rule.stage is Stage.CONTEXT
            ),
            lexical_key=_key("lexical", lexical),
            position_key=_key("position", position),
            _ask_with_frozen=tuple(in_context),
            _ask_without_frozen=tuple(tuple(c for c in ask if not c.FROZEN_ONLY) for ask in in_context),
            _word_only_reasons=(*(c.reason for c in position), None),
        )

    @property
    def soft(self) -> bool:
        """Whether any rule of the plan ranks (`Soft`)."""
        return bool(self.soft_position or self.soft_sense or self.soft_context)

    def register(self) -> None:
        """Make this plan findable by its keys, for the memoised functions that are given only a key
        (a plan that arrives pickled in a worker process is registered again here)."""
        _PLANS.setdefault(self.lexical_key, self)
        _PLANS.setdefault(self.position_key, self)

    def rejection(
        self, tokens: tuple[Token, ...], index: int, frozen_spans: tuple[tuple[int, int], ...], context: str = ""
    ) -> str | None:
        """The reason of the first position constraint (in recipe order) that rejects the word at `index`,
        or None when every one accepts it.

        The same answer as asking every constraint in order: WORD_ONLY constraints are asked once per
        (word, tag), FROZEN_ONLY ones only in texts with frozen spans."""
        token = tokens[index]
        key = token.text + "\0" + token.tag
        first = self._first_word_only.get(key)
        if first is None:
            self.register()
            first = self._first_word_only[key] = _first_word_only_rejection(self.position_key, token.text, token.tag)
        ask = (self._ask_with_frozen if frozen_spans else self._ask_without_frozen)[first]
        if ask:
            position = _new_tuple(Position, (tokens, index, frozen_spans, context))  # Position(...) without its wrapper
            for constraint in ask:
                if constraint.rejects(position):
                    return constraint.reason
        return self._word_only_reasons[first]

    def edit_constraints(self, frozen_spans: Sequence[tuple[int, int]]) -> tuple[CandidateConstraint, ...]:
        """The EDIT-stage constraints to ask in a text with these frozen spans."""
        return self.edit if frozen_spans else tuple(c for c in self.edit if not c.FROZEN_ONLY)


_new_tuple = tuple.__new__
_PLANS: dict[str, ConstraintPlan] = {}  # by lexical_key and by position_key (see `ConstraintPlan.register`)


def plan_for(key: str) -> ConstraintPlan:
    """The registered plan with this lexical or position key."""
    return _PLANS[key]


def _key(kind: str, constraints: Sequence[Constraint]) -> str:
    identities = "\n".join(c.identity() for c in constraints)
    return kind + ":" + hashlib.sha256(identities.encode("utf-8")).hexdigest()[:16]


@persistent("first_word_only")
def _first_word_only_rejection(position_key: str, word: str, tag: str) -> int:
    """Index of the first WORD_ONLY position constraint of the plan that rejects `word` tagged `tag`
    (the number of position constraints when none does). They are shown the word alone, as a one-word
    text: their verdict may depend on nothing else."""
    constraints = plan_for(position_key).position
    alone = Position((Token(word, 0, len(word), tag),), 0)
    for i, constraint in enumerate(constraints):
        if constraint.WORD_ONLY and constraint.rejects(alone):
            return i
    return len(constraints)


def first_rejection(constraints: Sequence[CandidateConstraint], candidate: Candidate) -> CandidateConstraint | None:
    """The first of `constraints` that rejects `candidate`, or None when all accept it."""
    for constraint in constraints:
        if constraint.rejects(candidate):
            return constraint
    return None


def penalty(rules: Sequence[Soft], subject: Position | Candidate) -> tuple[float, tuple[str, ...]]:
    """The summed weight of the `Soft` rules that penalise `subject`, and their reasons (in rule order)."""
    total = 0.0
    names: list[str] = []
    for rule in rules:
        if rule.penalises(subject):
            total += rule.weight
            names.append(rule.reason)
    return total, tuple(names)
