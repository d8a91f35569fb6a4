"""Named, versioned, cited recipes: target fields + transformation + constraints + budget.

One recipe per published setting (TextAttack's layout): `qads` follows Lin et al. (2020), `qads-nouns`
Sigdel et al. (2020); `context` and `both` extend them to the paragraph. Bump a recipe's version
whenever its behaviour changes, because the version goes into every dataset signature.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Sequence

from perturbations.errors import RecipeParameterError, UnknownRecipeError
from perturbations.records import Perturbation
from perturbations.wsd import METHODS

FIELDS = frozenset({"question", "context"})
WN_POS = ("n", "v", "a", "r")


@dataclass(frozen=True)
class WordNetSynonyms:
    """Transformation: a word's synonyms from the one WordNet synset its WSD picks.

    Candidates are the synset's other lemmas ranked by cntlist count (ties by name), multiword lemmas
    rendered with spaces, re-inflected to the original Penn tag with case kept.
    """

    wsd: str = "enhanced-lesk"
    threshold: float = 0.8
    pos: tuple[str, ...] = WN_POS
    use_context: bool = True

    def __repr__(self) -> str:
        return (
            f"WordNetSynonyms(wsd={self.wsd}, threshold={self.threshold}, pos={','.join(self.pos)}, "
            f"use_context={self.use_context}, ranking=cntlist, inflection=lemminflect)"
        )


@dataclass(frozen=True)
class Constraints:
    """Constraints: which positions may change, and which candidates are acceptable."""

    protected_words: frozenset[str] = frozenset()

    POSITION_RULES: tuple[str, ...] = field(
        default=(
            "FrozenSpans", "ProtectedWords", "WhWords", "AuxiliariesAndModals", "Pronouns", "Determiners",
            "Prepositions", "NumbersAndDates", "ProperNouns(NNP/NNPS, capitalised mid-sentence)", "Stopwords(nltk)",
            "TagFitsWord",
        ),
        repr=False,
    )
    CANDIDATE_RULES: tuple[str, ...] = field(
        default=("NotSelfOrOwnForm", "NoUnderscore", "NoProperLemma", "Inflectable(lemminflect)", "ArticleAgreement"),
        repr=False,
    )

    def __repr__(self) -> str:
        protected = ",".join(sorted(self.protected_words)) or "-"
        lines = [f"(position) {r}" for r in self.POSITION_RULES] + [f"(position) protected_words={protected}"]
        lines += [f"(candidate) {r}" for r in self.CANDIDATE_RULES]
        return "Constraints(\n    " + "\n    ".join(lines) + "\n  )"


@dataclass(frozen=True)
class Budget:
    """How many words may change: at most `rate` of the words, within [min, max] per text.

    The budget keeps the most confident candidate words; a text with fewer than
    `min_substitutions` possible edits is left unchanged.
    """

    rate: float = 0.25
    min_substitutions: int = 1
    max_substitutions: int = 3

    def __repr__(self) -> str:
        return f"Budget(rate={self.rate}, min_substitutions={self.min_substitutions}, max_substitutions={self.max_substitutions})"


_OVERRIDES = {
    "wsd": "transformation", "threshold": "transformation", "pos": "transformation", "use_context": "transformation",
    "protected_words": "constraints",
    "rate": "budget", "min_substitutions": "budget", "max_substitutions": "budget",
}


@dataclass(frozen=True)
class Recipe:
    """A named, versioned perturbation recipe; `perturb` applies it to one text."""

    name: str
    version: str
    fields: frozenset[str]
    citation: str
    description: str
    transformation: WordNetSynonyms
    constraints: Constraints
    budget: Budget

    @property
    def ident(self) -> str:
        """"name@version", the form used in signatures and records."""
        return f"{self.name}@{self.version}"

    def __repr__(self) -> str:
        return (
            f"Recipe({self.ident}, fields={','.join(sorted(self.fields))}\n"
            f"  (transformation) {self.transformation!r}\n"
            f"  (constraints) {self.constraints!r}\n"
            f"  (budget) {self.budget!r}\n)"
        )

    def parameters(self) -> dict[str, object]:
        """Every parameter that changes the output, JSON-serialisable, in a fixed order."""
        tf, b = self.transformation, self.budget
        return {
            "fields": sorted(self.fields),
            "wsd": tf.wsd,
            "threshold": tf.threshold,
            "pos": list(tf.pos),
            "use_context": tf.use_context,
            "rate": b.rate,
            "min_substitutions": b.min_substitutions,
            "max_substitutions": b.max_substitutions,
            "protected_words": sorted(self.constraints.protected_words),
        }

    def signature_fields(self) -> dict[str, object]:
        """The recipe's part of a reproducibility signature (flat, scalar values)."""
        params = self.parameters()
        return {
            "recipe": self.ident,
            "wsd": params["wsd"],
            "threshold": params["threshold"],
            "pos": ",".join(self.transformation.pos),
            "context": "yes" if self.transformation.use_context else "no",
            "rate": params["rate"],
            "min_subs": params["min_substitutions"],
            "max_subs": params["max_substitutions"],
            "protected": len(self.constraints.protected_words),
        }

    def with_overrides(self, **overrides: Any) -> "Recipe":
        """A copy with some parameters changed (validated); the name and version stay."""
        parts: dict[str, dict[str, Any]] = {"transformation": {}, "constraints": {}, "budget": {}}
        for key, value in overrides.items():
            if key not in _OVERRIDES:
                raise RecipeParameterError(
                    f"recipe '{self.name}' has no parameter '{key}'; parameters: {', '.join(sorted(_OVERRIDES))}"
                )
            if value is None:
                continue
            parts[_OVERRIDES[key]][key] = _coerce(key, value)
        new = dataclasses.replace(
            self,
            transformation=dataclasses.replace(self.transformation, **parts["transformation"]),
            constraints=dataclasses.replace(self.constraints, **parts["constraints"]),
            budget=dataclasses.replace(self.budget, **parts["budget"]),
        )
        new.validate()
        return new

    def validate(self) -> None:
        """Raise RecipeParameterError on a parameter outside its range."""
        tf, b = self.transformation, self.budget
        if tf.wsd not in METHODS:
            raise RecipeParameterError(f"wsd must be one of {', '.join(METHODS)}, not '{tf.wsd}'")
        if not 0.0 <= tf.threshold <= 1.0:
            raise RecipeParameterError(f"threshold must be in [0, 1], not {tf.threshold}")
        if not tf.pos or any(p not in WN_POS for p in tf.pos):
            raise RecipeParameterError(f"pos must be a non-empty subset of {','.join(WN_POS)}, not {tf.pos}")
        if not 0.0 < b.rate <= 1.0:
            raise RecipeParameterError(f"rate must be in (0, 1], not {b.rate}")
        if b.min_substitutions < 0 or b.max_substitutions < max(1, b.min_substitutions):
            raise RecipeParameterError(
                f"need 0 <= min_substitutions <= max_substitutions and max_substitutions >= 1, "
                f"not {b.min_substitutions}/{b.max_substitutions}"
            )
        if not self.fields or not self.fields <= FIELDS:
            raise RecipeParameterError(f"fields must be a non-empty subset of {sorted(FIELDS)}")

    def perturb(
        self,
        text: str,
        *,
        seed: int,
        key: str,
        frozen_spans: Sequence[tuple[int, int]] = (),
        wsd_context: str | None = None,
        consistent_with: Sequence[Perturbation] = (),
        variant: int = 0,
    ) -> Perturbation:
        """Perturb one text.

        `frozen_spans` are character ranges never edited (answer spans); `wsd_context` is extra text
        to disambiguate with (the paragraph of a question); `consistent_with` are earlier edits whose
        words get the same replacement here, and whose unchanged words stay unchanged here; `variant`
        k > 0 gives another deterministic perturbation when one exists. The result depends only on
        these arguments and the recipe.
        """
        from perturbations.engine import perturb_text

        return perturb_text(
            self, text, seed=seed, key=key, frozen_spans=frozen_spans, wsd_context=wsd_context,
            consistent_with=consistent_with, variant=variant,
        )


def _coerce(key: str, value: Any) -> Any:
    try:
        if key in ("threshold", "rate"):
            return float(value)
        if key in ("min_substitutions", "max_substitutions"):
            if isinstance(value, bool) or int(value) != value:
                raise ValueError(value)
            return int(value)
        if key == "use_context":
            return bool(value)
        if key == "wsd":
            return str(value)
        if key == "pos":
            items = value.split(",") if isinstance(value, str) else list(value)
            return tuple(sorted({str(p).strip() for p in items if str(p).strip()}, key=WN_POS.index))
        if key == "protected_words":
            items = [value] if isinstance(value, str) else list(value)
            return frozenset(str(w).strip().lower() for w in items if str(w).strip())
    except (TypeError, ValueError) as exc:
        raise RecipeParameterError(f"parameter '{key}' has an invalid value {value!r}") from exc
    raise RecipeParameterError(f"unknown parameter '{key}'")  # pragma: no cover - guarded by _OVERRIDES


_QADS = (
    "Lin et al. (2020), QADS: SQuAD 2.0 questions with content words replaced by WordNet synonyms, "
    "arXiv:2010.13049: synonyms of the sense chosen by an enhanced Lesk WSD. Differs: the Lesk score is combined "
    "with the cntlist sense prior and words below a confidence threshold are left alone; candidates are "
    "re-inflected with lemminflect; names, numbers and function words are protected; no human validation."
)
_SIGDEL = (
    "Sigdel et al. (2020), the companion study of QADS: only the nouns of SQuAD questions replaced by WordNet "
    "synonyms. Differs: sense chosen by enhanced Lesk with a confidence threshold (as in qads) instead of the "
    "first synonym found."
)


def _builtin() -> dict[str, Recipe]:
    recipes = [
        Recipe(
            name="qads", version="1.1", fields=frozenset({"question"}), citation=_QADS,
            description="questions: content words (nouns, verbs, adjectives, adverbs) -> WordNet synonyms",
            transformation=WordNetSynonyms(), constraints=Constraints(), budget=Budget(),
        ),
        Recipe(
            name="qads-nouns", version="1.1", fields=frozenset({"question"}), citation=_SIGDEL,
            description="questions: nouns only -> WordNet synonyms",
            transformation=WordNetSynonyms(pos=("n",)), constraints=Constraints(), budget=Budget(),
        ),
        Recipe(
            name="context", version="1.1", fields=frozenset({"context"}),
            citation=_QADS + " Applied to contexts instead of questions; answer spans are frozen.",
            description="contexts only: content words -> WordNet synonyms; answer spans never edited",
            transformation=WordNetSynonyms(use_context=False), constraints=Constraints(),
            budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
        ),
        Recipe(
            name="both", version="1.1", fields=frozenset({"question", "context"}),
            citation=_QADS + " Applied to questions and contexts; a word gets the same replacement in both.",
            description="questions and contexts: the same word gets the same replacement in both",
            transformation=WordNetSynonyms(), constraints=Constraints(),
            budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
        ),
    ]
    return {r.name: r for r in recipes}


_RECIPES = _builtin()


def get_recipe(name: str, **overrides: Any) -> Recipe:
    """A registered recipe by name, with parameters overridden (None values are ignored)."""
    try:
        recipe = _RECIPES[name]
    except KeyError:
        raise UnknownRecipeError(name, tuple(sorted(_RECIPES))) from None
    return recipe.with_overrides(**overrides) if overrides else recipe


def list_recipes() -> list[Recipe]:
    """Every registered recipe with its default parameters, sorted by name."""
    return [_RECIPES[n] for n in sorted(_RECIPES)]


def recipe_names() -> tuple[str, ...]:
    return tuple(sorted(_RECIPES))


