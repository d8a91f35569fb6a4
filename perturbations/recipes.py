"""A recipe: target fields + transformation + constraints + budget, named and versioned, and cited.

One recipe per published setting (TextAttack's layout). The version goes into every dataset signature, so
a recipe whose behaviour changes is registered as a new version (a new object); the old one stays
buildable (`builtin_recipes.py`, `registry.py`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from perturbations.components import Component
from perturbations.constraints import (
    CandidateConstraint,
    Constraint,
    ConstraintPlan,
    Soft,
    Stage,
)
from perturbations.constraints.judged import JudgeScore
from perturbations.edit_kinds import RULES
from perturbations.engine import build_space, perturb_text
from perturbations.errors import RecipeParameterError
from perturbations.records import Perturbation, TextToPerturb
from perturbations.space import Replacement, SearchSpace
from perturbations.store import persistent
from perturbations.transformation import Budget, Transformation
from perturbations.variants import text_of, variant_text

FIELDS = frozenset({"question", "context"})

# Reasons the engine gives (the transformation and the constraints name their own).
ENGINE_REASONS = ("consistency", "budget")

# The order of `Recipe.parameters()` that files written since robustqa 0.1 carry; parameters a later part
# adds follow in the order of the recipe's parts.
_PARAMETER_ORDER = (
    "fields",
    "wsd",
    "threshold",
    "pos",
    "use_context",
    "rate",
    "min_substitutions",
    "max_substitutions",
    "protected_words",
)
# parameter -> (signature field, how its value is written there), in signature order
_SIGNATURE: dict[str, tuple[str, Callable[[Any], object]]] = {
    "wsd": ("wsd", lambda v: v),
    "threshold": ("threshold", lambda v: v),
    "pos": ("pos", lambda v: ",".join(v)),
    "use_context": ("context", lambda v: "yes" if v else "no"),
    "rate": ("rate", lambda v: v),
    "min_substitutions": ("min_subs", lambda v: v),
    "max_substitutions": ("max_subs", lambda v: v),
    "protected_words": ("protected", lambda v: _protected_field(v)),
}


def _protected_field(words: Any) -> str:
    """The protected words as a signature shows them: "0" for none (as every published signature reads),
    else the words sorted, or their count and a digest when they are many, so that builds protecting
    different words never share a signature."""
    import hashlib

    unique = sorted({str(w).lower() for w in words})
    if not unique:
        return "0"
    text = ",".join(unique)
    if len(unique) <= 8 and len(text) <= 80:
        return text
    return f"{len(unique)}#{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


@dataclass(frozen=True)
class Recipe:
    """A named, versioned perturbation recipe; `perturb` applies it to one text.

    `constraints` is the ordered tuple of constraint objects (position constraints are asked in this
    order, and the first that rejects a word names why it stays); `plan` sorts them by when the engine
    asks them. What `repr` prints comes from the same objects.

    `kind_rules` names the edit-kind rules' version (one of `perturbations.edit_kinds.RULES`) by which every
    substitution the recipe writes carries its `kind`; "" for the versions published before kinds were written,
    whose records keep their bytes (readers classify those on read). It is part of what a version writes, so it
    is set when a version is published and never changed after.
    """

    name: str
    version: str
    fields: frozenset[str]
    citation: str
    description: str
    transformation: Transformation
    constraints: tuple[Constraint, ...]
    budget: Budget
    kind_rules: str = ""
    plan: ConstraintPlan = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "plan", ConstraintPlan.of(self.constraints))

    @property
    def ident(self) -> str:
        """ "name@version", the form used in signatures and records."""
        return f"{self.name}@{self.version}"

    @property
    def writes_kinds(self) -> bool:
        """Whether each substitution this recipe writes carries its edit kind (see `kind_rules`)."""
        return bool(self.kind_rules)

    def __repr__(self) -> str:
        lines = [f"Recipe({self.ident}, fields={','.join(sorted(self.fields))}"]
        lines.append(f"  (transformation) {self.transformation.describe()}")
        lines.append("  (constraints)")
        for c in self.constraints:
            rule = c.rule if isinstance(c, Soft) else c
            kind = f"candidate, {rule.stage.value}" if isinstance(rule, CandidateConstraint) else "position"
            if isinstance(c, Soft):
                lines.append(f"    ({kind}, ranks) {c.describe()} -> penalised: {c.reason}")
            else:
                lines.append(f"    ({kind}) {c.describe()} -> {c.reason}")
        lines.append(f"  (budget) {self.budget.describe()}")
        if self.kind_rules:
            lines.append(f"  (records) each substitution with its edit kind, by rules {self.kind_rules}")
        return "\n".join(lines) + "\n)"

    def _components(self) -> tuple[Component, ...]:
        return (self.transformation, *self.constraints, self.budget)

    def parameters(self) -> dict[str, object]:
        """Every parameter that changes the output, JSON-serialisable, in a fixed order; for a recipe with
        validity gates, also `gates` (the reasons of its hard gates) and `ranks` (its soft rules, with their
        weight when it is not 1), so that files and signatures say which rules made and ranked the edits."""
        values: dict[str, object] = {"fields": sorted(self.fields)}
        for component in self._components():
            values.update(component.parameters())
        ordered = {key: values.pop(key) for key in _PARAMETER_ORDER if key in values}
        gates: dict[str, object] = {}
        if self.gate_reasons():
            gates["gates"] = list(self.gate_reasons())
        soft = [c for c in self.constraints if isinstance(c, Soft)]
        if soft:
            gates["ranks"] = [c.reason if c.weight == 1 else f"{c.reason}*{c.weight:g}" for c in soft]
        if self.kind_rules:  # last: the parameters of versions that write no kinds stay as they were
            gates["kinds"] = self.kind_rules
        return ordered | values | gates

    def signature_fields(self) -> dict[str, object]:
        """The recipe's part of a reproducibility signature (flat, scalar values)."""
        params = self.parameters()
        out: dict[str, object] = {"recipe": self.ident}
        for key, (name, render) in _SIGNATURE.items():
            if key in params:
                out[name] = render(params[key])
        for key, value in params.items():
            if key != "fields" and key not in _SIGNATURE:
                out[key] = ",".join(map(str, value)) if isinstance(value, list) else value
        return out

    def reasons(self) -> tuple[str, ...]:
        """Every reason name a word can be counted under in `Perturbation.skipped` with this recipe."""
        counted = (Stage.SENSE, Stage.CONTEXT, Stage.EDIT)  # LEMMA and FORM rejections count as "no-candidate"
        named = [
            c.reason
            for c in self.constraints
            if not isinstance(c, Soft) and (not isinstance(c, CandidateConstraint) or c.stage in counted)
        ]
        return tuple(dict.fromkeys([*named, *self.transformation.REASONS, *ENGINE_REASONS]))

    def gate_reasons(self) -> tuple[str, ...]:
        """The reason names of the recipe's hard validity gates (constraints with `GATE`), in order."""
        return tuple(dict.fromkeys(c.reason for c in self.constraints if c.GATE and not isinstance(c, Soft)))

    def penalty_reasons(self) -> tuple[str, ...]:
        """The reason names of the recipe's soft rules (the keys of `Perturbation.penalties`), in order."""
        return tuple(dict.fromkeys(c.reason for c in self.constraints if isinstance(c, Soft)))

    def with_overrides(self, **overrides: Any) -> Recipe:
        """A copy with some parameters changed (validated); the name and version stay."""
        components: list[Any] = list(self._components())  # each a frozen dataclass: `replace` makes the copy
        owner = {key: i for i, component in enumerate(components) for key in component.PARAMETERS}
        changes: dict[int, dict[str, Any]] = {}
        for key, value in overrides.items():
            if key not in owner:
                raise RecipeParameterError(
                    f"recipe '{self.name}' has no parameter '{key}'; parameters: {', '.join(sorted(owner))}"
                )
            if value is None:
                continue
            i = owner[key]
            try:
                changes.setdefault(i, {})[key] = components[i].PARAMETERS[key](value)
            except (TypeError, ValueError) as exc:
                raise RecipeParameterError(f"parameter '{key}' has an invalid value {value!r}") from exc
        for i, change in changes.items():
            components[i] = dataclasses.replace(components[i], **change)
        new = dataclasses.replace(
            self,
            transformation=components[0],
            constraints=tuple(components[1:-1]),
            budget=components[-1],
        )
        new.validate()
        return new

    def validate(self) -> None:
        """Raise RecipeParameterError on a parameter outside its range."""
        for component in self._components():
            component.validate()
        if not self.fields or not self.fields <= FIELDS:
            raise RecipeParameterError(f"fields must be a non-empty subset of {sorted(FIELDS)}")
        if self.kind_rules and self.kind_rules not in RULES:
            raise RecipeParameterError(
                f"recipe '{self.ident}' writes edit kinds by rules '{self.kind_rules}', but this engine has "
                f"{', '.join(RULES)}; keep the old rules beside the new ones, or publish a new version"
            )

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
        return perturb_text(
            self,
            text,
            seed=seed,
            key=key,
            frozen_spans=frozen_spans,
            wsd_context=wsd_context,
            consistent_with=consistent_with,
            variant=variant,
        )

    def search_space(
        self,
        text: str,
        *,
        frozen_spans: Sequence[tuple[int, int]] = (),
        wsd_context: str | None = None,
        consistent_with: Sequence[Perturbation] = (),
    ) -> SearchSpace:
        """Every word of `text` this recipe may edit, with every replacement it allows, ranked: what
        `perturb` spends its budget on (see `perturbations.search_space`)."""
        return build_space(
            self, text, frozen_spans=frozen_spans, wsd_context=wsd_context, consistent_with=consistent_with
        )

    @property
    def prepares(self) -> bool:
        """Whether a rule of this recipe works faster when `prepare` is called first (a model rule)."""
        return self.preparation_passes > 0

    @property
    def preparation_passes(self) -> int:
        """How many of this recipe's rules prepare (`prepare` reports each text once per such rule)."""
        return sum(hasattr(c, "prepare") for c in self.constraints)

    def prepare(self, texts: Iterable[TextToPerturb], *, progress: Callable[[int], None] | None = None) -> None:
        """Let rules that work faster in batches (the model rules) do their work for `texts` before they
        are perturbed, in the recipe's order; `progress(1)` after each text, once per such rule. Results are
        the same without it (up to float noise of a model's arithmetic, which the language-model rule rounds
        away), only slower. Nothing to do for recipes whose rules need no preparing."""
        items = list(texts)
        for constraint in self.constraints:
            hook = getattr(constraint, "prepare", None)
            if hook is None:
                continue
            before = self.rules_before(constraint)  # one recipe for every text: its plan's memo serves them all
            spaces = (
                (item, before.search_space(item.text, frozen_spans=item.frozen_spans, wsd_context=item.wsd_context))
                for item in items
            )
            if getattr(constraint, "PREPARES_SPACES", False):  # the rule reads the candidates, not only their texts
                hook(spaces, progress)
            else:  # the rule reads each text and its variants (one candidate written)
                hook(((item, text_of(space.tokens), candidate_texts(space)) for item, space in spaces), progress)

    def rules_before(self, rule: Constraint) -> Recipe:
        """This recipe with only the rules it lists before `rule`: a text's search space under it holds every
        candidate `rule` will be asked about (a rule is asked after those, so exactly those candidates reach it)."""
        kept = {f.name: getattr(self, f.name) for f in dataclasses.fields(Recipe) if f.init}
        return Recipe(**kept | {"constraints": self.constraints[: self.constraints.index(rule)]})


def candidate_texts(space: SearchSpace) -> list[str]:
    """Every variant of the space's text with one of its candidates written."""
    return [variant_text(space.tokens, p.index, r.form) for p in space.all_positions for r in p.replacements]


@dataclass(frozen=True)
class JudgedRecipe(Recipe):
    """A recipe whose variants are its search space's one-word edits ranked by its `JudgeScore` rule, best
    first: variant k writes the k-th best edit (the best again when there are fewer), and each substitution
    record carries the judge's probability (`Substitution.judge`).

    Why not the budget's draw: the engine's later variants sample words and synonyms at random, which is
    right for a space whose candidates are all acceptable; here the judge has ranked them, so `--variants K`
    keeps the K edits most likely to keep the meaning among those that clear the threshold."""

    # the last text's search space and ranking (the same result as building them again, only faster)
    _last: list[Any] = field(default_factory=list, init=False, repr=False, compare=False)
    # the hash of the recipe's whole composition, once computed: what its stored variants are kept under
    _key: list[str] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not any(isinstance(c, JudgeScore) for c in self.constraints):
            raise RecipeParameterError(f"recipe '{self.ident}' ranks by a judge but has no JudgeScore constraint")

    @property
    def judge(self) -> JudgeScore:
        """The rule whose probability the variants are ranked by."""
        return next(c for c in self.constraints if isinstance(c, JudgeScore))

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
        """As `Recipe.perturb`; the result does not depend on `seed` or `key` (no choice is random). Kept in
        the persistent lexicon cache under the recipe's whole composition (the judge's hash included), so a
        cached build reads its variants instead of building each text's space again."""
        digest = _digest(wsd_context)
        _CONTEXTS[digest] = wsd_context
        return _judged_variant(self.composition(), text, tuple(frozen_spans), digest, tuple(consistent_with), variant)

    def composition(self) -> str:
        """The hash of the recipe's whole composition (the judge's hash included): what its stored variants are
        kept under."""
        if not self._key:
            parts = [
                self.ident,
                repr(self.transformation),
                *(c.identity() for c in self.constraints),
                repr(self.budget),
                *([self.kind_rules] if self.kind_rules else []),  # as before for versions that write no kinds
            ]
            self._key.append(hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16])
            _JUDGED[self._key[0]] = self
        return self._key[0]

    def prepare(self, texts: Iterable[TextToPerturb], *, progress: Callable[[int], None] | None = None) -> None:
        """As `Recipe.prepare`, for the texts whose first variant is not stored yet: a cached build prepares
        nothing (a text prepared or not gets the same variants; preparing is only faster)."""
        items = list(texts)
        stored = _judged_variant.holds  # type: ignore[attr-defined]
        todo = [
            i for i in items if not stored(self.composition(), i.text, i.frozen_spans, _digest(i.wsd_context), (), 0)
        ]
        if progress is not None and len(todo) < len(items):
            progress((len(items) - len(todo)) * self.preparation_passes)
        super().prepare(todo, progress=progress)

    def _variant(
        self,
        text: str,
        frozen_spans: tuple[tuple[int, int], ...],
        wsd_context: str | None,
        consistent_with: tuple[Perturbation, ...],
        variant: int,
    ) -> Perturbation:
        from perturbations.engine import apply_edits

        asked = (text, frozen_spans, wsd_context, consistent_with)
        if self._last and self._last[0] == asked:  # a build asks for a text's variants one after another
            space, ranked = self._last[1], self._last[2]
        else:
            space = self.search_space(
                text, frozen_spans=frozen_spans, wsd_context=wsd_context, consistent_with=consistent_with
            )
            ranked = self.ranked(space)
            self._last[:] = [asked, space, ranked]
        if not ranked:
            return apply_edits(space, {})
        score, index, replacement = ranked[variant if variant < len(ranked) else 0]
        done = apply_edits(space, {index: replacement})
        subs = tuple(dataclasses.replace(s, judge=score) for s in done.substitutions)
        return dataclasses.replace(done, substitutions=subs)

    def ranked(self, space: SearchSpace) -> list[tuple[float, int, Replacement]]:
        """Every edit of `space` with its judge score, best first (ties: earlier word, then the engine's order
        of its replacements)."""
        out = []
        judge = self.judge
        for position in space.all_positions:
            for rank, replacement in enumerate(position.replacements):
                score = judge.edit_score(space.tokens, position.index, replacement.form, position.senses)
                out.append((score, position.index, rank, replacement))
        out.sort(key=lambda item: (-item[0], item[1], item[2]))
        return [(score, index, replacement) for score, index, _rank, replacement in out]


def _digest(context: str | None) -> str:
    """How a stored variant names its text's context (the whole context is an argument of no stored function)."""
    return hashlib.sha256(context.encode("utf-8")).hexdigest()[:16] if context else ""


_JUDGED: dict[str, JudgedRecipe] = {}  # judged recipes by composition hash, for the stored variants below
_CONTEXTS: dict[str, str | None] = {}  # a context by its digest, while its text's variants are asked for


@persistent("judged_variants")
def _judged_variant(
    recipe_key: str,
    text: str,
    frozen_spans: tuple[tuple[int, int], ...],
    context_digest: str,
    consistent_with: tuple[Perturbation, ...],
    variant: int,
) -> Perturbation:
    """Variant `variant` of `text` under the judged recipe with this composition hash (the context named by
    its digest: the arguments decide the result, as for every stored function)."""
    return _JUDGED[recipe_key]._variant(text, frozen_spans, _CONTEXTS[context_digest], consistent_with, variant)
