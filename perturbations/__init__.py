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
    Stage,
)
from perturbations.errors import (
    MissingResourceError,
    PerturbationError,
    RecipeParameterError,
    RecipeRegistrationError,
    UnknownRecipeError,
    UnknownRecipeVersionError,
)
from perturbations.lexicon import check_resources, wordnet_version
from perturbations.recipes import Recipe
from perturbations.records import Perturbation, Substitution, Token
from perturbations.registry import (
    default_version,
    get_recipe,
    list_recipes,
    register_recipe,
)
from perturbations.workers import map_in_workers, save_cache

__all__ = [
    "Candidate",
    "CandidateConstraint",
    "Constraint",
    "MissingResourceError",
    "Perturbation",
    "PerturbationError",
    "Position",
    "PositionConstraint",
    "Recipe",
    "RecipeParameterError",
    "RecipeRegistrationError",
    "Stage",
    "Substitution",
    "Token",
    "UnknownRecipeError",
    "UnknownRecipeVersionError",
    "check_resources",
    "default_version",
    "get_recipe",
    "list_recipes",
    "map_in_workers",
    "register_recipe",
    "save_cache",
    "wordnet_version",
]
