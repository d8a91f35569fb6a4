"""perturbations: the engine of robustqa. Text in, perturbed text and immutable edit records out.

It knows nothing of SQuAD, models or the CLI. Importing it loads no NLTK resource and downloads
nothing: WordNet, the tagger and stopwords are loaded on first use.
"""

from __future__ import annotations

from perturbations.constraints import (
    Candidate,
    CandidateConstraint,
    Constraint,
    Position,
    PositionConstraint,
    Soft,
    Stage,
)
from perturbations.edit_kinds import EDIT_KIND_RULES, EDIT_KINDS, EditKind, edit_kind
from perturbations.engine import apply_edits
from perturbations.errors import (
    InvalidEditError,
    MissingResourceError,
    PerturbationError,
    RecipeParameterError,
    RecipeRegistrationError,
    UnknownEditKindRulesError,
    UnknownRecipeError,
    UnknownRecipeVersionError,
)
from perturbations.lexicon import check_resources, wordnet_version
from perturbations.recipes import Recipe
from perturbations.records import Perturbation, Substitution, TextToPerturb, Token
from perturbations.registry import (
    default_version,
    get_recipe,
    list_recipes,
    register_recipe,
)
from perturbations.space import EditPosition, Replacement, SearchSpace
from perturbations.synonyms import AnySynonyms, VettedSynonyms, WordNetSynonyms
from perturbations.transformation import Budget, Transformation
from perturbations.workers import map_in_workers, save_cache

__all__ = [
    "AnySynonyms",
    "Budget",
    "EDIT_KIND_RULES",
    "EDIT_KINDS",
    "Candidate",
    "CandidateConstraint",
    "Constraint",
    "EditKind",
    "EditPosition",
    "InvalidEditError",
    "MissingResourceError",
    "Perturbation",
    "PerturbationError",
    "Position",
    "PositionConstraint",
    "Recipe",
    "RecipeParameterError",
    "RecipeRegistrationError",
    "Replacement",
    "SearchSpace",
    "Soft",
    "Stage",
    "Substitution",
    "TextToPerturb",
    "Token",
    "Transformation",
    "UnknownEditKindRulesError",
    "UnknownRecipeError",
    "UnknownRecipeVersionError",
    "VettedSynonyms",
    "WordNetSynonyms",
    "apply_edits",
    "check_resources",
    "default_version",
    "edit_kind",
    "get_recipe",
    "list_recipes",
    "map_in_workers",
    "register_recipe",
    "save_cache",
    "search_space",
    "wordnet_version",
]


def search_space(
    recipe: Recipe | str,
    text: str,
    *,
    frozen_spans: tuple[tuple[int, int], ...] = (),
    wsd_context: str | None = None,
    consistent_with: tuple[Perturbation, ...] = (),
) -> SearchSpace:
    """Every word of `text` that `recipe` (an object, or a name such as "qads" or "qads@1.1") may edit,
    with every replacement its constraints allow, ranked (lowest soft-rule penalty first, then WordNet's
    counts). `Recipe.perturb` spends its budget on exactly this space; `apply_edits(space, {index:
    replacement})` writes a chosen set of edits as `perturb` would."""
    chosen = get_recipe(recipe) if isinstance(recipe, str) else recipe
    return chosen.search_space(
        text, frozen_spans=frozen_spans, wsd_context=wsd_context, consistent_with=consistent_with
    )
